//! A session in a git worktree of its own: made from the user's HEAD plus
//! their uncommitted changes, on a branch `cohost/<session>`, in cohost's
//! state directory (so it never shows in the user's `git status`). Its
//! changes come into the user's checkout only when asked: applied as
//! uncommitted changes, or merged as a branch; it is never deleted while it
//! holds changes that were not brought in, unless forced (and then they
//! are kept under `refs/cohost/`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::GitError;
use crate::git::{first_line, Git};
use crate::snapshot::{self, ref_safe};
use crate::store::{Store, StoreKind};

/// A session's worktree, as its record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// Where it is.
    pub path: PathBuf,
    /// Its branch (`cohost/<session>`).
    pub branch: String,
    /// The top of the user's checkout it came from.
    pub origin: PathBuf,
    /// The commit holding what it started from (HEAD plus the user's
    /// uncommitted changes): what "its changes" are measured against.
    pub base: String,
}

/// What a worktree holds that its checkout does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeStatus {
    /// The commit holding the worktree as it is now.
    pub now: String,
    /// Files changed since it was made.
    pub files: Vec<String>,
}

/// Whether [`create`] can make a worktree for `cwd`: it is inside a git
/// repository with a commit. The error says why not (no repository, no
/// commit yet, no `git`); nothing is written either way.
pub async fn possible(cwd: &Path) -> Result<(), GitError> {
    if !cwd.is_dir() {
        return Err(GitError::CwdGone(cwd.to_path_buf()));
    }
    let probe = Git {
        git_dir: PathBuf::new(),
        work_tree: cwd.to_path_buf(),
    };
    let Some((git_dir, top)) = crate::store::repository_of(&probe).await? else {
        return Err(GitError::NotARepository(cwd.to_path_buf()));
    };
    let repo = Git {
        git_dir,
        work_tree: top.clone(),
    };
    match repo
        .run(None, &["rev-parse", "--verify", "-q", "HEAD^{commit}"])
        .await
    {
        Ok(_) => Ok(()),
        Err(GitError::Failed { .. }) => Err(GitError::NoCommit(top)),
        Err(e) => Err(e),
    }
}

/// Make the worktree of `session` for the repository holding `cwd`.
/// `state_dir` is cohost's. Refuses outside a repository and in one with
/// no commit yet.
pub async fn create(cwd: &Path, state_dir: &Path, session: &str) -> Result<Worktree, GitError> {
    let store = Store::locate(cwd, state_dir).await?;
    if store.kind() != StoreKind::Repository {
        return Err(GitError::NotARepository(cwd.to_path_buf()));
    }
    let origin = store.top().to_path_buf();
    let head = match store
        .git
        .run(None, &["rev-parse", "--verify", "-q", "HEAD^{commit}"])
        .await
    {
        Ok(out) => first_line(&out)?,
        Err(GitError::Failed { .. }) => return Err(GitError::NoCommit(origin)),
        Err(e) => return Err(e),
    };
    // What the user has now, uncommitted changes and untracked files
    // included, through a private index (theirs is not written).
    let key = format!("{}.worktree", ref_safe(session));
    let base =
        snapshot::snapshot_aside(&store, &key, &format!("session {session} worktree base")).await?;
    snapshot::set_ref(&store, &format!("{}/base", ref_safe(session)), &base).await?;

    let path = worktrees_dir(state_dir)
        .join(store_key(&origin))
        .join(ref_safe(session));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| GitError::io("creating", parent, e))?;
    }
    let branch = format!("cohost/{}", ref_safe(session));
    store
        .git
        .run(
            None,
            &[
                OsStr::new("worktree"),
                OsStr::new("add"),
                OsStr::new("--quiet"),
                OsStr::new("-b"),
                OsStr::new(&branch),
                path.as_os_str(),
                OsStr::new(&head),
            ],
        )
        .await?;
    // The worktree's files become the base, its index stays at HEAD: the
    // user's uncommitted changes are uncommitted there too.
    let inside = Git {
        git_dir: PathBuf::new(),
        work_tree: path.clone(),
    };
    inside
        .run(
            None,
            &["read-tree", "-u", "-m", head.as_str(), base.as_str()],
        )
        .await?;
    inside.run(None, &["reset", "--quiet"]).await?;
    Ok(Worktree {
        path,
        branch,
        origin,
        base,
    })
}

/// `<state>/worktrees`.
pub fn worktrees_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("worktrees")
}

fn store_key(top: &Path) -> String {
    let name = top
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in top.as_os_str().as_encoded_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{}-{h:016x}", ref_safe(&name))
}

/// What the worktree holds now, against its base.
pub async fn status(
    wt: &Worktree,
    state_dir: &Path,
    session: &str,
) -> Result<WorktreeStatus, GitError> {
    if !wt.path.is_dir() {
        return Err(GitError::CwdGone(wt.path.clone()));
    }
    let store = Store::locate(&wt.path, state_dir).await?;
    let key = format!("{}.status", ref_safe(session));
    let now =
        snapshot::snapshot_aside(&store, &key, &format!("session {session} worktree now")).await?;
    let out = store
        .git
        .run(
            None,
            &[
                "diff-tree",
                "-r",
                "--no-renames",
                "--name-only",
                "-z",
                wt.base.as_str(),
                now.as_str(),
            ],
        )
        .await?;
    let files = out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(crate::paths::display)
        .collect();
    Ok(WorktreeStatus { now, files })
}

