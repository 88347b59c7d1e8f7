//! Golden transcripts of the real gemini 0.61.0 (captured against
//! cohost-fakellm) replayed through the normalizer, plus malformed input.

use super::*;
use crate::process::oneshot::check_snapshot;
use crate::process::oneshot::TurnNormalizer;
use crate::process::ExitInfo;
use std::path::PathBuf;

fn replay(scenario: &str) -> (Vec<AgentEvent>, GeminiNormalizer) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini/0.61.0");
    let text = std::fs::read_to_string(dir.join(format!("{scenario}.jsonl"))).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["cohost_fixture"]["tool"], "gemini");
    let mut n = GeminiNormalizer::new();
    let events: Vec<AgentEvent> = lines.flat_map(|l| n.push(l)).collect();
    check_snapshot(dir.join(format!("{scenario}.events")), &events);
    (events, n)
}

fn end(ev: &[AgentEvent]) -> Option<EndReason> {
    match ev.last() {
        Some(AgentEvent::Ended { reason, .. }) => Some(*reason),
        _ => None,
    }
}

#[test]
fn text_turn() {
    let (ev, n) = replay("text");
    assert!(matches!(&ev[0], AgentEvent::Started { session_id: Some(s), .. } if s.len() == 36));
    let text: Vec<&str> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(text.len() >= 2);
    // The echoed user message is not output.
    assert_eq!(text.concat(), "Hello from fake-llm. You said: say hello");
    assert!(
        matches!(ev.last(), Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }) if u.output_tokens == 37)
    );
    assert_eq!(n.unknown_count(), 0);
}

#[test]
fn tools_are_advisory_calls_with_results() {
    let (ev, _) = replay("tool_auto_approve");
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCall(c) if c.name == "run_shell_command" && c.kind == ToolKind::Execute)));
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecuted {
            status: ToolStatus::Ok,
            ..
        }
    )));
    assert!(!ev
        .iter()
        .any(|e| matches!(e, AgentEvent::ApprovalRequested { .. })));
    let (ev, _) = replay("tool_default_mode");
    assert!(!ev
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolCall(c) if c.kind == ToolKind::Execute)));
}

#[test]
fn errors_map_to_the_taxonomy() {
    for (scenario, code) in [
        ("error_401", ErrorCode::AuthRequired),
        ("error_429", ErrorCode::RateLimited),
        ("error_context", ErrorCode::ContextWindowExceeded),
        ("error_500", ErrorCode::NetworkError),
        ("error_malformed", ErrorCode::NetworkError),
    ] {
        let (ev, _) = replay(scenario);
        let codes: Vec<ErrorCode> = ev
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Error(e) => Some(e.code),
                _ => None,
            })
            .collect();
        assert_eq!(codes, [code], "{scenario}");
        assert_eq!(end(&ev), Some(EndReason::Error), "{scenario}");
    }
}

#[test]
fn sigint_leaves_no_result_and_the_driver_closes_the_turn() {
    let (ev, mut n) = replay("interrupted_by_sigint");
    assert_eq!(end(&ev), None);
    assert!(!n.ended());
    let exit = ExitInfo {
        code: Some(0),
        signal: None,
    };
    assert_eq!(
        n.on_exit(Some(exit), "", true),
        Some(crate::process::oneshot::interrupted_end())
    );
    // Without an interrupt, a silent exit is a crash (None = close without Ended).
    assert_eq!(n.on_exit(Some(exit), "", false), None);
}

#[test]
fn resume_turn_completes() {
    let (ev, _) = replay("resume");
    assert_eq!(end(&ev), Some(EndReason::Completed));
}

#[test]
fn malformed_and_unknown_lines() {
    let mut n = GeminiNormalizer::new();
    for junk in ["{\"type\":\"message\",\"role\":\"assis", "not json", "42"] {
        let out = n.push(junk);
        assert!(
            matches!(out.as_slice(), [AgentEvent::Error(e)] if e.code == ErrorCode::InvalidOutput && !e.retryable),
            "{junk}"
        );
    }
    assert!(n.push(r#"{"type":"hologram","x":1}"#).is_empty());
    let huge = format!(
        r#"{{"type":"message","role":"assistant","content":"{}","delta":true}}"#,
        "x".repeat(4 << 20)
    );
    assert!(matches!(n.push(&huge).as_slice(), [AgentEvent::TextDelta(t)] if t.len() == 4 << 20));
    assert_eq!(n.unknown_count(), 1);
    assert!(!n.ended());
}

#[test]
fn auth_failure_at_exit_is_a_failed_turn_not_a_crash() {
    let mut n = GeminiNormalizer::new();
    let exit = ExitInfo {
        code: Some(41),
        signal: None,
    };
    let out = n
        .on_exit(Some(exit), "Error: API key not valid (401)", false)
        .unwrap();
    assert!(matches!(&out[0], AgentEvent::Error(e) if e.code == ErrorCode::AuthRequired));
    // Killed by a signal: a crash.
    let killed = ExitInfo {
        code: None,
        signal: Some(9),
    };
    assert_eq!(n.on_exit(Some(killed), "401", false), None);
}
