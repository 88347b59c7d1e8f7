//! Helpers shared by the CLI tests of issue 18 (`cli_sessions`, `cli_attach`).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `cohost` with a scratch HOME, no agent on PATH unless `path` adds one.
pub fn cohost_in(home: &Path, path: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohost"));
    c.env_clear()
        .env("PATH", path)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .current_dir(home)
        .stdin(Stdio::null());
    c
}

pub fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn failed(out: &Output, code: i32) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    stderr
}

pub fn sessions(c: impl Fn() -> Command) -> Vec<serde_json::Value> {
    let out = c().args(["sessions", "--json"]).output().unwrap();
    serde_json::from_str::<serde_json::Value>(&ok(&out))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// `$COHOST_AGENTS_DIR/bin/NAME` (default dir `~/.cache/cohost-agents`) when
/// installed; else the one skip policy (`cohost_testbench::skip`: a loud
/// notice naming `install`, a failure on CI).
pub fn installed(name: &str, install: &str) -> Option<PathBuf> {
    let bin = cohost_testbench::bin_dir().join(name);
    let found = bin.exists().then(|| bin.clone());
    cohost_testbench::skip::require(found, || {
        format!("{name} is not installed at {}: {install}", bin.display())
    })
}

/// The pinned agents' launcher dir, when `claude` is installed there.
pub fn agents_bin() -> Option<PathBuf> {
    cohost_testbench::require_cli(cohost_testbench::AgentCli::Claude)
        .and_then(|b| b.parent().map(PathBuf::from))
}

/// `c` pointed at a fake model server for Claude Code, telemetry off.
pub fn claude(mut c: Command, base: &str) -> Command {
    c.env("ANTHROPIC_BASE_URL", base)
        .env("ANTHROPIC_API_KEY", "sk-fake-e2e")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1");
    c
}

/// The body of the last model request `fake` received whose body holds
/// `needle` (the prompt of the turn under test).
pub fn last_request_with(fake: &cohost_fakellm::FakeLlmHandle, needle: &str) -> serde_json::Value {
    fake.requests()
        .into_iter()
        .rev()
        .find(|r| r.body.to_string().contains(needle))
        .map(|r| r.body)
        .unwrap_or_else(|| panic!("no request carried {needle:?}"))
}
