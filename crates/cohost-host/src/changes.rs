//! What a recorded session's turns changed, and undoing them: the one
//! service behind `cohost diff`/`cohost undo`, chat's `/diff` and `/undo`,
//! the local API and the MCP server's `session_changes`/`undo_turn`.

use std::path::{Path, PathBuf};

use cohost_core::TurnChanges;
use cohost_discovery::host::Host;
use cohost_git::{DiffBounds, Store};
use serde::Serialize;

use crate::store::{SessionRecord, SessionStore};

mod error;
pub use error::ChangesError;

/// A session's recorded changes.
#[derive(Debug, Clone, Serialize)]
pub struct SessionChanges {
    /// The cohost session id.
    pub session: String,
    /// Where it runs.
    pub cwd: PathBuf,
    /// The turns asked for, oldest first (only those that changed files,
    /// when all were asked for).
    pub turns: Vec<TurnChanges>,
}

/// What an undo did, for people and programs.
#[derive(Debug, Clone, Serialize)]
pub struct Undone {
    /// The cohost session id.
    pub session: String,
    /// The turns undone, oldest first.
    pub turns: Vec<u64>,
    /// Files written back as they were.
    pub restored: Vec<String>,
    /// Files removed (the turns had made them).
    pub removed: Vec<String>,
    /// Entries left as they were, and why.
    pub skipped: Vec<String>,
    /// The ref holding the tree as it was just before the undo.
    pub saved_as: String,
}

impl Undone {
    /// One line for people: which turns, and how many files came back
    /// (or that the turns had changed none, so nothing moved).
    pub fn headline(&self) -> String {
        let turns: Vec<String> = self.turns.iter().map(u64::to_string).collect();
        let which = match turns.as_slice() {
            [one] => format!("turn {one}"),
            _ => format!("turns {}", turns.join(", ")),
        };
        if self.restored.is_empty() && self.removed.is_empty() && self.skipped.is_empty() {
            return format!(
                "{which} of session {} changed no file: nothing to put back",
                self.session
            );
        }
        format!(
            "undid {which} of session {}: {} file(s) put back, {} removed",
            self.session,
            self.restored.len(),
            self.removed.len()
        )
    }
}

/// The record of `session`, or else of the most recent session whose
/// working directory is `cwd`.
pub fn find_session(
    host: &Host,
    session: Option<&str>,
    cwd: &Path,
) -> Result<SessionRecord, ChangesError> {
    let store = SessionStore::of(host);
    match session {
        Some(id) => store
            .get(id)?
            .ok_or_else(|| ChangesError::NoSession { id: id.to_owned() }),
        None => {
            let here = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
            store
                .list()?
                .into_iter()
                .find(|r| {
                    r.ran_in(&here)
                        || r.ran_in(cwd)
                        || std::fs::canonicalize(&r.cwd).is_ok_and(|c| c == here)
                })
                .ok_or(ChangesError::NoSessionHere { dir: here })
        }
    }
}

async fn store_of(host: &Host, rec: &SessionRecord) -> Result<Store, ChangesError> {
    Ok(Store::locate(&rec.cwd, &host.paths.state_dir).await?)
}

/// The changes of `rec`'s turn `turn`, or of every turn that changed
/// something; diffs whole when `whole`, else bounded as in events.
pub async fn session_changes(
    host: &Host,
    rec: &SessionRecord,
    turn: Option<u64>,
    whole: bool,
) -> Result<SessionChanges, ChangesError> {
    let store = store_of(host, rec).await?;
    let bounds = if whole {
        DiffBounds::unbounded()
    } else {
        DiffBounds::default()
    };
    let numbers: Vec<u64> = match turn {
        Some(n) => vec![n],
        None => cohost_git::recorded_turns(&store, &rec.id)
            .await?
            .iter()
            .map(|t| t.turn)
            .collect(),
    };
    let mut turns = Vec::new();
    for n in numbers {
        let changes = cohost_git::turn_changes(&store, &rec.id, n, bounds).await?;
        if turn.is_some() || !changes.is_empty() {
            turns.push(changes);
        }
    }
    Ok(SessionChanges {
        session: rec.id.clone(),
        cwd: store.top().to_path_buf(),
        turns,
    })
}

/// The whole unified diff of `rec`'s turn `turn`.
pub async fn turn_patch(
    host: &Host,
    rec: &SessionRecord,
    turn: u64,
) -> Result<String, ChangesError> {
    let store = store_of(host, rec).await?;
    Ok(cohost_git::turn_patch(&store, &rec.id, turn).await?)
}

