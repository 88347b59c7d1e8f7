//! One entry of a record: its fields as stored (one JSON line), the bytes
//! its hash covers, and sealing (hash + the host's signature).
//!
//! The canonical bytes are length-prefixed binary, not canonical JSON, so an
//! independent verifier needs no JSON canonicalization: it decodes the line,
//! rebuilds these bytes from the fields and hashes them. The line itself
//! must also be exactly what this module writes for those fields
//! ([`Entry::to_line`]), so no byte of it can change unnoticed.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ed25519_dalek::{Signer, SigningKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The format version of an entry without a participant's signed frame
/// (`v`): every entry a record held before participants signed, and most
/// entries still.
pub const VERSION: u32 = 1;
/// The format version of an entry that carries the frame its author signed
/// (`author_signed`). An entry takes the lowest version that can say what
/// it holds, so a record without participants' frames reads as before with
/// an older verifier.
pub const VERSION_SIGNED: u32 = 2;
/// Domain separation at the start of a version-1 entry's canonical bytes.
pub const CONTEXT: &[u8] = b"cohost-record-v1\0";
/// Domain separation at the start of a version-2 entry's canonical bytes.
pub const CONTEXT_SIGNED: &[u8] = b"cohost-record-v2\0";
/// Domain separation of an author's own signature over an entry's body.
pub const AUTHOR_CONTEXT: &[u8] = b"cohost-record-v1 author\0";
/// The `prev` of the first entry: 32 zero bytes, hex.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One entry, field for field as stored. Field order is the line's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Format version ([`VERSION`]).
    pub v: u32,
    /// Position in the record: 1 for the first entry, then +1 exactly (the
    /// entry's line number).
    pub seq: u64,
    /// When the host wrote it, milliseconds since the Unix epoch.
    pub ts: u64,
    /// The previous entry's `hash` ([`GENESIS`] for the first).
    pub prev: String,
    /// What the entry is (`session`, `prompt`, `text`, `event`, ...).
    pub kind: String,
    /// Who made what the entry records, as the host saw it (a participant's
    /// name and role, `host`, `policy`); absent for the agent's own output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// The author's Ed25519 public key (base64url, no padding), when the
    /// author signed the body itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_public_key: Option<String>,
    /// The author's signature (base64url): in a version-1 entry over
    /// [`AUTHOR_CONTEXT`] | body; in a version-2 entry over `author_signed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_sig: Option<String>,
    /// Version 2: the exact bytes the author signed (base64url), a sharing
    /// frame's signed message (`docs/sharing-e2e.md`, "Payload"), whose
    /// body must say what this entry's body says ([`crate::author`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_signed: Option<String>,
    /// The entry's content: JSON text (an object), kept as a string so its
    /// exact bytes are what is hashed.
    pub body: String,
    /// Lowercase hex SHA-256 of the canonical bytes ([`canonical_bytes`]).
    pub hash: String,
    /// The host's Ed25519 signature over the 32 bytes of `hash` (base64url).
    pub sig: String,
}

/// What is sealed into an entry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Draft {
    /// See [`Entry::kind`].
    pub kind: String,
    /// See [`Entry::author`].
    pub author: Option<String>,
    /// See [`Entry::author_public_key`] (raw 32 bytes).
    pub author_public_key: Option<[u8; 32]>,
    /// See [`Entry::author_sig`] (raw 64 bytes).
    pub author_sig: Option<[u8; 64]>,
    /// See [`Entry::author_signed`] (raw bytes).
    pub author_signed: Option<Vec<u8>>,
    /// See [`Entry::body`].
    pub body: String,
}

impl Draft {
    /// The entry `v` this draft is sealed as: [`VERSION_SIGNED`] when it
    /// carries its author's signed frame, else [`VERSION`].
    pub fn version(&self) -> u32 {
        if self.author_signed.is_some() {
            VERSION_SIGNED
        } else {
            VERSION
        }
    }

