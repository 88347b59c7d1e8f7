//! What can go wrong recording, diffing or restoring a working tree, and
//! how each maps to cohost's wire error (with the fix a user needs).

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};

/// A checkpoint operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// No `git` program could be started.
    #[error("git is not installed (no `git` on PATH)")]
    NotInstalled,
    /// The directory the session runs in is gone.
    #[error("the working directory {0} is gone")]
    CwdGone(PathBuf),
    /// A git command failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments, for the message.
        args: String,
        /// Its standard error (the last lines).
        stderr: String,
    },
    /// Outside a git repository, a directory too large to record.
    #[error("{dir} holds more than {limit} {what} outside a git repository")]
    TooLarge {
        /// The directory.
        dir: PathBuf,
        /// What was counted: "files" or "bytes".
        what: &'static str,
        /// The limit passed.
        limit: u64,
    },
    /// Undo would overwrite files changed since the agent's turn.
    #[error("these files changed since the agent's turn: {}", .files.join(", "))]
    ChangedSince {
        /// The files, relative to the recorded tree's top.
        files: Vec<String>,
    },
    /// A worktree was asked for outside a git repository.
    #[error("{0} is not in a git repository, so it has no worktree to give a session")]
    NotARepository(PathBuf),
    /// A worktree was asked for in a repository with no commit.
    #[error("the repository at {0} has no commit yet, so there is nothing to branch from")]
    NoCommit(PathBuf),
    /// A worktree's changes do not apply to (or merge into) the checkout.
    #[error("the worktree's changes do not go in cleanly ({}): {why}", .files.join(", "))]
    WontApply {
        /// The files in the way.
        files: Vec<String>,
        /// What git said.
        why: String,
    },
    /// A worktree holds changes not brought into the checkout.
    #[error("the worktree holds changes not brought into your checkout: {}", .files.join(", "))]
    NotBroughtIn {
        /// The files changed there.
        files: Vec<String>,
    },
    /// No such recorded turn.
    #[error("session {session} has no recorded turn {turn}")]
    NoSuchTurn {
        /// The session.
        session: String,
        /// The turn asked for.
        turn: u64,
    },
    /// The session recorded no turn at all.
    #[error("session {0} has no recorded turns")]
    NoTurns(String),
    /// Git printed something this code cannot read.
    #[error("unexpected output from git: {0}")]
    BadOutput(String),
    /// Reading or writing a file failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// To which file.
        path: PathBuf,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
}

impl GitError {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        GitError::Io {
            what,
            path: path.into(),
            source,
        }
    }
}

impl From<GitError> for CohostError {
    fn from(e: GitError) -> CohostError {
        let message = e.to_string();
        let (code, fix) = match &e {
            GitError::NotInstalled => (
                ErrorCode::ProviderNotFound,
                "install git (e.g. `apt install git`) to record what agents change".to_owned(),
            ),
            GitError::CwdGone(_) => (
                ErrorCode::ConfigInvalid,
                "start the session again from a directory that exists".to_owned(),
            ),
            GitError::TooLarge { .. } => (
                ErrorCode::ConfigInvalid,
                "run the session in a git repository (its .gitignore keeps build output out), \
                 in a smaller directory, or turn checkpoints off (`checkpoints = false` in \
                 config.toml, or --no-checkpoints)"
                    .to_owned(),
            ),
            GitError::ChangedSince { .. } => (
                ErrorCode::ConfigInvalid,
                "keep your changes and undo by hand, or pass --force to put the files back \
                 anyway (your versions are kept under refs/cohost/, `cohost undo --help` says \
                 how to get them)"
                    .to_owned(),
            ),
            GitError::NotARepository(_) => (
                ErrorCode::ConfigInvalid,
                "run it from inside a git repository, or without --worktree".to_owned(),
            ),
            GitError::NoCommit(_) => (
                ErrorCode::ConfigInvalid,
                "make a first commit, or run without --worktree".to_owned(),
            ),
            GitError::WontApply { .. } => (
                ErrorCode::ConfigInvalid,
                "nothing was lost: commit or stash your own changes to those files, then try \
                 again; or `cohost worktree merge` to resolve them as a merge (a conflicted \
                 merge is undone with `git merge --abort`)"
                    .to_owned(),
            ),
            GitError::NotBroughtIn { .. } => (
                ErrorCode::ConfigInvalid,
                "`cohost worktree apply` or `cohost worktree merge` brings them in; \
                 `cohost worktree discard --force` drops them (kept under refs/cohost/)"
                    .to_owned(),
            ),
            GitError::NoSuchTurn { .. } | GitError::NoTurns(_) => (
                ErrorCode::ConfigInvalid,
                "`cohost diff SESSION` lists the session's recorded turns".to_owned(),
            ),
            GitError::Failed { .. } | GitError::BadOutput(_) => (
                ErrorCode::Unknown,
                "run the git command by hand in the same directory to see why".to_owned(),
            ),
            GitError::Io { .. } => (
                ErrorCode::Unknown,
                "check the file's permissions and the disk".to_owned(),
            ),
        };
        CohostError::new(code, message)
            .with_fix(fix)
            .retryable(false)
    }
}
