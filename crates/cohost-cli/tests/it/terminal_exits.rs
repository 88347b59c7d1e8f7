//! Issue 13: terminal prompts never block an exit. In a pseudo-terminal, an
//! approval that reaches its deadline ends the turn and cohost exits without
//! a key press; `cohost share` exits on `/quit` and on a second Ctrl+C.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::orphans_support;

use cohost_agents::drivers::pty::{PtyChild, PtyOutput};
use cohost_agents::process::EnvPolicy;
use orphans_support::{exit_within, signal, wait_for};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_deadline_in_a_terminal_exits_without_a_key_press() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = EnvPolicy::default();
    env.set("PATH", "/usr/local/bin:/usr/bin:/bin")
        .set("HOME", dir.path().display().to_string())
        .set("NO_COLOR", "1")
        .set("TERM", "dumb");
    let args: Vec<std::ffi::OsString> = [
        "run",
        "--agent",
        "mock",
        "--approve",
        "ask",
        "--approval-timeout",
        "1",
        "[mock:tool] write the file",
    ]
    .iter()
    .map(Into::into)
    .collect();
    let cwd = dir.path().to_path_buf();
    let (mut child, mut rx) = PtyChild::spawn(
        "cohost",
        &PathBuf::from(env!("CARGO_BIN_EXE_cohost")),
        &args,
        &env,
        Some(&cwd),
    )
    .unwrap();
    let mut screen = Vec::new();
    let start = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(15), async {
        while let Some(out) = rx.recv().await {
            match out {
                PtyOutput::Bytes(b) => screen.extend_from_slice(&b),
                PtyOutput::Closed => return,
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&screen).into_owned();
    assert!(
        closed.is_ok(),
        "cohost still holds the terminal {:?} after starting (waiting for a key?):\n{text}",
        start.elapsed()
    );
    let mut status = None;
    for _ in 0..100 {
        status = child.exit_status();
        if status.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(status.is_some(), "cohost did not exit:\n{text}");
    assert!(text.contains("allow"), "the question was asked:\n{text}");
    assert!(text.contains("Deadline"), "the deadline denied it:\n{text}");
}

/// `cohost share` on the mock, with an embedded relay, stdin piped.
fn share(dir: &tempfile::TempDir) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_cohost"))
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir.path())
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .args(["share", "--agent", "mock"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Collect a pipe into a shared buffer on a thread.
fn drain(pipe: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let buf = Arc::new(Mutex::new(String::new()));
    let out = buf.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            let mut b = out.lock().unwrap();
            b.push_str(&line);
            b.push('\n');
        }
    });
    buf
}

fn has(buf: &Arc<Mutex<String>>, needle: &str) -> bool {
    buf.lock().unwrap().contains(needle)
}

/// `cohost share` started and past its banner: (child, stdout, stderr).
fn started_share(
    dir: &tempfile::TempDir,
) -> (std::process::Child, Arc<Mutex<String>>, Arc<Mutex<String>>) {
    let mut child = share(dir);
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    assert!(
        wait_for(Duration::from_secs(20), || has(&out, "Sharing")),
        "share never started: {}",
        err.lock().unwrap()
    );
    (child, out, err)
}

/// Wait for `child` to exit and check it took under 2.5 s since `sent`.
fn quits_soon(child: &mut std::process::Child, sent: Instant, what: &str) -> Option<i32> {
    let status = exit_within(child, Duration::from_secs(5));
    assert!(status.is_some(), "share still runs 5 s after {what}");
    assert!(
        sent.elapsed() < Duration::from_millis(2500),
        "share took {:?} to quit after {what}",
        sent.elapsed()
    );
    status.and_then(|s| s.code())
}

#[test]
fn share_exits_on_quit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, _out, _err) = started_share(&dir);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"/quit\n").unwrap();
    stdin.flush().unwrap();
    let code = quits_soon(&mut child, Instant::now(), "/quit");
    assert_eq!(code, Some(0));
    drop(stdin);
}

#[test]
fn idle_share_exits_on_the_second_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, _out, err) = started_share(&dir);
    let _stdin = child.stdin.take();
    signal(child.id(), libc::SIGINT);
    assert!(
        wait_for(Duration::from_secs(5), || has(&err, "Ctrl+C again")),
        "the first Ctrl+C was not acknowledged: {}",
        err.lock().unwrap()
    );
    signal(child.id(), libc::SIGINT);
    let code = quits_soon(&mut child, Instant::now(), "the second Ctrl+C");
    assert_eq!(code, Some(130));
}
