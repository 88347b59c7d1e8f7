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
//! - Payload bytes pass through a [`PayloadCodec`]: [`E2e`] (format v2 of
//!   `docs/sharing-e2e.md`: AES-256-GCM under the room key of an epoch or
//!   sealed to the host's X25519 key, the clear header with the sender's
//!   role ([`Header::associated_data`]) as associated data, and inside, the
//!   sender's Ed25519 signature and sequence number; a frame opens only
//!   from a key that may send it), or [`Plain`] (JSON in the clear, for
//!   tests). Keys travel as `key.announce` / `key.rotate` / `key.roster`
//!   messages ([`e2e::wrap_key`]).
//! - A review comment on a line of a turn's diff becomes one text, whoever
//!   sends it ([`review::review_prompt`]).

#![forbid(unsafe_code)]

mod codec;
pub mod e2e;
pub mod intake;
mod message;
pub mod payload;
mod presence;
mod replay;
pub mod review;
mod turn;

pub use codec::{CodecError, Evidence, Header, Opened, PayloadCodec, Plain, Sender, Signer};
pub use e2e::E2e;
pub use intake::{LateChunk, StreamIntake};
pub use message::{Message, ShareError};
pub use payload::{
    ApprovalGrant, ApprovalGrants, ApprovalVote, Chat, DoorAnswer, ExecutionStarted,
    InterruptRequest, KeyAnnounce, KeyDoor, KeyRoster, KeyRotate, MemberCommand, MemberOffer,
    MemberOp, QuorumRule, RosterMember, Suggestion, SuggestionDecision, WrappedKey,
};
pub use presence::Presence;
pub use replay::Replays;
pub use turn::{RoomCodec, TurnStream};

#[cfg(test)]
mod tests;
