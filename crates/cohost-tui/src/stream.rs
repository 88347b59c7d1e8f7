//! A streamed markdown answer rendered incrementally: the source is cut at
//! completed blocks (a blank line outside a code fence, a run of finished
//! code lines inside one, or a finished line of a very long paragraph);
//! everything before the cut is rendered and wrapped once, only the open
//! tail is rendered again. So a chunk costs the tail, not the answer.

use ratatui::text::Line;

use crate::highlight::CodeState;
use crate::markdown;
use crate::theme::Theme;
use crate::wrap::wrap_into;

/// Finished code lines that are committed together inside an open fence.
const FENCE_BATCH: usize = 24;
/// A tail longer than this (bytes) is cut at its last finished line even
/// inside a paragraph (a soft break there shows as a line break).
const LONG_TAIL: usize = 2048;

/// One answer being streamed.
#[derive(Debug, Clone)]
pub struct MdStream {
    src: String,
    /// Source before this is rendered into `committed`.
    committed_to: usize,
    /// Where the scan for finished lines continues.
    scan: usize,
    /// The fence open at `scan` (its opening line), if any.
    fence: Option<String>,
    /// The fence open at `committed_to`: re-opened in front of the tail.
    tail_fence: Option<String>,
    /// Code lines finished since the last commit inside the fence.
    fence_lines: usize,
    /// The fence's highlighting where `committed_to` cut it.
    code: Option<CodeState>,
    committed: Vec<Piece>,
    committed_rows: Vec<Line<'static>>,
    tail_rows: Vec<Line<'static>>,
    width: usize,
    tail_dirty: bool,
}

impl Default for MdStream {
    fn default() -> Self {
        MdStream {
            src: String::new(),
            committed_to: 0,
            scan: 0,
            fence: None,
            tail_fence: None,
            fence_lines: 0,
            code: None,
            committed: Vec::new(),
            committed_rows: Vec::new(),
            tail_rows: Vec::new(),
            width: 0,
            tail_dirty: true,
        }
    }
}

fn fence_marker(line: &str) -> Option<&str> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    ["```", "~~~"].into_iter().find(|m| t.starts_with(m))
}

/// A committed piece: its lines, and for lines laid out to the width (a
/// table) what re-renders them at another width.
#[derive(Debug, Clone)]
struct Piece {
    lines: Vec<Line<'static>>,
    redo: Option<(String, Option<CodeState>)>,
}

impl MdStream {
    /// The source so far.
    pub fn source(&self) -> &str {
        &self.src
    }

    /// Append a delta; commits whatever blocks it finished.
    pub fn push(&mut self, delta: &str, theme: Theme) {
        self.src.push_str(delta);
        self.tail_dirty = true;
        while let Some(nl) = self.src[self.scan..].find('\n') {
            let start = self.scan;
            let end = start + nl + 1;
            let line = &self.src[start..end - 1];
            self.scan = end;
            match (&self.fence, fence_marker(line)) {
                (None, Some(_)) => {
                    self.fence = Some(line.to_string());
                    self.fence_lines = 0;
                }
                (Some(open), Some(m))
                    if fence_marker(open) == Some(m)
                        && line.trim().len() >= 3
                        && line
                            .trim()
                            .chars()
                            .all(|c| c == m.chars().next().unwrap_or('`')) =>
                {
                    self.fence = None;
                }
                (Some(_), _) => {
                    self.fence_lines += 1;
                    if self.fence_lines >= FENCE_BATCH {
                        self.commit(end, theme);
                    }
                }
                (None, None) => {
                    if line.trim().is_empty() || end - self.committed_to > LONG_TAIL {
                        self.commit(end, theme);
                    }
                }
            }
        }
    }

