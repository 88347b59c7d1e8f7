//! Snapshot tests of the main screens on ratatui's `TestBackend` at 80x24,
//! kept by `insta` in `tests/snapshots/screens__*.snap`: a changed screen
//! fails and leaves a `.snap.new` beside it (`cargo insta review`), and
//! `INSTA_UPDATE=always` rewrites them (review the `git diff`).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::{Duration, Instant};

use cohost_core::{
    ApprovalOption, ChangeStatus, CohostError, DecisionOrigin, EndReason, ErrorCode, Event,
    EventBody, FileChange, ToolKind, ToolStatus, TurnChanges, Usage,
};
use cohost_core::{QueueChange, QueueItem, QueueNotice, SteerNotice};
use cohost_tui::app::{App, Effect, Incoming, SessionInfo};
use cohost_tui::commands::Mode;
use cohost_tui::queue::QueueCommand;
use cohost_tui::room::{Invites, Participant, Suggestion};
use cohost_tui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::Terminal;

fn ev(body: EventBody) -> Incoming {
    Incoming::Event(Event {
        id: "p-1.0".into(),
        prompt_id: "p-1".into(),
        correlation_id: "c-1".into(),
        ts: 0,
        agent: None,
        body,
    })
}

fn chunk(i: u64, delta: &str) -> Incoming {
    ev(EventBody::StreamChunk {
        stream_id: "t".into(),
        chunk_index: i,
        delta: delta.into(),
    })
}

fn start() -> Incoming {
    ev(EventBody::StreamStart {
        provider: "mock".into(),
        session_id: None,
        model: Some("mock-1".into()),
    })
}

fn end(reason: EndReason) -> Incoming {
    ev(EventBody::StreamEnd {
        reason,
        usage: Some(Usage {
            input_tokens: 12,
            output_tokens: 34,
            ..Usage::default()
        }),
    })
}

fn app(mode: Mode, theme: Theme) -> App {
    let mut a = App::new(mode, theme);
    a.on_incoming(
        Incoming::Session(SessionInfo {
            agent: "mock".into(),
            model: Some("mock-1".into()),
            session_id: Some("s-1a2b3c4d".into()),
        }),
        t0(),
    );
    a
}

fn t0() -> Instant {
    static T0: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *T0.get_or_init(Instant::now)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn type_text(a: &mut App, s: &str) {
    for c in s.chars() {
        a.on_key(key(KeyCode::Char(c)));
    }
}

fn draw(a: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    draw_at(a, w, h, t0() + Duration::from_secs(2))
}

fn draw_at(a: &mut App, w: u16, h: u16, now: Instant) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| cohost_tui::view::draw(f, a, now)).unwrap();
    t
}

