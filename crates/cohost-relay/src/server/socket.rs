//! The relay's side of one WebSocket: its type ([`Socket`]) and the
//! first-message authentication of a client that sent no token in the
//! handshake. The upgrade (`ws.rs`) and the connection loop (`conn.rs`)
//! both need them, and the upgrade starts that loop.

use cohost_protocol::{Claims, ErrorCode, Frame, FrameType, TOKEN_SUBPROTOCOL_PREFIX};
use futures::{SinkExt, StreamExt};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::coalesce::Coalesce;
use super::state::RelayState;

/// The relay's WebSocket: tungstenite over the write-coalescing transport.
pub(crate) type Socket = WebSocketStream<Coalesce<TokioIo<Upgraded>>>;

/// Why a revoked token is refused.
pub(super) const REVOKED: &str = "this invite was revoked: the host removed you from the room";

/// Waits for the first-message token when none came in the handshake.
pub(super) async fn first_frame_auth(
    state: &RelayState,
    room: &str,
    socket: &mut Socket,
) -> Option<Claims> {
    let deadline = state.config.limits.handshake_timeout;
    let msg = tokio::time::timeout(deadline, socket.next()).await;
    let token = match msg {
        Ok(Some(Ok(Message::Text(t)))) => t.as_str().trim().to_string(),
        Ok(Some(Ok(Message::Binary(b)))) => String::from_utf8_lossy(&b).trim().to_string(),
        _ => String::new(),
    };
    let token = token
        .strip_prefix(TOKEN_SUBPROTOCOL_PREFIX)
        .unwrap_or(&token)
        .to_string();
    let why = if token.is_empty() {
        "no room token: send it in Sec-WebSocket-Protocol or as the first message within the handshake deadline".to_string()
    } else {
        match state.auth.verify(&token, room) {
            Ok(c) if state.broker.is_revoked(&c.jti).await => REVOKED.to_string(),
            Ok(c) => return Some(c),
            Err(e) => e.to_string(),
        }
    };
    tracing::info!(room, reason = %why, "first-frame authentication failed");
    let p = cohost_protocol::ErrorPayload {
        code: ErrorCode::Unauthorized,
        message: why,
        frame_type: None,
    };
    if let Ok(f) = Frame::control_frame(FrameType::RoomError, room, None, &p) {
        let _sent = socket.send(Message::Binary(f.bytes().clone())).await;
    }
    let _closed = socket
        .send(Message::Close(Some(CloseFrame {
            code: CloseCode::from(4401),
            reason: "unauthorized".into(),
        })))
        .await;
    None
}
