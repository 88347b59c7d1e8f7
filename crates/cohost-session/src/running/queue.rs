//! The running session's queue of prompts waiting for their turn: visible
//! (every item has a number and a preview), reorderable and cancellable.
//! Plain data; the running session publishes its `queue` events.

use std::collections::VecDeque;
use std::sync::Arc;

use cohost_core::sanitize::Sanitizer;

use cohost_core::steer::{preview, QueueItem};
use cohost_core::{PromptInput, TurnOutcome};
use tokio::sync::oneshot;

use crate::error::SessionError;

/// One prompt waiting.
#[derive(Debug)]
pub(crate) struct Queued {
    pub(crate) item: QueueItem,
    pub(crate) input: PromptInput,
    pub(crate) reply: oneshot::Sender<TurnOutcome>,
    /// The session's last prompt: the agent stops after its turn.
    pub(crate) last: bool,
    /// Its `added` event was published (it waited behind a turn), so its
    /// start is published too.
    pub(crate) announced: bool,
}

/// The waiting prompts, next first.
#[derive(Debug)]
pub(crate) struct PromptQueue {
    items: VecDeque<Queued>,
    /// The last number given out.
    last_id: u64,
    /// What a queued prompt's preview passes (the session's).
    sanitizer: Arc<Sanitizer>,
}

impl Default for PromptQueue {
    fn default() -> PromptQueue {
        PromptQueue::with_sanitizer(Arc::new(Sanitizer::new(
            Vec::<(String, String)>::new(),
            None,
        )))
    }
}

impl PromptQueue {
    /// An empty queue whose previews pass `sanitizer`.
    pub(crate) fn with_sanitizer(sanitizer: Arc<Sanitizer>) -> PromptQueue {
        PromptQueue {
            items: VecDeque::new(),
            last_id: 0,
            sanitizer,
        }
    }

    /// Add a prompt at the end; its item as events show it.
    pub(crate) fn push(
        &mut self,
        input: PromptInput,
        correlation_id: String,
        by: Option<String>,
        reply: oneshot::Sender<TurnOutcome>,
        last: bool,
        announced: bool,
    ) -> QueueItem {
        self.last_id += 1;
        let item = QueueItem {
            id: self.last_id,
            correlation_id,
            text: preview(&self.sanitizer, &input.text),
            by,
        };
        self.items.push_back(Queued {
            item: item.clone(),
            input,
            reply,
            last,
            announced,
        });
        item
    }

    /// The next prompt to run.
    pub(crate) fn pop(&mut self) -> Option<Queued> {
        self.items.pop_front()
    }

    /// Every item waiting, next first.
    pub(crate) fn items(&self) -> Vec<QueueItem> {
        self.items.iter().map(|q| q.item.clone()).collect()
    }

    /// Cancel item `id`: it will not run.
    pub(crate) fn remove(&mut self, id: u64) -> Result<Queued, SessionError> {
        let at = self.position(id)?;
        self.items.remove(at).ok_or_else(|| not_queued(id))
    }

    /// Move item `id` to place `to` (0: next; past the end: last).
    pub(crate) fn move_to(&mut self, id: u64, to: usize) -> Result<QueueItem, SessionError> {
        let at = self.position(id)?;
        let q = self.items.remove(at).ok_or_else(|| not_queued(id))?;
        let item = q.item.clone();
        let to = to.min(self.items.len());
        self.items.insert(to, q);
        Ok(item)
    }

    /// Where item `id` is, 0 being next.
    pub(crate) fn position(&self, id: u64) -> Result<usize, SessionError> {
        self.items
            .iter()
            .position(|q| q.item.id == id)
            .ok_or_else(|| not_queued(id))
    }

    /// Take every item (the session is ending).
    pub(crate) fn drain(&mut self) -> Vec<Queued> {
        self.items.drain(..).collect()
    }
}

/// Nothing waits under that number.
pub(crate) fn not_queued(id: u64) -> SessionError {
    SessionError::NotQueued { id }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(q: &mut PromptQueue, text: &str) -> (QueueItem, oneshot::Receiver<TurnOutcome>) {
        let (tx, rx) = oneshot::channel();
        let item = q.push(
            PromptInput::text(text),
            format!("c-{text}"),
            None,
            tx,
            false,
            true,
        );
        (item, rx)
    }

    fn texts(q: &PromptQueue) -> Vec<String> {
        q.items().into_iter().map(|i| i.text).collect()
    }

    #[test]
    fn items_are_numbered_moved_dropped_and_run_in_order() {
        let mut q = PromptQueue::default();
        let (a, _) = push(&mut q, "a");
        let (b, _) = push(&mut q, "b");
        let (c, _) = push(&mut q, "c");
        assert_eq!((a.id, b.id, c.id), (1, 2, 3));
        q.move_to(c.id, 0).unwrap();
        assert_eq!(texts(&q), ["c", "a", "b"]);
        q.move_to(c.id, 99).unwrap();
        assert_eq!(texts(&q), ["a", "b", "c"]);
        assert_eq!(q.position(b.id).unwrap(), 1);
        let dropped = q.remove(b.id).unwrap();
        assert_eq!(dropped.item, b);
        assert_eq!(texts(&q), ["a", "c"]);
        assert_eq!(q.pop().unwrap().input.text, "a");
        // Numbers are never given out again.
        let (d, _) = push(&mut q, "d");
        assert_eq!(d.id, 4);
        assert_eq!(texts(&q), ["c", "d"]);
    }

    #[test]
    fn an_unknown_number_is_a_typed_error_with_a_fix() {
        let mut q = PromptQueue::default();
        let (a, _) = push(&mut q, "a");
        q.pop();
        let e = q.remove(a.id).unwrap_err();
        assert_eq!(e, SessionError::NotQueued { id: a.id });
        let e = cohost_core::CohostError::from(e);
        assert!(e.message.contains("#1"), "{e}");
        assert!(e.suggested_fix.unwrap().contains("/queue"));
        assert!(q.move_to(7, 0).is_err());
    }

    #[test]
    fn a_dropped_item_tells_its_waiter_it_will_not_run() {
        let mut q = PromptQueue::default();
        let (a, mut rx) = push(&mut q, "a");
        drop(q.remove(a.id).unwrap());
        assert!(rx.try_recv().is_err());
    }
}
