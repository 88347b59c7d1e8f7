//! A room's member tabs (issue 33): a tab per member with what it is
//! doing, the "all" tab, switching with Tab, Shift+Tab and Alt+digit,
//! plain text to the member on screen, approvals marked on their
//! member's tab, Esc and Ctrl+C stopping one member and a quick second
//! Ctrl+C all of them; one agent has no tabs. Drawn on `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use cohost_core::{ApprovalOption, EndReason, Event, EventBody, ToolKind};
use cohost_tui::app::{App, Effect, Incoming};
use cohost_tui::commands::Mode;
use cohost_tui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// One instant for the whole file: the approval card's countdown is drawn
/// from it, so the screens are the same on every run.
fn t0() -> Instant {
    static T0: OnceLock<Instant> = OnceLock::new();
    *T0.get_or_init(Instant::now)
}

fn ev(agent: Option<&str>, body: EventBody) -> Incoming {
    Incoming::Event(Event {
        id: "p.1".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: agent.map(String::from),
        body,
    })
}

fn start(agent: &str) -> Incoming {
    ev(
        Some(agent),
        EventBody::StreamStart {
            provider: "mock".into(),
            session_id: None,
            model: None,
        },
    )
}

fn chunk(agent: &str, delta: &str) -> Incoming {
    ev(
        Some(agent),
        EventBody::StreamChunk {
            stream_id: "s".into(),
            chunk_index: 0,
            delta: delta.into(),
        },
    )
}

fn end(agent: &str) -> Incoming {
    ev(
        Some(agent),
        EventBody::StreamEnd {
            reason: EndReason::Completed,
            usage: None,
        },
    )
}

fn ask(agent: &str, tool_id: &str, path: &str) -> Incoming {
    ev(
        Some(agent),
        EventBody::ToolApprovalRequested {
            tool_id: tool_id.into(),
            name: "write_file".into(),
            kind: ToolKind::Edit,
            input: serde_json::json!({ "path": path }),
            options: vec![ApprovalOption::AllowOnce, ApprovalOption::RejectOnce],
            deadline_ms: 120_000,
        },
    )
}

fn feed(a: &mut App, msgs: Vec<Incoming>) {
    for m in msgs {
        a.on_incoming(m, t0());
    }
}

fn room(names: &[&str]) -> App {
    let mut a = App::new(Mode::Chat, Theme::new(false));
    feed(
        &mut a,
        vec![Incoming::Members(
            names.iter().map(|n| (*n).to_string()).collect(),
        )],
    );
    a
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn alt(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
}

fn ctrl_c() -> KeyEvent {
    KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)
}

fn type_line(a: &mut App, s: &str) {
    for c in s.chars() {
        a.on_key(key(KeyCode::Char(c)));
    }
    a.on_key(key(KeyCode::Enter));
}

/// The screen as text at `w`x`h`, trailing spaces cut.
fn screen_at(a: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| cohost_tui::view::draw(f, a, t0() + Duration::from_secs(2)))
        .unwrap();
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

fn screen(a: &mut App) -> String {
    screen_at(a, 100, 24)
}

/// The first row: the tab bar in a room.
fn bar(a: &mut App) -> String {
    screen(a).lines().next().unwrap_or_default().to_owned()
}

#[test]
fn one_agent_has_no_tabs_and_two_have_a_bar_with_each_state() {
    let mut one = App::new(Mode::Chat, Theme::new(false));
    feed(&mut one, vec![Incoming::Members(vec!["mock".into()])]);
    let s = screen(&mut one);
    assert!(!s.contains("[all]") && !s.contains("1 mock"), "{s}");

    let mut a = room(&["claude", "codex"]);
    let b = bar(&mut a);
    assert!(b.starts_with("[all]"), "the room opens on the all tab: {b}");
    assert!(b.contains("1 claude ○ idle"), "{b}");
    assert!(b.contains("2 codex ○ idle"), "{b}");
    assert!(b.contains("Tab · Alt+0..2"), "{b}");

    feed(&mut a, vec![start("claude"), chunk("claude", "hello")]);
    let b = bar(&mut a);
    assert!(b.contains("1 claude ● streaming"), "{b}");
    assert!(b.contains("2 codex ○ idle"), "{b}");

    feed(
        &mut a,
        vec![start("codex"), ask("codex", "t1", "notes.txt")],
    );
    let s = screen(&mut a);
    assert!(s.contains("2 codex ⚑ approval"), "{s}");
    assert!(s.contains("approval needed: codex"), "whose: {s}");
    assert_eq!(a.member_state("codex"), "waiting for approval");

    feed(&mut a, vec![end("claude")]);
    assert!(bar(&mut a).contains("1 claude ○ idle"));
    // A narrow screen keeps the icons.
    let narrow = screen_at(&mut a, 40, 12);
    let first = narrow.lines().next().unwrap();
    assert!(
        first.contains("1 claude ○") && first.contains("2 codex ⚑"),
        "{narrow}"
    );
}

