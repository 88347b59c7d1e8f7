//! A member on another machine (issue 33): a co-driver's `cohost join
//! --agent codex` brings the real pinned Codex CLI, running in its own
//! scratch home with its own credential, into a room a host shares from
//! another scratch home (`cohost share --guest-agents`, behind a relay the
//! test watches). The host's `@codex@ana` prompt runs on the co-driver's
//! machine; the co-driver approves its tool call (the host is never asked);
//! the host and a viewer see its answer under its member name; and the
//! co-driver's credential is nowhere the host or the relay could read it:
//! not in the host's process environment, its output, the viewer's view of
//! the room, or any frame the relay carried.

use std::io::Write;
use std::process::Stdio;
use std::sync::mpsc::Receiver;

use cohost_fakellm::FakeLlmConfig;
use cohost_testbench::{require_cli, AgentCli, Bench};
use serde_json::Value;

use crate::knock_room::{self, exit_code, until};
use crate::relay_mitm::shared_behind_mitm;
use crate::share_join_cli::{cohost, Reaper};

/// `cmd` as `cohost join --json ARGS` with `invite`, its stdin piped:
/// the process, its frames (stdout) and notices (stderr).
fn joined(
    mut cmd: std::process::Command,
    invite: &str,
    args: &[&str],
) -> (Reaper, Receiver<String>, Receiver<String>) {
    cmd.args(["join", "--json"]).args(args);
    knock_room::joined(cmd, invite, Stdio::piped())
}

/// A frame line of `cohost join --json` of type `frame` whose payload's
/// `agent` is `agent`.
fn frame_of(line: &str, frame: &str, agent: &str) -> Option<Value> {
    let v: Value = serde_json::from_str(line).ok()?;
    (v["frame"] == frame && v["payload"]["agent"] == agent).then_some(v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_co_drivers_own_codex_answers_the_room_with_her_approval_and_credential() {
    if require_cli(AgentCli::Codex).is_none() {
        return;
    }
    let secret = format!("sk-guest-{}", cohost_core::ids::random_tag().repeat(3));
    // The co-driver's machine: Codex against the fake model server, in a
    // scratch home of its own, with her own key.
    let b = Bench::start_with(AgentCli::Codex, FakeLlmConfig::default())
        .await
        .unwrap();
    let host_home = tempfile::tempdir().unwrap();
    let (mitm, _relay, mut host, host_out, first) =
        shared_behind_mitm(host_home.path(), &["--guest-agents"]);
    let mut host_seen = Vec::new();
    let mut stdin = host.0.stdin.take().unwrap();

    let mut ana_cmd = std::process::Command::new(env!("CARGO_BIN_EXE_cohost"));
    ana_cmd
        .env_clear()
        .envs(b.env())
        .env("FAKE_API_KEY", &secret)
        .env("NO_COLOR", "1")
        .current_dir(b.cwd());
    let co_driver = first["co_driver"].as_str().unwrap();
    let (mut ana, ana_out, ana_err) =
        joined(ana_cmd, co_driver, &["--name", "ana", "--agent", "codex"]);
    let mut ana_in = ana.0.stdin.take().unwrap();
    let viewer_home = tempfile::tempdir().unwrap();
    let (_vic, vic_out, _vic_err) = joined(
        cohost(viewer_home.path()),
        first["viewer"].as_str().unwrap(),
        &["--name", "vic"],
    );

    // The host takes her agent in under a name that says whose it is.
    until(&host_out, &mut host_seen, "the guest member", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        let m = n["message"].as_str().unwrap_or_default();
        (n["notice"] == "room" && m.contains("brought codex into the room as codex@ana"))
            .then_some(())
    });
    let mut ana_said = Vec::new();
    until(&ana_err, &mut ana_said, "her admission", |l| {
        l.contains("as codex@ana").then_some(())
    });

    writeln!(
        stdin,
        "@codex@ana [[scenario:tool]] guest-marker-3 run the command"
    )
    .unwrap();
    // The call is hers to decide: she is asked, on her machine.
    let mut ana_seen = Vec::new();
    let asked = until(
        &ana_out,
        &mut ana_seen,
        "her agent's approval request",
        |l| frame_of(l, "ai.tool.approval_requested", "codex@ana"),
    );
    let tool = asked["payload"]["body"]["tool_id"]
        .as_str()
        .or_else(|| asked["payload"]["tool_id"].as_str())
        .unwrap_or_else(|| panic!("no tool id: {asked}"))
        .to_string();
    writeln!(ana_in, "/allow {tool}").unwrap();

    // The host sees the member's turn to its end, and was never asked.
    let mut host_events = Vec::new();
    until(&host_out, &mut host_seen, "codex@ana's turn end", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        assert_ne!(n["notice"], "approval_needed", "the host is not asked: {n}");
        if n["notice"] != "event" || n["event"]["agent"] != "codex@ana" {
            return None;
        }
        host_events.push(n["event"].clone());
        (n["event"]["type"] == "stream_end").then(|| n["event"].clone())
    });
    let end = host_events.last().unwrap();
    assert_eq!(end["reason"], "completed", "{host_events:#?}");
    assert!(
        host_events.iter().any(|e| e["type"] == "tool_executed"),
        "the host saw the call run: {host_events:#?}"
    );
    // It ran on her machine, in her directory; nothing of it on the host's.
    assert!(b.cwd().join("cohost_tool_output.txt").exists());
    assert!(!host_home.path().join("cohost_tool_output.txt").exists());
    let decided = host_events
        .iter()
        .find(|e| e["type"] == "tool_approval_decided")
        .unwrap_or_else(|| panic!("a decision: {host_events:#?}"));
    assert_eq!(decided["tool_id"], tool.as_str());
    // The viewer sees it too, under the member's name.
    let mut vic_seen = Vec::new();
    until(
        &vic_out,
        &mut vic_seen,
        "the viewer's view of the turn's end",
        |l| frame_of(l, "ai.stream.end", "codex@ana"),
    );
    // Her Codex asked the model on her machine.
    assert!(
        b.last_request_with("guest-marker-3").is_some(),
        "codex asked the fake model"
    );

    // Her credential reached none of the host, the viewer, the relay.
    let environ = std::fs::read(format!("/proc/{}/environ", host.0.id())).unwrap();
    let needle = secret.as_bytes();
    assert!(
        !environ.windows(needle.len()).any(|w| w == needle),
        "host environment"
    );
    for (what, lines) in [("host", &host_seen), ("viewer", &vic_seen)] {
        assert!(
            !lines.iter().any(|l| l.contains(&secret)),
            "{what}'s output"
        );
    }
    let frames = mitm.log();
    assert!(!frames.is_empty());
    for (_, _, f) in &frames {
        assert!(
            !f.bytes().windows(needle.len()).any(|w| w == needle),
            "a relay frame"
        );
    }

    // The room ends: her agent with it.
    writeln!(stdin, "/quit").unwrap();
    assert_eq!(exit_code(&mut ana), Some(0), "{ana_said:#?}");
}

