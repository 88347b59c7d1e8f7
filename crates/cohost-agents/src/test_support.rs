//! Test helpers the driver tests share: golden-transcript replay through a
//! one-shot normalizer, the snapshot check, and argv helpers.

use std::ffi::OsString;

use cohost_core::AgentEvent;

use crate::process::oneshot::{SessionArg, TurnNormalizer};
use crate::process::ExitInfo;

/// Replay a golden transcript (`tests/fixtures/<agent>/<version>/<scenario>.jsonl`,
/// header line first) through `norm`, then the exit the header records
/// (`exit_code`, `signal`, `stderr`, `interrupted`), and compare with the
/// `.events` snapshot beside it.
pub(crate) fn replay_fixture<N: TurnNormalizer>(
    agent: &str,
    version: &str,
    scenario: &str,
    mut norm: N,
) -> Vec<AgentEvent> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(agent)
        .join(version);
    let text = std::fs::read_to_string(dir.join(format!("{scenario}.jsonl"))).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let h = &header["cohost_fixture"];
    assert!(h["tool"].is_string() && h["version"] == version && h["command"].is_string());
    let mut events: Vec<AgentEvent> = Vec::new();
    for l in lines {
        if !norm.ended() {
            events.extend(norm.on_line(l));
        }
    }
    if !norm.ended() {
        let exit = ExitInfo {
            code: h["exit_code"].as_i64().and_then(|c| i32::try_from(c).ok()),
            signal: h["signal"].as_i64().and_then(|c| i32::try_from(c).ok()),
        };
        let stderr = h["stderr"].as_str().unwrap_or("");
        let interrupted = h["interrupted"].as_bool().unwrap_or(false);
        if let Some(tail) = norm.on_exit(Some(exit), stderr, interrupted) {
            events.extend(tail);
        }
    }
    check_snapshot(dir.join(format!("{scenario}.events")), &events);
    events
}

/// Compare events against a snapshot file: the workspace's one format and
/// update switch (`cohost_testbench::snapshot`). Shared by the driver tests.
pub(crate) fn check_snapshot(path: std::path::PathBuf, events: &[AgentEvent]) {
    cohost_testbench::snapshot::check_events(&path, events);
}

/// The session argument for a native id to resume.
pub(crate) fn resuming(id: Option<&str>) -> Option<SessionArg> {
    id.map(|id| SessionArg {
        id: id.to_string(),
        fresh: false,
    })
}

/// A command line as strings, for tests comparing argv.
pub(crate) fn strs(args: Vec<OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}
