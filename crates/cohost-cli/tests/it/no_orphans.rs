//! Issue 13: whatever ends `cohost run` (SIGINT, SIGTERM, SIGHUP, SIGKILL),
//! no process of the agent's tree survives; a turn ends when the agent
//! exits even if a background child keeps its stdout. Processes are found
//! by a marker in their environment, never by name.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::orphans_support;

use orphans_support::{
    cohost, exit_within, live_marked, no_marked_within, signal, tree_plugin, wait_for,
};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Start the tree plugin on a long turn, wait until its whole tree runs,
/// send `sig`, and check the exit code and that nothing marked survives.
fn signal_ends_the_whole_tree(sig: i32, want_code: Option<i32>) {
    let rig = tree_plugin();
    let mut child = cohost(&rig.dir)
        .args(["run", "--agent", "tree", "--approve", "all", "long"])
        .spawn()
        .unwrap();
    // sh, three background children (one in its group, one ignoring
    // INT/TERM/HUP, one in its own session), the foreground sleep, and the
    // supervisor: all carry the marker.
    assert!(
        wait_for(Duration::from_secs(20), || live_marked(&rig.marker).len()
            >= 6),
        "the agent's tree never came up: {:?}",
        live_marked(&rig.marker)
    );
    let sent = Instant::now();
    signal(child.id(), sig);
    let status = exit_within(&mut child, Duration::from_secs(5))
        .unwrap_or_else(|| panic!("cohost still runs 5 s after signal {sig}"));
    let took = sent.elapsed();
    if let Some(code) = want_code {
        assert_eq!(status.code(), Some(code), "exit code after signal {sig}");
        assert!(
            took < Duration::from_secs(3),
            "signal {sig}: exit took {took:?}"
        );
    }
    no_marked_within(&rig.marker, Duration::from_secs(2));
}

#[test]
fn sigint_ends_the_plugin_tree() {
    signal_ends_the_whole_tree(libc::SIGINT, Some(130));
}

#[test]
fn sigterm_ends_the_plugin_tree() {
    signal_ends_the_whole_tree(libc::SIGTERM, Some(143));
}

#[test]
fn sighup_ends_the_plugin_tree() {
    signal_ends_the_whole_tree(libc::SIGHUP, Some(129));
}

#[test]
fn sigkill_of_cohost_ends_the_plugin_tree() {
    signal_ends_the_whole_tree(libc::SIGKILL, None);
}

#[test]
fn agent_exit_ends_the_turn_although_a_child_holds_stdout() {
    let rig = tree_plugin();
    let mut child = cohost(&rig.dir)
        .args(["run", "--agent", "tree", "--approve", "all", "bg"])
        .spawn()
        .unwrap();
    let status = exit_within(&mut child, Duration::from_secs(15))
        .expect("cohost must not wait for the background child's pipe");
    let ended = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    assert_eq!(status.code(), Some(0));
    let exited_ns: u128 = std::fs::read_to_string(rig.dir.path().join("exited"))
        .expect("the agent wrote when it exited")
        .trim()
        .parse()
        .unwrap();
    let after_exit =
        Duration::from_nanos(u64::try_from(ended.as_nanos().saturating_sub(exited_ns)).unwrap());
    assert!(
        after_exit < Duration::from_secs(2),
        "the turn ended {after_exit:?} after the agent exited"
    );
    no_marked_within(&rig.marker, Duration::from_secs(2));
}

/// The supervisor shrugs off INT/TERM/HUP/QUIT so it outlives cohost, but
/// the agent must get them at their defaults (else an interrupt or a
/// terminal hang-up would not reach it), with nothing blocked. SIGPIPE too:
/// Rust ignores it in cohost and the supervisor, a shell pipeline in the
/// agent needs it back (`yes | head` would never end).
#[test]
fn the_agent_starts_with_default_signals() {
    let rig = tree_plugin();
    let mut child = cohost(&rig.dir)
        .args(["run", "--agent", "tree", "--approve", "all", "signals"])
        .spawn()
        .unwrap();
    let status = exit_within(&mut child, Duration::from_secs(15)).expect("cohost ends");
    assert_eq!(status.code(), Some(0));
    let masks = std::fs::read_to_string(rig.dir.path().join("signals"))
        .expect("the agent recorded its signal masks");
    let mask = |name: &str| {
        let line = masks
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in {masks:?}"));
        u64::from_str_radix(line[name.len()..].trim(), 16).unwrap()
    };
    let ignored = mask("SigIgn:");
    for sig in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
    ] {
        assert_eq!(
            ignored & (1 << (sig - 1)),
            0,
            "signal {sig} is ignored in the agent: {masks:?}"
        );
    }
    assert_eq!(mask("SigBlk:"), 0, "the agent starts with signals blocked");
}

mod claude {
    use super::orphans_support::{live_with_env, signal, wait_for};
    use cohost_testbench::{AgentCli, Bench};
    use std::time::Duration;

    /// `cohost run --agent claude` on a slow streamed answer, ended by `sig`.
    async fn signal_ends_claude(sig: i32, want_code: Option<i32>) {
        let Ok(bench) = Bench::start(AgentCli::Claude).await else {
            panic!("the test bench could not start");
        };
        if bench.bin_path(AgentCli::Claude).is_none() {
            assert!(
                !cohost_testbench::on_ci(),
                "claude is not installed (tests/agents/install.sh)"
            );
            eprintln!("SKIPPED: claude is not installed in ~/.cache/cohost-agents");
            return;
        }
        // The scratch HOME is unique to this bench and every process of the
        // agent inherits it: that is the marker.
        let home = bench.home().display().to_string();
        let mut cmd = bench.command_for(
            env!("CARGO_BIN_EXE_cohost"),
            [
                "run",
                "--agent",
                "claude",
                "--approve",
                "all",
                "go slow [[scenario:slow]]",
            ],
        );
        cmd.kill_on_drop(false).process_group(0);
        let mut child = cmd.spawn().unwrap();
        let pid = child.id().unwrap();
        let streaming = wait_for(Duration::from_secs(60), || {
            !bench.model_requests().is_empty()
                && live_with_env("HOME", &home)
                    .iter()
                    .any(|p| p.comm.contains("claude"))
        });
        assert!(streaming, "claude never reached the fake model");
        signal(pid, sig);
        let status = tokio::time::timeout(Duration::from_secs(5), child.wait())
            .await
            .unwrap_or_else(|_| panic!("cohost still runs 5 s after signal {sig}"))
            .unwrap();
        if let Some(code) = want_code {
            assert_eq!(status.code(), Some(code), "exit code after signal {sig}");
        }
        let gone = wait_for(Duration::from_secs(2), || {
            live_with_env("HOME", &home).is_empty()
        });
        let left = live_with_env("HOME", &home);
        assert!(gone, "survivors 2 s after cohost ended: {left:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sigint_ends_claude() {
        signal_ends_claude(libc::SIGINT, Some(130)).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sigterm_ends_claude() {
        signal_ends_claude(libc::SIGTERM, Some(143)).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sighup_ends_claude() {
        signal_ends_claude(libc::SIGHUP, Some(129)).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sigkill_of_cohost_ends_claude() {
        signal_ends_claude(libc::SIGKILL, None).await;
    }
}
