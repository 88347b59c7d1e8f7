//! A chat of several agents (a room): each member's answer and reasoning
//! blocks grow on their own while members stream at once, each turn opens
//! under the member's name, approvals wait their turn and say whose they
//! are, and the status line shows every member's state.

use std::time::Instant;

use cohost_core::{Event, EventBody};

use crate::app::{App, ApprovalCard};
use crate::member_state::{APPROVAL, CRASHED, IDLE, INTERRUPTING};

/// A room's tool ids are the member's own, which two members may share
/// (two mocks): the screen keys them by member too.
pub(crate) fn member_tool_id(agent: &str, tool_id: &str) -> String {
    format!("{agent}\u{1f}{tool_id}")
}

fn key_tool_ids(agent: &str, body: &mut EventBody) {
    match body {
        EventBody::ToolCall { tool_id, .. }
        | EventBody::ToolApprovalRequested { tool_id, .. }
        | EventBody::ToolApprovalDecided { tool_id, .. }
        | EventBody::ToolExecuted { tool_id, .. } => *tool_id = member_tool_id(agent, tool_id),
        _ => {}
    }
}

impl App {
    /// The chat's agents (from the shell, at the start and after `/add`
    /// or `/drop`).
    pub(crate) fn set_members(&mut self, names: Vec<String>) {
        let m = &mut self.members;
        m.blocks.retain(|n, _| names.contains(n));
        m.states.retain(|n, _| names.contains(n));
        m.waiting
            .retain(|c| c.agent.as_ref().is_some_and(|a| names.contains(a)));
        if m.current.as_ref().is_some_and(|c| !names.contains(c)) {
            m.current = None;
            self.answer = None;
            self.reasoning = None;
        }
        m.names = names;
        // A tab or an address of a member who left goes back to "all" and
        // the first member (as the shell's own focus does).
        if m.view.as_ref().is_some_and(|v| !m.names.contains(v)) {
            m.view = None;
        }
        if m.target.as_ref().is_some_and(|t| !m.names.contains(t)) {
            m.target = None;
        }
        if !m.is_room() {
            m.view = None;
        }
        self.transcript.set_view(m.view.clone());
        self.busy = m.busy();
    }

    /// A member's event: its own blocks, its own state and approvals.
    pub(crate) fn on_member_event(&mut self, agent: String, mut e: Event, now: Instant) {
        if !self.members.names.contains(&agent) {
            // One agent (the chat before `/add`): an ordinary event.
            return self.on_own_event(e, now);
        }
        self.enter(&agent);
        key_tool_ids(&agent, &mut e.body);
        let shown = self.approval.take();
        let (starts, ends) = (
            matches!(e.body, EventBody::StreamStart { .. }),
            matches!(e.body, EventBody::StreamEnd { .. }),
        );
        let decided = match &e.body {
            EventBody::ToolApprovalDecided { tool_id, .. } => Some(tool_id.clone()),
            _ => None,
        };
        let asks = matches!(e.body, EventBody::ToolApprovalRequested { .. });
        // Its process died: the tab says so until a turn starts it again.
        if matches!(&e.body, EventBody::Error(err) if err.code == cohost_core::ErrorCode::ProcessCrashed)
        {
            self.members.crashed.insert(agent.clone());
        }
        if starts {
            self.members.crashed.remove(&agent);
        }
        let writes = matches!(
            e.body,
            EventBody::StreamChunk { .. }
                | EventBody::ReasoningChunk { .. }
                | EventBody::ToolCall { .. }
                | EventBody::Error(_)
                | EventBody::FileChanges(_)
        );
        if starts && self.members.is_room() {
            self.members.unheaded.insert(agent.clone());
        }
        if writes && self.members.unheaded.remove(&agent) {
            self.end_stream_blocks();
            let name = cohost_core::sanitize::inert_line(&agent);
            self.transcript
                .push_heading(format!("── {name} ──"), &agent);
        }
        let from = self.transcript.blocks().len();
        let provider_shown = self.session.agent.clone();
        self.on_own_event(e, now);
        // What this event added is the member's: its tab shows it.
        self.transcript.tag(from, &agent);
        if self.members.is_room() {
            // The status line names the members, not the last to start.
            self.session.agent = provider_shown;
        }
        let mine = |c: &ApprovalCard| c.agent.as_deref() == Some(agent.as_str());
        // The approval on screen, and those waiting.
        if asks {
            if let Some(mut card) = self.approval.take() {
                card.agent = Some(agent.clone());
                match shown {
                    Some(other) => {
                        self.approval = Some(other);
                        self.members.waiting.push_back(card);
                    }
                    None => self.approval = Some(card),
                }
            }
        } else {
            self.approval = shown;
        }
        if let Some(id) = decided {
            self.members.waiting.retain(|c| c.tool_id != id);
            if self.approval.as_ref().is_some_and(|c| c.tool_id == id) {
                self.approval = None;
            }
        }
        if ends {
            self.members.unheaded.remove(&agent);
            self.members.waiting.retain(|c| !mine(c));
            if self.approval.as_ref().is_some_and(mine) {
                self.approval = None;
            }
        }
        if self.approval.is_none() {
            self.approval = self.members.waiting.pop_front();
        }
        let state = if ends && self.members.crashed.remove(&agent) {
            CRASHED
        } else if ends {
            IDLE
        } else if self.approval.as_ref().is_some_and(mine) || self.members.waiting.iter().any(mine)
        {
            APPROVAL
        } else if self.members.state(&agent) == INTERRUPTING {
            // Asked to stop: it says so until its turn ends.
            INTERRUPTING
        } else {
            "streaming"
        };
        self.members.states.insert(agent.clone(), state);
        self.busy = self.members.busy();
        self.state = if self.busy { "streaming" } else { "ready" };
        self.leave(&agent);
    }

    /// Make `agent`'s open blocks the app's.
    fn enter(&mut self, agent: &str) {
        if self.members.current.as_deref() == Some(agent) {
            return;
        }
        if let Some(prev) = self.members.current.take() {
            self.members
                .blocks
                .insert(prev, (self.answer, self.reasoning));
        }
        let (a, r) = self.members.blocks.get(agent).copied().unwrap_or_default();
        self.answer = a;
        self.reasoning = r;
        self.members.current = Some(agent.to_owned());
    }

    fn leave(&mut self, agent: &str) {
        self.members
            .blocks
            .insert(agent.to_owned(), (self.answer, self.reasoning));
    }
}

#[cfg(test)]
#[path = "members_tests.rs"]
mod tests;
