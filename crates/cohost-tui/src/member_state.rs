//! What the screen keeps for each member of a room (see `members`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::approval::ApprovalCard;

/// The members and what the screen keeps for each.
#[derive(Debug, Default)]
pub(crate) struct Members {
    /// Names in order (empty: not a room).
    pub(crate) names: Vec<String>,
    /// Each member's open answer and reasoning blocks.
    pub(crate) blocks: BTreeMap<String, (Option<usize>, Option<usize>)>,
    /// Whose blocks `App::answer`/`reasoning` hold now.
    pub(crate) current: Option<String>,
    /// What each member is doing.
    pub(crate) states: BTreeMap<String, &'static str>,
    /// Approvals waiting behind the one on screen.
    pub(crate) waiting: VecDeque<ApprovalCard>,
    /// Members whose turn started and wrote nothing yet: their heading
    /// goes right above their first block, so each answer sits under its
    /// name however the members' starts interleave.
    pub(crate) unheaded: BTreeSet<String>,
}

impl Members {
    /// Whether this chat is a room of several agents.
    pub(crate) fn is_room(&self) -> bool {
        self.names.len() > 1
    }

    /// `claude streaming · codex ready` for the status line.
    pub(crate) fn status(&self) -> String {
        self.names
            .iter()
            .map(|n| format!("{n} {}", self.states.get(n).copied().unwrap_or("ready")))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    pub(crate) fn busy(&self) -> bool {
        self.states.values().any(|s| *s != "ready")
    }
}
