//! A session's events for any number of subscribers: a bounded ring replays
//! the recent past to a late subscriber, then each subscriber gets every new
//! event, in order, exactly once.
//!
//! Each subscriber has its own bounded queue rather than one shared
//! broadcast buffer: a front end that must not lose events (`cohost run
//! --json` writing to a slow pipe) keeps them all while it catches up, and
//! one that falls [`LogLimits::lag`] events behind is cut off with
//! [`Lagged`] instead of holding memory without end or slowing the agent.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use cohost_core::sync::lock;
use cohost_core::Event;
use tokio::sync::mpsc;

/// How much a log keeps and how far a subscriber may fall behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLimits {
    /// Events replayed to a late subscriber (the most recent ones).
    pub replay: usize,
    /// Events a subscriber may have unread before it is cut off.
    pub lag: usize,
}

impl Default for LogLimits {
    fn default() -> Self {
        LogLimits {
            replay: 10_000,
            lag: 65_536,
        }
    }
}

/// A subscriber fell too far behind and was cut off; `missed` is how many
/// events it did not get before its queue was closed (at least one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lagged {
    /// Events it did not get.
    pub missed: u64,
}

impl std::fmt::Display for Lagged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fell behind the session by more than its queue holds and was cut off ({} events missed); subscribe again",
            self.missed
        )
    }
}

impl std::error::Error for Lagged {}

struct Subscriber {
    tx: mpsc::Sender<Event>,
    /// Set, with the count of what was dropped, when the subscriber is cut.
    cut: Arc<CutOff>,
}

#[derive(Default)]
struct CutOff {
    flag: AtomicBool,
    missed: std::sync::atomic::AtomicU64,
}

#[derive(Default)]
struct Inner {
    ring: VecDeque<Event>,
    subscribers: Vec<Subscriber>,
    closed: bool,
}

/// The event log of one running session.
pub struct EventLog {
    inner: Mutex<Inner>,
    limits: LogLimits,
}

impl EventLog {
    /// An empty, open log.
    pub fn new(limits: LogLimits) -> EventLog {
        EventLog {
            inner: Mutex::default(),
            limits,
        }
    }

    /// Append `event` and hand it to every subscriber.
    pub fn publish(&self, event: Event) {
        // One lock for the ring and the fan-out, so a subscription's replay
        // plus its queue hold every event exactly once.
        let mut inner = lock(&self.inner);
        if inner.closed {
            return;
        }
        inner
            .subscribers
            .retain(|s| match s.tx.try_send(event.clone()) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Closed(_)) => false,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    s.cut.missed.fetch_add(1, Ordering::Relaxed);
                    s.cut.flag.store(true, Ordering::Release);
                    false
                }
            });
        if self.limits.replay > 0 {
            if inner.ring.len() >= self.limits.replay {
                inner.ring.pop_front();
            }
            inner.ring.push_back(event);
        }
    }

    /// The recent past, then every new event.
    pub fn subscribe(&self) -> Subscription {
        self.subscribe_with(true)
    }

    /// Only the events published from now on.
    pub fn subscribe_new(&self) -> Subscription {
        self.subscribe_with(false)
    }

    fn subscribe_with(&self, replay: bool) -> Subscription {
        let (tx, rx) = mpsc::channel(self.limits.lag.max(1));
        let cut = Arc::new(CutOff::default());
        let mut inner = lock(&self.inner);
        let past = if replay {
            inner.ring.clone()
        } else {
            VecDeque::new()
        };
        if !inner.closed {
            inner.subscribers.push(Subscriber {
                tx,
                cut: cut.clone(),
            });
        }
        Subscription {
            replay: past,
            rx,
            cut,
        }
    }

    /// No more events: every subscription ends once it has read what it
    /// was given. Idempotent.
    pub fn close(&self) {
        let mut inner = lock(&self.inner);
        inner.closed = true;
        inner.subscribers.clear();
    }

    /// How many subscriptions are open.
    pub fn subscribers(&self) -> usize {
        lock(&self.inner).subscribers.len()
    }
}

/// One consumer's view of a session's events. Also a [`futures::Stream`].
pub struct Subscription {
    replay: VecDeque<Event>,
    rx: mpsc::Receiver<Event>,
    cut: Arc<CutOff>,
}

