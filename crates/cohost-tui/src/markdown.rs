//! Markdown (pulldown-cmark) to styled lines, unwrapped: one [`Line`] per
//! logical line, code blocks highlighted, tables laid out in columns, a
//! blank line between blocks.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::highlight::CodeState;
use crate::table::Table;
use crate::theme::Theme;

/// What rendering a piece of markdown gives.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The lines (not wrapped).
    pub lines: Vec<Line<'static>>,
    /// The highlighting state after the last code block, to carry on into
    /// the next piece of a fence that was cut open.
    pub code: Option<CodeState>,
    /// A table was fitted to the width: the lines change with it.
    pub width_bound: bool,
}

/// Render `src` as lines; tables fit in `width` columns.
pub fn render(src: &str, theme: Theme, width: usize) -> Vec<Line<'static>> {
    render_piece(src, theme, width, None).lines
}

/// Render one piece of a longer source: a first code block highlights on
/// from `carry` (the state where the previous piece of it ended).
pub fn render_piece(src: &str, theme: Theme, width: usize, carry: Option<CodeState>) -> Rendered {
    let mut r = Renderer::new(theme, width);
    r.carry = carry;
    for ev in Parser::new_ext(
        src,
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_TABLES,
    ) {
        r.event(ev);
    }
    r.flush();
    while r.out.last().is_some_and(|l| l.spans.is_empty()) {
        r.out.pop();
    }
    Rendered {
        lines: r.out,
        code: r.last_code,
        width_bound: r.width_bound,
    }
}

/// A code block being collected.
struct Code {
    lang: String,
    text: String,
    carry: Option<CodeState>,
}

struct Renderer {
    theme: Theme,
    out: Vec<Line<'static>>,
    line: Vec<Span<'static>>,
    styles: Vec<Style>,
    /// `None` for a bullet list, else the next number.
    lists: Vec<Option<u64>>,
    /// Set at an item's start: the marker to put before its first line.
    marker: Option<String>,
    quote: usize,
    code: Option<Code>,
    width: usize,
    /// For the first block, if it is a code block.
    carry: Option<CodeState>,
    last_code: Option<CodeState>,
    table: Option<Table>,
    width_bound: bool,
}

impl Renderer {
    fn new(theme: Theme, width: usize) -> Renderer {
        Renderer {
            theme,
            out: Vec::new(),
            line: Vec::new(),
            styles: vec![theme.text()],
            lists: Vec::new(),
            marker: None,
            quote: 0,
            code: None,
            width,
            carry: None,
            last_code: None,
            table: None,
            width_bound: false,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, f: impl FnOnce(Style) -> Style) {
        let s = f(self.style());
        self.styles.push(s);
    }

    fn prefix(&mut self) -> Vec<Span<'static>> {
        let mut p = Vec::new();
        if self.quote > 0 {
            p.push(Span::styled("│ ".repeat(self.quote), self.theme.dim()));
        }
        let depth = self.lists.len();
        match self.marker.take() {
            Some(m) => p.push(Span::styled(
                format!("{}{m}", "  ".repeat(depth.saturating_sub(1))),
                self.theme.accent(),
            )),
            None if depth > 0 => p.push(Span::raw("  ".repeat(depth))),
            None => {}
        }
        p
    }

    fn flush(&mut self) {
        if self.line.is_empty() && self.marker.is_none() {
            return;
        }
        let mut spans = self.prefix();
        spans.append(&mut self.line);
        self.out.push(Line::from(spans));
    }

    fn blank(&mut self) {
        self.flush();
        if self.out.last().is_some_and(|l| !l.spans.is_empty()) {
            self.out.push(Line::default());
        }
    }

    fn text(&mut self, t: &str) {
        let style = self.style();
        for (i, part) in t.split('\n').enumerate() {
            if i > 0 {
                self.flush();
            }
            if !part.is_empty() {
                self.line.push(Span::styled(part.to_string(), style));
            }
        }
    }

