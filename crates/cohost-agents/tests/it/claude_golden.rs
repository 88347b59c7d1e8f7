//! Golden transcripts of the Claude stream-json family (Claude Code and Qwen
//! Code), captured from the pinned CLIs against cohost-fakellm, replayed
//! through the pure normalizer. Each fixture has a snapshot of the normalized
//! events beside it (`<scenario>.events`, `cohost_testbench::snapshot`); set
//! `INSTA_UPDATE=always` to rewrite them after reviewing a change.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::drivers::claude::{Dialect, CLAUDE, QWEN};
use cohost_agents::parsers::claude::{Normalizer, NormalizerConfig, Output, Stats};
use cohost_agents::process::{Frame, LineFramer};
use cohost_core::{AgentEvent, ApprovalOption, EndReason, ErrorCode, ToolDecision, ToolStatus};
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture_dir(family: &str, version: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(family)
        .join(version)
}

fn normalizer(dialect: Dialect) -> Normalizer {
    Normalizer::new(NormalizerConfig {
        dialect,
        deny_all: false,
        no_approvals: false,
    })
}

/// Replay a transcript: `>>` lines are what the host wrote (re-enacted as
/// normalizer calls), `#` lines are headers, the rest is CLI stdout.
fn replay(dialect: Dialect, text: &str) -> (Vec<AgentEvent>, Vec<String>, Stats) {
    let mut n = normalizer(dialect);
    let mut out = Vec::new();
    let mut last_approval: Option<String> = None;
    let mut events = Vec::new();
    let mut writes = Vec::new();
    for line in text.lines() {
        if line.starts_with("# ") || line.starts_with("## ") {
            continue;
        }
        if let Some(sent) = line.strip_prefix(">> ") {
            let v: Value = serde_json::from_str(sent).expect("fixture host line is JSON");
            match (v["type"].as_str(), v["request"]["subtype"].as_str()) {
                (Some("control_request"), Some("initialize")) => {
                    n.initialize();
                }
                (Some("control_request"), Some("interrupt")) => {
                    n.interrupt();
                }
                (Some("user"), _) => {
                    n.begin_turn(v["message"]["content"].as_str().unwrap_or_default());
                }
                (Some("control_response"), _) => {
                    let behavior = v["response"]["response"]["behavior"].as_str();
                    let tool_id = last_approval.take().expect("an approval was requested");
                    let option = if behavior == Some("allow") {
                        ApprovalOption::AllowOnce
                    } else {
                        ApprovalOption::RejectOnce
                    };
                    let line = n
                        .decide(&ToolDecision {
                            tool_id,
                            option,
                            message: Some("denied by test".into()),
                        })
                        .expect("pending approval");
                    let ours: Value = serde_json::from_str(&line).unwrap();
                    // What we would write must be what the CLI accepted.
                    assert_eq!(ours["response"]["response"], v["response"]["response"]);
                }
                other => panic!("unexpected host line {other:?}"),
            }
            continue;
        }
        n.on_line(line, &mut out);
        for o in out.drain(..) {
            match o {
                Output::Event(ev) => {
                    if let AgentEvent::ApprovalRequested { call, .. } = &ev {
                        last_approval = Some(call.tool_id.clone());
                    }
                    events.push(ev);
                }
                Output::Write(w) => writes.push(w),
                Output::Ready(_) | Output::Steered(..) => {}
            }
        }
    }
    (events, writes, n.stats())
}

fn check_snapshot(family: &str, version: &str, scenario: &str, events: &[AgentEvent]) {
    let path = fixture_dir(family, version).join(format!("{scenario}.events"));
    cohost_testbench::snapshot::check_events(&path, events);
}

fn run(dialect: Dialect, family: &str, version: &str, scenario: &str) -> Vec<AgentEvent> {
    let path = fixture_dir(family, version).join(format!("{scenario}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with(&format!(
            "# tool: {}",
            if family == "claude" {
                "claude-code"
            } else {
                "qwen-code"
            }
        )),
        "fixture header missing in {}",
        path.display()
    );
    let (events, _writes, stats) = replay(dialect, &text);
    assert_eq!(stats.invalid, 0, "{scenario}: captured output is all valid");
    check_snapshot(family, version, scenario, &events);
    events
}

fn text_of(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn ends(events: &[AgentEvent]) -> Vec<EndReason> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Ended { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

fn error_codes(events: &[AgentEvent]) -> Vec<ErrorCode> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Error(e) => Some(e.code),
            _ => None,
        })
        .collect()
}

fn families() -> [(Dialect, &'static str, &'static str); 2] {
    [(CLAUDE, "claude", "2.1.332"), (QWEN, "qwen", "0.24.4")]
}

