//! Colours, or none: `NO_COLOR` (any non-empty value) turns every colour
//! off and leaves only bold, dim, italic and reverse.

use ratatui::style::{Color, Modifier, Style};

/// The styles the screens use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// Colours unless `NO_COLOR` is set to a non-empty value (no-color.org).
    pub fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    /// A theme with or without colours (tests pin one).
    pub fn new(color: bool) -> Theme {
        Theme { color }
    }

    /// Whether colours are drawn (code highlighting follows).
    pub fn color(self) -> bool {
        self.color
    }

    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }

    /// Plain text.
    pub fn text(self) -> Style {
        Style::new()
    }
    /// Secondary text: hints, separators, reasoning.
    pub fn dim(self) -> Style {
        self.fg(Color::DarkGray).add_modifier(Modifier::DIM)
    }
    /// Titles and the user's own prompts.
    pub fn accent(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    /// Success.
    pub fn ok(self) -> Style {
        self.fg(Color::Green)
    }
    /// Waiting on someone (approvals, suggestions).
    pub fn warn(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    /// Errors and denials.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// An added line or count in a diff.
    pub fn added(self) -> Style {
        self.fg(Color::Green)
    }
    /// A removed line or count in a diff.
    pub fn removed(self) -> Style {
        self.fg(Color::Red)
    }
    /// A diff's hunk header (`@@ -1,3 +1,4 @@`).
    pub fn hunk(self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }
    /// The background of an added line whose code is highlighted (the
    /// code keeps its colours, the line still reads as added).
    pub fn added_bg(self) -> Style {
        if self.color {
            Style::new().bg(Color::Rgb(0, 48, 0))
        } else {
            Style::new()
        }
    }
    /// The background of a removed, highlighted line.
    pub fn removed_bg(self) -> Style {
        if self.color {
            Style::new().bg(Color::Rgb(64, 0, 0))
        } else {
            Style::new()
        }
    }
    /// Inline code.
    pub fn code(self) -> Style {
        if self.color {
            Style::new().fg(Color::LightYellow)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }
    /// The status line.
    pub fn status(self) -> Style {
        if self.color {
            Style::new().bg(Color::DarkGray).fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }
    /// A selected item in a list.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }
}
