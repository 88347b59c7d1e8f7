//! Running the independent clients (the official MCP Python SDK, the ACP
//! Python SDK) against the `cohost` binary, in a bench's scratch user.
//! A client that is not installed skips the test loudly, and fails it
//! under CI (scripts/test.sh installs them).

// Each test binary uses a part of this support module.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use cohost_testbench::{require_cli, skip, AgentCli, Bench};
use serde_json::Value;

/// The `cohost` binary under test.
pub fn cohost() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cohost"))
}

/// A client script beside this file.
pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(name)
}

/// A python3 that can import `module`, else `None` after a loud notice
/// (a failure under CI, where scripts/test.sh installs it).
pub fn python_with(module: &str) -> Option<PathBuf> {
    let found = std::process::Command::new("python3")
        .args([
            "-c",
            &format!("import {module}, sys; print(sys.executable)"),
        ])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    skip::require(found, || {
        format!(
            "python3 with the `{module}` package is not installed (scripts/test.sh installs it)"
        )
    })
}

/// A bench for `cli` (the fake model server and a scratch user), or `None`
/// with a loud notice when the real CLI is not installed.
pub async fn bench(cli: AgentCli) -> Option<Bench> {
    require_cli(cli)?;
    Some(Bench::start(cli).await.expect("bench"))
}

/// Run `python script args…` in the bench's environment and cwd; its last
/// stdout line is the JSON result.
pub async fn run_client(bench: &Bench, python: &Path, script: &Path, args: &[&str]) -> Value {
    run_client_with(bench, python, script, args, &[]).await
}

/// [`run_client`] with extra environment variables.
pub async fn run_client_with(
    bench: &Bench,
    python: &Path,
    script: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Value {
    let argv = std::iter::once(script.as_os_str()).chain(args.iter().map(std::ffi::OsStr::new));
    let mut cmd = bench.command_for(python, argv);
    cmd.envs(env.iter().copied());
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let out = tokio::time::timeout(Duration::from_secs(240), cmd.output())
        .await
        .expect("the client finished within 240 s")
        .expect("the client ran");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "client {args:?} failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("no JSON result ({e}):\n{stdout}\n{stderr}"))
}

/// The ids of the sessions the bench user's store holds.
pub fn stored_sessions(bench: &Bench) -> Vec<String> {
    let file = bench.layout().xdg_state.join("cohost/sessions.json");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let list = v.get("sessions").cloned().unwrap_or(v);
    match list {
        Value::Array(a) => a
            .iter()
            .filter_map(|r| r.get("id").and_then(Value::as_str).map(String::from))
            .collect(),
        Value::Object(o) => o.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// No process of the bench's scratch user outlives the client: cohost
/// narrows its agents' environment (the bench's marker does not reach
/// them), but every agent gets the scratch `HOME`.
pub async fn assert_no_agent_left(bench: &Bench) {
    let needle = format!("HOME={}", bench.home().display());
    let left = || -> Vec<String> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
            .filter(|e| {
                std::fs::read(e.path().join("environ"))
                    .map(|env| env.split(|b| *b == 0).any(|v| v == needle.as_bytes()))
                    .unwrap_or(false)
            })
            .filter(|e| {
                // A zombie has exited; only its parent's wait is missing.
                std::fs::read_to_string(e.path().join("stat"))
                    .map(|s| !s.contains(") Z "))
                    .unwrap_or(false)
            })
            .map(|e| {
                let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                format!(
                    "{}: {}",
                    e.file_name().to_string_lossy(),
                    String::from_utf8_lossy(&cmd).replace('\0', " ")
                )
            })
            .collect()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let procs = left();
        if procs.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "processes of the scratch user outlived the client:\n{}",
            procs.join("\n")
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
