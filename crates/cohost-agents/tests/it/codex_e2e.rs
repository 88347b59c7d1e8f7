//! End to end: the real pinned codex CLI (the app-server engine, and the
//! `exec --json` fallback through a wrapper that hides app-server) driven through
//! `cohost_core::HostSession` against cohost-fakellm, in a scratch HOME and
//! CODEX_HOME. Skips with a loud notice when codex is not installed, unless
//! `CI` is set (then it fails).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::drivers::codex::CodexFactory;
use cohost_core::{
    ApprovalMode, EndReason, ErrorCode, Event, EventBody, HostSession, Policy, SessionOptions,
    ToolStatus, TurnOutcome,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::support;

use support::events::{approvals, chunk_indexes, run_within, text};
use support::scratch::{finish, Env};
use support::steps;

fn codex_bin() -> Option<PathBuf> {
    cohost_testbench::require_cli(cohost_testbench::AgentCli::Codex)
}

async fn setup(bin: &Path, approval: ApprovalMode) -> Env {
    let mut env = Env::start("codex", bin, approval).await;
    let codex_home = env.dir.path().join("codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    // Retries off so 429/500 surface at once instead of after backoff.
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"fake-model\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{}/v1\"\nenv_key = \"FAKE_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n[analytics]\nenabled = false\n",
            env.server.base_url()
        ),
    )
    .unwrap();
    env.set_env([
        ("CODEX_HOME", codex_home.display().to_string()),
        ("FAKE_API_KEY", "sk-fake-test".into()),
    ]);
    env
}

fn session(env: &Env, policy: Policy) -> HostSession {
    env.session(Arc::new(CodexFactory), policy)
}

/// The body of the last Responses API request codex sent to the fake.
fn last_responses_body(env: &Env) -> String {
    env.server
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.path.ends_with("/responses"))
        .expect("a /responses request")
        .body
        .to_string()
}

