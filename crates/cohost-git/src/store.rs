//! Where a working tree's checkpoints live: in its own repository's object
//! store under `refs/cohost/`, or, outside git, in a store of cohost's own
//! (a bare git directory in cohost's state directory, one per directory).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::GitError;
use crate::git::{first_line, Git};

/// Outside a repository, a directory with more files than this is not
/// recorded (a home directory, a dataset): no `.gitignore` keeps it small.
pub const MAX_UNTRACKED_FILES: u64 = 20_000;
/// ... nor one with more bytes than this.
pub const MAX_UNTRACKED_BYTES: u64 = 1 << 30;

/// Which kind of store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// The user's repository (objects and `refs/cohost/` only).
    Repository,
    /// cohost's own store, for a directory outside git.
    Standalone,
}

/// A working tree and the object store its checkpoints go to.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) git: Git,
    kind: StoreKind,
    /// Where cohost keeps private indexes for this tree.
    pub(crate) index_dir: PathBuf,
    /// cohost's state directory, relative to the top, when it lies inside
    /// the tree (outside git, a session run in the home directory): never
    /// recorded, or the store would record itself.
    excluded: Option<String>,
}

impl Store {
    /// The store for the tree containing `cwd`; `state_dir` is cohost's
    /// (private indexes, and the standalone stores).
    pub async fn locate(cwd: &Path, state_dir: &Path) -> Result<Store, GitError> {
        if !cwd.is_dir() {
            return Err(GitError::CwdGone(cwd.to_path_buf()));
        }
        let probe = Git {
            git_dir: PathBuf::new(),
            work_tree: cwd.to_path_buf(),
        };
        let root = checkpoints_dir(state_dir);
        match repository_of(&probe).await? {
            Some((git_dir, top)) => {
                let key = key_of(&top);
                Ok(Store {
                    excluded: inside(state_dir, &top),
                    git: Git {
                        git_dir,
                        work_tree: top,
                    },
                    kind: StoreKind::Repository,
                    index_dir: root.join("index").join(key),
                })
            }
            None => {
                let cwd =
                    std::fs::canonicalize(cwd).map_err(|e| GitError::io("resolving", cwd, e))?;
                let key = key_of(&cwd);
                let git_dir = root.join("dirs").join(format!("{key}.git"));
                let store = Store {
                    excluded: inside(state_dir, &cwd),
                    git: Git {
                        git_dir: git_dir.clone(),
                        work_tree: cwd.clone(),
                    },
                    kind: StoreKind::Standalone,
                    index_dir: root.join("index").join(&key),
                };
                if !git_dir.join("HEAD").is_file() {
                    store.init_standalone(&cwd).await?;
                }
                Ok(store)
            }
        }
    }

    /// The pathspec of what is recorded: the whole tree but cohost's own
    /// state.
    pub(crate) fn pathspec(&self) -> Vec<String> {
        let mut spec = vec![".".to_owned()];
        if let Some(rel) = &self.excluded {
            spec.push(format!(":(exclude,literal){rel}"));
        }
        spec
    }

    /// Which kind of store this is.
    pub fn kind(&self) -> StoreKind {
        self.kind
    }

    /// The top of the recorded tree (paths in changes are relative to it).
    pub fn top(&self) -> &Path {
        &self.git.work_tree
    }

