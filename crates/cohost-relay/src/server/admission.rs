//! Admission: who gets a socket when sockets run out.
//!
//! Every accepted TCP connection holds a [`Ticket`] until it is closed.
//! A ticket stays *pending* until its WebSocket presents a valid room token;
//! pending connections are the cheap ones to drop. Whenever a cap is reached
//! (connections from one IP, connections in total) or `accept` fails with
//! "too many open files", the oldest pending connection is closed to make
//! room, and the accept loop backs off instead of spinning. A sweeper closes
//! connections still pending after the handshake deadline (raw TCP that never
//! sends a request, an upgrade that never authenticates), so idle sockets
//! cannot hold the relay's file descriptors. Authenticated participants are
//! never evicted for a newcomer.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use crate::metrics::{add, Metrics};

/// Longest the accept loop sleeps after an accept error.
const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// Pending connections closed per "too many open files" error.
const EVICT_ON_EMFILE: usize = 16;

#[derive(Default)]
struct Table {
    total: usize,
    per_ip: HashMap<IpAddr, usize>,
    /// Pending tickets, oldest first (dead or authenticated ones are skipped lazily).
    pending: VecDeque<(Instant, Weak<Ticket>)>,
}

/// Connection accounting shared by the listener, the sweeper and every ticket.
pub(crate) struct Admission {
    table: Mutex<Table>,
    max_total: usize,
    max_per_ip: usize,
    metrics: Arc<Metrics>,
}

/// One accepted connection's place in the table.
pub(crate) struct Ticket {
    ip: IpAddr,
    authenticated: AtomicBool,
    /// Upgraded to a WebSocket: the first-message token wait enforces the
    /// deadline itself (and says why it closes), so the sweeper leaves it.
    upgraded: AtomicBool,
    evicted: AtomicBool,
    waker: AtomicWaker,
    admission: Weak<Admission>,
}

impl Ticket {
    /// The connection presented a valid token: it is no longer evictable.
    pub(crate) fn authenticated(&self) {
        self.authenticated.store(true, Ordering::Relaxed);
    }

    /// The connection is now a WebSocket waiting for its first-message token.
    pub(crate) fn upgraded(&self) {
        self.upgraded.store(true, Ordering::Relaxed);
    }

    fn evict(&self) {
        self.evicted.store(true, Ordering::Relaxed);
        self.waker.wake();
        if let Some(a) = self.admission.upgrade() {
            add(&a.metrics.evictions, 1);
        }
    }

    fn is_pending(&self) -> bool {
        !self.authenticated.load(Ordering::Relaxed) && !self.evicted.load(Ordering::Relaxed)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(a) = self.admission.upgrade() {
            let mut t = a.lock();
            t.total = t.total.saturating_sub(1);
            if let Some(n) = t.per_ip.get_mut(&self.ip) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    t.per_ip.remove(&self.ip);
                }
            }
        }
    }
}

