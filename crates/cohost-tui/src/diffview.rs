//! The diff view: one changed file's diff drawn over the transcript, `+`
//! lines green and `-` lines red with both sides' line numbers, hunk
//! headers apart, the code highlighted by the same highlighter as the
//! answers' code blocks ([`CodeState`]), a cursor on one line of code (the
//! line a review comment is about), and the comment's input.
//!
//! The lines are parsed and highlighted once when the view opens, wrapped
//! once per width; a frame copies the visible rows.

use cohost_core::FileChange;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::changes::ChangesCard;
use crate::diff::{LineKind, ParsedDiff};
use crate::highlight::CodeState;
use crate::input::InputBox;
use crate::theme::Theme;
use crate::wrap::{truncate, width, wrap_into};

/// One diff line ready to wrap: its gutter (cursor mark, line numbers,
/// sign) and its text, styled.
#[derive(Debug, Clone)]
struct Styled {
    /// Empty for lines drawn from the first column (headers, hunks).
    gutter: Vec<Span<'static>>,
    text: Line<'static>,
    /// Not drawn: the file header the view's title already says
    /// (`diff --git`, `index`, `---`, `+++`).
    hidden: bool,
}

/// Rows of the whole diff at one width.
#[derive(Debug, Clone, Default)]
struct Rows {
    width: usize,
    rows: Vec<Line<'static>>,
    /// The first row of each diff line, and the row count last.
    starts: Vec<usize>,
}

/// The open diff of one file of a turn.
#[derive(Debug, Clone)]
pub struct DiffView {
    /// The transcript block of the turn's changes.
    pub block: usize,
    /// The file's index in that turn.
    pub index: usize,
    /// How many files the turn changed.
    pub count: usize,
    /// The turn.
    pub turn: u64,
    /// The file.
    pub file: FileChange,
    /// Its diff, parsed (empty when there is none to show).
    pub diff: ParsedDiff,
    /// Why no diff is shown (binary, too large for the event, none).
    pub missing: Option<String>,
    /// The line of code the cursor is on (an index into the diff's lines).
    pub cursor: Option<usize>,
    /// The first row shown.
    pub top: usize,
    /// Rows shown at the last draw (for paging).
    pub page: usize,
    /// The review comment being typed, when open.
    pub comment: Option<InputBox>,
    styled: Vec<Styled>,
    rows: Rows,
}

/// Tabs as spaces: a terminal cell holds no tab.
fn untab(s: &str) -> String {
    s.replace('\t', "    ")
}

/// The grammar to highlight `path` with: its extension, else its name
/// (`Makefile`).
fn language(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext,
        _ => name,
    }
}

impl DiffView {
    /// Open file `index` of `card` (transcript block `block`). `remote`:
    /// the screen is a participant's, for whom `cohost diff` runs on the
    /// host's machine.
    pub fn open(
        card: &ChangesCard,
        block: usize,
        index: usize,
        theme: Theme,
        remote: bool,
    ) -> Option<DiffView> {
        let file = card.changes.files.get(index)?.clone();
        let turn = card.changes.turn;
        let where_ = if remote { " on the host's machine" } else { "" };
        let missing = if file.binary {
            Some(format!(
                "a binary file ({} bytes): no text diff to show",
                file.size
            ))
        } else if file.diff_truncated {
            Some(format!(
                "this diff is too large to show here: `cohost diff --turn {turn}`{where_} shows it whole"
            ))
        } else if file.diff.as_deref().is_none_or(str::is_empty) {
            Some("no text diff for this file (only its mode or name changed)".into())
        } else {
            None
        };
        let diff = match (&missing, &file.diff) {
            (None, Some(d)) => ParsedDiff::parse(d),
            _ => ParsedDiff::default(),
        };
        let styled = styled_lines(&diff, language(&file.path), theme);
        let cursor = diff.code_line(0, true);
        Some(DiffView {
            block,
            index,
            count: card.len(),
            turn,
            file,
            diff,
            missing,
            cursor,
            top: 0,
            page: 10,
            comment: None,
            styled,
            rows: Rows::default(),
        })
    }

    /// Whether a comment is being typed.
    pub fn commenting(&self) -> bool {
        self.comment.is_some()
    }

