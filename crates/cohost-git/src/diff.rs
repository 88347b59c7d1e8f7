//! What changed between two recorded trees: git's `--raw --numstat -z`
//! listing read into [`FileChange`]s, and the unified diff of each file
//! within a byte budget.

use cohost_core::{ChangeStatus, FileChange};

use crate::error::GitError;
use crate::git::Git;
use crate::paths;

/// How much diff text one `file_changes` event carries.
#[derive(Debug, Clone, Copy)]
pub struct DiffBounds {
    /// Largest diff of one file; a larger one is left out (counts only).
    pub per_file: usize,
    /// Largest diff text of the whole turn; files past it get counts only.
    pub total: usize,
}

impl Default for DiffBounds {
    fn default() -> Self {
        DiffBounds {
            per_file: 64 * 1024,
            total: 256 * 1024,
        }
    }
}

impl DiffBounds {
    /// No bound: the whole diff (`cohost diff`).
    pub fn unbounded() -> DiffBounds {
        DiffBounds {
            per_file: usize::MAX,
            total: usize::MAX,
        }
    }
}

/// The least patch text read for one event, whatever its bounds.
const READ_AT_LEAST: usize = 4 << 20;

/// One record of `git diff-tree --raw -z`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Raw {
    pub old_mode: String,
    pub new_mode: String,
    pub old_id: String,
    pub new_id: String,
    /// `A`, `M`, `D`, `R`, `T`...
    pub status: u8,
    /// The path before (renames), as bytes.
    pub old_path: Option<Vec<u8>>,
    /// The path (after, for renames), as bytes.
    pub path: Vec<u8>,
}

const NULL_MODE: &str = "000000";

/// A listing record and its line counts (none for a binary file).
pub(crate) type Listed = (Raw, Option<(u64, u64)>);

/// Read git's `--raw --numstat -z` output: the raw records, then one
/// numstat record per raw one, in the same order.
pub(crate) fn parse_listing(out: &[u8]) -> Result<Vec<Listed>, GitError> {
    let mut fields = out.split(|b| *b == 0).peekable();
    let mut raws = Vec::new();
    while let Some(head) = fields.next_if(|f| f.first() == Some(&b':')) {
        let head = std::str::from_utf8(head).map_err(|_| bad("a raw record"))?;
        let parts: Vec<&str> = head[1..].split(' ').collect();
        let [old_mode, new_mode, old_id, new_id, status] = parts[..] else {
            return Err(bad(head));
        };
        let status = *status.as_bytes().first().ok_or_else(|| bad(head))?;
        let first = fields.next().ok_or_else(|| bad(head))?.to_vec();
        let (old_path, path) = if matches!(status, b'R' | b'C') {
            let second = fields.next().ok_or_else(|| bad(head))?.to_vec();
            (Some(first), second)
        } else {
            (None, first)
        };
        raws.push(Raw {
            old_mode: old_mode.to_owned(),
            new_mode: new_mode.to_owned(),
            old_id: old_id.to_owned(),
            new_id: new_id.to_owned(),
            status,
            old_path,
            path,
        });
    }
    let mut out = Vec::with_capacity(raws.len());
    for raw in raws {
        let counts = match fields.next() {
            Some(stat) if !stat.is_empty() => {
                let text = String::from_utf8_lossy(stat);
                let mut cols = text.splitn(3, '\t');
                let added = cols.next().unwrap_or("-");
                let removed = cols.next().unwrap_or("-");
                let rest = cols.next().unwrap_or_default();
                // A rename's numstat names its two paths in fields of
                // their own.
                if rest.is_empty() && raw.old_path.is_some() {
                    fields.next();
                    fields.next();
                }
                match (added.parse(), removed.parse()) {
                    (Ok(a), Ok(r)) => Some((a, r)),
                    _ => None,
                }
            }
            _ => return Err(bad("a numstat record")),
        };
        out.push((raw, counts));
    }
    Ok(out)
}

