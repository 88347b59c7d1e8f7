//! The desktop sink on a real D-Bus: a private session bus (Debian's
//! dbus-daemon, started here on a socket in a temp dir, never the user's
//! bus), a small org.freedesktop.Notifications server on it (zbus), and the
//! sink's Notify call arriving there with the notice's title and body.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cohost_core::{EndReason, Event, EventBody};
use cohost_notify::{DesktopSink, Notice, NoticeKind, Notifier, Sink};
use tokio::io::AsyncBufReadExt;

/// A private bus; the daemon is killed when this is dropped.
struct Bus {
    address: String,
    _daemon: tokio::process::Child,
    _dir: tempfile::TempDir,
}

async fn private_bus() -> Option<Bus> {
    let dir = tempfile::tempdir().unwrap();
    let listen = format!("unix:path={}", dir.path().join("bus").display());
    let spawned = tokio::process::Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--nosyslog", "--print-address=1"])
        .arg(format!("--address={listen}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn();
    let mut daemon = match spawned {
        Ok(d) => d,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "dbus-daemon is needed in CI (scripts/test.sh installs it): {e}"
            );
            eprintln!("SKIPPED: no dbus-daemon ({e}); apt-get install dbus-daemon");
            return None;
        }
    };
    let out = daemon.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(out).lines();
    let address = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("dbus-daemon printed its address")
        .unwrap()
        .expect("an address line");
    Some(Bus {
        address: address.trim().to_owned(),
        _daemon: daemon,
        _dir: dir,
    })
}

/// What the notification server was asked to show.
#[derive(Debug, Clone)]
struct Shown {
    app: String,
    summary: String,
    body: String,
    urgency: Option<u8>,
}

struct Server {
    shown: Arc<Mutex<Vec<Shown>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        _actions: Vec<String>,
        hints: HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let urgency = hints.get("urgency").and_then(|v| u8::try_from(v).ok());
        let mut shown = self.shown.lock().unwrap();
        shown.push(Shown {
            app: app_name,
            summary,
            body,
            urgency,
        });
        shown.len() as u32
    }
}

async fn server(bus: &Bus) -> (zbus::Connection, Arc<Mutex<Vec<Shown>>>) {
    let shown = Arc::new(Mutex::new(Vec::new()));
    let conn = zbus::connection::Builder::address(bus.address.as_str())
        .unwrap()
        .name("org.freedesktop.Notifications")
        .unwrap()
        .serve_at(
            "/org/freedesktop/Notifications",
            Server {
                shown: shown.clone(),
            },
        )
        .unwrap()
        .build()
        .await
        .unwrap();
    (conn, shown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notification_service_on_a_private_bus_sees_the_notice() {
    let Some(bus) = private_bus().await else {
        return;
    };
    let (_conn, shown) = server(&bus).await;
    let notifier =
        Notifier::new(crate::shapes_only()).with_sink(DesktopSink::at(bus.address.clone()));
    let mut end = Event {
        id: "p.9".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: Some("codex".into()),
        body: EventBody::StreamEnd {
            reason: EndReason::Error,
            usage: None,
        },
    };
    notifier.event(&end, "ignored");
    end.body = EventBody::StreamEnd {
        reason: EndReason::Completed,
        usage: None,
    };
    notifier.event(&end, "ignored");
    let deadline = Instant::now() + Duration::from_secs(10);
    while shown.lock().unwrap().len() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let shown = shown.lock().unwrap().clone();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[0].app, "cohost");
    assert_eq!(shown[0].summary, "cohost: codex failed");
    assert_eq!(shown[0].body, "the turn failed");
    assert_eq!(shown[0].urgency, Some(2), "a failure is critical");
    assert_eq!(shown[1].summary, "cohost: codex is done");
    assert_eq!(shown[1].urgency, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_service_on_the_bus_is_an_error_not_a_hang() {
    let Some(bus) = private_bus().await else {
        return;
    };
    let mut sink = DesktopSink::at(bus.address.clone());
    let n = Notice::new(&crate::shapes_only(), NoticeKind::ApprovalNeeded, "t", "b");
    let err = tokio::time::timeout(Duration::from_secs(10), sink.deliver(&n))
        .await
        .expect("an answer from the bus")
        .unwrap_err();
    assert!(err.contains("notification service"), "{err}");
}
