//! Steering Claude Code (issue 34): transcripts of the pinned 2.1.332
//! against cohost-fakellm in which the host wrote a user message (with a
//! `uuid`) while the turn ran, replayed through the pure normalizer. What
//! the CLI did with it is in each fixture's `command_lifecycle` lines:
//! - `steer_tool`: written while a Bash call ran; `started` inside the
//!   turn, joined to the tool result, one `result`;
//! - `steer_after`: written while the answer streamed with no further tool
//!   call; `queued` past the turn's `result`, then run as a CLI turn of its
//!   own with a second `result`: cohost folds both into one turn;
//! - `steer_interrupt`: written, then the turn interrupted with
//!   `cancel_queued`: `cancelled`, one aborted `result`.
//!
//! Plus the fallbacks (a CLI that does not advertise `msg_lifecycle_v1`,
//! Qwen, no turn, a turn being stopped) and malformed lifecycle lines.

use cohost_agents::drivers::claude::{Dialect, CLAUDE, QWEN};
use cohost_agents::parsers::claude::{Normalizer, NormalizerConfig, Output};
use cohost_core::{
    AgentEvent, ApprovalOption, CohostError, EndReason, ErrorCode, ToolDecision, Usage,
};
use serde_json::Value;
use std::path::PathBuf;

fn fixture(scenario: &str) -> (PathBuf, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude/2.1.332");
    let text = std::fs::read_to_string(dir.join(format!("{scenario}.jsonl"))).unwrap();
    assert!(
        text.starts_with(
            "# tool: claude-code 2.1.332; command: claude -p --input-format stream-json"
        ),
        "{scenario}: fixture header"
    );
    (dir.join(format!("{scenario}.events")), text)
}

fn normalizer(dialect: Dialect) -> Normalizer {
    Normalizer::new(NormalizerConfig {
        dialect,
        deny_all: false,
        no_approvals: false,
    })
}

/// What a replay produced.
#[derive(Default)]
struct Replay {
    events: Vec<AgentEvent>,
    /// The answers to steers, by ticket, in the order they came.
    answers: Vec<(u64, Result<(), CohostError>)>,
    /// The tickets `steer` returned.
    tickets: Vec<u64>,
}

/// Replay a transcript. A `>>` user line with a `uuid` is a steer: the
/// normalizer must write exactly that line; so must it the interrupt.
fn replay(text: &str) -> Replay {
    let mut n = normalizer(CLAUDE);
    let mut r = Replay::default();
    let mut out = Vec::new();
    let mut last_approval = None;
    for line in text.lines() {
        if line.starts_with("# ") || line.trim().is_empty() {
            continue;
        }
        if let Some(sent) = line.strip_prefix(">> ") {
            let v: Value = serde_json::from_str(sent).unwrap();
            match (v["type"].as_str(), v["request"]["subtype"].as_str()) {
                (Some("control_request"), Some("initialize")) => {
                    n.initialize();
                }
                (Some("control_request"), Some("interrupt")) => {
                    let ours: Value = serde_json::from_str(&n.interrupt()).unwrap();
                    assert_eq!(ours["request"], v["request"], "the interrupt we write");
                }
                (Some("user"), _) if v.get("uuid").is_some() => {
                    let text = v["message"]["content"].as_str().unwrap();
                    let (line, ticket) = n.steer(text, v["uuid"].as_str().unwrap()).unwrap();
                    let ours: Value = serde_json::from_str(&line).unwrap();
                    assert_eq!(ours, v, "the steer line we write is what the CLI read");
                    r.tickets.push(ticket);
                }
                (Some("user"), _) => {
                    n.begin_turn(v["message"]["content"].as_str().unwrap());
                }
                (Some("control_response"), _) => {
                    let tool_id = last_approval.take().unwrap();
                    n.decide(&ToolDecision {
                        tool_id,
                        option: ApprovalOption::AllowOnce,
                        message: None,
                    })
                    .unwrap();
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
                    r.events.push(ev);
                }
                Output::Steered(ticket, answer) => r.answers.push((ticket, answer)),
                Output::Write(_) | Output::Ready(_) => {}
            }
        }
    }
    assert_eq!(n.stats().invalid, 0);
    r
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

fn ends(events: &[AgentEvent]) -> Vec<(EndReason, Option<Usage>)> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Ended { reason, usage } => Some((*reason, *usage)),
            _ => None,
        })
        .collect()
}

