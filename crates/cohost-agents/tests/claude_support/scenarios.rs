//! E2E scenarios, written once for every member of the Claude family.

use super::*;
use cohost_core::{ErrorCode, Policy, ToolStatus};
use std::time::Instant;

const TOOL_FILE: &str = cohost_fakellm::tools::TOOL_FILE;

pub async fn text_and_reasoning(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::DenyAll))
        .await;
    let (ev, out) = prompt(&mut s, "hello there").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", out.error);
    assert!(matches!(
        &ev[0].body,
        EventBody::StreamStart {
            session_id: Some(_),
            ..
        }
    ));
    let idx = chunk_indexes(&ev);
    assert!(idx.len() >= 2, "token deltas: {idx:?}");
    assert_eq!(
        idx,
        (0..idx.len() as u64).collect::<Vec<_>>(),
        "consecutive indexes"
    );
    assert_eq!(text(&ev), "Hello from fake-llm. You said: hello there");
    assert!(matches!(&ev.last().unwrap().body,
        EventBody::StreamEnd { reason: EndReason::Completed, usage: Some(u) } if u.output_tokens > 0));
    let (ev, out) = prompt(&mut s, "think [[scenario:reasoning]]").await;
    assert_eq!(out.reason, EndReason::Completed);
    assert!(count(&ev, |b| matches!(b, EventBody::ReasoningChunk { .. })) >= 2);
    assert!(!text(&ev).is_empty());
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn tool_allow(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::AllowAll))
        .await;
    let (ev, out) = prompt(&mut s, "run it [[scenario:tool]]").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", out.error);
    assert_eq!(
        count(&ev, |b| matches!(
            b,
            EventBody::ToolApprovalRequested { .. }
        )),
        1
    );
    assert_eq!(
        count(&ev, |b| matches!(b, EventBody::ToolCall { .. })),
        0,
        "no duplicate"
    );
    assert_eq!(
        count(&ev, |b| matches!(
            b,
            EventBody::ToolExecuted {
                status: ToolStatus::Ok,
                ..
            }
        )),
        1
    );
    assert!(
        rig.cwd.path().join(TOOL_FILE).exists(),
        "the approved tool ran in the session cwd"
    );
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn tool_deny(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::DenyAll))
        .await;
    let (ev, out) = prompt(&mut s, "run it [[scenario:tool]]").await;
    assert_eq!(
        out.reason,
        EndReason::Completed,
        "a denial ends the turn cleanly"
    );
    assert_eq!(
        count(&ev, |b| matches!(
            b,
            EventBody::ToolApprovalRequested { .. }
        )),
        1
    );
    assert_eq!(
        count(&ev, |b| matches!(
            b,
            EventBody::ToolExecuted {
                status: ToolStatus::Denied,
                ..
            }
        )),
        1
    );
    assert!(
        !rig.cwd.path().join(TOOL_FILE).exists(),
        "a denied tool did not run"
    );
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn auto_approve(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    // NeverAnswers: any approval request would hang until the deadline.
    let mut s = rig
        .session(
            rig.config(ApprovalMode::AutoApprove),
            Arc::new(cohost_core::approval::NeverAnswers),
        )
        .await;
    let (ev, out) = prompt(&mut s, "run it [[scenario:tool]]").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", out.error);
    assert_eq!(
        count(&ev, |b| matches!(
            b,
            EventBody::ToolApprovalRequested { .. }
        )),
        0
    );
    assert_eq!(count(&ev, |b| matches!(b, EventBody::ToolCall { .. })), 1);
    assert!(rig.cwd.path().join(TOOL_FILE).exists());
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn interrupt_then_continue(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::DenyAll))
        .await;
    let control = s.control();
    let asked: Arc<Mutex<Option<Instant>>> = Arc::default();
    let ended: Arc<Mutex<Option<Instant>>> = Arc::default();
    let events = Arc::new(Mutex::new(Vec::new()));
    let (a, e, evs) = (asked.clone(), ended.clone(), events.clone());
    let mut sink = move |ev: Event| {
        if matches!(ev.body, EventBody::StreamChunk { .. }) && a.lock().unwrap().is_none() {
            *a.lock().unwrap() = Some(Instant::now());
            control.interrupt();
        }
        if matches!(ev.body, EventBody::StreamEnd { .. }) {
            *e.lock().unwrap() = Some(Instant::now());
        }
        evs.lock().unwrap().push(ev);
    };
    let out = s
        .prompt(PromptInput::text("go slow [[scenario:slow]]"), &mut sink)
        .await;
    assert_eq!(out.reason, EndReason::Interrupted, "{:?}", out.error);
    let took = ended.lock().unwrap().unwrap() - asked.lock().unwrap().unwrap();
    assert!(
        took < Duration::from_secs(2),
        "stream_end {took:?} after the interrupt"
    );
    let full = "tick 0 tick 1 tick 2 tick 3 tick 4 tick 5";
    assert!(
        !text(&events.lock().unwrap()).contains(full),
        "the stream really stopped"
    );
    let (_, out) = prompt(&mut s, "still there?").await;
    assert_eq!(
        out.reason,
        EndReason::Completed,
        "same session works after an interrupt"
    );
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn resume(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::DenyAll))
        .await;
    let (_, out) = prompt(&mut s, "remember the word pineapple-7").await;
    assert_eq!(out.reason, EndReason::Completed);
    let id = s
        .native_session_id()
        .expect("native session id")
        .to_string();
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;

    let mut cfg = rig.config(ApprovalMode::Ask);
    cfg.resume = Some(id.clone());
    let mut s = rig.session(cfg, Arc::new(Policy::DenyAll)).await;
    let (ev, out) = prompt(&mut s, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", out.error);
    let last = rig
        .fake
        .requests()
        .into_iter()
        .rfind(|r| r.scenario.is_some() && r.body.to_string().contains("which word?"))
        .expect("the resumed turn reached the model");
    assert!(
        last.body.to_string().contains("pineapple-7"),
        "the prior turn was sent again"
    );
    assert!(matches!(
        &ev[0].body,
        EventBody::StreamStart {
            session_id: Some(_),
            ..
        }
    ));
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn api_errors(d: Dialect, cases: &[(&str, ErrorCode)]) {
    let Some(rig) = Rig::new(d).await else { return };
    // One session per case: after a failed turn the CLI merges the next
    // prompt into the same user message, so the fake server would still see
    // the previous scenario marker.
    for (marker, code) in cases {
        let mut cfg = rig.config(ApprovalMode::Ask);
        // The user's own knob: no retries, so a 429 fails now, not in minutes.
        cfg.env.insert("CLAUDE_CODE_MAX_RETRIES".into(), "0".into());
        // Qwen's equivalent lives in its settings (it starts from a 60 s delay).
        let qwen = rig.home.path().join(".qwen");
        std::fs::create_dir_all(&qwen).unwrap();
        std::fs::write(
            qwen.join("settings.json"),
            r#"{"model": {"generationConfig": {"maxRetries": 0}}}"#,
        )
        .unwrap();
        let mut s = rig.session(cfg, Arc::new(Policy::DenyAll)).await;
        let (ev, out) = prompt(&mut s, &format!("[[scenario:{marker}]]")).await;
        assert_eq!(out.reason, EndReason::Error, "{marker}");
        assert_eq!(error_code(&ev), Some(*code), "{marker}: {ev:?}");
        assert!(out
            .error
            .as_ref()
            .and_then(|e| e.suggested_fix.as_ref())
            .is_some());
        assert!(
            s.health().await.alive,
            "{marker}: an API error does not kill the agent"
        );
        s.terminate().await.unwrap();
    }
    rig.assert_no_leftovers().await;
}

pub async fn auth_fails_fast_with_default_retries(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::DenyAll))
        .await;
    let t = Instant::now();
    let (ev, out) = prompt(&mut s, "[[scenario:401]]").await;
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(error_code(&ev), Some(ErrorCode::AuthRequired));
    assert!(
        t.elapsed() < Duration::from_secs(15),
        "no 10x retry backoff: {:?}",
        t.elapsed()
    );
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

