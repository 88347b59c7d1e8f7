//! A new user's first run of an agent they have not signed in to: the
//! pinned real CLIs, in a scratch HOME with no key, each end at once with
//! `AUTH_REQUIRED` (exit 5) and a fix saying how to sign in (`cohost login
//! ID` and what it runs, or the key to set), instead of a crash, a failed
//! spawn, a network error or a wait for a browser. Nothing leaves loopback: every
//! proxy variable points at a closed local port.

use cohost_testbench::{bin_dir, require_cli, AgentCli};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `cohost run --agent ID ARGS… hello` in the empty HOME `home`, offline.
fn signed_out_command(home: &std::path::Path, id: &str, args: &[&str]) -> Command {
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir().display());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cohost"));
    cmd.args(["run", "--agent", id])
        .args(args)
        .arg("hello")
        .current_dir(home)
        .env_clear()
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join(".state"))
        .env("PATH", path)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("NO_PROXY", "")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null());
    cmd
}

fn signed_out_run(id: &str) -> (Option<i32>, String, Duration) {
    let home = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    let out = signed_out_command(home.path(), id, &[]).output().unwrap();
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

/// Codex signed out and offline never gets its API's 401: it retries
/// ("Reconnecting... 2/5", then "waiting for network") for as long as the
/// user waits. Its first retry notice says cohost sees no Codex
/// credentials and how to sign in, and Ctrl+C still ends the run.
#[test]
fn signed_out_codex_offline_says_how_to_sign_in_while_it_retries() {
    use std::io::BufRead;
    if require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let mut child = signed_out_command(home.path(), "codex", &["--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let fix = cohost_agents::catalog::login_fix("codex").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    let hinted = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            break None;
        };
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "status" {
            let message = v["message"].as_str().unwrap_or_default().to_string();
            if message.contains(&fix) {
                break Some(message);
            }
        }
        seen.push(line);
    };
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let t0 = Instant::now();
    let status = child.wait().unwrap();
    let hinted = hinted.unwrap_or_else(|| panic!("no retry notice with the login fix: {seen:#?}"));
    assert!(
        hinted.starts_with("codex is retrying") && hinted.contains("no Codex CLI credentials"),
        "{hinted}"
    );
    assert!(!status.success(), "an interrupted run is not a success");
    assert!(t0.elapsed() < Duration::from_secs(15), "{:?}", t0.elapsed());
}
