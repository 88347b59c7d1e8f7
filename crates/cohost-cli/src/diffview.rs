//! Showing what a turn changed on a terminal: unified diffs coloured by
//! line, every piece of text from the tree made inert first (a file may
//! hold escape sequences). The one-line summaries are the domain's
//! ([`cohost_core::FileChange::summary`]).

use cohost_core::sanitize::strip_controls;

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
