//! Styled lines wrapped to a width, word by word: the transcript pre-wraps
//! its rows so it knows their count and draws only the visible ones.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// Append `line` wrapped at `width` columns to `out` (at least one row).
/// Breaks after a space when the row has one, else mid-word.
pub fn wrap_into(line: &Line<'_>, width: usize, out: &mut Vec<Line<'static>>) {
    let width = width.max(1);
    let mut row: Vec<(char, Style)> = Vec::new();
    let mut row_w = 0usize;
    // Index in `row` just after the last space, for word breaks.
    let mut last_space: Option<usize> = None;
    for span in &line.spans {
        let style = line.style.patch(span.style);
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if row_w + w > width && !row.is_empty() && c == ' ' {
                // The break falls on this space: it is not drawn.
                out.push(to_line(&row));
                row.clear();
                row_w = 0;
                last_space = None;
                continue;
            }
            if row_w + w > width && !row.is_empty() {
                let carry = match last_space {
                    Some(i) if i < row.len() => row.split_off(i),
                    Some(_) => Vec::new(),
                    None => Vec::new(),
                };
                let full = last_space.is_some();
                // The space the break happens at is not drawn.
                while full && row.last().is_some_and(|(c, _)| *c == ' ') {
                    row.pop();
                }
                out.push(to_line(&row));
                row = carry;
                row_w = row.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
                last_space = None;
                if c == ' ' && row.is_empty() {
                    continue;
                }
            }
            row.push((c, style));
            row_w += w;
            if c == ' ' {
                last_space = Some(row.len());
            }
        }
    }
    out.push(to_line(&row));
}

/// Merge runs of one style into spans.
fn to_line(chars: &[(char, Style)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut cur = String::new();
    let mut cur_style: Option<Style> = None;
    for (c, s) in chars {
        if cur_style != Some(*s) {
            if let Some(style) = cur_style {
                spans.push(Span::styled(std::mem::take(&mut cur), style));
            }
            cur_style = Some(*s);
        }
        cur.push(*c);
    }
    if let Some(style) = cur_style {
        spans.push(Span::styled(cur, style));
    }
    Line::from(spans)
}

/// The width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `s` cut to `max` columns, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// `s` cut to `max` columns from the start, with `…` first when cut: a
/// path keeps its file name.
pub fn truncate_start(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut w = 0;
    for c in s.chars().rev() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > max {
            break;
        }
        kept.push(c);
        w += cw;
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_at_spaces_then_mid_word() {
        let mut out = Vec::new();
        wrap_into(&Line::from("hello brave new world"), 11, &mut out);
        assert_eq!(texts(&out), ["hello brave", "new world"]);
        let mut out = Vec::new();
        wrap_into(&Line::from("abcdefghij"), 4, &mut out);
        assert_eq!(texts(&out), ["abcd", "efgh", "ij"]);
        let mut out = Vec::new();
        wrap_into(&Line::from(""), 4, &mut out);
        assert_eq!(texts(&out), [""]);
    }

    #[test]
    fn wide_characters_count_double() {
        let mut out = Vec::new();
        wrap_into(&Line::from("日本語です"), 4, &mut out);
        assert_eq!(texts(&out), ["日本", "語で", "す"]);
        assert_eq!(truncate("日本語です", 5), "日本…");
        assert_eq!(truncate_start("日本語です", 5), "…です");
        assert_eq!(truncate_start("src/lib.rs", 8), "…/lib.rs");
        assert_eq!(truncate_start("lib.rs", 8), "lib.rs");
    }
}
