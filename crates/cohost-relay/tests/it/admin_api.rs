//! Admin HTTP API: create a room, mint invites, refuse a wrong secret; an invite
//! string connects through the client library.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::time::Duration;

use cohost_protocol::{FrameType, Invite, Role};
use cohost_relay::admin::{InviteCreated, RoomCreated};
use cohost_relay::{ClientEvent, RelayClient};
use common::*;

/// Minimal HTTP/1.1 POST; returns (status, body).
async fn post(addr: std::net::SocketAddr, path: &str, bearer: &str, body: &str) -> (u16, String) {
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {bearer}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    http(addr, &req).await
}

#[tokio::test]
async fn admin_creates_rooms_and_invites_that_connect() {
    let h = relay().await;
    let addr = h.local_addr();
    let (st, _) = post(addr, "/admin/rooms", "wrong", "{}").await;
    assert_eq!(st, 401);
    let (st, body) = post(addr, "/admin/rooms", h.admin_secret(), "{}").await;
    assert_eq!(st, 201, "{body}");
    let created: RoomCreated = serde_json::from_str(&body).unwrap();
    assert!(created
        .ws_url
        .ends_with(&format!("/v1/rooms/{}/ws", created.room)));

    let (st, body) = post(
        addr,
        "/admin/rooms/nope/invites",
        h.admin_secret(),
        r#"{"role":"VIEWER","ttl_secs":60,"name":"v"}"#,
    )
    .await;
    assert_eq!(st, 404, "{body}");
    let path = format!("/admin/rooms/{}/invites", created.room);
    let (st, body) = post(
        addr,
        &path,
        h.admin_secret(),
        r#"{"role":"CO_DRIVER","ttl_secs":600,"name":"cody"}"#,
    )
    .await;
    assert_eq!(st, 201, "{body}");
    let inv: InviteCreated = serde_json::from_str(&body).unwrap();
    assert_eq!(inv.role, Role::CoDriver);
    let parsed = Invite::parse(&inv.invite).unwrap();
    assert_eq!(parsed.room, created.room);
    assert!(
        !parsed.ws_url().contains(&parsed.token),
        "token never in the WS URL"
    );

    let host_inv = h
        .mint_invite(&created.room, Role::Host, 600, "hana")
        .unwrap();
    let mut host = RelayClient::connect_invite(&host_inv.to_string())
        .await
        .unwrap();
    let mut co = RelayClient::connect_invite(&inv.invite).await.unwrap();
    let mut saw_welcome = false;
    while !saw_welcome {
        if let Some(ClientEvent::Welcome(w)) = tokio::time::timeout(WAIT, co.recv()).await.unwrap()
        {
            assert_eq!(w.you.role, Role::CoDriver);
            assert_eq!(w.you.name, "cody");
            saw_welcome = true;
        }
    }
    co.send_new(FrameType::SuggestPrompt, None, 0, b"hello host")
        .await
        .unwrap();
    loop {
        match tokio::time::timeout(WAIT, host.recv()).await.unwrap() {
            Some(ClientEvent::Frame(f)) if f.kind() == FrameType::PromptSuggested => {
                assert_eq!(&f.payload()[..], b"hello host");
                break;
            }
            Some(_) => {}
            None => panic!("host closed"),
        }
    }
    host.close().await;
    co.close().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    h.shutdown().await;
}

#[tokio::test]
async fn room_close_by_host_ends_participants() {
    let h = relay().await;
    let room = h.create_room(None).unwrap();
    let mut host = join(&h, &room, Role::Host, "hana").await;
    let inv = h.mint_invite(&room, Role::Viewer, 600, "vic").unwrap();
    let mut v = RelayClient::connect_invite(&inv.to_string()).await.unwrap();
    host.recv_kind(FrameType::PresenceJoin).await;
    host.send(FrameType::RoomClose, None, 0, b"").await;
    loop {
        match tokio::time::timeout(WAIT, v.recv()).await.unwrap() {
            Some(ClientEvent::Closed { reason }) => {
                assert!(reason.contains("room closed"), "{reason}");
                break;
            }
            Some(_) => {}
            None => panic!("no Closed event"),
        }
    }
    // A closed room refuses new joins.
    let t = token(&h, &room, Role::Viewer, "late");
    let (status, _) = try_connect(&h, &room, &t).await.err().expect("gone");
    assert_eq!(status, 410);
}
