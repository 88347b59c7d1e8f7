//! A new user's first run of an agent they have not signed in to: the
//! pinned real CLIs, in a scratch HOME with no key, each end at once with
//! `AUTH_REQUIRED` (exit 5) and a fix saying how to sign in (`cohost login
//! ID` and what it runs, or the key to set), instead of a crash, a failed
//! spawn, a network error or a wait for a browser. Nothing leaves loopback: every
//! proxy variable points at a closed local port.

use cohost_testbench::{bin_dir, require_cli, AgentCli};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn signed_out_run(id: &str) -> (Option<i32>, String, Duration) {
    let home = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir().display());
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_cohost"))
        .args(["run", "--agent", id, "hello"])
        .current_dir(home.path())
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join(".state"))
        .env("PATH", path)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        t0.elapsed(),
    )
}

#[test]
fn signed_out_agents_say_auth_required_and_how_to_log_in() {
    let agents = [
        ("claude", AgentCli::Claude),
        ("qwen", AgentCli::Qwen),
        ("gemini", AgentCli::Gemini),
        ("gemini-acp", AgentCli::Gemini),
        ("copilot", AgentCli::Copilot),
        ("claude-acp", AgentCli::ClaudeCodeAcp),
        // Without a key aider would wait five minutes for a browser sign-in.
        ("aider", AgentCli::Aider),
    ];
    for (id, cli) in agents {
        if require_cli(cli).is_none() {
            continue;
        }
        let (code, stderr, took) = signed_out_run(id);
        assert_eq!(code, Some(5), "{id}: {stderr}");
        assert!(stderr.contains("AUTH_REQUIRED"), "{id}: {stderr}");
        let fix = cohost_agents::catalog::login_fix(id).unwrap();
        assert!(
            stderr.contains(&format!("fix: {fix}")),
            "{id}: the fix says how to sign in ({fix}): {stderr}"
        );
        assert!(!stderr.contains("PROCESS_CRASHED"), "{id}: {stderr}");
        assert!(took < Duration::from_secs(60), "{id}: {took:?}");
    }
}
