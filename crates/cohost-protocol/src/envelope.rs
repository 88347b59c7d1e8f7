//! The binary envelope: a small clear routing header followed by opaque payload bytes.
//!
//! One WebSocket **binary** message carries exactly one frame:
//!
//! ```text
//! offset  size  field
//! 0       1     version        = 1 (PROTOCOL_VERSION)
//! 1       1     type           frame type code (FrameType::code)
//! 2       1     sender role    0 = unstamped, 1 HOST, 2 CO_DRIVER, 3 VIEWER (stamped by the relay)
//! 3       1     flags          reserved, must be 0
//! 4       8     sender conn id u64 big-endian (stamped by the relay; clients send 0)
//! 12      8     chunk index    u64 big-endian (host-assigned; meaningful when a stream id is present)
//! 20      1     room length R  1..=64
//! 21      1     stream len S   0..=64 (0 = no stream)
//! 22      R     room id        ASCII [A-Za-z0-9_-]
//! 22+R    S     stream id      ASCII [A-Za-z0-9_-]
//! 22+R+S  ..    payload        opaque bytes, to the end of the message
//! ```
//!
//! The relay overwrites the role and sender fields of every frame a client sends,
//! so they are never trusted from the client. The payload is never parsed by the
//! relay except for relay control frames ([`FrameType::is_control`]).

use bytes::{BufMut, Bytes, BytesMut};

// The error, the header's numbers and the id rule have modules of their own
// (the id types need them too); they stay reachable here as before.
pub use crate::error::EnvelopeError;
use crate::frames::FrameType;
pub use crate::header::{FIXED_HEADER_LEN, MAX_ID_LEN, PROTOCOL_VERSION};
pub use crate::ids::is_valid_id;
use crate::ids::{RoomId, StreamId};
use crate::roles::Role;

/// One decoded (or built) frame. Holds the encoded bytes once; cloning is cheap
/// (reference counted) so one encoding is shared by every subscriber.
///
/// `Debug` prints header fields and the payload *length* only, never payload bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Frame {
    bytes: Bytes,
    kind: FrameType,
    room_len: u8,
    stream_len: u8,
}

impl Frame {
    /// Builds and encodes a frame with an unstamped sender (what clients send).
    ///
    /// Fails if `room` or `stream` are not valid ids, or a stream frame has no stream.
    pub fn build(
        kind: FrameType,
        room: &str,
        stream: Option<&str>,
        chunk: u64,
        payload: &[u8],
    ) -> Result<Frame, EnvelopeError> {
        Self::build_stamped(kind, room, stream, chunk, 0, None, payload)
    }

    /// Builds a frame with sender fields set (what the relay emits).
    pub fn build_stamped(
        kind: FrameType,
        room: &str,
        stream: Option<&str>,
        chunk: u64,
        sender: u64,
        role: Option<Role>,
        payload: &[u8],
    ) -> Result<Frame, EnvelopeError> {
        if !is_valid_id(room) {
            return Err(EnvelopeError::InvalidId { field: "room" });
        }
        let stream = stream.unwrap_or("");
        if !stream.is_empty() && !is_valid_id(stream) {
            return Err(EnvelopeError::InvalidId { field: "stream" });
        }
        if kind.is_replayable() && stream.is_empty() {
            return Err(EnvelopeError::MissingStream(kind));
        }
        Ok(Self::encode(
            kind, room, stream, chunk, sender, role, payload,
        ))
    }

    /// A frame of a stream: cannot fail, the ids are valid by type.
    pub fn in_stream(
        kind: FrameType,
        room: &RoomId,
        stream: &StreamId,
        chunk: u64,
        payload: &[u8],
    ) -> Frame {
        Self::encode(
            kind,
            room.as_str(),
            stream.as_str(),
            chunk,
            0,
            None,
            payload,
        )
    }

    /// A frame outside any stream (chunk 0). Fails only for the stream frame
    /// types ([`FrameType::is_replayable`]), which need [`Frame::in_stream`].
    pub fn in_room(kind: FrameType, room: &RoomId, payload: &[u8]) -> Result<Frame, EnvelopeError> {
        if kind.is_replayable() {
            return Err(EnvelopeError::MissingStream(kind));
        }
        Ok(Self::encode(kind, room.as_str(), "", 0, 0, None, payload))
    }

