//! Malformed and adversarial input for the ACP client state machine.

use super::*;
use cohost_core::ApprovalOption;
use serde_json::{json, Value};

fn client(approval: ApprovalMode) -> AcpClient {
    AcpClient::new(ClientConfig {
        provider_id: "t".into(),
        cwd: "/w".into(),
        approval,
        resume: None,
        fork: false,
        model: None,
        text_errors: Default::default(),
        mode: None,
        mcp_servers: Vec::new(),
        login_fix: None,
    })
}

/// A client with an open session (id "s1") and a running turn.
fn in_turn(approval: ApprovalMode) -> (AcpClient, Vec<Output>) {
    let mut c = client(approval);
    let mut out = Vec::new();
    c.initialize();
    c.on_line(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#, &mut out);
    c.on_line(
        r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}"#,
        &mut out,
    );
    assert!(matches!(out.last(), Some(Output::Ready(Ok(o))) if o.session_id == "s1"));
    out.clear();
    c.begin_turn(vec!["hi".into()], &mut out).unwrap();
    out.clear();
    (c, out)
}

fn update(u: Value) -> String {
    json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":u}})
        .to_string()
}

fn writes(out: &[Output]) -> Vec<Value> {
    out.iter()
        .filter_map(|o| match o {
            Output::Write(l) => Some(serde_json::from_str(l).unwrap()),
            _ => None,
        })
        .collect()
}

fn events(out: &[Output]) -> Vec<AgentEvent> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn garbage_truncated_and_unknown_lines_are_skipped() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    for line in [
        "",
        "starting agent...",
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chu"#,
        "[1,2,3]",
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        &update(json!({"sessionUpdate":"brand_new_kind","x":1})),
        &update(json!({"sessionUpdate":"agent_message_chunk"})),
        &update(json!({"sessionUpdate":"tool_call"})),
        r#"{"jsonrpc":"2.0","method":"vendor/notice","params":{}}"#,
    ] {
        c.on_line(line, &mut out);
    }
    assert!(events(&out).is_empty(), "{out:?}");
    let s = c.stats();
    assert_eq!(s.garbage, 3);
    assert_eq!(s.unmatched, 1);
    assert_eq!(s.unknown_updates, 2);
    assert_eq!(s.malformed, 2);
    // The turn still works.
    c.on_line(
        &update(
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}),
        ),
        &mut out,
    );
    c.on_line(
        r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}"#,
        &mut out,
    );
    let ev = events(&out);
    assert_eq!(ev[0], AgentEvent::TextDelta("ok".into()));
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Completed,
            ..
        })
    ));
}

#[test]
fn huge_line_is_a_non_fatal_error() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    c.on_oversized(64 << 20, &mut out);
    let ev = events(&out);
    assert!(matches!(&ev[..], [AgentEvent::Error(e)] if e.code == ErrorCode::InvalidOutput));
    let big = "x".repeat(1 << 20);
    out.clear();
    c.on_line(
        &update(
            json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":big}}),
        ),
        &mut out,
    );
    assert!(matches!(&events(&out)[..], [AgentEvent::TextDelta(t)] if t.len() == 1 << 20));
}

#[test]
fn unknown_requests_are_refused_at_once_in_any_phase() {
    let mut c = client(ApprovalMode::Ask);
    let mut out = Vec::new();
    c.initialize();
    for (id, method) in [
        (json!(1), "craft/drainMidTurnQueue"),
        (json!("t"), "terminal/create"),
    ] {
        let line = json!({"jsonrpc":"2.0","id":id,"method":method,"params":{}}).to_string();
        c.on_line(&line, &mut out);
        let w = writes(&out);
        let last = w.last().unwrap();
        assert_eq!(last["id"], id);
        assert_eq!(last["error"]["code"], -32601);
    }
    assert_eq!(c.stats().unknown_requests, 2);
    // Bad params for a known method: -32602, not a hang.
    out.clear();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"nope":1}}"#,
        &mut out,
    );
    assert_eq!(writes(&out)[0]["error"]["code"], -32602);
    out.clear();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":6,"method":"session/request_permission","params":{"options":[]}}"#,
        &mut out,
    );
    assert_eq!(writes(&out)[0]["error"]["code"], -32602);
}