#[test]
fn tabs_switch_with_tab_shift_tab_and_alt_digits_and_show_one_member() {
    let mut a = room(&["a", "b"]);
    feed(
        &mut a,
        vec![
            start("a"),
            start("b"),
            chunk("a", "alpha answer"),
            chunk("b", "beta answer"),
        ],
    );
    let s = screen(&mut a);
    assert!(s.contains("── a ──") && s.contains("alpha answer"), "{s}");
    assert!(s.contains("── b ──") && s.contains("beta answer"), "{s}");

    a.on_key(key(KeyCode::Tab));
    assert_eq!(a.viewed_member(), Some("a"));
    let s = screen(&mut a);
    assert!(s.starts_with(" all [1 a ● streaming]"), "{s}");
    assert!(s.contains("alpha answer"), "{s}");
    assert!(!s.contains("beta answer"), "only a's blocks: {s}");
    assert!(!s.contains("── a ──"), "no heading in its own tab: {s}");

    a.on_key(alt('2'));
    assert_eq!(a.viewed_member(), Some("b"));
    let s = screen(&mut a);
    assert!(
        s.contains("beta answer") && !s.contains("alpha answer"),
        "{s}"
    );
    // Blocks keep going to their member's tab while another is shown.
    feed(&mut a, vec![chunk("a", " more"), chunk("b", " more")]);
    let s = screen(&mut a);
    assert!(
        s.contains("beta answer more") && !s.contains("alpha"),
        "{s}"
    );

    a.on_key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert_eq!(a.viewed_member(), Some("a"));
    a.on_key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT));
    assert_eq!(a.viewed_member(), None, "back to all");
    a.on_key(alt('1'));
    assert_eq!(a.viewed_member(), Some("a"));
    a.on_key(alt('0'));
    assert_eq!(a.viewed_member(), None);
    // Past the last member Alt+digit is nothing (and types nothing).
    a.on_key(alt('7'));
    assert_eq!(a.viewed_member(), None);
    assert_eq!(a.input.text(), "");
    let s = screen(&mut a);
    assert!(
        s.contains("alpha answer more") && s.contains("beta answer more"),
        "{s}"
    );

    // Tab still completes a command first.
    a.on_key(key(KeyCode::Char('/')));
    a.on_key(key(KeyCode::Char('h')));
    a.on_key(key(KeyCode::Char('e')));
    a.on_key(key(KeyCode::Tab));
    assert_eq!(a.input.text(), "/help");
    assert_eq!(a.viewed_member(), None);
}

#[test]
fn plain_text_goes_to_the_member_on_screen() {
    let mut a = room(&["a", "b"]);
    a.on_key(alt('2'));
    type_line(&mut a, "hello b");
    assert_eq!(a.take_effects(), [Effect::Prompt("@b hello b".into())]);
    let s = screen(&mut a);
    assert!(s.contains("you → b ❯ hello b"), "{s}");
    // The prompt is b's: a's tab does not show it.
    a.on_key(alt('1'));
    assert!(!screen(&mut a).contains("hello b"));
    // `@NAME` from a member's tab goes to NAME and brings its tab up.
    type_line(&mut a, "@b again");
    assert_eq!(a.take_effects(), [Effect::Prompt("@b again".into())]);
    assert_eq!(a.viewed_member(), Some("b"));
    assert!(screen(&mut a).contains("you → b ❯ again"));
    // No such member: as typed, for the shell to refuse.
    type_line(&mut a, "@nobody hi");
    assert_eq!(a.take_effects(), [Effect::Prompt("@nobody hi".into())]);
    assert!(screen(&mut a).contains("you ❯ @nobody hi"));
    // In the all tab plain text goes as typed (to the member last
    // addressed, the shell's rule) and says who that is.
    a.on_key(alt('0'));
    type_line(&mut a, "in all");
    assert_eq!(a.take_effects(), [Effect::Prompt("in all".into())]);
    assert_eq!(a.target_member(), Some("b"));
    let s = screen(&mut a);
    assert!(s.contains("you → b ❯ in all"), "{s}");
    assert!(
        s.contains("prompt → b"),
        "the input says where text goes: {s}"
    );
    // A handoff gives the receiver the word, here as in the shell.
    type_line(&mut a, "/handoff a go on");
    assert_eq!(a.target_member(), Some("a"));
}

