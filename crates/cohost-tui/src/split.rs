//! `/split`: a room's members side by side, each column a member's tab
//! (its title, its blocks), up to three at once. Every column has the
//! same width, so the transcript's rows, wrapped once per width, serve
//! them all; a screen too narrow for columns of [`MIN_COLUMN`] keeps
//! the tabs.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use crate::app::App;
use crate::commands::Mode;

/// The fewest columns a member's column may have.
pub(crate) const MIN_COLUMN: u16 = 30;
/// The most members side by side.
pub(crate) const MAX_COLUMNS: usize = 3;

impl App {
    /// `/split`: members side by side, or back to tabs.
    pub(crate) fn toggle_split(&mut self) {
        if !self.members.is_room() {
            return self.notice("/split shows a room's members side by side: /add an agent first");
        }
        self.members.split = !self.members.split;
        if self.members.split {
            // Side by side, a member is always the one addressed.
            if self.members.view.is_none() {
                let first = self.members.target().map(str::to_owned);
                self.show_tab(first);
            }
            self.notice(match self.mode {
                Mode::Participant { .. } => "side by side (/split again: tabs)",
                _ => "side by side: text goes to the column in brackets, Tab moves it (/split again: tabs)",
            });
        } else {
            self.notice("tabs again");
        }
    }

    /// Whether the room is shown side by side.
    pub fn split(&self) -> bool {
        self.members.split && self.members.is_room()
    }
}

/// The members shown side by side: at most [`MAX_COLUMNS`], the one
/// addressed among them.
fn columns(app: &App) -> Vec<(usize, String)> {
    let names = &app.members.names;
    let at = app
        .members
        .target()
        .and_then(|t| names.iter().position(|n| n == t))
        .unwrap_or(0);
    let from = at
        .saturating_sub(MAX_COLUMNS - 1)
        .min(names.len().saturating_sub(MAX_COLUMNS));
    names
        .iter()
        .cloned()
        .enumerate()
        .skip(from)
        .take(MAX_COLUMNS)
        .collect()
}

/// Draw the members side by side in `area`; false (nothing drawn) when
/// the columns would be narrower than [`MIN_COLUMN`].
pub(crate) fn draw_split(frame: &mut Frame<'_>, app: &mut App, area: Rect) -> bool {
    let cols = columns(app);
    let n = u16::try_from(cols.len()).unwrap_or(1).max(1);
    // Columns of equal width, one separator column between two.
    let w = (area.width + 1) / n;
    if w.saturating_sub(1) < MIN_COLUMN || area.height < 3 {
        return false;
    }
    let w = w - 1;
    let h = area.height - 1;
    let theme = app.theme;
    let view = app.members.view.clone();
    let target = app.members.target().map(str::to_owned);
    app.page = usize::from(h);
    // One width for every column (a space each side of a separator).
    let text_w = w.saturating_sub(2).max(1);
    app.transcript.layout(usize::from(text_w), theme);
    for (k, (i, name)) in cols.iter().enumerate() {
        let x = area.x + u16::try_from(k).unwrap_or(0) * (w + 1);
        let left = x + u16::from(k > 0);
        let on = target.as_deref() == Some(name.as_str());
        let (text, style) = crate::tabs::label(app, *i, name, true);
        let title = if on {
            Span::styled(format!("[{text}]"), style.patch(theme.selected()))
        } else {
            Span::styled(format!(" {text} "), style)
        };
        let buf = frame.buffer_mut();
        buf.set_line(left, area.y, &Line::from(title), text_w + 1);
        app.transcript.set_view(Some(name.clone()));
        // The addressed column scrolls with PgUp/PgDn, the others follow.
        let scroll = if on { app.scroll } else { 0 };
        let (rows, clamped) = app.transcript.window(usize::from(h), scroll);
        let top = area.y + 1 + h - u16::try_from(rows.len()).unwrap_or(h).min(h);
        let buf = frame.buffer_mut();
        for (r, line) in rows.iter().enumerate() {
            let y = top + u16::try_from(r).unwrap_or(0);
            buf.set_line(left, y, line, text_w);
        }
        if on {
            app.scroll = clamped;
        }
        if k + 1 < cols.len() {
            for y in area.y..area.y + area.height {
                buf.set_string(x + w, y, "│", theme.dim());
            }
        }
    }
    app.transcript.set_view(view);
    true
}
