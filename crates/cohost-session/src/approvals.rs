//! Approvals answered from elsewhere: the settings API
//! (`POST /api/sessions/{id}/approvals/{tool_id}`) or the host of a shared
//! session typing `/allow` and `/deny`. The engine's deadline bounds the
//! wait; an abandoned request is a deny.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use cohost_core::sync::lock;
use cohost_core::{ApprovalContext, Decision, DecisionOrigin, DecisionSource};
use futures::future::BoxFuture;
use tokio::sync::oneshot;

type Notify = Box<dyn Fn(ApprovalContext) + Send + Sync>;

/// A decision source that parks each request, by tool id, until
/// [`PendingApprovals::answer`] resolves it. Cheap to clone (shared state).
#[derive(Clone)]
pub struct PendingApprovals {
    pending: Arc<Mutex<BTreeMap<String, oneshot::Sender<Decision>>>>,
    /// Answers that came before the engine asked (see [`PendingApprovals::answer_early`]).
    early: Arc<Mutex<BTreeMap<String, Decision>>>,
    notify: Arc<Mutex<Option<Notify>>>,
    abandoned: &'static str,
}

impl PendingApprovals {
    /// No request pending; `abandoned` is the reason given to the agent when
    /// a request is dropped unanswered.
    pub fn new(abandoned: &'static str) -> PendingApprovals {
        PendingApprovals {
            pending: Arc::default(),
            early: Arc::default(),
            notify: Arc::default(),
            abandoned,
        }
    }

    /// Call `f` with every new request (to show it to whoever answers).
    pub fn on_request(&self, f: impl Fn(ApprovalContext) + Send + Sync + 'static) {
        *lock(&self.notify) = Some(Box::new(f));
    }

    /// Resolve the request for `tool_id` (`None`: the only pending one);
    /// false when there is none to resolve.
    pub fn answer(&self, tool_id: Option<&str>, decision: Decision) -> bool {
        let mut pending = lock(&self.pending);
        let key = match tool_id {
            Some(id) => Some(id.to_string()),
            None if pending.len() == 1 => pending.keys().next().cloned(),
            None => None,
        };
        match key.and_then(|k| pending.remove(&k)) {
            Some(tx) => tx.send(decision).is_ok(),
            None => false,
        }
    }

    /// Resolve `tool_id` whose `tool_approval_requested` event the caller
    /// has seen: the engine emits the event before it asks its decision
    /// source (and asks about queued requests one at a time), so a fast
    /// client can answer first. Such an answer is kept and decides the
    /// request as soon as the engine asks.
    pub fn answer_early(&self, tool_id: &str, decision: Decision) {
        let tx = lock(&self.pending).remove(tool_id);
        match tx {
            Some(tx) => {
                if let Err(d) = tx.send(decision) {
                    tracing::debug!(tool = %tool_id, decision = ?d.option, "the approval was already given up");
                }
            }
            None => {
                lock(&self.early).insert(tool_id.to_string(), decision);
            }
        }
    }

    /// Deny everything still waiting (the session is ending).
    pub fn abandon_all(&self) {
        // Dropped senders resolve as abandoned denials.
        lock(&self.pending).clear();
        lock(&self.early).clear();
    }
}

impl DecisionSource for PendingApprovals {
    fn decide(&self, request: ApprovalContext) -> BoxFuture<'static, Decision> {
        if let Some(d) = lock(&self.early).remove(&request.tool_id) {
            return Box::pin(std::future::ready(d));
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(request.tool_id.clone(), tx);
        if let Some(notify) = lock(&self.notify).as_ref() {
            notify(request);
        }
        let abandoned = self.abandoned;
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Decision::deny(DecisionOrigin::Cancelled, abandoned))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_core::{ApprovalOption, ToolKind};

    fn request(tool_id: &str) -> ApprovalContext {
        ApprovalContext {
            prompt_id: "p-1".into(),
            tool_id: tool_id.into(),
            name: "write_file".into(),
            kind: ToolKind::Edit,
            input: serde_json::json!({}),
            options: vec![ApprovalOption::AllowOnce],
        }
    }

    #[tokio::test]
    async fn requests_wait_for_their_answer_and_abandoned_ones_are_denied() {
        let p = PendingApprovals::new("gone");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        p.on_request(move |r| lock(&s).push(r.tool_id));
        let one = p.decide(request("t1"));
        assert!(p.answer(None, Decision::allow(DecisionOrigin::User)));
        assert_eq!(one.await.option, ApprovalOption::AllowOnce);
        let a = p.decide(request("a"));
        let b = p.decide(request("b"));
        assert!(
            !p.answer(None, Decision::allow(DecisionOrigin::User)),
            "two pending: name one"
        );
        assert!(!p.answer(Some("zzz"), Decision::allow(DecisionOrigin::User)));
        assert!(p.answer(Some("b"), Decision::deny(DecisionOrigin::User, "no")));
        assert_eq!(b.await.option, ApprovalOption::RejectOnce);
        p.abandon_all();
        let d = a.await;
        assert_eq!(
            (d.origin, d.message.as_deref()),
            (DecisionOrigin::Cancelled, Some("gone"))
        );
        assert_eq!(*lock(&seen), ["t1", "a", "b"]);
    }

    #[tokio::test]
    async fn an_answer_that_comes_before_the_request_decides_it() {
        let p = PendingApprovals::new("gone");
        p.answer_early("t1", Decision::deny(DecisionOrigin::User, "early no"));
        let d = p.decide(request("t1")).await;
        assert_eq!(
            (d.option, d.message.as_deref()),
            (ApprovalOption::RejectOnce, Some("early no"))
        );
        let waiting = p.decide(request("t2"));
        p.answer_early("t2", Decision::allow(DecisionOrigin::User));
        assert_eq!(waiting.await.option, ApprovalOption::AllowOnce);
        p.answer_early("t3", Decision::allow(DecisionOrigin::User));
        p.abandon_all();
        let d = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            p.decide(request("t3")),
        )
        .await;
        assert!(d.is_err(), "an ended session forgets early answers");
    }
}