    /// Render `src[committed_to..end]` for good.
    fn commit(&mut self, end: usize, theme: Theme) {
        let mut seg = String::new();
        if let Some(open) = &self.tail_fence {
            seg.push_str(open);
            seg.push('\n');
        }
        seg.push_str(&self.src[self.committed_to..end]);
        let inside = self.fence.is_some();
        if inside {
            seg.push_str("```\n");
        }
        let carry = self.tail_fence.as_ref().and(self.code.take());
        let r = markdown::render_piece(&seg, theme, self.width, carry.clone());
        // The highlighting goes on from here in the fence's next piece.
        self.code = if inside { r.code } else { None };
        let lines = r.lines;
        if lines.is_empty() {
            self.committed_to = end;
            self.tail_fence = self.fence.clone();
            self.fence_lines = 0;
            return;
        }
        // Blocks are separated by one blank line, except where a code
        // block or a long paragraph was cut in the middle.
        let continues = self.tail_fence.is_some() || self.last_cut_mid_block();
        if !self.committed.is_empty() && !continues {
            self.committed.push(Piece {
                lines: vec![Line::default()],
                redo: None,
            });
            if self.width > 0 {
                self.committed_rows.push(Line::default());
            }
        }
        if self.width > 0 {
            for l in &lines {
                wrap_into(l, self.width, &mut self.committed_rows);
            }
        }
        let redo = r.width_bound.then_some((seg, carry));
        self.committed.push(Piece { lines, redo });
        self.committed_to = end;
        self.tail_fence = self.fence.clone();
        self.fence_lines = 0;
    }

    fn last_cut_mid_block(&self) -> bool {
        // The previous cut was at a blank line unless the source before
        // `committed_to` ends without one.
        !self.src[..self.committed_to].ends_with("\n\n") && self.committed_to > 0
    }

    /// Re-render the tail and wrap at `width` (all of it when the width
    /// changed). Cheap when nothing changed.
    pub fn layout(&mut self, width: usize, theme: Theme) {
        if width != self.width {
            self.width = width;
            self.committed_rows.clear();
            for p in &mut self.committed {
                if let Some((seg, carry)) = &p.redo {
                    p.lines = markdown::render_piece(seg, theme, width, carry.clone()).lines;
                }
                for l in &p.lines {
                    wrap_into(l, width, &mut self.committed_rows);
                }
            }
            self.tail_dirty = true;
        }
        if !self.tail_dirty {
            return;
        }
        self.tail_dirty = false;
        self.tail_rows.clear();
        let tail = &self.src[self.committed_to..];
        if tail.trim().is_empty() {
            return;
        }
        let mut seg = String::new();
        if let Some(open) = &self.tail_fence {
            seg.push_str(open);
            seg.push('\n');
        }
        seg.push_str(tail);
        let carry = self.tail_fence.as_ref().and(self.code.clone());
        let lines = markdown::render_piece(&seg, theme, width, carry).lines;
        let continues = self.tail_fence.is_some() || self.last_cut_mid_block();
        if !self.committed_rows.is_empty() && !continues && !lines.is_empty() {
            self.tail_rows.push(Line::default());
        }
        for l in &lines {
            wrap_into(l, width, &mut self.tail_rows);
        }
    }