    /// A draft carrying `a`, the author's own signature of what it says.
    pub fn signed_by(self, a: &crate::author::AuthorSig) -> Draft {
        Draft {
            author_public_key: Some(a.key),
            author_sig: Some(a.sig),
            author_signed: Some(a.signed.clone()),
            ..self
        }
    }
}

fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    // A record entry is far below 4 GiB; a longer field would not be
    // written (the writer bounds bodies), so the cast never truncates.
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}

fn optional(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        None => out.push(0),
        Some(b) => {
            out.push(1);
            field(out, b);
        }
    }
}

/// The bytes an entry's hash covers (version 1):
///
/// ```text
/// "cohost-record-v1\0" | seq (u64 BE) | ts (u64 BE) | prev (32 bytes)
/// | str(kind) | opt(author) | opt(author_public_key, 32 raw bytes)
/// | opt(author_sig, 64 raw bytes) | str(body)
/// str(x) = len (u32 BE) | bytes;  opt(x) = 0x00 when absent, 0x01 | str(x)
/// ```
///
/// Version 2 ([`Draft::version`]) starts with `"cohost-record-v2\0"` and
/// has `opt(author_signed, raw bytes)` between `author_sig` and `body`.
pub fn canonical_bytes(seq: u64, ts: u64, prev: &[u8; 32], d: &Draft) -> Vec<u8> {
    let signed = d.author_signed.as_deref();
    let mut out = Vec::with_capacity(
        CONTEXT.len() + 48 + d.kind.len() + d.body.len() + 128 + signed.map_or(0, <[u8]>::len),
    );
    out.extend_from_slice(if d.version() == VERSION {
        CONTEXT
    } else {
        CONTEXT_SIGNED
    });
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ts.to_be_bytes());
    out.extend_from_slice(prev);
    field(&mut out, d.kind.as_bytes());
    optional(&mut out, d.author.as_deref().map(str::as_bytes));
    optional(&mut out, d.author_public_key.as_ref().map(|k| k.as_slice()));
    optional(&mut out, d.author_sig.as_ref().map(|s| s.as_slice()));
    if d.version() != VERSION {
        optional(&mut out, signed);
    }
    field(&mut out, d.body.as_bytes());
    out
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// 32 bytes from lowercase hex (`None`: not exactly that).
pub(crate) fn unhex32(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64
        || text
            .bytes()
            .any(|b| !matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[i * 2..i * 2 + 2], 16).ok()?;
    }
    Some(out)
}

/// Base64url without padding.
pub fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// Bytes from base64url without padding, in its one encoding.
pub fn unb64_vec(text: &str) -> Option<Vec<u8>> {
    let v = B64.decode(text).ok()?;
    (B64.encode(&v) == text).then_some(v)
}

/// Exactly `N` bytes from base64url without padding.
pub fn unb64<const N: usize>(text: &str) -> Option<[u8; N]> {
    let v = B64.decode(text).ok()?;
    // Only the one encoding of those bytes (no trailing bits set).
    if B64.encode(&v) != text {
        return None;
    }
    v.try_into().ok()
}

impl Entry {
    /// Seal `d` as entry `seq` after the entry whose hash is `prev`.
    pub fn seal(key: &SigningKey, seq: u64, ts: u64, prev: &[u8; 32], d: Draft) -> Entry {
        let hash = sha256(&canonical_bytes(seq, ts, prev, &d));
        let sig = key.sign(&hash);
        Entry {
            v: d.version(),
            seq,
            ts,
            prev: hex(prev),
            kind: d.kind,
            author: d.author,
            author_public_key: d.author_public_key.map(|k| b64(&k)),
            author_sig: d.author_sig.map(|s| b64(&s)),
            author_signed: d.author_signed.as_deref().map(b64),
            body: d.body,
            hash: hex(&hash),
            sig: b64(&sig.to_bytes()),
        }
    }

    /// The entry's line, without its newline: compact JSON, fields in
    /// struct order.
    pub fn to_line(&self) -> String {
        // Serializing a struct of strings and integers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The body as JSON (`Null` when it is not JSON, which verification
    /// refuses).
    pub fn body_json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}