pub async fn missing_binary(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut cfg = rig.config(ApprovalMode::Ask);
    cfg.binary = Some(rig.home.path().join("no-such-agent"));
    let mut s = HostSession::new(
        rig.factory(),
        cfg,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    let e = s.start().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ProviderNotFound);
    assert!(
        e.suggested_fix.unwrap().contains("npm install"),
        "install hint"
    );
}

pub async fn crash_then_respawn(d: Dialect) {
    let Some(rig) = Rig::new(d).await else { return };
    let mut s = rig
        .session(rig.config(ApprovalMode::Ask), Arc::new(Policy::DenyAll))
        .await;
    let marker = rig.marker.clone();
    let killed = Arc::new(Mutex::new(false));
    let k = killed.clone();
    let mut sink = move |ev: Event| {
        if matches!(ev.body, EventBody::StreamChunk { .. }) && !*k.lock().unwrap() {
            *k.lock().unwrap() = true;
            for p in procfs::live_with_env(MARKER, &marker) {
                let _ = cohost_agents::process::signal_group(
                    p.pgid,
                    cohost_agents::process::GroupSignal::Kill,
                );
            }
        }
    };
    let out = s
        .prompt(PromptInput::text("go slow [[scenario:slow]]"), &mut sink)
        .await;
    assert!(*killed.lock().unwrap());
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(
        out.error.as_ref().map(|e| e.code),
        Some(ErrorCode::ProcessCrashed)
    );
    let (_, out) = prompt(&mut s, "are you back?").await;
    assert_eq!(
        out.reason,
        EndReason::Completed,
        "respawned: {:?}",
        out.error
    );
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}