async fn run(s: &mut HostSession, prompt: &str) -> (TurnOutcome, Vec<Event>) {
    run_within(s, prompt, Duration::from_secs(60)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_streams_numbered_chunks_with_usage() {
    let Some(bin) = codex_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let idx = chunk_indexes(&ev);
    assert!(idx.len() >= 2, "{idx:?}");
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    assert_eq!(text(&ev), "Hello from fake-llm. You said: say hello");
    assert!(matches!(
        &ev[0].body,
        EventBody::StreamStart {
            session_id: Some(_),
            ..
        }
    ));
    assert!(
        matches!(&ev.last().unwrap().body, EventBody::StreamEnd { reason: EndReason::Completed, usage: Some(u) } if u.output_tokens > 0)
    );
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_allow_deny_and_auto() {
    let Some(bin) = codex_bin() else { return };
    for (mode, policy, expect_file, expect_approval) in [
        (ApprovalMode::Ask, Policy::AllowAll, true, true),
        (ApprovalMode::Ask, Policy::DenyAll, false, true),
        (ApprovalMode::AutoApprove, Policy::DenyAll, true, false),
    ] {
        let env = setup(&bin, mode).await;
        let mut s = session(&env, policy);
        s.start().await.unwrap();
        let (out, ev) = run(&mut s, "run it [[scenario:tool]]").await;
        let file = env.ws.join("cohost_tool_output.txt");
        assert_eq!(
            out.reason,
            EndReason::Completed,
            "{mode:?} {policy:?}: {ev:#?}"
        );
        assert_eq!(file.exists(), expect_file, "{mode:?} {policy:?}");
        assert_eq!(approvals(&ev) > 0, expect_approval, "{mode:?} {policy:?}");
        if !expect_file {
            assert!(ev.iter().any(|e| matches!(
                e.body,
                EventBody::ToolExecuted {
                    status: cohost_core::ToolStatus::Denied,
                    ..
                }
            )));
        }
        finish(s, env).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_mid_stream_then_next_prompt() {
    let Some(bin) = codex_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    steps::interrupt_then_next_prompt(&mut s, "codex").await;
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_in_a_new_session_by_thread_id() {
    let Some(bin) = codex_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, _) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed);
    let id = s.native_session_id().expect("thread id").to_string();
    s.terminate().await.unwrap();
    let mut cfg = env.config.clone();
    cfg.resume = Some(id.clone());
    let mut s2 = HostSession::new(
        Arc::new(CodexFactory),
        cfg,
        Arc::new(Policy::DenyAll),
        SessionOptions::default(),
    );
    s2.start().await.unwrap();
    let (out, ev) = run(&mut s2, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(matches!(&ev[0].body, EventBody::StreamStart { session_id: Some(s), .. } if *s == id));
    let body = last_responses_body(&env);
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "prior turn missing from the request"
    );
    finish(s2, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_errors_are_typed() {
    let Some(bin) = codex_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    steps::provider_errors_are_typed(&mut s, Duration::from_secs(10)).await;
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_binary_is_provider_not_found() {
    steps::missing_binary(
        Arc::new(CodexFactory),
        "no-such-codex",
        "npm install -g @openai/codex",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_group_is_a_crash_then_respawn_works() {
    let Some(bin) = codex_bin() else { return };
    let env = setup(&bin, ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    steps::killed_group_is_a_crash(&mut s, &env.marker).await;
    let (out, ev) = run(&mut s, "are you back?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(text(&ev).contains("are you back?"));
    finish(s, env).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_outside_the_tested_range_is_refused() {
    steps::old_version_is_refused(Arc::new(CodexFactory), "old-codex", "codex-cli 0.100.0").await;
}

/// A `codex` whose `--help` does not list `app-server`, like a release before
/// it existed: the adapter must fall back to `codex exec --json`. Everything
/// else is the real pinned codex.
fn without_app_server(real: &Path, dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("codex");
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--help\" ]; then\n  \"{real}\" --help | grep -v '^[[:space:]]*app-server'\n  exit 0\nfi\nexec \"{real}\" \"$@\"\n",
            real = real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_fallback_streams_continues_runs_tools_and_types_errors() {
    let Some(bin) = codex_bin() else { return };
    let wrap = tempfile::tempdir().unwrap();
    let env = setup(&without_app_server(&bin, wrap.path()), ApprovalMode::Ask).await;
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();

    let (out, ev) = run(&mut s, "remember the word PAPAYA").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert_eq!(
        text(&ev),
        "Hello from fake-llm. You said: remember the word PAPAYA"
    );
    let idx = chunk_indexes(&ev);
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    let id = s.native_session_id().expect("thread id").to_string();
    assert!(
        matches!(&ev[0].body, EventBody::StreamStart { session_id: Some(x), .. } if *x == id),
        "{ev:#?}"
    );
    assert!(
        matches!(&ev.last().unwrap().body, EventBody::StreamEnd { usage: Some(u), .. } if u.output_tokens > 0),
        "{ev:#?}"
    );

    // The next turn is `codex exec resume <thread>`: the conversation goes on.
    let (out, ev) = run(&mut s, "which word?").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let body = last_responses_body(&env);
    assert!(
        body.contains("PAPAYA") && body.contains("which word?"),
        "the exec turn did not continue the thread"
    );

    // exec cannot ask, so under Ask the sandbox is read-only: the write
    // fails. (codex 0.171.0 then reports no command item at all, see the
    // `exec_tool_readonly` fixture; only the model's reply shows it.)
    let (out, ev) = run(&mut s, "run [[scenario:tool]]").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(text(&ev).contains("Read-only file system"), "{ev:#?}");
    assert!(!env.ws.join("cohost_tool_output.txt").exists());

    let (out, _) = run(&mut s, "x [[scenario:401]]").await;
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.expect("error").code, ErrorCode::AuthRequired);
    finish(s, env).await;

    // Auto-approve grants the workspace: the command runs and is reported.
    let env = setup(
        &without_app_server(&bin, wrap.path()),
        ApprovalMode::AutoApprove,
    )
    .await;
    let mut s = session(&env, Policy::AllowAll);
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "run [[scenario:tool]]").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(
        ev.iter()
            .any(|e| matches!(&e.body, EventBody::ToolCall { .. })),
        "{ev:#?}"
    );
    assert!(
        ev.iter().any(|e| matches!(
            &e.body,
            EventBody::ToolExecuted {
                status: ToolStatus::Ok,
                ..
            }
        )),
        "{ev:#?}"
    );
    assert!(env.ws.join("cohost_tool_output.txt").exists());
    finish(s, env).await;
}

/// A file change (codex's `apply_patch`) asks through
/// `item/fileChange/requestApproval`: allowed, the file appears; denied, it
/// does not and the change is reported as denied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_change_approval_allow_and_deny() {
    let Some(bin) = codex_bin() else { return };
    for (policy, expect_file) in [(Policy::AllowAll, true), (Policy::DenyAll, false)] {
        let env = setup(&bin, ApprovalMode::Ask).await;
        let mut s = session(&env, policy);
        s.start().await.unwrap();
        let (out, ev) = run(&mut s, "create the file [[scenario:write]]").await;
        assert_eq!(out.reason, EndReason::Completed, "{policy:?}: {ev:#?}");
        let asked: Vec<_> = ev
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::ToolApprovalRequested { kind, .. } => Some(*kind),
                _ => None,
            })
            .collect();
        assert_eq!(asked, [cohost_core::ToolKind::Edit], "{policy:?}: {ev:#?}");
        let file = env.ws.join("cohost_tool_output.txt");
        assert_eq!(file.exists(), expect_file, "{policy:?}: {ev:#?}");
        if expect_file {
            assert_eq!(
                std::fs::read_to_string(&file).unwrap().trim(),
                "cohost-tool-ok"
            );
        } else {
            assert!(ev.iter().any(|e| matches!(
                e.body,
                EventBody::ToolExecuted {
                    status: ToolStatus::Denied,
                    ..
                }
            )));
        }
        finish(s, env).await;
    }
}

/// cohost gives codex an MCP server (`AdapterConfig::mcp_servers`, passed as
/// a `-c mcp_servers.NAME={…}` override): codex starts it and offers its
/// tool to the model (0.171.0 as a Responses `namespace` tool named
/// `mcp__NAME` holding the server's functions). The fake model cannot call
/// a namespaced tool, so the call itself is not exercised here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_server_from_cohost_is_started_and_offered_to_the_model() {
    let Some(bin) = codex_bin() else { return };
    let Some(python) = cohost_testbench::skip::require(
        cohost_agents::process::find_on_path("python3", std::env::var_os("PATH").as_deref()),
        || "python3 is not on PATH (the stand-in MCP server is a Python script)".to_string(),
    ) else {
        return;
    };
    let mut env = setup(&bin, ApprovalMode::Ask).await;
    let log = env.dir.path().join("room.log");
    let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/mcp_room_server.py");
    env.config.mcp_servers = vec![cohost_core::McpServer {
        name: "cohost_room".into(),
        command: python,
        args: vec![server.display().to_string()],
        env: [("ROOM_LOG".to_string(), log.display().to_string())].into(),
    }];
    let mut s = session(&env, Policy::DenyAll);
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "ask the room who is here").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let namespaces: Vec<serde_json::Value> = env
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/responses"))
        .flat_map(|r| r.body["tools"].as_array().cloned().unwrap_or_default())
        .filter(|t| t["name"] == "mcp__cohost_room")
        .collect();
    assert!(
        namespaces.iter().any(|t| t["tools"]
            .as_array()
            .is_some_and(|fs| fs.iter().any(|f| f["name"] == "list_members"))),
        "the room tool was not offered: {namespaces:?}"
    );
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(log.lines().any(|m| m == "tools/list"), "server log: {log}");
    finish(s, env).await;
}
