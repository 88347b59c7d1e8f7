//! Golden ACP transcripts captured from the pinned agents against
//! cohost-fakellm (`tests/fixtures/acp/capture.py`), replayed through the
//! pure client state machine. `>> ` lines are what the client wrote and are
//! re-enacted as client calls; our own writes must match what the agent
//! accepted. Each fixture has a snapshot of the normalized events beside it
//! (`<scenario>.events`, `cohost_testbench::snapshot`); `INSTA_UPDATE=always`
//! rewrites them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::parsers::acp::{AcpClient, ClientConfig, Output};
use cohost_core::{
    AgentEvent, ApprovalMode, ApprovalOption, EndReason, ErrorCode, ToolDecision, ToolStatus,
};
use serde_json::Value;
use std::path::PathBuf;

/// Every captured agent and version: the folders `tests/fixtures/acp/AGENT/VERSION/`
/// (a new ACP agent's captures are replayed without naming it here).
fn agents() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp");
    let mut out = Vec::new();
    for agent in std::fs::read_dir(&root).unwrap() {
        let agent = agent.unwrap().path();
        if !agent.is_dir() {
            continue;
        }
        for version in std::fs::read_dir(&agent).unwrap() {
            let version = version.unwrap().path();
            if version.is_dir() {
                let name =
                    |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().into_owned();
                out.push((name(&agent), name(&version)));
            }
        }
    }
    out.sort();
    out
}

fn dir(agent: &str, version: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/acp")
        .join(agent)
        .join(version)
}

struct Replay {
    events: Vec<AgentEvent>,
    writes: Vec<Value>,
}

fn replay(agent: &str, text: &str) -> Replay {
    // The provider the folder is named after (`copilot` -> `copilot-acp`).
    let spec = cohost_agents::drivers::acp::providers::by_id(&format!("{agent}-acp"))
        .or_else(|| cohost_agents::drivers::acp::providers::by_id(agent));
    let text_errors = spec.as_ref().map(|s| s.text_errors).unwrap_or_default();
    let approval = ApprovalMode::Ask;
    let mode = spec
        .and_then(|s| s.approval_modes)
        .map(|m| m.for_approval(approval).to_string());
    let mut c = AcpClient::new(ClientConfig {
        provider_id: "test".into(),
        cwd: "/work".into(),
        approval,
        resume: None,
        fork: false,
        model: None,
        text_errors,
        mode,
        mcp_servers: Vec::new(),
        login_fix: None,
    });
    let mut out = Vec::new();
    let mut events = Vec::new();
    let mut writes: Vec<Value> = Vec::new();
    // Permission requests seen: rpc id → (tool id, options).
    let mut asked: Vec<(Value, String, Vec<Value>)> = Vec::new();
    let drain = |out: &mut Vec<Output>, events: &mut Vec<AgentEvent>, writes: &mut Vec<Value>| {
        for o in out.drain(..) {
            match o {
                Output::Event(e) => events.push(e),
                Output::Write(l) => writes.push(serde_json::from_str(&l).expect("we write JSON")),
                Output::Ready(_) | Output::Effect(_) | Output::Steered(..) => {}
            }
        }
    };
    for line in text.lines() {
        if line.starts_with("# ") {
            continue;
        }
        let Some(sent) = line.strip_prefix(">> ") else {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                if v["method"] == "session/request_permission" {
                    let p = &v["params"];
                    asked.push((
                        v["id"].clone(),
                        p["toolCall"]["toolCallId"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                        p["options"].as_array().cloned().unwrap_or_default(),
                    ));
                }
            }
            c.on_line(line, &mut out);
            drain(&mut out, &mut events, &mut writes);
            continue;
        };
        let v: Value = serde_json::from_str(sent).expect("host line is JSON");
        match v["method"].as_str() {
            Some("initialize") => {
                let ours: Value = serde_json::from_str(&c.initialize()).unwrap();
                assert_eq!(ours["id"], v["id"]);
            }
            Some("session/new" | "session/load") => {
                let ours = writes.pop().expect("the client opened the session itself");
                assert_eq!(ours["method"], v["method"]);
                assert_eq!(ours["id"], v["id"]);
            }
            Some("session/set_mode") => {
                // Sent by the client itself on the agent's answer, for an
                // agent whose spec names approval modes.
                let ours = writes.pop().expect("the client switched the mode itself");
                assert_eq!(ours["method"], v["method"]);
                assert_eq!(ours["id"], v["id"]);
                assert_eq!(ours["params"], v["params"], "the same mode");
            }
            Some("session/prompt") => {
                // The blocks we sent, as the SDK's schema reads them.
                let blocks = serde_json::from_value(v["params"]["prompt"].clone()).unwrap();
                c.begin_turn(blocks, &mut out).expect("idle");
                drain(&mut out, &mut events, &mut writes);
                let ours = writes.pop().unwrap();
                assert_eq!(ours["id"], v["id"], "request ids replay");
            }
            Some("session/cancel") => {
                c.cancel(&mut out);
                drain(&mut out, &mut events, &mut writes);
                assert_eq!(writes.last().unwrap()["method"], "session/cancel");
            }
            Some(other) => panic!("unexpected host request {other}"),
            None => {
                // A response we sent to an agent request.
                if let Some(i) = asked.iter().position(|(id, _, _)| *id == v["id"]) {
                    let (_, tool_id, options) = asked.remove(i);
                    let chosen = v["result"]["outcome"]["optionId"].clone();
                    let kind = options
                        .iter()
                        .find(|o| o["optionId"] == chosen)
                        .and_then(|o| o["kind"].as_str())
                        .expect("chosen option has a kind");
                    let option = match kind {
                        "allow_once" => ApprovalOption::AllowOnce,
                        "allow_always" => ApprovalOption::AllowAlways,
                        "reject_once" => ApprovalOption::RejectOnce,
                        _ => ApprovalOption::RejectAlways,
                    };
                    let line = c
                        .decide(&ToolDecision {
                            tool_id,
                            option,
                            message: None,
                        })
                        .expect("pending approval");
                    let ours: Value = serde_json::from_str(&line).unwrap();
                    assert_eq!(
                        ours["result"], v["result"],
                        "our answer is what the agent got"
                    );
                } else if v.get("error").is_some() {
                    // An unknown request: we must have answered it the same way.
                    assert!(
                        writes
                            .iter()
                            .any(|w| w["id"] == v["id"] && w["error"]["code"] == -32601),
                        "unknown request {} not refused: {writes:?}",
                        v["id"]
                    );
                }
            }
        }
    }
    Replay { events, writes }
}

