//! The session binding store (seed 003): cohost session id → provider,
//! native session id, cwd, model and watermark, so `cohost run --resume ID`
//! reattaches to the agent's own conversation.
//!
//! One JSON file in the state dir. Writers take an exclusive `flock` on a
//! sibling lock file for the whole read-modify-write, then replace the file
//! atomically (temp + fsync + rename), so concurrent cohost processes never
//! lose each other's records and readers never see a torn file.
//!
//! The store is the user's alone: the state dir is made owner-only (0700),
//! the store and its lock file owner-only (0600), and cohost's own metadata
//! in a record (model, provider) passes the host's sanitizer (a value:
//! [`SessionStore::of`]). What the agent needs to resume (its native id,
//! the cwd) is kept as is.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use cohost_core::sanitize::Sanitizer;
use cohost_discovery::fsutil::{atomic_write, FileLock};
use cohost_discovery::Host;

mod error;
pub use error::StoreError;

/// One cohost session's binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// cohost's session id.
    pub id: String,
    /// Provider id.
    pub provider: String,
    /// The agent's own session/thread id, once known.
    #[serde(default)]
    pub native_session_id: Option<String>,
    /// Working directory.
    pub cwd: PathBuf,
    /// Model, when chosen.
    #[serde(default)]
    pub model: Option<String>,
    /// How many turns the agent has already seen, so a resumed session
    /// sends only what came after.
    #[serde(default)]
    pub watermark: u64,
    /// Creation time (ms since the epoch).
    #[serde(default)]
    pub created_at_ms: u64,
    /// Last update (ms since the epoch).
    #[serde(default)]
    pub updated_at_ms: u64,
    /// The git worktree the session runs in (`--worktree`), when it has one:
    /// `cwd` is inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeRecord>,
    /// The room the session was a member of, when it ran beside other
    /// agents (`cohost run --agent A --agent B`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<RoomRecord>,
}

/// A session's place in a room of several agents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomRecord {
    /// The room's id (`r-...`), shared by its members' records.
    pub id: String,
    /// The member's name in it (`claude`, `claude#2`).
    pub member: String,
}

/// A session's own git worktree, as `--worktree` made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRecord {
    /// Where it is (in cohost's state directory).
    pub path: PathBuf,
    /// Its branch, `cohost/<session>`.
    pub branch: String,
    /// The top of the user's checkout it came from.
    pub origin: PathBuf,
    /// The commit of what it started from (HEAD plus the user's
    /// uncommitted changes then).
    pub base: String,
}

impl From<cohost_git::Worktree> for WorktreeRecord {
    fn from(w: cohost_git::Worktree) -> Self {
        WorktreeRecord {
            path: w.path,
            branch: w.branch,
            origin: w.origin,
            base: w.base,
        }
    }
}

impl From<&WorktreeRecord> for cohost_git::Worktree {
    fn from(w: &WorktreeRecord) -> Self {
        cohost_git::Worktree {
            path: w.path.clone(),
            branch: w.branch.clone(),
            origin: w.origin.clone(),
            base: w.base.clone(),
        }
    }
}

impl SessionRecord {
    /// A new record (timestamps are set by [`SessionStore::upsert`]).
    pub fn new(
        id: impl Into<String>,
        provider: impl Into<String>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        SessionRecord {
            id: id.into(),
            provider: provider.into(),
            native_session_id: None,
            cwd: cwd.into(),
            model: None,
            watermark: 0,
            created_at_ms: 0,
            updated_at_ms: 0,
            worktree: None,
            room: None,
        }
    }

