//! Drawing the app: transcript, the room pane, the approval card, the
//! input box with its completions, the status line, the agent picker.
//! Works on any ratatui backend (tests use `TestBackend`).

use std::time::{Duration, Instant};

use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::app::App;
use crate::commands::Mode;
use crate::wrap::{truncate, width};

/// The room pane's width, when the screen is wide enough for it.
const PANE: u16 = 32;
/// Input rows shown at most (it scrolls beyond).
const INPUT_ROWS: u16 = 6;

/// Draw the whole screen.
pub fn draw(frame: &mut Frame<'_>, app: &mut App, now: Instant) {
    let area = frame.area();
    let comment = app.diff.as_ref().and_then(|d| d.comment.as_ref());
    let typed = comment.unwrap_or(&app.input).text();
    let input_lines = u16::try_from(typed.split('\n').count()).unwrap_or(INPUT_ROWS);
    let input_h = input_lines.clamp(1, INPUT_ROWS) + 2;
    let card_h = if app.approval.is_some() { 4 } else { 0 };
    let hint_h = u16::from(app.hint.is_some());
    let queued = crate::queue::line(&app.queue);
    let queue_h = u16::from(queued.is_some());
    let [main, card, hint, queue, input, status] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(card_h),
        Constraint::Length(hint_h),
        Constraint::Length(queue_h),
        Constraint::Length(input_h),
        Constraint::Length(1),
    ])
    .areas(area);
    let with_pane = app.mode != Mode::Chat && area.width >= 60;
    let (log, pane) = if with_pane {
        let [l, p] =
            Layout::horizontal([Constraint::Min(20), Constraint::Length(PANE)]).areas(main);
        (l, Some(p))
    } else {
        (main, None)
    };
    let comments = app.comments();
    let theme = app.theme;
    if let Some(v) = app.diff.as_mut() {
        // Over the transcript and the room pane: the diff wants the width.
        crate::diffview::draw(frame, v, theme, main, comments);
    } else {
        let split = app.split() && crate::split::draw_split(frame, app, log);
        let log = if split {
            Rect::default()
        } else if app.members.is_room() && log.height > 3 {
            // A room's member tabs above its transcript.
            let [bar, rest] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(2)]).areas(log);
            crate::tabs::draw_tabs(frame, app, bar);
            rest
        } else {
            log
        };
        if !split {
            draw_transcript(frame, app, log);
        }
        if let Some(p) = pane {
            draw_pane(frame, app, p);
        }
    }
    if app.approval.is_some() {
        draw_card(frame, app, card, now);
    }
    if let Some(h) = &app.hint {
        frame.render_widget(
            Paragraph::new(Line::styled(format!(" {h}"), app.theme.warn())),
            hint,
        );
    }
    if let Some(q) = queued {
        let w = usize::from(queue.width);
        frame.render_widget(
            Paragraph::new(Line::styled(truncate(&format!(" {q}"), w), app.theme.dim())),
            queue,
        );
    }
    let working = app.working_for(now);
    draw_input(frame, app, input, working);
    draw_status(frame, app, status);
    if app.diff.is_none() {
        draw_completions(frame, app, input);
    }
    if app.picker.is_some() {
        draw_picker(frame, app, area);
    }
}

fn draw_transcript(frame: &mut Frame<'_>, app: &mut App, area: Rect) {
    let w = usize::from(area.width.saturating_sub(1)).max(1);
    let h = usize::from(area.height);
    app.page = h;
    app.transcript.layout(w, app.theme);
    if std::mem::take(&mut app.reveal) {
        reveal_focus(app, h);
    }
    let (rows, scroll) = app.transcript.window(h, app.scroll);
    app.scroll = scroll;
    let buf = frame.buffer_mut();
    // Bottom-aligned: a short conversation sits just above the input.
    let top = area.y + area.height
        - u16::try_from(rows.len())
            .unwrap_or(area.height)
            .min(area.height);
    for (i, line) in rows.iter().enumerate() {
        let y = top + u16::try_from(i).unwrap_or(0);
        buf.set_line(area.x, y, line, area.width.saturating_sub(1));
    }
    if scroll > 0 {
        let tag = format!(" ↑ {scroll} rows up · PgDn ");
        let x = area.x
            + area
                .width
                .saturating_sub(u16::try_from(width(&tag)).unwrap_or(0) + 1);
        buf.set_string(x, area.y, tag, app.theme.warn());
    }
}