fn check_snapshot(agent: &str, version: &str, scenario: &str, events: &[AgentEvent]) {
    let path = dir(agent, version).join(format!("{scenario}.events"));
    cohost_testbench::snapshot::check_events(&path, events);
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

fn load(agent: &str, version: &str, scenario: &str) -> Option<String> {
    let path = dir(agent, version).join(format!("{scenario}.jsonl"));
    std::fs::read_to_string(path).ok()
}

#[test]
fn golden_transcripts_replay() {
    let mut checked = 0;
    for (agent, version) in agents() {
        let (agent, version) = (agent.as_str(), version.as_str());
        for scenario in [
            "text",
            "reasoning",
            "tool_allow",
            "tool_deny",
            "interrupt",
            "error_401",
            "write_deny",
        ] {
            let Some(text) = load(agent, version, scenario) else {
                continue;
            };
            checked += 1;
            let header = text.lines().next().unwrap_or_default();
            assert!(
                header.starts_with("# {") && header.contains("\"version\""),
                "{agent}/{scenario} header"
            );
            let r = replay(agent, &text);
            let ev = &r.events;
            assert!(
                matches!(
                    ev.first(),
                    Some(AgentEvent::Started {
                        session_id: Some(_),
                        ..
                    })
                ),
                "{agent} {scenario}"
            );
            match scenario {
                "text" => {
                    // copilot prepends `<current_datetime>…</current_datetime>` to the prompt;
                    // codex-acp streams a model-metadata warning as answer text first;
                    // kilo sends an `<environment_details>` block after the prompt, the
                    // one the fake server quotes.
                    let t = text_of(ev);
                    assert!(
                        t.contains("Hello from fake-llm. You said: ")
                            && (t.ends_with("say hello") || t.ends_with("</environment_details>")),
                        "{agent}: {t:?}"
                    );
                    assert!(
                        ev.iter()
                            .filter(|e| matches!(e, AgentEvent::TextDelta(_)))
                            .count()
                            >= 2
                    );
                    assert_eq!(ends(ev), [EndReason::Completed]);
                }
                "reasoning" => {
                    assert!(
                        ev.iter()
                            .any(|e| matches!(e, AgentEvent::ReasoningDelta(_))),
                        "{agent}: no reasoning"
                    );
                    assert_eq!(ends(ev), [EndReason::Completed]);
                }
                "tool_allow" | "tool_deny" | "write_deny" => {
                    let asked: Vec<&str> = ev
                        .iter()
                        .filter_map(|e| match e {
                            AgentEvent::ApprovalRequested { call, .. } => {
                                Some(call.tool_id.as_str())
                            }
                            _ => None,
                        })
                        .collect();
                    // write_deny: a file-writing tool, asked about and refused
                    // (vibe asks only in the mode cohost switches it to).
                    let want = if scenario == "tool_allow" {
                        ToolStatus::Ok
                    } else {
                        ToolStatus::Denied
                    };
                    if agent == "opencode" {
                        // Captured with its default config, which allows bash
                        // without asking (the driver sets OPENCODE_PERMISSION).
                        assert!(asked.is_empty());
                    } else {
                        assert_eq!(asked.len(), 1, "{agent} {scenario}: {ev:#?}");
                        assert!(
                            ev.iter().any(|e| matches!(e, AgentEvent::ToolExecuted { tool_id, status, .. } if tool_id == asked[0] && *status == want)),
                            "{agent} {scenario}: no {want:?} outcome: {ev:#?}"
                        );
                    }
                    assert_eq!(ends(ev), [EndReason::Completed]);
                }
                "interrupt" => {
                    assert_eq!(
                        ends(ev),
                        [EndReason::Interrupted, EndReason::Completed],
                        "{agent}: {ev:#?}"
                    );
                }
                // copilot 1.0.102 reports the provider's 401 as answer text and
                // ends the turn normally; the driver recognizes its exact shape.
                "error_401" => {
                    assert!(
                        ev.iter().any(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::AuthRequired)),
                        "{agent}: {ev:#?}"
                    );
                    assert_eq!(ends(ev), [EndReason::Error]);
                }
                _ => unreachable!(),
            }
            // Events never follow the last end.
            assert!(
                matches!(ev.last(), Some(AgentEvent::Ended { .. })),
                "{agent} {scenario}"
            );
            assert!(r.writes.iter().all(|w| w["jsonrpc"] == "2.0"));
            check_snapshot(agent, version, scenario, ev);
        }
    }
    assert!(checked >= 30, "only {checked} fixtures found");
}