impl Subscription {
    /// The next event; `Ok(None)` once the session has ended and everything
    /// was read; `Err` when this subscriber fell behind and was cut off.
    pub async fn recv(&mut self) -> Result<Option<Event>, Lagged> {
        if let Some(ev) = self.replay.pop_front() {
            return Ok(Some(ev));
        }
        match self.rx.recv().await {
            Some(ev) => Ok(Some(ev)),
            None => self.ended(),
        }
    }

    /// The next event if one is ready now.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.replay.pop_front().or_else(|| self.rx.try_recv().ok())
    }

    fn ended(&self) -> Result<Option<Event>, Lagged> {
        if self.cut.flag.load(Ordering::Acquire) {
            Err(Lagged {
                missed: self.cut.missed.load(Ordering::Relaxed),
            })
        } else {
            Ok(None)
        }
    }
}

impl futures::Stream for Subscription {
    type Item = Result<Event, Lagged>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(ev) = this.replay.pop_front() {
            return Poll::Ready(Some(Ok(ev)));
        }
        match this.rx.poll_recv(cx) {
            Poll::Ready(Some(ev)) => Poll::Ready(Some(Ok(ev))),
            Poll::Ready(None) => Poll::Ready(this.ended().transpose()),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::EventBody;
    use futures::StreamExt;

    fn ev(n: u64) -> Event {
        Event {
            id: format!("e{n}"),
            prompt_id: "p".into(),
            correlation_id: "c".into(),
            ts: n,
            agent: None,
            body: EventBody::Status {
                message: format!("{n}"),
                retry_after_ms: None,
            },
        }
    }

    fn ids(events: &[Event]) -> Vec<u64> {
        events.iter().map(|e| e.ts).collect()
    }

    async fn drain(s: &mut Subscription) -> Vec<Event> {
        let mut out = Vec::new();
        while let Ok(Some(e)) = s.recv().await {
            out.push(e);
        }
        out
    }

    #[tokio::test]
    async fn a_late_subscriber_gets_the_recent_past_then_everything_once() {
        let log = EventLog::new(LogLimits { replay: 3, lag: 16 });
        for n in 0..5 {
            log.publish(ev(n));
        }
        let mut late = log.subscribe();
        let mut fresh = log.subscribe_new();
        for n in 5..7 {
            log.publish(ev(n));
        }
        log.close();
        assert_eq!(ids(&drain(&mut late).await), [2, 3, 4, 5, 6]);
        assert_eq!(ids(&drain(&mut fresh).await), [5, 6]);
        assert_eq!(log.subscribers(), 0);
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_is_cut_off_and_told() {
        let log = EventLog::new(LogLimits { replay: 0, lag: 2 });
        let mut slow = log.subscribe();
        let mut keeping_up = log.subscribe();
        for n in 0..2 {
            log.publish(ev(n));
            assert_eq!(keeping_up.recv().await.unwrap().unwrap().ts, n);
        }
        log.publish(ev(2));
        assert_eq!(keeping_up.recv().await.unwrap().unwrap().ts, 2);
        assert_eq!(slow.recv().await.unwrap().unwrap().ts, 0);
        assert_eq!(slow.recv().await.unwrap().unwrap().ts, 1);
        assert_eq!(slow.recv().await, Err(Lagged { missed: 1 }));
        assert_eq!(log.subscribers(), 1, "only the one that kept up is left");
    }

    #[tokio::test]
    async fn the_ring_is_bounded_and_keeps_the_newest() {
        let log = EventLog::new(LogLimits { replay: 4, lag: 1 });
        for n in 0..10_000 {
            log.publish(ev(n));
        }
        let s = log.subscribe();
        log.close();
        let got: Vec<u64> = s
            .map(|e| e.map(|e| e.ts).unwrap_or(u64::MAX))
            .collect()
            .await;
        assert_eq!(got, [9996, 9997, 9998, 9999]);
    }

    #[tokio::test]
    async fn a_dropped_subscription_is_forgotten_and_a_closed_log_takes_nothing() {
        let log = EventLog::new(LogLimits::default());
        drop(log.subscribe());
        log.publish(ev(0));
        assert_eq!(log.subscribers(), 0);
        log.close();
        log.publish(ev(1));
        let mut s = log.subscribe();
        assert_eq!(ids(&drain(&mut s).await), [0]);
    }
}