/// Scroll so the picked file's row is in a window of `height` rows (a
/// changes card has one row per file, after its headline).
fn reveal_focus(app: &mut App, height: usize) {
    let Some(f) = app.focus else { return };
    let t = &app.transcript;
    let rows = t.block_rows(f.block);
    let row = (f.file + 1).min(rows.saturating_sub(1));
    // Rows from the bottom of the transcript to the file's row.
    let up = t.rows_below(f.block) + rows.saturating_sub(1) - row;
    if up < app.scroll {
        app.scroll = up;
    } else if up >= app.scroll + height {
        app.scroll = up + 1 - height.max(1);
    }
}

fn draw_pane(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let t = app.theme;
    let inner_w = usize::from(area.width.saturating_sub(3));
    let mut lines: Vec<Line<'_>> = vec![Line::styled(
        format!("participants ({})", app.room.present()),
        t.accent(),
    )];
    if app.room.participants.is_empty() {
        lines.push(Line::styled("  nobody yet", t.dim()));
    }
    for p in &app.room.participants {
        let (dot, style) = if p.present {
            ("●", t.ok())
        } else {
            ("○", t.dim())
        };
        let who = truncate(
            &format!("{} · {}", p.name, p.role),
            inner_w.saturating_sub(2),
        );
        lines.push(Line::from(vec![
            Span::styled(format!("{dot} "), style),
            Span::raw(who),
        ]));
    }
    if app.mode == Mode::Host {
        lines.push(Line::default());
        lines.push(Line::styled(
            format!("suggestions ({})", app.room.suggestions.len()),
            t.accent(),
        ));
        if app.room.suggestions.is_empty() {
            lines.push(Line::styled("  none waiting", t.dim()));
        }
        for (i, s) in app.room.suggestions.iter().enumerate() {
            let style = if i == 0 { t.warn() } else { t.text() };
            // The text first, on its own line: a sender label such as
            // `co-driver #18687123703820451` would push it out of the pane.
            lines.push(Line::styled(truncate(&s.text, inner_w), style));
            lines.push(Line::styled(
                truncate(&format!("  from {}", s.from), inner_w),
                t.dim(),
            ));
        }
        if !app.room.suggestions.is_empty() {
            lines.push(Line::styled(
                truncate("Ctrl+A accept · Ctrl+R reject", inner_w),
                t.dim(),
            ));
        }
        lines.push(Line::default());
        lines.push(Line::styled("invites", t.accent()));
        let hint = if app.room.invites.is_some() {
            "in the chat; /invites again"
        } else {
            "none"
        };
        lines.push(Line::styled(truncate(hint, inner_w), t.dim()));
    }
    let block = Block::new()
        .borders(Borders::LEFT)
        .border_style(t.dim())
        .padding(ratatui::widgets::Padding::left(1))
        .title(Span::styled(" room ", t.dim()));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn draw_card(frame: &mut Frame<'_>, app: &App, area: Rect, now: Instant) {
    let Some(card) = &app.approval else { return };
    let t = app.theme;
    let secs = app.approval_seconds(now).unwrap_or(0);
    let kind = serde_json::to_value(card.kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let w = usize::from(area.width.saturating_sub(4));
    let head = truncate(&format!("{} ({kind}) · {}", card.name, card.summary), w);
    let keys = if app.decides_approvals() {
        vec![
            Span::styled("y", t.accent()),
            Span::raw(" once  "),
            Span::styled("a", t.accent()),
            Span::raw(" always  "),
            Span::styled("n", t.accent()),
            Span::raw(" no  "),
            Span::styled("N", t.accent()),
            Span::raw(" never"),
        ]
    } else if app.votes() {
        let mut keys = vec![
            Span::styled("y", t.accent()),
            Span::raw(" allow  "),
            Span::styled("n", t.accent()),
            Span::raw(" deny"),
        ];
        if let Some(n) = app.approvals_needed() {
            keys.push(Span::styled(format!("  ({n} approvals needed)"), t.warn()));
        }
        keys
    } else {
        let said = match card.voted {
            Some(true) => match app.approvals_needed() {
                Some(n) => format!("you allowed it · {n} approvals needed: waiting for the others"),
                None => "you allowed it · waiting for the host".to_owned(),
            },
            Some(false) => "you denied it · waiting for the host".to_owned(),
            None => "waiting for the host's decision".to_owned(),
        };
        vec![Span::styled(said, t.dim())]
    };
    let mut second = keys;
    second.push(Span::styled(format!("   denied in {secs} s"), t.dim()));
    let block = Block::bordered().border_style(t.warn()).title(Span::styled(
        match &card.agent {
            Some(a) => format!(
                " approval needed: {} ",
                cohost_core::sanitize::inert_line(a)
            ),
            None => " approval needed ".to_owned(),
        },
        t.warn(),
    ));
    frame.render_widget(
        Paragraph::new(vec![Line::raw(head), Line::from(second)]).block(block),
        area,
    );
}

/// Seconds of work after which the input's title shows the elapsed time
/// (a long silence from the agent should not look like a hung screen).
const SHOW_ELAPSED_AFTER: Duration = Duration::from_secs(3);

fn input_title(app: &App, working: Option<Duration>) -> String {
    if let (Some(t), Mode::Chat | Mode::Host) = (app.target_member(), app.mode) {
        // A room: who the text goes to, and whether Esc would stop it.
        let state = app.member_state(t);
        let t = cohost_core::sanitize::inert_line(t);
        return match state {
            "idle" | "crashed" if app.busy() => {
                format!(" prompt → {t} · the others work · Ctrl+C twice stops all ")
            }
            "idle" | "crashed" => format!(" prompt → {t} · / for commands · Tab switches member "),
            _ => format!(" {t} is working · Esc interrupts it · Ctrl+C twice: all "),
        };
    }
    match app.mode {
        Mode::Chat | Mode::Host if app.busy() => match working {
            Some(d) if d >= SHOW_ELAPSED_AFTER => format!(
                " the agent is working · {} s · Esc interrupts ",
                d.as_secs()
            ),
            _ => " the agent is working · Esc interrupts ".into(),
        },
        Mode::Chat | Mode::Host => " prompt · / for commands ".into(),
        Mode::Participant { co_driver: true } => " suggest to the host · /chat to talk ".into(),
        Mode::Participant { co_driver: false } => " chat with the room ".into(),
    }
}

/// The comment's title: what it is about.
fn comment_title(app: &App) -> Option<String> {
    let v = app.diff.as_ref()?;
    v.comment.as_ref()?;
    let (line, old, _) = v.target()?;
    let side = if old { " (before the change)" } else { "" };
    let path = cohost_core::sanitize::inert_line(&v.file.path);
    let to = match app.mode {
        Mode::Participant { .. } => "suggests it to the host",
        _ => "sends it to the agent",
    };
    Some(format!(
        " comment on {path}, line {line}{side} · Enter {to} · Esc cancels "
    ))
}

fn draw_input(frame: &mut Frame<'_>, app: &App, area: Rect, working: Option<Duration>) {
    let t = app.theme;
    let comment = app.diff.as_ref().and_then(|d| d.comment.as_ref());
    let (input, title, style) = match (comment, comment_title(app)) {
        (Some(c), Some(title)) => (c, title, t.accent()),
        _ => (&app.input, input_title(app, working), t.dim()),
    };
    let w = usize::from(area.width.saturating_sub(2));
    let block = Block::bordered()
        .border_style(style)
        .title(Span::styled(truncate(&title, w), style));
    let inner = block.inner(area);
    let (line, col) = input.cursor_pos();
    let rows = usize::from(inner.height.max(1));
    let first = (line + 1).saturating_sub(rows);
    let text: Vec<Line<'_>> = input
        .text()
        .split('\n')
        .skip(first)
        .take(rows)
        .map(|l| Line::raw(l.to_string()))
        .collect();
    frame.render_widget(Paragraph::new(text).block(block), area);
    let x = inner.x
        + u16::try_from(col)
            .unwrap_or(0)
            .min(inner.width.saturating_sub(1));
    let y = inner.y + u16::try_from(line - first).unwrap_or(0);
    if app.picker.is_none() {
        frame.set_cursor_position(Position::new(x, y));
    }
}

fn draw_status(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let t = app.theme;
    let s = &app.session;
    let (tin, tout) = app.shown_tokens();
    let mut left = format!(" {}", if s.agent.is_empty() { "…" } else { &s.agent });
    if app.members.is_room() {
        left = format!(" {}", app.members.status());
    } else {
        if let Some(m) = &s.model {
            left.push_str(&format!(" · {m}"));
        }
        if let Some(id) = &s.session_id {
            left.push_str(&format!(" · {id}"));
        }
        left.push_str(&format!(" · {}", app.state));
    }
    if app.mode != Mode::Chat {
        left.push_str(&format!(" · {} in room", app.room.present()));
    }
    let right = format!("tokens ↑{tin} ↓{tout} ");
    let w = usize::from(area.width);
    let left = truncate(&left, w.saturating_sub(width(&right) + 1));
    let pad = w.saturating_sub(width(&left) + width(&right));
    let line = format!("{left}{}{right}", " ".repeat(pad));
    frame.render_widget(Paragraph::new(Line::raw(line)).style(t.status()), area);
}

fn draw_completions(frame: &mut Frame<'_>, app: &App, input: Rect) {
    let list = app.completions();
    if list.is_empty() || app.picker.is_some() {
        return;
    }
    let h = u16::try_from(list.len()).unwrap_or(0).min(input.y);
    let area = Rect::new(
        input.x + 1,
        input.y.saturating_sub(h),
        input.width.saturating_sub(2).min(64),
        h,
    );
    frame.render_widget(Clear, area);
    let w = usize::from(area.width);
    let lines: Vec<Line<'_>> = list
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let text = truncate(&format!(" {:<9}{:<7}{}", c.name, c.args, c.help), w);
            let style = if i == app.completion % list.len() {
                app.theme.selected()
            } else {
                Style::new()
            };
            Line::styled(format!("{text:<w$}"), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_picker(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let Some(p) = &app.picker else { return };
    let t = app.theme;
    let w = area.width.saturating_sub(4).min(72);
    let h = (u16::try_from(p.agents.len()).unwrap_or(0) + 5)
        .min(area.height.saturating_sub(2))
        .max(5);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height.saturating_sub(h)) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, r);
    let block = Block::bordered()
        .border_style(t.accent())
        .title(Span::styled(" pick an agent · Enter · Esc ", t.accent()));
    let inner_w = usize::from(w.saturating_sub(2));
    let mut lines: Vec<Line<'_>> = Vec::new();
    if p.agents.is_empty() {
        lines.push(Line::styled("looking for installed agents…", t.dim()));
    }
    for (i, a) in p.agents.iter().enumerate() {
        let ready = a.status == "ready";
        let row = format!(
            "{} {:<12} {:<14} {}",
            if ready { "●" } else { "○" },
            a.id,
            a.status,
            a.version.as_deref().unwrap_or("-")
        );
        let style = if i == p.selected {
            t.selected()
        } else if ready {
            t.ok()
        } else {
            t.dim()
        };
        lines.push(Line::styled(truncate(&row, inner_w), style));
    }
    if let Some(fix) = p.agents.get(p.selected).and_then(|a| a.fix.as_deref()) {
        lines.push(Line::default());
        lines.push(Line::styled(
            truncate(&format!("fix: {fix}"), inner_w),
            t.warn(),
        ));
    }
    frame.render_widget(Paragraph::new(lines).block(block), r);
}
