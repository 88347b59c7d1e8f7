//! A participant's approval card (issue 34): the host's grant arms allow
//! and deny keys on the calls it covers, a vote marks the card until the
//! host says the call is decided, and the decision names who made it.
//! Drawn on ratatui's `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::Instant;

use cohost_core::{ApprovalOption, DecisionOrigin, Event, EventBody, ToolKind};
use cohost_tui::app::{App, Effect, Grant, Incoming};
use cohost_tui::commands::Mode;
use cohost_tui::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn ev(body: EventBody) -> Incoming {
    Incoming::Event(Event {
        id: "p-1.3".into(),
        prompt_id: "p-1".into(),
        correlation_id: "c-1".into(),
        ts: 0,
        agent: None,
        body,
    })
}

fn ask(kind: ToolKind) -> Incoming {
    ev(EventBody::ToolApprovalRequested {
        tool_id: "t1".into(),
        name: "write_file".into(),
        kind,
        input: serde_json::json!({"path": "notes.txt"}),
        options: vec![ApprovalOption::AllowOnce, ApprovalOption::RejectOnce],
        deadline_ms: 60_000,
    })
}

fn decided(deciders: &[&str]) -> Incoming {
    ev(EventBody::ToolApprovalDecided {
        tool_id: "t1".into(),
        decision: ApprovalOption::AllowOnce,
        origin: DecisionOrigin::Remote,
        deciders: deciders.iter().map(|d| (*d).to_string()).collect(),
    })
}

fn screen(a: &mut App) -> String {
    let mut t = Terminal::new(TestBackend::new(100, 24)).unwrap();
    t.draw(|f| cohost_tui::view::draw(f, a, Instant::now()))
        .unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn participant(grant: Option<Grant>) -> App {
    let mut a = App::new(Mode::Participant { co_driver: true }, Theme::new(false));
    a.on_incoming(Incoming::Grant(grant), Instant::now());
    a
}

#[test]
fn a_granted_participant_votes_and_sees_who_decided() {
    let mut a = participant(Some(Grant {
        kinds: vec![ToolKind::Edit],
        quorum: vec![(ToolKind::Edit, 2)],
    }));
    assert!(screen(&mut a).contains("the host lets you approve tool calls (edit)"));
    a.on_incoming(ask(ToolKind::Edit), Instant::now());
    let s = screen(&mut a);
    assert!(s.contains("approval needed"), "{s}");
    assert!(s.contains("y allow  n deny  (2 approvals needed)"), "{s}");
    a.on_key(key('y'));
    assert_eq!(
        a.take_effects(),
        [Effect::Vote {
            tool_id: "t1".into(),
            allow: true
        }]
    );
    // One approval of two: the card stays, marked, and takes no second vote.
    let s = screen(&mut a);
    assert!(
        s.contains("you allowed it · 2 approvals needed: waiting for the others"),
        "{s}"
    );
    a.on_key(key('n'));
    assert!(a.take_effects().is_empty(), "a second vote was sent");
    // Decided by the quorum: the card goes, the call names its deciders.
    a.on_incoming(decided(&["ana (co-driver)", "host"]), Instant::now());
    let s = screen(&mut a);
    assert!(a.approval.is_none());
    assert!(!s.contains("approval needed"), "{s}");
    assert!(s.contains("by ana (co-driver), host"), "{s}");
}

#[test]
fn without_a_grant_or_for_another_kind_the_card_only_waits() {
    for grant in [
        None,
        Some(Grant {
            kinds: vec![ToolKind::Execute],
            quorum: Vec::new(),
        }),
    ] {
        let mut a = participant(grant);
        a.on_incoming(ask(ToolKind::Edit), Instant::now());
        let s = screen(&mut a);
        assert!(s.contains("waiting for the host's decision"), "{s}");
        assert!(!s.contains("y allow  n deny"), "{s}");
        a.on_key(key('y'));
        assert!(a.take_effects().is_empty(), "a vote without the grant");
        assert_eq!(a.input.text(), "y", "the key is typed text");
    }
}

#[test]
fn a_deny_is_one_vote_and_a_grant_taken_back_disarms_the_keys() {
    let mut a = participant(Some(Grant::default()));
    a.on_incoming(ask(ToolKind::Execute), Instant::now());
    a.on_key(key('n'));
    assert_eq!(
        a.take_effects(),
        [Effect::Vote {
            tool_id: "t1".into(),
            allow: false
        }]
    );
    assert!(screen(&mut a).contains("you denied it · waiting for the host"));
    let mut a = participant(Some(Grant::default()));
    a.on_incoming(ask(ToolKind::Execute), Instant::now());
    a.on_incoming(Incoming::Grant(None), Instant::now());
    assert!(screen(&mut a).contains("only the host approves tool calls"));
    a.on_key(key('y'));
    assert!(a.take_effects().is_empty());
}
