//! Bounded per-connection send queue with slow-consumer handling.
//!
//! Above the soft limit, replayable chunks are dropped and replaced by one
//! `room.gap` marker per stream (the client resumes from it); anything that would
//! take the queue above the hard limit closes the connection. Queued bytes
//! count until the socket has taken them (not until the writer took them off
//! the queue), so a writer blocked on a reader that stopped reading still
//! reaches the hard limit, and [`Outbox::overflow`] wakes it to disconnect.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use cohost_protocol::{Frame, FrameType, Gap};
use tokio::sync::Notify;

use crate::metrics::{add, Metrics};

/// Why the relay closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CloseReason {
    SlowConsumer,
    RoomClosed,
    Shutdown,
    /// Too many refused frames (close 4429).
    Abuse,
    /// Removed by the host; its token is revoked (close 4403).
    Kicked,
}

impl CloseReason {
    /// WebSocket close code and reason text.
    pub(crate) fn code(self) -> (u16, &'static str) {
        match self {
            CloseReason::SlowConsumer => (4408, "slow consumer: outbox over the hard limit"),
            CloseReason::RoomClosed => (4000, "room closed by host"),
            CloseReason::Shutdown => (1001, "relay shutting down"),
            CloseReason::Abuse => (4429, "too many refused frames"),
            CloseReason::Kicked => (4403, "removed from the room by the host"),
        }
    }
}

#[derive(Default)]
struct Inner {
    queue: VecDeque<Bytes>,
    bytes: usize,
    gapped: Vec<String>,
    resumed: bool,
    close: Option<CloseReason>,
}

/// The send side of one connection.
pub(crate) struct Outbox {
    inner: Mutex<Inner>,
    pub(crate) notify: Notify,
    /// Signalled once when the hard limit closes the connection, so a writer
    /// stuck on a socket that stopped reading gives up at once.
    pub(crate) overflow: Notify,
    soft: usize,
    hard: usize,
    pub(crate) metrics: Arc<Metrics>,
}

/// What the writer should do next.
pub(crate) struct Batch {
    pub(crate) frames: VecDeque<Bytes>,
    /// Bytes of `frames`; hand them to [`Outbox::written`] once sent.
    pub(crate) bytes: usize,
    pub(crate) close: Option<CloseReason>,
}

impl Outbox {
    pub(crate) fn new(soft: usize, hard: usize, metrics: Arc<Metrics>) -> Outbox {
        Outbox {
            inner: Mutex::new(Inner::default()),
            notify: Notify::new(),
            overflow: Notify::new(),
            soft,
            hard: hard.max(soft),
            metrics,
        }
    }

    /// Closes for a slow consumer (under the lock) and wakes a stuck writer.
    fn overflowed(&self, g: &mut Inner) {
        if g.close.is_none() {
            g.close = Some(CloseReason::SlowConsumer);
            self.overflow.notify_one();
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a non-replayable frame (or a replayed one); closes the connection over the hard limit.
    pub(crate) fn push(&self, b: Bytes) {
        let mut g = self.lock();
        if g.close.is_some() {
            return;
        }
        if g.bytes + b.len() > self.hard {
            self.overflowed(&mut g);
        } else {
            g.bytes += b.len();
            g.queue.push_back(b);
        }
        drop(g);
        self.notify.notify_one();
    }

    /// Queues a live replayable frame, unless the client has not resumed yet
    /// (it will get it from the ring) or the stream is in a gap.
    pub(crate) fn push_replayable(&self, f: &Frame) {
        let Some(stream) = f.stream() else {
            return self.push(f.bytes().clone());
        };
        let mut g = self.lock();
        if g.close.is_some() || !g.resumed || g.gapped.iter().any(|s| s == stream) {
            return;
        }
        // A chunk always goes live to a reader with nothing pending, however
        // large (up to the frame limit); otherwise only while under the soft limit.
        if g.bytes == 0 || g.bytes + f.len() <= self.soft {
            g.bytes += f.len();
            g.queue.push_back(f.bytes().clone());
        } else {
            g.gapped.push(stream.to_string());
            let gap = Gap {
                stream: stream.to_string(),
                first_dropped: f.chunk(),
            };
            match Frame::control_frame(FrameType::RoomGap, f.room(), Some(stream), &gap) {
                Ok(m) if g.bytes + m.len() <= self.hard => {
                    g.bytes += m.len();
                    g.queue.push_back(m.bytes().clone());
                }
                _ => self.overflowed(&mut g),
            }
            add(&self.metrics.drops, 1);
            tracing::debug!(
                stream,
                chunk = f.chunk(),
                queued = g.bytes,
                "slow consumer: chunk dropped, gap marked"
            );
        }
        drop(g);
        self.notify.notify_one();
    }

    /// Marks the client as resumed (live stream frames flow) and clears gaps.
    pub(crate) fn set_resumed(&self) {
        let mut g = self.lock();
        g.resumed = true;
        g.gapped.clear();
    }

    /// Stops live stream frames while a replay catches the client up (the
    /// replay cursor reaches them in the ring instead).
    pub(crate) fn set_replaying(&self) {
        let mut g = self.lock();
        g.resumed = false;
        g.gapped.clear();
    }

    /// Bytes queued or being written.
    pub(crate) fn pending(&self) -> usize {
        self.lock().bytes
    }

    /// The socket took `n` bytes of a batch.
    pub(crate) fn written(&self, n: usize) {
        let mut g = self.lock();
        g.bytes = g.bytes.saturating_sub(n);
    }

    /// Asks the writer to close after sending what is queued.
    pub(crate) fn close(&self, reason: CloseReason) {
        let mut g = self.lock();
        if g.close.is_none() {
            g.close = Some(reason);
        }
        drop(g);
        self.notify.notify_one();
    }

    /// Takes everything queued. Its bytes stay counted until [`Outbox::written`].
    pub(crate) fn take(&self) -> Batch {
        let mut g = self.lock();
        let frames = std::mem::take(&mut g.queue);
        Batch {
            bytes: frames.iter().map(Bytes::len).sum(),
            frames,
            close: g.close,
        }
    }
}