#[test]
fn text_turn_streams_deltas_and_completes() {
    for (d, fam, ver) in families() {
        let ev = run(d, fam, ver, "text");
        assert!(
            matches!(&ev[0], AgentEvent::Started { session_id: Some(_), model: Some(m) } if m == "fake-model"),
            "{fam}"
        );
        let deltas = ev
            .iter()
            .filter(|e| matches!(e, AgentEvent::TextDelta(_)))
            .count();
        assert!(deltas >= 2, "{fam}: token deltas, got {deltas}");
        assert!(
            text_of(&ev).starts_with("Hello from fake-llm. You said: hello"),
            "{fam}"
        );
        assert_eq!(ends(&ev), vec![EndReason::Completed], "{fam}");
        assert!(
            matches!(ev.last(), Some(AgentEvent::Ended { usage: Some(u), .. }) if u.output_tokens > 0),
            "{fam}"
        );
    }
}

#[test]
fn reasoning_arrives_as_reasoning_deltas() {
    for (d, fam, ver) in families() {
        let ev = run(d, fam, ver, "reasoning");
        let reasoning: String = ev
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ReasoningDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            reasoning.starts_with("Thinking about the request"),
            "{fam}: {reasoning}"
        );
        assert!(
            !text_of(&ev).contains("Thinking about"),
            "{fam}: reasoning not in text"
        );
        assert_eq!(ends(&ev), vec![EndReason::Completed]);
    }
}

#[test]
fn approved_tool_is_one_approval_then_ok() {
    for (d, fam, ver) in families() {
        let ev = run(d, fam, ver, "tool_allow");
        let approvals: Vec<_> = ev
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ApprovalRequested { call, .. } => Some(call.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(approvals.len(), 1, "{fam}");
        let id = &approvals[0].tool_id;
        assert_eq!(approvals[0].kind, cohost_core::ToolKind::Execute, "{fam}");
        assert!(
            !ev.iter()
                .any(|e| matches!(e, AgentEvent::ToolCall(c) if &c.tool_id == id)),
            "{fam}: no duplicate tool_call for an approval"
        );
        assert!(
            ev.iter().any(|e| matches!(e,
            AgentEvent::ToolExecuted { tool_id, status: ToolStatus::Ok, .. } if tool_id == id)),
            "{fam}"
        );
        assert_eq!(ends(&ev), vec![EndReason::Completed]);
    }
}

#[test]
fn denied_tool_reports_denied() {
    for (d, fam, ver) in families() {
        let ev = run(d, fam, ver, "tool_deny");
        assert!(
            ev.iter().any(|e| matches!(
                e,
                AgentEvent::ToolExecuted {
                    status: ToolStatus::Denied,
                    ..
                }
            )),
            "{fam}"
        );
        assert_eq!(
            ends(&ev),
            vec![EndReason::Completed],
            "{fam}: the turn ends cleanly"
        );
    }
}

#[test]
fn interrupt_ends_interrupted_then_next_turn_completes() {
    for (d, fam, ver) in families() {
        let ev = run(d, fam, ver, "interrupt");
        assert_eq!(
            ends(&ev),
            vec![EndReason::Interrupted, EndReason::Completed],
            "{fam}"
        );
        assert!(
            error_codes(&ev).is_empty(),
            "{fam}: an interrupt is not an error"
        );
    }
}

#[test]
fn auth_failure_is_auth_required() {
    for (d, fam, ver) in families() {
        let ev = run(d, fam, ver, "error_401");
        assert_eq!(error_codes(&ev), vec![ErrorCode::AuthRequired], "{fam}");
        assert_eq!(ends(&ev), vec![EndReason::Error], "{fam}");
        assert!(
            !text_of(&ev).contains("API"),
            "{fam}: error text is not answer text"
        );
    }
}

#[test]
fn claude_auth_retry_fails_fast_with_interrupt() {
    let text =
        std::fs::read_to_string(fixture_dir("claude", "2.1.332").join("error_401.jsonl")).unwrap();
    let (_, writes, _) = replay(CLAUDE, &text);
    assert!(
        writes.iter().any(|w| w.contains("\"interrupt\"")),
        "the normalizer stops the CLI's pointless auth retries: {writes:?}"
    );
}

#[test]
fn claude_rate_limit_and_context_errors() {
    let ev = run(CLAUDE, "claude", "2.1.332", "error_429");
    assert_eq!(error_codes(&ev), vec![ErrorCode::RateLimited]);
    assert_eq!(ends(&ev), vec![EndReason::Error]);
    let ev = run(CLAUDE, "claude", "2.1.332", "error_context");
    assert_eq!(error_codes(&ev), vec![ErrorCode::ContextWindowExceeded]);
    assert_eq!(ends(&ev), vec![EndReason::Error]);
}

// ---- malformed input -------------------------------------------------------

fn feed(lines: &[&str]) -> (Vec<AgentEvent>, Stats) {
    let mut n = normalizer(CLAUDE);
    n.begin_turn("x");
    let mut out = Vec::new();
    for l in lines {
        n.on_line(l, &mut out);
    }
    let events = out
        .into_iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    (events, n.stats())
}

const DELTA: &str = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}},"session_id":"s1","parent_tool_use_id":null}"#;
const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"usage":{"input_tokens":3,"output_tokens":2},"session_id":"s1"}"#;

