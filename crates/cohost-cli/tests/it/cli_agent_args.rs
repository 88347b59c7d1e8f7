//! `--system-prompt TEXT` and `cohost run PROMPT -- AGENT_ARGS` (issue 31:
//! `AdapterConfig::system_prompt` and `extra_args` were honoured by drivers
//! but set by nothing a user could reach). Providers that take no system
//! prompt refuse it; arguments go to agent CLIs only, and a CLI's own
//! permission-bypass flag is refused unless approvals are auto-approve.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::cli_support;

use cli_support::{agents_bin, claude, cohost_in, failed, last_request_with, ok};

#[test]
fn what_a_provider_cannot_take_is_refused_with_a_fix() {
    let home = tempfile::tempdir().unwrap();
    let c = || cohost_in(home.path(), "/usr/bin:/bin");
    let out = c()
        .args([
            "run",
            "--agent",
            "mock",
            "--system-prompt",
            "be terse",
            "hi",
        ])
        .output()
        .unwrap();
    let err = failed(&out, 4);
    assert!(err.contains("UNSUPPORTED_MODE"), "{err}");
    assert!(err.contains("`mock` takes no system prompt"), "{err}");
    assert!(err.contains("driver.system_prompt"), "{err}");

    let out = c()
        .args(["run", "--agent", "mock", "hi", "--", "--verbose"])
        .output()
        .unwrap();
    let err = failed(&out, 2);
    assert!(err.contains("is not an agent CLI"), "{err}");

    // Checked before the agent is looked for: no claude or gemini here.
    for (agent, args, flag) in [
        (
            "claude",
            vec!["--dangerously-skip-permissions"],
            "`--dangerously-skip-permissions`",
        ),
        (
            "gemini",
            vec!["--model", "x", "--approval-mode", "yolo"],
            "`--approval-mode yolo`",
        ),
        (
            "gemini",
            vec!["--approval-mode=yolo"],
            "`--approval-mode yolo`",
        ),
        (
            "gemini-acp",
            vec!["--approval-mode", "yolo"],
            "`--approval-mode yolo`",
        ),
    ] {
        let out = c()
            .args(["run", "--agent", agent, "hi", "--"])
            .args(&args)
            .output()
            .unwrap();
        let err = failed(&out, 2);
        assert!(err.contains(flag), "{agent} {args:?}: {err}");
        assert!(err.contains("--approve all"), "{err}");
    }

    let agents = ok(&c().args(["agents", "--json"]).output().unwrap());
    let agents: serde_json::Value = serde_json::from_str(&agents).unwrap();
    let takes = |id: &str| {
        agents
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["provider_id"] == id)
            .map(|a| a["driver"]["system_prompt"].clone())
            .unwrap_or_else(|| panic!("no {id} in {agents}"))
    };
    assert_eq!(takes("claude"), true);
    assert_eq!(takes("codex"), true);
    assert_eq!(takes("openai"), true);
    assert_eq!(takes("mock"), false);
    assert_eq!(takes("qwen"), false);
}

/// An API provider sends the system prompt as its protocol's system message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_api_gets_the_system_prompt() {
    let fake = cohost_fakellm::FakeLlm::start(Default::default())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let base = format!("{}/v1", fake.base_url());
    tokio::task::block_in_place(|| {
        let out = cohost_in(home.path(), "/usr/bin:/bin")
            .env("OPENAI_BASE_URL", &base)
            .env("OPENAI_API_KEY", "cohost-test-key")
            .args(["run", "--agent", "openai", "--model", "fake-model"])
            .args(["--system-prompt", "answer-like-a-pirate", "ahoy-there"])
            .output()
            .unwrap();
        ok(&out);
    });
    let body = last_request_with(&fake, "ahoy-there");
    let system = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "system")
        .unwrap_or_else(|| panic!("no system message in {body}"))
        .to_string();
    assert!(system.contains("answer-like-a-pirate"), "{system}");
    fake.shutdown().await;
}

/// The real Claude Code gets both: the text in its request's system prompt,
/// and the arguments on its command line (`--disallowedTools Bash` takes
/// Bash out of the tools it offers the model).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_claude_gets_the_system_prompt_and_the_arguments() {
    let Some(bin) = agents_bin() else { return };
    let fake = cohost_fakellm::FakeLlm::start(Default::default())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let base = fake.base_url();
    let tools = |body: &serde_json::Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    tokio::task::block_in_place(|| {
        let out = claude(cohost_in(home.path(), &path), &base)
            .args(["run", "--agent", "claude", "--approve", "none"])
            .args(["--system-prompt", "answer-like-a-pirate", "first-turn"])
            .output()
            .unwrap();
        ok(&out);
    });
    let body = last_request_with(&fake, "first-turn");
    assert!(
        body["system"].to_string().contains("answer-like-a-pirate"),
        "{}",
        body["system"]
    );
    assert!(
        tools(&body).iter().any(|t| t == "Bash"),
        "{:?}",
        tools(&body)
    );

    tokio::task::block_in_place(|| {
        let out = claude(cohost_in(home.path(), &path), &base)
            .args(["run", "--agent", "claude", "--approve", "none"])
            .args(["second-turn", "--", "--disallowedTools", "Bash"])
            .output()
            .unwrap();
        ok(&out);
    });
    let body = last_request_with(&fake, "second-turn");
    let offered = tools(&body);
    assert!(!offered.is_empty(), "{body}");
    assert!(!offered.iter().any(|t| t == "Bash"), "{offered:?}");
    assert!(
        !body["system"].to_string().contains("answer-like-a-pirate"),
        "a system prompt is per run"
    );
    fake.shutdown().await;
}
