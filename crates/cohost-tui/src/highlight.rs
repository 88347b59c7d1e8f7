//! Code blocks highlighted by syntect (Sublime Text grammars, pure-Rust
//! regex engine). The grammar and theme dumps load once, on the first code
//! block, not at start-up.

use std::sync::OnceLock;

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme as SynTheme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::LinesWithEndings;

use crate::theme::Theme;

struct Assets {
    syntaxes: SyntaxSet,
    theme: SynTheme,
}

fn assets() -> Option<&'static Assets> {
    static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();
    ASSETS
        .get_or_init(|| {
            let syntaxes = SyntaxSet::load_defaults_newlines();
            let mut themes = ThemeSet::load_defaults();
            let theme = themes.themes.remove("base16-eighties.dark")?;
            Some(Assets { syntaxes, theme })
        })
        .as_ref()
}

/// The lines of `code` in `lang` (a fence's info word: `rust`, `py`, `sh`…),
/// each starting with `gutter`. Unknown languages and `NO_COLOR` give plain
/// lines in the code style.
pub fn code_lines(
    code: &str,
    lang: &str,
    gutter: Span<'static>,
    theme: Theme,
) -> Vec<Line<'static>> {
    let plain = |l: &str| {
        Line::from(vec![
            gutter.clone(),
            Span::styled(l.to_string(), theme.code()),
        ])
    };
    let lines = || code.lines();
    if !theme.color() || lang.is_empty() {
        return lines().map(plain).collect();
    }
    let Some(a) = assets() else {
        return lines().map(plain).collect();
    };
    let Some(syntax) = a
        .syntaxes
        .find_syntax_by_token(lang)
        .or_else(|| a.syntaxes.find_syntax_by_extension(lang))
    else {
        return lines().map(plain).collect();
    };
    let mut h = HighlightLines::new(syntax, &a.theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        let Ok(ranges) = h.highlight_line(line, &a.syntaxes) else {
            out.push(plain(line.trim_end_matches(['\n', '\r'])));
            continue;
        };
        let mut spans = vec![gutter.clone()];
        for (style, text) in ranges {
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                continue;
            }
            let fg = style.foreground;
            spans.push(Span::styled(
                text.to_string(),
                Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b)),
            ));
        }
        out.push(Line::from(spans));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_is_coloured_and_no_color_is_not() {
        let code = "fn main() {\n    let x = 1;\n}\n";
        let lines = code_lines(code, "rust", Span::raw("| "), Theme::new(true));
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1].to_string(), "|     let x = 1;");
        let colours: std::collections::HashSet<_> = lines
            .iter()
            .flat_map(|l| l.spans.iter().filter_map(|s| s.style.fg))
            .collect();
        assert!(colours.len() > 1, "keywords and names differ: {colours:?}");
        let plain = code_lines(code, "rust", Span::raw("| "), Theme::new(false));
        assert!(plain
            .iter()
            .flat_map(|l| &l.spans)
            .all(|s| s.style.fg.is_none()));
    }
}
