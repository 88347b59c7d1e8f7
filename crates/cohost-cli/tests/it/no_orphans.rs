//! Issue 13: whatever ends `cohost run` (SIGINT, SIGTERM, SIGHUP, SIGKILL),
//! no process of the agent's tree survives; a turn ends when the agent
//! exits even if a background child keeps its stdout. Processes are found
//! by a marker in their environment, never by name.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::orphans_support;

use cohost_agents::process::procfs::{live_with_env, ProcEntry};
use orphans_support::{exit_within, signal, tree_plugin, wait_for, MARK_VAR};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Start the tree plugin on a long turn, wait until its whole tree runs,
/// send `sig`, and check the exit code and that nothing marked survives.
fn signal_ends_the_whole_tree(sig: i32, want_code: Option<i32>) {
    signal_ends_the_whole_tree_of(Path::new(env!("CARGO_BIN_EXE_cohost")), sig, want_code);
}

/// [`signal_ends_the_whole_tree`] with the cohost binary at `bin`.
fn signal_ends_the_whole_tree_of(bin: &Path, sig: i32, want_code: Option<i32>) {
    let rig = tree_plugin();
    let mut child = cohost_at(bin, &rig.dir)
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
    let rig = signals_prompt(Path::new(env!("CARGO_BIN_EXE_cohost")));
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

/// Run the tree plugin's `signals` prompt (it records what it was started
/// with) under the cohost binary at `bin`, to its successful end.
fn signals_prompt(bin: &Path) -> orphans_support::TreeRig {
    let rig = tree_plugin();
    let mut child = cohost_at(bin, &rig.dir)
        .args(["run", "--agent", "tree", "--approve", "all", "signals"])
        .spawn()
        .unwrap();
    let status = exit_within(&mut child, Duration::from_secs(15)).expect("cohost ends");
    assert_eq!(status.code(), Some(0));
    rig
}

/// Run the `signals` prompt under the cohost binary at `bin`; returns the
/// supervisor's executable and name, as the agent saw them.
fn supervisor_of_an_agent(bin: &Path) -> (String, String) {
    let rig = signals_prompt(bin);
    let parent = std::fs::read_to_string(rig.dir.path().join("parent"))
        .expect("the agent recorded its parent");
    let mut lines = parent.lines().map(str::to_string);
    (
        lines.next().unwrap_or_default(),
        lines.next().unwrap_or_default(),
    )
}

/// Every agent spawn waits for its supervisor to start, so cohost uses the
/// small `cohost-supervise` from its own directory, not itself.
#[test]
fn agents_run_below_the_small_supervisor_program() {
    let (exe, name) = supervisor_of_an_agent(Path::new(env!("CARGO_BIN_EXE_cohost")));
    let small = Path::new(env!("CARGO_BIN_EXE_cohost-supervise"));
    assert_eq!(
        std::fs::canonicalize(&exe).ok(),
        std::fs::canonicalize(small).ok(),
        "the agent's parent runs {exe:?}"
    );
    assert_eq!(name, cohost_supervisor::PROCESS_NAME);
}

/// A `cohost` installed without `cohost-supervise` beside it supervises
/// with itself (`cohost __supervise`), and still leaves no orphan.
#[test]
fn without_the_supervisor_program_cohost_supervises_itself() {
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("cohost");
    let original = Path::new(env!("CARGO_BIN_EXE_cohost"));
    if std::fs::hard_link(original, &alone).is_err() {
        std::fs::copy(original, &alone).unwrap();
    }
    let (exe, name) = supervisor_of_an_agent(&alone);
    assert_eq!(
        std::fs::canonicalize(&exe).ok(),
        std::fs::canonicalize(&alone).ok(),
        "the agent's parent runs {exe:?}"
    );
    assert_eq!(name, cohost_supervisor::PROCESS_NAME);
    signal_ends_the_whole_tree_of(&alone, libc::SIGKILL, None);
}

/// A `cohost-supervise` that cannot supervise (another build's, beside a
/// `cohost` run with `cargo run`; here a script, which cannot even start
/// through `/proc/self/fd`) is passed over at once: cohost supervises with
/// itself.
#[test]
fn a_supervisor_program_that_cannot_supervise_is_passed_over() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("cohost");
    let original = Path::new(env!("CARGO_BIN_EXE_cohost"));
    if std::fs::hard_link(original, &bin).is_err() {
        std::fs::copy(original, &bin).unwrap();
    }
    // Answers as a supervisor of protocol 0 would, on its stdin (the socket).
    let stale = dir.path().join("cohost-supervise");
    std::fs::write(&stale, "#!/bin/sh\nprintf 'V 0\\n' >&0\nexit 2\n").unwrap();
    std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o755)).unwrap();
    let started = Instant::now();
    let (exe, _) = supervisor_of_an_agent(&bin);
    assert_eq!(
        std::fs::canonicalize(&exe).ok(),
        std::fs::canonicalize(&bin).ok(),
        "the agent's parent runs {exe:?}"
    );
    // Not after the supervisor start-up timeout (10 s).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
}

/// The real `cohost-supervise`, asked in another protocol, says which one
/// it speaks on the control socket instead of starting anything.
#[test]
fn the_supervisor_program_names_its_protocol_when_asked_in_another() {
    use std::io::Read;
    use std::os::unix::net::UnixStream;
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_cohost-supervise"))
        .args([cohost_supervisor::SUPERVISE_ARG, "0", "/bin/true"])
        .stdin(std::process::Stdio::from(std::os::fd::OwnedFd::from(
            theirs,
        )))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
    let mut said = String::new();
    ours.read_to_string(&mut said).unwrap();
    assert_eq!(said, format!("V {}\n", cohost_supervisor::PROTOCOL));
}

mod claude {
    use super::live_with_env;
    use super::orphans_support::{signal, wait_for};
    use cohost_testbench::{AgentCli, Bench};
    use std::time::Duration;

    /// `cohost run --agent claude` on a slow streamed answer, ended by `sig`.
    async fn signal_ends_claude(sig: i32, want_code: Option<i32>) {
        if cohost_testbench::require_cli(AgentCli::Claude).is_none() {
            return;
        }
        let Ok(bench) = Bench::start(AgentCli::Claude).await else {
            panic!("the test bench could not start");
        };
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

/// `cohost` in `dir` with a scratch HOME and a PATH of system tools only.
pub fn cohost(dir: &tempfile::TempDir) -> Command {
    cohost_at(Path::new(env!("CARGO_BIN_EXE_cohost")), dir)
}

/// [`cohost`], but the binary at `bin` (a copy without its supervisor
/// program beside it, say).
pub fn cohost_at(bin: &Path, dir: &tempfile::TempDir) -> Command {
    let mut c = Command::new(bin);
    c.env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir.path().join("home"))
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Live processes carrying the tree plugin's marker.
pub fn live_marked(marker: &str) -> Vec<ProcEntry> {
    live_with_env(MARK_VAR, marker)
}

/// Panic (after killing them) unless every marked process is gone within `limit`.
pub fn no_marked_within(marker: &str, limit: Duration) {
    if wait_for(limit, || live_marked(marker).is_empty()) {
        return;
    }
    let left = live_marked(marker);
    for p in &left {
        signal(p.pid, libc::SIGKILL);
    }
    panic!("{} process(es) outlived cohost: {left:?}", left.len());
}