#[test]
fn fs_requests_go_to_the_shell() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    c.on_line(r#"{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/w/a.txt","content":"hi"}}"#, &mut out);
    assert_eq!(
        out,
        [Output::Effect(FsRequest {
            id: json!(7),
            op: FsOp::Write {
                path: "/w/a.txt".into(),
                content: "hi".into()
            }
        })]
    );
}

fn permission(id: u64, tool: &str) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"session/request_permission","params":{
        "sessionId":"s1",
        "toolCall":{"toolCallId":tool,"title":"rm -rf x","kind":"execute","rawInput":{"command":"rm -rf x"}},
        "options":[
            {"optionId":"yes-always","name":"Always","kind":"allow_always"},
            {"optionId":"yes","name":"Yes","kind":"allow_once"},
            {"optionId":"no","name":"No","kind":"reject_once"}
        ]}}).to_string()
}

#[test]
fn approvals_map_option_kinds_to_the_agents_ids() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    // A pending call is held until the permission request names it.
    c.on_line(&update(json!({"sessionUpdate":"tool_call","toolCallId":"c1","title":"Shell","kind":"execute","status":"pending","rawInput":{}})), &mut out);
    assert!(events(&out).is_empty());
    c.on_line(&permission(40, "c1"), &mut out);
    let ev = events(&out);
    let [AgentEvent::ApprovalRequested { call, options }] = &ev[..] else {
        panic!("{ev:?}")
    };
    assert_eq!(call.tool_id, "c1");
    assert_eq!(call.kind, cohost_core::ToolKind::Execute);
    assert_eq!(call.input["command"], "rm -rf x");
    assert_eq!(
        options,
        &[
            ApprovalOption::AllowOnce,
            ApprovalOption::AllowAlways,
            ApprovalOption::RejectOnce
        ]
    );
    let d = |option| ToolDecision {
        tool_id: "c1".into(),
        option,
        message: None,
    };
    let line: Value =
        serde_json::from_str(&c.decide(&d(ApprovalOption::RejectAlways)).unwrap()).unwrap();
    // No reject_always offered: its sibling reject_once is chosen.
    assert_eq!(line["id"], 40);
    assert_eq!(
        line["result"]["outcome"],
        json!({"outcome":"selected","optionId":"no"})
    );
    assert!(
        c.decide(&d(ApprovalOption::AllowOnce)).is_err(),
        "answered twice"
    );
    // The agent reports the call failed; it was denied.
    out.clear();
    c.on_line(
        &update(json!({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"failed"})),
        &mut out,
    );
    assert!(matches!(
        &events(&out)[..],
        [AgentEvent::ToolExecuted {
            status: ToolStatus::Denied,
            ..
        }]
    ));
}

#[test]
fn an_option_kind_newer_than_the_schema_costs_that_option_only() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    let line = json!({"jsonrpc":"2.0","id":46,"method":"session/request_permission","params":{
    "sessionId":"s1",
    "toolCall":{"toolCallId":"c7","title":"ls","kind":"search"},
    "options":[
        {"optionId":"later","name":"Ask me later","kind":"defer"},
        {"optionId":"yes","name":"Yes","kind":"allow_once"},
        {"optionId":"no","name":"No","kind":"reject_once"}
    ]}})
    .to_string();
    c.on_line(&line, &mut out);
    assert!(writes(&out).is_empty(), "{out:?}");
    let ev = events(&out);
    let [AgentEvent::ApprovalRequested { options, .. }] = &ev[..] else {
        panic!("{ev:?}")
    };
    assert_eq!(
        options,
        &[ApprovalOption::AllowOnce, ApprovalOption::RejectOnce]
    );
}

