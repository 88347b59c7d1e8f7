//! Bounded per-connection send queue with slow-consumer handling.
//!
//! Above the soft limit, replayable chunks are dropped and replaced by one
//! `room.gap` marker per stream (the client resumes from it); anything that would
//! take the queue above the hard limit closes the connection.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use bytes::Bytes;
use cohost_protocol::{Frame, FrameType, Gap};
use tokio::sync::Notify;

/// Why the relay closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CloseReason {
    SlowConsumer,
    RoomClosed,
    Shutdown,
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
    soft: usize,
    hard: usize,
}

/// What the writer should do next.
pub(crate) struct Batch {
    pub(crate) frames: VecDeque<Bytes>,
    pub(crate) close: Option<CloseReason>,
}

impl Outbox {
    pub(crate) fn new(soft: usize, hard: usize) -> Outbox {
        Outbox {
            inner: Mutex::new(Inner::default()),
            notify: Notify::new(),
            soft,
            hard: hard.max(soft),
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
            g.close = Some(CloseReason::SlowConsumer);
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
        if g.bytes + f.len() <= self.soft {
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
                _ => g.close = Some(CloseReason::SlowConsumer),
            }
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

    /// Asks the writer to close after sending what is queued.
    pub(crate) fn close(&self, reason: CloseReason) {
        let mut g = self.lock();
        if g.close.is_none() {
            g.close = Some(reason);
        }
        drop(g);
        self.notify.notify_one();
    }

    /// Takes everything queued.
    pub(crate) fn take(&self) -> Batch {
        let mut g = self.lock();
        g.bytes = 0;
        Batch {
            frames: std::mem::take(&mut g.queue),
            close: g.close,
        }
    }
}
