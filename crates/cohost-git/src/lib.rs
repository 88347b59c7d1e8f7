//! cohost's working-tree adapter: checkpoints of the tree around every
//! turn, what each turn changed, and undo.
//!
//! In a git repository the checkpoints are commits in the repository's own
//! object store under `refs/cohost/sessions/<session>/<turn>/{before,after}`,
//! made through a private index: the user's branch, index, stash and
//! config are never written. Outside git they go to a bare store of
//! cohost's own in its state directory, with limits on what it records.
//! Everything runs the `git` program (see the README's "Checkpoints" for
//! why that and not a library).

#![forbid(unsafe_code)]

mod diff;
mod error;
mod git;
mod paths;
mod restore;
mod session;
mod snapshot;
mod store;
pub mod worktree;

pub use diff::DiffBounds;
pub use error::GitError;
pub use restore::{undo, UndoReport};
pub use session::{recorded_turns, turn_changes, turn_patch, RecordedTurn, SessionCheckpoints};
pub use snapshot::REF_ROOT;
pub use store::{Store, StoreKind, MAX_UNTRACKED_BYTES, MAX_UNTRACKED_FILES};
pub use worktree::{
    apply, create, discard, merge, status, worktrees_dir, Worktree, WorktreeStatus,
};
