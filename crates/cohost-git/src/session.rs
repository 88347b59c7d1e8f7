//! One session's checkpoints: the tree before and after each turn, as
//! `refs/cohost/sessions/<session>/<turn>/{before,after}`, and what each
//! turn changed.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use cohost_core::{Checkpoints, CohostError, TurnChanges, TurnMark};
use tokio::sync::Mutex;

use crate::diff::{self, DiffBounds};
use crate::error::GitError;
use crate::snapshot::{self, ref_safe};
use crate::store::Store;

/// One recorded turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedTurn {
    /// The session's turn number.
    pub turn: u64,
    /// The commit holding the tree before it.
    pub before: String,
    /// The commit holding the tree after it (none while it runs, or when
    /// the turn's end was not recorded).
    pub after: Option<String>,
}

/// A session's recorded turns, oldest first.
pub async fn recorded_turns(store: &Store, session: &str) -> Result<Vec<RecordedTurn>, GitError> {
    let prefix = format!("{}/", ref_safe(session));
    let mut turns: Vec<RecordedTurn> = Vec::new();
    for (name, id) in snapshot::refs_under(store, &prefix).await? {
        // `<session>/<turn>/<side>`: undone turns and saved trees live
        // deeper and are not turns.
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let Some((n, side)) = rest.split_once('/') else {
            continue;
        };
        let Ok(turn) = n.parse::<u64>() else { continue };
        let at = match turns.iter().position(|t| t.turn == turn) {
            Some(i) => i,
            None => {
                turns.push(RecordedTurn {
                    turn,
                    before: String::new(),
                    after: None,
                });
                turns.len() - 1
            }
        };
        match side {
            "before" => turns[at].before = id,
            "after" => turns[at].after = Some(id),
            _ => {}
        }
    }
    turns.retain(|t| !t.before.is_empty());
    turns.sort_by_key(|t| t.turn);
    Ok(turns)
}

/// What turn `turn` of `session` changed, diffs within `bounds`.
pub async fn turn_changes(
    store: &Store,
    session: &str,
    turn: u64,
    bounds: DiffBounds,
) -> Result<TurnChanges, GitError> {
    let t = find_turn(store, session, turn).await?;
    let after = t.after.as_deref().unwrap_or(t.before.as_str());
    let files = diff::changes(&store.git, &t.before, after, bounds).await?;
    Ok(TurnChanges { turn, files })
}

/// The whole unified diff of turn `turn` of `session`.
pub async fn turn_patch(store: &Store, session: &str, turn: u64) -> Result<String, GitError> {
    let t = find_turn(store, session, turn).await?;
    let after = t.after.as_deref().unwrap_or(t.before.as_str());
    diff::patch(&store.git, &t.before, after).await
}

pub(crate) async fn find_turn(
    store: &Store,
    session: &str,
    turn: u64,
) -> Result<RecordedTurn, GitError> {
    let turns = recorded_turns(store, session).await?;
    if turns.is_empty() {
        return Err(GitError::NoTurns(session.to_owned()));
    }
    turns
        .into_iter()
        .find(|t| t.turn == turn)
        .ok_or_else(|| GitError::NoSuchTurn {
            session: session.to_owned(),
            turn,
        })
}

/// The recorder of one running session (the [`Checkpoints`] port).
#[derive(Debug)]
pub struct SessionCheckpoints {
    store: Store,
    session: String,
    index: PathBuf,
    bounds: DiffBounds,
    /// The next turn's number, and the last snapshot's tree and commit;
    /// held across a snapshot so two never interleave on the private index.
    next: Mutex<Next>,
}

#[derive(Debug)]
struct Next {
    turn: u64,
    /// The last snapshot: a tree unchanged since (the usual start of a
    /// turn, right after the end of the one before) reuses its commit.
    last: Option<(String, String)>,
}

impl SessionCheckpoints {
    /// Record the tree now; reuses the last commit when the tree is the
    /// same.
    async fn record(&self, next: &mut Next, what: &str) -> Result<String, GitError> {
        let tree = snapshot::tree_now(&self.store, &self.index).await?;
        if let Some((t, c)) = &next.last {
            if *t == tree {
                return Ok(c.clone());
            }
        }
        let commit = snapshot::commit(&self.store, &tree, what).await?;
        next.last = Some((tree, commit.clone()));
        Ok(commit)
    }
}

impl SessionCheckpoints {
    /// The recorder for session `session` running in `cwd`; `state_dir`
    /// is cohost's. Refuses a directory outside git too large to record.
    /// Numbering goes on from the session's last recorded turn (resume).
    pub async fn open(
        cwd: &Path,
        state_dir: &Path,
        session: &str,
    ) -> Result<SessionCheckpoints, GitError> {
        let store = Store::locate(cwd, state_dir).await?;
        let index = snapshot::private_index(&store, &ref_safe(session))?;
        store.check_size(&index).await?;
        let last = recorded_turns(&store, session)
            .await?
            .last()
            .map_or(0, |t| t.turn);
        Ok(SessionCheckpoints {
            store,
            session: session.to_owned(),
            index,
            bounds: DiffBounds::default(),
            next: Mutex::new(Next {
                turn: last + 1,
                last: None,
            }),
        })
    }

    /// Diffs in `file_changes` events within `bounds` instead of the
    /// default.
    pub fn with_bounds(mut self, bounds: DiffBounds) -> SessionCheckpoints {
        self.bounds = bounds;
        self
    }

    /// Where the checkpoints go.
    pub fn store(&self) -> &Store {
        &self.store
    }

    fn ref_name(&self, turn: u64, side: &str) -> String {
        format!("{}/{turn}/{side}", ref_safe(&self.session))
    }

    async fn before(&self) -> Result<TurnMark, GitError> {
        let mut next = self.next.lock().await;
        let turn = next.turn;
        let what = format!("session {} turn {turn} before", self.session);
        let commit = self.record(&mut next, &what).await?;
        snapshot::set_ref(&self.store, &self.ref_name(turn, "before"), &commit).await?;
        next.turn = turn + 1;
        Ok(TurnMark {
            turn,
            before: commit,
        })
    }

    async fn after(&self, mark: TurnMark) -> Result<TurnChanges, GitError> {
        let mut next = self.next.lock().await;
        let what = format!("session {} turn {} after", self.session, mark.turn);
        let commit = self.record(&mut next, &what).await?;
        snapshot::set_ref(&self.store, &self.ref_name(mark.turn, "after"), &commit).await?;
        let files = diff::changes(&self.store.git, &mark.before, &commit, self.bounds).await?;
        Ok(TurnChanges {
            turn: mark.turn,
            files,
        })
    }
}

#[async_trait]
impl Checkpoints for SessionCheckpoints {
    async fn before_turn(&self) -> Result<Option<TurnMark>, CohostError> {
        Ok(Some(self.before().await?))
    }

    async fn after_turn(&self, mark: TurnMark) -> Result<TurnChanges, CohostError> {
        Ok(self.after(mark).await?)
    }
}