impl Admission {
    pub(crate) fn new(
        max_total: usize,
        max_per_ip: usize,
        metrics: Arc<Metrics>,
    ) -> Arc<Admission> {
        Arc::new(Admission {
            table: Mutex::new(Table::default()),
            max_total: max_total.max(1),
            max_per_ip: max_per_ip.max(1),
            metrics,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Closes the oldest pending connection (from `ip` only, if given) and
    /// forgets tickets no longer pending. Every ticket it touches goes into
    /// `grave`, for the caller to drop after unlocking: dropping the last
    /// reference to a ticket locks the table.
    fn evict_oldest(t: &mut Table, ip: Option<IpAddr>, grave: &mut Vec<Arc<Ticket>>) -> bool {
        let Some(ip) = ip else {
            // Any IP: the front is the oldest; drop stale entries as we go.
            while let Some((_, w)) = t.pending.pop_front() {
                let Some(k) = w.upgrade() else { continue };
                let pending = k.is_pending();
                if pending {
                    k.evict();
                }
                grave.push(k);
                if pending {
                    return true;
                }
            }
            return false;
        };
        let mut found = false;
        let mut keep = VecDeque::with_capacity(t.pending.len());
        for (at, w) in t.pending.drain(..) {
            let Some(k) = w.upgrade() else { continue };
            if k.is_pending() {
                if !found && k.ip == ip {
                    k.evict();
                    found = true;
                } else {
                    keep.push_back((at, w));
                }
            }
            grave.push(k);
        }
        t.pending = keep;
        found
    }

    /// A ticket for a new connection from `ip`, making room by evicting a
    /// pending connection if a cap is reached; `None`: refuse it.
    fn admit(self: &Arc<Self>, ip: IpAddr, now: Instant) -> Option<Arc<Ticket>> {
        let mut grave = Vec::new();
        let mut t = self.lock();
        let from_ip = t.per_ip.get(&ip).copied().unwrap_or(0);
        // An evicted ticket stays counted until its task drops it, so the
        // count may briefly exceed a cap by the connections being closed.
        if from_ip >= self.max_per_ip && !Self::evict_oldest(&mut t, Some(ip), &mut grave) {
            return None;
        }
        if t.total >= self.max_total && !Self::evict_oldest(&mut t, None, &mut grave) {
            return None;
        }
        t.total += 1;
        *t.per_ip.entry(ip).or_insert(0) += 1;
        let k = Arc::new(Ticket {
            ip,
            authenticated: AtomicBool::new(false),
            upgraded: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
            waker: AtomicWaker::new(),
            admission: Arc::downgrade(self),
        });
        t.pending.push_back((now, Arc::downgrade(&k)));
        drop(t);
        Some(k)
    }

    /// Closes connections still pending after `deadline` (upgraded ones
    /// stay listed, evictable under pressure, but time out on their own).
    pub(crate) fn sweep(&self, now: Instant, deadline: Duration) {
        let mut grave = Vec::new();
        let mut upgraded = Vec::new();
        let mut t = self.lock();
        while let Some((at, w)) = t.pending.pop_front() {
            if now.saturating_duration_since(at) < deadline {
                t.pending.push_front((at, w));
                break;
            }
            let Some(k) = w.upgrade() else { continue };
            if k.is_pending() {
                if k.upgraded.load(Ordering::Relaxed) {
                    upgraded.push((at, w));
                } else {
                    k.evict();
                }
            }
            grave.push(k);
        }
        for e in upgraded.into_iter().rev() {
            t.pending.push_front(e);
        }
        drop(t);
    }

    fn on_emfile(&self) {
        let mut grave = Vec::new();
        let mut t = self.lock();
        for _ in 0..EVICT_ON_EMFILE {
            if !Self::evict_oldest(&mut t, None, &mut grave) {
                break;
            }
        }
        drop(t);
    }
}

/// What a handler learns about its connection (axum `ConnectInfo`).
#[derive(Clone)]
pub(crate) struct Admitted {
    pub(crate) ticket: Arc<Ticket>,
}

/// The relay's listener: accepts with caps, eviction and backoff.
pub(crate) struct AdmissionListener {
    pub(crate) listener: TcpListener,
    pub(crate) admission: Arc<Admission>,
}

fn is_fd_exhaustion(e: &io::Error) -> bool {
    // EMFILE (24) and ENFILE (23): the process or the system is out of descriptors.
    matches!(e.raw_os_error(), Some(23 | 24))
}

impl axum::serve::Listener for AdmissionListener {
    type Io = Tracked;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Tracked, SocketAddr) {
        let mut backoff = Duration::from_millis(5);
        loop {
            match self.listener.accept().await {
                Ok((tcp, peer)) => {
                    backoff = Duration::from_millis(5);
                    let Some(ticket) = self.admission.admit(peer.ip(), Instant::now()) else {
                        add(&self.admission.metrics.capped_connections, 1);
                        tracing::debug!(%peer, "connection refused: caps reached, nothing to evict");
                        continue;
                    };
                    if let Err(e) = tcp.set_nodelay(true) {
                        tracing::debug!(error = %e, "could not set TCP_NODELAY");
                    }
                    return (Tracked { inner: tcp, ticket }, peer);
                }
                Err(e) if is_fd_exhaustion(&e) => {
                    add(&self.admission.metrics.accept_errors, 1);
                    tracing::warn!(error = %e, "out of file descriptors: closing the oldest unauthenticated connections");
                    self.admission.on_emfile();
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                Err(e) => {
                    add(&self.admission.metrics.accept_errors, 1);
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, AdmissionListener>>
    for Admitted
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, AdmissionListener>) -> Self {
        Admitted {
            ticket: stream.io().ticket.clone(),
        }
    }
}

/// A TCP stream that fails (and so gets closed) once its ticket is evicted.
pub(crate) struct Tracked {
    inner: TcpStream,
    ticket: Arc<Ticket>,
}

impl Tracked {
    /// The connection's admission ticket.
    pub(crate) fn ticket(&self) -> &Arc<Ticket> {
        &self.ticket
    }

    fn check(&self, cx: &mut Context<'_>) -> io::Result<()> {
        self.ticket.waker.register(cx.waker());
        if self.ticket.evicted.load(Ordering::Relaxed) {
            Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "closed to make room: not authenticated in time",
            ))
        } else {
            Ok(())
        }
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.check(cx)?;
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.check(cx)?;
        Pin::new(&mut this.inner).poll_write(cx, data)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_evict_the_oldest_pending_and_spare_the_authenticated() {
        let a = Admission::new(3, 2, Arc::new(Metrics::default()));
        let now = Instant::now();
        let ip1: IpAddr = [10, 0, 0, 1].into();
        let ip2: IpAddr = [10, 0, 0, 2].into();
        let first = a.admit(ip1, now).unwrap();
        first.authenticated();
        let second = a.admit(ip1, now).unwrap();
        // ip1 is at its cap: the pending `second` makes room, `first` stays.
        let third = a.admit(ip1, now).unwrap();
        assert!(second.evicted.load(Ordering::Relaxed));
        assert!(!first.evicted.load(Ordering::Relaxed));
        drop(second);
        let other = a.admit(ip2, now).unwrap();
        // Total cap 3 reached (first, third, other): the oldest pending is `third`.
        let fourth = a.admit(ip2, now).unwrap();
        assert!(third.evicted.load(Ordering::Relaxed));
        assert!(!other.evicted.load(Ordering::Relaxed));
        drop(third);
        other.authenticated();
        fourth.authenticated();
        assert!(a.admit(ip2, now).is_none(), "nobody left to evict: refused");
    }

    #[test]
    fn the_sweeper_closes_what_did_not_authenticate_in_time() {
        let a = Admission::new(100, 100, Arc::new(Metrics::default()));
        let t = Instant::now();
        let idle = a.admit([10, 0, 0, 1].into(), t).unwrap();
        let good = a.admit([10, 0, 0, 1].into(), t).unwrap();
        good.authenticated();
        let waiting = a.admit([10, 0, 0, 1].into(), t).unwrap();
        waiting.upgraded();
        a.sweep(t + Duration::from_secs(1), Duration::from_secs(5));
        assert!(!idle.evicted.load(Ordering::Relaxed));
        a.sweep(t + Duration::from_secs(6), Duration::from_secs(5));
        assert!(idle.evicted.load(Ordering::Relaxed));
        assert!(!good.evicted.load(Ordering::Relaxed));
        // An upgraded socket times out on its own (with a reason), but
        // stays evictable under pressure.
        assert!(!waiting.evicted.load(Ordering::Relaxed));
        a.on_emfile();
        assert!(waiting.evicted.load(Ordering::Relaxed));
    }
}
