//! Golden transcripts of the real codex 0.171.0 app-server (captured against
//! cohost-fakellm) replayed through the core, plus malformed input.

use super::*;
use crate::process::oneshot::check_snapshot;
use cohost_core::{ToolKind, ToolStatus};
use std::path::PathBuf;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/0.171.0")
}

struct Replay {
    events: Vec<AgentEvent>,
    sent_methods: Vec<String>,
    recorded_methods: Vec<String>,
    core: AppServerCore,
}

fn option_of(name: &str) -> ApprovalOption {
    serde_json::from_value(json!(name)).unwrap()
}

/// Replay a fixture: server lines go to the core; the recorded client
/// actions (`turn/start`, `turn/interrupt`) are re-issued through the
/// core's API, and approvals are answered with the header's decision.
fn replay(scenario: &str) -> Replay {
    let text = std::fs::read_to_string(fixture_dir().join(format!("{scenario}.jsonl"))).unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let h = &header["cohost_fixture"];
    assert_eq!(h["tool"], "codex");
    let approval = match h["approval"].as_str() {
        Some("auto") => ApprovalMode::AutoApprove,
        _ => ApprovalMode::Ask,
    };
    let decision = h["decision"].as_str().map(option_of);
    let body: Vec<&str> = lines.collect();
    let resume = body.iter().find_map(|l| {
        let v: Value = serde_json::from_str(l).ok()?;
        (v["cohost_sent"]["method"] == "thread/resume")
            .then(|| {
                v["cohost_sent"]["params"]["threadId"]
                    .as_str()
                    .map(String::from)
            })
            .flatten()
    });
    let mut core = AppServerCore::new(CoreConfig {
        cwd: "/tmp/cx/ws".into(),
        approval,
        resume,
        ..CoreConfig::default()
    });
    let mut r = Replay {
        events: Vec::new(),
        sent_methods: Vec::new(),
        recorded_methods: Vec::new(),
        core: AppServerCore::new(CoreConfig::default()),
    };
    let mut actions = core.start();
    for line in body {
        let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        if let Some(sent) = v.get("cohost_sent") {
            if let Some(m) = sent["method"].as_str() {
                r.recorded_methods.push(m.to_string());
                match m {
                    "turn/start" => {
                        let t = sent["params"]["input"][0]["text"].as_str().unwrap();
                        actions.extend(core.start_turn(t, &[]).unwrap());
                    }
                    "turn/interrupt" => actions.extend(core.interrupt()),
                    _ => {}
                }
            }
        } else {
            actions.extend(core.on_line(line));
        }
        for a in actions.drain(..) {
            match a {
                Action::Event(ev) => {
                    if let (AgentEvent::ApprovalRequested { call, .. }, Some(d)) = (&ev, decision) {
                        let answer = core.decide(&call.tool_id, d).unwrap();
                        for a in answer {
                            if let Action::Write(s) = a {
                                let v: Value = serde_json::from_str(&s).unwrap();
                                r.sent_methods.push(format!("reply {}", v["result"]));
                            }
                        }
                    }
                    r.events.push(ev);
                }
                Action::Write(s) => {
                    let v: Value = serde_json::from_str(&s).unwrap();
                    if let Some(m) = v["method"].as_str() {
                        r.sent_methods.push(m.to_string());
                    }
                }
                Action::Ready(_) | Action::Steered(..) => {}
            }
        }
    }
    r.core = core;
    check_snapshot(fixture_dir().join(format!("{scenario}.events")), &r.events);
    r
}

fn texts(ev: &[AgentEvent]) -> Vec<&str> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn end_of(ev: &[AgentEvent]) -> (EndReason, Option<Usage>) {
    match ev.last() {
        Some(AgentEvent::Ended { reason, usage }) => (*reason, *usage),
        other => panic!("last event is not Ended: {other:?}"),
    }
}

fn error_codes(ev: &[AgentEvent]) -> Vec<ErrorCode> {
    ev.iter()
        .filter_map(|e| match e {
            AgentEvent::Error(e) => Some(e.code),
            _ => None,
        })
        .collect()
}