#[test]
fn cancel_answers_open_permissions_as_cancelled() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    c.on_line(&permission(41, "c2"), &mut out);
    out.clear();
    c.cancel(&mut out);
    let w = writes(&out);
    assert_eq!(w[0]["id"], 41);
    assert_eq!(w[0]["result"]["outcome"]["outcome"], "cancelled");
    assert_eq!(w[1]["method"], "session/cancel");
    assert_eq!(w[1]["params"]["sessionId"], "s1");
    out.clear();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#,
        &mut out,
    );
    assert!(matches!(
        events(&out).last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Interrupted,
            ..
        })
    ));
    // Outside a turn, a permission request is answered cancelled at once.
    out.clear();
    c.on_line(&permission(42, "c3"), &mut out);
    assert_eq!(writes(&out)[0]["result"]["outcome"]["outcome"], "cancelled");
    assert!(events(&out).is_empty());
}

#[test]
fn policies_answer_without_asking() {
    for (mode, want) in [
        (ApprovalMode::AutoApprove, "yes"),
        (ApprovalMode::DenyAll, "no"),
    ] {
        let (mut c, mut out) = in_turn(mode);
        c.on_line(&permission(43, "c4"), &mut out);
        assert_eq!(writes(&out)[0]["result"]["outcome"]["optionId"], want);
        let ev = events(&out);
        assert!(
            matches!(&ev[..], [AgentEvent::ToolCall(call)] if call.tool_id == "c4"),
            "{ev:?}"
        );
        out.clear();
        c.on_line(
            r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}"#,
            &mut out,
        );
        let denied = events(&out).iter().any(|e| {
            matches!(
                e,
                AgentEvent::ToolExecuted {
                    status: ToolStatus::Denied,
                    ..
                }
            )
        });
        assert_eq!(denied, mode == ApprovalMode::DenyAll);
    }
}

#[test]
fn resume_uses_session_load_only_when_offered() {
    for (load, method) in [(true, "session/load"), (false, "session/new")] {
        let mut c = AcpClient::new(ClientConfig {
            provider_id: "t".into(),
            cwd: "/w".into(),
            approval: ApprovalMode::Ask,
            resume: Some("old".into()),
            fork: false,
            model: None,
            text_errors: Default::default(),
            mode: None,
            mcp_servers: Vec::new(),
            login_fix: None,
        });
        let mut out = Vec::new();
        c.initialize();
        let init =
            json!({"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{"loadSession":load}}});
        c.on_line(&init.to_string(), &mut out);
        assert_eq!(writes(&out)[0]["method"], method);
        // Replayed history during load is not part of any turn.
        c.on_line(&update(json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"old"}})), &mut out);
        let answer = if load {
            json!(null)
        } else {
            json!({"sessionId":"new"})
        };
        c.on_line(
            &json!({"jsonrpc":"2.0","id":1,"result":answer}).to_string(),
            &mut out,
        );
        let Some(Output::Ready(Ok(o))) = out.last() else {
            panic!("{out:?}")
        };
        assert_eq!(o.resumed, load);
        assert_eq!(o.session_id, if load { "old" } else { "new" });
        assert!(events(&out).is_empty());
        out.clear();
        c.begin_turn(vec![], &mut out).unwrap();
        let notice = events(&out).iter().any(
            |e| matches!(e, AgentEvent::Status { message, .. } if message.contains("not resumed")),
        );
        assert_eq!(notice, !load, "{out:?}");
    }
}

