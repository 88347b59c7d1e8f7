//! Supervisor tests with real `sh` children.

use super::*;
use crate::provider::Catalog;
use std::time::Duration;
use tokio::sync::mpsc;

fn sh(script: &str) -> ProcessSpec {
    ProcessSpec::new("test", "/bin/sh", Catalog::EMPTY)
        .arg("-c")
        .arg(script)
}

async fn collect(rx: &mut mpsc::Receiver<Frame>) -> Vec<Frame> {
    let mut out = Vec::new();
    while let Ok(Some(f)) = tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
        out.push(f);
    }
    out
}

fn lines(frames: &[Frame]) -> Vec<String> {
    frames
        .iter()
        .filter_map(|f| match f {
            Frame::Line(l) => Some(l.clone()),
            Frame::Oversized { .. } => None,
        })
        .collect()
}

/// Poll until `cond` holds, at most 3 s.
async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..300 {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cond()
}

#[tokio::test]
async fn child_sees_only_the_narrow_environment() {
    // Names unique to this test; Rust's env access is internally locked.
    std::env::set_var("COHOST_SUPERVISOR_CANARY", "leaked");
    std::env::set_var("ZZTESTVENDOR_SETTING", "passed");
    let mut spec = sh("env");
    spec.env = EnvPolicy::with_prefixes(["ZZTESTVENDOR_"]);
    spec.env
        .set("EXPLICIT_ONE", "yes")
        .set("HOME", "/tmp/scratch-home");
    let mut child = Supervised::spawn(spec).unwrap();
    let mut rx = child.take_stdout().unwrap();
    let env = lines(&collect(&mut rx).await);
    assert!(
        !env.iter().any(|l| l.contains("COHOST_SUPERVISOR_CANARY")),
        "canary leaked: {env:?}"
    );
    assert!(
        env.contains(&"ZZTESTVENDOR_SETTING=passed".to_string()),
        "{env:?}"
    );
    assert!(env.contains(&"EXPLICIT_ONE=yes".to_string()));
    assert!(env.contains(&"HOME=/tmp/scratch-home".to_string()));
    for l in &env {
        let name = l.split('=').next().unwrap_or_default();
        let allowed = ALLOWED_NAMES.contains(&name)
            || ALLOWED_PREFIXES.iter().any(|p| name.starts_with(p))
            || name.starts_with("ZZTESTVENDOR_")
            // Set by sh itself.
            || ["EXPLICIT_ONE", "PWD", "SHLVL", "_", "OLDPWD"].contains(&name);
        assert!(allowed, "unexpected variable in child: {l}");
    }
}

#[tokio::test]
async fn kill_takes_the_whole_group_including_grandchildren() {
    let mut child =
        Supervised::spawn(sh("sleep 60 & (sleep 61 & wait) & echo ready; wait")).unwrap();
    let mut rx = child.take_stdout().unwrap();
    assert_eq!(rx.recv().await, Some(Frame::Line("ready".into())));
    let pgid = child.pid() as i32;
    assert!(
        eventually(|| procfs::live_group_members(pgid).len() >= 4).await,
        "sh, sleep, subshell and its sleep should run: {:?}",
        procfs::live_group_members(pgid)
    );
    assert!(live_groups().contains(&pgid));
    let info = child.kill().await.expect("leader reaped");
    assert_eq!(info.signal, Some(libc::SIGKILL));
    assert!(
        eventually(|| procfs::live_group_members(pgid).is_empty()).await,
        "survivors: {:?}",
        procfs::live_group_members(pgid)
    );
    assert!(!live_groups().contains(&pgid));
}

#[tokio::test]
async fn drop_kills_the_group() {
    let child = Supervised::spawn(sh("sleep 60 & sleep 60 & wait")).unwrap();
    let pgid = child.pid() as i32;
    assert!(eventually(|| procfs::live_group_members(pgid).len() >= 3).await);
    drop(child);
    assert!(
        eventually(|| procfs::live_group_members(pgid).is_empty()).await,
        "survivors: {:?}",
        procfs::live_group_members(pgid)
    );
}

#[tokio::test]
async fn registry_kill_all_kills_registered_groups() {
    let child = Supervised::spawn(sh("sleep 60 & wait")).unwrap();
    let pgid = child.pid() as i32;
    let registry = GroupRegistry::new();
    registry.register(pgid);
    assert_eq!(registry.kill_all(), 1);
    assert!(registry.groups().is_empty());
    assert_eq!(
        child
            .wait_exit(Duration::from_secs(3))
            .await
            .and_then(|i| i.signal),
        Some(libc::SIGKILL)
    );
    assert!(eventually(|| procfs::live_group_members(pgid).is_empty()).await);
    assert_eq!(registry.kill_all(), 0, "nothing left to kill");
}

#[tokio::test]
async fn terminate_uses_sigterm_first() {
    let mut child = Supervised::spawn(sh(
        "trap 'echo got-term; exit 7' TERM; echo up; while :; do sleep 0.05; done",
    ))
    .unwrap();
    let mut rx = child.take_stdout().unwrap();
    assert_eq!(rx.recv().await, Some(Frame::Line("up".into())));
    let info = child.terminate(Duration::from_secs(2)).await.unwrap();
    assert_eq!(info.code, Some(7), "{info}");
    assert_eq!(rx.recv().await, Some(Frame::Line("got-term".into())));
}

