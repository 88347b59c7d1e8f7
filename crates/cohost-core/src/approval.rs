//! Where tool-approval decisions come from.
//!
//! The engine asks a [`DecisionSource`] and bounds the wait with a deadline;
//! no answer is a deny. Sources: a fixed policy, an interactive prompt (the
//! binary provides one), or a remote host over the relay.

use futures::future::BoxFuture;
use std::sync::Arc;

use crate::event::{ApprovalOption, DecisionOrigin, ToolKind};

/// What a decider sees.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalContext {
    /// The turn.
    pub prompt_id: String,
    /// The call.
    pub tool_id: String,
    /// Tool name.
    pub name: String,
    /// Normalized kind.
    pub kind: ToolKind,
    /// Arguments (sanitized).
    pub input: serde_json::Value,
    /// Options allowed.
    pub options: Vec<ApprovalOption>,
}

/// A decision with its provenance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Chosen option.
    pub option: ApprovalOption,
    /// Optional reason, passed to the agent on deny.
    pub message: Option<String>,
    /// Who decided.
    pub origin: DecisionOrigin,
    /// The people whose decision it is, by name (see
    /// [`crate::EventBody::ToolApprovalDecided`]); empty: the origin says it all.
    pub deciders: Vec<String>,
}

impl Decision {
    /// Allow once, from `origin`.
    pub fn allow(origin: DecisionOrigin) -> Self {
        Decision {
            option: ApprovalOption::AllowOnce,
            message: None,
            origin,
            deciders: Vec::new(),
        }
    }

    /// Deny once, from `origin`, with a reason.
    pub fn deny(origin: DecisionOrigin, why: impl Into<String>) -> Self {
        Decision {
            option: ApprovalOption::RejectOnce,
            message: Some(why.into()),
            origin,
            deciders: Vec::new(),
        }
    }

    /// The same decision, made by these people.
    pub fn by(mut self, deciders: Vec<String>) -> Self {
        self.deciders = deciders;
        self
    }
}

/// Answers approval requests. The returned future must not borrow `self`
/// so the engine can keep reading the agent while a human thinks.
pub trait DecisionSource: Send + Sync {
    /// Decide on one request. The engine enforces the deadline.
    fn decide(&self, request: ApprovalContext) -> BoxFuture<'static, Decision>;
}

/// A fixed policy: allow everything or deny everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Allow every call.
    AllowAll,
    /// Deny every call.
    DenyAll,
}

impl DecisionSource for Policy {
    fn decide(&self, _request: ApprovalContext) -> BoxFuture<'static, Decision> {
        let d = match self {
            Policy::AllowAll => Decision::allow(DecisionOrigin::Policy),
            Policy::DenyAll => Decision::deny(DecisionOrigin::Policy, "denied by cohost policy"),
        };
        Box::pin(async move { d })
    }
}

/// A source that never answers: the deadline decides. Useful for tests and
/// for a host that went away.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverAnswers;

impl DecisionSource for NeverAnswers {
    fn decide(&self, _request: ApprovalContext) -> BoxFuture<'static, Decision> {
        Box::pin(futures::future::pending())
    }
}

/// Adapts a closure into a decision source.
pub struct FnDecisionSource<F>(pub F);

impl<F> DecisionSource for FnDecisionSource<F>
where
    F: Fn(ApprovalContext) -> BoxFuture<'static, Decision> + Send + Sync,
{
    fn decide(&self, request: ApprovalContext) -> BoxFuture<'static, Decision> {
        (self.0)(request)
    }
}

/// Shared handle to a decision source.
pub type SharedDecisionSource = Arc<dyn DecisionSource>;
