//! One file's unified diff, parsed into lines that know their number on
//! each side and their hunk: what the diff view draws, and what a review
//! comment points at and quotes. Every line is made inert on the way in (a
//! file may hold escape sequences), so nothing later sees a raw one.

use std::ops::Range;

use cohost_core::sanitize::strip_controls;

/// What a line of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Before the first hunk, or between files: `diff --git`, `index`,
    /// `---`, `+++`, `new file mode`, `rename from`…
    Header,
    /// A hunk's `@@ -a,b +c,d @@` line.
    Hunk,
    /// Unchanged, on both sides.
    Context,
    /// Only after the change (`+`).
    Added,
    /// Only before the change (`-`).
    Removed,
    /// `\ No newline at end of file`.
    NoNewline,
}

impl LineKind {
    /// Whether the line is code a review comment can point at.
    pub fn is_code(self) -> bool {
        matches!(
            self,
            LineKind::Context | LineKind::Added | LineKind::Removed
        )
    }
}

/// One line of the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// What it is.
    pub kind: LineKind,
    /// The line as the diff has it (sign included), controls removed; tabs
    /// kept (the drawing expands them, a quoted hunk keeps them).
    pub text: String,
    /// Its number in the file before the change (context and removed lines).
    pub old: Option<u64>,
    /// Its number in the file after the change (context and added lines).
    pub new: Option<u64>,
    /// The hunk it belongs to (its `@@` line included).
    pub hunk: Option<usize>,
}

impl DiffLine {
    /// The code without the diff's sign column, for highlighting.
    pub fn code(&self) -> &str {
        if self.kind.is_code() {
            self.text.get(1..).unwrap_or("")
        } else {
            &self.text
        }
    }
}

/// A parsed diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedDiff {
    /// Every line, in order.
    pub lines: Vec<DiffLine>,
    /// Each hunk's lines (indexes into `lines`), from its `@@` line.
    pub hunks: Vec<Range<usize>>,
}