#[test]
fn an_approval_marks_its_members_tab_and_comes_forward_on_it() {
    let mut a = room(&["a", "b"]);
    a.on_key(alt('1'));
    feed(
        &mut a,
        vec![
            start("a"),
            start("b"),
            ask("a", "t1", "a.txt"),
            ask("b", "t1", "b.txt"),
        ],
    );
    // Watching a: a's card is up, b's waits and b's tab is marked.
    let s = screen(&mut a);
    assert!(s.contains("approval needed: a"), "{s}");
    assert!(s.contains("2 b ⚑ approval"), "{s}");
    assert!(!s.contains("b.txt"), "b's call is in b's tab: {s}");
    // On b's tab, b's card comes to the front; y answers b's call.
    a.on_key(alt('2'));
    let s = screen(&mut a);
    assert!(
        s.contains("approval needed: b") && s.contains("b.txt"),
        "{s}"
    );
    a.on_key(key(KeyCode::Char('y')));
    assert_eq!(
        a.take_effects(),
        [Effect::Decide {
            tool_id: "t1".into(),
            option: ApprovalOption::AllowOnce,
            agent: Some("b".into()),
        }]
    );
    assert!(
        screen(&mut a).contains("approval needed: a"),
        "a's still waits"
    );
}

#[test]
fn esc_and_ctrl_c_stop_the_member_on_screen_and_a_quick_second_ctrl_c_all() {
    let mut a = room(&["a", "b"]);
    feed(
        &mut a,
        vec![start("a"), start("b"), chunk("a", "x"), chunk("b", "y")],
    );
    a.on_key(alt('2'));
    a.on_key(key(KeyCode::Esc));
    assert_eq!(a.take_effects(), [Effect::InterruptMember("b".into())]);
    assert!(bar(&mut a).contains("2 b ■ stopping"));
    // A chunk still in flight does not make it look streaming again.
    feed(&mut a, vec![chunk("b", "z")]);
    assert!(bar(&mut a).contains("2 b ■ stopping"));
    assert!(bar(&mut a).contains("1 a ● streaming"), "a goes on");

    a.on_key(alt('1'));
    a.on_key_at(ctrl_c(), t0());
    assert_eq!(a.take_effects(), [Effect::InterruptMember("a".into())]);
    assert!(a.hint.as_deref().unwrap().contains("Ctrl+C again"));
    a.on_key_at(ctrl_c(), t0() + Duration::from_secs(1));
    assert_eq!(a.take_effects(), [Effect::Interrupt], "all of them");

    // Too slow a second press is a first press again.
    let mut a = room(&["a", "b"]);
    feed(&mut a, vec![start("a"), chunk("a", "x")]);
    a.on_key_at(ctrl_c(), t0());
    assert_eq!(a.take_effects(), [Effect::InterruptMember("a".into())]);
    a.on_key_at(ctrl_c(), t0() + Duration::from_secs(3));
    assert_eq!(a.take_effects(), [Effect::InterruptMember("a".into())]);
    // Another key between the two presses disarms it too.
    a.on_key(key(KeyCode::Char('x')));
    a.on_key_at(ctrl_c(), t0() + Duration::from_secs(4));
    assert_eq!(a.take_effects(), [Effect::InterruptMember("a".into())]);

    // Esc on an idle member's tab stops nobody and says how to.
    let mut a = room(&["a", "b"]);
    feed(&mut a, vec![start("a"), chunk("a", "x")]);
    a.on_key(alt('2'));
    a.on_key(key(KeyCode::Esc));
    assert!(a.take_effects().is_empty());
    assert!(a.hint.as_deref().unwrap().contains("b is idle"));
    // Once every turn ended, Ctrl+C twice quits as ever.
    feed(&mut a, vec![end("a")]);
    a.on_key(ctrl_c());
    a.on_key(ctrl_c());
    assert_eq!(a.take_effects(), [Effect::Quit]);
}

