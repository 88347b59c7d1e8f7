//! Undo: put the files a session's last turns changed back as they were
//! before them, byte for byte and mode for mode, and refuse (unless
//! forced) when someone changed one of those files since.
//!
//! Nothing is lost either way: the tree as it was just before the undo is
//! kept under `refs/cohost/sessions/<session>/undo/<time>`, and the undone
//! turns' refs move under `.../undone/<time>/`.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::diff::{parse_listing, Raw};
use crate::error::GitError;
use crate::git::Git;
use crate::paths;
use crate::session::{recorded_turns, RecordedTurn};
use crate::snapshot::{self, ref_safe};
use crate::store::Store;

/// What an undo did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UndoReport {
    /// The turns undone, oldest first.
    pub turns: Vec<u64>,
    /// Files written back (content and mode).
    pub restored: Vec<String>,
    /// Files removed (the turns had created them).
    pub removed: Vec<String>,
    /// Entries left as they are (submodules), with why.
    pub skipped: Vec<String>,
    /// The ref holding the tree as it was just before the undo.
    pub saved_as: String,
}

/// Undo turn `from` and every later one of `session` (the last turn when
/// `from` is none). Refuses with [`GitError::ChangedSince`] when a file
/// those turns changed was changed by someone else since (between the
/// turns, or after the last), unless `force`.
pub async fn undo(
    store: &Store,
    session: &str,
    from: Option<u64>,
    force: bool,
) -> Result<UndoReport, GitError> {
    let turns = recorded_turns(store, session).await?;
    let Some(last) = turns.last() else {
        return Err(GitError::NoTurns(session.to_owned()));
    };
    let from = from.unwrap_or(last.turn);
    let range: Vec<RecordedTurn> = turns.iter().filter(|t| t.turn >= from).cloned().collect();
    let Some(first) = range.first().filter(|t| t.turn == from) else {
        return Err(GitError::NoSuchTurn {
            session: session.to_owned(),
            turn: from,
        });
    };
    let target = first.before.clone();
    let now = snapshot_now(store, session).await?;

    let mut agent = BTreeSet::new();
    let mut others = BTreeSet::new();
    for (i, t) in range.iter().enumerate() {
        let after = t.after.as_deref().unwrap_or(&now);
        agent.extend(changed_paths(&store.git, &t.before, after).await?);
        let next = range.get(i + 1).map_or(now.as_str(), |n| n.before.as_str());
        others.extend(changed_paths(&store.git, after, next).await?);
    }
    let clash: Vec<String> = agent
        .intersection(&others)
        .map(|p| paths::display(p))
        .collect();
    if !clash.is_empty() && !force {
        return Err(GitError::ChangedSince { files: clash });
    }

    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let sid = ref_safe(session);
    let saved = format!("{sid}/undo/{stamp}");
    snapshot::set_ref(store, &saved, &now).await?;

    let mut report = apply(store, &now, &target, &agent).await?;
    report.turns = range.iter().map(|t| t.turn).collect();
    report.saved_as = format!("{}/{saved}", snapshot::REF_ROOT);
    retire(store, &sid, &range, stamp).await?;
    Ok(report)
}

/// The tree as it is now, recorded with a private index of its own (the
/// session's may be in use by its running turn).
async fn snapshot_now(store: &Store, session: &str) -> Result<String, GitError> {
    let key = format!("{}.undo", ref_safe(session));
    snapshot::snapshot_aside(store, &key, &format!("session {session} before undo")).await
}

/// Paths that differ from `from` to `to` (renames as a deletion and an
/// addition, so both sides count).
async fn changed_paths(git: &Git, from: &str, to: &str) -> Result<Vec<Vec<u8>>, GitError> {
    if from == to {
        return Ok(Vec::new());
    }
    Ok(listing(git, from, to)
        .await?
        .into_iter()
        .map(|raw| raw.path)
        .collect())
}

/// What differs from `from` to `to`, one record per path, no rename
/// detection.
async fn listing(git: &Git, from: &str, to: &str) -> Result<Vec<Raw>, GitError> {
    let args = [
        "diff-tree",
        "-r",
        "--no-renames",
        "--raw",
        "--numstat",
        "-z",
        from,
        to,
    ];
    let out = git.run(None, &args).await?;
    Ok(parse_listing(&out.stdout)?
        .into_iter()
        .map(|(raw, _)| raw)
        .collect())
}