/// The screen as text, one line per row, trailing spaces cut.
fn screen(t: &Terminal<TestBackend>) -> String {
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut row = String::new();
        for x in 0..buf.area.width {
            row.push_str(buf[(x, y)].symbol());
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// The screen at 80x24, checked against its snapshot `name`. (insta
/// ignores trailing blank lines; the buffer's 24 rows fix their number.)
fn snapshot(name: &str, a: &mut App) -> String {
    let text = screen(&draw(a, 80, 24));
    insta::assert_snapshot!(name, &text);
    text
}

#[test]
fn streaming_answer_with_markdown_and_collapsed_reasoning() {
    let mut a = app(Mode::Chat, Theme::new(false));
    type_text(&mut a, "explain the repo");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(
        a.take_effects(),
        [Effect::Prompt("explain the repo".into())]
    );
    a.on_incoming(start(), t0());
    a.on_incoming(
        ev(EventBody::ReasoningChunk {
            stream_id: "r".into(),
            chunk_index: 0,
            delta: "Let me look at the layout first.".into(),
        }),
        t0(),
    );
    let answer = "# cohost\n\nOne port, **many** agents. Run `cohost run`:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n- streams events\n- shares sessions";
    for (i, piece) in answer.split_inclusive(' ').enumerate() {
        a.on_incoming(chunk(i as u64, piece), t0());
    }
    let text = snapshot("chat_streaming", &mut a);
    assert!(text.contains("▸ thinking (7 words, Ctrl+O to show)"));
    assert!(text.contains("▏ fn main() {"));
    assert!(text.contains("• streams events"));
    assert!(text.contains("mock · mock-1 · s-1a2b3c4d · streaming"));
    // Ctrl+O shows the reasoning in full.
    a.on_key(ctrl('o'));
    assert!(screen(&draw(&mut a, 80, 24)).contains("┊ Let me look at the layout first."));
}

#[test]
fn a_markdown_table_is_aligned_and_cut_to_80_columns() {
    let mut a = app(Mode::Chat, Theme::new(false));
    type_text(&mut a, "compare the adapters");
    a.on_key(key(KeyCode::Enter));
    a.on_incoming(start(), t0());
    let answer = "Here they are:\n\n| agent | protocol | approvals | notes |\n|:------|:--------:|----------:|-------|\n| claude | stream-json | yes | resumes by session id; tools report their kind and a one-line summary of the input |\n| codex | app-server | yes | |\n| gemini | ACP | 12 | `--experimental-acp` |\n\nAll three stream.";
    for (i, piece) in answer.split_inclusive(' ').enumerate() {
        a.on_incoming(chunk(i as u64, piece), t0());
    }
    a.on_incoming(end(EndReason::Completed), t0());
    let text = snapshot("chat_table", &mut a);
    let rows: Vec<&str> = text.lines().collect();
    let head = rows.iter().position(|r| r.starts_with("agent")).unwrap();
    // One row per table row, every separator in the same columns, none
    // past the transcript's width (79: one column is kept free).
    let table = &rows[head..head + 5];
    let bars = |r: &str| -> Vec<usize> {
        r.chars()
            .enumerate()
            .filter(|(_, c)| *c == '│' || *c == '┼')
            .map(|(i, _)| i)
            .collect()
    };
    for r in table {
        assert_eq!(bars(r), bars(table[0]), "{r:?} in\n{text}");
        assert!(r.chars().count() <= 79, "{r:?}");
    }
    assert!(table[2].ends_with('…'), "the long note is cut: {text}");
    assert!(
        table[4].contains("   12 │"),
        "approvals align right: {text}"
    );
    assert!(text.contains("All three stream."));
}

fn decided(a: &mut App, id: &str, decision: ApprovalOption, origin: DecisionOrigin) {
    a.on_incoming(
        ev(EventBody::ToolApprovalDecided {
            tool_id: id.into(),
            decision,
            origin,
            deciders: Vec::new(),
        }),
        t0(),
    );
}

fn executed(a: &mut App, id: &str, status: ToolStatus, output: &str) {
    a.on_incoming(
        ev(EventBody::ToolExecuted {
            tool_id: id.into(),
            status,
            output_preview: output.into(),
        }),
        t0(),
    );
}

fn tool_request(a: &mut App, id: &str) {
    a.on_incoming(
        ev(EventBody::ToolCall {
            tool_id: id.into(),
            name: "write_file".into(),
            kind: ToolKind::Edit,
            input: serde_json::json!({"path": "notes.txt", "content": "hello"}),
        }),
        t0(),
    );
    a.on_incoming(
        ev(EventBody::ToolApprovalRequested {
            tool_id: id.into(),
            name: "write_file".into(),
            kind: ToolKind::Edit,
            input: serde_json::json!({"path": "notes.txt", "content": "hello"}),
            options: ApprovalOption::ALL.to_vec(),
            deadline_ms: 120_000,
        }),
        t0(),
    );
}

#[test]
fn approval_card_counts_down_and_takes_y() {
    let mut a = app(Mode::Chat, Theme::new(false));
    a.prompted("you", "write a note [mock:tool]");
    a.on_incoming(start(), t0());
    tool_request(&mut a, "t1");
    let text = snapshot("chat_approval", &mut a);
    assert!(text.contains("approval needed"));
    assert!(text.contains("write_file (edit) · path: notes.txt"));
    assert!(
        text.contains("denied in 118 s"),
        "two seconds after the request"
    );
    assert_eq!(
        text.matches("write_file").count(),
        2,
        "one card, one approval: {text}"
    );
    a.on_key(key(KeyCode::Char('y')));
    assert_eq!(
        a.take_effects(),
        [Effect::Decide {
            tool_id: "t1".into(),
            option: ApprovalOption::AllowOnce,
            agent: None,
        }]
    );
    assert!(a.approval.is_none());
}

#[test]
fn tool_cards_show_decision_status_and_output() {
    let mut a = app(Mode::Chat, Theme::new(false));
    a.prompted("you", "write two notes");
    a.on_incoming(start(), t0());
    tool_request(&mut a, "t1");
    decided(
        &mut a,
        "t1",
        ApprovalOption::AllowOnce,
        DecisionOrigin::User,
    );
    executed(&mut a, "t1", ToolStatus::Ok, "wrote 5 bytes to notes.txt");
    tool_request(&mut a, "t2");
    decided(
        &mut a,
        "t2",
        ApprovalOption::RejectAlways,
        DecisionOrigin::Deadline,
    );
    executed(&mut a, "t2", ToolStatus::Denied, "");
    a.on_incoming(chunk(0, "Done: one note written."), t0());
    a.on_incoming(end(EndReason::Completed), t0());
    let text = snapshot("chat_tools", &mut a);
    assert!(text.contains("✓ write_file edit · ok"));
    assert!(text.contains("allowed once by you"));
    assert!(text.contains("│ wrote 5 bytes to notes.txt"));
    assert!(text.contains("⊘ write_file edit · denied"));
    assert!(text.contains("denied always by the deadline"));
    assert!(text.contains("tokens ↑12 ↓34"));
}

#[test]
fn error_with_its_fix() {
    let mut a = app(Mode::Chat, Theme::new(false));
    a.prompted("you", "hello");
    a.on_incoming(start(), t0());
    let e = CohostError::new(ErrorCode::AuthRequired, "claude is not logged in")
        .with_fix("run `cohost login claude`");
    a.on_incoming(ev(EventBody::Error(e)), t0());
    a.on_incoming(end(EndReason::Error), t0());
    let text = snapshot("chat_error", &mut a);
    assert!(text.contains("✗ AUTH_REQUIRED: claude is not logged in"));
    assert!(text.contains("fix: run `cohost login claude`"));
}

fn participant(id: u64, name: &str, role: &str) -> Participant {
    Participant {
        id,
        name: name.into(),
        role: role.into(),
        present: true,
    }
}

#[test]
fn host_console_participants_and_suggestions() {
    let mut a = app(Mode::Host, Theme::new(false));
    a.on_incoming(
        Incoming::Invites(Invites {
            co_driver: "cohost://127.0.0.1:7070/r-1#c0".into(),
            viewer: "cohost://127.0.0.1:7070/r-1#v1".into(),
        }),
        t0(),
    );
    a.on_incoming(Incoming::Joined(participant(2, "ada", "co-driver")), t0());
    a.on_incoming(Incoming::Joined(participant(3, "bob", "viewer")), t0());
    // The host's own connection, welcomed after the others were seen.
    a.on_incoming(Incoming::Joined(participant(1, "host (you)", "host")), t0());
    a.on_incoming(Incoming::Left(3), t0());
    a.on_incoming(
        Incoming::Suggested(Suggestion {
            id: "s-1".into(),
            from: "ada".into(),
            text: "add a test for the parser".into(),
        }),
        t0(),
    );
    a.on_incoming(
        Incoming::Chat {
            from: "ada".into(),
            text: "hi host".into(),
        },
        t0(),
    );
    let text = snapshot("host_console", &mut a);
    assert!(text.contains("participants (2)"));
    // The host first, with its role; no "joined" line about itself.
    let pane: Vec<&str> = text.lines().filter_map(|l| l.split('│').nth(1)).collect();
    let first = pane.iter().position(|l| l.contains('●') || l.contains('○'));
    assert_eq!(
        first.map(|i| pane[i].trim()),
        Some("● host (you) · host"),
        "{text}"
    );
    assert!(!text.contains("host (you) joined"), "{text}");
    assert!(text.contains("● ada · co-driver"));
    assert!(text.contains("○ bob · viewer"));
    assert!(text.contains("suggestions (1)"));
    assert!(text.contains("│ add a test for the parser"), "{text}");
    assert!(text.contains("│   from ada"), "{text}");
    assert!(text.contains("<ada> hi host"));
    // Ctrl+A runs the oldest suggestion, shown as ada's prompt.
    a.on_key(ctrl('a'));
    assert_eq!(a.take_effects(), [Effect::Accept("s-1".into())]);
    assert!(screen(&draw(&mut a, 80, 24)).contains("ada ❯ add a test for the parser"));
    // Unknown commands answer with the list; /accept with nothing waiting says so.
    type_text(&mut a, "/nope");
    a.on_key(key(KeyCode::Enter));
    type_text(&mut a, "/accept");
    a.on_key(key(KeyCode::Enter));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(
        text.contains("unknown command /nope; commands: /accept"),
        "{text}"
    );
    assert!(text.contains("no suggestion is waiting"));
}

#[test]
fn share_turns_the_chat_into_the_host_console_in_place() {
    let mut a = app(Mode::Chat, Theme::new(false));
    type_text(&mut a, "hello");
    a.on_key(key(KeyCode::Enter));
    a.on_incoming(start(), t0());
    a.on_incoming(chunk(0, "Hello from the mock agent."), t0());
    a.on_incoming(end(EndReason::Completed), t0());
    type_text(&mut a, "/share");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(
        a.take_effects(),
        [Effect::Prompt("hello".into()), Effect::Share]
    );
    a.on_incoming(
        Incoming::Shared(Invites {
            co_driver: "cohost://127.0.0.1:7070/r-1#c0".into(),
            viewer: "cohost://127.0.0.1:7070/r-1#v1".into(),
        }),
        t0(),
    );
    a.on_incoming(Incoming::Joined(participant(1, "host (you)", "host")), t0());
    assert_eq!(a.mode, Mode::Host);
    let text = snapshot("chat_shared", &mut a);
    // The conversation is still there; the room pane and the invites came.
    assert!(text.contains("you ❯ hello"), "{text}");
    assert!(text.contains("Hello from the mock agent."), "{text}");
    assert!(text.contains("● host (you) · host"), "{text}");
    assert!(text.contains("co-driver: cohost://"), "{text}");
    assert!(text.contains("1 in room"), "{text}");
    // Prompts now go to the room's session, and /share is not offered again.
    type_text(&mut a, "/share");
    a.on_key(key(KeyCode::Enter));
    assert!(a.take_effects().is_empty());
}

#[test]
fn participant_sees_the_stream_and_who_decided() {
    let mut a = app(Mode::Participant { co_driver: true }, Theme::new(false));
    a.on_incoming(Incoming::Joined(participant(1, "host", "host")), t0());
    a.on_incoming(
        Incoming::Prompted {
            who: "host".into(),
            text: "write a note".into(),
        },
        t0(),
    );
    a.on_incoming(start(), t0());
    tool_request(&mut a, "t1");
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("waiting for the host's decision"), "{text}");
    a.on_key(key(KeyCode::Char('y')));
    assert!(
        a.take_effects().is_empty(),
        "read-only: y is text, not a decision"
    );
    a.input.clear();
    decided(
        &mut a,
        "t1",
        ApprovalOption::AllowOnce,
        DecisionOrigin::User,
    );
    a.on_incoming(chunk(0, "Wrote the note."), t0());
    type_text(&mut a, "now add a test");
    let text = snapshot("participant_view", &mut a);
    assert!(text.contains("allowed once by the host"));
    assert!(text.contains("host ❯ write a note"));
    assert!(text.contains("Wrote the note."));
    assert!(text.contains("suggest to the host"));
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::Suggest("now add a test".into())]);
}

