//! Unsafe settings refuse to start; tokens not yet valid or valid too long are refused.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::time::Duration;

use cohost_protocol::{Role, TOKEN_AUDIENCE};
use cohost_relay::auth::now_secs;
use cohost_relay::{Relay, RelayConfig};
use common::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header};

/// A HOST token for `room` signed with the test key, with the given claims.
fn signed(room: &str, exp: u64, nbf: Option<u64>) -> String {
    let mut c = serde_json::json!({
        "room": room, "role": "HOST", "exp": exp, "aud": TOKEN_AUDIENCE,
        "sub": "mallory", "jti": "j1", "iat": now_secs(),
    });
    if let Some(n) = nbf {
        c["nbf"] = n.into();
    }
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &c,
        &EncodingKey::from_secret(SECRET),
    )
    .unwrap()
}

#[tokio::test]
async fn empty_or_one_byte_jwt_secret_refuses_to_start() {
    for secret in [&b""[..], b"k"] {
        let err = Relay::bind(RelayConfig {
            jwt_secret: Some(secret.to_vec()),
            ..RelayConfig::default()
        })
        .await
        .err()
        .expect("a relay with a weak JWT secret must not start");
        let msg = err.to_string();
        assert!(msg.contains("COHOST_RELAY_JWT_SECRET"), "{msg}");
        assert!(msg.contains("at least 32 bytes"), "{msg}");
    }
}

#[tokio::test]
async fn short_admin_secret_refuses_to_start() {
    let err = Relay::bind(RelayConfig {
        admin_secret: Some("hunter2".into()),
        ..RelayConfig::default()
    })
    .await
    .err()
    .expect("a relay with a weak admin secret must not start");
    assert!(
        err.to_string().contains("COHOST_RELAY_ADMIN_SECRET"),
        "{err}"
    );
}

#[tokio::test]
async fn token_with_future_nbf_is_refused_and_a_past_one_admitted() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let early = signed(&room, now_secs() + 7200, Some(now_secs() + 3600));
    match try_connect(&h, &room, &early).await {
        Ok(_) => panic!("a token with nbf an hour ahead was admitted"),
        Err((status, body)) => {
            assert_eq!(status, 401, "{body}");
            assert!(body.contains("room token rejected"), "{body}");
        }
    }
    let ok = signed(&room, now_secs() + 3600, Some(now_secs() - 60));
    assert!(try_connect(&h, &room, &ok).await.is_ok());
}

#[tokio::test]
async fn token_valid_for_a_century_is_refused() {
    let h = relay().await;
    let room = h.create_room(Some("r")).unwrap();
    let century = signed(&room, now_secs() + 100 * 365 * 24 * 3600, None);
    match try_connect(&h, &room, &century).await {
        Ok(_) => panic!("a 100-year token was admitted"),
        Err((status, body)) => {
            assert_eq!(status, 401, "{body}");
            assert!(body.contains("maximum token lifetime"), "{body}");
        }
    }
    // Neither can one be minted.
    assert!(h
        .mint_invite(&room, Role::Viewer, 100 * 365 * 24 * 3600, "v")
        .is_err());
}

#[tokio::test]
async fn max_token_lifetime_is_configurable() {
    let h = relay_with(|c| c.max_token_lifetime = Duration::from_secs(600)).await;
    let room = h.create_room(Some("r")).unwrap();
    assert!(h.mint_invite(&room, Role::Viewer, 601, "v").is_err());
    let hour = signed(&room, now_secs() + 3600, None);
    assert!(try_connect(&h, &room, &hour).await.is_err());
    let ten_min = signed(&room, now_secs() + 590, None);
    assert!(try_connect(&h, &room, &ten_min).await.is_ok());
}