fn starts(events: &[AgentEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Started { .. }))
        .count()
}

/// The usage of every `result` line of a transcript.
fn result_usages(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(">>"))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "result")
        .map(|v| {
            let u = &v["usage"];
            (
                u["input_tokens"].as_u64().unwrap(),
                u["output_tokens"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_steer_during_a_tool_call_joins_the_tool_result_of_the_same_turn() {
    let (snapshot, text) = fixture("steer_tool");
    let r = replay(&text);
    cohost_testbench::snapshot::check_events(&snapshot, &r.events);
    // Taken (the CLI queued it), answered once.
    assert_eq!(r.tickets.len(), 1);
    assert_eq!(r.answers.len(), 1);
    assert_eq!(r.answers[0].0, r.tickets[0]);
    assert!(r.answers[0].1.is_ok());
    // One turn, as the CLI ran it: one result, the tool's output answered.
    assert_eq!(starts(&r.events), 1);
    assert_eq!(ends(&r.events).len(), 1);
    assert_eq!(ends(&r.events)[0].0, EndReason::Completed);
    assert!(text_of(&r.events).contains("Tool said: slept-ok"));
    assert!(r
        .events
        .last()
        .is_some_and(|e| matches!(e, AgentEvent::Ended { .. })));
}

#[test]
fn a_steer_claude_runs_as_a_turn_of_its_own_is_folded_into_the_one_turn() {
    let (snapshot, text) = fixture("steer_after");
    // The CLI answered it with a second `result`.
    let usages = result_usages(&text);
    assert_eq!(usages.len(), 2, "the transcript has two results");
    let r = replay(&text);
    cohost_testbench::snapshot::check_events(&snapshot, &r.events);
    assert!(r.answers.len() == 1 && r.answers[0].1.is_ok());
    // Still one cohost turn: one start, one end, last, with both answers.
    assert_eq!(starts(&r.events), 1);
    let ends = ends(&r.events);
    assert_eq!(ends.len(), 1, "{:#?}", r.events);
    assert!(matches!(r.events.last(), Some(AgentEvent::Ended { .. })));
    assert_eq!(ends[0].0, EndReason::Completed);
    let answer = text_of(&r.events);
    assert!(answer.contains("tick 0"), "{answer}");
    assert!(answer.contains("You said: steer-marker-4417"), "{answer}");
    // The turn's usage is both results' (usage events are running totals).
    let usage = ends[0].1.unwrap();
    assert_eq!(usage.input_tokens, usages[0].0 + usages[1].0);
    assert_eq!(usage.output_tokens, usages[0].1 + usages[1].1);
    let last_usage = r.events.iter().rev().find_map(|e| match e {
        AgentEvent::Usage(u) => Some(*u),
        _ => None,
    });
    assert_eq!(last_usage, Some(usage));
}

#[test]
fn an_interrupt_drops_the_steered_text_still_queued_and_ends_the_turn() {
    let (snapshot, text) = fixture("steer_interrupt");
    let r = replay(&text);
    cohost_testbench::snapshot::check_events(&snapshot, &r.events);
    // It was taken (queued), then the interrupt cancelled it.
    assert!(r.answers.len() == 1 && r.answers[0].1.is_ok());
    let ends = ends(&r.events);
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0].0, EndReason::Interrupted);
    assert!(!text_of(&r.events).contains("steer-marker-4417"));
}

/// Feed `lines` after a turn began; the outputs.
fn feed(n: &mut Normalizer, lines: &[&str]) -> Vec<Output> {
    let mut out = Vec::new();
    for l in lines {
        n.on_line(l, &mut out);
    }
    out
}

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","capabilities":["msg_lifecycle_v1","interrupt_cancel_queued_v1"]}"#;
const INIT_OLD: &str = r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","capabilities":["ui_surface_v1"]}"#;
const DELTA: &str = r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok "}},"session_id":"s1","parent_tool_use_id":null}"#;
const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"usage":{"input_tokens":3,"output_tokens":2},"session_id":"s1"}"#;
const ABORTED: &str = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_streaming","usage":{"input_tokens":0,"output_tokens":0},"session_id":"s1"}"#;

fn lifecycle(uuid: &str, state: &str) -> String {
    format!(
        r#"{{"type":"command_lifecycle","command_uuid":"{uuid}","state":"{state}","session_id":"s1"}}"#
    )
}

fn ended(out: &[Output]) -> Vec<EndReason> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(AgentEvent::Ended { reason, .. }) => Some(*reason),
            _ => None,
        })
        .collect()
}