/// Bring the worktree's changes into the user's checkout as uncommitted
/// changes (their index untouched). Refuses, naming the files, when a
/// change does not apply cleanly: nothing is written then.
pub async fn apply(
    wt: &Worktree,
    state_dir: &Path,
    session: &str,
) -> Result<Vec<String>, GitError> {
    let st = status(wt, state_dir, session).await?;
    if st.files.is_empty() {
        return Ok(Vec::new());
    }
    let origin = Store::locate(&wt.origin, state_dir).await?;
    let patch = origin
        .git
        .run(
            None,
            &[
                "diff",
                "--binary",
                "--full-index",
                "--no-color",
                "--no-ext-diff",
                wt.base.as_str(),
                st.now.as_str(),
            ],
        )
        .await?
        .stdout;
    let check = origin
        .git
        .run_with_input(
            None,
            &["apply", "--check", "--whitespace=nowarn", "-"],
            Some(patch.clone()),
        )
        .await;
    if let Err(GitError::Failed { stderr, .. }) = check {
        return Err(GitError::WontApply {
            files: conflicting_files(&stderr, &st.files),
            why: stderr,
        });
    }
    check?;
    origin
        .git
        .run_with_input(None, &["apply", "--whitespace=nowarn", "-"], Some(patch))
        .await?;
    snapshot::set_ref(
        &origin,
        &format!("{}/brought-in", ref_safe(session)),
        &st.now,
    )
    .await?;
    Ok(st.files)
}

/// Commit the worktree's changes on its branch and merge the branch into
/// the user's current branch (which the user asked to change). A conflict
/// is reported with the files, and left for the user to resolve or abort
/// (`git merge --abort`), as any merge.
pub async fn merge(
    wt: &Worktree,
    state_dir: &Path,
    session: &str,
) -> Result<Vec<String>, GitError> {
    let st = status(wt, state_dir, session).await?;
    if st.files.is_empty() {
        return Ok(Vec::new());
    }
    let inside = Git {
        git_dir: PathBuf::new(),
        work_tree: wt.path.clone(),
    };
    inside.run(None, &["add", "--all"]).await?;
    let message = format!("cohost session {session}: the agent's changes");
    inside
        .run(
            None,
            &["commit", "--quiet", "--no-verify", "-m", message.as_str()],
        )
        .await?;
    let origin = Store::locate(&wt.origin, state_dir).await?;
    let merged = origin
        .git
        .run(
            None,
            &[
                "merge",
                "--no-ff",
                "--no-edit",
                "--quiet",
                wt.branch.as_str(),
            ],
        )
        .await;
    match merged {
        Ok(_) => {
            snapshot::set_ref(
                &origin,
                &format!("{}/brought-in", ref_safe(session)),
                &st.now,
            )
            .await?;
            Ok(st.files)
        }
        Err(GitError::Failed { stderr, .. }) => Err(GitError::WontApply {
            files: conflicting_files(&stderr, &st.files),
            why: stderr,
        }),
        Err(e) => Err(e),
    }
}

/// Remove the worktree and its branch. Refuses while it holds changes not
/// brought in, unless `force` (then they are kept under
/// `refs/cohost/sessions/<session>/discarded`).
pub async fn discard(
    wt: &Worktree,
    state_dir: &Path,
    session: &str,
    force: bool,
) -> Result<Vec<String>, GitError> {
    let origin = Store::locate(&wt.origin, state_dir).await?;
    let mut unsaved = Vec::new();
    if wt.path.is_dir() {
        let st = status(wt, state_dir, session).await?;
        // Compared by tree: two snapshots of the same files made in
        // different seconds are different commits.
        let brought =
            match snapshot::refs_under(&origin, &format!("{}/brought-in", ref_safe(session)))
                .await?
                .first()
            {
                Some((_, id)) => same_tree(&origin.git, id, &st.now).await?,
                None => false,
            };
        if !st.files.is_empty() && !brought {
            if !force {
                return Err(GitError::NotBroughtIn { files: st.files });
            }
            snapshot::set_ref(
                &origin,
                &format!("{}/discarded", ref_safe(session)),
                &st.now,
            )
            .await?;
            unsaved = st.files;
        }
        origin
            .git
            .run(
                None,
                &[
                    OsStr::new("worktree"),
                    OsStr::new("remove"),
                    OsStr::new("--force"),
                    wt.path.as_os_str(),
                ],
            )
            .await?;
    } else {
        origin.git.run(None, &["worktree", "prune"]).await?;
    }
    // The branch goes too; a merged one is in the user's history already.
    let _ = origin
        .git
        .run(None, &["branch", "-D", "--quiet", wt.branch.as_str()])
        .await;
    Ok(unsaved)
}

/// Whether commits `a` and `b` hold the same tree.
async fn same_tree(git: &Git, a: &str, b: &str) -> Result<bool, GitError> {
    let (a, b) = (format!("{a}^{{tree}}"), format!("{b}^{{tree}}"));
    let out = git
        .run(None, &["rev-parse", a.as_str(), b.as_str()])
        .await?;
    let text = String::from_utf8_lossy(&out.stdout);
    let trees: Vec<&str> = text.lines().collect();
    Ok(matches!(trees[..], [x, y] if x == y))
}

/// The files git named in a failed apply or merge, else all of them.
fn conflicting_files(stderr: &str, all: &[String]) -> Vec<String> {
    let named: Vec<String> = all
        .iter()
        .filter(|f| stderr.contains(f.as_str()))
        .cloned()
        .collect();
    if named.is_empty() {
        all.to_vec()
    } else {
        named
    }
}
