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
pub(crate) fn ad_type(kind: FrameType) -> FrameType {
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
    /// The payload is of an older format than this build speaks.
    #[error("the sender speaks sharing format v{0}; everyone in a room needs a cohost with format v2, upgrade the sender's")]
    OldVersion(u8),
    /// The sender's signature does not verify with the key it names.
    #[error("the sender's signature does not verify; the frame was forged or damaged")]
    BadSignature,
    /// Signed by a key the host never bound to an invite (or no longer
    /// does): not someone in the room.
    #[error("a {0} frame is signed by a key the host did not let into the room; refused")]
    UnknownSender(&'static str),
    /// Signed by a key the host removed (a kicked participant).
    #[error("a {0} frame is signed by a participant the host removed; refused")]
    Removed(&'static str),
    /// Signed by a participant whose role may not send this frame.
    #[error("a {kind} frame is signed by {name}, a {role}, who may not send it; refused")]
    NotAllowed {
        /// Frame type name.
        kind: &'static str,
        /// The signer's bound name.
        name: String,
        /// The signer's bound role.
        role: Role,
    },
    /// Sealed to the host, and this side is not the host.
    #[error("a {0} frame is sealed to the host alone; it reached someone else")]
    NotForUs(&'static str),
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
    /// A participant sent a turn of a member the host did not admit as
    /// running on its machine.
    #[error("{name} sent a {kind} frame for {agent}, a member that does not run on their machine; it was refused")]
    NotOwner {
        /// The frame type.
        kind: &'static str,
        /// Who signed it, as bound.
        name: String,
        /// The member the frame named (made inert), or `nobody`.
        agent: String,
    },
    /// Anything else a codec refuses.
    #[error("{0}")]
    Other(String),
}

/// A participant's key as the host bound it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// Its connection (the relay's id, when the key was bound).
    pub conn_id: u64,
    /// Its name (the personal invite's, or the one it announced).
    pub name: String,
    /// The role of the invite it was bound through.
    pub role: Role,
    /// The room's members running on this participant's machine, as the
    /// host admitted them (`docs/sharing-e2e.md`, "Members on other
    /// machines"): the only members whose turns this key may send.
    pub agents: Vec<String>,
}

impl Bound {
    /// How the room shows this person: the bound name and the role, so an
    /// open invite's holder who calls itself `host` is still seen as a
    /// viewer or co-driver. Made inert: the name is remote text.
    pub fn label(&self) -> String {
        let role = match self.role {
            Role::Host => "host",
            Role::CoDriver => "co-driver",
            Role::Viewer => "viewer",
        };
        format!("{} ({role})", cohost_core::sanitize::inert_line(&self.name))
    }
}

/// Who signed a payload that opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signer {
    /// The host (the invite's key).
    Host,
    /// A participant the host bound.
    Participant(Bound),
    /// A key nobody bound yet: only a `key.announce` opens from one.
    Unbound,
}

/// The sender of a payload that opened, as its signature says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    /// Its Ed25519 public key.
    pub key: [u8; 32],
    /// Its sequence number for this frame.
    pub seq: u64,
    /// Who that key is.
    pub signer: Signer,
    /// The signed bytes and the signature, for a participant's frame: what
    /// the host's record keeps so anyone can check who said it.
    pub evidence: Option<Evidence>,
}

/// A participant's signature and what it signed.
#[derive(Clone, PartialEq, Eq)]
pub struct Evidence {
    /// The exact bytes signed (`docs/sharing-e2e.md`, "Payload").
    pub signed: Vec<u8>,
    /// The Ed25519 signature.
    pub signature: [u8; 64],
}

impl std::fmt::Debug for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evidence")
            .field("signed", &self.signed.len())
            .finish_non_exhaustive()
    }
}

/// A payload opened: the message bytes and, for a signing codec, who sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The message bytes.
    pub body: Vec<u8>,
    /// The sender (`None`: a codec that signs nothing, [`Plain`]).
    pub sender: Option<Sender>,
}

/// Turns message bytes into payload bytes and back.
pub trait PayloadCodec: Send + Sync {
    /// The payload to send for `plaintext` in a frame with `header`.
    fn seal(&self, header: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError>;
    /// The message bytes of a received payload, and who sent it.
    fn open(&self, header: &Header<'_>, payload: &[u8]) -> Result<Opened, CodecError>;
}

/// The payload is the message's JSON, in the clear (tests, and rooms whose
/// invites carry no key).
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl PayloadCodec for Plain {
    fn seal(&self, _: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        Ok(plaintext)
    }

    fn open(&self, _: &Header<'_>, payload: &[u8]) -> Result<Opened, CodecError> {
        Ok(Opened {
            body: payload.to_vec(),
            sender: None,
        })
    }
}
