//! Approvals cohost raises itself: for a call that did not come through the
//! agent's own approval channel (a room bridge call of an agent that runs
//! MCP tools without asking cohost). The running turn shows and decides
//! such a request exactly like one of the agent's own: the same
//! `tool_approval_requested` event, the same decision source and deadline,
//! the same `tool_approval_decided` event; only the decision goes back to
//! whoever raised it instead of to the agent.

use tokio::sync::oneshot;

use crate::approval::Decision;
use crate::event::{ApprovalOption, DecisionOrigin};
use crate::port::ToolCallInfo;

/// A request raised through [`super::SessionControl::raise_approval`].
#[derive(Debug)]
pub struct RaisedApproval {
    /// The call, as the request names it (its `tool_id` is the raiser's,
    /// unique within the session).
    pub call: ToolCallInfo,
    /// The options offered.
    pub options: Vec<ApprovalOption>,
    /// Where the decision goes.
    pub reply: oneshot::Sender<Decision>,
}

impl RaisedApproval {
    /// Deny it without asking anyone, for `why` (no turn runs to ask in).
    pub fn refuse(self, why: &str) {
        // The raiser may have stopped waiting: a closed reply is a deny too.
        let _ = self
            .reply
            .send(Decision::deny(DecisionOrigin::Cancelled, why));
    }
}

/// What a raiser reads when the reply was dropped unanswered: the session
/// ended, or the turn ended without deciding.
pub fn unanswered() -> Decision {
    Decision::deny(
        DecisionOrigin::Cancelled,
        "the turn ended before anyone decided",
    )
}