#[test]
fn members_names_and_states_are_inert_on_screen() {
    let evil = "ev\u{1b}[2Jil\u{7}";
    let mut a = room(&[evil, "b"]);
    feed(
        &mut a,
        vec![start(evil), chunk(evil, "hi"), ask(evil, "t1", "x")],
    );
    a.on_key(alt('1'));
    let s = screen(&mut a);
    assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{s:?}");
    assert!(s.contains("1 evil ⚑ approval"), "{s}");
    a.on_key(alt('0'));
    let s = screen(&mut a);
    assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{s:?}");
    type_line(&mut a, "x");
    assert!(!screen(&mut a).contains('\u{1b}'));
}

/// The screen of the README and the book (a room of two, one answering,
/// one asking), kept by `insta`; the README's and the book's copies must
/// be the same.
#[test]
fn the_readmes_room_screen_is_this_one() {
    let mut a = room(&["claude", "codex"]);
    type_line(&mut a, "/compare add a --verbose flag");
    a.take_effects();
    feed(
        &mut a,
        vec![
            start("claude"),
            start("codex"),
            chunk(
                "claude",
                "I'll add `--verbose` to the CLI arguments and thread it into the logger.",
            ),
            chunk("codex", "Looking at `src/cli.rs` first."),
            ask("codex", "t1", "src/cli.rs"),
        ],
    );
    a.on_key(alt('1'));
    feed(
        &mut a,
        vec![chunk(
            "claude",
            "\n\nDone: `cohost -v` now logs every event.",
        )],
    );
    let text = screen_at(&mut a, 90, 15);
    insta::assert_snapshot!("room_tabs", &text);
    for doc in ["README.md", "docs/book/src/rooms.md"] {
        let path = format!("{}/../../{doc}", env!("CARGO_MANIFEST_DIR"));
        let text_of_doc = std::fs::read_to_string(&path).unwrap();
        let shown = text_of_doc
            .split("<!-- tui-room -->\n```text\n")
            .nth(1)
            .and_then(|r| r.split("```").next())
            .unwrap_or_else(|| panic!("{doc} has the room screen after <!-- tui-room -->"));
        assert_eq!(
            shown.trim_end(),
            text.trim_end(),
            "{doc}'s room screen is out of date: paste tests/snapshots/room_tabs__room_tabs.snap"
        );
    }
}

#[test]
fn split_shows_members_side_by_side_and_narrow_screens_keep_tabs() {
    let mut one = App::new(Mode::Chat, Theme::new(false));
    type_line(&mut one, "/split");
    assert!(screen(&mut one).contains("/add an agent first"));

    let mut a = room(&["a", "b"]);
    feed(
        &mut a,
        vec![
            start("a"),
            start("b"),
            chunk("a", "alpha answer"),
            chunk("b", "beta answer"),
            ask("b", "t1", "b.txt"),
        ],
    );
    assert!(screen(&mut a).contains("approval needed: b"));
    type_line(&mut a, "/split");
    let s = screen(&mut a);
    assert!(s.contains("approval needed: b"), "{s}");
    let title = s.lines().next().unwrap();
    assert!(title.starts_with("[1 a ● streaming]"), "{s}");
    assert!(title.contains("│  2 b ⚑ approval"), "{s}");
    // Both answers, each in its own column, a's left of the separator.
    let col = |needle: &str| {
        let row = s.lines().find(|l| l.contains(needle)).expect(needle);
        (row.find(needle).unwrap(), row.find('│').unwrap())
    };
    let (alpha, sep) = col("alpha answer");
    assert!(alpha < sep, "{s}");
    let (beta, sep) = col("beta answer");
    assert!(beta > sep, "{s}");
    assert!(s.contains("b.txt"), "b's call in b's column: {s}");
    assert!(!s.contains("[all]"), "no tab bar side by side: {s}");
    // Tab moves the column text goes to.
    a.on_key(key(KeyCode::Tab));
    type_line(&mut a, "to b");
    assert_eq!(a.take_effects(), [Effect::Prompt("@b to b".into())]);
    assert!(screen(&mut a)
        .lines()
        .next()
        .unwrap()
        .contains("[2 b ⚑ approval]"));
    // Too narrow for two columns of 30: the tabs.
    let s = screen_at(&mut a, 50, 16);
    assert!(s.lines().next().unwrap().contains("[2 b"), "{s}");
    // Alt+0 (all) ends it; /split again too.
    a.on_key(alt('0'));
    assert!(!a.split());
    type_line(&mut a, "/split");
    assert!(a.split());
    type_line(&mut a, "/split");
    assert!(!a.split());
}