/// cohost gives the CLI an MCP server (`AdapterConfig::mcp_servers`, as a
/// room gives each member its bridge): the CLI starts it, offers its tool
/// to the model, asks cohost before the call like any other tool, and the
/// tool's answer (which carries a value from the server's env) reaches the
/// model. The server is `tests/support/mcp_room_server.py`.
pub async fn mcp_server_tool(d: Dialect) {
    let id = d.id;
    let Some(python) = cohost_testbench::skip::require(
        cohost_agents::process::find_on_path("python3", std::env::var_os("PATH").as_deref()),
        || "python3 is not on PATH (the stand-in MCP server is a Python script)".to_string(),
    ) else {
        return;
    };
    let script = r#"{"default": "text", "steps": [
        {"scenario": "tool", "match": "ask the room", "tool": "list_members", "args": {}}
    ]}"#;
    let fake = FakeLlmConfig {
        script: Some(
            cohost_fakellm::parse_script(script, std::path::Path::new("mcp_server_tool.json"))
                .expect("script"),
        ),
        ..FakeLlmConfig::default()
    };
    let Some(rig) = Rig::with_fake(d, fake).await else {
        return;
    };
    let room_log = rig.home.path().join("room.log");
    let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/mcp_room_server.py");
    let room_marker = format!("room-{}", rig.marker);
    let mut cfg = rig.config(ApprovalMode::Ask);
    cfg.mcp_servers = vec![cohost_core::McpServer {
        name: "cohost_room".into(),
        command: python,
        args: vec![server.display().to_string()],
        env: [
            ("ROOM_MARKER".to_string(), room_marker.clone()),
            ("ROOM_LOG".to_string(), room_log.display().to_string()),
        ]
        .into(),
    }];
    // Nothing like `ENABLE_TOOL_SEARCH=false`: the driver itself asks the
    // CLI to offer the server's tools up front (they are otherwise deferred
    // behind its tool search), so the model can call it by name at once.
    let mut s = rig.session(cfg, Arc::new(Policy::AllowAll)).await;
    let (ev, out) = prompt(&mut s, "ask the room who is here").await;
    // Every request's tool names, as the Anthropic and OpenAI wires name them.
    let offered: Vec<Vec<String>> = rig
        .fake
        .requests()
        .iter()
        .map(|r| {
            let tools = r.body["tools"].as_array().cloned().unwrap_or_default();
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str()))
                .map(String::from)
                .collect()
        })
        .collect();
    let log = std::fs::read_to_string(&room_log).unwrap_or_default();
    assert!(
        offered.iter().flatten().any(|t| t.contains("list_members")),
        "{id}: no request offered the MCP tool; tools per request {offered:?}; server log {log:?}"
    );
    assert_eq!(out.reason, EndReason::Completed, "{:?} {ev:#?}", out.error);
    let asked: Vec<&str> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::ToolApprovalRequested { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "{id}: asked {asked:?}");
    assert!(asked[0].contains("list_members"), "{asked:?}");
    assert_eq!(
        count(&ev, |b| matches!(
            b,
            EventBody::ToolExecuted {
                status: ToolStatus::Ok,
                ..
            }
        )),
        1,
        "{ev:#?}"
    );
    // The fake model quotes the tool result it was given.
    let answer = text(&ev);
    assert!(
        answer.contains(&format!("members: alpha, beta (room {room_marker})")),
        "{id}: {answer}"
    );
    let log = std::fs::read_to_string(&room_log).unwrap_or_default();
    assert!(log.lines().any(|m| m == "tools/call"), "server log: {log}");
    s.terminate().await.unwrap();
    rig.assert_no_leftovers().await;
}