#[test]
fn a_failed_load_falls_back_to_a_new_session_with_a_notice() {
    let mut c = AcpClient::new(ClientConfig {
        provider_id: "t".into(),
        cwd: "/w".into(),
        approval: ApprovalMode::Ask,
        resume: Some("gone".into()),
        fork: false,
        model: None,
        text_errors: Default::default(),
        mode: None,
        mcp_servers: Vec::new(),
        login_fix: None,
    });
    let mut out = Vec::new();
    c.initialize();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{"loadSession":true}}}"#,
        &mut out,
    );
    c.on_line(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"details":"No previous sessions found"}}}"#, &mut out);
    assert_eq!(writes(&out).last().unwrap()["method"], "session/new");
    c.on_line(
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"fresh"}}"#,
        &mut out,
    );
    assert!(
        matches!(out.last(), Some(Output::Ready(Ok(o))) if o.session_id == "fresh" && !o.resumed)
    );
    out.clear();
    c.begin_turn(vec![], &mut out).unwrap();
    let ev = events(&out);
    assert!(
        matches!(&ev[1], AgentEvent::Status { message, .. } if message.contains("could not resume session gone")),
        "{ev:?}"
    );
}

#[test]
fn handshake_and_prompt_errors_are_classified() {
    let mut c = client(ApprovalMode::Ask);
    let mut out = Vec::new();
    c.initialize();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"Authentication required"}}"#,
        &mut out,
    );
    assert!(matches!(&out[..], [Output::Ready(Err(e))] if e.code == ErrorCode::AuthRequired));
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    c.on_line(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error","data":{"details":"429 rate limit exceeded"}}}"#, &mut out);
    let ev = events(&out);
    assert!(
        matches!(&ev[0], AgentEvent::Error(e) if e.code == ErrorCode::RateLimited),
        "{ev:?}"
    );
    assert!(matches!(
        ev.last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Error,
            ..
        })
    ));
    assert!(
        c.begin_turn(vec![], &mut out).is_ok(),
        "idle again after an error"
    );
}

#[test]
fn plan_becomes_status_and_usage_is_reported() {
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    c.on_line(&update(json!({"sessionUpdate":"plan","entries":[{"content":"read","priority":"high","status":"completed"},{"content":"edit","priority":"medium","status":"pending"}]})), &mut out);
    assert!(
        matches!(&events(&out)[..], [AgentEvent::Status { message, .. }] if message == "plan:\n[x] read\n[ ] edit")
    );
    // The schema requires `priority` (claude-code-acp 0.16.2 and qwen 0.24.4
    // send "medium") and skips an entry without it; the turn goes on.
    out.clear();
    c.on_line(
        &update(
            json!({"sessionUpdate":"plan","entries":[{"content":"read","status":"completed"}]}),
        ),
        &mut out,
    );
    assert!(
        matches!(&events(&out)[..], [AgentEvent::Status { message, .. }] if message == "plan:\n"),
        "{out:?}"
    );
    out.clear();
    c.on_line(r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"max_turn_requests","usage":{"totalTokens":8,"inputTokens":5,"outputTokens":2,"thoughtTokens":1}}}"#, &mut out);
    let ev = events(&out);
    let want = Usage {
        input_tokens: 5,
        output_tokens: 2,
        reasoning_tokens: 1,
        ..Usage::default()
    };
    assert_eq!(
        ev,
        [
            AgentEvent::Usage(want),
            AgentEvent::Ended {
                reason: EndReason::MaxTurns,
                usage: Some(want)
            }
        ]
    );
}

#[test]
fn begin_turn_needs_an_idle_open_session() {
    let mut c = client(ApprovalMode::Ask);
    let mut out = Vec::new();
    assert_eq!(
        c.begin_turn(vec![], &mut out).unwrap_err().code,
        ErrorCode::IllegalTransition
    );
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    assert_eq!(
        c.begin_turn(vec![], &mut out).unwrap_err().code,
        ErrorCode::IllegalTransition
    );
}

