//! Admin HTTP API (bearer = the relay's admin secret).
//!
//! - `POST /admin/rooms` body `{"room": "<id>"}` (optional; random id if absent)
//!   -> `201 {"room": "<id>", "ws_url": "ws://…/v1/rooms/<id>/ws"}`
//! - `POST /admin/rooms/{room}/invites` body `{"role": "CO_DRIVER", "ttl_secs": 3600, "name": "ana"}`
//!   -> `201 {"invite": "cohost://host:port/<room>#<jwt>", "token": "<jwt>", "ws_url": …, "role": …, "expires_at": <unix secs>, "jti": …}`
//! - `POST /admin/rooms/{room}/kick` body `{"conn_id": N}` (or `{"jti": "…",
//!   "exp": <unix secs>}` for a token not connected here)
//!   -> `200 {"revoked": "<jti>"}`: the token is refused from then on and the
//!   connection is closed.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cohost_protocol::Role;
use serde::{Deserialize, Serialize};

use crate::server::revoke::{kick_conn, Kicked};
use crate::server::state::RelayState;

/// Body of `POST /admin/rooms`.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct CreateRoom {
    /// Room id to register; random when absent.
    #[serde(default)]
    pub room: Option<String>,
}

/// Answer of `POST /admin/rooms`.
#[derive(Debug, Deserialize, Serialize)]
pub struct RoomCreated {
    /// Room id.
    pub room: String,
    /// WebSocket URL of the room.
    pub ws_url: String,
}

/// Body of `POST /admin/rooms/{room}/invites`.
#[derive(Debug, Deserialize, Serialize)]
pub struct CreateInvite {
    /// `HOST`, `CO_DRIVER` or `VIEWER`.
    pub role: Role,
    /// Lifetime in seconds (1..= the relay's maximum token lifetime, 7 days by default).
    pub ttl_secs: u64,
    /// Participant display name.
    pub name: String,
}

/// Answer of `POST /admin/rooms/{room}/invites`.
#[derive(Debug, Deserialize, Serialize)]
pub struct InviteCreated {
    /// Paste-able invite `cohost://host:port/<room>#<jwt>`.
    pub invite: String,
    /// The room token alone.
    pub token: String,
    /// WebSocket URL (without token).
    pub ws_url: String,
    /// Role granted.
    pub role: Role,
    /// Expiry, Unix seconds.
    pub expires_at: u64,
    /// Token id.
    pub jti: String,
}

const MAX_TTL: u64 = 30 * 24 * 3600;

fn err(status: StatusCode, msg: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": msg.into() }))).into_response()
}

fn authorized(state: &RelayState, headers: &HeaderMap) -> bool {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let want = state.admin_secret.as_bytes();
    let g = given.as_bytes();
    // Constant-time comparison.
    let diff = want
        .iter()
        .zip(g.iter().chain(std::iter::repeat(&0u8)))
        .fold(want.len() ^ g.len(), |acc, (a, b)| acc | usize::from(a ^ b));
    let ok = diff == 0 && !want.is_empty();
    if !ok {
        tracing::info!("admin request refused: bad bearer secret");
    }
    ok
}

fn unauthorized() -> Response {
    err(
        StatusCode::UNAUTHORIZED,
        "missing or wrong admin secret: send `Authorization: Bearer <admin secret>` as printed by the relay at start",
    )
}