fn answers(out: &[Output]) -> Vec<(u64, Option<ErrorCode>)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Steered(t, a) => Some((*t, a.as_ref().err().map(|e| e.code))),
            _ => None,
        })
        .collect()
}

#[test]
fn without_the_lifecycle_capability_a_steer_is_refused_and_queued() {
    // Claude Code's own `system/init` of 2026-11-30 (text.jsonl) lists no
    // `msg_lifecycle_v1`: the text could not be tracked, so it is queued.
    for init in [
        INIT_OLD,
        r#"{"type":"system","subtype":"init","session_id":"s1"}"#,
    ] {
        let mut n = normalizer(CLAUDE);
        n.begin_turn("hi");
        feed(&mut n, &[init, DELTA]);
        let e = n.steer("more", "u-1").unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsupportedMode, "{e}");
        assert!(e
            .suggested_fix
            .as_deref()
            .unwrap_or_default()
            .contains("queued"));
    }
    // Qwen Code never advertises it.
    let mut n = normalizer(QWEN);
    n.begin_turn("hi");
    feed(&mut n, &[INIT_OLD, DELTA]);
    assert_eq!(
        n.steer("more", "u-1").unwrap_err().code,
        ErrorCode::UnsupportedMode
    );
}

#[test]
fn no_steer_without_a_turn_or_while_it_is_stopped() {
    let mut n = normalizer(CLAUDE);
    assert_eq!(
        n.steer("x", "u-0").unwrap_err().code,
        ErrorCode::IllegalTransition
    );
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    let (line, _) = n.steer("first", "u-1").unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["uuid"], "u-1");
    assert_eq!(v["message"]["content"], "first");
    let interrupt: Value = serde_json::from_str(&n.interrupt()).unwrap();
    assert_eq!(interrupt["request"]["cancel_queued"], true);
    assert_eq!(
        n.steer("second", "u-2").unwrap_err().code,
        ErrorCode::IllegalTransition
    );
    // After the turn's end, no steer either.
    let out = feed(&mut n, &[&lifecycle("u-1", "cancelled"), ABORTED]);
    assert_eq!(ended(&out), vec![EndReason::Interrupted]);
    assert!(n.steer("late", "u-3").is_err());
}

