//! End to end: each ACP provider on its real pinned binary, through
//! `cohost_core::HostSession`, against cohost-fakellm in a scratch HOME
//! (cohost-testbench). Locally a missing CLI skips loudly; with `CI` set it
//! fails.
//!
//! Per provider, one session story: text streaming, approval allow (file
//! written) and deny (no file, clean end) where the agent asks, interrupt
//! (`session/cancel`, stream_end within 2 s, then a prompt that works),
//! auto-approve runs the tool without asking (where checked), resume
//! through `session/load`, and no process left behind.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use cohost_agents::drivers::acp::{providers, AcpFactory, AcpSpec};
use cohost_core::{
    AdapterConfig, ApprovalMode, EndReason, Event, EventBody, HostSession, Policy, PromptInput,
    SessionOptions, TurnOutcome,
};
use cohost_testbench::{assert_no_leftovers, require_cli, AgentCli, Bench, FakeLlmConfig};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TOOL_FILE: &str = "cohost_tool_output.txt";

/// What each agent does with cohost's Ask policy on the pinned version.
struct Expect {
    /// Asks before running the fake model's shell call.
    asks: bool,
    /// `session/load` works (`Some(true)`), or may fail, in which case the
    /// turn must say so (`None`).
    loads: Option<bool>,
    /// Keeps streaming a cancelled answer for a while (wait it out).
    drains_after_cancel: Option<Duration>,
    /// Check that under auto-approve the tool runs and nobody is asked.
    auto_runs: bool,
}

async fn bench(cli: AgentCli) -> Option<Bench> {
    require_cli(cli)?;
    let config = FakeLlmConfig {
        slow_delay: Duration::from_millis(150),
        ..FakeLlmConfig::default()
    };
    Some(Bench::start_with(cli, config).await.expect("bench starts"))
}

fn config(
    bench: &Bench,
    cli: AgentCli,
    approval: ApprovalMode,
    resume: Option<String>,
) -> AdapterConfig {
    AdapterConfig {
        cwd: bench.cwd().to_path_buf(),
        binary: bench.bin_path(cli),
        env: bench.env(),
        approval,
        resume,
        ..AdapterConfig::default()
    }
}

fn session(spec: &AcpSpec, config: AdapterConfig, policy: Policy) -> HostSession {
    HostSession::new(
        Arc::new(AcpFactory::new(
            spec.clone(),
            cohost_agents::catalog::catalog(),
        )),
        config,
        Arc::new(policy),
        SessionOptions::default(),
    )
}

async fn run(s: &mut HostSession, prompt: &str) -> (TurnOutcome, Vec<Event>) {
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink_events = events.clone();
    let mut sink = move |e: Event| sink_events.lock().unwrap().push(e);
    let outcome = tokio::time::timeout(
        Duration::from_secs(120),
        s.prompt(PromptInput::text(prompt), &mut sink),
    )
    .await
    .expect("turn finished within 120 s");
    let ev = events.lock().unwrap().clone();
    (outcome, ev)
}

