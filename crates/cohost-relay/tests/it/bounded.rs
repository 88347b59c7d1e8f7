//! Bounded by design: stalled readers are disconnected, replays are paced to
//! the reader, floods of resumes and refused frames are cut off, large chunks
//! go out live.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use cohost_protocol::{FrameType, Role, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX};
use cohost_relay::RelayHandle;
use common::*;
use futures::StreamExt;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;

/// Makes sure the relay processed everything `p` sent (pings are answered in order).
async fn settle(p: &mut Peer) {
    p.send(FrameType::RoomPing, None, 0, b"p").await;
    p.recv_kind(FrameType::RoomPong).await;
}

/// A viewer that joins, resumes, then never reads again, on a socket with a
/// tiny receive buffer (so it stalls after a little data, cheaply).
async fn stalled_viewer(h: &RelayHandle, room: &str, name: &str) -> Peer {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let tcp = sock.connect(h.local_addr()).await.unwrap();
    let mut req = h.ws_url(room).into_client_request().unwrap();
    let t = token(h, room, Role::Viewer, name);
    req.headers_mut().insert(
        "sec-websocket-protocol",
        HeaderValue::from_str(&format!("{SUBPROTOCOL}, {TOKEN_SUBPROTOCOL_PREFIX}{t}")).unwrap(),
    );
    let tcp = tokio_tungstenite::MaybeTlsStream::Plain(tcp);
    let (ws, _) = tokio_tungstenite::client_async(req, tcp).await.unwrap();
    let mut p = Peer {
        ws,
        room: room.to_string(),
    };
    p.recv_kind(FrameType::RoomWelcome).await;
    p.resume(&BTreeMap::new()).await;
    p
}

/// Reads until the relay's Close: (close code, binary messages, their bytes).
async fn read_until_close(p: &mut Peer) -> (Option<u16>, usize, usize) {
    let (mut n, mut bytes) = (0, 0);
    loop {
        match tokio::time::timeout(WAIT, p.ws.next()).await {
            Ok(Some(Ok(Message::Binary(b)))) => (n, bytes) = (n + 1, bytes + b.len()),
            Ok(Some(Ok(Message::Close(c)))) => return (c.map(|c| u16::from(c.code)), n, bytes),
            Ok(Some(Ok(_))) => {}
            other => panic!("no close frame: {other:?}"),
        }
    }
}

#[tokio::test]
async fn late_joiner_with_more_than_4_mib_in_the_ring_gets_everything_and_stays_connected() {
    let h = relay().await;
    let room = h.create_room(Some("late")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let chunk = vec![3u8; 60 * 1024];
    let n = 100u64; // ~6 MB: over the 4 MiB outbox limit, under the 8 MiB ring
    for i in 0..n {
        host.send(FrameType::StreamChunk, Some("s"), i, &chunk)
            .await;
    }
    settle(&mut host).await;
    let mut late = join(&h, &room, Role::Viewer, "late").await;
    let gaps = late.read_stream_to("s", n - 1).await;
    assert_eq!(gaps, 0, "a replay is paced, never gapped");
    // Still connected: the next live chunk arrives.
    host.send(FrameType::StreamChunk, Some("s"), n, b"live")
        .await;
    assert_eq!(late.recv_kind(FrameType::StreamChunk).await.chunk(), n);
    assert_eq!(h.participants(&room), 2);
}

#[tokio::test]
async fn forty_stalled_viewers_are_disconnected_while_a_reader_gets_every_chunk() {
    let h = relay_with(|c| {
        c.limits.write_timeout = Duration::from_secs(2);
        c.limits.ring_max_bytes = 64 * 1024 * 1024;
    })
    .await;
    let room = h.create_room(Some("stall")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut stalled = Vec::new();
    for i in 0..40 {
        stalled.push(stalled_viewer(&h, &room, &format!("idle{i}")).await);
    }
    let mut reader = join(&h, &room, Role::Viewer, "reader").await;
    assert_eq!(h.participants(&room), 42);
    let n = 128u64; // 8 MB
    let read = tokio::spawn(async move {
        let gaps = reader.read_stream_to("s", n - 1).await;
        (reader, gaps)
    });
    let chunk = vec![5u8; 64 * 1024];
    for i in 0..n {
        host.send(FrameType::StreamChunk, Some("s"), i, &chunk)
            .await;
    }
    settle(&mut host).await;
    let (mut reader, _gaps) = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the reading viewer gets every chunk")
        .unwrap();
    let end = tokio::time::Instant::now() + Duration::from_secs(30);
    while h.participants(&room) > 2 && tokio::time::Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        h.participants(&room),
        2,
        "only the host and the reader remain"
    );
    let m = h.metrics_text();
    assert_eq!(
        sample(&m, "cohost_relay_slow_consumer_disconnects_total"),
        40.0
    );
    // The reader is still served.
    host.send(FrameType::StreamChunk, Some("s"), n, b"after")
        .await;
    assert_eq!(reader.recv_kind(FrameType::StreamChunk).await.chunk(), n);
    drop(stalled);
}

#[tokio::test]
async fn a_large_chunk_is_delivered_live() {
    let h = relay().await;
    let room = h.create_room(Some("big")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut v = join(&h, &room, Role::Viewer, "vic").await;
    host.recv_kind(FrameType::PresenceJoin).await;
    let big = vec![9u8; 900 * 1024]; // over the 256 KiB soft limit, under the 1 MiB frame limit
    host.send(FrameType::StreamChunk, Some("s"), 0, &big).await;
    let f = loop {
        let f = v.recv().await;
        assert_ne!(f.kind(), FrameType::RoomGap, "a large chunk went to a gap");
        if f.kind() == FrameType::StreamChunk {
            break f;
        }
    };
    assert_eq!(f.payload().len(), big.len());
}

#[tokio::test]
async fn a_resume_flood_is_bounded_and_closed_with_4429() {
    let h = relay().await;
    let room = h.create_room(Some("amp")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let chunk = vec![1u8; 16 * 1024];
    for i in 0..50 {
        host.send(FrameType::StreamChunk, Some("s"), i, &chunk)
            .await;
    }
    settle(&mut host).await;
    let mut v = join(&h, &room, Role::Viewer, "flood").await;
    let sent = 1000;
    for _ in 0..sent {
        v.resume(&BTreeMap::new()).await;
    }
    let (code, _, received) = read_until_close(&mut v).await;
    assert_eq!(code, Some(4429));
    let ring = 50 * chunk.len();
    // Before: every resume replayed the whole ring (1,000 x 800 KB).
    assert!(
        received < 10 * ring,
        "{received} bytes pulled back by {sent} resumes of a {ring}-byte ring"
    );
}

#[tokio::test]
async fn a_flood_of_refused_frames_draws_few_replies_and_is_closed_with_4429() {
    let h = relay().await;
    let room = h.create_room(Some("junk")).unwrap();
    let mut v = join(&h, &room, Role::Viewer, "mallory").await;
    for i in 0..2000 {
        v.send(FrameType::StreamChunk, Some("s"), i, b"forged")
            .await;
    }
    let (code, errors, _) = read_until_close(&mut v).await;
    assert_eq!(code, Some(4429));
    assert!(errors <= 60, "{errors} error replies to one flooder");
}
