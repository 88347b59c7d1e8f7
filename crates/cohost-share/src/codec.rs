//! The payload codec seam: plaintext message bytes in, payload bytes out,
//! bound to the frame's clear header.

use cohost_protocol::{FrameType, RoomId, StreamId, PROTOCOL_VERSION};

/// The clear fields a sender sets on a frame. The relay stamps sender id and
/// role itself, so those are not part of it.
#[derive(Debug, Clone, Copy)]
pub struct Header<'a> {
    /// Frame type.
    pub kind: FrameType,
    /// Room.
    pub room: &'a RoomId,
    /// Stream, for stream frames.
    pub stream: Option<&'a StreamId>,
    /// Chunk index (0 outside streams).
    pub chunk: u64,
}

impl Header<'_> {
    /// A canonical encoding of the header (envelope version, type, chunk,
    /// room and stream, each length-prefixed): the associated data an AEAD
    /// codec authenticates, so a payload cannot be replayed under another
    /// frame type, stream, position or room.
    pub fn associated_data(&self) -> Vec<u8> {
        let room = self.room.as_str().as_bytes();
        let stream = self.stream.map_or(&b""[..], |s| s.as_str().as_bytes());
        let mut out = Vec::with_capacity(12 + room.len() + stream.len());
        out.push(PROTOCOL_VERSION);
        out.push(self.kind.code());
        out.extend_from_slice(&self.chunk.to_be_bytes());
        // Ids are at most 64 bytes (validated), so one length byte each.
        out.push(room.len() as u8);
        out.extend_from_slice(room);
        out.push(stream.len() as u8);
        out.extend_from_slice(stream);
        out
    }
}

/// Why a payload could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CodecError(pub String);

/// Turns message bytes into payload bytes and back.
pub trait PayloadCodec: Send + Sync {
    /// The payload to send for `plaintext` in a frame with `header`.
    fn seal(&self, header: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError>;
    /// The message bytes of a received payload.
    fn open(&self, header: &Header<'_>, payload: &[u8]) -> Result<Vec<u8>, CodecError>;
}

/// Today's codec: the payload is the message's JSON, in the clear.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl PayloadCodec for Plain {
    fn seal(&self, _: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        Ok(plaintext)
    }

    fn open(&self, _: &Header<'_>, payload: &[u8]) -> Result<Vec<u8>, CodecError> {
        Ok(payload.to_vec())
    }
}
