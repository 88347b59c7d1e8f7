//! Golden transcripts of the real aider 0.86.2 (captured against
//! cohost-fakellm) replayed through the line classifier, plus edits and
//! malformed input.

use super::*;
use crate::process::oneshot::replay_fixture;
use crate::process::ExitInfo;

fn replay(s: &str) -> Vec<AgentEvent> {
    replay_fixture("aider", "0.86.2", s, AiderNormalizer::new())
}

fn text(ev: &[AgentEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn banner_is_dropped_answer_and_tokens_kept() {
    let ev = replay("text");
    let t = text(&ev);
    assert!(
        t.starts_with("Hello from fake-llm. You said: say hello"),
        "{t:?}"
    );
    assert!(
        !t.contains("Aider v") && !t.contains("Repo-map") && !t.contains("Tokens:"),
        "{t:?}"
    );
    assert!(
        matches!(ev.last(), Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) })
        if u.input_tokens == 593 && u.output_tokens == 55)
    );
}

#[test]
fn restored_history_notice_is_noise() {
    let ev = replay("resume");
    assert!(text(&ev).starts_with("Hello from fake-llm. You said: second turn"));
}

#[test]
fn litellm_auth_error_is_auth_required_despite_exit_zero() {
    let ev = replay("error_401");
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::Error(err)
        if err.code == ErrorCode::AuthRequired && err.message.contains("Incorrect"))),
        "{ev:#?}"
    );
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Error,
            ..
        })
    ));
    assert!(text(&ev).is_empty(), "the error report is not answer text");
}

#[test]
fn edits_commits_and_dry_runs_are_tool_events() {
    let mut n = AiderNormalizer::new();
    let mut ev = Vec::new();
    for l in [
        "Aider v0.86.2",
        "",
        "hello.txt",
        "```",
        "hi",
        "```",
        "Applied edit to hello.txt",
        "Commit 1a2b3c4 feat: add hello.txt",
        "Create new file? (Y)es/(N)o [Yes]: Did not apply edit to other.txt (--dry-run)",
        "Open URL for more info? (Y)es/(N)o/(D)on't ask again [Yes]: ",
        "Commit to the plan",
        "Tokens: 1.2k sent, 3 received.",
    ] {
        ev.extend(n.on_line(l));
    }
    let calls: Vec<(&str, ToolStatus)> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolExecuted { status, output, .. } => Some((output.as_str(), *status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("Applied edit to hello.txt", ToolStatus::Ok),
            ("Commit 1a2b3c4 feat: add hello.txt", ToolStatus::Ok),
            (
                "Did not apply edit to other.txt (--dry-run)",
                ToolStatus::Denied
            )
        ]
    );
    assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCall(c) if c.kind == ToolKind::Edit && c.input["path"] == "other.txt")));
    assert_eq!(text(&ev), "hello.txt\n```\nhi\n```\nCommit to the plan\n");
    assert!(ev.contains(&AgentEvent::Usage(Usage {
        input_tokens: 1200,
        output_tokens: 3,
        ..Usage::default()
    })));
}

#[test]
fn odd_lines_and_crashes() {
    let mut n = AiderNormalizer::new();
    let ev = n.on_line("Tokens: lots sent");
    assert_eq!(text(&ev), "Tokens: lots sent\n");
    let crash = Some(ExitInfo {
        code: Some(1),
        signal: None,
    });
    assert!(n
        .on_exit(crash, "Traceback (most recent call last):", false)
        .is_none());
    let mut n = AiderNormalizer::new();
    let tail = n
        .on_exit(
            Some(ExitInfo {
                code: None,
                signal: Some(2),
            }),
            "",
            true,
        )
        .unwrap();
    assert!(matches!(
        tail.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Interrupted,
            ..
        })
    ));
}

/// What aider 0.86.2 prints when litellm raises a retryable error
/// (`base_coder.py`: `tool_warning(str(err))`, the description, then
/// `Retrying in {delay:.1f} seconds...`).
const RETRY_REPORT: [&str; 3] = [
    "litellm.InternalServerError: InternalServerError: OpenAIException - Internal Server Error",
    "The API provider's servers are down or overloaded.",
    "Retrying in 0.2 seconds...",
];

fn exit_zero() -> Option<ExitInfo> {
    Some(ExitInfo {
        code: Some(0),
        signal: None,
    })
}

#[test]
fn a_retried_litellm_error_is_a_notice_and_the_answer_completes() {
    let mut n = AiderNormalizer::new();
    let mut ev = Vec::new();
    for l in ["Aider v0.86.2", "Model: openai/fake with whole edit format"]
        .into_iter()
        .chain(RETRY_REPORT)
        .chain(["Hello after the retry.", "Tokens: 10 sent, 4 received."])
    {
        ev.extend(n.on_line(l));
    }
    ev.extend(n.on_exit(exit_zero(), "", false).unwrap());
    assert!(
        !ev.iter().any(|e| matches!(e, AgentEvent::Error(_))),
        "{ev:#?}"
    );
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::Status { message, retry_after_ms: Some(200) }
            if message.contains("InternalServerError") && message.contains("Retrying in 0.2 seconds"))),
        "{ev:#?}"
    );
    assert_eq!(text(&ev), "Hello after the retry.\n");
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Completed,
            ..
        })
    ));
}

#[test]
fn a_litellm_error_without_retry_still_ends_the_turn() {
    let mut n = AiderNormalizer::new();
    let mut ev = Vec::new();
    for l in ["Aider v0.86.2"]
        .into_iter()
        .chain(RETRY_REPORT[..2].iter().copied())
    {
        ev.extend(n.on_line(l));
    }
    ev.extend(n.on_exit(exit_zero(), "", false).unwrap());
    assert!(
        ev.iter().any(|e| matches!(e, AgentEvent::Error(err)
            if err.message.contains("InternalServerError"))),
        "{ev:#?}"
    );
    assert!(!ev.iter().any(|e| matches!(e, AgentEvent::Status { .. })));
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Error,
            ..
        })
    ));
}

#[test]
fn retrying_text_without_a_pending_error_is_answer_text() {
    let mut n = AiderNormalizer::new();
    let ev = n.on_line("Retrying in 2.0 seconds...");
    assert_eq!(text(&ev), "Retrying in 2.0 seconds...\n");
}

/// Lines the pinned aider 0.86.2 printed with no key and no model
/// (`aider --message hi --no-pretty --stream`, empty HOME): it then waits
/// five minutes for a browser sign-in, so the turn ends at the first line.
#[test]
fn no_key_ends_the_turn_signed_out_instead_of_waiting_for_a_browser() {
    let mut n = AiderNormalizer::new();
    let mut ev = Vec::new();
    for line in [
        "Warning: Input is not a terminal (fd=0).",
        "No LLM model was specified and no API keys were provided.",
        "OpenRouter provides free and paid access to many LLMs.",
        "Please open this URL in your browser to connect Aider with OpenRouter:",
    ] {
        ev.extend(n.on_line(line));
    }
    let errors: Vec<&CohostError> = ev
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{ev:?}");
    assert_eq!(errors[0].code, ErrorCode::AuthRequired);
    assert!(
        errors[0]
            .suggested_fix
            .as_deref()
            .unwrap_or("")
            .contains("set $"),
        "{errors:?}"
    );
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Error,
            ..
        })
    ));
    assert!(n.ended());
    assert_eq!(text(&ev), "", "nothing of the sign-in offer is answer text");
}
