//! A room's member tabs: the "all" tab (every member's blocks interleaved
//! under their headings, as a room always showed) and one tab per member
//! (its own blocks, and the conversation's notices). The tab on screen is
//! the member plain text goes to and Esc interrupts; Ctrl+C twice
//! interrupts every member. One agent: no tabs, nothing here applies.
//!
//! Why an "all" tab as well as one per member: `/compare` and a handoff
//! are read across members, and the interleaved view is what the room
//! showed before tabs existed (so a room opens on it, unchanged).

use std::time::{Duration, Instant};

use cohost_core::room::addressed;
use cohost_core::sanitize::inert_line;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use crate::app::{App, Effect};
use crate::commands::Mode;
use crate::member_state::{APPROVAL, CRASHED, IDLE, INTERRUPTING};
use crate::wrap::width;

/// How soon a second Ctrl+C must follow the first to interrupt every
/// member rather than quit or do nothing.
pub const INTERRUPT_ALL_WITHIN: Duration = Duration::from_secs(2);

/// The most members Alt+digit reaches (Alt+0 is the "all" tab).
const DIGITS: usize = 9;

impl App {
    /// The room's member names in tab order (empty outside a room).
    pub fn member_names(&self) -> &[String] {
        if self.members.is_room() {
            &self.members.names
        } else {
            &[]
        }
    }

    /// The member whose tab is on screen (`None`: the "all" tab, or no
    /// room).
    pub fn viewed_member(&self) -> Option<&str> {
        self.members.view.as_deref()
    }

    /// The member plain text goes to and Esc interrupts (`None` outside a
    /// room).
    pub fn target_member(&self) -> Option<&str> {
        if self.members.is_room() {
            self.members.target()
        } else {
            None
        }
    }

    /// What member `name` is doing, as its tab says it: `streaming`,
    /// `waiting for approval`, `interrupting`, `idle`, or `crashed` (its
    /// agent died in its last turn; its next prompt starts it again).
    pub fn member_state(&self, name: &str) -> &'static str {
        match self.members.state(name) {
            IDLE => "idle",
            s => s,
        }
    }

    /// Show member `view`'s tab (`None`: "all"); a member's tab addresses
    /// it, and its approval, if one waits, comes to the front.
    pub(crate) fn show_tab(&mut self, view: Option<String>) {
        if let Some(v) = &view {
            self.members.target = Some(v.clone());
            let mine = |c: &crate::app::ApprovalCard| c.agent.as_deref() == Some(v.as_str());
            if !self.approval.as_ref().is_some_and(mine) {
                if let Some(i) = self.members.waiting.iter().position(mine) {
                    if let Some(card) = self.members.waiting.remove(i) {
                        if let Some(shown) = self.approval.replace(card) {
                            self.members.waiting.push_front(shown);
                        }
                    }
                }
            }
        }
        if view.is_none() {
            // "all" is one column: side by side ends.
            self.members.split = false;
        }
        self.members.view = view.clone();
        self.transcript.set_view(view);
        self.scroll = 0;
        // A file picked in another tab's changes may not be on this one.
        self.set_focus(None);
    }

    /// The card to show once the one on screen is answered: the next
    /// waiting, the shown member's first.
    pub(crate) fn next_card(&mut self) {
        if self.approval.is_some() {
            return;
        }
        let w = &mut self.members.waiting;
        let i = self
            .members
            .view
            .as_deref()
            .and_then(|v| w.iter().position(|c| c.agent.as_deref() == Some(v)))
            .unwrap_or(0);
        self.approval = w.remove(i);
    }

    /// Tab, Shift+Tab and Alt+digit in a room: true when the key switched
    /// tabs.
    pub(crate) fn tab_key(&mut self, key: KeyEvent) -> bool {
        if !self.members.is_room() {
            return false;
        }
        let n = self.members.names.len();
        // Tab 0 is "all", tab i the i-th member.
        let at = self
            .members
            .view
            .as_ref()
            .and_then(|v| self.members.names.iter().position(|m| m == v))
            .map_or(0, |i| i + 1);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let to = match key.code {
            // Tab completes a `/` command first.
            KeyCode::Tab if self.completions().is_empty() => (at + 1) % (n + 1),
            KeyCode::BackTab => (at + n) % (n + 1),
            KeyCode::Char(c) if alt && c.is_ascii_digit() => {
                let d = usize::from(c as u8 - b'0');
                if d > n || d > DIGITS {
                    // No such tab: nothing (not a digit in the input).
                    return true;
                }
                d
            }
            _ => return false,
        };
        let view = to
            .checked_sub(1)
            .and_then(|i| self.members.names.get(i))
            .cloned();
        self.show_tab(view);
        true
    }

    /// A prompt typed in a room: plain text in a member's tab goes to
    /// that member (`@NAME TEXT` to NAME, whose tab comes up when a
    /// member's tab is on screen). Returns the text for the shell (which
    /// sends plain text to the member last addressed, so a tab's member
    /// is named) and the block's `who`.
    pub(crate) fn address(&mut self, text: &str) -> (String, String, Option<String>) {
        if let Some((name, _)) = addressed(text) {
            if self.members.names.iter().any(|n| n == name) {
                let name = name.to_owned();
                self.members.target = Some(name.clone());
                if self.members.view.is_some() {
                    self.show_tab(Some(name.clone()));
                }
                let who = format!("you → {}", inert_line(&name));
                return (text.to_owned(), who, Some(name));
            }
            // Not a member: the shell says so.
            return (text.to_owned(), "you".into(), None);
        }
        match self.members.view.clone() {
            Some(v) => {
                let who = format!("you → {}", inert_line(&v));
                (format!("@{v} {text}"), who, Some(v))
            }
            None => {
                let t = self.members.target().map(str::to_owned);
                let who = match &t {
                    Some(t) => format!("you → {}", inert_line(t)),
                    None => "you".into(),
                };
                (text.to_owned(), who, t)
            }
        }
    }

    /// A prompt block that belongs to `member`'s tab (`None`: every tab).
    pub(crate) fn prompted_to(&mut self, who: &str, text: &str, member: Option<&str>) {
        let from = self.transcript.blocks().len();
        self.prompted(who, text);
        if let Some(m) = member {
            self.transcript.tag(from, m);
        }
    }

    /// Esc in a room: interrupt the member addressed, only it.
    pub(crate) fn interrupt_target(&mut self) {
        let Some(t) = self.members.target().map(str::to_owned) else {
            return;
        };
        if self.members.idle(&t) {
            self.hint = Some(format!(
                "{} is idle · Ctrl+C twice interrupts every member",
                inert_line(&t)
            ));
            return;
        }
        self.members.states.insert(t.clone(), INTERRUPTING);
        self.effect(Effect::InterruptMember(t));
    }

    /// Ctrl+C in a busy room: the member addressed, then (pressed again
    /// within [`INTERRUPT_ALL_WITHIN`]) every member.
    pub(crate) fn room_ctrl_c(&mut self, now: Instant) {
        let armed = self
            .members
            .interrupt_armed
            .take()
            .is_some_and(|at| now.saturating_duration_since(at) <= INTERRUPT_ALL_WITHIN);
        if armed {
            for s in self.members.states.values_mut() {
                if !matches!(*s, IDLE | CRASHED) {
                    *s = INTERRUPTING;
                }
            }
            self.hint = Some("interrupting every member".into());
            return self.effect(Effect::Interrupt);
        }
        let target = self.members.target().map(inert_line).unwrap_or_default();
        let idle = self.members.target().is_none_or(|t| self.members.idle(t));
        self.interrupt_target();
        self.hint = Some(if idle {
            format!("{target} is idle · Ctrl+C again interrupts every member")
        } else {
            format!("interrupting {target} · Ctrl+C again interrupts every member")
        });
        self.members.interrupt_armed = Some(now);
    }

    /// Whether Esc and Ctrl+C act on one member of a room here (the host
    /// and the chat; a co-driver asks the host to stop the turn).
    pub(crate) fn interrupts_members(&self) -> bool {
        self.members.is_room() && matches!(self.mode, Mode::Chat | Mode::Host)
    }
}