#[test]
fn a_turn_the_agent_aborts_on_a_denial_completes() {
    // codex-acp's only reject option aborts its turn (`cancelled`); cohost
    // did not interrupt, so the turn completed (with the call denied).
    for mode in [ApprovalMode::Ask, ApprovalMode::DenyAll] {
        let (mut c, mut out) = in_turn(mode);
        c.on_line(&permission(44, "c5"), &mut out);
        if mode == ApprovalMode::Ask {
            let d = ToolDecision {
                tool_id: "c5".into(),
                option: ApprovalOption::RejectOnce,
                message: None,
            };
            c.decide(&d).unwrap();
        }
        out.clear();
        c.on_line(
            r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#,
            &mut out,
        );
        let ev = events(&out);
        assert!(
            ev.iter().any(|e| matches!(e, AgentEvent::ToolExecuted { tool_id, status: ToolStatus::Denied, .. } if tool_id == "c5")),
            "{ev:?}"
        );
        assert!(
            matches!(
                ev.last(),
                Some(AgentEvent::Ended {
                    reason: EndReason::Completed,
                    ..
                })
            ),
            "{mode:?}: {ev:?}"
        );
    }
    // Without a denial, `cancelled` still means interrupted...
    let (mut c, mut out) = in_turn(ApprovalMode::Ask);
    c.on_line(
        r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#,
        &mut out,
    );
    assert!(matches!(
        events(&out).last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Interrupted,
            ..
        })
    ));
    // ...and so it does after a denial when the user also interrupted.
    let (mut c, mut out) = in_turn(ApprovalMode::DenyAll);
    c.on_line(&permission(45, "c6"), &mut out);
    c.cancel(&mut out);
    out.clear();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}"#,
        &mut out,
    );
    assert!(matches!(
        events(&out).last(),
        Some(AgentEvent::Ended {
            reason: EndReason::Interrupted,
            ..
        })
    ));
}

/// A client asked to fork session `old`, after `initialize` answered `caps`.
fn forking(caps: Value) -> (AcpClient, Vec<Output>) {
    let mut c = client(ApprovalMode::Ask);
    c.cfg.resume = Some("old".into());
    c.cfg.fork = true;
    let mut out = Vec::new();
    c.initialize();
    let init = json!({"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":caps}});
    c.on_line(&init.to_string(), &mut out);
    (c, out)
}

#[test]
fn fork_sends_session_fork_when_offered_and_opens_the_new_session() {
    let (mut c, mut out) = forking(json!({"loadSession":true,"sessionCapabilities":{"fork":{}}}));
    let w = writes(&out);
    assert_eq!(w[0]["method"], "session/fork", "{out:?}");
    assert_eq!(w[0]["params"]["sessionId"], "old");
    assert_eq!(w[0]["params"]["cwd"], "/w");
    c.on_line(
        r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"forked"}}"#,
        &mut out,
    );
    let Some(Output::Ready(Ok(o))) = out.last() else {
        panic!("{out:?}")
    };
    assert_eq!(o.session_id, "forked");
    assert!(o.resumed, "a fork carries the parent's history");
}

#[test]
fn fork_without_the_capability_is_unsupported_mode_and_loads_nothing() {
    let (_c, out) = forking(json!({"loadSession":true}));
    assert!(writes(&out).is_empty(), "{out:?}");
    let Some(Output::Ready(Err(e))) = out.last() else {
        panic!("{out:?}")
    };
    assert_eq!(e.code, ErrorCode::UnsupportedMode);
    assert!(e.message.contains("session/fork"), "{e:?}");
    assert!(e
        .suggested_fix
        .as_deref()
        .is_some_and(|f| f.contains("--resume")));
}

#[test]
fn a_refused_fork_is_a_handshake_error_naming_the_session() {
    let (mut c, mut out) = forking(json!({"sessionCapabilities":{"fork":{}}}));
    c.on_line(
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no such session"}}"#,
        &mut out,
    );
    let Some(Output::Ready(Err(e))) = out.last() else {
        panic!("{out:?}")
    };
    assert_eq!(e.code, ErrorCode::ConfigInvalid);
    assert!(e.message.contains("session/fork"), "{e:?}");
}

