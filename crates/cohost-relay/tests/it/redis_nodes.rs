//! Two relay nodes over a real Redis: frames cross nodes, and a killed pub/sub
//! connection is recovered and resubscribed.
//!
//! Uses `COHOST_TEST_REDIS_URL` if set; otherwise starts its own `redis-server`
//! on a free loopback port in a temp dir. Without redis-server: fails when `CI`
//! is set, skips with a loud notice otherwise.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use cohost_protocol::{FrameType, Role};
use cohost_relay::{RedisBroker, RelayHandle};
use common::redis_server::redis;
use common::*;

async fn node(url: &str, prefix: &str) -> RelayHandle {
    let broker = Arc::new(
        RedisBroker::connect(url, prefix)
            .await
            .expect("redis broker"),
    );
    relay_with(|c| c.broker = Some(broker)).await
}

/// Sends chat probes from `from` until `to` sees one (subscriptions are async).
async fn wait_linked(from: &mut Peer, to: &mut Peer) {
    for _ in 0..100 {
        from.send(FrameType::ChatMessage, None, 0, b"probe").await;
        if let Some(f) = to.next_within(Duration::from_millis(100)).await {
            if f.kind() == FrameType::ChatMessage {
                return;
            }
        }
    }
    panic!("nodes never linked through redis");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_deliver_across_redis_and_survive_a_killed_subscription() {
    let Some(server) = redis().await else { return };
    let prefix = format!("cohost-test-{}", std::process::id());
    let n1 = node(&server.url, &prefix).await;
    let n2 = node(&server.url, &prefix).await;
    let room = n1.create_room(Some("xnode")).unwrap();
    n2.create_room(Some("xnode")).unwrap();

    let mut host = join(&n1, &room, Role::Host, "hana").await;
    let mut viewer = join(&n2, &room, Role::Viewer, "vic").await;
    let mut co = join(&n2, &room, Role::CoDriver, "cody").await;
    wait_linked(&mut host, &mut viewer).await;
    wait_linked(&mut co, &mut host).await;

    // Co-driver on node 2 -> host on node 1.
    co.send(FrameType::SuggestPrompt, None, 0, b"cross-node idea")
        .await;
    let s = host.recv_kind(FrameType::PromptSuggested).await;
    assert_eq!(s.role(), Some(Role::CoDriver));
    viewer
        .assert_no(FrameType::PromptSuggested, Duration::from_millis(200))
        .await;
    // What a participant sends the hosts reaches the host across nodes and
    // nobody else, not even a participant on the sender's node.
    viewer
        .send(FrameType::KeyAnnounce, None, 0, b"viewer's key")
        .await;
    co.send(FrameType::ApprovalVote, None, 0, b"co-driver's vote")
        .await;
    co.send(FrameType::InterruptRequest, None, 0, b"stop").await;
    // Two senders: no order between their frames.
    let mut to_host = vec![
        FrameType::KeyAnnounce,
        FrameType::ApprovalVote,
        FrameType::InterruptRequest,
    ];
    while !to_host.is_empty() {
        let kind = host.recv().await.kind();
        to_host.retain(|k| *k != kind);
    }
    for p in [&mut viewer, &mut co] {
        for kind in [
            FrameType::KeyAnnounce,
            FrameType::ApprovalVote,
            FrameType::InterruptRequest,
        ] {
            p.assert_no(kind, Duration::from_millis(200)).await;
        }
    }

    // Host on node 1 -> viewer and co-driver on node 2, in order.
    for i in 0..100u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    for p in [&mut viewer, &mut co] {
        for i in 0..100u64 {
            assert_eq!(p.recv_kind(FrameType::StreamChunk).await.chunk(), i);
        }
    }

    // Node 2 recorded what it saw via the broker: a reconnecting viewer resumes there.
    let t = token(&n1, &room, Role::Viewer, "vic2");
    let mut late = try_connect(&n2, &room, &t).await.unwrap();
    late.recv_kind(FrameType::RoomWelcome).await;
    late.resume(&BTreeMap::from([("s".to_string(), 89)])).await;
    for i in 90..100u64 {
        assert_eq!(late.recv_kind(FrameType::StreamChunk).await.chunk(), i);
    }

    // Kill every pub/sub connection; nodes must resubscribe and tell clients.
    let client = redis::Client::open(server.url.as_str()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    let killed: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("pubsub")
        .query_async(&mut c)
        .await
        .unwrap();
    assert!(killed >= 2, "killed {killed} pubsub connections");
    viewer.recv_kind(FrameType::RoomResync).await;
    wait_linked(&mut host, &mut viewer).await;
    for i in 100..110u64 {
        host.send(FrameType::StreamChunk, Some("s"), i, &i.to_be_bytes())
            .await;
    }
    for i in 100..110u64 {
        assert_eq!(viewer.recv_kind(FrameType::StreamChunk).await.chunk(), i);
    }
    n1.shutdown().await;
    n2.shutdown().await;
}

/// `POST /admin/rooms/{room}/kick` with `{"conn_id": conn}` on node `n`.
async fn admin_kick(n: &RelayHandle, room: &str, conn: u64) -> (u16, String) {
    let body = format!("{{\"conn_id\":{conn}}}");
    http(
        n.local_addr(),
        &format!(
            "POST /admin/rooms/{room}/kick HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer admin-test-secret-0123456789abcdef\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
    .await
}

/// The close code `peer` is disconnected with (within 10 s).
async fn close_code(peer: &mut Peer) -> u16 {
    use futures::StreamExt;
    tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(Ok(m)) = peer.ws.next().await {
            if let tokio_tungstenite::tungstenite::Message::Close(Some(c)) = m {
                return u16::from(c.code);
            }
        }
        0
    })
    .await
    .expect("disconnected within 10 s")
}

/// `token` is refused as revoked by node `n` (it learns through Redis, in
/// the background, so a few tries).
async fn assert_refused(n: &RelayHandle, room: &str, token: &str) {
    let mut refused = None;
    for _ in 0..50 {
        match try_connect(n, room, token).await {
            Err(e) => {
                refused = Some(e);
                break;
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let (status, why) = refused.expect("the revoked token is refused");
    assert_eq!(status, 401);
    assert!(why.contains("revoked"), "{why}");
}

/// Two nodes on one Redis sharing a room; a host on node 1 and a viewer on
/// node 1 or 2, as the host's presence shows it.
struct KickScene {
    _server: common::redis_server::RedisServer,
    n1: RelayHandle,
    n2: RelayHandle,
    room: String,
    host: Peer,
    vtoken: String,
    viewer: Peer,
    who: cohost_protocol::Participant,
}

async fn kick_scene(name: &str, viewer_on_second: bool) -> Option<KickScene> {
    let server = redis().await?;
    let prefix = format!("cohost-test-{name}-{}", std::process::id());
    let n1 = node(&server.url, &prefix).await;
    let n2 = node(&server.url, &prefix).await;
    let room = n1.create_room(Some(name)).unwrap();
    n2.create_room(Some(name)).unwrap();
    let mut host = join(&n1, &room, Role::Host, "hana").await;
    let vtoken = token(&n1, &room, Role::Viewer, "vic");
    let at = if viewer_on_second { &n2 } else { &n1 };
    let viewer = try_connect(at, &room, &vtoken).await.unwrap();
    let who = host
        .recv_kind(FrameType::PresenceJoin)
        .await
        .control()
        .unwrap();
    Some(KickScene {
        _server: server,
        n1,
        n2,
        room,
        host,
        vtoken,
        viewer,
        who,
    })
}

/// Kick through the admin API on one node: the participant is disconnected
/// (close 4403) and its token is refused on every node sharing the Redis.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kicked_token_is_refused_on_every_node() {
    let Some(mut k) = kick_scene("kick", false).await else {
        return;
    };
    let KickScene {
        n1,
        n2,
        room,
        vtoken,
        viewer,
        who,
        ..
    } = &mut k;
    let (status, answer) = admin_kick(n1, room, who.conn_id).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("revoked"), "{answer}");
    assert_eq!(
        close_code(viewer).await,
        4403,
        "the kicked participant is disconnected"
    );
    for n in [&n1, &n2] {
        assert_refused(n, room, vtoken).await;
    }
    // Another token of the same room still works.
    let _ok = join(n2, room, Role::Viewer, "vera").await;
}

/// The admin API of one node, asked to kick a participant connected to
/// another (relays behind a load balancer, the admin reaching any node):
/// 202, forwarded; that node closes the connection and revokes the token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_kick_reaches_a_participant_on_another_node() {
    let Some(mut k) = kick_scene("akick", true).await else {
        return;
    };
    let KickScene {
        n1,
        room,
        vtoken,
        viewer,
        who,
        ..
    } = &mut k;
    let (status, answer) = admin_kick(n1, room, who.conn_id).await;
    assert_eq!(status, 202, "{answer}");
    assert!(answer.contains("\"forwarded\":true"), "{answer}");
    assert_eq!(
        close_code(viewer).await,
        4403,
        "the kicked participant is disconnected"
    );
    assert_refused(n1, room, vtoken).await;
    // An id no node minted answers 404 on its own node.
    let (status, _) = admin_kick(n1, room, (n1.node_id() & !0xffff_ffff_ffff) | 0xfff0).await;
    assert_eq!(status, 404);
}

/// The host's own `room.kick` for a participant connected to another node
/// (relays behind a load balancer): that node closes the connection (4403)
/// and the token is refused everywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_kicks_a_participant_on_another_node() {
    let Some(mut k) = kick_scene("xkick", true).await else {
        return;
    };
    let KickScene {
        n1,
        room,
        host,
        vtoken,
        viewer,
        who,
        ..
    } = &mut k;
    assert_ne!(
        who.conn_id >> 48,
        n1.node_id() >> 48,
        "the viewer's connection belongs to node 2"
    );
    let kick = cohost_protocol::Frame::control_frame(
        FrameType::RoomKick,
        room,
        None,
        &cohost_protocol::Kick {
            conn_id: who.conn_id,
        },
    )
    .unwrap();
    host.send_frame(&kick).await;
    assert_eq!(
        close_code(viewer).await,
        4403,
        "the kicked participant is disconnected"
    );
    // The host was not told its kick failed.
    host.assert_no(FrameType::RoomError, Duration::from_millis(300))
        .await;
    assert_refused(n1, room, vtoken).await;
}
