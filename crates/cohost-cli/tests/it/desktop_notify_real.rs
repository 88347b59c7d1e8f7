//! Desktop notifications from the real binary (issue 34): `cohost run`
//! with the real pinned Claude Code against the fake model server, on a
//! private D-Bus session bus (Debian's dbus-daemon started here on a
//! socket in a temp dir, never the user's bus); `dbus-monitor` on that bus
//! sees cohost's `org.freedesktop.Notifications.Notify` call with the
//! turn's end, and never the prompt. Skips loudly when Claude Code or
//! dbus-daemon is missing, unless `CI` is set.

use std::process::Stdio;
use std::time::{Duration, Instant};

use cohost_testbench::{require_cli, skip_or_fail, AgentCli, Bench};
use tokio::io::AsyncBufReadExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_run_notifies_the_desktop_on_a_private_session_bus() {
    if require_cli(AgentCli::Claude).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let listen = format!("unix:path={}", dir.path().join("bus").display());
    let daemon = tokio::process::Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--nosyslog", "--print-address=1"])
        .arg(format!("--address={listen}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let mut daemon = match daemon {
        Ok(d) => d,
        Err(e) => {
            skip_or_fail(&format!("desktop notifications: no dbus-daemon ({e})"));
            return;
        }
    };
    let mut lines = tokio::io::BufReader::new(daemon.stdout.take().unwrap()).lines();
    let address = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("dbus-daemon printed its address")
        .unwrap()
        .expect("an address line");
    let mut monitor = tokio::process::Command::new("dbus-monitor")
        .args(["--address", address.trim()])
        .arg("type='method_call',interface='org.freedesktop.Notifications'")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut seen = tokio::io::BufReader::new(monitor.stdout.take().unwrap()).lines();
    // The monitor is in place once it has its name.
    let first = tokio::time::timeout(Duration::from_secs(10), seen.next_line())
        .await
        .expect("dbus-monitor started")
        .unwrap()
        .unwrap_or_default();
    assert!(first.contains("NameAcquired"), "{first}");

    let b = Bench::start(AgentCli::Claude).await.unwrap();
    let out = b
        .command_for(
            env!("CARGO_BIN_EXE_cohost"),
            [
                "run",
                "--agent",
                "claude",
                "[[scenario:text]] desktop-marker-4412 say hello",
            ],
        )
        .env("DBUS_SESSION_BUS_ADDRESS", address.trim())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(120), out)
        .await
        .expect("cohost run ends")
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The Notify call, as the bus carried it.
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !text.contains("the turn is done") && Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(200), seen.next_line()).await {
            Ok(Ok(Some(l))) => {
                text.push_str(&l);
                text.push('\n');
            }
            Ok(_) => break,
            Err(_) => {}
        }
    }
    assert!(text.contains("member=Notify"), "{text}");
    assert!(text.contains("string \"cohost\""), "the app name: {text}");
    assert!(text.contains("string \"cohost: claude is done\""), "{text}");
    assert!(text.contains("string \"the turn is done\""), "{text}");
    assert!(!text.contains("desktop-marker-4412"), "the prompt: {text}");
    // Nobody serves notifications on this bus: said once, the run went on.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .matches("desktop notifications are not getting through")
            .count()
            <= 1,
        "{stderr}"
    );
}