fn text(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn count(ev: &[Event], f: impl Fn(&EventBody) -> bool) -> usize {
    ev.iter().filter(|e| f(&e.body)).count()
}

async fn story(cli: AgentCli, spec: AcpSpec, expect: Expect) {
    let Some(bench) = bench(cli).await else {
        return;
    };
    let id = spec.id.clone();

    // 1. Text streaming, numbered chunks.
    let mut s = session(
        &spec,
        config(&bench, cli, ApprovalMode::Ask, None),
        Policy::DenyAll,
    );
    s.start()
        .await
        .unwrap_or_else(|e| panic!("{id} start: {e}"));
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{id}: {ev:#?}");
    let idx: Vec<u64> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
            _ => None,
        })
        .collect();
    assert!(idx.len() >= 2, "{id}: {idx:?}");
    assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    let t = text(&ev);
    assert!(
        t.contains("Hello from fake-llm. You said: ") && t.ends_with("say hello"),
        "{id}: {t:?}"
    );
    let native = s
        .native_session_id()
        .map(str::to_string)
        .expect("native session id");

    // 2. Deny: the tool does not run and the turn ends cleanly.
    let prompt = format!("[[tool]] run the tool in {}", bench.cwd().display());
    let (out, ev) = run(&mut s, &prompt).await;
    assert_eq!(out.reason, EndReason::Completed, "{id} deny: {ev:#?}");
    let asked = count(&ev, |b| {
        matches!(b, EventBody::ToolApprovalRequested { .. })
    });
    if expect.asks {
        assert_eq!(asked, 1, "{id} deny: {ev:#?}");
        assert!(
            !bench.cwd().join(TOOL_FILE).exists(),
            "{id}: denied tool ran"
        );
        assert!(
            ev.iter().any(|e| matches!(
                &e.body,
                EventBody::ToolExecuted {
                    status: cohost_core::ToolStatus::Denied,
                    ..
                }
            )),
            "{id}: no denied outcome: {ev:#?}"
        );
    } else {
        assert_eq!(asked, 0, "{id}: the agent asked after all; update Expect");
    }
    let _ = std::fs::remove_file(bench.cwd().join(TOOL_FILE));

    // 3. Interrupt a slow answer; the stream ends within 2 s; the session goes on.
    let control = s.control();
    let ev_shared: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink_events = ev_shared.clone();
    let pressed: Arc<Mutex<Option<Instant>>> = Arc::default();
    let pressed_in_sink = pressed.clone();
    let mut sink = move |e: Event| {
        if matches!(e.body, EventBody::StreamChunk { chunk_index: 1, .. }) {
            *pressed_in_sink.lock().unwrap() = Some(Instant::now());
            control.interrupt();
        }
        sink_events.lock().unwrap().push(e);
    };
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        s.prompt(PromptInput::text("[[slow]] take your time"), &mut sink),
    )
    .await
    .expect("interrupted turn ends");
    let ended = Instant::now();
    let ev = ev_shared.lock().unwrap().clone();
    assert_eq!(out.reason, EndReason::Interrupted, "{id}: {ev:#?}");
    let at = pressed.lock().unwrap().expect("interrupt pressed");
    let took = ended - at;
    eprintln!("{id}: interrupt -> stream_end in {took:?}");
    assert!(
        took < Duration::from_secs(2),
        "{id}: interrupt took {took:?}"
    );
    if let Some(wait) = expect.drains_after_cancel {
        // Updates arriving between turns are dropped by the client.
        tokio::time::sleep(wait).await;
    }
    let (out, ev) = run(&mut s, "say hello again").await;
    assert_eq!(
        out.reason,
        EndReason::Completed,
        "{id} after interrupt: {ev:#?}"
    );
    assert!(
        text(&ev).ends_with("say hello again"),
        "{id}: {:?}",
        text(&ev)
    );
    s.terminate().await.unwrap();

    // 4. Allow: a fresh session whose policy allows; the tool runs.
    let mut s = session(
        &spec,
        config(&bench, cli, ApprovalMode::Ask, None),
        Policy::AllowAll,
    );
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, &prompt).await;
    assert_eq!(out.reason, EndReason::Completed, "{id} allow: {ev:#?}");
    if expect.asks {
        assert_eq!(
            count(&ev, |b| matches!(
                b,
                EventBody::ToolApprovalRequested { .. }
            )),
            1
        );
        assert!(
            bench.cwd().join(TOOL_FILE).exists(),
            "{id}: allowed tool did not run: {ev:#?}"
        );
    }
    s.terminate().await.unwrap();

    // 4b. Auto-approve: the tool runs and no approval reaches the policy,
    // which denies everything (an approval that slipped through would stop
    // the file from being written).
    if expect.auto_runs {
        let _ = std::fs::remove_file(bench.cwd().join(TOOL_FILE));
        let mut s = session(
            &spec,
            config(&bench, cli, ApprovalMode::AutoApprove, None),
            Policy::DenyAll,
        );
        s.start().await.unwrap();
        let (out, ev) = run(&mut s, &prompt).await;
        assert_eq!(out.reason, EndReason::Completed, "{id} auto: {ev:#?}");
        assert_eq!(
            count(&ev, |b| matches!(
                b,
                EventBody::ToolApprovalRequested { .. }
            )),
            0,
            "{id} auto: {ev:#?}"
        );
        assert!(
            bench.cwd().join(TOOL_FILE).exists(),
            "{id}: auto-approved tool did not run: {ev:#?}"
        );
        s.terminate().await.unwrap();
    }

    // 5. Resume the first session by its native id.
    let mut s = session(
        &spec,
        config(&bench, cli, ApprovalMode::Ask, Some(native.clone())),
        Policy::DenyAll,
    );
    s.start()
        .await
        .unwrap_or_else(|e| panic!("{id} resume start: {e}"));
    let (out, ev) = run(&mut s, "what did I say first").await;
    assert_eq!(out.reason, EndReason::Completed, "{id} resume: {ev:#?}");
    // The model call for the resumed prompt carries the earlier turns.
    let history_kept = bench.fake().requests().iter().any(|r| {
        let body = r.body.to_string();
        body.contains("what did I say first") && body.contains("say hello again")
    });
    let notice = ev.iter().any(
        |e| matches!(&e.body, EventBody::Status { message, .. } if message.contains("resume")),
    );
    let same_id = s.native_session_id() == Some(native.as_str());
    let resumed = same_id && history_kept && !notice;
    eprintln!(
        "{id}: resumed={resumed} (same_id={same_id} history_kept={history_kept} notice={notice})"
    );
    match expect.loads {
        Some(true) => assert!(
            resumed,
            "{id}: session/load lost the session (same_id={same_id} \
             history_kept={history_kept} notice={notice}): {ev:#?}"
        ),
        _ => assert!(
            resumed || notice,
            "{id}: neither resumed nor said it did not: {ev:#?}"
        ),
    }
    let t = Instant::now();
    s.terminate().await.unwrap();
    eprintln!("{id}: terminate in {:?}", t.elapsed());
    assert_no_leftovers(bench.marker()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_acp() {
    // gemini 0.61.0 offers session/load, but its load re-initializes the chat
    // file it is about to read (messages reset to the bare session context),
    // then finds nothing resumable ("No previous sessions found for this
    // project"), whether the first process got stdin EOF, SIGTERM or SIGINT.
    // cohost must then say so (a status notice), which `story` checks.
    story(
        AgentCli::Gemini,
        providers::by_id("gemini-acp").expect("built in"),
        Expect {
            asks: true,
            loads: None,
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qwen_acp() {
    story(
        AgentCli::Qwen,
        providers::by_id("qwen-acp").expect("built in"),
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_acp() {
    story(
        AgentCli::OpenCode,
        providers::by_id("opencode-acp").expect("built in"),
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kilo_acp() {
    story(
        AgentCli::Kilo,
        providers::by_id("kilo-acp").expect("built in"),
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cline() {
    story(
        AgentCli::Cline,
        providers::by_id("cline").expect("built in"),
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vibe() {
    story(
        AgentCli::Vibe,
        providers::by_id("vibe").expect("built in"),
        // Asks because the client switches it to its `ask` mode; under
        // auto-approve to `auto-approve`.
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: true,
        },
    )
    .await;
}

/// Vibe 3.0.3's default mode (`accept-edits`) writes files without asking,
/// and `session/load` brings a session back in it: cohost switches new and
/// loaded sessions to `ask`, so a write is asked about in both and the
/// policy decides (denied: no file; allowed: the file).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vibe_asks_before_writing_in_new_and_loaded_sessions() {
    let cli = AgentCli::Vibe;
    let Some(bench) = bench(cli).await else {
        return;
    };
    let spec = providers::by_id("vibe").expect("built in");
    let file = bench.cwd().join(TOOL_FILE);
    let prompt = format!(
        "[[scenario:write]] create the file in {}",
        bench.cwd().display()
    );
    let mut native: Option<String> = None;
    for (step, policy, written) in [
        ("new", Policy::DenyAll, false),
        ("loaded", Policy::DenyAll, false),
        ("loaded", Policy::AllowAll, true),
    ] {
        let mut s = session(
            &spec,
            config(&bench, cli, ApprovalMode::Ask, native.clone()),
            policy,
        );
        s.start()
            .await
            .unwrap_or_else(|e| panic!("{step} session: {e}"));
        if let Some(id) = &native {
            assert_eq!(s.native_session_id(), Some(id.as_str()), "{step}: loaded");
        }
        let (out, ev) = run(&mut s, &prompt).await;
        assert_eq!(out.reason, EndReason::Completed, "{step}: {ev:#?}");
        let asked = count(&ev, |b| {
            matches!(b, EventBody::ToolApprovalRequested { .. })
        });
        assert_eq!(asked, 1, "{step} session asks before writing: {ev:#?}");
        assert_eq!(file.exists(), written, "{step}, allowed={written}: {ev:#?}");
        native = s.native_session_id().map(str::to_string);
        s.terminate().await.unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        "cohost-tool-ok"
    );
    assert_no_leftovers(bench.marker()).await;
}

/// copilot 1.0.102 answers a provider 401 with the failure as answer text
/// and `end_turn`; cohost reports AUTH_REQUIRED and ends the turn in error,
/// and the session still takes the next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_acp_provider_401_is_auth_required() {
    let Some(bench) = bench(AgentCli::Copilot).await else {
        return;
    };
    let spec = providers::by_id("copilot-acp").expect("built in");
    let mut s = session(
        &spec,
        config(&bench, AgentCli::Copilot, ApprovalMode::Ask, None),
        Policy::DenyAll,
    );
    s.start().await.unwrap();
    let (out, ev) = run(&mut s, "[[401]] fail please").await;
    assert_eq!(out.reason, EndReason::Error, "{ev:#?}");
    let err = out.error.expect("an error");
    assert_eq!(err.code, cohost_core::ErrorCode::AuthRequired, "{err:?}");
    assert!(err
        .suggested_fix
        .is_some_and(|f| f.contains("COPILOT_PROVIDER")));
    assert!(
        !ev.iter()
            .any(|e| matches!(&e.body, EventBody::StreamChunk { .. })),
        "the failure is not shown as an answer: {ev:#?}"
    );
    let (out, ev) = run(&mut s, "say hello").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    s.terminate().await.unwrap();
    assert_no_leftovers(bench.marker()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copilot_acp() {
    story(
        AgentCli::Copilot,
        providers::by_id("copilot-acp").expect("built in"),
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_acp() {
    story(
        AgentCli::ClaudeCodeAcp,
        providers::by_id("claude-acp").expect("built in"),
        // The driver restarts claude-code-acp after a cancel (restart_after_cancel).
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: false,
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_acp() {
    story(
        AgentCli::CodexAcp,
        providers::by_id("codex-acp").expect("built in"),
        // Asks because the driver launches it with approval_policy="untrusted";
        // its reject option aborts the turn, which still ends Completed.
        Expect {
            asks: true,
            loads: Some(true),
            drains_after_cancel: None,
            auto_runs: true,
        },
    )
    .await;
}

/// gemini-acp writes a file that does not exist yet, after asking: denied,
/// no file; allowed, the file. (Offered cohost's `fs/*` methods, gemini
/// 0.61 failed every new-file write with "Error checking existing file".)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_acp_creates_a_new_file_after_asking() {
    let cli = AgentCli::Gemini;
    let Some(bench) = bench(cli).await else {
        return;
    };
    let spec = providers::by_id("gemini-acp").expect("built in");
    let file = bench.cwd().join(TOOL_FILE);
    let prompt = format!("[[write]] create the file in {}", bench.cwd().display());
    for (policy, written) in [(Policy::DenyAll, false), (Policy::AllowAll, true)] {
        let mut s = session(&spec, config(&bench, cli, ApprovalMode::Ask, None), policy);
        s.start().await.unwrap();
        let (out, ev) = run(&mut s, &prompt).await;
        assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
        let asked = count(&ev, |b| {
            matches!(b, EventBody::ToolApprovalRequested { .. })
        });
        assert_eq!(asked, 1, "asks before writing: {ev:#?}");
        assert_eq!(file.exists(), written, "allowed={written}: {ev:#?}");
        let failed = ev.iter().any(|e| {
            matches!(&e.body, EventBody::ToolExecuted { output_preview: p, .. }
                if p.contains("Error checking existing file"))
        });
        assert!(!failed, "{ev:#?}");
        s.terminate().await.unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        "cohost-tool-ok"
    );
    assert_no_leftovers(bench.marker()).await;
}

/// The model request whose body holds `marker`, as text.
fn request_with(bench: &Bench, marker: &str) -> String {
    bench
        .last_request_with(marker)
        .unwrap_or_else(|| panic!("no model request holds {marker:?}"))
}

/// `--fork` on claude-code-acp: `session/fork` opens a new session id that
/// starts from the parent's history; the parent, resumed afterwards, never
/// sees the fork's turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_acp_forks_a_session() {
    let cli = AgentCli::ClaudeCodeAcp;
    let Some(bench) = bench(cli).await else {
        return;
    };
    let spec = providers::by_id("claude-acp").expect("built in");
    let open = |resume: Option<String>, fork: bool| {
        let mut c = config(&bench, cli, ApprovalMode::Ask, resume);
        c.fork = fork;
        session(&spec, c, Policy::DenyAll)
    };
    let mut parent = open(None, false);
    parent.start().await.unwrap();
    let (out, ev) = run(&mut parent, "remember the word pelican").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let native = parent.native_session_id().unwrap().to_string();
    parent.terminate().await.unwrap();

    let mut fork = open(Some(native.clone()), true);
    fork.start().await.unwrap();
    let forked = fork.native_session_id().unwrap().to_string();
    assert_ne!(forked, native, "a fork is a new session");
    let (out, ev) = run(&mut fork, "fork turn marker").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    assert!(
        request_with(&bench, "fork turn marker").contains("pelican"),
        "the fork starts from the parent's history"
    );
    fork.terminate().await.unwrap();

    let mut again = open(Some(native.clone()), false);
    again.start().await.unwrap();
    assert_eq!(again.native_session_id(), Some(native.as_str()));
    let (out, ev) = run(&mut again, "parent again marker").await;
    assert_eq!(out.reason, EndReason::Completed, "{ev:#?}");
    let body = request_with(&bench, "parent again marker");
    assert!(body.contains("pelican"), "the parent keeps its history");
    assert!(
        !body.contains("fork turn marker"),
        "the parent never sees the fork's turn"
    );
    again.terminate().await.unwrap();
    assert_no_leftovers(bench.marker()).await;
}

/// What an agent that claims `mcp_servers` did with cohost's MCP server on
/// its pinned version, the fake model calling its tool by name.
#[derive(Clone, Copy)]
enum McpCall {
    /// Asked cohost (`session/request_permission`) before the call, then ran it.
    AskedThenRan,
    /// Ran it without asking: MCP tools are allowed by the agent's own
    /// default permissions (opencode, kilo).
    RanUnasked,
}

/// cohost gives the agent an MCP server (`AdapterConfig::mcp_servers`, as a
/// room gives each member its bridge) in `session/new`: the agent starts it
/// (`tests/support/mcp_room_server.py`), offers its tool to the model, and
/// the tool's answer, which carries a value from the env cohost gave the
/// server, reaches the model.
async fn mcp_server_tool(cli: AgentCli, id: &str, call: McpCall) {
    let Some(python) = cohost_testbench::skip::require(
        cohost_agents::process::find_on_path("python3", std::env::var_os("PATH").as_deref()),
        || "python3 is not on PATH (the stand-in MCP server is a Python script)".to_string(),
    ) else {
        return;
    };
    if require_cli(cli).is_none() {
        return;
    }
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
    let bench = Bench::start_with(cli, fake).await.expect("bench starts");
    let spec = providers::by_id(id).expect("built in");
    let log = bench.layout().root.join("room.log");
    let marker = format!("room-{}", bench.marker());
    let mut cfg = config(&bench, cli, ApprovalMode::Ask, None);
    cfg.mcp_servers = vec![cohost_core::McpServer {
        name: "cohost_room".into(),
        command: python,
        args: vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/support/mcp_room_server.py")
            .display()
            .to_string()],
        env: [
            ("ROOM_MARKER".to_string(), marker.clone()),
            ("ROOM_LOG".to_string(), log.display().to_string()),
        ]
        .into(),
    }];
    let mut s = session(&spec, cfg, Policy::AllowAll);
    s.start()
        .await
        .unwrap_or_else(|e| panic!("{id} start: {e}"));
    let (out, ev) = run(&mut s, "ask the room who is here").await;
    assert_eq!(out.reason, EndReason::Completed, "{id}: {ev:#?}");
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        server_log.lines().any(|m| m == "tools/list"),
        "{id} did not start the server: {server_log:?}"
    );
    let offered = bench
        .fake()
        .requests()
        .iter()
        .any(|r| r.body["tools"].to_string().contains("list_members"));
    assert!(offered, "{id} did not offer the tool to the model");
    let asked = count(&ev, |b| {
        matches!(b, EventBody::ToolApprovalRequested { .. })
    });
    let answered = text(&ev).contains(&format!("members: alpha, beta (room {marker})"));
    match call {
        McpCall::AskedThenRan => {
            assert_eq!(asked, 1, "{id}: {ev:#?}");
            assert!(answered, "{id}: {}", text(&ev));
        }
        McpCall::RanUnasked => {
            assert_eq!(asked, 0, "{id}: {ev:#?}");
            assert!(answered, "{id}: {}", text(&ev));
        }
    }
    s.terminate().await.unwrap();
    assert_no_leftovers(bench.marker()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_acp_mcp_server() {
    mcp_server_tool(AgentCli::Gemini, "gemini-acp", McpCall::AskedThenRan).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_acp_mcp_server() {
    mcp_server_tool(AgentCli::ClaudeCodeAcp, "claude-acp", McpCall::AskedThenRan).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_acp_mcp_server() {
    mcp_server_tool(AgentCli::OpenCode, "opencode-acp", McpCall::RanUnasked).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kilo_acp_mcp_server() {
    mcp_server_tool(AgentCli::Kilo, "kilo-acp", McpCall::RanUnasked).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_acp_mcp_server() {
    // Offered as a Responses `namespace` tool, which the fake model calls
    // by name; codex-acp asks ("Approve MCP tool call") before it runs it.
    mcp_server_tool(AgentCli::CodexAcp, "codex-acp", McpCall::AskedThenRan).await;
}