/// Undo `rec`'s turn `from` and every later one (the last turn when none).
pub async fn undo(
    host: &Host,
    rec: &SessionRecord,
    from: Option<u64>,
    force: bool,
) -> Result<Undone, ChangesError> {
    let store = store_of(host, rec).await?;
    let r = cohost_git::undo(&store, &rec.id, from, force).await?;
    Ok(Undone {
        session: rec.id.clone(),
        turns: r.turns,
        restored: r.restored,
        removed: r.removed,
        skipped: r.skipped,
        saved_as: r.saved_as,
    })
}

/// The record of `session`, or else of the most recent session with a
/// worktree made from the checkout holding `cwd` (or running in it).
pub fn find_worktree_session(
    host: &Host,
    session: Option<&str>,
    cwd: &Path,
) -> Result<SessionRecord, ChangesError> {
    let rec = match session {
        Some(_) => find_session(host, session, cwd)?,
        None => {
            let here = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
            SessionStore::of(host)
                .list()?
                .into_iter()
                .find(|r| {
                    r.worktree
                        .as_ref()
                        .is_some_and(|w| here.starts_with(&w.origin) || here.starts_with(&w.path))
                })
                .ok_or(ChangesError::NoWorktreeSessionHere { dir: here })?
        }
    };
    if rec.worktree.is_none() {
        return Err(ChangesError::NotInWorktree { id: rec.id });
    }
    Ok(rec)
}

/// What a worktree did, for people and programs.
#[derive(Debug, Clone, Serialize)]
pub struct WorktreeOutcome {
    /// The cohost session id.
    pub session: String,
    /// The worktree.
    pub path: PathBuf,
    /// Its branch.
    pub branch: String,
    /// The files concerned: changed there, brought in, or dropped.
    pub files: Vec<String>,
}

/// What worktree operation to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorktreeOp {
    /// The files changed there, not touching anything.
    Status,
    /// Bring the changes in as uncommitted changes.
    Apply,
    /// Commit them on the branch and merge it.
    Merge,
    /// Remove it (refused with changes not brought in unless forced).
    Discard {
        /// Drop changes not brought in (kept under refs/cohost/).
        force: bool,
    },
}

/// Run `op` on `rec`'s worktree.
pub async fn worktree(
    host: &Host,
    rec: &SessionRecord,
    op: WorktreeOp,
) -> Result<WorktreeOutcome, ChangesError> {
    let Some(w) = &rec.worktree else {
        return Err(ChangesError::NoWorktree { id: rec.id.clone() });
    };
    let wt = cohost_git::Worktree::from(w);
    let state = &host.paths.state_dir;
    let files = match op {
        WorktreeOp::Status => {
            cohost_git::worktree::status(&wt, state, &rec.id)
                .await?
                .files
        }
        WorktreeOp::Apply => cohost_git::worktree::apply(&wt, state, &rec.id).await?,
        WorktreeOp::Merge => cohost_git::worktree::merge(&wt, state, &rec.id).await?,
        WorktreeOp::Discard { force } => {
            cohost_git::worktree::discard(&wt, state, &rec.id, force).await?
        }
    };
    Ok(WorktreeOutcome {
        session: rec.id.clone(),
        path: w.path.clone(),
        branch: w.branch.clone(),
        files,
    })
}

/// What keeping one room member's changes did.
#[derive(Debug, Clone, Serialize)]
pub struct Kept {
    /// The member's changes, brought into the checkout.
    pub kept: WorktreeOutcome,
    /// The other members' worktrees, removed (their changes stay under
    /// `refs/cohost/sessions/<session>/discarded`).
    pub dropped: Vec<WorktreeOutcome>,
}

/// Keep `rec`'s changes (apply, or with `merge` merge its branch) and drop
/// the worktrees of the other members of its room. Nothing is dropped when
/// bringing the changes in fails (a conflict leaves every worktree).
/// The error is the wire error: the room's `/keep` (`room_members.rs`)
/// refuses with one (its `Refused::Error` holds a `CohostError`).
pub async fn keep(host: &Host, rec: &SessionRecord, merge: bool) -> Result<Kept, ChangesError> {
    let op = if merge {
        WorktreeOp::Merge
    } else {
        WorktreeOp::Apply
    };
    let kept = worktree(host, rec, op).await?;
    let mut dropped = Vec::new();
    if let Some(room) = &rec.room {
        let others: Vec<SessionRecord> = SessionStore::of(host)
            .list()?
            .into_iter()
            .filter(|r| r.id != rec.id && r.worktree.is_some())
            .filter(|r| r.room.as_ref().is_some_and(|o| o.id == room.id))
            .collect();
        for other in &others {
            match worktree(host, other, WorktreeOp::Discard { force: true }).await {
                Ok(out) => dropped.push(out),
                Err(e) => {
                    tracing::warn!(session = %other.id, error = %e, "a room member's worktree was left");
                }
            }
        }
    }
    Ok(Kept { kept, dropped })
}
