//! What the screen keeps for each member of a room (see `members`), and
//! which member the screen shows and addresses (see `tabs`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

use crate::approval::ApprovalCard;

/// A member's lifecycle word when it is doing nothing.
pub(crate) const IDLE: &str = "ready";
/// A member whose turn was asked to stop and has not ended yet.
pub(crate) const INTERRUPTING: &str = "interrupting";
/// A member whose tool call waits for an answer.
pub(crate) const APPROVAL: &str = "waiting for approval";
/// A member whose agent process died during its last turn: idle, and
/// started again (the session's respawn) by its next prompt.
pub(crate) const CRASHED: &str = "crashed";

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
    /// The member tab on screen (`None`: the "all" tab, every member's
    /// blocks interleaved under their headings).
    pub(crate) view: Option<String>,
    /// The member plain text goes to and Esc interrupts: the tab on
    /// screen, or in the "all" tab the member last addressed (the shell
    /// keeps the same rule, so both agree without asking each other).
    pub(crate) target: Option<String>,
    /// When Ctrl+C last interrupted one member: a second press soon after
    /// interrupts them all.
    pub(crate) interrupt_armed: Option<Instant>,
    /// `/split`: the members side by side instead of one tab at a time.
    pub(crate) split: bool,
    /// Members whose agent crashed in the running turn (said when it ends).
    pub(crate) crashed: BTreeSet<String>,
}

impl Members {
    /// Whether this chat is a room of several agents.
    pub(crate) fn is_room(&self) -> bool {
        self.names.len() > 1
    }

    /// What `name` is doing (`ready` when nothing is known).
    pub(crate) fn state(&self, name: &str) -> &'static str {
        self.states.get(name).copied().unwrap_or(IDLE)
    }

    /// `claude streaming · codex ready` for the status line.
    pub(crate) fn status(&self) -> String {
        self.names
            .iter()
            .map(|n| format!("{n} {}", self.state(n)))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    pub(crate) fn busy(&self) -> bool {
        self.states.values().any(|s| *s != IDLE && *s != CRASHED)
    }

    /// Whether `name` has no turn running.
    pub(crate) fn idle(&self, name: &str) -> bool {
        matches!(self.state(name), IDLE | CRASHED)
    }

    /// The member plain text goes to: the one chosen, else the first.
    pub(crate) fn target(&self) -> Option<&str> {
        self.target
            .as_deref()
            .filter(|t| self.names.iter().any(|n| n == t))
            .or(self.names.first().map(String::as_str))
    }
}