pub(crate) async fn create_room(
    State(state): State<Arc<RelayState>>,
    headers: HeaderMap,
    body: Option<Json<CreateRoom>>,
) -> Response {
    if !authorized(&state, &headers) {
        return unauthorized();
    }
    let req = body.map(|Json(b)| b).unwrap_or_default();
    match state.create_shared_room(req.room.as_deref()).await {
        Ok(room) => {
            tracing::info!(room, "room created");
            let ws_url = cohost_protocol::ws_url(&state.authority, state.config.public_tls, &room);
            (StatusCode::CREATED, Json(RoomCreated { room, ws_url })).into_response()
        }
        Err(e @ crate::RelayError::Broker(_)) => {
            err(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
        }
        Err(e) => err(StatusCode::BAD_REQUEST, e.to_string()),
    }
}

pub(crate) async fn create_invite(
    State(state): State<Arc<RelayState>>,
    Path(room): Path<String>,
    headers: HeaderMap,
    body: Result<Json<CreateInvite>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if !authorized(&state, &headers) {
        return unauthorized();
    }
    let req = match body {
        Ok(Json(b)) => b,
        Err(e) => {
            return err(
                StatusCode::BAD_REQUEST,
                format!("expected {{\"role\", \"ttl_secs\", \"name\"}}: {e}"),
            )
        }
    };
    let max = MAX_TTL.min(state.config.max_token_lifetime.as_secs());
    if req.ttl_secs == 0 || req.ttl_secs > max {
        return err(
            StatusCode::BAD_REQUEST,
            format!("ttl_secs must be 1..={max} (the relay's maximum token lifetime)"),
        );
    }
    match state
        .mint_shared_invite(&room, req.role, req.ttl_secs, &req.name)
        .await
    {
        Ok((invite, exp, jti)) => {
            tracing::info!(room, role = %req.role, jti, "invite minted");
            let resp = InviteCreated {
                ws_url: invite.ws_url(),
                token: invite.token.clone(),
                invite: invite.to_string(),
                role: req.role,
                expires_at: exp,
                jti,
            };
            (StatusCode::CREATED, Json(resp)).into_response()
        }
        Err(crate::RelayError::UnknownRoom(r)) => err(
            StatusCode::NOT_FOUND,
            format!("room {r:?} was not created on this relay; POST /admin/rooms first"),
        ),
        Err(e @ crate::RelayError::Broker(_)) => {
            err(StatusCode::SERVICE_UNAVAILABLE, e.to_string())
        }
        Err(e) => err(StatusCode::BAD_REQUEST, e.to_string()),
    }
}

/// `POST /admin/rooms/{room}/kick`.
#[derive(Debug, Default, Deserialize, Serialize)]
pub struct KickRequest {
    /// A connection in the room (from presence).
    #[serde(default)]
    pub conn_id: Option<u64>,
    /// Or a token id (from the invite's `jti`), with its expiry.
    #[serde(default)]
    pub jti: Option<String>,
    /// Expiry of `jti`, seconds since the Unix epoch (default: the longest
    /// token lifetime from now).
    #[serde(default)]
    pub exp: Option<u64>,
}

pub(crate) async fn kick(
    State(state): State<Arc<RelayState>>,
    Path(room): Path<String>,
    headers: HeaderMap,
    body: Result<Json<KickRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if !authorized(&state, &headers) {
        return unauthorized();
    }
    let Ok(Json(req)) = body else {
        return err(
            StatusCode::BAD_REQUEST,
            "expected {\"conn_id\": N} or {\"jti\": \"...\"}",
        );
    };
    let revoked = match (req.conn_id, req.jti) {
        (Some(id), _) => match kick_conn(&state, &room, id) {
            Kicked::Done { jti } => jti,
            // The node holding the connection revokes its token and closes
            // it; which token that was is only known there.
            Kicked::Forwarded => {
                return (
                    StatusCode::ACCEPTED,
                    Json(serde_json::json!({ "forwarded": true, "conn_id": id })),
                )
                    .into_response();
            }
            Kicked::NotHere => {
                return err(
                    StatusCode::NOT_FOUND,
                    format!(
                        "no participant #{id} in room {room}; check the id in the room's presence"
                    ),
                )
            }
        },
        (None, Some(jti)) => {
            let exp = req.exp.unwrap_or_else(|| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                now + state.config.max_token_lifetime.as_secs().max(MAX_TTL)
            });
            state.broker.revoke(&jti, exp);
            jti
        }
        (None, None) => return err(StatusCode::BAD_REQUEST, "name a conn_id or a jti"),
    };
    tracing::info!(room, "token revoked through the admin API");
    (
        StatusCode::OK,
        Json(serde_json::json!({ "revoked": revoked })),
    )
        .into_response()
}
