//! One end-to-end smoke test per real agent CLI: prompt → the CLI's plain
//! headless mode (or a minimal ACP exchange) → cohost-fakellm → the reply in
//! the CLI's own output, the prompt in the fake server's log, no traffic but
//! loopback, and no process left behind.
//!
//! Missing CLIs fail when `CI` is set and are skipped loudly otherwise;
//! install them with `bash tests/agents/install.sh`.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::time::Duration;

use cohost_testbench::{config, require_cli, AgentCli, Bench, FAKE_MODEL};
use serde_json::json;

use common::acp::AcpSession;
use common::{assert_model_saw_prompt_and_cleanup, has_reply, prompt_for, smoke_headless};

/// Starts a bench for `cli`, or returns from the test when it is not installed (locally).
macro_rules! bench_or_skip {
    ($cli:expr) => {{
        if require_cli($cli).is_none() {
            return;
        }
        Bench::start($cli).await.expect("bench starts")
    }};
}

fn args(list: &[&str], prompt: &str) -> Vec<String> {
    list.iter()
        .map(|a| a.to_string())
        .chain([prompt.to_string()])
        .collect()
}

#[tokio::test]
async fn claude_print_mode_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Claude);
    let prompt = prompt_for(&bench);
    smoke_headless(&bench, args(&["-p"], &prompt), &prompt).await;
}

#[tokio::test]
async fn codex_exec_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Codex);
    let prompt = prompt_for(&bench);
    // The scratch cwd is not a git repository; codex refuses those without the flag.
    let a = args(&["exec", "--skip-git-repo-check"], &prompt);
    smoke_headless(&bench, a, &prompt).await;
}

#[tokio::test]
async fn gemini_prompt_mode_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Gemini);
    let prompt = prompt_for(&bench);
    smoke_headless(&bench, args(&["-p"], &prompt), &prompt).await;
}

#[tokio::test]
async fn qwen_one_shot_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Qwen);
    let prompt = prompt_for(&bench);
    let a = args(&["--auth-type", "openai", "-m", FAKE_MODEL], &prompt);
    smoke_headless(&bench, a, &prompt).await;
}

#[tokio::test]
async fn opencode_run_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::OpenCode);
    let prompt = prompt_for(&bench);
    // `opencode run` wraps each message argument that contains a space in
    // literal double quotes before sending it; one word per argument does not.
    let a: Vec<String> = ["run"]
        .into_iter()
        .chain(prompt.split(' '))
        .map(String::from)
        .collect();
    smoke_headless(&bench, a, &prompt).await;
}

#[tokio::test]
async fn copilot_prompt_mode_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Copilot);
    let prompt = prompt_for(&bench);
    smoke_headless(&bench, args(&["-p"], &prompt), &prompt).await;
}

#[tokio::test]
async fn aider_message_mode_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Aider);
    let prompt = prompt_for(&bench);
    let model = format!("openai/{FAKE_MODEL}");
    let a = args(
        &[
            "--model",
            &model,
            "--yes-always",
            "--no-pretty",
            "--stream",
            "--no-check-update",
            "--no-show-model-warnings",
            "--analytics-disable",
            "--no-git",
            "--message",
        ],
        &prompt,
    );
    smoke_headless(&bench, a, &prompt).await;
}

#[tokio::test]
async fn continue_print_mode_replies_from_fake_server() {
    let bench = bench_or_skip!(AgentCli::Continue);
    let prompt = prompt_for(&bench);
    let config = config::continue_config_path(bench.layout());
    let config = config.display().to_string();
    smoke_headless(&bench, args(&["-p", "--config", &config], &prompt), &prompt).await;
}

/// initialize → session/new → session/prompt; the reply arrives as
/// `agent_message_chunk` updates and the prompt ends with `end_turn`.
async fn acp_smoke(cli: AgentCli, agent_args: &[&str]) {
    let bench = bench_or_skip!(cli);
    let prompt = prompt_for(&bench);
    let step = common::run_timeout();
    let mut acp = AcpSession::start(&bench, agent_args);
    let init = json!({
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
    });
    let run = async {
        let info = acp.call("initialize", init, step).await?;
        let cwd = bench.cwd().display().to_string();
        let new = json!({"cwd": cwd, "mcpServers": []});
        let session = acp.call("session/new", new, step).await?;
        let id = session["sessionId"]
            .as_str()
            .ok_or("no sessionId")?
            .to_string();
        let p = json!({"sessionId": id, "prompt": [{"type": "text", "text": prompt}]});
        let done = acp.call("session/prompt", p, step).await?;
        Ok::<_, String>((info, done))
    };
    // One deadline for the whole exchange, like the headless runs.
    let outcome = tokio::time::timeout(step, run)
        .await
        .unwrap_or_else(|_| Err(format!("ACP exchange exceeded {step:?}")));
    let (info, done) = match outcome {
        Ok(v) => v,
        Err(e) => panic!(
            "{cli} ACP exchange failed: {e}\n--- stderr ---\n{}",
            acp.stderr()
        ),
    };
    eprintln!(
        "{cli}: agentInfo {}, updates {:?}",
        info["agentInfo"], acp.core.update_kinds
    );
    assert_eq!(done["stopReason"], "end_turn", "{done}");
    assert!(
        has_reply(&acp.core.text, &prompt),
        "{cli}: reply to {prompt:?} not in agent_message_chunk text {:?}\n--- stderr ---\n{}",
        acp.core.text,
        acp.stderr()
    );
    let stderr = acp.stderr();
    let status = acp.close(Duration::from_secs(3)).await;
    eprintln!("{cli}: exit after stdin EOF: {status:?}");
    assert_model_saw_prompt_and_cleanup(&bench, &prompt, &stderr).await;
}

#[tokio::test]
async fn claude_code_acp_prompt_replies_from_fake_server() {
    acp_smoke(AgentCli::ClaudeCodeAcp, &[]).await;
}

#[tokio::test]
async fn codex_acp_prompt_replies_from_fake_server() {
    acp_smoke(AgentCli::CodexAcp, &[]).await;
}
