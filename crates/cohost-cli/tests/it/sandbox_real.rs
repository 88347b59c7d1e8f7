//! The OS sandbox (issue 36) with the real pinned Claude Code and Codex
//! against the fake model server: `cohost run --sandbox=required` with a
//! tool call the fake model scripts. A write outside the working tree
//! fails as the tool's failure (the turn and cohost go on); a planted
//! `~/.ssh/id_ed25519` in the scratch HOME cannot be read; the same write
//! inside the tree works; a connect to a port the provider does not need
//! fails, while the provider's own port (the fake server's) keeps the turn
//! going. Skips loudly when a CLI is missing, unless `CI` is set.

use std::net::TcpListener;
use std::path::Path;

use cohost_fakellm::{FakeLlmConfig, Scenario, Script, ScriptStep};
use cohost_testbench::{require_cli, AgentCli, Bench};
use serde_json::{json, Value};

/// What a planted private key holds; never to appear in any output.
const CANARY: &str = "COHOST-SANDBOX-CANARY-PRIVATE-KEY";

/// A scripted call of the CLI's shell tool running `command`, taken by the
/// request whose prompt contains `marker`.
fn shell_step(cli: AgentCli, marker: &str, command: &str) -> ScriptStep {
    let (tool, args) = match cli {
        AgentCli::Claude => ("Bash", json!({"command": command})),
        _ => ("exec_command", json!({"cmd": command})),
    };
    let mut step = ScriptStep::new(Scenario::Tool);
    step.match_prompt = Some(marker.into());
    step.tool = Some(tool.into());
    step.args = Some(args);
    step
}

async fn cohost(b: &Bench, args: &[&str]) -> (i32, String, String) {
    let cmd = b.command_for(env!("CARGO_BIN_EXE_cohost"), args).output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(180), cmd)
        .await
        .expect("cohost finished")
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The one `tool_executed` event of a turn.
fn executed(evs: &[Value]) -> &Value {
    let all: Vec<&Value> = evs
        .iter()
        .filter(|e| e["type"] == "tool_executed")
        .collect();
    assert_eq!(all.len(), 1, "one tool ran: {evs:#?}");
    all[0]
}

async fn sandboxed_tools(cli: AgentCli, agent: &str) {
    if require_cli(cli).is_none() {
        return;
    }
    if cohost_supervisor::sandbox::Support::probe().abi < 1 {
        // No Landlock: `required` must refuse, which the policy tests check.
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    // A port nobody in the provider's business listens on.
    let stranger = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = stranger.local_addr().unwrap().port();
    let scratch = tempfile::tempdir().unwrap();
    let outside = scratch.path().join("outside.txt");
    let probe = format!(
        "(echo pwned > {out}) 2>/dev/null && echo W_OUT=ok || echo W_OUT=denied; \
         cat ~/.ssh/id_ed25519 2>/dev/null || echo SSH_READ=denied; \
         (echo inside > inside.txt) && echo W_IN=ok || echo W_IN=denied; \
         bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo TCP=ok || echo TCP=denied",
        out = outside.display()
    );
    let script = Script {
        default: None,
        steps: vec![
            shell_step(
                cli,
                "probe-outside",
                &format!("echo pwned > {}", outside.display()),
            ),
            shell_step(cli, "probe-all", &probe),
        ],
        repeat: false,
    };
    let config = FakeLlmConfig {
        script: Some(script),
        ..FakeLlmConfig::default()
    };
    let b = Bench::start_with(cli, config).await.unwrap();
    let ssh = b.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519"), format!("{CANARY}\n")).unwrap();

    let run = |marker: &'static str| {
        [
            "run",
            "--agent",
            agent,
            "--approve",
            "all",
            "--sandbox=required",
            "--json",
            marker,
        ]
    };
    // A write outside the tree: the tool fails, the turn ends normally.
    let (code, out, err) = cohost(&b, &run("probe-outside")).await;
    assert_eq!(
        code, 0,
        "cohost ran the turn:\nstdout:\n{out}\nstderr:\n{err}"
    );
    let evs = events(&out);
    let tool = executed(&evs);
    assert_eq!(tool["status"], "error", "the tool's failure: {tool}");
    assert!(
        evs.iter()
            .any(|e| e["type"] == "stream_end" && e["reason"] == "completed"),
        "{evs:#?}"
    );
    assert!(!outside.exists(), "nothing was written outside the tree");

    // Everything else in one call: the key, a write inside, a stray port.
    let (code, out, err) = cohost(&b, &run("probe-all")).await;
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    let evs = events(&out);
    let output = executed(&evs)["output_preview"].to_string();
    assert!(!out.contains(CANARY) && !err.contains(CANARY), "{out}");
    for want in ["W_OUT=denied", "SSH_READ=denied", "W_IN=ok", "TCP=denied"] {
        assert!(
            output.contains(want),
            "{want} in the tool's output: {output}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(b.cwd().join("inside.txt")).unwrap(),
        "inside\n"
    );
    assert!(!outside.exists());
    assert_no_key_reads(b.home());

    // In a worktree (inside cohost's state directory, whose reads are
    // denied) the agent still writes its tree: the narrower rule wins.
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=u", "-c", "user.email=u@example.invalid"])
            .args(args)
            .current_dir(b.cwd())
            .env("HOME", b.home())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "start"]);
    let write = [
        "run",
        "--agent",
        agent,
        "--approve",
        "all",
        "--sandbox=required",
        "--worktree",
        "--json",
        "[[scenario:write]] create the file",
    ];
    let (code, out, err) = cohost(&b, &write).await;
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    let changed = events(&out)
        .into_iter()
        .find(|e| e["type"] == "file_changes")
        .unwrap_or_else(|| panic!("a file_changes event:\n{out}"));
    assert_eq!(
        changed["files"][0]["path"], "cohost_tool_output.txt",
        "{changed}"
    );
    assert!(
        !b.cwd().join("cohost_tool_output.txt").exists(),
        "not in the checkout"
    );
}

/// The agent's own files in the scratch HOME hold no copy of the key
/// (a transcript would, had a read succeeded).
fn assert_no_key_reads(home: &Path) {
    for entry in walk(home) {
        if entry.starts_with(home.join(".ssh")) {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&entry) {
            assert!(!text.contains(CANARY), "{} holds the key", entry.display());
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_in_the_sandbox() {
    sandboxed_tools(AgentCli::Claude, "claude").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_in_the_sandbox() {
    sandboxed_tools(AgentCli::Codex, "codex").await;
}
