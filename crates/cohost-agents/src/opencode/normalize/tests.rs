//! Golden transcripts of the real opencode 1.18.33 (captured against
//! cohost-fakellm) replayed through the normalizer, plus malformed input.

use super::*;
use crate::process::oneshot::replay_fixture;
use crate::process::ExitInfo;

fn replay(scenario: &str) -> Vec<AgentEvent> {
    replay_fixture(
        "opencode",
        "1.18.33",
        scenario,
        OpenCodeNormalizer::<OpenCode>::new(),
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

#[test]
fn text_part_is_one_chunk_and_exit_zero_completes() {
    let ev = replay("text");
    assert!(
        matches!(&ev[0], AgentEvent::Started { session_id: Some(s), .. } if s.starts_with("ses_"))
    );
    assert_eq!(texts(&ev), "Hello from fake-llm. You said: \"say hello\"");
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, AgentEvent::TextDelta(_)))
            .count(),
        1
    );
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) })
            if u.input_tokens == 7687 && u.output_tokens == 10
    ));
}

#[test]
fn allowed_tool_is_call_then_result_and_usage_adds_up() {
    let ev = replay("tool_default_allow");
    let call = ev.iter().position(|e| {
        matches!(e, AgentEvent::ToolCall(c) if c.name == "bash" && c.kind == ToolKind::Execute
            && c.tool_id == "call_fakellm_000004"
            && c.input["command"] == "echo cohost-tool-ok > cohost_tool_output.txt")
    });
    let done = ev.iter().position(|e| {
        matches!(e, AgentEvent::ToolExecuted { status: ToolStatus::Ok, output, .. } if output == "(no output)")
    });
    assert!(call.unwrap() < done.unwrap(), "{ev:#?}");
    assert_eq!(texts(&ev), "Tool said: (no output)");
    // Two steps: 7691+7760 input, 14+5 output.
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) })
            if u.input_tokens == 15451 && u.output_tokens == 19
    ));
}

#[test]
fn rejected_ask_permission_is_a_denied_tool() {
    let ev = replay("tool_ask_rejected");
    assert!(ev.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecuted {
            status: ToolStatus::Denied,
            ..
        }
    )));
    assert!(!ev
        .iter()
        .any(|e| matches!(e, AgentEvent::ApprovalRequested { .. })));
}

#[test]
fn api_401_is_auth_required_error_turn() {
    let ev = replay("error_401");
    assert!(
        ev.iter().any(
            |e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::AuthRequired
                && err.message.contains("401") && err.suggested_fix.is_some())
        ),
        "{ev:#?}"
    );
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Error,
            ..
        })
    ));
}

#[test]
fn malformed_and_unknown_lines_are_skipped_not_fatal() {
    let mut n = OpenCodeNormalizer::<OpenCode>::new();
    let mut ev = Vec::new();
    for l in [
        "not json at all",
        "{\"type\":\"text\",\"part\":",
        "{\"type\":\"some_future_event\",\"x\":1}",
        "[1,2,3]",
        "{\"type\":\"text\",\"sessionID\":\"ses_x\",\"part\":{\"text\":42}}",
        "{\"type\":\"tool_use\",\"sessionID\":\"ses_x\",\"part\":{}}",
        "{\"type\":\"text\",\"sessionID\":\"ses_x\",\"part\":{\"text\":\"ok\"}}",
    ] {
        ev.extend(n.on_line(l));
    }
    assert_eq!(n.skipped_lines, 5, "{ev:#?}");
    // A tool part without a state reports the call, no result.
    assert!(ev
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolCall(c) if c.name == "tool")));
    assert_eq!(texts(&ev), "ok");
    assert!(!n.ended());
    let tail = n
        .on_exit(
            Some(ExitInfo {
                code: Some(0),
                signal: None,
            }),
            "",
            false,
        )
        .unwrap();
    assert!(matches!(
        tail.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Completed,
            usage: None
        })
    ));
}

#[test]
fn crash_without_known_cause_is_a_crash_and_sigint_is_interrupted() {
    let mut n = OpenCodeNormalizer::<OpenCode>::new();
    n.on_line("{\"type\":\"step_start\",\"sessionID\":\"ses_1\",\"part\":{}}");
    let crash = Some(ExitInfo {
        code: None,
        signal: Some(9),
    });
    assert!(n.on_exit(crash, "segfault", false).is_none());
    let mut n = OpenCodeNormalizer::<OpenCode>::new();
    let tail = n.on_exit(crash, "", true).unwrap();
    assert!(matches!(
        tail.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Interrupted,
            ..
        })
    ));
}
