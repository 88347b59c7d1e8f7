//! Golden transcripts of the real Copilot CLI 1.0.102 (captured against
//! cohost-fakellm) replayed through the normalizer, plus malformed input.

use super::*;
use crate::process::oneshot::replay_fixture;
use crate::process::ExitInfo;

fn replay(scenario: &str, session: Option<&str>) -> Vec<AgentEvent> {
    replay_fixture(
        "copilot",
        "1.0.102",
        scenario,
        CopilotNormalizer::new(session.map(str::to_string)),
    )
}

fn texts(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn end(ev: &[AgentEvent]) -> Option<EndReason> {
    match ev.last() {
        Some(AgentEvent::Ended { reason, .. }) => Some(*reason),
        _ => None,
    }
}

#[test]
fn deltas_stream_once_and_result_completes() {
    let ev = replay("text", None);
    let deltas = ev
        .iter()
        .filter(|e| matches!(e, AgentEvent::TextDelta(_)))
        .count();
    assert_eq!(deltas, 4, "deltas only, the whole message is not repeated");
    let t = texts(&ev);
    assert!(t.starts_with("Hello from fake-llm. You said: "), "{t}");
    assert!(t.ends_with("say hello"), "{t}");
    assert_eq!(end(&ev), Some(EndReason::Completed));
    assert!(matches!(&ev[0], AgentEvent::Started { model: None, .. }));
}

#[test]
fn chosen_session_id_is_reported_from_the_first_event() {
    let id = "3f1c2a9e-1b2c-4d5e-8f90-0123456789ab";
    let ev = replay("session_id_fresh", Some(id));
    assert!(
        matches!(&ev[0], AgentEvent::Started { session_id: Some(s), .. } if s == id),
        "{ev:#?}"
    );
    assert!(texts(&ev).ends_with("-dash-prompt"));
    let ev = replay("resume", Some(id));
    assert_eq!(end(&ev), Some(EndReason::Completed));
}

#[test]
fn headless_default_denies_the_tool() {
    let ev = replay("tool_default_denied", None);
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCall(c)
        if c.name == "bash" && c.kind == ToolKind::Execute && c.tool_id == "call_fakellm_000002")));
    assert!(ev.iter().any(
        |e| matches!(e, AgentEvent::ToolExecuted { status: ToolStatus::Denied, output, .. }
        if output.contains("Permission denied"))
    ));
    // One call event although both toolRequests and execution_start name it.
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, AgentEvent::ToolCall(_)))
            .count(),
        1
    );
    assert_eq!(end(&ev), Some(EndReason::Completed));
}

#[test]
fn allow_all_tools_runs_it() {
    let ev = replay("tool_allow_all", None);
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecuted {
            status: ToolStatus::Ok,
            ..
        }
    )));
    assert!(texts(&ev).starts_with("Tool said: <shellId: 0 completed"));
}

#[test]
fn reasoning_deltas_are_reasoning() {
    let ev = replay("reasoning", None);
    let r: String = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ReasoningDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(r.starts_with("Thinking about the request:"), "{r}");
    assert!(!texts(&ev).contains("Thinking about"));
}

#[test]
fn auth_failure_is_auth_required() {
    let ev = replay("error_401", None);
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::Error(err)
        if err.code == ErrorCode::AuthRequired && err.suggested_fix.as_deref().is_some_and(|f| f.contains("COPILOT_PROVIDER_API_KEY")))));
    assert_eq!(end(&ev), Some(EndReason::Error));
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, AgentEvent::Error(_)))
            .count(),
        1
    );
}

#[test]
fn sigint_abort_ends_interrupted() {
    let ev = replay("interrupted_by_sigint", None);
    assert_eq!(texts(&ev), "tick 0 ");
    assert_eq!(end(&ev), Some(EndReason::Interrupted));
}

#[test]
fn malformed_lines_are_skipped_and_a_crash_is_a_crash() {
    let mut n = CopilotNormalizer::new(None);
    let mut ev = Vec::new();
    for l in [
        "garbage",
        "{\"type\":\"assistant.message_delta\",\"data\":{\"deltaContent\":5}}",
        "{\"type\":\"assistant.message_delta\"}",
        "{\"type\":\"brand.new\",\"data\":{}}",
        "{\"type\":\"assistant.message_delta\",\"data\":{\"deltaContent\":\"a\"}}",
        "{\"type\":\"tool.execution_complete\",\"data\":{\"toolCallId\":\"t\",\"success\":false}}",
    ] {
        ev.extend(n.on_line(l));
    }
    assert_eq!(n.skipped_lines, 2);
    assert_eq!(texts(&ev), "a");
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecuted {
            status: ToolStatus::Error,
            ..
        }
    )));
    let crash = Some(ExitInfo {
        code: None,
        signal: Some(11),
    });
    assert!(n.on_exit(crash, "Segmentation fault", false).is_none());
    // Killed after cohost interrupted it: an interrupted turn, not a crash.
    let mut n = CopilotNormalizer::new(None);
    let tail = n.on_exit(crash, "", true).unwrap();
    assert_eq!(end(&tail), Some(EndReason::Interrupted));
}
