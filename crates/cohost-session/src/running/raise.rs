//! Approvals the session raises itself, for calls its agent made without
//! asking cohost (a room bridge call of an agent that runs MCP tools
//! unasked): asked in the running turn like the agent's own requests, so
//! every front end, policy and record sees and decides them the same way.

use std::sync::atomic::Ordering;

use cohost_core::engine::unanswered;
use cohost_core::{ApprovalOption, Decision, DecisionOrigin, ToolCallInfo};

use super::RunningSession;

impl RunningSession {
    /// Ask this session's approval policy about `call`, in its running
    /// turn: a `tool_approval_requested` event, the session's decision
    /// source (a policy, the person, [`RunningSession::decide`]) under its
    /// deadline, a `tool_approval_decided` event. With no turn running
    /// nobody is asked: the call is denied.
    pub async fn raise_approval(
        &self,
        call: ToolCallInfo,
        options: Vec<ApprovalOption>,
    ) -> Decision {
        // Watch for the turn's end before looking whether it runs.
        let mut ended = self.shared.turns_ended.subscribe();
        if !self.shared.streaming.load(Ordering::SeqCst) {
            return Decision::deny(
                DecisionOrigin::Cancelled,
                "no turn of this session is running to ask in",
            );
        }
        let mut answer = self.shared.control.raise_approval(call, options);
        tokio::select! {
            d = &mut answer => d.unwrap_or_else(|_| unanswered()),
            // The engine answers before its turn ends; this only keeps a
            // request sent as the turn ended from waiting for the next one.
            _ = ended.changed() => answer.try_recv().unwrap_or_else(|_| unanswered()),
        }
    }
}
