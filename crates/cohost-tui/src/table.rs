//! Markdown tables laid out in aligned columns: each column as wide as its
//! widest cell, the widest columns narrowed (cells cut with `…`) until the
//! table fits the width, so a table never wraps into a jumble.

use pulldown_cmark::Alignment;
use ratatui::text::Span;
use unicode_width::UnicodeWidthChar;

use crate::theme::Theme;
use crate::wrap::width as text_width;

/// Between two columns.
const SEP: &str = " │ ";
/// A column is not narrowed below this (or its natural width).
const MIN_COL: usize = 3;

/// A table being collected: rows of cells, each cell its styled spans.
#[derive(Debug, Clone, Default)]
pub struct Table {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
}

fn cell_width(cell: &[Span<'_>]) -> usize {
    cell.iter().map(|s| text_width(&s.content)).sum()
}

/// `cell` cut to `w` columns (the last one `…` when cut).
fn cut(cell: &[Span<'static>], w: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    let budget = w.saturating_sub(1);
    for s in cell {
        let mut text = String::new();
        for c in s.content.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > budget {
                text.push('…');
                out.push(Span::styled(text, s.style));
                return out;
            }
            used += cw;
            text.push(c);
        }
        out.push(Span::styled(text, s.style));
    }
    out
}

/// `cell` in exactly `w` columns, aligned.
fn fit(cell: &[Span<'static>], w: usize, align: Alignment) -> Vec<Span<'static>> {
    let have = cell_width(cell);
    if have > w {
        return cut(cell, w);
    }
    let gap = w - have;
    let (left, right) = match align {
        Alignment::Right => (gap, 0),
        Alignment::Center => (gap / 2, gap - gap / 2),
        Alignment::Left | Alignment::None => (0, gap),
    };
    let mut out = Vec::with_capacity(cell.len() + 2);
    if left > 0 {
        out.push(Span::raw(" ".repeat(left)));
    }
    out.extend(cell.iter().cloned());
    if right > 0 {
        out.push(Span::raw(" ".repeat(right)));
    }
    out
}

/// Column widths: natural, then the widest narrowed one column at a time
/// until the row fits `width` (or every column is at its minimum).
fn widths(natural: &[usize], width: usize) -> Vec<usize> {
    let mut w = natural.to_vec();
    let seps = SEP.chars().count() * w.len().saturating_sub(1);
    let mut total: usize = w.iter().sum::<usize>() + seps;
    while total > width {
        let widest = w
            .iter()
            .enumerate()
            .filter(|(i, c)| **c > MIN_COL.min(natural[*i]))
            .max_by_key(|(_, c)| **c)
            .map(|(i, _)| i);
        let Some(i) = widest else { break };
        w[i] -= 1;
        total -= 1;
    }
    w
}

impl Table {
    /// A table whose columns align as `aligns` says.
    pub fn new(aligns: Vec<Alignment>) -> Table {
        Table {
            aligns,
            rows: Vec::new(),
        }
    }

    /// Start a row (the head is the first).
    pub fn row(&mut self) {
        self.rows.push(Vec::new());
    }

    /// Add a cell to the current row.
    pub fn cell(&mut self, spans: Vec<Span<'static>>) {
        if self.rows.is_empty() {
            self.row();
        }
        if let Some(r) = self.rows.last_mut() {
            r.push(spans);
        }
    }

    /// The table's lines in at most `width` columns: the head, a rule,
    /// the body.
    pub fn layout(&self, width: usize, theme: Theme) -> Vec<Vec<Span<'static>>> {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return Vec::new();
        }
        let mut natural = vec![1; cols];
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                natural[i] = natural[i].max(cell_width(c));
            }
        }
        let w = widths(&natural, width);
        let empty = Vec::new();
        let mut out = Vec::with_capacity(self.rows.len() + 1);
        for (r, row) in self.rows.iter().enumerate() {
            let mut line = Vec::new();
            for (i, cw) in w.iter().enumerate() {
                if i > 0 {
                    line.push(Span::styled(SEP, theme.dim()));
                }
                let align = self.aligns.get(i).copied().unwrap_or(Alignment::None);
                line.extend(fit(row.get(i).unwrap_or(&empty), *cw, align));
            }
            // Still too wide (many narrow columns): cut the row itself.
            if cell_width(&line) > width {
                line = cut(&line, width);
            }
            out.push(line);
            if r == 0 {
                let rule: Vec<String> = w.iter().map(|cw| "─".repeat(*cw)).collect();
                let mut rule = rule.join("─┼─");
                if text_width(&rule) > width {
                    rule = rule.chars().take(width).collect();
                }
                out.push(vec![Span::styled(rule, theme.dim())]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(src: &str, width: usize) -> Vec<String> {
        crate::markdown::render(src, Theme::new(false), width)
            .iter()
            .map(|l| l.to_string())
            .collect()
    }

    #[test]
    fn columns_align_as_the_header_says() {
        let src = "| name | role | n |\n|:-----|:----:|--:|\n| ada | co-driver | 1 |\n| bob | viewer | 12 |\n";
        assert_eq!(
            plain(src, 80),
            [
                "name │   role    │  n",
                "─────┼───────────┼───",
                "ada  │ co-driver │  1",
                "bob  │  viewer   │ 12",
            ]
        );
    }

    #[test]
    fn a_wide_table_is_narrowed_to_the_width() {
        let long = "x".repeat(120);
        let src = format!("| key | value |\n|---|---|\n| a | {long} |\n| b | short |\n");
        let rows = plain(&src, 40);
        assert!(rows.iter().all(|r| text_width(r) <= 40), "{rows:?}");
        assert_eq!(rows[2], format!("a   │ {}…", "x".repeat(33)));
        assert_eq!(rows[3].trim_end(), "b   │ short");
        // Every row has its separator in the same column.
        let col = |r: &str| r.chars().position(|c| c == '│' || c == '┼');
        assert!(rows.iter().all(|r| col(r) == Some(4)), "{rows:?}");
    }

    #[test]
    fn cells_keep_their_inline_styles() {
        let lines = crate::markdown::render("| a |\n|---|\n| **b** |\n", Theme::new(false), 80);
        let bold = lines[2].spans.iter().find(|s| s.content == "b").unwrap();
        assert!(bold
            .style
            .add_modifier
            .contains(ratatui::style::Modifier::BOLD));
    }
}
