//! Nothing the relay logs contains a payload byte, and no relay code path decodes
//! an application payload. (The replay ring legitimately stores opaque payload
//! bytes so it can re-send them verbatim; it never inspects them.)
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

// The `it` binary compiles the same module and flags what nothing uses;
// this one uses a part of it.
#[allow(dead_code, reason = "shared with the it binary, which checks it whole")]
mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cohost_protocol::{FrameType, Role};
use cohost_relay::{ClientConfig, MemoryBroker, RelayClient};
use common::*;
use futures::SinkExt;

const MARKER: &str = "SECRET-PAYLOAD-MARKER-7f3a";

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_never_contain_payload_bytes() {
    let cap = Capture::default();
    let writer = cap.clone();
    // Everything at TRACE except the WebSocket library's own frame dumps, which
    // the relay documents must stay off (see `cohost_relay::LOG_DIRECTIVES`).
    let filter =
        tracing_subscriber::EnvFilter::new(format!("trace,{}", cohost_relay::LOG_DIRECTIVES));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .init();

    // Two nodes on one in-memory broker, so broker paths are exercised too.
    let broker = Arc::new(MemoryBroker::default());
    let b1 = broker.clone();
    let b2 = broker.clone();
    let n1 = relay_with(|c| c.broker = Some(b1)).await;
    let n2 = relay_with(|c| c.broker = Some(b2)).await;
    let room = n1.create_room(Some("logs")).unwrap();
    n2.create_room(Some("logs")).unwrap();
    let mut host = join(&n1, &room, Role::Host, "hana").await;
    let mut co = join(&n1, &room, Role::CoDriver, "cody").await;
    let mut viewer = join(&n2, &room, Role::Viewer, "vic").await;
    host.recv_kind(FrameType::PresenceJoin).await;
    host.recv_kind(FrameType::PresenceJoin).await;

    let m = MARKER.as_bytes();
    co.send(FrameType::SuggestPrompt, None, 0, m).await;
    host.recv_kind(FrameType::PromptSuggested).await;
    viewer.send(FrameType::SuggestPrompt, None, 0, m).await; // forbidden
    viewer.recv_kind(FrameType::RoomError).await;
    viewer.send(FrameType::ChatMessage, None, 0, m).await;
    host.recv_kind(FrameType::ChatMessage).await;
    viewer
        .send(
            FrameType::ChatMessage,
            None,
            0,
            &[m, &vec![b'x'; 20_000][..]].concat(),
        )
        .await; // oversize
    viewer.recv_kind(FrameType::RoomError).await;
    let mut malformed = m.to_vec();
    malformed.insert(0, 1);
    viewer
        .ws
        .send(tokio_tungstenite::tungstenite::Message::Binary(
            malformed.into(),
        ))
        .await
        .expect("send");
    viewer.recv_kind(FrameType::RoomError).await;
    for i in 0..5 {
        host.send(FrameType::StreamChunk, Some("s"), i, m).await;
    }
    host.send(FrameType::StreamChunk, Some("s"), 2, m).await; // out of order
    host.recv_kind(FrameType::RoomError).await;
    host.send(FrameType::RoomPing, None, 0, m).await;
    host.recv_kind(FrameType::RoomPong).await;
    for _ in 0..5 {
        viewer.recv_kind(FrameType::StreamChunk).await;
    }
    // Reconnecting library client with replay.
    let inv = n2.mint_invite(&room, Role::Viewer, 60, "lib").unwrap();
    let mut c = RelayClient::connect(ClientConfig::from_invite(&inv))
        .await
        .unwrap();
    c.drop_connection().await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    c.close().await;
    while c.recv().await.is_some() {}
    drop((host, co, viewer));
    n1.shutdown().await;
    n2.shutdown().await;
    tokio::time::sleep(Duration::from_millis(100)).await;

    let logs = String::from_utf8_lossy(&cap.0.lock().unwrap()).into_owned();
    assert!(
        logs.contains("frame refused: forbidden"),
        "logs were captured:\n{logs}"
    );
    assert!(logs.contains("ai.stream.chunk"), "header fields are logged");
    let leaks: Vec<String> = logs
        .lines()
        .filter(|l| l.contains(MARKER))
        .map(|l| l.chars().take(300).collect())
        .collect();
    assert!(
        leaks.is_empty(),
        "a payload byte sequence leaked into the logs: {leaks:#?}"
    );
}

#[test]
fn relay_source_never_decodes_application_payloads() {
    // Only `room.*`/`presence.*` control payloads may be decoded, and
    // `Frame::control` refuses any other frame type. Guard against new call sites
    // that would read payload bytes directly.
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut payload_reads = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(src)];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if line.contains(".payload()") || line.contains("serde_json::from_") {
                    let context = lines[i.saturating_sub(6)..=i].join(" ");
                    payload_reads.push(format!("{}:{}: {}", path.display(), i + 1, context));
                }
            }
        }
    }
    // The one allowed site: echoing a ping's payload back, byte for byte.
    assert_eq!(
        payload_reads.len(),
        1,
        "unexpected payload access: {payload_reads:#?}"
    );
    assert!(payload_reads[0].contains("RoomPong"), "{payload_reads:#?}");
}