/// A client configured to switch sessions to mode `ask` (as Vibe's spec
/// does under Ask), after `initialize` was answered.
fn switching(approval: ApprovalMode, resume: Option<&str>) -> (AcpClient, Vec<Output>) {
    let mut c = AcpClient::new(ClientConfig {
        provider_id: "t".into(),
        cwd: "/w".into(),
        approval,
        resume: resume.map(String::from),
        fork: false,
        model: None,
        text_errors: Default::default(),
        mode: Some("ask".into()),
        mcp_servers: Vec::new(),
        login_fix: None,
    });
    let mut out = Vec::new();
    c.initialize();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{"loadSession":true}}}"#,
        &mut out,
    );
    (c, out)
}

/// A `modes` member: current `current`, offering `offered`.
fn modes(current: &str, offered: &[&str]) -> Value {
    let available: Vec<Value> = offered
        .iter()
        .map(|id| json!({"id": id, "name": id}))
        .collect();
    json!({"currentModeId": current, "availableModes": available})
}

#[test]
fn a_new_or_loaded_session_is_switched_to_the_configured_mode_before_it_opens() {
    for resume in [None, Some("old")] {
        let (mut c, mut out) = switching(ApprovalMode::Ask, resume);
        let offered = modes("accept-edits", &["ask", "accept-edits", "auto-approve"]);
        let answer = match resume {
            None => json!({"sessionId": "s1", "modes": offered}),
            Some(_) => json!({"modes": offered}),
        };
        c.on_line(
            &json!({"jsonrpc":"2.0","id":1,"result":answer}).to_string(),
            &mut out,
        );
        assert!(
            !out.iter().any(|o| matches!(o, Output::Ready(_))),
            "{resume:?}: opened before the mode was set: {out:?}"
        );
        let set = writes(&out).pop().unwrap();
        let sid = resume.unwrap_or("s1");
        assert_eq!(set["method"], "session/set_mode");
        assert_eq!(set["id"], 2);
        assert_eq!(set["params"], json!({"sessionId": sid, "modeId": "ask"}));
        c.on_line(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#, &mut out);
        assert!(
            matches!(out.last(), Some(Output::Ready(Ok(o))) if o.session_id == sid && o.resumed == resume.is_some()),
            "{out:?}"
        );
        // The first prompt takes the next request id.
        out.clear();
        c.begin_turn(vec!["hi".into()], &mut out).unwrap();
        assert_eq!(writes(&out).pop().unwrap()["id"], 3);
    }
}

#[test]
fn no_switch_when_the_agent_has_no_modes_or_is_already_in_the_mode() {
    for answer in [
        json!({"sessionId": "s1"}),
        json!({"sessionId": "s1", "modes": modes("ask", &["ask", "auto-approve"])}),
    ] {
        let (mut c, mut out) = switching(ApprovalMode::Ask, None);
        c.on_line(
            &json!({"jsonrpc":"2.0","id":1,"result":answer}).to_string(),
            &mut out,
        );
        assert!(writes(&out)
            .iter()
            .all(|w| w["method"] != "session/set_mode"));
        assert!(matches!(out.last(), Some(Output::Ready(Ok(_)))), "{out:?}");
    }
}

#[test]
fn a_session_that_cannot_be_made_to_ask_does_not_open_unless_all_is_approved() {
    let missing = json!({"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","modes":modes("yolo", &["yolo"])}});
    let refused = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}"#;
    for mode in [
        ApprovalMode::Ask,
        ApprovalMode::DenyAll,
        ApprovalMode::AutoApprove,
    ] {
        // The mode is not offered at all.
        let (mut c, mut out) = switching(mode, None);
        c.on_line(&missing.to_string(), &mut out);
        assert!(writes(&out)
            .iter()
            .all(|w| w["method"] != "session/set_mode"));
        // The agent refuses the switch.
        let (mut c2, mut out2) = switching(mode, None);
        c2.on_line(
            r#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","modes":{"currentModeId":"yolo","availableModes":[{"id":"ask","name":"Ask"}]}}}"#,
            &mut out2,
        );
        c2.on_line(refused, &mut out2);
        for (what, out) in [("missing", &out), ("refused", &out2)] {
            match out.last() {
                Some(Output::Ready(Ok(o))) => {
                    assert_eq!(mode, ApprovalMode::AutoApprove, "{what}: {o:?}");
                }
                Some(Output::Ready(Err(e))) => {
                    assert_ne!(mode, ApprovalMode::AutoApprove, "{what}: {e}");
                    assert_eq!(e.code, ErrorCode::UnsupportedMode);
                    assert!(e.message.contains("`ask`"), "{what}: {e}");
                    if what == "missing" {
                        assert!(e.message.contains("offers only yolo"), "{e}");
                    } else {
                        assert!(e.message.contains("Invalid params"), "{e}");
                    }
                }
                other => panic!("{what}: {other:?}"),
            }
        }
        assert!(c.session_id().is_none() || mode == ApprovalMode::AutoApprove);
    }
}

