//! A participant's own word in the host's record: the sharing frame the
//! participant signed (format v2, `docs/sharing-e2e.md`), kept byte for
//! byte with its signature, and what it must say for the entry to stand.
//!
//! The host signs every entry, so the host could write "ana suggested X"
//! when ana never did. An entry that carries ana's signed frame cannot lie
//! about it unnoticed: the signature must verify with her key, the frame
//! must be the kind of message the entry records, and the fields the entry
//! shows (the suggestion's text, whom it is for, a vote's allow or deny)
//! must be the frame's own. Checked here without any key of the room: the
//! signed bytes are the plaintext, never the ciphertext.
//!
//! What it cannot show is *who* the key is: the host bound it to an invite
//! (a secret a verifier does not hold), so the entry's `author` name stays
//! the host's word; the key is what a participant can compare with its own.

use ed25519_dalek::{Signature, VerifyingKey};
use serde_json::Value;

use crate::kind;

/// Domain separation at the start of every signed sharing frame (format v2).
pub const FRAME_CONTEXT: &[u8] = b"cohost-e2e-v2\0";
/// The sharing envelope version the frame's associated data starts with.
const ENVELOPE_VERSION: u8 = 1;
/// Frame type codes (`cohost_protocol::FrameType`), as signed.
const SUGGEST_PROMPT: u8 = 1;
const APPROVAL_VOTE: u8 = 17;

/// What an author signed, as the host received it.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthorSig {
    /// The author's Ed25519 public key.
    pub key: [u8; 32],
    /// The exact signed bytes: `"cohost-e2e-v2\0" | AD | mode | epoch |
    /// seq | body`.
    pub signed: Vec<u8>,
    /// The Ed25519 signature over `signed`.
    pub sig: [u8; 64],
}

impl std::fmt::Debug for AuthorSig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorSig")
            .field("key", &crate::b64(&self.key))
            .field("signed", &self.signed.len())
            .finish_non_exhaustive()
    }
}

/// A signed frame taken apart (`docs/sharing-e2e.md`, "Associated data"
/// and "Payload").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedFrame {
    /// The frame type code (1 `ai.request.suggest_prompt`, 17
    /// `ai.tool.approval_vote`, ...).
    pub frame_type: u8,
    /// The sender's role code as it signed it (not authoritative: the
    /// host's binding decides a role).
    pub role: u8,
    /// The room the frame was sealed for.
    pub room: String,
    /// The stream it belongs to (empty outside a stream).
    pub stream: String,
    /// 0: under the room key; 1: sealed to the host.
    pub mode: u8,
    /// The room key epoch (0 in mode 1).
    pub epoch: u32,
    /// The sender's sequence number: no two of a sender's frames share one.
    pub seq: u64,
    /// The message JSON.
    pub body: Vec<u8>,
}

/// Why an author's frame does not stand behind its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorError {
    /// The signature does not verify with the key.
    Signature,
    /// The signed bytes are not a signed sharing frame of the entry's kind.
    Frame(String),
    /// The entry says something the frame does not: the field named.
    Differs(&'static str),
}

fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if b.len() < n {
        return None;
    }
    let (head, rest) = b.split_at(n);
    *b = rest;
    Some(head)
}

fn text(bytes: &[u8]) -> Option<String> {
    String::from_utf8(bytes.to_vec()).ok()
}

/// Take `signed` apart; `None` when it is not a signed sharing frame.
pub fn parse(signed: &[u8]) -> Option<SignedFrame> {
    let mut b = signed;
    if take(&mut b, FRAME_CONTEXT.len())? != FRAME_CONTEXT {
        return None;
    }
    let head = take(&mut b, 3)?;
    if head[0] != ENVELOPE_VERSION {
        return None;
    }
    let _chunk = take(&mut b, 8)?;
    let room_len = take(&mut b, 1)?[0] as usize;
    let room = text(take(&mut b, room_len)?)?;
    let stream_len = take(&mut b, 1)?[0] as usize;
    let stream = text(take(&mut b, stream_len)?)?;
    let mode = take(&mut b, 1)?[0];
    let epoch = u32::from_be_bytes(take(&mut b, 4)?.try_into().ok()?);
    let seq = u64::from_be_bytes(take(&mut b, 8)?.try_into().ok()?);
    Some(SignedFrame {
        frame_type: head[1],
        role: head[2],
        room,
        stream,
        mode,
        epoch,
        seq,
        body: b.to_vec(),
    })
}

/// Whether entries of `kind` may carry an author's frame, and of which
/// frame type (code, name).
pub fn frame_of(kind: &str) -> Option<(u8, &'static str)> {
    match kind {
        kind::SUGGESTION => Some((SUGGEST_PROMPT, "ai.request.suggest_prompt")),
        kind::APPROVAL_VOTE => Some((APPROVAL_VOTE, "ai.tool.approval_vote")),
        _ => None,
    }
}

/// Check that `a` stands behind an entry of `kind` whose body is `body`:
/// the signature verifies with `a.key` (strictly), the bytes are a signed
/// frame of the type the kind records, and every field the entry shows is
/// the frame's own:
///
/// - `suggestion`: `suggestion_id` and `text` equal, `to` equal or absent
///   in both (the participant's `from` is not compared: the entry's author
///   is the name the host bound the key to, never the one a sender gives);
/// - `approval_vote`: `allow` equal, and `tool_id` equal when the frame
///   names one (a vote without one is for the only call pending, which
///   the entry names as the host resolved it).
///
/// Returns the frame.
pub fn check(kind: &str, body: &str, a: &AuthorSig) -> Result<SignedFrame, AuthorError> {
    let ok = VerifyingKey::from_bytes(&a.key).is_ok_and(|k| {
        k.verify_strict(&a.signed, &Signature::from_bytes(&a.sig))
            .is_ok()
    });
    if !ok {
        return Err(AuthorError::Signature);
    }
    let Some((code, name)) = frame_of(kind) else {
        return Err(AuthorError::Frame(format!(
            "a `{}` entry cannot carry a participant's frame in this version",
            crate::inert(kind)
        )));
    };
    let frame = parse(&a.signed).ok_or_else(|| {
        AuthorError::Frame("the signed bytes are not a signed sharing frame".into())
    })?;
    if frame.frame_type != code {
        return Err(AuthorError::Frame(format!(
            "the signed frame is of type {}, not {name}",
            frame.frame_type
        )));
    }
    let said: Value = serde_json::from_slice(&frame.body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| AuthorError::Frame("the signed frame's body is not a JSON object".into()))?;
    let entry: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let present = |field: &str| said.get(field).filter(|v| !v.is_null());
    // A field the frame must hold, and the entry with the same value.
    let required = |field: &'static str| -> Result<(), AuthorError> {
        match present(field) {
            Some(x) if entry.get(field) == Some(x) => Ok(()),
            _ => Err(AuthorError::Differs(field)),
        }
    };
    // A field both leave out, or both hold with the same value.
    let optional = |field: &'static str| -> Result<(), AuthorError> {
        match (present(field), entry.get(field).filter(|v| !v.is_null())) {
            (None, None) => Ok(()),
            (Some(x), Some(y)) if x == y => Ok(()),
            _ => Err(AuthorError::Differs(field)),
        }
    };
    match kind {
        kind::SUGGESTION => {
            required("suggestion_id")?;
            required("text")?;
            optional("to")?;
        }
        _ => {
            required("allow")?;
            if present("tool_id").is_some() {
                required("tool_id")?;
            }
        }
    }
    Ok(frame)
}