#[test]
fn text_turn_streams_deltas_and_usage() {
    let r = replay("text");
    assert!(
        matches!(&r.events[0], AgentEvent::Started { session_id: Some(_), model: Some(m) } if m == "fake-model")
    );
    let t = texts(&r.events);
    assert!(t.len() >= 2, "{t:?}");
    assert_eq!(t.concat(), "Hello from fake-llm. You said: say hello");
    let (reason, usage) = end_of(&r.events);
    assert_eq!(reason, EndReason::Completed);
    let u = usage.expect("usage");
    assert_eq!((u.input_tokens, u.output_tokens), (10242, 10));
    // The core spoke exactly as the real client did.
    assert_eq!(
        r.sent_methods,
        ["initialize", "initialized", "thread/start", "turn/start"]
    );
    assert_eq!(r.recorded_methods, r.sent_methods);
    assert!(!r.core.in_turn());
}

#[test]
fn approval_allow_runs_the_command() {
    let r = replay("tool_accept");
    let req = r
        .events
        .iter()
        .position(|e| matches!(e, AgentEvent::ApprovalRequested { call, .. } if call.kind == ToolKind::Execute && call.input["command"].as_str().unwrap().contains("cohost_tool_output.txt")))
        .expect("approval requested");
    let done = r
        .events
        .iter()
        .position(|e| {
            matches!(
                e,
                AgentEvent::ToolExecuted {
                    status: ToolStatus::Ok,
                    ..
                }
            )
        })
        .expect("executed");
    assert!(req < done);
    // A call that needed a decision is not also a plain tool_call.
    assert!(!r
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolCall(_))));
    assert!(r
        .sent_methods
        .contains(&r#"reply {"decision":"accept"}"#.to_string()));
    // The follow-up message arrived whole (no deltas) and is still shown.
    assert!(texts(&r.events).concat().starts_with("Tool said:"));
    assert_eq!(end_of(&r.events).0, EndReason::Completed);
}

#[test]
fn approval_deny_reports_denied_and_ends_cleanly() {
    let r = replay("tool_decline");
    assert!(r
        .sent_methods
        .contains(&r#"reply {"decision":"decline"}"#.to_string()));
    assert!(r.events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecuted {
            status: ToolStatus::Denied,
            ..
        }
    )));
    assert_eq!(end_of(&r.events).0, EndReason::Completed);
}

#[test]
fn auto_approve_reports_calls_without_approvals() {
    let r = replay("tool_auto");
    assert!(!r
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ApprovalRequested { .. })));
    assert!(r
        .events
        .iter()
        .any(|e| matches!(e, AgentEvent::ToolCall(c) if c.kind == ToolKind::Execute)));
    assert!(r.events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolExecuted {
            status: ToolStatus::Ok,
            ..
        }
    )));
}

#[test]
fn reasoning_deltas_are_separate() {
    let r = replay("reasoning");
    let n = r
        .events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ReasoningDelta(_)))
        .count();
    assert!(n >= 2, "{:?}", r.events);
    assert!(!texts(&r.events).is_empty());
}

#[test]
fn interrupt_ends_the_turn_and_the_thread_goes_on() {
    let r = replay("interrupt_then_text");
    let ends: Vec<EndReason> = r
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Ended { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [EndReason::Interrupted, EndReason::Completed]);
    assert!(r.sent_methods.contains(&"turn/interrupt".to_string()));
}

#[test]
fn errors_map_to_the_taxonomy_once() {
    for (scenario, code) in [
        ("error_401", ErrorCode::AuthRequired),
        ("error_429", ErrorCode::RateLimited),
        ("error_context", ErrorCode::ContextWindowExceeded),
        ("error_500", ErrorCode::NetworkError),
        ("error_unknown_model", ErrorCode::ModelNotAvailable),
        ("error_malformed", ErrorCode::NetworkError),
    ] {
        let r = replay(scenario);
        assert_eq!(error_codes(&r.events), [code], "{scenario}");
        assert_eq!(end_of(&r.events).0, EndReason::Error, "{scenario}");
    }
}

#[test]
fn resume_ignores_replayed_usage_before_the_turn() {
    let r = replay("resume");
    assert_eq!(r.sent_methods[2], "thread/resume");
    let (reason, usage) = end_of(&r.events);
    assert_eq!(reason, EndReason::Completed);
    // Only this turn's request, not the restored thread total.
    let u = usage.unwrap();
    assert!(u.output_tokens < 20, "{u:?}");
}