#[test]
fn ctrl_c_interrupts_then_quits_on_a_second_press_when_idle() {
    let mut a = app(Mode::Chat, Theme::new(false));
    a.on_incoming(start(), t0());
    a.on_key(ctrl('c'));
    assert_eq!(a.take_effects(), [Effect::Interrupt]);
    a.on_incoming(end(EndReason::Interrupted), t0());
    a.on_key(ctrl('c'));
    assert!(!a.should_quit());
    assert!(screen(&draw(&mut a, 80, 24)).contains("Ctrl+C again to quit"));
    a.on_key(ctrl('c'));
    assert!(a.should_quit());
    assert_eq!(a.take_effects(), [Effect::Quit]);
}

#[test]
fn slash_opens_completions_and_help_is_not_a_prompt() {
    let mut a = app(Mode::Chat, Theme::new(false));
    type_text(&mut a, "/");
    let text = screen(&draw(&mut a, 80, 24));
    for c in ["/agent", "/model", "/resume", "/share", "/help", "/quit"] {
        assert!(text.contains(c), "{c} offered: {text}");
    }
    type_text(&mut a, "he");
    a.on_key(key(KeyCode::Tab));
    assert_eq!(a.input.text(), "/help");
    a.on_key(key(KeyCode::Enter));
    assert!(a.take_effects().is_empty(), "/help is answered here");
    assert!(screen(&draw(&mut a, 80, 24)).contains("commands:"));
}