    /// The cursor one line of code up (`-1`) or down (`1`).
    pub fn step(&mut self, down: bool) {
        let Some(c) = self.cursor else {
            self.top = if down {
                self.top + 1
            } else {
                self.top.saturating_sub(1)
            };
            return;
        };
        let next = if down {
            self.diff.code_line(c + 1, true)
        } else {
            c.checked_sub(1).and_then(|p| self.diff.code_line(p, false))
        };
        if let Some(n) = next {
            self.cursor = Some(n);
        } else if !down {
            // Above the first line of code: show the file's headers too.
            self.top = 0;
        }
    }

    /// A page down or up: the view and the cursor move a page of rows.
    pub fn page(&mut self, down: bool) {
        let by = self.page.saturating_sub(1).max(1);
        let shift = |r: usize| if down { r + by } else { r.saturating_sub(by) };
        self.top = shift(self.top);
        let Some(c) = self.cursor else {
            return;
        };
        let row = self.rows.starts.get(c).copied().unwrap_or(0);
        let last = self.rows.starts.len().saturating_sub(2);
        let line = self.line_at(shift(row)).min(last);
        let (near, far) = (
            self.diff.code_line(line, !down),
            self.diff.code_line(line, down),
        );
        self.cursor = near.or(far).or(self.cursor);
    }

    /// The first or last line.
    pub fn ends(&mut self, last: bool) {
        if last {
            self.top = usize::MAX;
            let end = self.diff.lines.len().saturating_sub(1);
            self.cursor = self.diff.code_line(end, false);
        } else {
            self.top = 0;
            self.cursor = self.diff.code_line(0, true);
        }
    }

    /// The diff line on row `row` (at the last layout's width): the last
    /// one starting there (hidden lines start where the next one does).
    fn line_at(&self, row: usize) -> usize {
        self.rows
            .starts
            .partition_point(|s| *s <= row)
            .saturating_sub(1)
    }

    /// Where a comment on the cursor's line points: the path, its line
    /// number and side, and the hunk holding it.
    pub fn target(&self) -> Option<(u64, bool, String)> {
        let c = self.cursor?;
        let (line, old) = self.diff.target(c)?;
        Some((line, old, self.diff.hunk_text(c)?))
    }

    /// Wrap every line at `width` (once per width).
    fn layout(&mut self, cols: usize) {
        if self.rows.width == cols && !self.rows.starts.is_empty() {
            return;
        }
        let mut rows = Vec::new();
        let mut starts = Vec::with_capacity(self.styled.len() + 1);
        let mut part = Vec::new();
        for s in &self.styled {
            starts.push(rows.len());
            if s.hidden {
                continue;
            }
            let gw: usize = s.gutter.iter().map(|g| width(&g.content)).sum();
            part.clear();
            wrap_into(&s.text, cols.saturating_sub(gw).max(8), &mut part);
            for (i, row) in part.drain(..).enumerate() {
                let mut spans = if i == 0 {
                    s.gutter.clone()
                } else if gw > 0 {
                    vec![Span::raw(" ".repeat(gw))]
                } else {
                    Vec::new()
                };
                spans.extend(row.spans);
                rows.push(Line::from(spans));
            }
        }
        starts.push(rows.len());
        self.rows = Rows {
            width: cols,
            rows,
            starts,
        };
    }

    /// Move `top` so the cursor's rows are in a window of `height`, and
    /// keep the window within the diff.
    fn reveal(&mut self, height: usize) {
        let total = self.rows.rows.len();
        if let Some(c) = self.cursor {
            let (start, end) = (self.rows.starts[c], self.rows.starts[c + 1]);
            if end > self.top.saturating_add(height) {
                self.top = end.saturating_sub(height);
            }
            if start < self.top {
                self.top = start;
            }
        }
        self.top = self.top.min(total.saturating_sub(height));
    }
}

