//! What a turn changed in the working tree: the payload of the
//! `file_changes` event, and the port that records the tree around turns.
//!
//! The domain only names the shapes; recording the tree (git objects, a
//! snapshot store) is an adapter's job.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::CohostError;
use crate::sanitize::inert_line;

/// How a file changed between two recorded trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    /// The file is new.
    Added,
    /// Its content changed (its mode may have too).
    Modified,
    /// It is gone.
    Deleted,
    /// It moved (`old_path` says from where); its content may have changed.
    Renamed,
    /// Only its mode changed (executable bit, or file <-> symlink).
    ModeChanged,
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Path relative to the session's working directory, `/`-separated.
    pub path: String,
    /// For a rename, where it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// What happened to it.
    pub status: ChangeStatus,
    /// Its mode before, as git writes it (`100644`, `100755`, `120000`);
    /// absent for an added file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_mode: Option<String>,
    /// Its mode after; absent for a deleted file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_mode: Option<String>,
    /// Lines added (0 for a binary file).
    pub added: u64,
    /// Lines removed (0 for a binary file).
    pub removed: u64,
    /// Whether the content is binary (or too large to diff): recorded by
    /// hash and size only.
    #[serde(default)]
    pub binary: bool,
    /// Size in bytes after the change (before, for a deleted file).
    #[serde(default)]
    pub size: u64,
    /// Content hash after the change (before, for a deleted file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// The unified diff (sanitized), when it fits the event's bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The diff was left out for size: `cohost diff` shows it whole.
    #[serde(default)]
    pub diff_truncated: bool,
}

impl FileChange {
    /// One line for people: `M src/lib.rs (+3 -1)`, `R old -> new (...)`,
    /// `A logo.png (binary, 2048 bytes)`; paths made inert for a terminal.
    pub fn summary(&self) -> String {
        let path = inert_line(&self.path);
        let (mark, path) = match (self.status, &self.old_path) {
            (ChangeStatus::Added, _) => ("A", path),
            (ChangeStatus::Deleted, _) => ("D", path),
            (ChangeStatus::Renamed, Some(old)) => ("R", format!("{} -> {path}", inert_line(old))),
            (ChangeStatus::ModeChanged, _) => ("T", path),
            _ => ("M", path),
        };
        let counts = if self.binary {
            format!("binary, {} bytes", self.size)
        } else {
            format!("+{} -{}", self.added, self.removed)
        };
        let mode = match (self.status, &self.old_mode, &self.new_mode) {
            (ChangeStatus::ModeChanged, Some(a), Some(b)) => format!(", mode {a} -> {b}"),
            _ => String::new(),
        };
        format!("{mark} {path} ({counts}{mode})")
    }
}

/// Everything one turn changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnChanges {
    /// The session's turn number (1 for its first recorded turn).
    pub turn: u64,
    /// The changed files, in path order.
    pub files: Vec<FileChange>,
}

impl TurnChanges {
    /// Whether the turn changed nothing.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The headline for people: `turn 2: 3 files changed, +10 -2`.
    pub fn headline(&self) -> String {
        let (added, removed) = self.totals();
        let n = self.files.len();
        let files = if n == 1 { "file" } else { "files" };
        format!(
            "turn {}: {n} {files} changed, +{added} -{removed}",
            self.turn
        )
    }

    /// Lines added and removed over every file.
    pub fn totals(&self) -> (u64, u64) {
        self.files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed))
    }
}

/// A turn whose start the recorder has seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnMark {
    /// The session's turn number.
    pub turn: u64,
    /// The recorder's id for the tree before the turn.
    pub before: String,
}

/// Records the working tree around every turn (the port; git checkpoints
/// are the adapter). Errors are for the session to report, never to end
/// it: a turn runs whether or not its tree could be recorded.
#[async_trait]
pub trait Checkpoints: Send + Sync + 'static {
    /// Record the tree before the next turn; `None` when this recorder does
    /// not record (it said why once already).
    async fn before_turn(&self) -> Result<Option<TurnMark>, CohostError>;

    /// Record the tree after the turn `mark` began, and say what changed
    /// (diffs bounded for an event).
    async fn after_turn(&self, mark: TurnMark) -> Result<TurnChanges, CohostError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(status: ChangeStatus) -> FileChange {
        FileChange {
            path: "src/a\x1b[2J.rs".into(),
            old_path: Some("old.rs".into()),
            status,
            old_mode: Some("100644".into()),
            new_mode: Some("100755".into()),
            added: 3,
            removed: 1,
            binary: false,
            size: 10,
            hash: None,
            diff: None,
            diff_truncated: false,
        }
    }

    #[test]
    fn summary_lines_name_status_counts_and_are_inert() {
        assert_eq!(
            change(ChangeStatus::Modified).summary(),
            "M src/a.rs (+3 -1)"
        );
        assert_eq!(
            change(ChangeStatus::Renamed).summary(),
            "R old.rs -> src/a.rs (+3 -1)"
        );
        assert_eq!(
            change(ChangeStatus::ModeChanged).summary(),
            "T src/a.rs (+3 -1, mode 100644 -> 100755)"
        );
        let mut bin = change(ChangeStatus::Added);
        bin.binary = true;
        assert_eq!(bin.summary(), "A src/a.rs (binary, 10 bytes)");
    }
}