#[test]
fn no_color_draws_no_colour_and_color_does() {
    let colours = |theme| {
        let mut a = app(Mode::Chat, theme);
        a.on_incoming(start(), t0());
        a.on_incoming(chunk(0, "```rust\nfn main() {}\n```\n"), t0());
        let t = draw(&mut a, 80, 24);
        let buf = t.backend().buffer().clone();
        buf.content
            .iter()
            .filter(|c| {
                c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset
            })
            .count()
    };
    assert_eq!(colours(Theme::new(false)), 0);
    assert!(colours(Theme::new(true)) > 0);
}

#[test]
fn long_answers_scroll_and_small_terminals_still_draw() {
    let mut a = app(Mode::Host, Theme::new(false));
    a.on_incoming(start(), t0());
    for i in 0..300 {
        a.on_incoming(chunk(i, &format!("line {i}\n\n")), t0());
    }
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("line 299"));
    a.on_key(key(KeyCode::PageUp));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(
        !text.contains("line 299") && text.contains("rows up"),
        "{text}"
    );
    // Tiny and narrow screens draw without panicking.
    for (w, h) in [(20, 8), (40, 10), (1, 1)] {
        let _ = draw(&mut a, w, h);
    }
}

#[test]
fn a_prompt_typed_during_a_turn_steers_it_and_the_queue_shows_what_waits() {
    let mut a = app(Mode::Chat, Theme::new(false));
    type_text(&mut a, "first");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::Prompt("first".into())]);
    a.on_incoming(start(), t0());
    type_text(&mut a, "second");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::Steer("second".into())]);
    // The session says it took it into this turn...
    a.on_incoming(
        ev(EventBody::Steered(SteerNotice {
            text: "second".into(),
            by: None,
        })),
        t0(),
    );
    assert!(screen(&draw(&mut a, 80, 24)).contains("you → this turn"));
    // ...or, for an agent without mid-turn input, that it waits.
    type_text(&mut a, "third");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::Steer("third".into())]);
    let third = QueueItem {
        id: 3,
        correlation_id: "c-3".into(),
        text: "third".into(),
        by: None,
    };
    a.on_incoming(
        ev(EventBody::Queue(QueueNotice {
            change: QueueChange::Added,
            item: third.clone(),
            note: Some("agent `mock` takes no input while a turn runs".into()),
            items: vec![third.clone()],
        })),
        t0(),
    );
    let text = screen(&draw(&mut a, 80, 24));
    assert!(
        text.contains("#3 queued (agent `mock` takes no input"),
        "{text}"
    );
    assert!(text.contains("queued: #3 third (/queue)"), "{text}");
    type_text(&mut a, "/queue up 3");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::Queue(QueueCommand::Up(3))]);
    type_text(&mut a, "/queue drop");
    a.on_key(key(KeyCode::Enter));
    assert!(a.take_effects().is_empty(), "no number, no effect");
    a.on_incoming(end(EndReason::Completed), t0());
    a.on_incoming(
        ev(EventBody::Queue(QueueNotice {
            change: QueueChange::Started,
            item: third,
            note: None,
            items: vec![],
        })),
        t0(),
    );
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("you (queued #3)"), "{text}");
    assert!(
        !text.contains("(/queue)"),
        "the queue line goes when it empties: {text}"
    );
}

#[test]
fn co_drivers_ask_to_interrupt_and_viewers_cannot() {
    let mut a = app(Mode::Participant { co_driver: true }, Theme::new(false));
    a.on_incoming(start(), t0());
    a.on_key(key(KeyCode::Esc));
    assert_eq!(a.take_effects(), [Effect::Interrupt]);
    let mut v = app(Mode::Participant { co_driver: false }, Theme::new(false));
    v.on_incoming(start(), t0());
    v.on_key(ctrl('c'));
    assert!(v.take_effects().is_empty());
    assert!(screen(&draw(&mut v, 80, 24)).contains("only the host and co-drivers"));
}