/// Every line's gutter and text, highlighted: each hunk starts both sides'
/// highlighting afresh (what lies between hunks is unknown), context lines
/// move both on, added lines the new side, removed lines the old.
fn styled_lines(diff: &ParsedDiff, lang: &str, t: Theme) -> Vec<Styled> {
    let digits = |n: Option<u64>| n.map_or(1, |n| n.to_string().len());
    let nw = diff
        .lines
        .iter()
        .map(|l| digits(l.old).max(digits(l.new)))
        .max()
        .unwrap_or(1);
    let num = |n: Option<u64>| n.map_or_else(|| " ".repeat(nw), |n| format!("{n:>nw$}"));
    let mut old = CodeState::start(lang, t);
    let mut new = old.clone();
    let mut out = Vec::with_capacity(diff.lines.len());
    for l in &diff.lines {
        let text = untab(l.code());
        let (sign, sign_style, bg) = match l.kind {
            LineKind::Added => ("+", t.added(), t.added_bg()),
            LineKind::Removed => ("-", t.removed(), t.removed_bg()),
            _ => (" ", t.text(), Style::new()),
        };
        let gutter = vec![
            Span::raw(" "),
            Span::styled(format!("{} {} ", num(l.old), num(l.new)), t.dim()),
            Span::styled(format!("{sign} "), sign_style),
        ];
        let styled = match l.kind {
            LineKind::Header => Styled {
                hidden: ["diff --git ", "index ", "--- ", "+++ "]
                    .iter()
                    .any(|p| text.starts_with(p)),
                gutter: Vec::new(),
                text: Line::styled(text, t.dim()),
            },
            LineKind::Hunk => {
                old = CodeState::start(lang, t);
                new = old.clone();
                Styled {
                    gutter: Vec::new(),
                    text: Line::styled(text, t.hunk()),
                    hidden: false,
                }
            }
            LineKind::NoNewline => Styled {
                gutter: vec![Span::raw(" ".repeat(nw * 2 + 5))],
                text: Line::styled(text, t.dim()),
                hidden: false,
            },
            kind => {
                let side = if kind == LineKind::Removed {
                    &mut old
                } else {
                    &mut new
                };
                let code = if side.is_plain() {
                    // No grammar (or no colour): the line's own colour.
                    let style = match kind {
                        LineKind::Added => t.added(),
                        LineKind::Removed => t.removed(),
                        _ => t.text(),
                    };
                    Line::styled(text.clone(), style)
                } else {
                    let mut line = side
                        .lines(&format!("{text}\n"), Span::raw(""), t)
                        .into_iter()
                        .next()
                        .unwrap_or_default();
                    line.spans.retain(|s| !s.content.is_empty());
                    for s in &mut line.spans {
                        s.style = s.style.patch(bg);
                    }
                    line
                };
                if kind == LineKind::Context && !old.is_plain() {
                    // The old side reads the same line, to stay in step.
                    old.lines(&format!("{text}\n"), Span::raw(""), t);
                }
                Styled {
                    gutter,
                    text: code,
                    hidden: false,
                }
            }
        };
        out.push(styled);
    }
    out
}

/// Draw `v` over `area`; `comment_keys` says whether `c` comments here.
pub fn draw(frame: &mut Frame<'_>, v: &mut DiffView, t: Theme, area: Rect, comment_keys: bool) {
    frame.render_widget(Clear, area);
    let w = usize::from(area.width.saturating_sub(4));
    let title = truncate(
        &format!(
            "± turn {} · file {} of {} · {}",
            v.turn,
            v.index + 1,
            v.count,
            v.file.summary()
        ),
        w,
    );
    let keys = if v.commenting() {
        "type the comment below · Enter sends · Esc cancels"
    } else if comment_keys && v.cursor.is_some() {
        "↑↓ line · PgUp/PgDn · ←→ file · c comment · Esc close"
    } else {
        "↑↓ scroll · PgUp/PgDn · ←→ file · Esc close"
    };
    let block = Block::bordered()
        .border_style(t.accent())
        .title(Span::styled(format!(" {title} "), t.accent()))
        .title_bottom(Span::styled(format!(" {} ", truncate(keys, w)), t.dim()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(why) = &v.missing {
        frame.render_widget(
            Paragraph::new(Line::styled(why.clone(), t.warn())).wrap(Wrap { trim: false }),
            inner,
        );
        return;
    }
    let h = usize::from(inner.height);
    v.page = h;
    v.layout(usize::from(inner.width));
    v.reveal(h);
    let cursor_rows = v
        .cursor
        .map_or(0..0, |c| v.rows.starts[c]..v.rows.starts[c + 1]);
    let buf = frame.buffer_mut();
    for (i, row) in v.rows.rows.iter().skip(v.top).take(h).enumerate() {
        let y = inner.y + u16::try_from(i).unwrap_or(0);
        let r = v.top + i;
        if r == cursor_rows.start {
            // The cursor: a mark in the first column, the numbers reversed.
            let mut row = row.clone();
            if let Some(mark) = row.spans.first_mut() {
                *mark = Span::styled("▸", t.accent());
            }
            if let Some(nums) = row.spans.get_mut(1) {
                nums.style = t.selected();
            }
            buf.set_line(inner.x, y, &row, inner.width);
        } else {
            buf.set_line(inner.x, y, row, inner.width);
        }
    }
}
