//! Host + co-driver + viewer in one room, over real WebSockets on loopback.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use cohost_protocol::{ErrorCode, ErrorPayload, FrameType, Resync, Role, Welcome};
use cohost_relay::{ClientConfig, ClientEvent, RelayClient};
use common::*;

#[tokio::test]
async fn suggest_reaches_host_viewer_suggest_is_refused_and_chunks_arrive_in_order() {
    let h = relay().await;
    let room = h.create_room(Some("flow")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut co = join(&h, &room, Role::CoDriver, "cody").await;
    let mut viewer = join(&h, &room, Role::Viewer, "vic").await;

    // Co-driver suggests: the host gets prompt_suggested, stamped with the co-driver's role.
    co.send(FrameType::SuggestPrompt, None, 0, b"refactor to async")
        .await;
    let s = host.recv_kind(FrameType::PromptSuggested).await;
    assert_eq!(s.role(), Some(Role::CoDriver));
    assert_ne!(s.sender(), 0);
    assert_eq!(&s.payload()[..], b"refactor to async");

    // Viewer suggests: refused with room.error, not delivered.
    viewer
        .send(FrameType::SuggestPrompt, None, 0, b"viewer idea")
        .await;
    let e = viewer.recv_kind(FrameType::RoomError).await;
    let p: ErrorPayload = e.control().unwrap();
    assert_eq!(p.code, ErrorCode::Forbidden);
    assert_eq!(p.frame_type.as_deref(), Some("ai.request.suggest_prompt"));
    host.assert_no(FrameType::PromptSuggested, Duration::from_millis(300))
        .await;

    // Host streams: both participants get every chunk in order.
    host.send(FrameType::ExecutionStarted, Some("st1"), 0, b"")
        .await;
    for i in 1..=50u64 {
        host.send(
            FrameType::StreamChunk,
            Some("st1"),
            i,
            format!("chunk {i}").as_bytes(),
        )
        .await;
    }
    host.send(FrameType::StreamEnd, Some("st1"), 51, b"").await;
    for p in [&mut co, &mut viewer] {
        let started = p.recv_kind(FrameType::ExecutionStarted).await;
        assert_eq!(started.role(), Some(Role::Host));
        for i in 1..=50u64 {
            let f = p.recv_kind(FrameType::StreamChunk).await;
            assert_eq!((f.stream(), f.chunk()), (Some("st1"), i));
            assert_eq!(f.payload(), format!("chunk {i}").into_bytes());
        }
        assert_eq!(p.recv_kind(FrameType::StreamEnd).await.chunk(), 51);
    }
    h.shutdown().await;
}

#[tokio::test]
async fn welcome_and_presence_are_sent() {
    let h = relay().await;
    let room = h.create_room(Some("presence")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let t = token(&h, &room, Role::Viewer, "vic");
    let mut v = try_connect(&h, &room, &t).await.unwrap();
    let w: Welcome = v.recv_kind(FrameType::RoomWelcome).await.control().unwrap();
    assert_eq!(w.you.role, Role::Viewer);
    assert_eq!(w.participants.len(), 2);
    let j: cohost_protocol::Participant = host
        .recv_kind(FrameType::PresenceJoin)
        .await
        .control()
        .unwrap();
    assert_eq!(j.name, "vic");
    drop(v);
    let l: cohost_protocol::Participant = host
        .recv_kind(FrameType::PresenceLeave)
        .await
        .control()
        .unwrap();
    assert_eq!(l.conn_id, j.conn_id);
}

#[tokio::test]
async fn participant_reconnecting_mid_stream_misses_no_chunk() {
    let h = relay().await;
    let room = h.create_room(Some("resume")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let inv = h.mint_invite(&room, Role::Viewer, 3600, "vic").unwrap();
    let mut cfg = ClientConfig::from_invite(&inv);
    cfg.initial_backoff = Duration::from_millis(50);
    let mut viewer = RelayClient::connect(cfg).await.unwrap();
    let mut got = Vec::new();
    // Wait until the viewer is in (welcome), then stream part one.
    loop {
        if let Some(ClientEvent::Welcome(_)) =
            tokio::time::timeout(WAIT, viewer.recv()).await.unwrap()
        {
            break;
        }
    }
    host.recv_kind(FrameType::PresenceJoin).await;
    tokio::time::sleep(Duration::from_millis(100)).await; // let the client's resume land
    for i in 0..20u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    while got.len() < 20 {
        if let Some(ClientEvent::Frame(f)) =
            tokio::time::timeout(WAIT, viewer.recv()).await.unwrap()
        {
            if f.kind() == FrameType::StreamChunk {
                got.push(f.chunk());
            }
        }
    }
    // Network drop; the host keeps streaming while the viewer is away.
    viewer.drop_connection().await;
    host.recv_kind(FrameType::PresenceLeave).await;
    for i in 20..40u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    let mut reconnected = false;
    while got.len() < 40 {
        match tokio::time::timeout(WAIT, viewer.recv()).await.unwrap() {
            Some(ClientEvent::Frame(f)) if f.kind() == FrameType::StreamChunk => {
                got.push(f.chunk());
            }
            Some(ClientEvent::Welcome(_)) => {
                reconnected = true;
                // Live chunks while the replay is in flight.
                for i in 40..45u64 {
                    host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
                        .await;
                }
            }
            Some(ClientEvent::Resync(r)) => panic!("unexpected resync {r:?}"),
            _ => {}
        }
    }
    while got.len() < 45 {
        if let Some(ClientEvent::Frame(f)) =
            tokio::time::timeout(WAIT, viewer.recv()).await.unwrap()
        {
            got.push(f.chunk());
        }
    }
    assert!(reconnected);
    assert_eq!(got, (0..45).collect::<Vec<_>>());
}

#[tokio::test]
async fn resync_when_the_ring_no_longer_holds_the_missed_chunks() {
    let h = relay_with(|c| c.limits.ring_max_frames = 10).await;
    let room = h.create_room(Some("resync")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    for i in 0..30u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, b"x").await;
    }
    // Make sure the relay processed them (ping is answered in order).
    host.send(FrameType::RoomPing, None, 0, b"p").await;
    host.recv_kind(FrameType::RoomPong).await;
    let t = token(&h, &room, Role::Viewer, "vic");
    let mut v = try_connect(&h, &room, &t).await.unwrap();
    v.recv_kind(FrameType::RoomWelcome).await;
    // Still held: last index 25 -> 26..29 replayed, no resync.
    v.resume(&BTreeMap::from([("s".to_string(), 25)])).await;
    for i in 26..30 {
        assert_eq!(v.recv_kind(FrameType::StreamChunk).await.chunk(), i);
    }
    // Evicted: last index 3 -> explicit resync.
    v.resume(&BTreeMap::from([("s".to_string(), 3)])).await;
    let r: Resync = v.recv_kind(FrameType::RoomResync).await.control().unwrap();
    assert_eq!(r.streams, vec!["s".to_string()]);
}

#[tokio::test]
async fn slow_consumer_gets_a_gap_and_recovers_every_chunk_by_resuming() {
    let h = relay_with(|c| {
        c.limits.outbox_soft_bytes = 64 * 1024;
        c.limits.outbox_hard_bytes = 64 * 1024 * 1024;
        c.limits.ring_max_bytes = 256 * 1024 * 1024;
    })
    .await;
    let room = h.create_room(Some("slow")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut v = join(&h, &room, Role::Viewer, "slowpoke").await;
    host.recv_kind(FrameType::PresenceJoin).await;
    let big = vec![7u8; 60 * 1024];
    let n = 500u64; // ~30 MB: more than loopback socket buffers hold
    for i in 0..n {
        host.send(FrameType::StreamChunk, Some("s"), i, &big).await;
    }
    host.send(FrameType::RoomPing, None, 0, b"p").await;
    host.recv_kind(FrameType::RoomPong).await;
    // Now read: chunks in order, a gap, then resume from our last index.
    let gaps = v.read_stream_to("s", n - 1).await;
    assert!(gaps >= 1, "a slow consumer must see a room.gap");
}
