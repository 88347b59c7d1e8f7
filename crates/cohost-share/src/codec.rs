//! The payload codec seam: plaintext message bytes in, payload bytes out,
//! bound to the frame's clear header.

use cohost_protocol::{FrameType, Role, RoomId, StreamId, PROTOCOL_VERSION};

/// The clear fields of a frame a payload is bound to. The sender fills in
/// its own role; a receiver the role the relay stamped.
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
    /// The sender's role (`None`: unknown, code 0).
    pub role: Option<Role>,
}

impl Header<'_> {
    /// A canonical encoding of the header (envelope version, type, sender
    /// role, chunk, room and stream, each length-prefixed): the associated
    /// data an AEAD codec authenticates, so a payload cannot be replayed
    /// under another frame type, role, stream, position or room
    /// (`docs/sharing-e2e.md`, "Associated data").
    pub fn associated_data(&self) -> Vec<u8> {
        let room = self.room.as_str().as_bytes();
        let stream = self.stream.map_or(&b""[..], |s| s.as_str().as_bytes());
        let mut out = Vec::with_capacity(13 + room.len() + stream.len());
        out.push(PROTOCOL_VERSION);
        out.push(ad_type(self.kind).code());
        out.push(self.role.map_or(0, Role::code));
        out.extend_from_slice(&self.chunk.to_be_bytes());
        // Ids are at most 64 bytes (validated), so one length byte each.
        out.push(room.len() as u8);
        out.extend_from_slice(room);
        out.push(stream.len() as u8);
        out.extend_from_slice(stream);
        out
    }
}

/// The type a frame is sealed under: the relay delivers a co-driver's
/// `suggest_prompt` to hosts as `prompt_suggested`, so both are the sender's
/// type.
fn ad_type(kind: FrameType) -> FrameType {
    match kind {
        FrameType::PromptSuggested => FrameType::SuggestPrompt,
        k => k,
    }
}

/// Why a payload could not be sealed or opened. Every opening failure means
/// the frame is dropped; none is a reason to stop.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The payload's version byte is not one this build reads.
    #[error("unknown payload version {0}; the sender runs a newer cohost, upgrade this one")]
    Version(u8),
    /// Shorter than a sealed payload can be.
    #[error("the payload is {0} bytes, too short to be sealed; it was damaged on the way")]
    Truncated(usize),
    /// No key of the payload's epoch is held.
    #[error(
        "no room key of epoch {0}; a resync asks the host for the keys this participant misses"
    )]
    UnknownEpoch(u32),
    /// The AEAD tag does not verify.
    #[error("the payload does not authenticate: it was damaged, moved to another room, stream, position or type, or sealed with another key")]
    Tampered,
    /// A frame stamped as the host's carries no signature.
    #[error("a host frame carries no host signature; someone other than the host sent it")]
    Unsigned,
    /// The host signature does not verify with the invite's host key.
    #[error("the host signature does not verify with the invite's host key; the frame was forged")]
    BadSignature,
    /// A frame only the host may send (the agent's output, approvals, key
    /// rotation, decisions) arrived without the host's signature, whatever
    /// role the relay stamped on it.
    #[error("a {0} frame carries no host signature, but only the host may send it; it was forged")]
    NotFromHost(&'static str),
    /// The very payload was taken before (a receiver's [`crate::Replays`]
    /// says so): the relay, or someone on the way, sent it again.
    #[error("this frame was already received once; a replay is refused")]
    Replayed,
    /// The system random source failed.
    #[error("cannot read random bytes from the operating system: {0}")]
    Random(String),
    /// A key in a message is not a valid key.
    #[error("invalid {0}; the sender's key material is damaged")]
    BadKey(&'static str),
    /// Anything else a codec refuses.
    #[error("{0}")]
    Other(String),
}

/// Turns message bytes into payload bytes and back.
pub trait PayloadCodec: Send + Sync {
    /// The payload to send for `plaintext` in a frame with `header`.
    fn seal(&self, header: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError>;
    /// The message bytes of a received payload.
    fn open(&self, header: &Header<'_>, payload: &[u8]) -> Result<Vec<u8>, CodecError>;
}

/// The payload is the message's JSON, in the clear (tests, and rooms whose
/// invites carry no key).
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
