//! End-to-end tests of the `cohost` binary as a user runs it.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `cohost` with a PATH that holds no agent, a scratch HOME, and no colour.
fn cohost(home: &tempfile::TempDir) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohost"));
    c.env_clear()
        .env("PATH", home.path())
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .current_dir(home.path())
        .stdin(Stdio::null());
    c
}

fn run(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    cohost(&home).args(args).output().unwrap()
}

fn events(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect()
}

#[test]
fn json_run_on_the_default_mock_is_valid_ndjson() {
    let out = run(&["run", "--json", "hello"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("built-in mock agent"),
        "must say it fell back: {stderr}"
    );
    let evs = events(&out);
    assert_eq!(evs.first().unwrap()["type"], "stream_start");
    let chunks: Vec<_> = evs.iter().filter(|e| e["type"] == "stream_chunk").collect();
    assert!(chunks.len() >= 2);
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(
            c["chunk_index"], i as u64,
            "indexes start at 0 and rise by 1"
        );
    }
    let text: String = chunks
        .iter()
        .map(|c| c["delta"].as_str().unwrap())
        .collect();
    assert!(text.contains("You said: \"hello\""), "{text}");
    let end = evs.last().unwrap();
    assert_eq!(end["type"], "stream_end");
    assert_eq!(end["reason"], "completed");
    assert!(end["usage"]["output_tokens"].as_u64().unwrap() > 0);
    for e in &evs {
        for field in ["id", "prompt_id", "correlation_id", "ts", "type"] {
            assert!(e.get(field).is_some(), "{field} missing in {e}");
        }
    }
}

