//! The variables a user's own agent config names reach the agent through
//! `cohost run`: the real pinned Codex CLI with a custom model provider
//! whose key lives in `MY_PROVIDER_KEY` (`env_key`, the documented way),
//! against cohost's fake model server in a scratch HOME and CODEX_HOME.
//! Skips with a loud notice when codex is not installed, unless `CI` is set.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::process::Output;

use cohost_testbench::{require_cli, AgentCli, Bench, FAKE_API_KEY};

async fn codex_bench() -> Option<Bench> {
    require_cli(AgentCli::Codex)?;
    let b = Bench::start(AgentCli::Codex).await.unwrap();
    // A custom provider reading its key from its own variable.
    let file = b.layout().codex_home.join("config.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("env_key = \"FAKE_API_KEY\""), "{text}");
    let text = text
        .replace(
            "env_key = \"FAKE_API_KEY\"",
            "env_key = \"MY_PROVIDER_KEY\"",
        )
        .replace("model_providers.fake]", "model_providers.mine]")
        .replace("model_provider = \"fake\"", "model_provider = \"mine\"");
    std::fs::write(&file, text).unwrap();
    Some(b)
}

async fn cohost_run(b: &Bench, key: Option<&str>) -> Output {
    let mut cmd = b.command_for(
        env!("CARGO_BIN_EXE_cohost"),
        ["run", "--agent", "codex", "--json", "say hello"],
    );
    cmd.env_remove("FAKE_API_KEY");
    if let Some(k) = key {
        cmd.env("MY_PROVIDER_KEY", k);
    }
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .expect("cohost run finished")
        .unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_custom_provider_env_key_passes_through() {
    let Some(b) = codex_bench().await else { return };
    let out = cohost_run(&b, Some(FAKE_API_KEY)).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\"completed\""), "{stdout}");
    // The key reached codex and codex sent it (the log redacts its value).
    let reqs = b.model_requests();
    assert!(
        !reqs.is_empty() && reqs.iter().all(|r| r.headers.contains_key("authorization")),
        "{reqs:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_unset_env_key_is_auth_required_naming_it() {
    let Some(b) = codex_bench().await else { return };
    let out = cohost_run(&b, None).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    // AUTH_REQUIRED's documented exit code.
    assert_eq!(out.status.code(), Some(5), "{stdout}");
    let err = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e.to_string().contains("AUTH_REQUIRED"))
        .unwrap_or_else(|| panic!("no AUTH_REQUIRED event in:\n{stdout}"))
        .to_string();
    assert!(err.contains("MY_PROVIDER_KEY"), "{err}");
    assert!(err.contains("export MY_PROVIDER_KEY="), "{err}");
    assert!(!stdout.contains("NETWORK_ERROR"), "{stdout}");
    assert!(b.model_requests().is_empty(), "no request without a key");
}

/// `pass_env` names a variable that is unset: the session does not start,
/// and the error names the variable and the config file.
#[test]
fn an_unset_pass_env_name_stops_the_run_naming_it() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join(".config/cohost/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        "[providers.mock]\npass_env = [\"MY_GATEWAY_TOKEN\", \"AWS_*\"]\n",
    )
    .unwrap();
    let run = |token: Option<&str>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_cohost"));
        c.env_clear()
            .env("PATH", home.path())
            .env("HOME", home.path())
            .env("NO_COLOR", "1")
            .current_dir(home.path())
            .stdin(std::process::Stdio::null())
            .args(["run", "--agent", "mock", "hello"]);
        if let Some(t) = token {
            c.env("MY_GATEWAY_TOKEN", t);
        }
        c.output().unwrap()
    };
    let out = run(None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("MY_GATEWAY_TOKEN"), "{stderr}");
    assert!(stderr.contains("config.toml"), "{stderr}");
    let out = run(Some("t"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