    /// The wrapped rows: the committed ones, then the tail's.
    pub fn rows(&self) -> (&[Line<'static>], &[Line<'static>]) {
        (&self.committed_rows, &self.tail_rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(s: &mut MdStream, width: usize) -> Vec<String> {
        s.layout(width, Theme::new(false));
        let (a, b) = s.rows();
        a.iter().chain(b).map(|l| l.to_string()).collect()
    }

    #[test]
    fn streamed_in_any_pieces_it_renders_like_the_whole() {
        let src = "Intro paragraph here.\n\n```rust\nfn a() {}\nfn b() {}\n```\n\n- item one\n- item two\n\nThe end.\n";
        let whole: Vec<String> = markdown::render(src, Theme::new(false), 80)
            .iter()
            .map(|l| l.to_string())
            .collect();
        for step in [1, 3, 7, 64] {
            let mut s = MdStream::default();
            let chars: Vec<char> = src.chars().collect();
            for piece in chars.chunks(step) {
                s.push(&piece.iter().collect::<String>(), Theme::new(false));
                let _ = rows(&mut s, 80);
            }
            assert_eq!(rows(&mut s, 80), whole, "pieces of {step}");
        }
    }

    #[test]
    fn long_code_blocks_commit_in_batches_and_keep_their_gutter() {
        let mut s = MdStream::default();
        s.push("```\n", Theme::new(false));
        for i in 0..60 {
            s.push(&format!("line {i}\n"), Theme::new(false));
        }
        assert!(s.committed_to > 0, "committed inside the fence");
        assert!(s.src.len() - s.committed_to < 200, "tail stays short");
        let all = rows(&mut s, 80);
        assert_eq!(all.len(), 60);
        assert!(all.iter().all(|r| r.starts_with("▏ line")), "{all:?}");
    }

    #[test]
    fn a_long_block_highlights_as_one_across_its_batches() {
        // A comment opens on line 20 and closes on line 30: across the cut
        // after line 24 it is still a comment, coloured as one.
        let mut code = String::new();
        for i in 0..19 {
            code.push_str(&format!("let x{i} = {i};\n"));
        }
        code.push_str("/* a comment\n");
        for i in 0..9 {
            code.push_str(&format!("   let y{i} = \"still a comment\";\n"));
        }
        code.push_str("*/\nlet z = 1;\n");
        let src = format!("```rust\n{code}```\n\nafter\n");
        let theme = Theme::new(true);
        let whole = markdown::render(&src, theme, 80);
        let mut s = MdStream::default();
        let chars: Vec<char> = src.chars().collect();
        for piece in chars.chunks(5) {
            s.push(&piece.iter().collect::<String>(), theme);
            s.layout(80, theme);
        }
        assert!(s.committed.len() > 1, "the fence was committed in batches");
        let (a, b) = s.rows();
        let streamed: Vec<Line<'static>> = a.iter().chain(b).cloned().collect();
        assert_eq!(streamed.len(), whole.len());
        let cells = |l: &Line<'_>| -> Vec<(char, ratatui::style::Style)> {
            l.spans
                .iter()
                .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
                .collect()
        };
        for (i, (got, want)) in streamed.iter().zip(&whole).enumerate() {
            assert_eq!(
                cells(got),
                cells(want),
                "row {i} differs from the whole block's"
            );
        }
        // Line 26 (inside the comment, past the cut) has the comment's
        // colour, not the code's: one style for the whole line.
        let row = &streamed[25];
        assert!(row.to_string().contains("let y5"), "{row}");
        let styles: std::collections::HashSet<_> =
            row.spans.iter().skip(1).map(|s| s.style).collect();
        assert_eq!(styles.len(), 1, "{row:?}");
    }

    #[test]
    fn tables_fit_the_width_and_refit_on_resize() {
        let mut s = MdStream::default();
        let long = "word ".repeat(30);
        s.push(
            &format!("| k | v |\n|---|---|\n| a | {long} |\n\nafter\n"),
            Theme::new(false),
        );
        let wide = rows(&mut s, 80);
        assert!(wide.iter().all(|r| r.chars().count() <= 80), "{wide:?}");
        assert!(wide[2].ends_with('…'), "{wide:?}");
        let narrow = rows(&mut s, 30);
        assert_eq!(narrow.len(), wide.len(), "a table row never wraps");
        assert!(narrow.iter().all(|r| r.chars().count() <= 30), "{narrow:?}");
    }

    #[test]
    fn rewraps_on_resize() {
        let mut s = MdStream::default();
        s.push("aaa bbb ccc ddd\n\nnext\n", Theme::new(false));
        assert_eq!(rows(&mut s, 80), ["aaa bbb ccc ddd", "", "next"]);
        assert_eq!(rows(&mut s, 8), ["aaa bbb", "ccc ddd", "", "next"]);
    }
}
