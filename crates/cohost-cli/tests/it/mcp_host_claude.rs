//! `cohost mcp` in a real MCP host: Claude Code itself (`claude -p
//! --mcp-config …`), offline against the fake model server, whose script
//! makes the model call `ask_agent`. The delegated agent is real Codex on the
//! same fake server; Claude's final answer quotes Codex's answer.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::clients;

use std::time::Duration;

use cohost_testbench::config::offline_setup;
use cohost_testbench::{require_cli, AgentCli, Bench, FakeLlmConfig};
use serde_json::{json, Value};

/// What the delegated agent is asked; it comes back inside its answer.
const DELEGATED: &str = "codex: name the colour of the sky";

fn script() -> cohost_fakellm::Script {
    let text = json!({
        "default": "text",
        "steps": [{
            "scenario": "tool",
            "match": "delegate",
            "tool": "ask_agent",
            "args": {"provider": "codex", "prompt": DELEGATED, "approval": "deny"}
        }]
    })
    .to_string();
    cohost_fakellm::parse_script(&text, std::path::Path::new("inline.json")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_delegates_to_codex_through_cohost_mcp() {
    if require_cli(AgentCli::Codex).is_none() || require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let config = FakeLlmConfig {
        script: Some(script()),
        ..FakeLlmConfig::default()
    };
    let b = Bench::start_with(AgentCli::Claude, config).await.unwrap();
    // Codex on the same fake server and scratch user; its key variable
    // reaches it through cohost's provider env, as a user would set it.
    let codex = offline_setup(AgentCli::Codex, b.layout(), &b.fake().base_url());
    for (path, contents) in &codex.files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    let key = codex.env.get("FAKE_API_KEY").cloned().unwrap_or_default();
    let cohost_cfg = b.layout().xdg_config.join("cohost");
    std::fs::create_dir_all(&cohost_cfg).unwrap();
    std::fs::write(
        cohost_cfg.join("config.toml"),
        format!("[providers.codex.env]\nFAKE_API_KEY = \"{key}\"\n"),
    )
    .unwrap();
    let mut env = b.env();
    env.extend(codex.env.clone());
    let mcp_config = b.layout().root.join("mcp.json");
    std::fs::write(
        &mcp_config,
        json!({"mcpServers": {"cohost": {
            "command": clients::cohost(),
            "args": ["mcp"],
            "env": env,
        }}})
        .to_string(),
    )
    .unwrap();

    let out = b
        .command([
            "-p",
            "delegate this to codex through cohost",
            "--mcp-config",
            mcp_config.to_str().unwrap(),
            "--allowedTools",
            "mcp__cohost__ask_agent",
            "--output-format",
            "json",
        ])
        // MCP tools inline in the request (no deferred tool search), so the
        // fake model sees `mcp__cohost__ask_agent` in the first request.
        .env("ENABLE_TOOL_SEARCH", "false")
        .output();
    let out = tokio::time::timeout(Duration::from_secs(240), out)
        .await
        .expect("claude finished within 240 s")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "claude failed: {}\n{stdout}\n{stderr}",
        out.status
    );
    let result: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("claude's JSON result ({e}): {stdout}\n{stderr}");
    });
    let answer = result["result"].as_str().unwrap_or_default();
    // The fake model quotes the tool result it was given: cohost's
    // ask_agent result, whose answer is what Codex said.
    let offered: Vec<Vec<String>> = b
        .model_requests()
        .iter()
        .map(|r| {
            r.body["tools"]
                .as_array()
                .map(|ts| {
                    ts.iter()
                        .filter_map(|t| t["name"].as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    assert!(
        answer.starts_with("Tool said: "),
        "{answer}\ntools offered per request: {offered:?}\n{stderr}"
    );
    assert!(
        answer.contains(&format!("You said: {DELEGATED}")),
        "Claude's final answer quotes Codex's: {answer}"
    );
    assert!(answer.contains("\"provider\":\"codex\""), "{answer}");
    // Codex's own request reached the fake server with the delegated prompt.
    let asked_codex = b
        .fake()
        .requests()
        .iter()
        .any(|r| r.path.contains("/v1/responses") && r.body.to_string().contains(DELEGATED));
    assert!(asked_codex, "codex was asked by cohost");
}
