//! The application layer of a shared session: what the host and the
//! participants say to each other inside the relay's opaque payloads.
//!
//! The relay routes on the clear envelope only (`cohost-protocol`); this
//! crate owns everything inside it, for both sides. No IO.
//!
//! - [`Message`] is every application frame, typed; its frame type is
//!   decided in one place ([`Message::frame_type`]). Decoding a received
//!   frame ([`Message::decode`]) never looks at a `serde_json::Value`: stream
//!   frames decode to cohost [`cohost_core::Event`]s, whose unknown kinds
//!   become `EventBody::Unknown` (tolerant of newer hosts).
//! - One relay stream per turn, stream id = the turn's prompt id:
//!   `ai.execution.started` (chunk 0), every cohost event of the turn as
//!   `ai.stream.chunk` (chunks 1..n, in order), then `ai.stream.end` or
//!   `ai.stream.interrupted` carrying the final `stream_end` event.
//!   [`TurnStream`] numbers them; a participant therefore sees exactly the
//!   host's normalized event stream, and the relay's replay covers all of it.
//! - Ids are validated once ([`cohost_protocol::RoomId`],
//!   [`cohost_protocol::StreamId`]), so every frame built from them encodes;
//!   the remaining failures (a payload that cannot be encoded or sealed) are
//!   typed [`ShareError`]s for the caller to surface, never dropped.
//! - Payload bytes pass through a [`PayloadCodec`]: [`Plain`] (JSON in the
//!   clear) today. End-to-end encryption is another codec: AEAD over the
//!   payload with the clear header ([`Header::associated_data`]) as
//!   associated data, a version byte leading the payload and the host's
//!   signature inside it; the messages, the routing and both sides' code stay
//!   as they are.

#![forbid(unsafe_code)]

mod codec;
mod message;
pub mod payload;
mod turn;

pub use codec::{CodecError, Header, PayloadCodec, Plain};
pub use message::{Message, ShareError};
pub use payload::{Chat, ExecutionStarted, Suggestion, SuggestionDecision};
pub use turn::{RoomCodec, TurnStream};

#[cfg(test)]
mod tests;