fn bad(what: &str) -> GitError {
    GitError::BadOutput(format!("cannot read {what}"))
}

/// The [`FileChange`] of one listing record (diff text filled in later).
pub(crate) fn change_of(raw: &Raw, counts: Option<(u64, u64)>) -> FileChange {
    let status = match raw.status {
        b'A' => ChangeStatus::Added,
        b'D' => ChangeStatus::Deleted,
        b'R' => ChangeStatus::Renamed,
        b'M' if raw.old_id == raw.new_id => ChangeStatus::ModeChanged,
        b'T' if raw.old_id == raw.new_id => ChangeStatus::ModeChanged,
        _ => ChangeStatus::Modified,
    };
    let mode = |m: &str| (m != NULL_MODE).then(|| m.to_owned());
    let deleted = status == ChangeStatus::Deleted;
    FileChange {
        path: paths::display(&raw.path),
        old_path: raw.old_path.as_deref().map(paths::display),
        status,
        old_mode: mode(&raw.old_mode),
        new_mode: mode(&raw.new_mode),
        added: counts.map_or(0, |c| c.0),
        removed: counts.map_or(0, |c| c.1),
        binary: counts.is_none(),
        size: 0,
        hash: Some(if deleted { &raw.old_id } else { &raw.new_id }.clone()),
        diff: None,
        diff_truncated: false,
    }
}

/// Common flags of every diff: renames found, no external or text-
/// converting driver, plain text.
const DIFF_FLAGS: &[&str] = &[
    "diff-tree",
    "-r",
    "-M",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
];

/// The files changed from tree-ish `from` to `to`, with counts, sizes,
/// and diffs within `bounds`.
pub(crate) async fn changes(
    git: &Git,
    from: &str,
    to: &str,
    bounds: DiffBounds,
) -> Result<Vec<FileChange>, GitError> {
    let mut args: Vec<&str> = DIFF_FLAGS.to_vec();
    args.extend(["--raw", "--numstat", "-z", from, to]);
    let listing = parse_listing(&git.run(None, &args).await?.stdout)?;
    let mut files: Vec<FileChange> = listing.iter().map(|(r, c)| change_of(r, *c)).collect();
    fill_sizes(git, &mut files).await?;
    if files.is_empty() || bounds.total == 0 {
        return Ok(files);
    }
    let mut args: Vec<&str> = DIFF_FLAGS.to_vec();
    args.extend(["-p", from, to]);
    // Diffs too large for the event are read and dropped, so that the
    // small ones after them still come; past this much, git is stopped.
    let limit = bounds.total.saturating_mul(8).max(READ_AT_LEAST);
    let (patch, cut) = git.run_bounded(None, &args, limit).await?;
    let sections = split_patch(&patch);
    let mut used = 0usize;
    for (i, file) in files.iter_mut().enumerate() {
        // The last section of a cut output may be incomplete.
        let whole = !(cut && i + 1 >= sections.len());
        match sections.get(i) {
            Some(text) if whole && text.len() <= bounds.per_file => {
                let text = String::from_utf8_lossy(text).into_owned();
                // Bounded as the event carries it: JSON-escaped, so a diff
                // of control characters cannot grow a frame sixfold.
                let cost = json_len(&text);
                if cost <= bounds.per_file && used.saturating_add(cost) <= bounds.total {
                    used += cost;
                    file.diff = Some(text);
                } else {
                    file.diff_truncated = true;
                }
            }
            _ => file.diff_truncated = true,
        }
    }
    Ok(files)
}

/// How many bytes `text` takes as a JSON string's content.
fn json_len(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        })
        .sum()
}

