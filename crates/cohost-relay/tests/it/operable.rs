//! Health, readiness and Prometheus metrics, scraped over HTTP while traffic flows.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use cohost_protocol::{FrameType, Role};
use common::*;

#[tokio::test]
async fn healthz_and_readyz_answer() {
    let h = relay().await;
    assert_eq!(
        http_get(h.local_addr(), "/healthz").await,
        (200, "ok".into())
    );
    assert_eq!(
        http_get(h.local_addr(), "/readyz").await,
        (200, "ready".into())
    );
}

#[tokio::test]
async fn metrics_move_with_the_traffic() {
    let h = relay().await;
    let addr = h.local_addr();
    let (status, before) = http_get(addr, "/metrics").await;
    assert_eq!(status, 200);
    assert_eq!(sample(&before, "cohost_relay_deliveries_total"), 0.0);
    assert_eq!(sample(&before, "cohost_relay_rooms"), 0.0);

    let room = h.create_room(Some("m")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut v = join(&h, &room, Role::Viewer, "vic").await;
    host.recv_kind(FrameType::PresenceJoin).await;
    for i in 0..10 {
        host.send(FrameType::StreamChunk, Some("s"), i, b"x").await;
    }
    v.read_stream_to("s", 9).await;
    // A refused frame, and a late joiner served from the ring.
    v.send(FrameType::StreamChunk, Some("s"), 10, b"forged")
        .await;
    v.recv_kind(FrameType::RoomError).await;
    let mut late = join(&h, &room, Role::Viewer, "late").await;
    late.read_stream_to("s", 9).await;
    // And a resume for a stream the ring never had (holding all of "s").
    late.resume(&[("gone".to_string(), 3), ("s".to_string(), 9)].into())
        .await;
    late.recv_kind(FrameType::RoomResync).await;

    let (_, m) = http_get(addr, "/metrics").await;
    assert_eq!(sample(&m, "cohost_relay_connections{role=\"host\"}"), 1.0);
    assert_eq!(sample(&m, "cohost_relay_connections{role=\"viewer\"}"), 2.0);
    assert_eq!(
        sample(&m, "cohost_relay_connections{role=\"unauthenticated\"}"),
        0.0
    );
    assert_eq!(sample(&m, "cohost_relay_rooms"), 1.0);
    // 10 chunks to the first viewer and 10 replayed to the late one, plus
    // welcomes, presence and the error.
    assert!(sample(&m, "cohost_relay_deliveries_total") >= 20.0, "{m}");
    assert_eq!(sample(&m, "cohost_relay_replay_hits_total"), 10.0, "{m}");
    assert_eq!(sample(&m, "cohost_relay_replay_misses_total"), 1.0, "{m}");
    assert_eq!(sample(&m, "cohost_relay_refused_frames_total"), 1.0, "{m}");
    assert!(m.contains("# TYPE cohost_relay_deliveries_total counter"));

    drop(v);
    let end = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, m) = http_get(addr, "/metrics").await;
        if sample(&m, "cohost_relay_connections{role=\"viewer\"}") == 1.0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < end,
            "a gone viewer stays counted:\n{m}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