    async fn init_standalone(&self, cwd: &Path) -> Result<(), GitError> {
        let dir = &self.git.git_dir;
        let parent = dir.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent).map_err(|e| GitError::io("creating", parent, e))?;
        // Made under a name of its own, then renamed into place: two
        // sessions starting in one directory at once (a room's members)
        // never see each other's half-made store, and the loser of the
        // race takes the winner's.
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut tmp = dir.as_os_str().to_owned();
        tmp.push(format!(".{}-{n}.tmp", std::process::id()));
        let tmp = PathBuf::from(tmp);
        // Run with no git directory named: `init` makes the one given.
        let init = Git {
            git_dir: PathBuf::new(),
            work_tree: cwd.to_path_buf(),
        };
        init.run(
            None,
            &[
                OsStr::new("init"),
                OsStr::new("--quiet"),
                OsStr::new("--bare"),
                tmp.as_os_str(),
            ],
        )
        .await?;
        // Which directory this store records, for whoever lists the
        // stores (the key is a hash).
        let note = tmp.join("cohost-worktree");
        std::fs::write(&note, cwd.as_os_str().as_encoded_bytes())
            .map_err(|e| GitError::io("writing", &note, e))?;
        match std::fs::rename(&tmp, dir) {
            Ok(()) => Ok(()),
            Err(_) if dir.join("HEAD").is_file() => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                Err(GitError::io("renaming", &tmp, e))
            }
        }
    }

    /// Outside git, refuse a tree too large to record each turn: untracked
    /// files counted up to the limits (ignored files do not count).
    pub(crate) async fn check_size(&self, index: &Path) -> Result<(), GitError> {
        if self.kind == StoreKind::Repository {
            return Ok(());
        }
        let mut args: Vec<String> = [
            "ls-files",
            "-z",
            "--others",
            "--cached",
            "--exclude-standard",
            "--",
        ]
        .map(String::from)
        .to_vec();
        args.extend(self.pathspec());
        let limit = usize::try_from(MAX_UNTRACKED_FILES * 256).unwrap_or(usize::MAX);
        let (out, _) = self.git.run_bounded(Some(index), &args, limit).await?;
        let mut files = 0u64;
        let mut bytes = 0u64;
        for path in out.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            files += 1;
            if files > MAX_UNTRACKED_FILES {
                return Err(self.too_large("files", MAX_UNTRACKED_FILES));
            }
            let full = self.top().join(crate::paths::from_bytes(path));
            bytes += std::fs::symlink_metadata(&full).map_or(0, |m| m.len());
            if bytes > MAX_UNTRACKED_BYTES {
                return Err(self.too_large("bytes", MAX_UNTRACKED_BYTES));
            }
        }
        Ok(())
    }

    fn too_large(&self, what: &'static str, limit: u64) -> GitError {
        GitError::TooLarge {
            dir: self.top().to_path_buf(),
            what,
            limit,
        }
    }
}

/// The git directory and top of the work tree holding `probe`'s
/// directory, or none outside git (a bare repository's directory counts as
/// outside: it has no work tree to record).
pub(crate) async fn repository_of(probe: &Git) -> Result<Option<(PathBuf, PathBuf)>, GitError> {
    let args = [
        "rev-parse",
        "--is-inside-work-tree",
        "--absolute-git-dir",
        "--show-toplevel",
    ];
    let out = match probe.run(None, &args).await {
        Ok(out) => out,
        Err(GitError::Failed { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    if lines.next() != Some("true") {
        return Ok(None);
    }
    match (lines.next(), lines.next()) {
        (Some(dir), Some(top)) if !top.is_empty() => {
            Ok(Some((PathBuf::from(dir), PathBuf::from(top))))
        }
        _ => Err(GitError::BadOutput(first_line(&out)?)),
    }
}

/// `state_dir` relative to `top`, when it lies inside it (both resolved).
fn inside(state_dir: &Path, top: &Path) -> Option<String> {
    let top = std::fs::canonicalize(top).unwrap_or_else(|_| top.to_path_buf());
    // The state dir may not exist yet: resolve its nearest existing parent.
    let mut probe = state_dir.to_path_buf();
    let mut rest = Vec::new();
    let resolved = loop {
        if let Ok(p) = std::fs::canonicalize(&probe) {
            break rest.iter().rev().fold(p, |acc: PathBuf, c| acc.join(c));
        }
        match (probe.file_name().map(ToOwned::to_owned), probe.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                probe = parent.to_path_buf();
            }
            _ => break state_dir.to_path_buf(),
        }
    };
    let rel = resolved.strip_prefix(&top).ok()?;
    let rel = rel.to_string_lossy().replace('\\', "/");
    (!rel.is_empty()).then_some(rel)
}

/// `<state>/checkpoints`.
pub(crate) fn checkpoints_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("checkpoints")
}

/// A short name for a directory, stable across cohost versions (the store
/// is found again by it): its last component and an FNV-1a hash of it all.
fn key_of(path: &Path) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.as_os_str().as_encoded_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let safe: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(24)
        .collect();
    format!("{safe}-{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::inside;

    #[test]
    fn a_state_dir_inside_the_tree_is_named_relative_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("work");
        std::fs::create_dir_all(&top).unwrap();
        let state = top.join(".local/state/cohost");
        assert_eq!(inside(&state, &top).as_deref(), Some(".local/state/cohost"));
        assert_eq!(inside(dir.path(), &top), None);
        std::fs::create_dir_all(&state).unwrap();
        assert_eq!(inside(&state, &top).as_deref(), Some(".local/state/cohost"));
    }
}