fn ready_core(approval: ApprovalMode) -> AppServerCore {
    let mut core = AppServerCore::new(CoreConfig {
        approval,
        ..CoreConfig::default()
    });
    core.start();
    core.on_line(r#"{"id":1,"result":{}}"#);
    core.on_line(r#"{"id":2,"result":{"thread":{"id":"th"},"model":"m"}}"#);
    assert_eq!(core.phase(), &Phase::Ready);
    core
}

#[test]
fn malformed_lines_are_non_fatal_errors() {
    let mut core = ready_core(ApprovalMode::Ask);
    core.start_turn("hi", &[]).unwrap();
    for junk in [
        "{\"method\":\"item/agentMessage/del",
        "\u{1b}[31mgarbage",
        "[]",
        &format!(
            "{{\"method\":\"x\",\"params\":\"{}\"}}",
            "a".repeat(1 << 20)
        ),
    ] {
        let out = core.on_line(junk);
        assert!(out.iter().all(|a| matches!(a, Action::Event(AgentEvent::Error(e)) if e.code == ErrorCode::InvalidOutput && !e.retryable)) , "{junk:.40}");
    }
    assert!(core.in_turn());
    assert_eq!(core.unknown_count(), 1); // the huge but valid unknown notification
}

/// codex 0.171.0 asks before an MCP tool call with an elicitation: for a
/// server cohost gave it (the room bridge, which asks the room itself) the
/// answer is yes at once; for any other server, and for a real form, it is
/// the error every unrouted request gets (codex then rejects the call).
#[test]
fn codex_asking_about_a_tool_of_cohosts_own_mcp_server_is_answered_yes() {
    let mut core = AppServerCore::new(CoreConfig {
        approval: ApprovalMode::Ask,
        own_mcp_servers: vec!["cohost_room".into()],
        ..CoreConfig::default()
    });
    let ask = |server: &str, kind: &str| {
        json!({"id": 7, "method": "mcpServer/elicitation/request", "params": {
            "serverName": server, "threadId": "t", "mode": "form",
            "message": format!("Allow the {server} MCP server to run tool \"ask_member\"?"),
            "requestedSchema": {"type": "object", "properties": {}},
            "_meta": {"codex_approval_kind": kind, "tool_params": {"name": "claude"}}
        }})
        .to_string()
    };
    let reply = |out: Vec<Action>| match out.as_slice() {
        [Action::Write(s)] => serde_json::from_str::<Value>(s).unwrap(),
        other => panic!("{other:?}"),
    };
    let yes = reply(core.on_line(&ask("cohost_room", "mcp_tool_call")));
    assert_eq!(yes["id"], 7);
    assert_eq!(yes["result"], json!({"action": "accept", "content": {}}));
    let theirs = reply(core.on_line(&ask("notes", "mcp_tool_call")));
    assert_eq!(theirs["error"]["code"], -32601, "{theirs}");
    let form = reply(core.on_line(&ask("cohost_room", "form")));
    assert_eq!(form["error"]["code"], -32601, "{form}");
    assert_eq!(core.unknown_count(), 2);
}

#[test]
fn unknown_server_requests_get_an_error_at_once() {
    let mut core = ready_core(ApprovalMode::Ask);
    let out = core.on_line(r#"{"id":"q1","method":"item/tool/requestUserInput","params":{}}"#);
    match out.as_slice() {
        [Action::Write(s)] => {
            let v: Value = serde_json::from_str(s).unwrap();
            assert_eq!(v["id"], "q1");
            assert_eq!(v["error"]["code"], -32601);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(core.unknown_count(), 1);
}

#[test]
fn deny_all_declines_without_asking() {
    let mut core = ready_core(ApprovalMode::DenyAll);
    core.start_turn("x", &[]).unwrap();
    let out = core.on_line(r#"{"id":0,"method":"item/fileChange/requestApproval","params":{"itemId":"f1","threadId":"th","turnId":"t","startedAtMs":1}}"#);
    assert!(matches!(&out[0], Action::Event(AgentEvent::ToolCall(c)) if c.kind == ToolKind::Edit));
    assert!(matches!(&out[1], Action::Write(s) if s.contains("\"decline\"")));
    // Legacy approvals use the legacy decision words.
    let out = core.on_line(
        r#"{"id":5,"method":"execCommandApproval","params":{"callId":"c1","command":["ls"]}}"#,
    );
    assert!(matches!(&out[1], Action::Write(s) if s.contains("\"denied\"")));
}

#[test]
fn interrupt_before_the_turn_id_is_sent_once_known() {
    let mut core = ready_core(ApprovalMode::Ask);
    core.start_turn("x", &[]).unwrap();
    assert!(core.interrupt().is_empty());
    let out =
        core.on_line(r#"{"id":3,"result":{"turn":{"id":"T1","items":[],"status":"inProgress"}}}"#);
    assert!(out.iter().any(
        |a| matches!(a, Action::Write(s) if s.contains("turn/interrupt") && s.contains("T1"))
    ));
}

#[test]
fn deciding_twice_is_an_error() {
    let mut core = ready_core(ApprovalMode::Ask);
    core.start_turn("x", &[]).unwrap();
    core.on_line(r#"{"id":9,"method":"item/commandExecution/requestApproval","params":{"itemId":"c1","command":"rm -rf x"}}"#);
    assert!(core.decide("c1", ApprovalOption::AllowAlways).is_ok());
    assert!(core.decide("c1", ApprovalOption::AllowOnce).is_err());
}

#[test]
fn fork_asks_for_thread_fork_and_opens_the_new_thread() {
    let sent = |actions: Vec<Action>| -> Vec<Value> {
        actions
            .into_iter()
            .filter_map(|a| match a {
                Action::Write(l) => serde_json::from_str(&l).ok(),
                _ => None,
            })
            .collect()
    };
    for (fork, method) in [(true, "thread/fork"), (false, "thread/resume")] {
        let mut core = AppServerCore::new(CoreConfig {
            resume: Some("parent".into()),
            fork,
            ..CoreConfig::default()
        });
        core.start();
        let lines = sent(core.on_line(r#"{"id":1,"result":{}}"#));
        let open = lines.iter().find(|l| l.get("id").is_some()).unwrap();
        assert_eq!(open["method"], method);
        assert_eq!(open["params"]["threadId"], "parent");
        core.on_line(r#"{"id":2,"result":{"thread":{"id":"child"},"model":"m"}}"#);
        assert_eq!(core.phase(), &Phase::Ready);
    }
}

#[test]
fn images_are_local_image_input_items_after_the_text() {
    let mut core = AppServerCore::new(CoreConfig::default());
    core.start();
    core.on_line(r#"{"id":1,"result":{}}"#);
    core.on_line(r#"{"id":2,"result":{"thread":{"id":"t1"},"model":"m"}}"#);
    let images = [std::path::PathBuf::from("/work/pixel.png")];
    let sent: Vec<Value> = core
        .start_turn("what is it", &images)
        .unwrap()
        .into_iter()
        .filter_map(|a| match a {
            Action::Write(l) => serde_json::from_str(&l).ok(),
            _ => None,
        })
        .collect();
    assert_eq!(sent[0]["method"], "turn/start");
    assert_eq!(
        sent[0]["params"]["input"],
        json!([
            {"type": "text", "text": "what is it"},
            {"type": "localImage", "path": "/work/pixel.png"}
        ])
    );
}

#[test]
fn inside_cohosts_sandbox_codex_runs_commands_in_it() {
    let sent = |actions: Vec<Action>| -> Vec<Value> {
        actions
            .into_iter()
            .filter_map(|a| match a {
                Action::Write(l) => serde_json::from_str(&l).ok(),
                _ => None,
            })
            .collect()
    };
    for (outer, want) in [(true, "danger-full-access"), (false, "workspace-write")] {
        let mut core = AppServerCore::new(CoreConfig {
            approval: ApprovalMode::Ask,
            outer_sandbox: outer,
            ..CoreConfig::default()
        });
        core.start();
        let lines = sent(core.on_line(r#"{"id":1,"result":{}}"#));
        let open = lines.iter().find(|l| l.get("id").is_some()).unwrap();
        assert_eq!(open["params"]["sandbox"], want);
        assert_eq!(
            open["params"]["approvalPolicy"], "untrusted",
            "approvals stay"
        );
    }
}