#[test]
fn the_turn_waits_for_every_steer_and_ends_after_the_last_answer() {
    let mut n = normalizer(CLAUDE);
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    let (_, t1) = n.steer("one", "u-1").unwrap();
    let (_, t2) = n.steer("two", "u-2").unwrap();
    // Not a word from the CLI yet: the result does not end the turn.
    let out = feed(&mut n, &[RESULT]);
    assert!(ended(&out).is_empty());
    let out = feed(
        &mut n,
        &[&lifecycle("u-1", "queued"), &lifecycle("u-2", "queued")],
    );
    assert_eq!(answers(&out), vec![(t1, None), (t2, None)]);
    // The CLI runs the first as a turn of its own; the second still waits.
    let out = feed(&mut n, &[&lifecycle("u-1", "started"), INIT, DELTA, RESULT]);
    assert!(ended(&out).is_empty(), "u-2 is still queued");
    let out = feed(
        &mut n,
        &[&lifecycle("u-1", "completed"), &lifecycle("u-2", "started")],
    );
    assert!(ended(&out).is_empty(), "u-2's turn runs");
    let out = feed(&mut n, &[DELTA, RESULT]);
    assert_eq!(ended(&out), vec![EndReason::Completed]);
    // Three results: the usage is their sum.
    let usage = out.iter().find_map(|o| match o {
        Output::Event(AgentEvent::Ended { usage, .. }) => *usage,
        _ => None,
    });
    assert_eq!(
        usage.map(|u| (u.input_tokens, u.output_tokens)),
        Some((9, 6))
    );
    // Late lines of a finished turn change nothing.
    let out = feed(
        &mut n,
        &[&lifecycle("u-2", "completed"), &lifecycle("u-9", "queued")],
    );
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn a_refused_steer_is_answered_with_an_error_and_a_turn_held_for_it_ends() {
    let mut n = normalizer(CLAUDE);
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    let (_, t1) = n.steer("one", "u-1").unwrap();
    let out = feed(&mut n, &[RESULT]);
    assert!(ended(&out).is_empty());
    let out = feed(&mut n, &[&lifecycle("u-1", "refused")]);
    assert_eq!(
        answers(&out),
        vec![(t1, Some(ErrorCode::IllegalTransition))]
    );
    assert_eq!(ended(&out), vec![EndReason::Completed]);
}

#[test]
fn malformed_lifecycle_lines_are_harmless() {
    let mut n = normalizer(CLAUDE);
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    let (_, t1) = n.steer("one", "u-1").unwrap();
    let out = feed(
        &mut n,
        &[
            r#"{"type":"command_lifecycle"}"#,
            r#"{"type":"command_lifecycle","command_uuid":7,"state":null}"#,
            r#"{"type":"command_lifecycle","command_uuid":"u-1","state":"queu"#,
            r#"{"type":"command_lifecycle","command_uuid":"u-1","state":"somewhere_new"}"#,
        ],
    );
    // The unknown state is terminal for the steer: refused, so queued.
    assert_eq!(
        answers(&out),
        vec![(t1, Some(ErrorCode::IllegalTransition))]
    );
    let out = feed(&mut n, &[RESULT]);
    assert_eq!(ended(&out), vec![EndReason::Completed]);
}

#[test]
fn two_steers_claude_merges_into_one_turn_of_their_own_end_with_it() {
    // Observed with 2.1.332: two messages queued during a streaming answer
    // are both `started` by one CLI turn after the first `result` (the
    // model gets them as one user message, one per line).
    let mut n = normalizer(CLAUDE);
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    let (_, t1) = n.steer("one", "u-1").unwrap();
    let (_, t2) = n.steer("two", "u-2").unwrap();
    let out = feed(
        &mut n,
        &[
            &lifecycle("u-1", "queued"),
            &lifecycle("u-2", "queued"),
            RESULT,
        ],
    );
    assert_eq!(answers(&out), vec![(t1, None), (t2, None)]);
    assert!(ended(&out).is_empty());
    let out = feed(
        &mut n,
        &[
            &lifecycle("u-1", "started"),
            &lifecycle("u-2", "started"),
            INIT,
            DELTA,
            RESULT,
        ],
    );
    assert_eq!(ended(&out), vec![EndReason::Completed]);
    assert!(answers(&out).is_empty(), "each steer is answered once");
}

#[test]
fn an_interrupt_ends_the_turn_at_its_result_even_before_the_steer_is_heard_of() {
    // `cancel_queued` drops whatever still waits, so an aborted result
    // ends the turn even if the CLI has not yet said a word of the steer.
    let mut n = normalizer(CLAUDE);
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    n.steer("one", "u-1").unwrap();
    n.interrupt();
    let out = feed(&mut n, &[ABORTED]);
    assert_eq!(ended(&out), vec![EndReason::Interrupted]);
    // Without the interrupt the same result would have waited.
    let mut n = normalizer(CLAUDE);
    n.begin_turn("hi");
    feed(&mut n, &[INIT, DELTA]);
    n.steer("one", "u-1").unwrap();
    assert!(ended(&feed(&mut n, &[RESULT])).is_empty());
}