#[test]
fn a_room_without_guest_agents_refuses_one_and_says_how() {
    let home = tempfile::tempdir().unwrap();
    let (_mitm, _relay, _host, host_out, first) = shared_behind_mitm(home.path(), &[]);
    let guest_home = tempfile::tempdir().unwrap();
    // `mock` is cohost's own demo agent: no CLI needed to offer it.
    let (mut ana, _out, err) = joined(
        cohost(guest_home.path()),
        first["co_driver"].as_str().unwrap(),
        &["--name", "ana", "--agent", "mock"],
    );
    let mut seen = Vec::new();
    until(&host_out, &mut seen, "the host's refusal", |l| {
        let n: Value = serde_json::from_str(l).unwrap_or_default();
        let m = n["message"].as_str().unwrap_or_default();
        (n["notice"] == "room" && m.contains("offered mock as a member; refused")).then_some(())
    });
    let mut said = Vec::new();
    until(&err, &mut said, "her refusal", |l| {
        (l.contains("did not take your agent") && l.contains("--guest-agents")).then_some(())
    });
    assert_ne!(exit_code(&mut ana), Some(0), "{said:#?}");
    // A viewer may not bring one at all.
    let (mut vic, _o, verr) = joined(
        cohost(guest_home.path()),
        first["viewer"].as_str().unwrap(),
        &["--name", "vic", "--agent", "mock"],
    );
    let mut vsaid = Vec::new();
    until(&verr, &mut vsaid, "the viewer's refusal", |l| {
        l.contains("a viewer cannot bring an agent").then_some(())
    });
    let _ = vic.0.wait();
}
