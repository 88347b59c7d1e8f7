//! Payloads of relay control frames ([`FrameType::is_control`]), encoded as JSON.
//!
//! These are the only payloads anyone but the end clients may decode; every other
//! frame's payload is opaque. [`Frame::control`] refuses non-control frames, so
//! the relay cannot decode an application payload by accident.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::envelope::{EnvelopeError, Frame};
use crate::frames::FrameType;
use crate::roles::Role;

/// Why a control payload could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// Tried to decode an opaque (application) payload as control JSON.
    #[error("{0} frames carry an opaque payload that only end clients may decode")]
    NotControl(FrameType),
    /// The JSON did not match the expected shape.
    #[error("malformed {kind} payload: {source}; see cohost-protocol::control for the schema")]
    Json {
        /// The frame type being decoded.
        kind: FrameType,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// The frame could not be built.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
}

/// `room.resume`: the last chunk index the client holds for each stream.
/// Streams not listed are replayed from the start of what the relay holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resume {
    /// stream id -> last chunk index received.
    #[serde(default)]
    pub streams: BTreeMap<String, u64>,
}

/// `room.resync`: the relay no longer holds what the client missed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resync {
    /// Streams that cannot be replayed.
    pub streams: Vec<String>,
    /// Human-readable reason.
    pub reason: String,
}

/// `room.gap`: chunks of a stream were dropped because the client read too slowly.
/// Send `room.resume` with your last index for the stream to get them back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    /// The stream with dropped chunks.
    pub stream: String,
    /// First chunk index that was dropped.
    pub first_dropped: u64,
}

/// Machine-readable error codes of `room.error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The role may not send this frame type.
    Forbidden,
    /// The frame exceeds the size limit for the role.
    TooLarge,
    /// The frame type's rate limit was exceeded.
    RateLimited,
    /// The envelope could not be decoded.
    Malformed,
    /// The frame names another room.
    WrongRoom,
    /// Chunk index not strictly increasing for the stream.
    OutOfOrder,
    /// Authentication failed.
    Unauthorized,
    /// The connection is closed for being too slow.
    SlowConsumer,
    /// The room is full.
    RoomFull,
}

/// `room.error` payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorPayload {
    /// What went wrong.
    pub code: ErrorCode,
    /// Human-readable explanation with what to do next.
    pub message: String,
    /// The refused frame's type, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_type: Option<String>,
}

/// One participant, as seen in presence frames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participant {
    /// Relay-assigned connection id (the `sender` of its frames).
    pub conn_id: u64,
    /// Role in the room.
    pub role: Role,
    /// Display name (token `sub`).
    pub name: String,
}

/// `presence.list` payload.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PresenceList {
    /// Everyone currently known in the room.
    pub participants: Vec<Participant>,
}

/// `room.kick` (host only): remove a participant. The relay revokes the
/// token that connection joined with, disconnects it, and refuses the token
/// from then on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kick {
    /// The participant's connection id (from presence).
    pub conn_id: u64,
}

/// `room.welcome`: sent once after authentication.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Welcome {
    /// The room joined.
    pub room: String,
    /// You.
    pub you: Participant,
    /// Everyone currently known in the room (including you).
    pub participants: Vec<Participant>,
}

impl Frame {
    /// Decodes the JSON payload of a control frame. Refuses opaque frame types.
    pub fn control<T: DeserializeOwned>(&self) -> Result<T, ControlError> {
        if !self.kind().is_control() {
            return Err(ControlError::NotControl(self.kind()));
        }
        serde_json::from_slice(&self.payload()).map_err(|source| ControlError::Json {
            kind: self.kind(),
            source,
        })
    }

    /// Builds a control frame with a JSON payload.
    pub fn control_frame<T: Serialize>(
        kind: FrameType,
        room: &str,
        stream: Option<&str>,
        value: &T,
    ) -> Result<Frame, ControlError> {
        let json =
            serde_json::to_vec(value).map_err(|source| ControlError::Json { kind, source })?;
        Ok(Frame::build(kind, room, stream, 0, &json)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opaque_payloads_cannot_be_decoded_as_control() {
        let f = Frame::build(
            FrameType::StreamChunk,
            "r",
            Some("s"),
            1,
            b"{\"streams\":{}}",
        )
        .unwrap();
        assert!(matches!(
            f.control::<Resume>(),
            Err(ControlError::NotControl(_))
        ));
        let mut r = Resume::default();
        r.streams.insert("s".into(), 3);
        let f = Frame::control_frame(FrameType::RoomResume, "r", None, &r).unwrap();
        assert_eq!(f.control::<Resume>().unwrap(), r);
    }
}
