//! WebSocket upgrade and the handshake's checks (token, origin, room);
//! the connection then runs in `conn`.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use cohost_protocol::{is_valid_id, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::WebSocketStream;

use super::admission::Admitted;
use super::coalesce::Coalesce;
use super::socket::REVOKED;
use super::state::RelayState;

fn reject(status: StatusCode, msg: impl Into<String>) -> Response {
    let msg = msg.into();
    tracing::info!(status = status.as_u16(), reason = %msg, "websocket upgrade refused");
    (status, msg).into_response()
}

/// Whether a query string carries anything that looks like a credential.
fn query_has_token(q: &str) -> bool {
    q.split('&').any(|kv| {
        let k = kv.split('=').next().unwrap_or("").to_ascii_lowercase();
        k.contains("token") || k.contains("jwt") || k.contains("auth") || k == "t"
    })
}

/// The header checks of an RFC 6455 opening handshake: the client's key, or
/// what is missing.
fn handshake_key(req: &Request) -> Result<String, &'static str> {
    let h = req.headers();
    let has_token = |name: header::HeaderName, want: &str| {
        h.get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(want))
    };
    if req.method() != Method::GET {
        return Err("the method must be GET");
    }
    if !has_token(header::CONNECTION, "upgrade") {
        return Err("`Connection: upgrade` is missing");
    }
    if !has_token(header::UPGRADE, "websocket") {
        return Err("`Upgrade: websocket` is missing");
    }
    if h.get(header::SEC_WEBSOCKET_VERSION).map(|v| v.as_bytes()) != Some(b"13") {
        return Err("`Sec-WebSocket-Version: 13` is missing");
    }
    match h
        .get(header::SEC_WEBSOCKET_KEY)
        .and_then(|v| v.to_str().ok())
    {
        Some(k) if !k.trim().is_empty() => Ok(k.trim().to_string()),
        _ => Err("`Sec-WebSocket-Key` is missing"),
    }
}

/// `GET /v1/rooms/{room}/ws`.
pub(crate) async fn ws_handler(
    State(state): State<Arc<RelayState>>,
    Path(room): Path<String>,
    ConnectInfo(admitted): ConnectInfo<Admitted>,
    mut req: Request,
) -> Response {
    if req.uri().query().is_some_and(query_has_token) {
        return reject(
            StatusCode::BAD_REQUEST,
            "room tokens are never accepted in the URL query (it ends up in logs and history); \
             send it as the Sec-WebSocket-Protocol entry `cohost.token.<jwt>` or as the first WebSocket message",
        );
    }
    let headers = req.headers();
    if let Some(origin) = headers.get(header::ORIGIN) {
        let o = origin.to_str().unwrap_or("");
        if !state.config.allowed_origins.iter().any(|a| a == o)
            && !crate::web::is_same_origin(o, headers)
        {
            return reject(
                StatusCode::FORBIDDEN,
                format!("origin {o:?} is not allowed; add it to the relay's allowed origins"),
            );
        }
    }
    if !is_valid_id(&room) {
        return reject(
            StatusCode::BAD_REQUEST,
            "invalid room id: use 1..=64 characters of [A-Za-z0-9_-]",
        );
    }
    let key = match handshake_key(&req) {
        Ok(k) => k,
        Err(what) => {
            return reject(
                StatusCode::BAD_REQUEST,
                format!("not a WebSocket upgrade: {what}; connect with a WebSocket client"),
            )
        }
    };
    let offered: Vec<String> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .collect();
    let token = offered
        .iter()
        .find_map(|p| p.strip_prefix(TOKEN_SUBPROTOCOL_PREFIX))
        .map(str::to_string);
    let claims = match token {
        Some(t) => match state.auth.verify(&t, &room) {
            Ok(c) if state.broker.is_revoked(&c.jti).await => {
                return reject(StatusCode::UNAUTHORIZED, REVOKED)
            }
            Ok(c) => {
                admitted.ticket.authenticated();
                Some(c)
            }
            Err(e) => return reject(StatusCode::UNAUTHORIZED, e.to_string()),
        },
        None => None,
    };
    if state.draining.load(std::sync::atomic::Ordering::Relaxed) {
        return reject(
            StatusCode::SERVICE_UNAVAILABLE,
            "this relay node is shutting down; reconnect (the load balancer picks another node)",
        );
    }
    let r = state.arriving(&room);
    if r.is_closed() {
        return reject(
            StatusCode::GONE,
            "the host closed this room; ask for an invite to a new room",
        );
    }
    if r.member_count() >= state.config.limits.max_participants_per_room {
        return reject(
            StatusCode::SERVICE_UNAVAILABLE,
            "room is full; try again later or ask the host to raise the limit",
        );
    }
    let Some(on_upgrade) = req.extensions_mut().remove::<OnUpgrade>() else {
        return reject(
            StatusCode::UPGRADE_REQUIRED,
            "this connection cannot be upgraded (HTTP/1.1 with `Connection: upgrade` is required)",
        );
    };
    let l = &state.config.limits;
    let max_msg = l
        .max_frame_host
        .max(l.max_frame_co_driver)
        .max(l.max_frame_viewer)
        + 1024;
    let config = WebSocketConfig::default()
        .read_buffer_size(l.read_buffer_size)
        .write_buffer_size(0)
        .max_message_size(Some(max_msg))
        .max_frame_size(Some(max_msg));
    let max_batch = l.write_batch_bytes;
    tokio::spawn(async move {
        let io = match on_upgrade.await {
            Ok(io) => io,
            Err(e) => {
                tracing::debug!(error = %e, "websocket upgrade did not complete");
                return;
            }
        };
        admitted.ticket.upgraded();
        let io = Coalesce::new(TokioIo::new(io), max_batch);
        let socket = WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
        super::conn::run(state, r, claims, socket, admitted).await;
    });
    let mut resp = Response::new(Body::empty());
    *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = resp.headers_mut();
    h.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    if let Ok(v) = HeaderValue::from_str(&derive_accept_key(key.as_bytes())) {
        h.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    if offered.iter().any(|p| p == SUBPROTOCOL) {
        h.insert(
            header::SEC_WEBSOCKET_PROTOCOL,
            HeaderValue::from_static(SUBPROTOCOL),
        );
    }
    resp
}
