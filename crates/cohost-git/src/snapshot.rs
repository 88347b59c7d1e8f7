//! Recording a working tree: `git add -A` into a private index (the
//! user's is never read for writing nor written), its tree as a commit,
//! and that commit under a ref of cohost's own.
//!
//! The private index keeps each file's stat data from the last snapshot,
//! so a snapshot hashes only what changed since: about the cost of a
//! `git status` on the same tree.

use std::path::{Path, PathBuf};

use crate::error::GitError;
use crate::git::first_line;
use crate::store::{Store, StoreKind};

/// The namespace of every ref cohost writes.
pub const REF_ROOT: &str = "refs/cohost/sessions";

/// A private index for `key` (a session), seeded from the repository's own
/// index the first time (a copy: its stat data makes the first snapshot as
/// cheap as the next).
pub(crate) fn private_index(store: &Store, key: &str) -> Result<PathBuf, GitError> {
    let dir = &store.index_dir;
    std::fs::create_dir_all(dir).map_err(|e| GitError::io("creating", dir, e))?;
    let index = dir.join(key);
    if !index.exists() && store.kind() == StoreKind::Repository {
        let theirs = store.git.git_dir.join("index");
        if theirs.is_file() {
            // Copied under another name, then renamed: a half-copied index
            // is never taken for a whole one.
            let tmp = dir.join(format!("{key}.seed"));
            std::fs::copy(&theirs, &tmp).map_err(|e| GitError::io("copying", &theirs, e))?;
            std::fs::rename(&tmp, &index).map_err(|e| GitError::io("renaming", &tmp, e))?;
        }
    }
    Ok(index)
}

/// Record the tree as it is now: the id of a commit holding it.
pub(crate) async fn snapshot(store: &Store, index: &Path, what: &str) -> Result<String, GitError> {
    let tree = tree_now(store, index).await?;
    commit(store, &tree, what).await
}

/// Record the tree with a private index of its own under `key`, removed
/// after: for a snapshot beside a session's running turns (undo, a
/// worktree's state), which must not disturb the session's index.
pub(crate) async fn snapshot_aside(
    store: &Store,
    key: &str,
    what: &str,
) -> Result<String, GitError> {
    let index = private_index(store, key)?;
    let result = snapshot(store, &index, what).await;
    let _ = std::fs::remove_file(&index);
    result
}

/// The tree as it is now, in the object store (`git add --all` into
/// `index`, then `write-tree`).
pub(crate) async fn tree_now(store: &Store, index: &Path) -> Result<String, GitError> {
    let mut args = vec!["add".to_owned(), "--all".to_owned(), "--".to_owned()];
    args.extend(store.pathspec());
    store.git.run(Some(index), &args).await?;
    first_line(&store.git.run(Some(index), &["write-tree"]).await?)
}

/// A commit holding `tree`.
pub(crate) async fn commit(store: &Store, tree: &str, what: &str) -> Result<String, GitError> {
    let message = format!("cohost checkpoint: {what}");
    let commit = store
        .git
        .run(None, &["commit-tree", tree, "-m", message.as_str()])
        .await?;
    first_line(&commit)
}

/// Point `name` (under [`REF_ROOT`]) at `commit`.
pub(crate) async fn set_ref(store: &Store, name: &str, commit: &str) -> Result<(), GitError> {
    let full = format!("{REF_ROOT}/{name}");
    store
        .git
        .run(None, &["update-ref", full.as_str(), commit])
        .await?;
    Ok(())
}

/// Every ref under `prefix` (below [`REF_ROOT`]): its name below the root,
/// and the commit.
pub(crate) async fn refs_under(
    store: &Store,
    prefix: &str,
) -> Result<Vec<(String, String)>, GitError> {
    let pattern = format!("{REF_ROOT}/{prefix}");
    let out = store
        .git
        .run(
            None,
            &[
                "for-each-ref",
                "--format=%(objectname) %(refname)",
                pattern.as_str(),
            ],
        )
        .await?;
    let text = String::from_utf8_lossy(&out.stdout);
    let root = format!("{REF_ROOT}/");
    Ok(text
        .lines()
        .filter_map(|l| {
            let (id, name) = l.split_once(' ')?;
            Some((name.strip_prefix(&root)?.to_owned(), id.to_owned()))
        })
        .collect())
}

/// Delete the refs named (below [`REF_ROOT`]).
pub(crate) async fn delete_refs(store: &Store, names: &[String]) -> Result<(), GitError> {
    if names.is_empty() {
        return Ok(());
    }
    let input: String = names
        .iter()
        .map(|n| format!("delete {REF_ROOT}/{n}\n"))
        .collect();
    store
        .git
        .run_with_input(None, &["update-ref", "--stdin"], Some(input.into_bytes()))
        .await?;
    Ok(())
}

/// A session id as one ref component: anything but `[A-Za-z0-9._-]`
/// becomes `_`, and no component starts with a dot.
pub(crate) fn ref_safe(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.').replace("..", "_");
    if safe.is_empty() {
        "_".into()
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::ref_safe;

    #[test]
    fn ids_become_one_safe_ref_component() {
        assert_eq!(ref_safe("s-abc123"), "s-abc123");
        assert_eq!(ref_safe("../x y"), "_x_y");
        assert_eq!(ref_safe(""), "_");
        assert_eq!(ref_safe("a/b:c"), "a_b_c");
    }
}
