//! At a file-descriptor limit of 1,024, 1,100 idle unauthenticated TCP
//! connections do not lock participants out: the relay (a child process run
//! under `prlimit`) closes the oldest unauthenticated sockets to make room,
//! and a participant with a token joins and receives the stream.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use cohost_protocol::{ws_url, FrameType, Role};
use cohost_relay::auth::TokenAuthority;
use cohost_relay::Relay;
use common::*;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;

const CHILD_ENV: &str = "COHOST_RELAY_TEST_FD_CHILD";
const ROOM: &str = "fd";

/// The child half: a relay that prints its address and runs until killed.
/// Ignored in normal runs; the test below starts it under `prlimit`.
#[tokio::test]
#[ignore = "started by relay_under_fd_limit_still_admits_participants"]
async fn fd_limit_child_relay() {
    assert!(
        std::env::var_os(CHILD_ENV).is_some(),
        "run by relay_under_fd_limit_still_admits_participants, not on its own"
    );
    let h = Relay::bind(config()).await.unwrap();
    h.create_room(Some(ROOM)).unwrap();
    println!("LISTENING {}", h.local_addr());
    tokio::time::sleep(Duration::from_secs(600)).await;
}

fn mint(role: Role, name: &str) -> String {
    TokenAuthority::new(SECRET)
        .mint(ROOM, role, 3600, name)
        .unwrap()
        .0
}

async fn connect(url: &str, role: Role, name: &str) -> Result<Peer, (u16, String)> {
    let ws = try_connect_url(url, Some(&mint(role, name)), None).await?;
    Ok(Peer {
        ws,
        room: ROOM.to_string(),
    })
}

/// Raises this (parent) test process's soft descriptor limit to its hard
/// limit: it holds 1,100+ sockets itself, and CI may start it at 1,024.
fn raise_own_fd_limit() {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let cols: Vec<&str> = line.split_whitespace().collect();
    let (soft, hard) = (cols[3], cols[4]);
    if soft.parse::<u64>().is_ok_and(|s| s >= 4096) {
        return;
    }
    let hard_n = hard.parse::<u64>().unwrap_or(65_536).min(65_536);
    assert!(
        hard_n >= 2400,
        "the test needs ~2,400 descriptors; hard limit is {hard}"
    );
    let ok = std::process::Command::new("prlimit")
        .arg(format!("--pid={}", std::process::id()))
        .arg(format!("--nofile={hard_n}:{hard}"))
        .status()
        .unwrap()
        .success();
    assert!(
        ok,
        "could not raise this test's descriptor limit to {hard_n}"
    );
}

#[tokio::test]
async fn relay_under_fd_limit_still_admits_participants() {
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("prlimit (util-linux) is required for this test");
    }
    raise_own_fd_limit();
    let exe = std::env::current_exe().unwrap();
    let mut child = tokio::process::Command::new("prlimit")
        .arg("--nofile=1024:1024")
        .arg("--")
        .arg(exe)
        .args([
            "exhaustion::fd_limit_child_relay",
            "--exact",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr: std::net::SocketAddr = loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the child relay starts")
            .unwrap()
            .expect("the child relay prints its address");
        if let Some(a) = line.strip_prefix("LISTENING ") {
            break a.trim().parse().unwrap();
        }
    };
    let url = ws_url(&addr.to_string(), false, ROOM);
    let mut host = connect(&url, Role::Host, "hana").await.unwrap();
    host.recv_kind(FrameType::RoomWelcome).await;

    // 1,100 idle TCP connections that never send a byte.
    let idle = futures::future::join_all((0..1100).map(|_| async move {
        tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr))
            .await
            .ok()
            .and_then(Result::ok)
    }))
    .await;
    let idle: Vec<TcpStream> = idle.into_iter().flatten().collect();
    assert!(
        idle.len() > 1024,
        "only {} idle connections opened",
        idle.len()
    );
    // Connect the participant only once the relay has run out of
    // descriptors (else it could slip in before): it holds ~1,000, or it has
    // already started closing idle sockets to make room.
    let fds = format!("/proc/{}/fd", child.id().unwrap());
    let full = tokio::time::Instant::now() + Duration::from_secs(30);
    let closed_by_relay = |s: &TcpStream| match s.try_read(&mut [0u8; 1]) {
        Ok(_) => true,
        Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
    };
    while std::fs::read_dir(&fds).unwrap().count() < 1000 && !idle.iter().any(closed_by_relay) {
        assert!(
            tokio::time::Instant::now() < full,
            "the relay never reached its fd limit"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A participant with a token still gets in (retrying as a client does).
    let end = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut viewer = loop {
        match tokio::time::timeout(Duration::from_secs(5), connect(&url, Role::Viewer, "vic")).await
        {
            Ok(Ok(p)) => break p,
            other => {
                assert!(
                    tokio::time::Instant::now() < end,
                    "the viewer never got in: {:?}",
                    other.map(|r| r.err())
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    viewer.recv_kind(FrameType::RoomWelcome).await;
    viewer.resume(&BTreeMap::new()).await;
    for i in 0..20 {
        host.send(FrameType::StreamChunk, Some("s"), i, b"still served")
            .await;
    }
    viewer.read_stream_to("s", 19).await;
    // The host, authenticated before the flood, was never evicted, and the
    // relay still answers plain HTTP.
    host.send(FrameType::RoomPing, None, 0, b"p").await;
    host.recv_kind(FrameType::RoomPong).await;
    let (status, _) = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Ok(Ok(r)) = tokio::time::timeout(
                Duration::from_secs(5),
                tokio::spawn(http_get(addr, "/healthz")),
            )
            .await
            {
                return r;
            }
        }
    })
    .await
    .expect("/healthz answers under the flood");
    assert_eq!(status, 200);
    drop(idle);
    child.kill().await.unwrap();
}

/// A TCP connection that never sends a request is closed at the handshake
/// deadline; an authenticated participant on the same relay is not.
#[tokio::test]
async fn idle_unauthenticated_sockets_are_closed_at_the_handshake_deadline() {
    use tokio::io::AsyncReadExt;
    let h = relay_with(|c| c.limits.handshake_timeout = Duration::from_millis(300)).await;
    let room = h.create_room(Some("idle")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut idle = TcpStream::connect(h.local_addr()).await.unwrap();
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(5), idle.read(&mut buf))
        .await
        .expect("the relay closes an idle socket within the deadline");
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "closed, not answered: {read:?}"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    host.send(FrameType::RoomPing, None, 0, b"p").await;
    host.recv_kind(FrameType::RoomPong).await;
    let m = h.metrics_text();
    assert!(sample(&m, "cohost_relay_evictions_total") >= 1.0, "{m}");
}

/// At the total cap, a newcomer with a token displaces an idle socket.
#[tokio::test]
async fn at_the_connection_cap_an_idle_socket_makes_room() {
    let h = relay_with(|c| c.limits.max_connections = 3).await;
    let room = h.create_room(Some("cap")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let _idle1 = TcpStream::connect(h.local_addr()).await.unwrap();
    let _idle2 = TcpStream::connect(h.local_addr()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await; // let the relay accept them
    let mut v = join(&h, &room, Role::Viewer, "vic").await;
    host.send(FrameType::StreamChunk, Some("s"), 0, b"x").await;
    v.read_stream_to("s", 0).await;
    assert_eq!(h.participants(&room), 2);
}
