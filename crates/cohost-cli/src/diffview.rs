//! Showing what a turn changed on a terminal: a summary (one line per
//! file, `+`/`-` counts) and unified diffs coloured by line, every piece of
//! text from the tree made inert first (a file may hold escape sequences).

use cohost_core::sanitize::{inert_line, strip_controls};
use cohost_core::{ChangeStatus, FileChange, TurnChanges};

/// How a file's change reads in a summary: `M src/lib.rs (+3 -1)`.
pub fn file_line(f: &FileChange) -> String {
    let (mark, path) = match (f.status, &f.old_path) {
        (ChangeStatus::Added, _) => ("A", inert_line(&f.path)),
        (ChangeStatus::Deleted, _) => ("D", inert_line(&f.path)),
        (ChangeStatus::Renamed, Some(old)) => (
            "R",
            format!("{} -> {}", inert_line(old), inert_line(&f.path)),
        ),
        (ChangeStatus::ModeChanged, _) => ("T", inert_line(&f.path)),
        _ => ("M", inert_line(&f.path)),
    };
    let counts = if f.binary {
        format!("binary, {} bytes", f.size)
    } else {
        format!("+{} -{}", f.added, f.removed)
    };
    let mode = match (f.status, &f.old_mode, &f.new_mode) {
        (ChangeStatus::ModeChanged, Some(a), Some(b)) => format!(", mode {a} -> {b}"),
        _ => String::new(),
    };
    format!("{mark} {path} ({counts}{mode})")
}

/// The headline of a turn's changes: `turn 2: 3 files changed, +10 -2`.
pub fn headline(c: &TurnChanges) -> String {
    let (added, removed) = c.totals();
    let n = c.files.len();
    let files = if n == 1 { "file" } else { "files" };
    format!("turn {}: {n} {files} changed, +{added} -{removed}", c.turn)
}

/// A unified diff for a terminal: `+` lines green, `-` red, hunk headers
/// cyan, file headers bold (colour only when `color`).
pub fn render_patch(patch: &str, color: bool) -> String {
    let mut out = String::with_capacity(patch.len() + patch.len() / 8);
    for line in patch.lines() {
        let text = strip_controls(line);
        let code = if !color {
            None
        } else if line.starts_with("+++")
            || line.starts_with("---")
            || line.starts_with("diff --git")
        {
            Some("1")
        } else if line.starts_with('+') {
            Some("32")
        } else if line.starts_with('-') {
            Some("31")
        } else if line.starts_with("@@") {
            Some("36")
        } else {
            None
        };
        match code {
            Some(c) => out.push_str(&format!("\x1b[{c}m{text}\x1b[0m\n")),
            None => {
                out.push_str(&text);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(status: ChangeStatus) -> FileChange {
        FileChange {
            path: "src/a\x1b[2J.rs".into(),
            old_path: Some("old.rs".into()),
            status,
            old_mode: Some("100644".into()),
            new_mode: Some("100755".into()),
            added: 3,
            removed: 1,
            binary: false,
            size: 10,
            hash: None,
            diff: None,
            diff_truncated: false,
        }
    }

    #[test]
    fn summary_lines_name_status_counts_and_are_inert() {
        assert_eq!(
            file_line(&change(ChangeStatus::Modified)),
            "M src/a.rs (+3 -1)"
        );
        assert_eq!(
            file_line(&change(ChangeStatus::Renamed)),
            "R old.rs -> src/a.rs (+3 -1)"
        );
        assert_eq!(
            file_line(&change(ChangeStatus::ModeChanged)),
            "T src/a.rs (+3 -1, mode 100644 -> 100755)"
        );
        let mut bin = change(ChangeStatus::Added);
        bin.binary = true;
        assert_eq!(file_line(&bin), "A src/a.rs (binary, 10 bytes)");
    }

    #[test]
    fn a_patch_is_coloured_by_line_and_escapes_are_dropped() {
        let patch =
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\x1b]52;c;AAAA\x07\n";
        let plain = render_patch(patch, false);
        assert!(!plain.contains('\x1b'), "{plain:?}");
        assert!(plain.contains("+new\n"));
        let colored = render_patch(patch, true);
        assert!(colored.contains("\x1b[32m+new\x1b[0m"));
        assert!(colored.contains("\x1b[31m-old\x1b[0m"));
        assert!(!colored.contains("]52;"));
    }
}
