//! Every way in that must be refused, each in its own test.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::time::Duration;

use cohost_protocol::{Claims, ErrorCode, ErrorPayload, FrameType, Role, TOKEN_AUDIENCE};
use cohost_relay::auth::{now_secs, TokenAuthority};
use common::*;
use futures::SinkExt;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use tokio_tungstenite::tungstenite::Message;

fn claims(room: &str, exp: u64) -> Claims {
    Claims {
        room: room.into(),
        role: Role::Host,
        exp,
        aud: TOKEN_AUDIENCE.into(),
        sub: "mallory".into(),
        jti: "j1".into(),
        iat: now_secs(),
    }
}

async fn assert_refused(
    h: &cohost_relay::RelayHandle,
    room: &str,
    token: &str,
    status: u16,
) -> String {
    match try_connect(h, room, token).await {
        Ok(_) => panic!("connection with a bad token was accepted"),
        Err((s, body)) => {
            assert_eq!(s, status, "status for refused token: {body}");
            body
        }
    }
}

#[tokio::test]
async fn alg_none_token_is_rejected() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let header = b64url(br#"{"alg":"none","typ":"JWT"}"#);
    let body = b64url(&serde_json::to_vec(&claims(&room, now_secs() + 3600)).unwrap());
    let forged = format!("{header}.{body}.");
    let msg = assert_refused(&h, &room, &forged, 401).await;
    assert!(msg.contains("room token rejected"), "{msg}");
}

#[tokio::test]
async fn token_signed_with_another_key_is_rejected() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let (t, _) = TokenAuthority::new(b"some-other-relay-secret")
        .mint(&room, Role::Host, 3600, "m")
        .unwrap();
    assert_refused(&h, &room, &t, 401).await;
    // Also HS512 with the right key: the algorithm is pinned to HS256.
    let t = jsonwebtoken::encode(
        &Header::new(Algorithm::HS512),
        &claims(&room, now_secs() + 3600),
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap();
    assert_refused(&h, &room, &t, 401).await;
}

#[tokio::test]
async fn expired_token_is_rejected() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let t = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims(&room, now_secs() - 3600),
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap();
    let msg = assert_refused(&h, &room, &t, 401).await;
    assert!(msg.to_lowercase().contains("expired"), "{msg}");
}

#[tokio::test]
async fn token_without_audience_is_rejected() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let mut c = serde_json::to_value(claims(&room, now_secs() + 3600)).unwrap();
    c.as_object_mut().unwrap().remove("aud");
    let t = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &c,
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap();
    assert_refused(&h, &room, &t, 401).await;
}

#[tokio::test]
async fn token_for_another_room_is_rejected() {
    let h = relay().await;
    let a = h.create_room(Some("room-a")).unwrap();
    let b = h.create_room(Some("room-b")).unwrap();
    let t = token(&h, &a, Role::Host, "hana");
    let msg = assert_refused(&h, &b, &t, 401).await;
    assert!(msg.contains("room-a"), "{msg}");
}

#[tokio::test]
async fn viewer_sending_host_frames_is_refused() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let mut co = join(&h, &room, Role::CoDriver, "cody").await;
    let mut v = join(&h, &room, Role::Viewer, "vic").await;
    for kind in [
        FrameType::StreamChunk,
        FrameType::ExecutionStarted,
        FrameType::ToolApprovalDecided,
        FrameType::RoomClose,
        FrameType::PromptSuggested,
        FrameType::RoomWelcome,
    ] {
        let stream = kind.is_replayable().then_some("s");
        v.send(kind, stream, 1, b"forged").await;
        let p: ErrorPayload = v.recv_kind(FrameType::RoomError).await.control().unwrap();
        assert_eq!(p.code, ErrorCode::Forbidden, "{kind}");
        assert_eq!(p.frame_type.as_deref(), Some(kind.name()));
    }
    // Nothing reached the co-driver except presence.
    let deadline = Duration::from_millis(300);
    while let Some(f) = co.next_within(deadline).await {
        assert!(matches!(f.kind(), FrameType::PresenceJoin), "leaked {f:?}");
    }
}

