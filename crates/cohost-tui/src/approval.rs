//! A tool approval as the screen shows it.

use std::time::Instant;

use cohost_core::ToolKind;

/// A tool approval on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalCard {
    /// The call.
    pub tool_id: String,
    /// Tool name.
    pub name: String,
    /// Kind.
    pub kind: ToolKind,
    /// One line about the input.
    pub summary: String,
    /// When an unanswered request is denied.
    pub deadline: Instant,
    /// The room member asking (`None` outside a room).
    pub agent: Option<String>,
    /// A participant's vote on it, once sent (allow or deny): the card
    /// stays until the host says the call is decided (a quorum may need
    /// more people), but takes no second answer.
    pub voted: Option<bool>,
}

impl ApprovalCard {
    /// The id to answer with: the agent's own tool id.
    pub fn call_id(&self) -> String {
        match &self.agent {
            Some(a) => self
                .tool_id
                .strip_prefix(&format!("{a}\u{1f}"))
                .unwrap_or(&self.tool_id)
                .to_owned(),
            None => self.tool_id.clone(),
        }
    }
}

/// What the host lets a participant decide (`/grant NAME approve
/// [KINDS]` in `cohost share`), and how many approvals each kind needs:
/// the participant's screen shows allow and deny keys on the calls it
/// covers. A convenience, not the check: the host counts a vote only
/// from someone it granted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// The kinds of call this participant may decide; empty: every kind.
    pub kinds: Vec<ToolKind>,
    /// Distinct approvals a kind of call needs, where more than one.
    pub quorum: Vec<(ToolKind, u32)>,
}

impl Grant {
    /// Whether the grant covers a call of `kind`.
    pub fn covers(&self, kind: ToolKind) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&kind)
    }

    /// How many distinct people must allow a call of `kind` (1 without a
    /// quorum for it).
    pub fn needs(&self, kind: ToolKind) -> u32 {
        self.quorum
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(1, |(_, n)| (*n).max(1))
    }
}
