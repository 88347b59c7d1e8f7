//! Relay nodes sharing a real Redis: replay comes from Redis Streams on a
//! node that never saw the stream, a trimmed history answers with a resync
//! rather than a silent hole, rooms and invites work through any node, and a
//! drained node closes its sockets with 1001 after flushing what it received.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use cohost_protocol::{FrameType, Role};
use cohost_relay::broker::HistoryBounds;
use cohost_relay::{RedisBroker, RelayHandle};
use common::redis_server::redis;
use common::*;
use futures::StreamExt;
use tokio_tungstenite::tungstenite::Message;

async fn node(url: &str, prefix: &str, bounds: HistoryBounds) -> RelayHandle {
    node_with(url, prefix, bounds, |_| {}).await
}

async fn node_with(
    url: &str,
    prefix: &str,
    bounds: HistoryBounds,
    f: impl FnOnce(&mut cohost_relay::RelayConfig),
) -> RelayHandle {
    let broker = Arc::new(
        RedisBroker::connect_with(url, prefix, bounds)
            .await
            .expect("redis broker"),
    );
    relay_with(|c| {
        c.broker = Some(broker);
        f(c);
    })
    .await
}

fn prefix(test: &str) -> String {
    format!("cohost-test-{}-{test}", std::process::id())
}