/// One tab's label: `1 mock ● streaming`.
pub(crate) fn label(
    app: &App,
    i: usize,
    name: &str,
    words: bool,
) -> (String, ratatui::style::Style) {
    let t = app.theme;
    let state = app.members.state(name);
    let (icon, word, style) = match state {
        IDLE => ("○", "idle", t.dim()),
        CRASHED => ("✗", "crashed", t.error()),
        APPROVAL => ("⚑", "approval", t.warn()),
        INTERRUPTING => ("■", "stopping", t.warn()),
        _ => ("●", "streaming", t.ok()),
    };
    let name = inert_line(name);
    let text = if words {
        format!("{} {name} {icon} {word}", i + 1)
    } else {
        format!("{} {name} {icon}", i + 1)
    };
    (text, style)
}

/// The tab bar: `[all]  1 mock ● streaming  2 mock#2 ⚑ approval`, the tab
/// on screen in brackets (and reversed), a member's waiting approval
/// marked `⚑` in its tab whichever tab is on screen.
pub(crate) fn draw_tabs(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let t = app.theme;
    let names = &app.members.names;
    let avail = usize::from(area.width);
    let keys = format!("Tab · Alt+0..{}", names.len().min(DIGITS));
    let build = |words: bool| -> Vec<(String, ratatui::style::Style, bool)> {
        let mut tabs = vec![("all".to_owned(), t.text(), app.members.view.is_none())];
        for (i, n) in names.iter().enumerate() {
            let (text, style) = label(app, i, n, words);
            tabs.push((text, style, app.members.view.as_deref() == Some(n.as_str())));
        }
        tabs
    };
    let wide = |tabs: &[(String, ratatui::style::Style, bool)]| -> usize {
        tabs.iter().map(|(s, _, _)| width(s) + 2).sum::<usize>()
    };
    let mut tabs = build(true);
    if wide(&tabs) > avail {
        // Narrow: the icons say the state.
        tabs = build(false);
    }
    let mut spans: Vec<Span<'_>> = Vec::new();
    for (text, style, on) in tabs {
        if on {
            spans.push(Span::styled(format!("[{text}]"), style.patch(t.selected())));
        } else {
            spans.push(Span::styled(format!(" {text} "), style));
        }
    }
    let used: usize = spans.iter().map(|s| width(&s.content)).sum();
    if used + width(&keys) + 2 <= avail {
        let pad = avail - used - width(&keys) - 1;
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(keys, t.dim()));
    }
    frame
        .buffer_mut()
        .set_line(area.x, area.y, &Line::from(spans), area.width);
}