#[tokio::test]
async fn forged_sender_fields_are_overwritten_by_the_relay() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut v = join(&h, &room, Role::Viewer, "vic").await;
    let honest =
        cohost_protocol::Frame::build(FrameType::ChatMessage, &room, None, 0, b"hi").unwrap();
    let mut raw = honest.bytes().to_vec();
    raw[2] = Role::Host.code();
    raw[4..12].copy_from_slice(&7u64.to_be_bytes());
    v.ws.send(Message::Binary(raw.into())).await.unwrap();
    let f = host.recv_kind(FrameType::ChatMessage).await;
    assert_eq!(f.role(), Some(Role::Viewer));
    assert_ne!(f.sender(), 7);
}

#[tokio::test]
async fn oversize_frame_is_refused() {
    let h = relay_with(|c| c.limits.max_frame_co_driver = 1024).await;
    let room = h.create_room(Some("r")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut co = join(&h, &room, Role::CoDriver, "cody").await;
    co.send(FrameType::ChatMessage, None, 0, &vec![b'a'; 2000])
        .await;
    let p: ErrorPayload = co.recv_kind(FrameType::RoomError).await.control().unwrap();
    assert_eq!(p.code, ErrorCode::TooLarge);
    host.assert_no(FrameType::ChatMessage, Duration::from_millis(300))
        .await;
    // A small one still passes: the connection stays usable.
    co.send(FrameType::ChatMessage, None, 0, b"small").await;
    host.recv_kind(FrameType::ChatMessage).await;
}

#[tokio::test]
async fn token_in_url_query_is_rejected() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let t = token(&h, &room, Role::Host, "hana");
    let url = format!("{}?token={t}", h.ws_url(&room));
    let (status, body) = try_connect_url(&url, None, None)
        .await
        .expect_err("refused");
    assert_eq!(status, 400);
    assert!(body.contains("never accepted in the URL query"), "{body}");
    // Even when the header also carries a valid token.
    let (status, _) = try_connect_url(&url, Some(&t), None)
        .await
        .expect_err("refused");
    assert_eq!(status, 400);
}

#[tokio::test]
async fn foreign_origin_is_rejected_and_allowlisted_or_absent_origin_is_accepted() {
    let h = relay_with(|c| c.allowed_origins = vec!["https://cohost.example".into()]).await;
    let room = h.create_room(Some("r")).unwrap();
    let t = token(&h, &room, Role::Viewer, "vic");
    let (status, body) = try_connect_url(&h.ws_url(&room), Some(&t), Some("https://evil.example"))
        .await
        .expect_err("refused");
    assert_eq!(status, 403);
    assert!(body.contains("evil.example"), "{body}");
    assert!(
        try_connect_url(&h.ws_url(&room), Some(&t), Some("https://cohost.example"))
            .await
            .is_ok()
    );
    assert!(try_connect_url(&h.ws_url(&room), Some(&t), None)
        .await
        .is_ok());
}

#[tokio::test]
async fn first_frame_token_works_and_missing_token_times_out() {
    let h = relay_with(|c| c.limits.handshake_timeout = Duration::from_millis(300)).await;
    let room = h.create_room(Some("r")).unwrap();
    let t = token(&h, &room, Role::Viewer, "vic");
    let mut ws = try_connect_url(&h.ws_url(&room), None, None).await.unwrap();
    ws.send(Message::Text(t.into())).await.unwrap();
    let mut p = Peer {
        ws,
        room: room.clone(),
    };
    p.recv_kind(FrameType::RoomWelcome).await;

    let ws = try_connect_url(&h.ws_url(&room), None, None).await.unwrap();
    let mut p = Peer {
        ws,
        room: room.clone(),
    };
    let e: ErrorPayload = p.recv_kind(FrameType::RoomError).await.control().unwrap();
    assert_eq!(e.code, ErrorCode::Unauthorized);
    assert!(
        p.next_within(Duration::from_secs(2)).await.is_none(),
        "connection closed"
    );
}