    /// Encodes already validated fields.
    fn encode(
        kind: FrameType,
        room: &str,
        stream: &str,
        chunk: u64,
        sender: u64,
        role: Option<Role>,
        payload: &[u8],
    ) -> Frame {
        let mut b =
            BytesMut::with_capacity(FIXED_HEADER_LEN + room.len() + stream.len() + payload.len());
        b.put_u8(PROTOCOL_VERSION);
        b.put_u8(kind.code());
        b.put_u8(role.map_or(0, Role::code));
        b.put_u8(0);
        b.put_u64(sender);
        b.put_u64(chunk);
        b.put_u8(room.len() as u8);
        b.put_u8(stream.len() as u8);
        b.put_slice(room.as_bytes());
        b.put_slice(stream.as_bytes());
        b.put_slice(payload);
        Frame {
            bytes: b.freeze(),
            kind,
            room_len: room.len() as u8,
            stream_len: stream.len() as u8,
        }
    }

    /// Decodes and validates one envelope. Never panics on any input.
    pub fn decode(bytes: Bytes) -> Result<Frame, EnvelopeError> {
        let b = &bytes[..];
        if b.len() < FIXED_HEADER_LEN {
            return Err(EnvelopeError::Truncated {
                len: b.len(),
                need: FIXED_HEADER_LEN,
            });
        }
        if b[0] != PROTOCOL_VERSION {
            return Err(EnvelopeError::UnsupportedVersion(b[0]));
        }
        let kind = FrameType::from_code(b[1]).ok_or(EnvelopeError::UnknownType(b[1]))?;
        if b[2] != 0 && Role::from_code(b[2]).is_none() {
            return Err(EnvelopeError::InvalidRole(b[2]));
        }
        if b[3] != 0 {
            return Err(EnvelopeError::ReservedFlags(b[3]));
        }
        let (room_len, stream_len) = (b[20], b[21]);
        let need = FIXED_HEADER_LEN + room_len as usize + stream_len as usize;
        if b.len() < need {
            return Err(EnvelopeError::Truncated { len: b.len(), need });
        }
        let room = &b[FIXED_HEADER_LEN..FIXED_HEADER_LEN + room_len as usize];
        let stream = &b[FIXED_HEADER_LEN + room_len as usize..need];
        if !std::str::from_utf8(room).is_ok_and(is_valid_id) {
            return Err(EnvelopeError::InvalidId { field: "room" });
        }
        if stream_len > 0 && !std::str::from_utf8(stream).is_ok_and(is_valid_id) {
            return Err(EnvelopeError::InvalidId { field: "stream" });
        }
        if kind.is_replayable() && stream_len == 0 {
            return Err(EnvelopeError::MissingStream(kind));
        }
        Ok(Frame {
            bytes,
            kind,
            room_len,
            stream_len,
        })
    }

    /// The frame type.
    pub fn kind(&self) -> FrameType {
        self.kind
    }

    /// The sender's role as stamped by the relay (`None` if unstamped).
    pub fn role(&self) -> Option<Role> {
        Role::from_code(self.bytes[2])
    }

    /// The sender connection id as stamped by the relay (0 if unstamped).
    pub fn sender(&self) -> u64 {
        read_u64(&self.bytes[4..12])
    }

    /// The chunk index (meaningful when [`Frame::stream`] is `Some`).
    pub fn chunk(&self) -> u64 {
        read_u64(&self.bytes[12..20])
    }

    /// The room id.
    pub fn room(&self) -> &str {
        // Validated ASCII in decode/build.
        std::str::from_utf8(&self.bytes[FIXED_HEADER_LEN..self.stream_start()]).unwrap_or("")
    }

    /// The stream id, if any.
    pub fn stream(&self) -> Option<&str> {
        if self.stream_len == 0 {
            return None;
        }
        std::str::from_utf8(&self.bytes[self.stream_start()..self.payload_start()]).ok()
    }

    /// The opaque payload (a cheap slice of the encoded frame).
    pub fn payload(&self) -> Bytes {
        self.bytes.slice(self.payload_start()..)
    }

    /// Payload length in bytes.
    pub fn payload_len(&self) -> usize {
        self.bytes.len() - self.payload_start()
    }

