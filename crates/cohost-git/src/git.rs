//! Running `git` on a recorded tree with an environment of our own: the
//! object store and work tree named explicitly, a private index when one
//! is given, no hooks, no pager, no prompts, and none of the caller's
//! `GIT_*` variables redirecting any of it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::error::GitError;

/// Variables that would point git at another repository, index or object
/// store than the one named here.
const REDIRECTS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_QUARANTINE_PATH",
];

/// Files larger than this are stored whole and diffed as binary (recorded
/// by hash and size): a 200 MB log must not become a 200 MB diff.
pub(crate) const BIG_FILE: &str = "16m";

/// One git object store and work tree.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    /// The git directory (`.git`, or the store's own outside git).
    pub(crate) git_dir: PathBuf,
    /// The top of the work tree.
    pub(crate) work_tree: PathBuf,
}

/// A command's output.
pub(crate) struct Output {
    pub(crate) stdout: Vec<u8>,
}

impl Git {
    fn command(&self, index: Option<&Path>, args: &[&OsStr]) -> Command {
        let mut cmd = Command::new("git");
        for var in REDIRECTS {
            cmd.env_remove(var);
        }
        // An empty git directory: a probe, git finds the repository itself.
        if !self.git_dir.as_os_str().is_empty() {
            cmd.env("GIT_DIR", &self.git_dir)
                .env("GIT_WORK_TREE", &self.work_tree);
        }
        cmd.env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_AUTHOR_NAME", "cohost")
            .env("GIT_AUTHOR_EMAIL", "cohost@localhost")
            .env("GIT_COMMITTER_NAME", "cohost")
            .env("GIT_COMMITTER_EMAIL", "cohost@localhost")
            .env("LC_ALL", "C");
        if let Some(index) = index {
            cmd.env("GIT_INDEX_FILE", index);
        }
        // Hooks (a reference-transaction hook runs on update-ref) are the
        // user's, for the user's refs; none runs on cohost's.
        cmd.args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.quotePath=false",
            "-c",
            "core.safecrlf=false",
            "-c",
            "advice.addEmbeddedRepo=false",
            "-c",
            "diff.external=",
            // Loose objects at the fastest level: a snapshot's cost is
            // mostly writing the changed files' objects, and `git gc`
            // packs them at its own level later.
            "-c",
            "core.looseCompression=1",
            "-c",
        ])
        .arg(format!("core.bigFileThreshold={BIG_FILE}"))
        .args(args)
        .current_dir(&self.work_tree)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
        cmd
    }

    /// Run git with `args`; its output, or why it failed.
    pub(crate) async fn run<S: AsRef<OsStr>>(
        &self,
        index: Option<&Path>,
        args: &[S],
    ) -> Result<Output, GitError> {
        self.run_with_input(index, args, None).await
    }

    /// Run git with `args`, `input` on its standard input.
    pub(crate) async fn run_with_input<S: AsRef<OsStr>>(
        &self,
        index: Option<&Path>,
        args: &[S],
        input: Option<Vec<u8>>,
    ) -> Result<Output, GitError> {
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        let mut cmd = self.command(index, &args);
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn().map_err(|e| self.spawn_error(e))?;
        // Written from a task of its own: git may fill its stdout pipe
        // before it has read all of its input.
        let writer = match (input, child.stdin.take()) {
            (Some(bytes), Some(mut stdin)) => Some(tokio::spawn(async move {
                let _ = stdin.write_all(&bytes).await;
            })),
            _ => None,
        };
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        let (Some(mut out), Some(mut err)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(GitError::BadOutput("git's pipes were not opened".into()));
        };
        let (read_out, read_err) =
            tokio::join!(out.read_to_end(&mut stdout), err.read_to_end(&mut stderr));
        read_out.map_err(|e| GitError::io("reading git's output", &self.work_tree, e))?;
        read_err.map_err(|e| GitError::io("reading git's errors", &self.work_tree, e))?;
        let status = child
            .wait()
            .await
            .map_err(|e| GitError::io("waiting for git", &self.work_tree, e))?;
        if let Some(w) = writer {
            let _ = w.await;
        }
        if !status.success() {
            return Err(GitError::Failed {
                args: describe(&args),
                stderr: tail(&stderr),
            });
        }
        Ok(Output { stdout })
    }

    /// Run git, reading at most `limit` bytes of its output: the rest is
    /// dropped and git stopped. The output, and whether it was cut.
    pub(crate) async fn run_bounded<S: AsRef<OsStr>>(
        &self,
        index: Option<&Path>,
        args: &[S],
        limit: usize,
    ) -> Result<(Vec<u8>, bool), GitError> {
        let args: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
        let mut child = self
            .command(index, &args)
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| self.spawn_error(e))?;
        let Some(out) = child.stdout.take() else {
            return Err(GitError::BadOutput("git's output was not opened".into()));
        };
        let mut buf = Vec::new();
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        out.take(cap)
            .read_to_end(&mut buf)
            .await
            .map_err(|e| GitError::io("reading git's output", &self.work_tree, e))?;
        let cut = buf.len() > limit;
        if cut {
            buf.truncate(limit);
            let _ = child.start_kill();
        }
        let status = child
            .wait()
            .await
            .map_err(|e| GitError::io("waiting for git", &self.work_tree, e))?;
        if !cut && !status.success() {
            return Err(GitError::Failed {
                args: describe(&args),
                stderr: String::from("(see above)"),
            });
        }
        Ok((buf, cut))
    }

    fn spawn_error(&self, e: std::io::Error) -> GitError {
        if e.kind() == std::io::ErrorKind::NotFound {
            if self.work_tree.is_dir() {
                GitError::NotInstalled
            } else {
                GitError::CwdGone(self.work_tree.clone())
            }
        } else {
            GitError::io("starting git in", &self.work_tree, e)
        }
    }
}

/// The first line of git's output, trimmed (an object id, a path).
pub(crate) fn first_line(out: &Output) -> Result<String, GitError> {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next().unwrap_or_default().trim();
    if line.is_empty() {
        return Err(GitError::BadOutput("git printed nothing".into()));
    }
    Ok(line.to_owned())
}

fn describe(args: &[&OsStr]) -> String {
    args.iter()
        .take(4)
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last few lines of git's errors, enough to say why.
fn tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(4);
    let joined = lines[start..].join(" / ");
    if joined.is_empty() {
        "no reason given".into()
    } else {
        joined
    }
}