#[test]
fn agent_picker_shows_status_version_and_the_fix() {
    use cohost_tui::app::AgentInfo;
    let mut a = app(Mode::Chat, Theme::new(false));
    type_text(&mut a, "/agent");
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::ListAgents]);
    assert!(screen(&draw(&mut a, 80, 24)).contains("looking for installed agents"));
    a.on_incoming(
        Incoming::Agents(vec![
            AgentInfo {
                id: "claude".into(),
                status: "not_installed".into(),
                version: None,
                fix: Some("npm install -g @anthropic-ai/claude-code".into()),
            },
            AgentInfo {
                id: "mock".into(),
                status: "ready".into(),
                version: Some("built-in".into()),
                fix: None,
            },
        ]),
        t0(),
    );
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("pick an agent"), "{text}");
    assert!(text.contains("○ claude       not_installed"), "{text}");
    assert!(
        text.contains("● mock         ready          built-in"),
        "{text}"
    );
    assert!(
        text.contains("fix: npm install -g @anthropic-ai/claude-code"),
        "{text}"
    );
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Enter));
    assert_eq!(a.take_effects(), [Effect::SwitchAgent("mock".into())]);
    assert!(a.picker.is_none());
}

/// A turn with nothing to show yet: from 3 s on, the input's title counts
/// the seconds, so a silent agent does not look like a hung screen; the
/// count is gone once the turn ends.
#[test]
fn a_long_turn_shows_how_long_it_has_been_working() {
    let mut a = app(Mode::Chat, Theme::new(false));
    a.on_incoming(start(), t0());
    let at = |a: &mut App, secs: u64| screen(&draw_at(a, 80, 24, t0() + Duration::from_secs(secs)));
    let first = at(&mut a, 1);
    assert!(
        first.contains(" the agent is working · Esc interrupts "),
        "{first}"
    );
    // The first frame of the turn (1 s) is its start.
    assert!(at(&mut a, 3).contains(" the agent is working · Esc interrupts "));
    assert!(at(&mut a, 4).contains(" the agent is working · 3 s · Esc interrupts "));
    let later = at(&mut a, 43);
    assert!(
        later.contains(" the agent is working · 42 s · Esc interrupts "),
        "{later}"
    );
    a.on_incoming(end(EndReason::Completed), t0());
    let idle = at(&mut a, 44);
    assert!(idle.contains(" prompt · / for commands "), "{idle}");
    assert!(!idle.contains("working"), "{idle}");
}