#[test]
fn human_run_prints_the_answer_on_stdout() {
    let out = run(&["run", "hello", "there"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("You said: \"hello there\""), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("thinking:"));
}

#[test]
fn unknown_agent_lists_known_ids() {
    let out = run(&["run", "--agent", "nope", "hi"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("PROVIDER_NOT_FOUND") && stderr.contains("mock"),
        "{stderr}"
    );
}

#[test]
fn empty_prompt_is_a_usage_error() {
    for args in [vec!["run", ""], vec!["run", "   "]] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("the prompt is empty"));
    }
    let out = run(&["run"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "missing prompt is a clap usage error"
    );
}

#[test]
fn tool_call_denied_without_a_terminal() {
    let out = run(&[
        "run",
        "--agent",
        "mock",
        "--json",
        "[mock:tool] make a file",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let evs = events(&out);
    let decided = evs
        .iter()
        .find(|e| e["type"] == "tool_approval_decided")
        .unwrap();
    assert_eq!(decided["decision"], "reject_once");
    let exec = evs.iter().find(|e| e["type"] == "tool_executed").unwrap();
    assert_eq!(exec["status"], "denied");
}

#[test]
fn approve_all_runs_the_tool_without_asking() {
    let out = run(&[
        "run",
        "--agent",
        "mock",
        "--approve",
        "all",
        "--json",
        "[mock:tool]",
    ]);
    let evs = events(&out);
    assert!(!evs.iter().any(|e| e["type"] == "tool_approval_requested"));
    let exec = evs.iter().find(|e| e["type"] == "tool_executed").unwrap();
    assert_eq!(exec["status"], "ok");
}

#[test]
fn error_classes_map_to_exit_codes() {
    for (scenario, code) in [
        ("error:AUTH_REQUIRED", 5),
        ("error:RATE_LIMITED", 6),
        ("error:TIMEOUT", 7),
        ("error:CONTEXT_WINDOW_EXCEEDED", 6),
        ("crash", 8),
    ] {
        let out = run(&["run", "--agent", "mock", "--model", scenario, "--json", "x"]);
        assert_eq!(out.status.code(), Some(code), "{scenario}");
        let evs = events(&out);
        assert_eq!(evs.last().unwrap()["reason"], "error");
    }
}

#[test]
fn first_ctrl_c_interrupts_the_turn() {
    use std::io::{BufRead, BufReader};
    let home = tempfile::tempdir().unwrap();
    let mut child = cohost(&home)
        .args([
            "run", "--agent", "mock", "--model", "slow", "--json", "count",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut evs: Vec<serde_json::Value> = Vec::new();
    // Wait until it really streams, then press Ctrl+C once.
    for line in lines.by_ref() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let third_chunk = v["type"] == "stream_chunk" && v["chunk_index"] == 2;
        evs.push(v);
        if third_chunk {
            break;
        }
    }
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for line in lines {
        evs.push(serde_json::from_str(&line.unwrap()).unwrap());
    }
    let code = child.wait().unwrap().code();
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(code, Some(130));
    assert_eq!(evs.last().unwrap()["type"], "stream_end");
    assert_eq!(evs.last().unwrap()["reason"], "interrupted");
    let chunks = evs.iter().filter(|e| e["type"] == "stream_chunk").count();
    assert!((3..50).contains(&chunks), "stopped early: {chunks} chunks");
}

#[test]
fn agents_lists_the_mock() {
    let out = run(&["agents", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mock = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provider_id"] == "mock")
        .unwrap();
    assert_eq!(mock["kind"], "agent_cli");
    assert_eq!(mock["status"], "ready");
    assert_eq!(mock["driver"]["tier"], "builtin");
    // With an empty PATH every CLI is reported missing, with its source.
    let claude = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provider_id"] == "claude")
        .unwrap();
    assert_eq!(claude["status"], "missing");
    assert_eq!(claude["discovery"]["command_source"], "missing");
    let table = run(&["agents"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("mock") && table.contains("STATUS"),
        "{table}"
    );
}

#[test]
fn runs_are_recorded_and_resumable() {
    let home = tempfile::tempdir().unwrap();
    let first = cohost(&home)
        .args(["run", "--agent", "mock", "--json", "hello"])
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0));
    let native = events(&first)[0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let list = cohost(&home).args(["sessions", "--json"]).output().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let rec = &list.as_array().unwrap()[0];
    assert_eq!(rec["provider"], "mock");
    assert_eq!(rec["native_session_id"], native.as_str());
    assert_eq!(rec["watermark"], 1);
    let id = rec["id"].as_str().unwrap().to_string();

    // A second cohost process continues the same session by cohost id.
    let second = cohost(&home)
        .args(["run", "--resume", &id, "--json", "again"])
        .output()
        .unwrap();
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert_eq!(events(&second)[0]["session_id"], native.as_str());
    let list = cohost(&home).args(["sessions", "--json"]).output().unwrap();
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["watermark"], 2);

    // A session belongs to its provider.
    let wrong = cohost(&home)
        .args(["run", "--resume", &id, "--agent", "claude", "x"])
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(3));
}

#[test]
fn slots_resolve_through_the_config() {
    let home = tempfile::tempdir().unwrap();
    let set = cohost(&home)
        .args(["config", "set", "slots.summary.provider", "mock"])
        .output()
        .unwrap();
    assert_eq!(
        set.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&set.stderr)
    );
    let out = cohost(&home)
        .args(["run", "--slot", "summary", "--json", "hi"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(events(&out)[0]["provider"], "mock");
    // An unknown provider in a slot is refused and not saved.
    let bad = cohost(&home)
        .args(["config", "set", "slots.summary.provider", "nope"])
        .output()
        .unwrap();
    assert_eq!(
        bad.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("config.toml"));
    let get = cohost(&home)
        .args(["config", "get", "slots.summary.provider"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&get.stdout).trim(), "mock");
}

#[test]
fn bad_config_names_file_line_and_fix() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/cohost");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[slots.summary]\nprovider = \"mock\"\nmode = [oops\n",
    )
    .unwrap();
    let out = cohost(&home)
        .args(["run", "--json", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["code"], "CONFIG_INVALID");
    let msg = err["message"].as_str().unwrap();
    assert!(msg.contains("config.toml") && msg.contains(":3"), "{msg}");
    assert!(err["suggested_fix"].as_str().is_some());
}

#[test]
fn project_plugins_are_loaded_and_bad_ones_reported() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".cohost/agents");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("echoer.toml"),
        "id = \"echoer\"\nbinary = \"/bin/echo\"\nprotocol = \"text\"\nargs = [\"echoed:\", \"{prompt}\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("broken.toml"),
        "id = \"broken\"\nbinary = \"x\"\nprotocol = \"smoke-signals\"\n",
    )
    .unwrap();
    let out = cohost(&home)
        .args(["run", "--agent", "echoer", "--json", "hi there"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("broken.toml") && stderr.contains("protocol"),
        "{stderr}"
    );
    let text: String = events(&out)
        .iter()
        .filter(|e| e["type"] == "stream_chunk")
        .map(|e| e["delta"].as_str().unwrap().to_string())
        .collect();
    assert!(text.contains("echoed: hi there"), "{text}");
}

/// `cohost fake-llm` starts, answers, and logs requests to `--request-log`.
/// (Its `--log` once clashed with the global `--log` filter and panicked.)
/// Only the banner's first line is read and the pipe is then closed, as
/// `| head -1` would: the server must keep serving.
#[test]
fn fake_llm_serves_and_logs_requests() {
    use std::io::{Read, Write};
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("requests.jsonl");
    let (mut child, addr) = spawn_fake(&home, &["--request-log", log.to_str().unwrap()]);
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    let req = format!("GET /v1/models HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    // Read until the peer closes; a reset after the response still leaves
    // what was read.
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let resp = String::from_utf8_lossy(&raw).into_owned();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(resp.contains("fake-model"), "{resp}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("/v1/models"), "{logged}");
}

/// Starts `cohost fake-llm` on a free port; returns the child and its
/// address. Only the banner's first line is read, then the pipe is closed.
fn spawn_fake(home: &tempfile::TempDir, extra: &[&str]) -> (std::process::Child, String) {
    use std::io::{BufRead, BufReader};
    let mut child = cohost(home)
        .args(["fake-llm", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("fake-llm listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .to_string();
    (child, addr)
}

/// `--tools` offers tools to an API provider's model; the call comes back as
/// a `tool_call` event. Agents that run their own tools refuse the flag.
#[test]
fn tools_file_reaches_an_api_provider_and_agents_refuse_it() {
    let home = tempfile::tempdir().unwrap();
    let tools = home.path().join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"name": "run_shell", "description": "Run a shell command",
             "input_schema": {"type": "object", "required": ["command"],
                              "properties": {"command": {"type": "string"}}}}]"#,
    )
    .unwrap();
    let (mut fake, addr) = spawn_fake(&home, &[]);
    let out = cohost(&home)
        .env("OPENAI_BASE_URL", format!("http://{addr}/v1"))
        .env("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")
        .args([
            "run",
            "--agent",
            "openai",
            "--model",
            "fake-model",
            "--json",
            "--tools",
        ])
        .arg(&tools)
        .arg("run it [[scenario:tool]]")
        .output()
        .unwrap();
    let _ = fake.kill();
    let _ = fake.wait();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ev = events(&out);
    let call = ev
        .iter()
        .find(|e| e["type"] == "tool_call")
        .unwrap_or_else(|| panic!("no tool_call in {ev:#?}; stderr: {stderr}"));
    assert_eq!(call["name"], "run_shell");
    assert!(
        call["input"]["command"]
            .as_str()
            .is_some_and(|c| !c.is_empty()),
        "{call}"
    );
    assert_eq!(ev.last().unwrap()["type"], "stream_end", "{ev:#?}");

    // The mock (an agent that runs its own tools) refuses it with a usage error.
    let out = cohost(&home)
        .args(["run", "--agent", "mock", "--tools"])
        .arg(&tools)
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("runs its own tools"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What a new user meets first: an about line for users, examples, shell
/// completions and a man page.
#[test]
fn help_completions_and_man_page() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_cohost"))
            .args(args)
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let help = run(&["--help"]);
    assert!(
        help.starts_with("One port, many agents"),
        "the about line speaks to users: {help}"
    );
    assert!(!help.contains("composition root"), "{help}");
    assert!(
        help.contains("Examples:") && help.contains("cohost run"),
        "{help}"
    );
    let bash = run(&["completions", "bash"]);
    assert!(
        bash.contains("_cohost()") && bash.contains("complete -F"),
        "{bash}"
    );
    assert!(bash.contains("share") && bash.contains("--agent"), "{bash}");
    for shell in ["zsh", "fish", "powershell"] {
        assert!(run(&["completions", shell]).contains("cohost"), "{shell}");
    }
    let man = run(&["man"]);
    assert!(
        man.starts_with(".ie") || man.contains(".TH cohost"),
        "{man}"
    );
    assert!(man.contains("share"), "subcommands are in the man page");
}

/// `doctor` on a fresh machine: unset optional keys are notes (exit 0), a
/// missing CLI gets its install line, no progress line off a terminal; a
/// broken config is reported (exit 10) and the rest is still checked.
#[test]
fn doctor_exits_zero_on_a_fresh_machine_and_reports_a_broken_config() {
    let home = tempfile::tempdir().unwrap();
    let doctor = || {
        Command::new(env!("CARGO_BIN_EXE_cohost"))
            .arg("doctor")
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = doctor();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("No problems found"), "{stdout}");
    assert!(
        stdout.contains("install: "),
        "missing CLIs say how to install: {stdout}"
    );
    assert!(
        !stderr.contains("probing"),
        "no progress off a terminal: {stderr}"
    );

    let cfg = home.path().join(".config/cohost");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(cfg.join("config.toml"), "[slots.summary\nprovider = 1\n").unwrap();
    let out = doctor();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(10), "{stdout}");
    assert!(stdout.contains("CONFIG_INVALID"), "{stdout}");
    assert!(
        stdout.contains("providers:") && stdout.contains("mock"),
        "{stdout}"
    );
}
