//! End-to-end tests of the `cohost` binary as a user runs it.

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
        .find(|r| r["id"] == "mock")
        .unwrap();
    assert_eq!(mock["kind"], "agent_cli");
    assert_eq!(mock["available"], true);
    assert_eq!(mock["capabilities"]["tier"], "builtin");
    let table = run(&["agents"]);
    assert!(String::from_utf8_lossy(&table.stdout).contains("mock"));
}