/// The diff of `src/main.rs` in [`changes`]: two hunks, and a context line
/// carrying an OSC title and a clear-screen sequence.
const MAIN_DIFF: &str = "diff --git a/src/main.rs b/src/main.rs
index 1111111..2222222 100644
--- a/src/main.rs
+++ b/src/main.rs
@@ -1,5 +1,6 @@
 fn main() {
-    println!(\"hi\");
+    let name = \"cohost\";
+    println!(\"hi {name}\");
 }

 // end\x1b]0;pwned\x07\x1b[2J
@@ -20,3 +21,3 @@ fn helper() {
 fn helper() -> u32 {
-    1
+    2
 }
";

/// The first hunk of [`MAIN_DIFF`], as a review comment quotes it.
const MAIN_HUNK: &str = "@@ -1,5 +1,6 @@
 fn main() {
-    println!(\"hi\");
+    let name = \"cohost\";
+    println!(\"hi {name}\");
 }

 // end";

fn changed(path: &str, status: ChangeStatus, added: u64, removed: u64) -> FileChange {
    FileChange {
        path: path.into(),
        old_path: None,
        status,
        old_mode: None,
        new_mode: None,
        added,
        removed,
        binary: false,
        size: 0,
        hash: None,
        diff: None,
        diff_truncated: false,
    }
}

/// Turn 2's changes: a binary file, a diff too large for the event, a
/// rename, and `src/main.rs` with [`MAIN_DIFF`].
fn changes() -> Incoming {
    let mut logo = changed("assets/logo.png", ChangeStatus::Added, 0, 0);
    logo.binary = true;
    logo.size = 2048;
    let mut big = changed("docs/big.md", ChangeStatus::Modified, 900, 12);
    big.diff_truncated = true;
    let mut renamed = changed("src/new_name.rs", ChangeStatus::Renamed, 1, 1);
    renamed.old_path = Some("src/old_name.rs".into());
    let mut main = changed("src/main.rs", ChangeStatus::Modified, 3, 2);
    main.diff = Some(MAIN_DIFF.into());
    ev(EventBody::FileChanges(TurnChanges {
        turn: 2,
        files: vec![logo, big, renamed, main],
    }))
}

/// A finished turn that changed [`changes`], on a screen that sends
/// review comments as the binary does.
fn changed_turn(mode: Mode, theme: Theme) -> App {
    let mut a = app(mode, theme);
    a.set_review_format(cohost_share::review::review_prompt);
    a.on_incoming(
        Incoming::Prompted {
            who: "you".into(),
            text: "tidy main".into(),
        },
        t0(),
    );
    a.on_incoming(start(), t0());
    a.on_incoming(chunk(0, "Done: main greets by name."), t0());
    a.on_incoming(changes(), t0());
    a.on_incoming(end(EndReason::Completed), t0());
    a
}

/// Ctrl+F, then down to file `n` of the last changes block.
fn pick(a: &mut App, n: usize) {
    a.on_key(ctrl('f'));
    for _ in 0..n {
        a.on_key(key(KeyCode::Down));
    }
}

#[test]
fn a_turns_changed_files_are_listed_under_its_answer() {
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    let text = snapshot("chat_changes", &mut a);
    let rows: Vec<&str> = text.lines().collect();
    let head = rows
        .iter()
        .position(|r| r.starts_with("± turn 2: 4 files changed, +904 -15 · Ctrl+F to review"))
        .unwrap_or_else(|| panic!("no headline:\n{text}"));
    assert!(
        rows[head - 2].contains("Done: main greets by name."),
        "{text}"
    );
    let files = &rows[head + 1..head + 5];
    assert!(files[0].starts_with("  A assets/logo.png"), "{text}");
    assert!(files[0].ends_with("binary, 2048 bytes"), "{text}");
    assert!(files[1].ends_with("+900 -12"), "{text}");
    assert!(
        files[2].contains("R src/old_name.rs → src/new_name.rs"),
        "{text}"
    );
    assert!(
        files[3].starts_with("  M src/main.rs") && files[3].ends_with("+3 -2"),
        "{text}"
    );
    // The counts start in one column.
    let col = |r: &str| {
        let at = r.find("  +").or_else(|| r.find("  binary")).unwrap();
        r[..at].chars().count()
    };
    assert_eq!(col(files[1]), col(files[3]), "{text}");
    assert_eq!(col(files[0]), col(files[3]), "{text}");

    // In colour, added counts are green and removed ones red.
    let mut c = changed_turn(Mode::Chat, Theme::new(true));
    let t = draw(&mut c, 80, 24);
    let buf = t.backend().buffer();
    let y = (0..24u16)
        .find(|y| {
            screen(&t)
                .lines()
                .nth(usize::from(*y))
                .is_some_and(|r| r.contains("src/main.rs"))
        })
        .unwrap();
    let row: String = (0..80u16)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect();
    let x = |needle: &str| u16::try_from(row.find(needle).unwrap()).unwrap();
    assert_eq!(buf[(x("+3"), y)].fg, Color::Green);
    assert_eq!(buf[(x("-2"), y)].fg, Color::Red);

    // The host console and the participant view show the same block.
    for mode in [Mode::Host, Mode::Participant { co_driver: false }] {
        let mut p = changed_turn(mode, Theme::new(false));
        let text = screen(&draw(&mut p, 80, 24));
        assert!(
            text.contains("± turn 2: 4 files changed, +904 -15"),
            "{mode:?}:\n{text}"
        );
        assert!(text.contains("M src/main.rs"), "{mode:?}:\n{text}");
    }
}

#[test]
fn ctrl_f_picks_a_file_and_enter_opens_its_coloured_inert_diff() {
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    a.on_key(ctrl('f'));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("· ↑↓ file · Enter diff · Esc back"), "{text}");
    assert!(text.contains("▸ A assets/logo.png"), "{text}");
    for _ in 0..5 {
        // Past the last file the pick stays on it.
        a.on_key(key(KeyCode::Down));
    }
    assert!(screen(&draw(&mut a, 80, 24)).contains("▸ M src/main.rs"));
    a.on_key(key(KeyCode::Enter));
    assert!(a.take_effects().is_empty(), "Enter on a file sends nothing");
    let text = snapshot("diff_view", &mut a);
    assert!(
        text.contains("± turn 2 · file 4 of 4 · M src/main.rs (+3 -2)"),
        "{text}"
    );
    assert!(text.contains("@@ -1,5 +1,6 @@"), "{text}");
    // Both sides' numbers, the sign, the code; the cursor on the first line.
    assert!(text.contains("│▸ 1  1   fn main() {"), "{text}");
    assert!(text.contains("│  2    -     println!(\"hi\");"), "{text}");
    assert!(
        text.contains("│     2 +     let name = \"cohost\";"),
        "{text}"
    );
    assert!(text.contains("│ 20 21   fn helper() -> u32 {"), "{text}");
    // The title names the file: its git header is not drawn again.
    assert!(
        !text.contains("diff --git") && !text.contains("+++ b/"),
        "{text}"
    );
    assert!(text.contains("c comment · Esc close"), "{text}");
    // The OSC title and the clear-screen sequence are gone, not drawn.
    assert!(text.contains("// end") && !text.contains("pwned"), "{text}");
    let t = draw(&mut a, 80, 24);
    let buf = t.backend().buffer();
    assert!(
        buf.content()
            .iter()
            .all(|c| !c.symbol().chars().any(|ch| ch.is_control())),
        "a control character reached the screen"
    );

    // In colour: + green, - red, the hunk header its own colour, and the
    // code highlighted by the code blocks' highlighter.
    let mut c = changed_turn(Mode::Chat, Theme::new(true));
    pick(&mut c, 3);
    c.on_key(key(KeyCode::Enter));
    let t = draw(&mut c, 80, 24);
    let buf = t.backend().buffer();
    let text = screen(&t);
    let find = |needle: &str| -> (u16, u16) {
        for (y, row) in text.lines().enumerate() {
            if let Some(i) = row.find(needle) {
                let x = row[..i].chars().count();
                return (u16::try_from(x).unwrap(), u16::try_from(y).unwrap());
            }
        }
        panic!("{needle:?} not on screen:\n{text}");
    };
    let (x, y) = find("+     let name");
    assert_eq!(buf[(x, y)].fg, Color::Green);
    assert_ne!(buf[(x + 6, y)].bg, Color::Reset, "an added line is tinted");
    let (x, y) = find("-     println");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let (x, y) = find("@@ -1,5");
    assert_eq!(buf[(x, y)].fg, Color::Magenta);
    let (x, y) = find("fn main() {");
    let colours: std::collections::HashSet<Color> = (x..x + 11).map(|x| buf[(x, y)].fg).collect();
    assert!(colours.len() > 1, "`fn` and `main` differ: {colours:?}");

    // ←→ step through the turn's files; those without a diff say why.
    a.on_key(key(KeyCode::Right));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("file 1 of 4 · A assets/logo.png"), "{text}");
    assert!(text.contains("a binary file (2048 bytes)"), "{text}");
    a.on_key(key(KeyCode::Right));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(
        text.contains("too large to show here: `cohost diff --turn 2` shows it whole"),
        "{text}"
    );
    a.on_key(key(KeyCode::Char('c')));
    assert!(
        a.diff.as_ref().is_some_and(|d| !d.commenting()),
        "no line to comment on"
    );
    // Esc closes the diff; the pick is still on the file, Esc again ends it.
    a.on_key(key(KeyCode::Esc));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("▸ M docs/big.md"), "{text}");
    a.on_key(key(KeyCode::Esc));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(!text.contains('▸'), "{text}");
    assert!(text.contains("Ctrl+F to review"), "{text}");
}

/// Open `src/main.rs`'s diff and move the cursor `down` lines of code.
fn at_main_line(a: &mut App, down: usize) {
    pick(a, 3);
    a.on_key(key(KeyCode::Enter));
    for _ in 0..down {
        a.on_key(key(KeyCode::Down));
    }
}

#[test]
fn a_comment_on_a_line_becomes_the_next_prompt() {
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    at_main_line(&mut a, 2);
    a.on_key(key(KeyCode::Char('c')));
    type_text(&mut a, "why a variable?");
    let text = snapshot("diff_comment", &mut a);
    assert!(
        text.contains("comment on src/main.rs, line 2 · Enter sends it to the agent · Esc cancels"),
        "{text}"
    );
    assert!(text.contains("│why a variable?"), "{text}");
    assert!(text.contains("│▸    2 +     let name"), "{text}");
    // Typed into the comment, `y` and `q` are text, not keys.
    type_text(&mut a, " yq");
    for _ in 0..3 {
        a.on_key(key(KeyCode::Backspace));
    }
    a.on_key(key(KeyCode::Enter));
    let want = format!(
        "Review comment on src/main.rs, line 2:\n\n```diff\n{MAIN_HUNK}\n```\n\nwhy a variable?"
    );
    assert_eq!(a.take_effects(), [Effect::Prompt(want)]);
    let text = screen(&draw(&mut a, 80, 24));
    assert!(a.diff.is_none(), "the diff closed for the answer");
    assert!(
        text.contains("```diff"),
        "the prompt is in the transcript: {text}"
    );
    assert!(text.contains("why a variable?"), "{text}");
}

#[test]
fn a_removed_line_is_commented_before_the_change_and_esc_cancels() {
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    at_main_line(&mut a, 1);
    a.on_key(key(KeyCode::Char('c')));
    type_text(&mut a, "draft");
    a.on_key(key(KeyCode::Esc));
    assert!(a.diff.as_ref().is_some_and(|d| !d.commenting()));
    assert!(
        a.take_effects().is_empty(),
        "a cancelled comment sends nothing"
    );
    a.on_key(key(KeyCode::Char('c')));
    type_text(&mut a, "keep the greeting");
    a.on_key(key(KeyCode::Enter));
    let want = format!(
        "Review comment on src/main.rs, line 2 (before the change):\n\n```diff\n{MAIN_HUNK}\n```\n\nkeep the greeting"
    );
    assert_eq!(a.take_effects(), [Effect::Prompt(want)]);

    // A line of the second hunk quotes that hunk.
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    at_main_line(&mut a, 9);
    a.on_key(key(KeyCode::Char('c')));
    type_text(&mut a, "why 2");
    a.on_key(key(KeyCode::Enter));
    let want = "Review comment on src/main.rs, line 22:\n\n```diff\n@@ -20,3 +21,3 @@ fn helper() {\n fn helper() -> u32 {\n-    1\n+    2\n }\n```\n\nwhy 2";
    assert_eq!(a.take_effects(), [Effect::Prompt(want.into())]);
}

#[test]
fn a_comment_during_a_turn_steers_it_in_the_chat() {
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    type_text(&mut a, "next");
    a.on_key(key(KeyCode::Enter));
    a.on_incoming(start(), t0());
    assert_eq!(a.take_effects(), [Effect::Prompt("next".into())]);
    at_main_line(&mut a, 0);
    a.on_key(key(KeyCode::Char('c')));
    type_text(&mut a, "later");
    a.on_key(key(KeyCode::Enter));
    // Sent while the turn runs: the session steers or queues it.
    match a.take_effects().as_slice() {
        [Effect::Steer(p)] => {
            assert!(
                p.starts_with("Review comment on src/main.rs, line 1:"),
                "{p}"
            );
            assert!(p.ends_with("\n\nlater"), "{p}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_host_comments_as_a_prompt_a_co_driver_suggests_and_a_viewer_cannot() {
    let mut host = changed_turn(Mode::Host, Theme::new(false));
    at_main_line(&mut host, 0);
    host.on_key(key(KeyCode::Char('c')));
    type_text(&mut host, "rename main");
    host.on_key(key(KeyCode::Enter));
    match host.take_effects().as_slice() {
        [Effect::Prompt(p)] => assert!(p.ends_with("```\n\nrename main"), "{p}"),
        other => panic!("{other:?}"),
    }
    // /diff works in the host console as in the chat.
    type_text(&mut host, "/diff 2");
    host.on_key(key(KeyCode::Enter));
    assert_eq!(host.take_effects(), [Effect::Diff(Some(2))]);
    // /who asks the host's side, which knows who waits at the door.
    type_text(&mut host, "/who");
    host.on_key(key(KeyCode::Enter));
    assert_eq!(host.take_effects(), [Effect::Who]);

    let mut co = changed_turn(Mode::Participant { co_driver: true }, Theme::new(false));
    at_main_line(&mut co, 0);
    co.on_key(key(KeyCode::Char('c')));
    type_text(&mut co, "rename main");
    let text = screen(&draw(&mut co, 80, 24));
    assert!(text.contains("Enter suggests it to the host"), "{text}");
    co.on_key(key(KeyCode::Enter));
    let want = format!(
        "Review comment on src/main.rs, line 1:\n\n```diff\n{MAIN_HUNK}\n```\n\nrename main"
    );
    assert_eq!(co.take_effects(), [Effect::Suggest(want)]);
    let text = screen(&draw(&mut co, 80, 24));
    assert!(
        text.contains("you suggested: Review comment on src/main.rs"),
        "{text}"
    );

    let mut viewer = changed_turn(Mode::Participant { co_driver: false }, Theme::new(false));
    at_main_line(&mut viewer, 0);
    let text = screen(&draw(&mut viewer, 80, 24));
    assert!(!text.contains("c comment"), "{text}");
    viewer.on_key(key(KeyCode::Char('c')));
    let text = screen(&draw(&mut viewer, 80, 24));
    assert!(
        text.contains("viewers watch: the host and co-drivers can comment"),
        "{text}"
    );
    assert!(viewer.diff.as_ref().is_some_and(|d| !d.commenting()));
    assert!(viewer.take_effects().is_empty());
}

#[test]
fn ctrl_f_without_changes_says_so_and_typing_leaves_the_pick() {
    let mut a = app(Mode::Chat, Theme::new(false));
    a.on_key(ctrl('f'));
    assert!(screen(&draw(&mut a, 80, 24)).contains("no turn has changed a file yet"));
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    a.on_key(ctrl('f'));
    type_text(&mut a, "hi");
    assert!(a.focus.is_none());
    assert_eq!(a.input.text(), "hi", "the key went on to the input");
}

#[test]
fn long_diffs_and_far_picks_scroll_into_view() {
    // A later long answer pushes the changes out of sight: Ctrl+F scrolls
    // the transcript back to the picked file.
    let mut a = changed_turn(Mode::Chat, Theme::new(false));
    a.on_incoming(start(), t0());
    for i in 0..60 {
        a.on_incoming(chunk(i, &format!("line {i} of a long answer\n\n")), t0());
    }
    a.on_incoming(end(EndReason::Completed), t0());
    let text = screen(&draw(&mut a, 80, 24));
    assert!(!text.contains("src/main.rs"), "{text}");
    pick(&mut a, 3);
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("▸ M src/main.rs"), "{text}");
    assert!(text.contains("rows up"), "{text}");

    // A diff longer than the screen: the cursor pulls the view along.
    let mut long = String::from("@@ -1,200 +1,200 @@\n");
    for i in 1..=200 {
        long.push_str(&format!(" line {i}\n"));
    }
    let mut file = changed("long.txt", ChangeStatus::Modified, 0, 0);
    file.diff = Some(long);
    let mut a = app(Mode::Chat, Theme::new(false));
    a.on_incoming(
        ev(EventBody::FileChanges(TurnChanges {
            turn: 1,
            files: vec![file],
        })),
        t0(),
    );
    a.on_key(ctrl('f'));
    a.on_key(key(KeyCode::Enter));
    for _ in 0..30 {
        a.on_key(key(KeyCode::Down));
    }
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("│▸ 31  31   line 31"), "{text}");
    // A page is the view's 18 rows less one, for the cursor and the view.
    a.on_key(key(KeyCode::PageDown));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("│▸ 48  48   line 48"), "{text}");
    assert!(!text.contains("line 30 "), "the view moved on: {text}");
    a.on_key(key(KeyCode::PageUp));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("│▸ 31  31   line 31"), "{text}");
    a.on_key(key(KeyCode::End));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("│▸200 200   line 200"), "{text}");
    a.on_key(key(KeyCode::Home));
    let text = screen(&draw(&mut a, 80, 24));
    assert!(text.contains("@@ -1,200 +1,200 @@"), "{text}");
    assert!(text.contains("│▸  1   1   line 1"), "{text}");
}