/// The whole unified diff from `from` to `to`, for people.
pub(crate) async fn patch(git: &Git, from: &str, to: &str) -> Result<String, GitError> {
    let mut args: Vec<&str> = DIFF_FLAGS.to_vec();
    args.extend(["-p", from, to]);
    let out = git.run(None, &args).await?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A patch cut into its files' sections (each from its `diff --git` line;
/// content lines always start with ` `, `+`, `-` or `\`, so the header
/// cannot be forged by a file's text).
pub(crate) fn split_patch(patch: &[u8]) -> Vec<&[u8]> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < patch.len() {
        if patch[at..].starts_with(b"diff --git ") {
            starts.push(at);
        }
        match patch[at..].iter().position(|b| *b == b'\n') {
            Some(n) => at += n + 1,
            None => break,
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(i, s)| &patch[*s..starts.get(i + 1).copied().unwrap_or(patch.len())])
        .collect()
}

/// Each file's size, from the object store (one `cat-file --batch-check`).
async fn fill_sizes(git: &Git, files: &mut [FileChange]) -> Result<(), GitError> {
    let ids: Vec<&str> = files.iter().filter_map(|f| f.hash.as_deref()).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let input = ids.join("\n") + "\n";
    let out = git
        .run_with_input(
            None,
            &["cat-file", "--batch-check=%(objectsize)"],
            Some(input.into_bytes()),
        )
        .await?;
    let text = String::from_utf8_lossy(&out.stdout);
    for (file, line) in files
        .iter_mut()
        .filter(|f| f.hash.is_some())
        .zip(text.lines())
    {
        file.size = line.trim().parse().unwrap_or(0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_reads_modified_binary_renamed_and_added() {
        let out = b":100644 100644 aaa bbb M\0a.txt\0:100644 100755 ccc ddd M\0bin\0:100644 100644 eee eee R100\0old\0new\0:000000 100644 000 fff A\0sp ace.txt\x002\t1\ta.txt\0-\t-\tbin\x000\t0\t\0old\0new\x001\t0\tsp ace.txt\0";
        let got = parse_listing(out).unwrap();
        let changes: Vec<FileChange> = got.iter().map(|(r, c)| change_of(r, *c)).collect();
        assert_eq!(changes.len(), 4);
        assert_eq!((changes[0].added, changes[0].removed), (2, 1));
        assert_eq!(changes[0].status, ChangeStatus::Modified);
        assert!(changes[1].binary);
        assert_eq!(changes[2].status, ChangeStatus::Renamed);
        assert_eq!(changes[2].old_path.as_deref(), Some("old"));
        assert_eq!(changes[2].path, "new");
        assert_eq!(changes[3].status, ChangeStatus::Added);
        assert_eq!(changes[3].path, "sp ace.txt");
        assert_eq!(changes[3].old_mode, None);
    }

    #[test]
    fn a_mode_only_change_is_one() {
        let out = b":100644 100755 aaa aaa M\0run.sh\x000\t0\trun.sh\0";
        let got = parse_listing(out).unwrap();
        assert_eq!(
            change_of(&got[0].0, got[0].1).status,
            ChangeStatus::ModeChanged
        );
    }

    #[test]
    fn malformed_listings_are_errors_not_panics() {
        for bad in [
            &b":100644 100644 aaa bbb M\0"[..],
            b":100644\0x\0",
            b":100644 100644 aaa bbb R100\0old\0",
            b":1 2 3 4 M\0p\0",
            b"\xff\xfe",
        ] {
            let _ = parse_listing(bad);
        }
        assert!(parse_listing(b":100644 100644 aaa bbb M\0a\0").is_err());
    }

    #[test]
    fn json_length_counts_escapes() {
        let text = "a\"\\\n\u{1b}é";
        assert_eq!(
            json_len(text),
            serde_json::to_string(text).unwrap().len() - 2
        );
    }

    #[test]
    fn a_patch_splits_at_each_file_header_only() {
        let patch =
            b"diff --git a/x b/x\n+diff --git a/y b/y\n diff --git\ndiff --git a/z b/z\n-z\n";
        let parts = split_patch(patch);
        assert_eq!(parts.len(), 2);
        assert!(parts[0].ends_with(b" diff --git\n"));
        assert_eq!(parts[1], b"diff --git a/z b/z\n-z\n");
    }
}