/// Streams `n` chunks from a host on `h` and waits until they are all in the
/// shared history: a viewer on node `w` sees them live, and a frame's XADD
/// precedes its PUBLISH.
async fn stream(h: &RelayHandle, w: &RelayHandle, room: &str, n: u64) -> Peer {
    w.create_room(Some(room)).unwrap();
    let mut host = join(h, room, Role::Host, "hana").await;
    let mut witness = join(w, room, Role::Viewer, "wit").await;
    for _ in 0..100 {
        host.send(FrameType::ChatMessage, None, 0, b"probe").await;
        if witness
            .next_within(Duration::from_millis(100))
            .await
            .is_some()
        {
            break;
        }
    }
    for i in 0..n {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    witness.read_stream_to("s", n - 1).await;
    host
}

/// A viewer on `h` that resumed stream `s` after chunk `last` (all of it
/// with `None`).
async fn resumed(h: &RelayHandle, room: &str, t: &str, last: Option<u64>) -> Peer {
    let mut p = try_connect(h, room, t).await.unwrap();
    p.recv_kind(FrameType::RoomWelcome).await;
    let held = last.map(|l| BTreeMap::from([("s".to_string(), l)]));
    p.resume(&held.unwrap_or_default()).await;
    p
}

/// Reads chunks of stream `s` until `last`; returns their indexes and
/// whether a resync came first.
async fn read_all(p: &mut Peer, last: u64) -> (Vec<u64>, bool) {
    let (mut got, mut resync) = (Vec::new(), false);
    while got.last() != Some(&last) {
        let f = p.recv().await;
        match f.kind() {
            FrameType::StreamChunk => got.push(f.chunk()),
            FrameType::RoomResync => resync = true,
            _ => {}
        }
    }
    (got, resync)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_never_saw_the_stream_replays_it_from_redis() {
    let Some(server) = redis().await else { return };
    let p = prefix("fresh");
    let n1 = node(&server.url, &p, HistoryBounds::default()).await;
    let w = node(&server.url, &p, HistoryBounds::default()).await;
    let room = n1.create_room(Some("hist")).unwrap();
    let _host = stream(&n1, &w, &room, 1000).await;
    let t = token(&n1, &room, Role::Viewer, "late");
    // Started after the whole stream: its own ring saw nothing of it.
    let n2 = node(&server.url, &p, HistoryBounds::default()).await;
    let mut late = resumed(&n2, &room, &t, None).await;
    let (got, resync) = read_all(&mut late, 999).await;
    assert!(!resync, "the shared history holds every chunk");
    assert_eq!(got, (0..1000).collect::<Vec<_>>(), "every chunk, in order");

    // A participant that holds part of it gets only the rest.
    let mut part = resumed(&n2, &room, &t, Some(900)).await;
    let (got, resync) = read_all(&mut part, 999).await;
    assert!(!resync);
    assert_eq!(got, (901..1000).collect::<Vec<_>>());
    let metrics = n2.metrics_text();
    assert!(sample(&metrics, "cohost_relay_history_frames_total") >= 1000.0);
    let lag = sample(&n1.metrics_text(), "cohost_relay_broker_lag_seconds");
    assert!(
        lag > 0.0 && lag < 5.0,
        "node 1 published through Redis: lag {lag} s"
    );
    n1.shutdown().await;
    w.shutdown().await;
    n2.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trimmed_history_answers_with_a_resync_not_a_hole() {
    let Some(server) = redis().await else { return };
    let p = prefix("trim");
    let bounds = HistoryBounds {
        max_frames: 50,
        max_age: Duration::from_secs(600),
    };
    let n1 = node(&server.url, &p, bounds).await;
    let w = node(&server.url, &p, bounds).await;
    let room = n1.create_room(Some("trim")).unwrap();
    let _host = stream(&n1, &w, &room, 200).await;
    let t = token(&n1, &room, Role::Viewer, "late");
    let n2 = node(&server.url, &p, bounds).await;

    // From the start: the first 150 chunks are gone from the history.
    let mut late = resumed(&n2, &room, &t, None).await;
    let (got, resync) = read_all(&mut late, 199).await;
    assert!(resync, "chunks the history lost are reported");
    assert_eq!(
        got,
        (150..200).collect::<Vec<_>>(),
        "what it holds, in order"
    );

    // Holding chunk 180: nothing is missing, no resync.
    let mut near = resumed(&n2, &room, &t, Some(180)).await;
    let (got, resync) = read_all(&mut near, 199).await;
    assert!(!resync);
    assert_eq!(got, (181..200).collect::<Vec<_>>());
    n1.shutdown().await;
    w.shutdown().await;
    n2.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_reads_no_more_history_than_its_ring_holds() {
    let Some(server) = redis().await else { return };
    let p = prefix("bytes");
    let n1 = node(&server.url, &p, HistoryBounds::default()).await;
    let w = node(&server.url, &p, HistoryBounds::default()).await;
    let room = n1.create_room(Some("bytes")).unwrap();
    let _host = stream(&n1, &w, &room, 1000).await;
    let t = token(&n1, &room, Role::Viewer, "late");
    // A ring of 16 KiB: the node reads about that much of the newest history.
    let small = node_with(&server.url, &p, HistoryBounds::default(), |c| {
        c.limits.ring_max_bytes = 16 * 1024;
    })
    .await;
    let mut late = resumed(&small, &room, &t, None).await;
    let (got, resync) = read_all(&mut late, 999).await;
    assert!(
        resync,
        "the older chunks are announced, not silently skipped"
    );
    assert!(
        got.len() < 1000 && got.len() > 10,
        "a ring's worth: {}",
        got.len()
    );
    let first = got[0];
    assert_eq!(
        got,
        (first..1000).collect::<Vec<_>>(),
        "the newest chunks, in order"
    );
    n1.shutdown().await;
    w.shutdown().await;
    small.shutdown().await;
}

fn admin(h: &RelayHandle, path: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer admin-test-secret-0123456789abcdef\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        h.local_addr(),
        body.len()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_created_through_one_node_mints_invites_through_the_other() {
    let Some(server) = redis().await else { return };
    let p = prefix("rooms");
    let n1 = node(&server.url, &p, HistoryBounds::default()).await;
    let n2 = node(&server.url, &p, HistoryBounds::default()).await;
    let (status, body) = http(
        n1.local_addr(),
        &admin(&n1, "/admin/rooms", r#"{"room":"shared-room"}"#),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let invite = r#"{"role":"VIEWER","ttl_secs":600,"name":"vic"}"#;
    let (status, body) = http(
        n2.local_addr(),
        &admin(&n2, "/admin/rooms/shared-room/invites", invite),
    )
    .await;
    assert_eq!(status, 201, "node 2 knows the room node 1 created: {body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    // The invite works on node 1 as well (one JWT secret for the cluster).
    let mut viewer = try_connect(&n1, "shared-room", v["token"].as_str().unwrap())
        .await
        .unwrap();
    viewer.recv_kind(FrameType::RoomWelcome).await;
    let (status, _) = http(
        n2.local_addr(),
        &admin(&n2, "/admin/rooms/never-made/invites", invite),
    )
    .await;
    assert_eq!(status, 404, "a room no node created stays unknown");
    n1.shutdown().await;
    n2.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drained_node_closes_with_1001_and_its_viewers_resume_elsewhere() {
    let Some(server) = redis().await else { return };
    let p = prefix("drain");
    let n1 = node(&server.url, &p, HistoryBounds::default()).await;
    let n2 = node(&server.url, &p, HistoryBounds::default()).await;
    let room = n1.create_room(Some("drain")).unwrap();
    n2.create_room(Some("drain")).unwrap();
    let mut host = join(&n1, &room, Role::Host, "hana").await;
    let mut viewer = join(&n2, &room, Role::Viewer, "vic").await;
    for i in 0..50u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    viewer.read_stream_to("s", 19).await;
    let drain = tokio::spawn(n2.shutdown());
    let code = loop {
        match tokio::time::timeout(WAIT, viewer.ws.next()).await.unwrap() {
            Some(Ok(Message::Close(c))) => break c.map(|c| u16::from(c.code)),
            Some(Ok(_)) => continue,
            other => panic!("expected a close frame, got {other:?}"),
        }
    };
    assert_eq!(code, Some(1001), "going away: reconnect at once");
    drain.await.unwrap();
    for i in 50..60u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    // It reconnects to the other node and resumes from what it held.
    let t = token(&n1, &room, Role::Viewer, "vic");
    let mut again = resumed(&n1, &room, &t, Some(19)).await;
    let (got, resync) = read_all(&mut again, 59).await;
    assert!(!resync);
    assert_eq!(got, (20..60).collect::<Vec<_>>());
    n1.shutdown().await;
}