    fn event(&mut self, ev: Event<'_>) {
        if let Some(code) = &mut self.code {
            match ev {
                Event::Text(t) => return code.text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {}
                _ => return,
            }
        }
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => self
                .line
                .push(Span::styled(t.to_string(), self.theme.code())),
            Event::SoftBreak => self.line.push(Span::styled(" ", self.style())),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.blank();
                self.out
                    .push(Line::styled("─".repeat(24), self.theme.dim()));
                self.out.push(Line::default());
            }
            Event::TaskListMarker(done) => self.line.push(Span::styled(
                if done { "[x] " } else { "[ ] " },
                self.theme.accent(),
            )),
            Event::Html(t) | Event::InlineHtml(t) => {
                let dim = self.theme.dim();
                self.line.push(Span::styled(t.trim_end().to_string(), dim));
            }
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        let carry = self.carry.take();
        match tag {
            Tag::Paragraph => {}
            Tag::Heading { level, .. } => {
                self.blank();
                let hashes = match level {
                    HeadingLevel::H1 => "# ",
                    HeadingLevel::H2 => "## ",
                    _ => "### ",
                };
                self.line.push(Span::styled(hashes, self.theme.dim()));
                let accent = self.theme.accent();
                self.push_style(|s| s.patch(accent));
            }
            Tag::BlockQuote(_) => {
                self.blank();
                self.quote += 1;
                let dim = self.theme.dim();
                self.push_style(|s| s.patch(dim).add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.blank();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code {
                    lang,
                    text: String::new(),
                    carry,
                });
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.marker = Some(marker);
            }
            Tag::Emphasis => self.push_style(|s| s.add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(|s| s.add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(|s| s.add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { .. } | Tag::Image { .. } => {
                self.push_style(|s| s.add_modifier(Modifier::UNDERLINED));
            }
            Tag::Table(aligns) => {
                self.blank();
                self.table = Some(Table::new(aligns));
            }
            Tag::TableHead => {
                self.push_style(|s| s.add_modifier(Modifier::BOLD));
                if let Some(t) = &mut self.table {
                    t.row();
                }
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.row();
                }
            }
            Tag::TableCell => self.line.clear(),
            _ => {}
        }
    }

    /// Lay the finished table out in the width left after the prefix.
    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let prefix = 2 * self.quote + 2 * self.lists.len();
        let width = self.width.saturating_sub(prefix).max(8);
        self.width_bound = true;
        for row in table.layout(width, self.theme) {
            self.line = row;
            self.flush();
        }
        self.blank();
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.flush();
                }
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.blank();
            }
            TagEnd::BlockQuote(_) => {
                self.styles.pop();
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.blank();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    let mut gutter = self.prefix();
                    gutter.push(Span::styled("▏ ", self.theme.dim()));
                    let g = Span::raw(
                        gutter
                            .iter()
                            .map(|s| s.content.as_ref())
                            .collect::<String>(),
                    );
                    let g = g.style(self.theme.dim());
                    let mut state = code
                        .carry
                        .unwrap_or_else(|| CodeState::start(&code.lang, self.theme));
                    self.out.extend(state.lines(&code.text, g, self.theme));
                    self.last_code = Some(state);
                    self.blank();
                }
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank();
                }
            }
            TagEnd::Item => self.flush(),
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.line);
                if let Some(t) = &mut self.table {
                    t.cell(cell);
                }
            }
            TagEnd::TableHead => {
                self.styles.pop();
            }
            TagEnd::Table => self.end_table(),
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Link
            | TagEnd::Image => {
                self.styles.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(src: &str) -> Vec<String> {
        render(src, Theme::new(false), 80)
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn blocks_lists_and_code() {
        let src = "# Title\n\nSome *text* and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n```rust\nfn x() {}\n```\n\n> quoted\n";
        assert_eq!(
            plain(src),
            [
                "# Title",
                "",
                "Some text and code.",
                "",
                "• one",
                "• two",
                "",
                "1. first",
                "2. second",
                "",
                "▏ fn x() {}",
                "",
                "│ quoted",
            ]
        );
    }

    #[test]
    fn styles_reach_the_spans() {
        let lines = render("**bold** _it_", Theme::new(false), 80);
        let bold = &lines[0].spans[0];
        assert_eq!(bold.content, "bold");
        assert!(bold.style.add_modifier.contains(Modifier::BOLD));
    }
}
