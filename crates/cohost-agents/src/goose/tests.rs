//! The Goose driver on fixtures hand-written from goose's public docs.

use super::*;
use crate::process::oneshot::replay_fixture;
use crate::process::oneshot::TurnNormalizer;
use cohost_core::{AgentEvent, EndReason, ErrorCode, ToolKind, ToolStatus};

#[test]
fn messages_tools_thinking_and_total_tokens() {
    let ev = replay_fixture(
        "goose",
        "docs",
        "tool_turn",
        GooseNormalizer::new(Some("cohost-x".into())),
    );
    assert_eq!(
        ev[0],
        AgentEvent::Started {
            session_id: Some("cohost-x".into()),
            model: None
        }
    );
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCall(c)
        if c.name == "developer__shell" && c.kind == ToolKind::Execute && c.input["command"] == "ls")));
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolExecuted { status: ToolStatus::Ok, output, .. } if output == "README.md\nsrc")));
    assert!(ev.contains(&AgentEvent::ReasoningDelta("Two entries.".into())));
    assert!(
        matches!(ev.last(), Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }) if u.output_tokens == 1234)
    );
}

#[test]
fn error_event_then_exit_is_an_error_turn() {
    let ev = replay_fixture("goose", "docs", "error", GooseNormalizer::new(None));
    assert!(ev
        .iter()
        .any(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::AuthRequired)));
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Error,
            ..
        })
    ));
}

#[test]
fn malformed_lines_are_skipped() {
    let mut n = GooseNormalizer::new(None);
    let mut ev = Vec::new();
    for l in ["", "nope", "[]", "{\"type\":\"unknown_kind\"}", "{\"type\":\"message\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":7},{\"type\":\"text\",\"text\":\"ok\"}]}}"] {
        ev.extend(n.on_line(l));
    }
    assert_eq!(n.skipped_lines, 3);
    assert!(ev.contains(&AgentEvent::TextDelta("ok".into())));
}

#[test]
fn tools_only_under_auto_approve_and_resume_by_name() {
    assert_eq!(goose_mode(ApprovalMode::AutoApprove), "auto");
    assert_eq!(goose_mode(ApprovalMode::Ask), "chat");
    assert_eq!(goose_mode(ApprovalMode::DenyAll), "chat");
    let s = SessionArg {
        id: "cohost-1".into(),
        fresh: false,
    };
    let a: Vec<String> = Driver
        .turn_args("hi", &AdapterConfig::default(), Some(&s), false)
        .iter()
        .map(|x| x.to_string_lossy().into_owned())
        .collect();
    assert!(a.windows(2).any(|w| w == ["--name", "cohost-1"]));
    assert!(a.contains(&"--resume".to_string()));
    assert_eq!(&a[a.len() - 2..], ["--text", "hi"]);
}
