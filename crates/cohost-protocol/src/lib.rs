//! cohost relay wire format: envelope, frame types, roles, permission matrix,
//! token claims, control payloads and invite strings. No IO.
//!
//! # Connection
//! - URL: `ws(s)://<host:port>/v1/rooms/<room>/ws` — never with a query; a
//!   token-like query parameter is refused with HTTP 400.
//! - Token: offer subprotocols `cohost.v1, cohost.token.<jwt>`; the relay echoes
//!   only `cohost.v1`. Alternative (browsers that cannot set protocols freely):
//!   offer `cohost.v1` only and send the JWT as the first (text) message within
//!   the handshake deadline.
//! - Tokens: HS256 JWT signed by the relay, claims [`Claims`] (`room`, `role`,
//!   `exp`, `aud` = [`TOKEN_AUDIENCE`], `sub` = display name, `jti`, `iat`).
//! - Every WebSocket **binary** message is one [`Frame`]; see [`envelope`] for
//!   the byte layout. Text messages are refused.
//!
//! # Session
//! 1. The relay sends `room.welcome` ([`Welcome`]) and broadcasts `presence.join`.
//! 2. The client sends `room.resume` ([`Resume`]: last chunk index per stream it
//!    holds; `{}` on first join). Until then it receives no stream frames; the
//!    answer is a replay of everything after those indexes that the relay still
//!    holds (streams not listed: everything held), or `room.resync`
//!    ([`Resync`]) for streams it can no longer replay.
//! 3. Stream frames (`ai.execution.started`, `ai.stream.chunk|end|interrupted`)
//!    carry a stream id and a host-assigned chunk index, strictly increasing per
//!    stream; a client deduplicates by index.
//! 4. A slow reader gets `room.gap` ([`Gap`]) instead of chunks; it answers with
//!    `room.resume` to get them back. Over the hard limit it is disconnected.
//! 5. Refusals come as `room.error` ([`ErrorPayload`]); the frame is not delivered.
//!
//! Who may send what is [`may_send`]; where it goes is [`route`]. A co-driver's
//! `ai.request.suggest_prompt` reaches hosts only, as `ai.request.prompt_suggested`.
//! Control payloads (`presence.*`, `room.resume|resync|gap|error|welcome`) are
//! JSON defined in [`control`]; all other payloads are opaque bytes.
//!
//! # Invites
//! `cohost://<host:port>/<room>#<jwt>.<key>.<hostpub>` (`cohosts://` for
//! TLS), see [`Invite`]; the keys are end-to-end (`docs/sharing-e2e.md`).

#![forbid(unsafe_code)]

pub mod claims;
pub mod control;
pub mod envelope;
mod error;
pub mod frames;
mod header;
pub mod ids;
pub mod invite;
pub mod matrix;
pub mod roles;

pub use claims::{Claims, TOKEN_AUDIENCE};
pub use control::{
    ControlError, ErrorCode, ErrorPayload, Gap, Kick, Participant, PresenceList, Resume, Resync,
    Welcome,
};
pub use envelope::Frame;
pub use error::EnvelopeError;
pub use frames::FrameType;
pub use header::{FIXED_HEADER_LEN, MAX_ID_LEN, PROTOCOL_VERSION};
pub use ids::{is_valid_id, RoomId, StreamId};
pub use invite::{ws_url, Invite, InviteError, InviteKeys, SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX};
pub use matrix::{may_send, may_use_stream, member_stream_prefix, route, to_hosts_only, Route};
pub use roles::Role;