#[test]
fn truncated_and_garbage_lines_are_non_fatal_invalid_output() {
    let (ev, stats) = feed(&[
        DELTA,
        r#"{"type":"stream_event","event":{"type":"content_block_del"#,
        "Error: something printed to stdout",
        "\u{fffd}\u{fffd}{{{",
        DELTA,
        RESULT,
    ]);
    assert_eq!(stats.invalid, 3);
    assert_eq!(
        error_codes(&ev),
        vec![ErrorCode::InvalidOutput; 3],
        "each bad line is one INVALID_OUTPUT"
    );
    assert_eq!(
        text_of(&ev),
        "okok",
        "good lines around bad ones still count"
    );
    assert_eq!(ends(&ev), vec![EndReason::Completed]);
}

#[test]
fn unknown_kinds_are_counted_and_skipped() {
    let (ev, stats) = feed(&[
        r#"{"type":"brand_new_kind","x":1}"#,
        r#"{"type":"system","subtype":"future_thing"}"#,
        r#"{"type":"stream_event","event":{"type":"hologram_delta"}}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"citation_delta"}}}"#,
        DELTA,
        RESULT,
    ]);
    assert_eq!(stats.unknown, 3, "{stats:?}");
    assert_eq!(stats.invalid, 0);
    assert!(error_codes(&ev).is_empty());
    assert_eq!(text_of(&ev), "ok");
}

#[test]
fn seventeen_mib_line_is_dropped_and_the_stream_continues() {
    let mut framer = LineFramer::default();
    let mut n = normalizer(CLAUDE);
    n.begin_turn("x");
    let mut frames = Vec::new();
    let huge = format!(
        r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":"{}"}}]}}}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    for chunk in [DELTA, &huge, DELTA, RESULT] {
        framer.push(chunk.as_bytes(), &mut frames);
        framer.push(b"\n", &mut frames);
    }
    framer.finish(&mut frames);
    let mut out = Vec::new();
    for f in frames {
        match f {
            Frame::Line(l) => n.on_line(&l, &mut out),
            Frame::Oversized { bytes } => n.on_oversized(bytes, &mut out),
        }
    }
    let ev: Vec<AgentEvent> = out
        .into_iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(error_codes(&ev), vec![ErrorCode::InvalidOutput]);
    assert_eq!(text_of(&ev), "okok");
    assert_eq!(ends(&ev), vec![EndReason::Completed]);
}

#[test]
fn deny_all_refuses_without_asking() {
    let mut n = Normalizer::new(NormalizerConfig {
        dialect: CLAUDE,
        deny_all: true,
        no_approvals: false,
    });
    n.begin_turn("x");
    let mut out = Vec::new();
    n.on_line(
        r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"rm -rf /"},"tool_use_id":"t1"}}"#,
        &mut out,
    );
    assert!(!out
        .iter()
        .any(|o| matches!(o, Output::Event(AgentEvent::ApprovalRequested { .. }))));
    let deny = out.iter().find_map(|o| match o {
        Output::Write(w) => Some(w.clone()),
        _ => None,
    });
    let v: Value = serde_json::from_str(&deny.expect("a deny is written")).unwrap();
    assert_eq!(v["response"]["request_id"], "r1");
    assert_eq!(v["response"]["response"]["behavior"], "deny");
}

#[test]
fn allow_carries_the_original_input() {
    let mut n = normalizer(QWEN);
    n.begin_turn("x");
    let mut out = Vec::new();
    n.on_line(
        r#"{"type":"control_request","request_id":"r9","request":{"subtype":"can_use_tool","tool_name":"write_file","input":{"file_path":"a.txt","content":"hi"},"tool_use_id":"t9"}}"#,
        &mut out,
    );
    let line = n
        .decide(&ToolDecision {
            tool_id: "t9".into(),
            option: ApprovalOption::AllowOnce,
            message: None,
        })
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        v["response"]["response"]["updatedInput"],
        json!({"file_path":"a.txt","content":"hi"})
    );
    assert!(
        n.decide(&ToolDecision {
            tool_id: "t9".into(),
            option: ApprovalOption::AllowOnce,
            message: None
        })
        .is_err(),
        "answered once"
    );
}