    /// The encoded frame, ready to send as one binary WebSocket message.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Total encoded length.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Never true: a frame has at least its header. Present for clippy's `len` convention.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The same header (stamp included) with another payload: what a
    /// tampering relay or network could send; for tests of receivers.
    pub fn with_payload(&self, payload: &[u8]) -> Frame {
        Self::encode(
            self.kind,
            self.room(),
            self.stream().unwrap_or(""),
            self.chunk(),
            self.sender(),
            self.role(),
            payload,
        )
    }

    /// A copy with the sender fields stamped and the type possibly rewritten.
    /// Copies the bytes once; the payload is carried over untouched.
    pub fn restamp(&self, kind: FrameType, sender: u64, role: Role) -> Frame {
        let mut b = BytesMut::from(&self.bytes[..]);
        b[1] = kind.code();
        b[2] = role.code();
        b[4..12].copy_from_slice(&sender.to_be_bytes());
        Frame {
            bytes: b.freeze(),
            kind,
            room_len: self.room_len,
            stream_len: self.stream_len,
        }
    }

    fn stream_start(&self) -> usize {
        FIXED_HEADER_LEN + self.room_len as usize
    }

    fn payload_start(&self) -> usize {
        self.stream_start() + self.stream_len as usize
    }
}

fn read_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    u64::from_be_bytes(a)
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("type", &self.kind.name())
            .field("room", &self.room())
            .field("stream", &self.stream())
            .field("chunk", &self.chunk())
            .field("sender", &self.sender())
            .field("role", &self.role())
            .field("payload_len", &self.payload_len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_ids_build_the_same_frames() {
        let room = RoomId::new("room-1").unwrap();
        let stream = StreamId::new("st_55").unwrap();
        let typed = Frame::in_stream(FrameType::StreamChunk, &room, &stream, 7, b"hello");
        let built =
            Frame::build(FrameType::StreamChunk, "room-1", Some("st_55"), 7, b"hello").unwrap();
        assert_eq!(typed, built);
        let chat = Frame::in_room(FrameType::ChatMessage, &room, b"hi").unwrap();
        assert_eq!(chat.stream(), None);
        assert_eq!(
            Frame::in_room(FrameType::StreamEnd, &room, b""),
            Err(EnvelopeError::MissingStream(FrameType::StreamEnd))
        );
    }

    #[test]
    fn build_decode_round_trip() {
        let f = Frame::build(FrameType::StreamChunk, "room-1", Some("st_55"), 7, b"hello").unwrap();
        let d = Frame::decode(f.bytes().clone()).unwrap();
        assert_eq!(d.kind(), FrameType::StreamChunk);
        assert_eq!(d.room(), "room-1");
        assert_eq!(d.stream(), Some("st_55"));
        assert_eq!(d.chunk(), 7);
        assert_eq!(d.sender(), 0);
        assert_eq!(d.role(), None);
        assert_eq!(&d.payload()[..], b"hello");
        let s = d.restamp(FrameType::StreamChunk, 42, Role::Host);
        assert_eq!((s.sender(), s.role()), (42, Some(Role::Host)));
        assert_eq!(&s.payload()[..], b"hello");
        assert!(!format!("{s:?}").contains("hello"));
    }

    #[test]
    fn rejects_bad_input_without_panicking() {
        for len in 0..FIXED_HEADER_LEN + 4 {
            let _ = Frame::decode(Bytes::from(vec![1u8; len]));
            let _ = Frame::decode(Bytes::from(vec![0xffu8; len]));
        }
        let good = Frame::build(FrameType::ChatMessage, "r", None, 0, b"x").unwrap();
        let mut v = good.bytes().to_vec();
        v[0] = 2;
        assert_eq!(
            Frame::decode(v.clone().into()),
            Err(EnvelopeError::UnsupportedVersion(2))
        );
        v[0] = 1;
        v[20] = 200;
        assert!(matches!(
            Frame::decode(v.into()),
            Err(EnvelopeError::Truncated { .. })
        ));
        assert!(Frame::build(FrameType::StreamChunk, "r", None, 0, b"").is_err());
        assert!(Frame::build(FrameType::ChatMessage, "r/x", None, 0, b"").is_err());
    }
}
