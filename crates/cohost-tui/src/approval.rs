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
