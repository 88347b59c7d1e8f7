//! Two members streaming at once on one screen.

use std::time::Instant;

use cohost_core::{ApprovalOption, EndReason, Event, EventBody, ToolKind};

use crate::app::{App, Effect, Incoming};
use crate::commands::Mode;
use crate::theme::Theme;
use crate::transcript::BlockKind;

fn ev(agent: &str, body: EventBody) -> Incoming {
    Incoming::Event(Event {
        id: "p.1".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: Some(agent.into()),
        body,
    })
}

fn start(agent: &str) -> Incoming {
    ev(
        agent,
        EventBody::StreamStart {
            provider: agent.into(),
            session_id: None,
            model: None,
        },
    )
}

fn chunk(agent: &str, delta: &str) -> Incoming {
    ev(
        agent,
        EventBody::StreamChunk {
            stream_id: "s".into(),
            chunk_index: 0,
            delta: delta.into(),
        },
    )
}

fn end(agent: &str) -> Incoming {
    ev(
        agent,
        EventBody::StreamEnd {
            reason: EndReason::Completed,
            usage: None,
        },
    )
}

fn ask(agent: &str, tool_id: &str) -> Incoming {
    ev(
        agent,
        EventBody::ToolApprovalRequested {
            tool_id: tool_id.into(),
            name: "write_file".into(),
            kind: ToolKind::Edit,
            input: serde_json::json!({"path": "x"}),
            options: vec![ApprovalOption::AllowOnce, ApprovalOption::RejectOnce],
            deadline_ms: 60_000,
        },
    )
}

fn room() -> App {
    let mut a = App::new(Mode::Chat, Theme::new(false));
    a.on_incoming(
        Incoming::Members(vec!["a".into(), "b".into()]),
        Instant::now(),
    );
    a
}

fn feed(a: &mut App, msgs: Vec<Incoming>) {
    for m in msgs {
        a.on_incoming(m, Instant::now());
    }
}

fn answers(a: &App) -> Vec<String> {
    a.transcript
        .blocks()
        .iter()
        .filter_map(|b| match &b.kind {
            BlockKind::Answer(md) => Some(md.source().to_owned()),
            BlockKind::Notice(n) if n.starts_with("──") => Some(n.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn interleaved_chunks_grow_each_members_own_answer() {
    let mut a = room();
    feed(
        &mut a,
        vec![
            start("a"),
            start("b"),
            chunk("a", "A one "),
            chunk("b", "B one "),
            chunk("a", "A two"),
            chunk("b", "B two"),
        ],
    );
    // Each answer right under its member's name, however the starts and
    // the chunks interleave.
    assert_eq!(
        answers(&a),
        ["── a ──", "A one A two", "── b ──", "B one B two"]
    );
    assert!(a.busy());
    assert_eq!(a.members.status(), "a streaming · b streaming");
    feed(&mut a, vec![end("a")]);
    assert!(a.busy(), "b still streams");
    assert_eq!(a.members.status(), "a ready · b streaming");
    feed(&mut a, vec![end("b")]);
    assert!(!a.busy());
}

#[test]
fn approvals_wait_their_turn_and_are_answered_to_their_member() {
    let mut a = room();
    // Both members use the same tool id: the screen keeps them apart.
    feed(
        &mut a,
        vec![start("a"), start("b"), ask("a", "t1"), ask("b", "t1")],
    );
    assert_eq!(a.approval.as_ref().unwrap().agent.as_deref(), Some("a"));
    assert_eq!(
        a.members.status(),
        "a waiting for approval · b waiting for approval"
    );
    a.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char('y'),
    ));
    assert_eq!(
        a.take_effects(),
        [Effect::Decide {
            tool_id: "t1".into(),
            option: ApprovalOption::AllowOnce,
            agent: Some("a".into()),
        }]
    );
    // The decision comes back as a's event: b's request shows next.
    feed(
        &mut a,
        vec![ev(
            "a",
            EventBody::ToolApprovalDecided {
                tool_id: "t1".into(),
                decision: ApprovalOption::AllowOnce,
                origin: cohost_core::DecisionOrigin::User,
                deciders: Vec::new(),
            },
        )],
    );
    let card = a.approval.as_ref().expect("b's approval shows");
    assert_eq!(card.agent.as_deref(), Some("b"));
    assert_eq!(card.call_id(), "t1");
    // b's turn ends without an answer: its card goes.
    feed(&mut a, vec![end("b")]);
    assert!(a.approval.is_none());
}

#[test]
fn in_a_room_prompts_are_sent_at_once_and_room_commands_are_effects() {
    let mut a = room();
    feed(&mut a, vec![start("a")]);
    a.send_prompt("@b hello".into());
    assert_eq!(a.take_effects(), [Effect::Prompt("@b hello".into())]);
    for (line, effect) in [
        ("/add codex", Effect::AddMember("codex".into())),
        ("/drop b", Effect::DropMember("b".into())),
        ("/members", Effect::Members),
        ("/compare same task", Effect::Compare("same task".into())),
    ] {
        a.input.set(line);
        a.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Enter,
        ));
        assert_eq!(a.take_effects(), [effect], "{line}");
    }
    feed(&mut a, vec![end("a")]);
    a.input.set("/keep b --merge");
    a.on_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Enter,
    ));
    assert_eq!(
        a.take_effects(),
        [Effect::Keep {
            name: "b".into(),
            merge: true
        }]
    );
}

#[test]
fn the_host_console_changes_a_shared_room_as_the_chat_does() {
    let mut a = App::new(Mode::Host, Theme::new(false));
    a.on_incoming(
        Incoming::Members(vec!["a".into(), "b".into()]),
        Instant::now(),
    );
    for (line, effect) in [
        ("/add codex", Effect::AddMember("codex".into())),
        ("/drop b", Effect::DropMember("b".into())),
        (
            "/handoff b check it",
            Effect::Handoff {
                to: "b".into(),
                text: "check it".into(),
            },
        ),
        (
            "/keep a",
            Effect::Keep {
                name: "a".into(),
                merge: false,
            },
        ),
    ] {
        a.input.set(line);
        a.on_key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Enter,
        ));
        assert_eq!(a.take_effects(), [effect], "{line}");
    }
    // The help names them, and still fits a 24-row terminal.
    let help = crate::commands::help(Mode::Host);
    assert!(
        help.contains("/handoff NAME · /members · /drop NAME · /keep NAME"),
        "{help}"
    );
    assert!(help.lines().count() < 24, "{help}");
}
