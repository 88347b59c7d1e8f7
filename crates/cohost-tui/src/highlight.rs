//! Code blocks highlighted by syntect (Sublime Text grammars, pure-Rust
//! regex engine). The grammar and theme dumps load once, on the first code
//! block, not at start-up. A block rendered in pieces (a long fence streamed
//! in batches) carries its parser's state from one piece to the next
//! ([`CodeState`]), so a string or comment open across a cut stays one.

use std::sync::OnceLock;

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{
    HighlightIterator, HighlightState, Highlighter, Theme as SynTheme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};
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

/// Where a code block's highlighting stands after its last line so far:
/// the grammar's parse state and the theme's scope state. `None` inside
/// means plain (no colour, no grammar for the language, `NO_COLOR`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeState(Option<(ParseState, HighlightState)>);

impl CodeState {
    /// The state at the start of a block in `lang` (a fence's info word:
    /// `rust`, `py`, `sh`…).
    pub fn start(lang: &str, theme: Theme) -> CodeState {
        if !theme.color() || lang.is_empty() {
            return CodeState(None);
        }
        let Some(a) = assets() else {
            return CodeState(None);
        };
        let Some(syntax) = a
            .syntaxes
            .find_syntax_by_token(lang)
            .or_else(|| a.syntaxes.find_syntax_by_extension(lang))
        else {
            return CodeState(None);
        };
        let hl = Highlighter::new(&a.theme);
        CodeState(Some((
            ParseState::new(syntax),
            HighlightState::new(&hl, ScopeStack::new()),
        )))
    }

    /// Whether lines come out plain (no grammar, or no colour).
    pub fn is_plain(&self) -> bool {
        self.0.is_none()
    }

    /// The lines of `code`, each starting with `gutter`, highlighted from
    /// this state on (which moves past them).
    pub fn lines(&mut self, code: &str, gutter: Span<'static>, theme: Theme) -> Vec<Line<'static>> {
        let plain = |l: &str| {
            Line::from(vec![
                gutter.clone(),
                Span::styled(l.to_string(), theme.code()),
            ])
        };
        let (Some((parse, high)), Some(a)) = (self.0.as_mut(), assets()) else {
            return code.lines().map(plain).collect();
        };
        let hl = Highlighter::new(&a.theme);
        let mut out = Vec::new();
        for line in LinesWithEndings::from(code) {
            let Ok(ops) = parse.parse_line(line, &a.syntaxes) else {
                out.push(plain(line.trim_end_matches(['\n', '\r'])));
                continue;
            };
            let mut spans = vec![gutter.clone()];
            for (style, text) in HighlightIterator::new(high, &ops, line, &hl) {
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
}

/// The lines of a whole block of `code` in `lang`, each starting with
/// `gutter`. Unknown languages and `NO_COLOR` give plain lines in the code
/// style.
pub fn code_lines(
    code: &str,
    lang: &str,
    gutter: Span<'static>,
    theme: Theme,
) -> Vec<Line<'static>> {
    CodeState::start(lang, theme).lines(code, gutter, theme)
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
