//! The fan-out: every notice to every sink, each sink on a task of its own
//! behind a bounded queue, so none delays the session or another sink.

use std::sync::Arc;

use async_trait::async_trait;
use cohost_core::{Event, Sanitizer};
use cohost_session::Subscription;
use tokio::sync::mpsc;

use crate::notice::{notice_for, Notice};

/// Notices a sink may have waiting; more are dropped (a notification late
/// by a queue of eight is worth little).
const QUEUE: usize = 8;

/// Somewhere notices go.
#[async_trait]
pub trait Sink: Send + 'static {
    /// What the user calls it in a report (`webhook`, `desktop`).
    fn name(&self) -> &str;

    /// Deliver one notice; an error says why it was not (after whatever
    /// retries the sink makes), sanitized by the caller.
    async fn deliver(&mut self, notice: &Notice) -> Result<(), String>;
}

/// Tells every sink of the notices of session events. Cheap to clone.
#[derive(Clone)]
pub struct Notifier {
    /// What every notice and every failure report passes: the composition
    /// root's sanitizer.
    sanitizer: Arc<Sanitizer>,
    sinks: Vec<mpsc::Sender<Notice>>,
    reports: Option<Arc<dyn Fn(String) + Send + Sync>>,
    tasks: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("sinks", &self.sinks.len())
            .finish_non_exhaustive()
    }
}

impl Notifier {
    /// A notifier with no sink (notices go nowhere), its texts passing
    /// `sanitizer`.
    pub fn new(sanitizer: Arc<Sanitizer>) -> Notifier {
        Notifier {
            sanitizer,
            sinks: Vec::new(),
            reports: None,
            tasks: Arc::default(),
        }
    }

    /// Where a sink that failed is reported, once per sink (default: the
    /// log). Set it before adding sinks.
    pub fn on_report(mut self, report: impl Fn(String) + Send + Sync + 'static) -> Notifier {
        self.reports = Some(Arc::new(report));
        self
    }

    /// Add `sink`, on a task of its own. Needs a tokio runtime.
    pub fn with_sink(mut self, sink: impl Sink) -> Notifier {
        let (tx, rx) = mpsc::channel(QUEUE);
        let task = tokio::spawn(drive(
            sink,
            rx,
            self.reports.clone(),
            self.sanitizer.clone(),
        ));
        cohost_core::sync::lock(&self.tasks).push(task);
        self.sinks.push(tx);
        self
    }

    /// Whether any sink is listening.
    pub fn is_empty(&self) -> bool {
        self.sinks.is_empty()
    }

    /// Send `notice` to every sink without waiting.
    pub fn notify(&self, notice: &Notice) {
        for s in &self.sinks {
            if s.try_send(notice.clone()).is_err() {
                tracing::debug!(
                    kind = notice.kind.as_str(),
                    "a notification sink is behind; notice dropped"
                );
            }
        }
    }

    /// Tell the sinks of `event`, when it is worth a notice; `who` names
    /// the agent of a session of one (events of a room name their member).
    pub fn event(&self, event: &Event, who: &str) {
        if self.sinks.is_empty() {
            return;
        }
        if let Some(n) = notice_for(&self.sanitizer, event, who) {
            self.notify(&n);
        }
    }

    /// At the end of a one-shot command: let the sinks deliver what they
    /// hold, for at most `within` (the session is over; nothing waits on
    /// this but the process's exit). Other clones (a [`Notifier::watch`]
    /// whose session has ended) must be gone for a sink to finish early.
    pub async fn drain(self, within: std::time::Duration) {
        let tasks = std::mem::take(&mut *cohost_core::sync::lock(&self.tasks));
        drop(self);
        let all = join_tasks(tasks);
        if tokio::time::timeout(within, all).await.is_err() {
            tracing::debug!("notifications still pending at exit were dropped");
        }
    }

    /// Follow `events` (a session's subscription) until it ends, on a task
    /// of its own.
    pub fn watch(&self, mut events: Subscription, who: String) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move {
            while let Ok(Some(e)) = events.recv().await {
                me.event(&e, &who);
            }
        })
    }
}

async fn join_tasks(tasks: Vec<tokio::task::JoinHandle<()>>) {
    for t in tasks {
        let _ = t.await;
    }
}

async fn drive(
    mut sink: impl Sink,
    mut rx: mpsc::Receiver<Notice>,
    reports: Option<Arc<dyn Fn(String) + Send + Sync>>,
    sanitizer: Arc<Sanitizer>,
) {
    let mut reported = false;
    while let Some(n) = rx.recv().await {
        if let Err(why) = sink.deliver(&n).await {
            let why = sanitizer.sanitize(&why);
            if reported {
                tracing::debug!(sink = sink.name(), %why, "notification not delivered");
                continue;
            }
            reported = true;
            let msg = format!(
                "{} notifications are not getting through: {why} (told once; the session goes on)",
                sink.name()
            );
            match &reports {
                Some(r) => r(msg),
                None => tracing::warn!("{msg}"),
            }
        }
    }
}

#[cfg(test)]
mod tests;