/// Make each of `paths` as it is in `target`, from the tree `now`.
async fn apply(
    store: &Store,
    now: &str,
    target: &str,
    paths: &BTreeSet<Vec<u8>>,
) -> Result<UndoReport, GitError> {
    let wanted: Vec<Raw> = listing(&store.git, now, target)
        .await?
        .into_iter()
        .filter(|raw| paths.contains(&raw.path))
        .collect();
    let mut report = UndoReport::default();
    let top = store.top();
    // Removals first, deepest first: a file may come back where the
    // turns had put a directory.
    let mut gone: Vec<&Raw> = wanted.iter().filter(|r| r.new_mode == "000000").collect();
    gone.sort_by(|a, b| b.path.cmp(&a.path));
    for raw in gone {
        let path = top.join(paths::from_bytes(&raw.path));
        remove(&path)?;
        prune_empty_parents(top, &path);
        report.removed.push(paths::display(&raw.path));
    }
    let (files, skipped): (Vec<&Raw>, Vec<&Raw>) = wanted
        .iter()
        .filter(|r| r.new_mode != "000000")
        .partition(|r| r.new_mode != "160000");
    for raw in skipped {
        report.skipped.push(format!(
            "{} (a submodule: check it out by hand)",
            paths::display(&raw.path)
        ));
    }
    let ids: Vec<&str> = files.iter().map(|r| r.new_id.as_str()).collect();
    let blobs = read_blobs(&store.git, &ids).await?;
    for (raw, content) in files.iter().zip(blobs) {
        let path = top.join(paths::from_bytes(&raw.path));
        write(&path, &content, &raw.new_mode)?;
        report.restored.push(paths::display(&raw.path));
    }
    Ok(report)
}

/// The undone turns' refs move under `<session>/undone/<stamp>/`.
async fn retire(
    store: &Store,
    sid: &str,
    range: &[RecordedTurn],
    stamp: u128,
) -> Result<(), GitError> {
    let mut old = Vec::new();
    for t in range {
        let sides = [
            ("before", Some(t.before.as_str())),
            ("after", t.after.as_deref()),
        ];
        for (side, id) in sides {
            let Some(id) = id else { continue };
            let name = format!("{sid}/{}/{side}", t.turn);
            let kept = format!("{sid}/undone/{stamp}/{}/{side}", t.turn);
            snapshot::set_ref(store, &kept, id).await?;
            old.push(name);
        }
    }
    snapshot::delete_refs(store, &old).await
}

/// The contents of blobs `ids`, in order (one `cat-file --batch`).
async fn read_blobs(git: &Git, ids: &[&str]) -> Result<Vec<Vec<u8>>, GitError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let input = ids.join("\n") + "\n";
    let out = git
        .run_with_input(None, &["cat-file", "--batch"], Some(input.into_bytes()))
        .await?;
    let mut at = 0;
    let bytes = out.stdout;
    let mut blobs = Vec::with_capacity(ids.len());
    for id in ids {
        let nl = bytes[at..]
            .iter()
            .position(|b| *b == b'\n')
            .ok_or_else(|| GitError::BadOutput(format!("no header for {id}")))?;
        let header = String::from_utf8_lossy(&bytes[at..at + nl]).into_owned();
        let size: usize = header
            .rsplit(' ')
            .next()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| GitError::BadOutput(header.clone()))?;
        let start = at + nl + 1;
        let end = start + size;
        let content = bytes
            .get(start..end)
            .ok_or_else(|| GitError::BadOutput(format!("{id} is cut short")))?;
        blobs.push(content.to_vec());
        at = end + 1;
    }
    Ok(blobs)
}

fn remove(path: &Path) -> Result<(), GitError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            std::fs::remove_dir_all(path).map_err(|e| GitError::io("removing", path, e))
        }
        Ok(_) => std::fs::remove_file(path).map_err(|e| GitError::io("removing", path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(GitError::io("reading", path, e)),
    }
}

/// Directories left empty by a removal go too (git records no empty
/// directory, so none of them was in the recorded tree), up to the top.
fn prune_empty_parents(top: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == top || !d.starts_with(top) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Write `content` at `path` with git mode `mode`: through a temporary
/// file renamed into place, so a reader never sees half a file.
fn write(path: &Path, content: &[u8], mode: &str) -> Result<(), GitError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| GitError::io("creating", parent, e))?;
    }
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if m.is_dir() {
            std::fs::remove_dir(path).map_err(|e| GitError::io("replacing", path, e))?;
        }
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.cohost-undo-{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    if mode == "120000" {
        make_symlink(content, &tmp)?;
    } else {
        std::fs::write(&tmp, content).map_err(|e| GitError::io("writing", &tmp, e))?;
        set_mode(&tmp, mode == "100755")?;
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        GitError::io("putting back", path, e)
    })
}

#[cfg(unix)]
fn make_symlink(target: &[u8], at: &Path) -> Result<(), GitError> {
    std::os::unix::fs::symlink(paths::from_bytes(target), at)
        .map_err(|e| GitError::io("linking", at, e))
}

#[cfg(not(unix))]
fn make_symlink(target: &[u8], at: &Path) -> Result<(), GitError> {
    std::fs::write(at, target).map_err(|e| GitError::io("writing", at, e))
}

#[cfg(unix)]
fn set_mode(path: &Path, executable: bool) -> Result<(), GitError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| GitError::io("setting the mode of", path, e))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _executable: bool) -> Result<(), GitError> {
    Ok(())
}