/// Any key but an answer leaves the approval card up (it used to take it
/// off the screen unanswered, the call then waiting for its deadline).
#[test]
fn a_key_that_is_no_answer_leaves_the_card() {
    let mut a = App::new(Mode::Chat, Theme::new(false));
    feed(
        &mut a,
        vec![ev(
            None,
            EventBody::ToolApprovalRequested {
                tool_id: "t1".into(),
                name: "write_file".into(),
                kind: ToolKind::Edit,
                input: serde_json::json!({ "path": "x" }),
                options: vec![ApprovalOption::AllowOnce],
                deadline_ms: 60_000,
            },
        )],
    );
    a.on_key(key(KeyCode::Char('x')));
    assert!(a.approval.is_some());
    assert!(screen(&mut a).contains("approval needed"));
    a.on_key(key(KeyCode::Char('y')));
    assert!(a.approval.is_none());
}

/// A participant's screen has the tabs too: the host's prompt to a member
/// is on that member's tab, and a co-driver's line typed on a member's
/// tab is suggested to that member.
#[test]
fn a_co_driver_sees_the_tabs_and_suggests_to_the_member_on_screen() {
    let mut a = App::new(Mode::Participant { co_driver: true }, Theme::new(false));
    feed(
        &mut a,
        vec![
            Incoming::Members(vec!["a".into(), "b".into()]),
            Incoming::PromptedMember {
                who: "host → b".into(),
                member: "b".into(),
                text: "fix the test".into(),
            },
            start("b"),
            chunk("b", "on it"),
        ],
    );
    assert!(bar(&mut a).contains("2 b ● streaming"));
    a.on_key(alt('1'));
    let s = screen(&mut a);
    assert!(!s.contains("fix the test") && !s.contains("on it"), "{s}");
    a.on_key(alt('2'));
    let s = screen(&mut a);
    assert!(
        s.contains("host → b ❯ fix the test") && s.contains("on it"),
        "{s}"
    );
    type_line(&mut a, "also the docs");
    assert_eq!(
        a.take_effects(),
        [Effect::Suggest("@b also the docs".into())]
    );
    // Esc asks the host to stop the turn, as a co-driver always could.
    a.on_key(key(KeyCode::Esc));
    assert_eq!(a.take_effects(), [Effect::Interrupt]);
}

/// A member whose agent died says so on its tab until its next turn
/// starts it again; the room is not busy for it, and the others go on.
#[test]
fn a_crashed_member_says_so_until_its_next_turn() {
    let mut a = room(&["a", "b"]);
    feed(
        &mut a,
        vec![
            start("a"),
            start("b"),
            chunk("b", "working"),
            ev(
                Some("a"),
                EventBody::Error(cohost_core::CohostError::new(
                    cohost_core::ErrorCode::ProcessCrashed,
                    "the agent exited (code 1)",
                )),
            ),
            ev(
                Some("a"),
                EventBody::StreamEnd {
                    reason: EndReason::Error,
                    usage: None,
                },
            ),
        ],
    );
    let b = bar(&mut a);
    assert!(
        b.contains("1 a ✗ crashed") && b.contains("2 b ● streaming"),
        "{b}"
    );
    assert_eq!(a.member_state("a"), "crashed");
    feed(&mut a, vec![end("b")]);
    assert!(!a.busy(), "a crashed member runs nothing");
    feed(&mut a, vec![start("a")]);
    assert!(bar(&mut a).contains("1 a ● streaming"));
}