#[tokio::test]
async fn sigint_reaches_the_group_and_exit_is_reported() {
    let child = Supervised::spawn(sh("exec sleep 60")).unwrap();
    assert!(child.is_alive());
    assert!(child.signal(GroupSignal::Interrupt).unwrap());
    let info = child.wait_exit(Duration::from_secs(3)).await.unwrap();
    assert_eq!(info.signal, Some(libc::SIGINT));
    assert_eq!(info.to_string(), "killed by signal 2 (SIGINT)");
    let code = Supervised::spawn(sh("exit 3")).unwrap();
    let info = code.wait_exit(Duration::from_secs(3)).await.unwrap();
    assert_eq!((info.code, info.success()), (Some(3), false));
}

#[tokio::test]
async fn huge_line_through_a_pipe_is_dropped_and_reading_continues() {
    // 17 MiB of 'x' on one line, between two good lines.
    let child_script = "echo first; head -c 17825792 /dev/zero | tr '\\0' x; echo; echo after";
    let mut child = Supervised::spawn(sh(child_script)).unwrap();
    let mut rx = child.take_stdout().unwrap();
    let frames = collect(&mut rx).await;
    assert_eq!(
        frames,
        vec![
            Frame::Line("first".into()),
            Frame::Oversized { bytes: 17_825_792 },
            Frame::Line("after".into())
        ]
    );
    let e = oversized_line_error("test", 17_825_792);
    assert_eq!(e.code, cohost_core::ErrorCode::InvalidOutput);
}

#[tokio::test]
async fn invalid_utf8_and_truncated_last_line() {
    let mut child = Supervised::spawn(sh("printf 'ok\\n\\377bad\\n{\"partial\":'")).unwrap();
    let mut rx = child.take_stdout().unwrap();
    assert_eq!(
        lines(&collect(&mut rx).await),
        vec!["ok", "\u{fffd}bad", "{\"partial\":"]
    );
}

#[tokio::test]
async fn stderr_ring_is_bounded_and_keeps_the_last_words() {
    let mut spec = sh(
        "i=0; while [ $i -lt 3000 ]; do echo \"noise line $i\" >&2; i=$((i+1)); done; \
         echo 'API Error: 401 invalid x-api-key' >&2; exit 1",
    );
    spec.stderr_bytes = 1024;
    let child = Supervised::spawn(spec).unwrap();
    let info = child.settle(Duration::from_secs(10)).await.unwrap();
    assert_eq!(info.code, Some(1));
    let text = child.stderr_text();
    assert!(text.len() <= 1024, "{}", text.len());
    assert!(
        text.ends_with("API Error: 401 invalid x-api-key\n"),
        "{text}"
    );
    assert_eq!(
        classify_stderr(&child.stderr_tail(1)),
        Some(cohost_core::ErrorCode::AuthRequired)
    );
    let report = child.crash_report();
    assert!(
        report.starts_with("agent `test` exited with code 1: "),
        "{report}"
    );
}

#[tokio::test]
async fn stdin_lines_round_trip_and_closed_pipe_is_crash() {
    let mut child = Supervised::spawn(ProcessSpec::new("cat", "/bin/cat", Catalog::EMPTY)).unwrap();
    let mut rx = child.take_stdout().unwrap();
    let stdin = child.stdin();
    stdin.write_line("{\"a\":1}").await.unwrap();
    stdin.clone().write_line("two").await.unwrap();
    assert_eq!(rx.recv().await, Some(Frame::Line("{\"a\":1}".into())));
    assert_eq!(rx.recv().await, Some(Frame::Line("two".into())));
    child.kill().await;
    // The first write after death may land in the pipe buffer; a few must fail.
    let mut failed = None;
    for _ in 0..10 {
        if let Err(e) = stdin.write_line("late").await {
            failed = Some(e);
            break;
        }
    }
    assert_eq!(
        failed.map(|e| e.code),
        Some(cohost_core::ErrorCode::ProcessCrashed)
    );
}

#[tokio::test]
async fn spawn_failure_is_typed() {
    let e = Supervised::spawn(ProcessSpec::new(
        "test",
        "/nonexistent/agent",
        Catalog::EMPTY,
    ))
    .unwrap_err();
    assert_eq!(e.code, cohost_core::ErrorCode::SpawnFailed);
}

#[tokio::test]
async fn leader_exit_ends_the_streams_although_a_child_holds_them() {
    // The background sleep inherits stdout and stderr and keeps both open
    // for a minute; the turn must not wait for it.
    let mut child =
        Supervised::spawn(sh("sleep 60 & echo last words; echo oops >&2; exit 0")).unwrap();
    let mut rx = child.take_stdout().unwrap();
    let start = std::time::Instant::now();
    let mut got = Vec::new();
    while let Ok(Some(f)) = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
        got.push(f);
    }
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "stdout stayed open {:?} after the leader exited",
        start.elapsed()
    );
    assert_eq!(lines(&got), vec!["last words".to_string()]);
    let info = child.settle(Duration::from_secs(2)).await;
    assert_eq!(info.map(|i| i.code), Some(Some(0)));
    assert!(
        child.stderr_text().contains("oops"),
        "stderr kept: {:?}",
        child.stderr_text()
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "stderr stayed open too"
    );
    let pgid = child.pid() as i32;
    drop(child);
    assert!(
        eventually(|| procfs::live_group_members(pgid).is_empty()).await,
        "the background child must die with the handle: {:?}",
        procfs::live_group_members(pgid)
    );
}