    /// Whether the session ran in `dir`: its cwd, or the checkout its
    /// worktree came from.
    pub fn ran_in(&self, dir: &Path) -> bool {
        self.cwd == dir || self.worktree.as_ref().is_some_and(|w| w.origin == dir)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct FileFormat {
    version: u32,
    sessions: BTreeMap<String, SessionRecord>,
}

/// How many sessions the store keeps by default: the most recently used
/// ones. Every run reads and rewrites the whole file (twice, with fsync), so
/// an unbounded store made each start slower for a long-time user (65 KB
/// after ~270 runs); a session older than the last thousand is seldom
/// resumed, and the agent's own history of it stays where the agent keeps it.
pub const DEFAULT_KEEP: usize = 1000;

/// The store. Cheap to clone: paths and the sanitizer's handle.
#[derive(Debug, Clone)]
pub struct SessionStore {
    file: PathBuf,
    lock: PathBuf,
    keep: usize,
    sanitizer: Arc<Sanitizer>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Makes `path` owner-only with `mode`, creating it (a directory, or an
/// empty file created with that mode) when missing.
fn private(path: &Path, mode: u32, dir: bool) -> Result<(), StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    if dir {
        std::fs::create_dir_all(path).map_err(|e| StoreError::io("create directory", path, e))?;
    } else if !path.exists() {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(path)
        {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(StoreError::io("create", path, e)),
        }
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| StoreError::io("restrict the permissions of", path, e))
}

impl SessionStore {
    /// The host's store: in its state dir, its metadata passing the host's
    /// sanitizer.
    pub fn of(host: &Host) -> SessionStore {
        SessionStore::at(&host.paths.state_dir, host.sanitizer.clone())
    }

    /// The store in `state_dir` (`sessions.json`), cohost's metadata in
    /// each record passing `sanitizer` before it is written.
    pub fn at(state_dir: &Path, sanitizer: Arc<Sanitizer>) -> SessionStore {
        SessionStore {
            file: state_dir.join("sessions.json"),
            lock: state_dir.join("sessions.lock"),
            keep: DEFAULT_KEEP,
            sanitizer,
        }
    }

    /// The same store keeping at most `keep` sessions (at least one): each
    /// write drops the least recently updated beyond that.
    pub fn keeping(mut self, keep: usize) -> SessionStore {
        self.keep = keep.max(1);
        self
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.file
    }

    fn read(&self) -> Result<FileFormat, StoreError> {
        let text = match std::fs::read_to_string(&self.file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileFormat::default()),
            Err(e) => return Err(StoreError::io("read", &self.file, e)),
        };
        // Created empty (owner-only) just before its first write.
        if text.trim().is_empty() {
            return Ok(FileFormat::default());
        }
        // A corrupt store is reported and left alone: overwriting it would
        // silently drop every binding.
        serde_json::from_str(&text).map_err(|source| StoreError::Corrupt {
            path: self.file.clone(),
            source,
        })
    }

    /// All records, most recently updated first.
    pub fn list(&self) -> Result<Vec<SessionRecord>, StoreError> {
        let mut v: Vec<SessionRecord> = self.read()?.sessions.into_values().collect();
        v.sort_by(|a, b| {
            b.updated_at_ms
                .cmp(&a.updated_at_ms)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(v)
    }

    /// One record.
    pub fn get(&self, id: &str) -> Result<Option<SessionRecord>, StoreError> {
        Ok(self.read()?.sessions.remove(id))
    }

    /// The record whose agent-native id is `native`, when one is.
    pub fn find_native(&self, native: &str) -> Result<Option<SessionRecord>, StoreError> {
        Ok(self
            .list()?
            .into_iter()
            .find(|r| r.native_session_id.as_deref() == Some(native)))
    }

    /// Insert or replace a record, keeping the original creation time;
    /// returns the stored record.
    pub fn upsert(&self, mut record: SessionRecord) -> Result<SessionRecord, StoreError> {
        self.modify(|all| {
            let now = now_ms();
            record.created_at_ms = all.get(&record.id).map_or(now, |old| old.created_at_ms);
            record.updated_at_ms = now;
            all.insert(record.id.clone(), record.clone());
            record
        })
    }

    /// Change a record in place (e.g. set the native id, bump the watermark).
    pub fn update(
        &self,
        id: &str,
        change: impl FnOnce(&mut SessionRecord),
    ) -> Result<Option<SessionRecord>, StoreError> {
        self.modify(|all| {
            let rec = all.get_mut(id)?;
            change(rec);
            rec.updated_at_ms = now_ms();
            Some(rec.clone())
        })
    }

    /// Remove a record; whether it existed.
    pub fn remove(&self, id: &str) -> Result<bool, StoreError> {
        self.modify(|all| all.remove(id).is_some())
    }

    fn modify<T>(
        &self,
        f: impl FnOnce(&mut BTreeMap<String, SessionRecord>) -> T,
    ) -> Result<T, StoreError> {
        if let Some(dir) = self.file.parent() {
            private(dir, 0o700, true)?;
        }
        let _lock = FileLock::acquire(&self.lock)?;
        private(&self.lock, 0o600, false)?;
        // The new content inherits this mode (atomic_write keeps it).
        private(&self.file, 0o600, false)?;
        let mut data = self.read()?;
        let out = f(&mut data.sessions);
        forget_oldest(&mut data.sessions, self.keep);
        for rec in data.sessions.values_mut() {
            if let Some(model) = &rec.model {
                rec.model = Some(self.sanitizer.sanitize(model).into_owned());
            }
            rec.provider = self.sanitizer.sanitize(&rec.provider).into_owned();
        }
        data.version = 1;
        let text = serde_json::to_string_pretty(&data).map_err(StoreError::Encode)?;
        atomic_write(&self.file, text.as_bytes())?;
        Ok(out)
    }
}

/// Drops the least recently updated records beyond `keep` (ties: the
/// greater id goes first, the order `list` shows them in).
fn forget_oldest(all: &mut BTreeMap<String, SessionRecord>, keep: usize) {
    if all.len() <= keep {
        return;
    }
    let mut by_age: Vec<(u64, String)> = all
        .values()
        .map(|r| (r.updated_at_ms, r.id.clone()))
        .collect();
    by_age.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, id) in by_age.drain(keep..) {
        all.remove(&id);
    }
}