/// `@@ -a[,b] +c[,d] @@`: the starts and counts of both sides.
fn hunk_header(line: &str) -> Option<(u64, u64, u64, u64)> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let side = |s: &str| -> Option<(u64, u64)> {
        match s.split_once(',') {
            Some((a, n)) => Some((a.parse().ok()?, n.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (a, b) = side(old)?;
    let (c, d) = side(new)?;
    Some((a, b, c, d))
}

impl ParsedDiff {
    /// Parse `patch`, the unified diff of one file (a patch of several
    /// files parses too: a hunk ends when its counts are used up).
    pub fn parse(patch: &str) -> ParsedDiff {
        let mut out = ParsedDiff::default();
        // The next line numbers and the lines still due in the open hunk.
        let (mut old, mut new) = (0u64, 0u64);
        let (mut old_left, mut new_left) = (0u64, 0u64);
        let mut hunk: Option<usize> = None;
        for raw in patch.lines() {
            let text = strip_controls(raw).into_owned();
            let due = old_left > 0 || new_left > 0;
            let mut line = DiffLine {
                kind: LineKind::Header,
                text,
                old: None,
                new: None,
                hunk: None,
            };
            if let Some((a, b, c, d)) = raw.starts_with("@@").then(|| hunk_header(raw)).flatten() {
                let i = out.hunks.len();
                out.hunks.push(out.lines.len()..out.lines.len() + 1);
                hunk = Some(i);
                (old, new, old_left, new_left) = (a, c, b, d);
                line.kind = LineKind::Hunk;
            } else if raw.starts_with('\\') && hunk.is_some() {
                line.kind = LineKind::NoNewline;
            } else if due {
                // An empty line is a context line whose space was lost.
                match raw.as_bytes().first() {
                    Some(b'+') => line.kind = LineKind::Added,
                    Some(b'-') => line.kind = LineKind::Removed,
                    _ => line.kind = LineKind::Context,
                }
                if line.kind != LineKind::Added {
                    line.old = Some(old);
                    old += 1;
                    old_left = old_left.saturating_sub(1);
                }
                if line.kind != LineKind::Removed {
                    line.new = Some(new);
                    new += 1;
                    new_left = new_left.saturating_sub(1);
                }
            } else {
                hunk = None;
            }
            if let (Some(h), true) = (hunk, line.kind != LineKind::Header) {
                line.hunk = Some(h);
                if let Some(r) = out.hunks.get_mut(h) {
                    r.end = out.lines.len() + 1;
                }
            }
            out.lines.push(line);
        }
        out
    }

    /// Where a comment on line `i` points: its number, and whether that
    /// counts in the file before the change (a removed line). Context and
    /// added lines count in the file after it.
    pub fn target(&self, i: usize) -> Option<(u64, bool)> {
        let l = self.lines.get(i)?;
        match l.kind {
            LineKind::Removed => Some((l.old?, true)),
            LineKind::Context | LineKind::Added => Some((l.new?, false)),
            _ => None,
        }
    }

    /// The whole hunk holding line `i`, its `@@` line first, one line per
    /// line of the diff (controls removed).
    pub fn hunk_text(&self, i: usize) -> Option<String> {
        let h = self.lines.get(i)?.hunk?;
        let range = self.hunks.get(h)?.clone();
        let lines: Vec<&str> = self.lines[range].iter().map(|l| l.text.as_str()).collect();
        Some(lines.join("\n"))
    }

    /// The first code line at or after `i` (`forward`), or at or before it.
    pub fn code_line(&self, i: usize, forward: bool) -> Option<usize> {
        let is_code = |j: &usize| self.lines.get(*j).is_some_and(|l| l.kind.is_code());
        if forward {
            (i..self.lines.len()).find(is_code)
        } else {
            (0..=i.min(self.lines.len().checked_sub(1)?))
                .rev()
                .find(is_code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/src/a.rs b/src/a.rs
index 1111111..2222222 100644
--- a/src/a.rs
+++ b/src/a.rs
@@ -1,4 +1,5 @@ fn main() {
 fn main() {
-    old();
+    new();
+    more();
 }
@@ -10,2 +11,2 @@ fn tail
 a
-b
+b\x1b]52;c;AAAA\x07
\\ No newline at end of file
";

    fn kinds(d: &ParsedDiff) -> Vec<LineKind> {
        d.lines.iter().map(|l| l.kind).collect()
    }

    #[test]
    fn lines_know_their_kind_numbers_and_hunk() {
        use LineKind::*;
        let d = ParsedDiff::parse(PATCH);
        assert_eq!(
            kinds(&d),
            [
                Header, Header, Header, Header, Hunk, Context, Removed, Added, Added, Context,
                Hunk, Context, Removed, Added, NoNewline
            ]
        );
        let nums: Vec<(Option<u64>, Option<u64>)> =
            d.lines.iter().map(|l| (l.old, l.new)).collect();
        assert_eq!(nums[5], (Some(1), Some(1)));
        assert_eq!(nums[6], (Some(2), None));
        assert_eq!(nums[7], (None, Some(2)));
        assert_eq!(nums[8], (None, Some(3)));
        assert_eq!(nums[9], (Some(3), Some(4)));
        assert_eq!(nums[11], (Some(10), Some(11)));
        assert_eq!(nums[12], (Some(11), None));
        assert_eq!(nums[13], (None, Some(12)));
        assert_eq!(d.hunks, [4..10, 10..15]);
        assert_eq!(d.lines[2].hunk, None, "the file header is in no hunk");
        assert_eq!(d.lines[14].hunk, Some(1), "the marker belongs to its hunk");
    }

    #[test]
    fn a_comment_points_at_the_new_side_unless_the_line_was_removed() {
        let d = ParsedDiff::parse(PATCH);
        assert_eq!(d.target(5), Some((1, false)), "context: after the change");
        assert_eq!(d.target(6), Some((2, true)), "removed: before the change");
        assert_eq!(d.target(8), Some((3, false)), "added");
        assert_eq!(d.target(12), Some((11, true)));
        assert_eq!(d.target(4), None, "a hunk header is not a line of code");
        assert_eq!(d.target(0), None);
        assert_eq!(d.target(99), None);
    }

    #[test]
    fn the_hunk_of_a_line_is_quoted_whole_and_inert() {
        let d = ParsedDiff::parse(PATCH);
        assert_eq!(
            d.hunk_text(7).as_deref(),
            Some("@@ -1,4 +1,5 @@ fn main() {\n fn main() {\n-    old();\n+    new();\n+    more();\n }")
        );
        assert_eq!(
            d.hunk_text(11).as_deref(),
            Some("@@ -10,2 +11,2 @@ fn tail\n a\n-b\n+b\n\\ No newline at end of file"),
            "the OSC 52 sequence is gone"
        );
        assert_eq!(d.hunk_text(1), None);
    }

    #[test]
    fn removed_lines_that_look_like_file_headers_stay_in_their_hunk() {
        // `--- x` inside a hunk is a removed line `-- x`, not a header; the
        // next file's header comes once the counts are used up.
        let p = "@@ -1,2 +0,0 @@\n--- x\n-++ y\ndiff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -0,0 +1 @@\n+z\n";
        let d = ParsedDiff::parse(p);
        use LineKind::*;
        assert_eq!(
            kinds(&d),
            [Hunk, Removed, Removed, Header, Header, Header, Hunk, Added]
        );
        assert_eq!(d.hunks, [0..3, 6..8]);
        assert_eq!(d.target(7), Some((1, false)));
    }

    #[test]
    fn code_lines_are_found_in_either_direction() {
        let d = ParsedDiff::parse(PATCH);
        assert_eq!(d.code_line(0, true), Some(5));
        assert_eq!(d.code_line(10, true), Some(11));
        assert_eq!(d.code_line(10, false), Some(9));
        assert_eq!(d.code_line(14, true), None);
        assert_eq!(d.code_line(3, false), None);
        assert_eq!(ParsedDiff::parse("").code_line(0, false), None);
    }
}
