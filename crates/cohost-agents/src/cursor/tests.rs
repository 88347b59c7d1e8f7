//! The Cursor driver on fixtures hand-written from Cursor's public docs.

use super::*;
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{replay_fixture, resuming};
use cohost_core::{AgentEvent, ApprovalMode, EndReason, ErrorCode, ToolKind, ToolStatus};

fn replay(s: &str) -> Vec<AgentEvent> {
    replay_fixture("cursor", "docs", s, CursorNormalizer::new())
}

#[test]
fn text_is_whole_messages_with_session_and_model() {
    let ev = replay("text");
    assert_eq!(
        ev[0],
        AgentEvent::Started {
            session_id: Some("c6b62c6f-7ead-4fd6-9922-e952131177ff".into()),
            model: Some("Claude 4 Sonnet".into())
        }
    );
    assert_eq!(
        ev[1],
        AgentEvent::TextDelta("Hello! How can I help?".into())
    );
    assert!(matches!(
        ev[2],
        AgentEvent::Ended {
            reason: EndReason::Completed,
            ..
        }
    ));
    assert_eq!(ev.len(), 3, "the user echo is not output");
}

#[test]
fn tool_calls_map_names_kinds_and_outcomes() {
    let ev = replay("tools");
    let calls: Vec<(String, ToolKind)> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCall(c) => Some((c.name.clone(), c.kind)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("read".to_string(), ToolKind::Read),
            ("write".to_string(), ToolKind::Edit),
            ("shell".to_string(), ToolKind::Execute)
        ]
    );
    let done: Vec<(String, ToolStatus)> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolExecuted {
                tool_id, status, ..
            } => Some((tool_id.clone(), *status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        done,
        [
            ("toolu_01".to_string(), ToolStatus::Ok),
            ("toolu_02".to_string(), ToolStatus::Ok),
            ("toolu_03".to_string(), ToolStatus::Denied)
        ]
    );
    assert!(ev
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolExecuted { output, .. } if output == "# Project\n")));
}

#[test]
fn auth_failure_on_stderr_is_auth_required() {
    let ev = replay("error_exit");
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
fn malformed_input_is_skipped() {
    let mut n = CursorNormalizer::new();
    let mut ev = Vec::new();
    for l in [
        "{",
        "null",
        "{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"x\"}",
        "{\"type\":\"tool_call\",\"subtype\":\"weird\",\"call_id\":\"x\",\"tool_call\":{\"fooToolCall\":{}}}",
        "{\"type\":\"mystery\"}",
        "{\"type\":\"assistant\",\"message\":{\"content\":\"plain\"}}",
        "{\"type\":\"result\",\"subtype\":\"error\",\"is_error\":true,\"result\":\"429 Too Many Requests\"}",
    ] {
        ev.extend(n.on_line(l));
    }
    assert_eq!(n.skipped_lines, 5);
    assert!(ev.contains(&AgentEvent::TextDelta("plain".into())));
    assert!(ev
        .iter()
        .any(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::RateLimited)));
    assert!(n.ended());
}

#[test]
fn force_only_under_auto_approve() {
    let mut cfg = AdapterConfig::default();
    let has = |cfg: &AdapterConfig| {
        Driver
            .turn_args("x", cfg, resuming(Some("s")).as_ref(), false)
            .iter()
            .any(|a| a == "--force")
    };
    assert!(!has(&cfg));
    cfg.approval = ApprovalMode::DenyAll;
    assert!(!has(&cfg));
    cfg.approval = ApprovalMode::AutoApprove;
    assert!(has(&cfg));
}
