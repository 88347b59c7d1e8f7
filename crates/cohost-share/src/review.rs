//! A review comment on one line of a turn's diff, as the text that goes to
//! the agent: a prompt from the host or the chat, a suggestion from a
//! co-driver. The terminal UI and the web page write the same text (the
//! README's "Checkpoints, diffs and undo" gives the format), so an agent
//! reads one shape whoever commented and wherever.

/// The prompt for a comment on line `line` of `path`, in the hunk `hunk`
/// (its `@@` header and lines, as the diff shows them):
///
/// ````text
/// Review comment on PATH, line N:
///
/// ```diff
/// HUNK
/// ```
///
/// COMMENT
/// ````
///
/// `line` counts in the file after the change, or, when `old_side` (a
/// removed line), in the file before it: then it reads `line N (before the
/// change)`. The hunk's final line break is dropped so the fence closes on
/// the next line; the comment is taken as given.
pub fn review_prompt(path: &str, line: u64, old_side: bool, hunk: &str, comment: &str) -> String {
    let side = if old_side { " (before the change)" } else { "" };
    let hunk = hunk.trim_end_matches(['\n', '\r']);
    let fence = fence_for(hunk);
    format!(
        "Review comment on {path}, line {line}{side}:\n\n{fence}diff\n{hunk}\n{fence}\n\n{comment}"
    )
}

/// A code fence longer than any run of backticks in `text` (at least
/// three), so a hunk that itself holds a fence (a Markdown file's diff)
/// cannot close the block early and spill into the comment.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUNK: &str = "@@ -1,3 +1,3 @@\n fn main() {\n-    old();\n+    new();\n }\n";

    #[test]
    fn a_new_side_line_names_the_line_in_the_file_after_the_change() {
        assert_eq!(
            review_prompt("src/main.rs", 2, false, HUNK, "why new()?"),
            "Review comment on src/main.rs, line 2:\n\n```diff\n@@ -1,3 +1,3 @@\n fn main() {\n-    old();\n+    new();\n }\n```\n\nwhy new()?"
        );
    }

    #[test]
    fn an_old_side_line_says_it_is_before_the_change() {
        let p = review_prompt("a b/c.py", 7, true, "@@ -7 +6,0 @@\n-gone", "keep it");
        assert_eq!(
            p,
            "Review comment on a b/c.py, line 7 (before the change):\n\n```diff\n@@ -7 +6,0 @@\n-gone\n```\n\nkeep it"
        );
    }

    #[test]
    fn a_hunk_holding_a_fence_gets_a_longer_one() {
        let hunk = "@@ -1,2 +1,3 @@\n # Title\n+```sh\n+make\n+```\n";
        let p = review_prompt("README.md", 3, false, hunk, "run it");
        assert!(p.contains("\n````diff\n@@"), "{p:?}");
        assert!(p.ends_with("+```\n````\n\nrun it"), "{p:?}");
        let five = review_prompt("x.md", 1, false, "+`````", "c");
        assert!(five.contains("``````diff\n+`````\n``````\n"), "{five:?}");
    }

    #[test]
    fn a_multi_line_comment_is_kept_as_given() {
        let p = review_prompt("x", 1, false, "@@ -0,0 +1 @@\n+x\r\n\n", "one\n\ntwo");
        assert!(p.ends_with("+x\n```\n\none\n\ntwo"), "{p:?}");
    }
}
