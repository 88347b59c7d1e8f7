//! The core on the hand-written transcripts (`tests/fixtures/agy/docs/`)
//! and on input no agy should print.

use super::*;
use crate::process::oneshot::check_snapshot;
use std::path::PathBuf;

fn fixture(scenario: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agy/docs")
        .join(scenario)
}

/// What a replay produced: the events of every turn, the lines written,
/// the effects, and the core at the end.
struct Replay {
    events: Vec<AgentEvent>,
    writes: Vec<String>,
    effects: Vec<Effect>,
    core: AgyCore,
}

/// Replay a transcript: `>>` lines are turns the host began (the core's
/// line must be exactly the one recorded), `## interrupt` the host stopping
/// the turn, `#` lines headers, the rest agy's stdout.
fn replay(scenario: &str) -> Replay {
    let text = std::fs::read_to_string(fixture(&format!("{scenario}.jsonl"))).unwrap();
    let header = text.lines().next().unwrap_or_default();
    for part in ["# tool: agy", "version:", "command: agy", "hand-written"] {
        assert!(header.contains(part), "{scenario}: header lacks {part:?}");
    }
    let mut core = AgyCore::new(None);
    let mut out = Vec::new();
    let mut recorded_writes = Vec::new();
    for line in text.lines() {
        if let Some(sent) = line.strip_prefix(">> ") {
            let v: Value = serde_json::from_str(sent).unwrap();
            recorded_writes.push(v.clone());
            let content = v["message"]["content"].as_str().unwrap();
            core.begin_turn(content, &mut out).unwrap();
        } else if line == "## interrupt" {
            core.interrupt(&mut out);
        } else if !line.starts_with('#') {
            core.on_line(line, &mut out);
        }
    }
    let mut r = Replay {
        events: Vec::new(),
        writes: Vec::new(),
        effects: Vec::new(),
        core,
    };
    for o in out {
        match o {
            Output::Event(e) => r.events.push(e),
            Output::Write(w) => r.writes.push(w),
            Output::Effect(x) => r.effects.push(x),
            Output::Ready(_) => panic!("agy has no handshake"),
            Output::Steered(..) => panic!("agy takes no steer"),
        }
    }
    let written: Vec<Value> = r
        .writes
        .iter()
        .map(|w| serde_json::from_str(w).unwrap())
        .collect();
    assert_eq!(written, recorded_writes, "{scenario}: stdin lines");
    check_snapshot(fixture(&format!("{scenario}.events")), &r.events);
    r
}

fn text(events: &[AgentEvent]) -> String {
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

#[test]
fn two_turns_on_one_process_bind_once_and_report_usage_live() {
    let r = replay("two_turns");
    let id = "c0ffee00-1111-4222-8333-444455556666";
    assert_eq!(r.effects, vec![Effect::Bound(id.into())]);
    assert_eq!(r.core.conversation(), Some(id));
    let started = r
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Started { session_id: Some(s), .. } if s == id))
        .count();
    assert_eq!(started, 2, "each turn starts under the bound id");
    assert_eq!(
        text(&r.events),
        "The README has one heading.It declares one public function, `add`."
    );
    // Usage comes with the step that carries it, before the turn ends.
    let first_usage = r
        .events
        .iter()
        .position(|e| matches!(e, AgentEvent::Usage(u) if u.input_tokens == 1200))
        .unwrap();
    let first_end = r
        .events
        .iter()
        .position(|e| matches!(e, AgentEvent::Ended { .. }))
        .unwrap();
    assert!(first_usage < first_end);
    let e = ends(&r.events);
    assert_eq!(e.len(), 2);
    assert!(e.iter().all(|(r, _)| *r == EndReason::Completed));
    assert_eq!(e[1].1.map(|u| u.cache_read_tokens), Some(1100));
    assert!(r.events.iter().any(|e| matches!(e,
        AgentEvent::ToolExecuted { tool_id, status: ToolStatus::Ok, output }
            if tool_id == "agy-2-4" && output == "12 lines, 301 bytes")));
    assert!(!r.core.in_turn());
    assert_eq!(r.core.stats().unknown, 0);
}

#[test]
fn a_failed_tool_and_a_failed_turn() {
    let r = replay("errors");
    assert_eq!(
        r.effects,
        vec![Effect::Bound("0badc0de-2222-4333-8444-555566667777".into())]
    );
    assert!(r.events.iter().any(|e| matches!(e,
        AgentEvent::ToolExecuted { status: ToolStatus::Error, output, .. }
            if output.contains("permission check failed"))));
    assert!(r
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::RateLimited)));
    assert_eq!(
        ends(&r.events),
        vec![(
            EndReason::Error,
            Some(to_usage(&WireUsage {
                input_tokens: Some(800),
                output_tokens: Some(4),
                total_tokens: Some(804),
                ..WireUsage::default()
            }))
        )]
    );
}

#[test]
fn an_interrupt_ends_the_turn_at_once_and_asks_for_the_process_to_stop() {
    let r = replay("interrupt");
    assert_eq!(
        r.effects,
        vec![
            Effect::Bound("5ca1ab1e-3333-4444-8555-666677778888".into()),
            Effect::Stop
        ]
    );
    assert_eq!(text(&r.events), "Once upon a time");
    let e = ends(&r.events);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, EndReason::Interrupted);
    assert_eq!(e[0].1.map(|u| u.output_tokens), Some(4), "usage so far");
    assert!(matches!(r.events.last(), Some(AgentEvent::Ended { .. })));
    assert_eq!(r.core.stats().outside_turn, 2, "the dying process's lines");
}