#[tokio::test]
async fn rate_limit_refuses_floods() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let mut co = join(&h, &room, Role::CoDriver, "cody").await;
    for _ in 0..30 {
        co.send(FrameType::SuggestPrompt, None, 0, b"again").await;
    }
    let p: ErrorPayload = co.recv_kind(FrameType::RoomError).await.control().unwrap();
    assert_eq!(p.code, ErrorCode::RateLimited);
}

#[tokio::test]
async fn room_capacity_is_enforced() {
    let h = relay_with(|c| c.limits.max_participants_per_room = 2).await;
    let room = h.create_room(Some("r")).unwrap();
    let _a = join(&h, &room, Role::Host, "a").await;
    let _b = join(&h, &room, Role::Viewer, "b").await;
    let t = token(&h, &room, Role::Viewer, "c");
    let (status, _) = try_connect(&h, &room, &t).await.err().expect("full");
    assert_eq!(status, 503);
}

/// A request to the WebSocket path that is not a valid RFC 6455 upgrade gets a
/// 400 naming the missing piece (the relay does its own handshake).
#[tokio::test]
async fn plain_http_and_incomplete_upgrades_are_refused_with_the_reason() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let cases = [
        ("", "`Connection: upgrade` is missing"),
        (
            "Connection: Upgrade\r\nUpgrade: websocket\r\n",
            "`Sec-WebSocket-Version: 13` is missing",
        ),
        (
            "Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n",
            "`Sec-WebSocket-Key` is missing",
        ),
        (
            "Connection: Upgrade\r\nUpgrade: h2c\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
            "`Upgrade: websocket` is missing",
        ),
    ];
    for (headers, want) in cases {
        let mut s = tokio::net::TcpStream::connect(h.local_addr())
            .await
            .unwrap();
        let req = format!(
            "GET /v1/rooms/{room}/ws HTTP/1.1\r\nHost: {}\r\n{headers}Connection: close\r\n\r\n",
            h.local_addr()
        );
        // `Connection: close` is appended as a second header line; the checks
        // look at every Connection header, so the upgrade token is still seen.
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        assert!(out.starts_with("HTTP/1.1 400"), "{headers:?}: {out}");
        assert!(out.contains(want), "{headers:?}: want {want:?} in {out}");
    }
}

#[tokio::test]
async fn a_co_driver_streams_its_members_turns_only_under_its_own_stream_names() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let mut co = join(&h, &room, Role::CoDriver, "cody").await;
    let mut v = join(&h, &room, Role::Viewer, "vic").await;
    co.send(FrameType::ChatMessage, None, 0, b"hi").await;
    let me = host.recv_kind(FrameType::ChatMessage).await.sender();
    // Another's name, the host's, a prefix of another connection: refused.
    for stream in [
        "p-1".to_string(),
        format!("m{}0-p", me),
        format!("m{}", me + 1),
    ] {
        co.send(FrameType::StreamChunk, Some(&stream), 0, b"x")
            .await;
        let p: ErrorPayload = co.recv_kind(FrameType::RoomError).await.control().unwrap();
        assert_eq!(p.code, ErrorCode::Forbidden, "{stream}");
        assert!(p.message.contains(&format!("m{me}-")), "{}", p.message);
    }
    // Its own: the room gets it (the receivers check whose member it is).
    let own = cohost_protocol::member_stream_prefix(me) + "p-1";
    co.send(FrameType::ExecutionStarted, Some(&own), 0, b"")
        .await;
    co.send(FrameType::StreamChunk, Some(&own), 1, b"from her machine")
        .await;
    for peer in [&mut host, &mut v] {
        let f = peer.recv_kind(FrameType::StreamChunk).await;
        assert_eq!(
            (f.stream(), &f.payload()[..]),
            (Some(own.as_str()), &b"from her machine"[..])
        );
        assert_eq!(f.role(), Some(Role::CoDriver));
    }
    // A viewer may not at all.
    let vs = cohost_protocol::member_stream_prefix(me + 1) + "p";
    v.send(FrameType::StreamChunk, Some(&vs), 0, b"x").await;
    let p: ErrorPayload = v.recv_kind(FrameType::RoomError).await.control().unwrap();
    assert_eq!(p.code, ErrorCode::Forbidden);
}