/// The first request after `initialize` (answered with `caps`) of a client
/// given `servers`, resuming `old` when `resume`, forking it when `fork`.
fn session_request(
    servers: Vec<cohost_core::McpServer>,
    caps: Value,
    resume: bool,
    fork: bool,
) -> Value {
    let mut c = client(ApprovalMode::Ask);
    c.cfg.mcp_servers = servers;
    c.cfg.resume = resume.then(|| "old".into());
    c.cfg.fork = fork;
    let mut out = Vec::new();
    c.initialize();
    let init = json!({"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":caps}});
    c.on_line(&init.to_string(), &mut out);
    writes(&out).remove(0)
}

#[test]
fn mcp_servers_go_in_new_load_and_fork() {
    use crate::mcp_servers::tests::server;
    let caps = json!({"loadSession":true,"sessionCapabilities":{"fork":{}}});
    let cases = [
        (false, false, "session/new"),
        (true, false, "session/load"),
        (true, true, "session/fork"),
    ];
    let one = vec![server(
        "cohost_room",
        "/opt/cohost/bin/cohost",
        &["room-bridge"],
        &[("COHOST_ROOM", "r-1")],
    )];
    let two = vec![
        one[0].clone(),
        server("notes", "/bin/notes", &["-v", "a \"b\""], &[]),
    ];
    let room = json!({
        "name": "cohost_room",
        "command": "/opt/cohost/bin/cohost",
        "args": ["room-bridge"],
        "env": [{"name": "COHOST_ROOM", "value": "r-1"}],
    });
    let notes =
        json!({"name": "notes", "command": "/bin/notes", "args": ["-v", "a \"b\""], "env": []});
    for (resume, fork, method) in cases {
        let none = session_request(Vec::new(), caps.clone(), resume, fork);
        assert_eq!(none["method"], method);
        // As before cohost gave any: new and load carry the required empty
        // list; the schema leaves an empty fork list out.
        let want = if fork { Value::Null } else { json!([]) };
        assert_eq!(none["params"]["mcpServers"], want, "{method}: {none}");
        let w = session_request(one.clone(), caps.clone(), resume, fork);
        assert_eq!(w["method"], method);
        assert_eq!(w["params"]["mcpServers"], json!([room]), "{method}");
        let w = session_request(two.clone(), caps.clone(), resume, fork);
        assert_eq!(w["params"]["mcpServers"], json!([room, notes]), "{method}");
    }
}

#[test]
fn a_failed_load_keeps_the_mcp_servers_in_its_new_session() {
    let mut c = client(ApprovalMode::Ask);
    c.cfg.resume = Some("gone".into());
    c.cfg.mcp_servers = vec![crate::mcp_servers::tests::server(
        "cohost_room",
        "/bin/room",
        &[],
        &[],
    )];
    let mut out = Vec::new();
    c.initialize();
    c.on_line(
        r#"{"jsonrpc":"2.0","id":0,"result":{"agentCapabilities":{"loadSession":true}}}"#,
        &mut out,
    );
    c.on_line(
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
        &mut out,
    );
    let w = writes(&out);
    let new = w.last().unwrap();
    assert_eq!(new["method"], "session/new");
    assert_eq!(new["params"]["mcpServers"][0]["name"], "cohost_room");
}