#[test]
fn shorthand_junk_and_an_answer_only_in_the_result() {
    let r = replay("shorthand");
    assert_eq!(
        r.effects,
        vec![Effect::Bound("feedface-4444-4555-8666-777788889999".into())]
    );
    assert!(matches!(&r.events[0],
        AgentEvent::Started { session_id: Some(_), model: Some(m) } if m == "gemini-3-flash"));
    assert_eq!(text(&r.events), "hi");
    let invalid = r
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::InvalidOutput))
        .count();
    assert_eq!(invalid, 1);
    let s = r.core.stats();
    assert_eq!((s.invalid, s.unknown), (1, 1));
    assert_eq!(ends(&r.events)[0].0, EndReason::Completed);
}

#[test]
fn malformed_input_never_panics_and_is_reported_once_per_turn() {
    let mut core = AgyCore::new(None);
    let mut out = Vec::new();
    let junk = [
        "x",
        "[]",
        "null",
        "\"str\"",
        "{\"event\":\"step_update\",\"step_update\":[1]}",
        "{\"event\":\"step_update\",\"step_update\":{\"step_index\":\"3\"}}",
        "{\"event\":\"result\",\"result\":{\"status\":7}}",
        "{\"event\":\"init\",\"init\":\"abc\"}",
        "{\"event\":\"step_update\",\"step_update\":{\"step_type\":\"mystery\"}}",
        "{\"event\":\"step_update\",\"step_update\":{\"state\":\"DONE\"}}",
        "{\"event\":\"step_update\",\"step_update\":{\"step_type\":\"tool\"}}",
        "{\"event\":\"step_update\",\"step_update\":{\"step_type\":\"tool\",\"tool_info\":5,\"state\":\"DONE\"}}",
        "\u{0}\u{7f}{{{",
    ];
    // Between turns: counted, nothing emitted.
    for l in junk {
        core.on_line(l, &mut out);
    }
    assert!(out.is_empty(), "{out:?}");
    core.begin_turn("go", &mut out).unwrap();
    out.clear();
    for l in junk {
        core.on_line(l, &mut out);
    }
    let errors = out
        .iter()
        .filter(|o| matches!(o, Output::Event(AgentEvent::Error(e)) if e.code == ErrorCode::InvalidOutput))
        .count();
    assert_eq!(errors, 1, "one report per turn: {out:?}");
    assert!(core.in_turn(), "junk never ends a turn");
    assert!(core.stats().invalid >= 8);
}

#[test]
fn one_turn_at_a_time_and_interrupt_between_turns_does_nothing() {
    let mut core = AgyCore::new(Some("c1".into()));
    let mut out = Vec::new();
    core.interrupt(&mut out);
    assert!(out.is_empty());
    core.begin_turn("a", &mut out).unwrap();
    let err = core.begin_turn("b", &mut out).unwrap_err();
    assert_eq!(err.code, ErrorCode::IllegalTransition);
    assert_eq!(out.len(), 1, "only the first turn's line");
    // A resumed process starts its turns under the id it was given.
    core.on_line(
        r#"{"event":"step_update","step_update":{"step_type":"checkpoint"}}"#,
        &mut out,
    );
    assert!(matches!(&out[1],
        Output::Event(AgentEvent::Started { session_id: Some(s), .. }) if s == "c1"));
}

#[test]
fn init_rebinds_but_steps_and_results_only_fill_an_empty_binding() {
    let mut core = AgyCore::new(Some("old".into()));
    let mut out = Vec::new();
    core.begin_turn("a", &mut out).unwrap();
    core.on_line(r#"{"event":"step_update","step_update":{"conversation_id":"other","step_type":"checkpoint"}}"#, &mut out);
    assert_eq!(core.conversation(), Some("old"));
    core.on_line(
        r#"{"event":"init","init":{"conversation_id":"new"}}"#,
        &mut out,
    );
    assert_eq!(core.conversation(), Some("new"));
    let mut fresh = AgyCore::new(None);
    let mut out2 = Vec::new();
    fresh.on_line(
        r#"{"event":"result","result":{"status":"OK","conversation_id":"r1"}}"#,
        &mut out2,
    );
    assert_eq!(fresh.conversation(), Some("r1"));
    assert_eq!(out2, vec![Output::Effect(Effect::Bound("r1".into()))]);
}

#[test]
fn cumulative_resends_stream_only_their_new_suffix() {
    let mut seen = String::new();
    let long = "a".repeat(CUMULATIVE_MIN_CHARS);
    assert_eq!(fresh_text(&mut seen, &long, false), Some(long.as_str()));
    let resent = format!("{long}b");
    assert_eq!(fresh_text(&mut seen, &resent, false), Some("b"));
    assert_eq!(
        fresh_text(&mut seen, &resent, true),
        None,
        "DONE repeats all"
    );
    // Short text is never taken for a resend while the step is active.
    let mut short = String::from("**");
    assert_eq!(fresh_text(&mut short, "**bold", false), Some("**bold"));
}
