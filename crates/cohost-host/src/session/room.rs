//! Setting up a room of several agents: one session per member through
//! [`prepare`], each in a git worktree of its own when the directory is a
//! repository with a commit (two agents never write the same files), all
//! recorded as members of one room, started together.

use cohost_core::room::{member_names, DEFAULT_MAX_MEMBERS};
use cohost_core::CohostError;
use cohost_discovery::{Host, HostConfig};
use cohost_session::{Member, Room};

use super::{prepare, working_dir, OpenSession, SessionRequest, SetupError};
use crate::changes::{self, WorktreeOp};
use crate::store::RoomRecord;

/// A room's members, set up but not started.
pub struct PreparedRoom {
    /// The room's id (`r-...`), in each member's record.
    pub id: String,
    /// Each member's name and session, in the order the agents were named.
    pub members: Vec<(String, OpenSession)>,
    /// What the user should know about where the members run (side by
    /// side in one directory, outside git).
    pub note: Option<String>,
}

/// Prepare a room of `agents` (provider ids; the same id twice is two
/// members, `claude` and `claude#2`). `request` builds each member's
/// session request from its member name and provider id; the room sets
/// its worktree and
/// room record. When one member cannot be set up, the worktrees made for
/// the others are removed and that member's error returned, naming it.
pub async fn prepare_room(
    host: &Host,
    cfg: &HostConfig,
    agents: &[String],
    request: impl Fn(&str, &str) -> SessionRequest,
) -> Result<PreparedRoom, SetupError> {
    let names = member_names(agents, DEFAULT_MAX_MEMBERS)?;
    let id = format!("r-{}", cohost_core::ids::random_tag());
    let mut members: Vec<(String, OpenSession)> = Vec::with_capacity(names.len());
    let mut note = None;
    for (name, agent) in names.into_iter().zip(agents) {
        let req = request(&name, agent);
        if members.is_empty() {
            let cwd = working_dir(req.cwd.clone())?;
            note = placement_note(&cwd, req.worktree).await;
        }
        match prepare_member(host, cfg, &id, &name, note.is_none(), req).await {
            Ok(open) => members.push((name, open)),
            Err(e) => {
                let prepared = PreparedRoom { id, members, note };
                prepared.discard(host).await;
                return Err(e.of_member(&name));
            }
        }
    }
    Ok(PreparedRoom { id, members, note })
}

/// Prepare one member `name` of room `room_id` (a member added later
/// too): in a worktree of its own when `worktree`, recorded as the room's.
pub async fn prepare_member(
    host: &Host,
    cfg: &HostConfig,
    room_id: &str,
    name: &str,
    worktree: bool,
    mut req: SessionRequest,
) -> Result<OpenSession, SetupError> {
    if worktree {
        req.worktree = Some(true);
    }
    req.room = Some(RoomRecord {
        id: room_id.to_owned(),
        member: name.to_owned(),
    });
    prepare(host, cfg, req).await
}

/// Whether sessions in `cwd` can have worktrees of their own (a git
/// repository with a commit).
pub async fn worktrees_possible(cwd: &std::path::Path) -> bool {
    cohost_git::worktree::possible(cwd).await.is_ok()
}

/// `None` when every member gets a worktree; else why they share `cwd`.
/// A worktree the user asked for and cannot have is `prepare`'s error.
async fn placement_note(cwd: &std::path::Path, asked: Option<bool>) -> Option<String> {
    if asked == Some(false) {
        return Some(format!(
            "the agents share {} (no worktrees asked for): their edits land in the same files",
            cwd.display()
        ));
    }
    match cohost_git::worktree::possible(cwd).await {
        Ok(()) => None,
        Err(e) if asked == Some(true) => {
            // Left for `prepare`, which refuses with the typed error.
            tracing::debug!(error = %e, "worktrees asked for but not possible");
            None
        }
        Err(e) => Some(format!(
            "the agents share {} ({}): their edits land in the same files",
            cwd.display(),
            CohostError::from(e).message
        )),
    }
}

impl PreparedRoom {
    /// Start every member at once. When one cannot start, the others are
    /// stopped, the room's fresh worktrees removed, and its error returned.
    pub async fn launch(self, host: &Host) -> Result<Room, CohostError> {
        let records: Vec<_> = self
            .members
            .iter()
            .filter_map(|(_, o)| o.record().cloned())
            .collect();
        let (names, opens): (Vec<String>, Vec<OpenSession>) = self.members.into_iter().unzip();
        let started = futures::future::join_all(opens.into_iter().map(OpenSession::launch)).await;
        let mut members = Vec::with_capacity(started.len());
        let mut failed = None;
        for (name, result) in names.into_iter().zip(started) {
            match result {
                Ok(session) => members.push(Member { name, session }),
                Err(mut e) if failed.is_none() => {
                    e.message = format!("{name}: {}", e.message);
                    failed = Some(e);
                }
                Err(_) => {}
            }
        }
        let room = Room::new(members)?;
        match failed {
            None => Ok(room),
            Some(e) => {
                let _ = room.terminate().await;
                for rec in &records {
                    remove_unchanged_worktree(host, rec).await;
                }
                Err(e)
            }
        }
    }

    /// Give up on the room before starting it: remove the worktrees made
    /// for its members (they are fresh, so nothing is lost).
    pub async fn discard(self, host: &Host) {
        // The records alone cross the awaits: a session being set up is
        // not `Sync`, and this future must be `Send` (a server's handler).
        let records: Vec<_> = self
            .members
            .iter()
            .filter_map(|(_, o)| o.record().cloned())
            .collect();
        drop(self);
        for rec in &records {
            remove_unchanged_worktree(host, rec).await;
        }
    }
}

/// Remove `rec`'s worktree when it holds no change (a worktree with
/// changes is never removed here).
pub async fn remove_unchanged_worktree(host: &Host, rec: &crate::SessionRecord) {
    if rec.worktree.is_none() {
        return;
    }
    if let Err(e) = changes::worktree(host, rec, WorktreeOp::Discard { force: false }).await {
        tracing::warn!(session = %rec.id, error = %e, "a room's worktree was left in place");
    }
}

/// At a room's end: remove the worktrees of the sessions `records` names
/// that hold no change; the records of those that do (their worktrees stay
/// until kept or discarded). Sessions without a worktree are skipped.
pub async fn tidy_worktrees(host: &Host, records: &[String]) -> Vec<crate::SessionRecord> {
    let store = crate::store::SessionStore::of(host);
    let mut kept = Vec::new();
    for id in records {
        let Ok(Some(rec)) = store.get(id.as_str()) else {
            continue;
        };
        if rec.worktree.is_none() {
            continue;
        }
        match changes::worktree(host, &rec, WorktreeOp::Status).await {
            Ok(st) if st.files.is_empty() => {
                if let Err(e) =
                    changes::worktree(host, &rec, WorktreeOp::Discard { force: false }).await
                {
                    tracing::warn!(error = %e, "removing an unchanged worktree failed");
                }
            }
            Ok(_) => kept.push(rec),
            Err(e) => tracing::warn!(error = %e, "reading a worktree failed"),
        }
    }
    kept
}
