//! A session's signed record (`docs/book/src/record-and-export.md`): an
//! append-only list of entries, one JSON line each, every one hashed
//! (SHA-256) over its canonical bytes and the previous entry's hash, and
//! signed by the host's long-term Ed25519 key; plus the transcripts made
//! from it. Pure: no files, no clock (callers pass times), no randomness.

pub mod author;
mod chain;
mod entry;
mod error;
pub mod export;
pub mod kind;
mod text;
mod verify;

pub use author::AuthorSig;
pub use chain::{Chain, Resumed};
pub use entry::{
    b64, canonical_bytes, hex, sha256, unb64, unb64_vec, Draft, Entry, AUTHOR_CONTEXT, CONTEXT,
    CONTEXT_SIGNED, GENESIS, VERSION, VERSION_SIGNED,
};
pub use error::RecordError;
pub use export::{export, verify_any, Format, Kind};
pub use verify::{verify, AuthorSigned, Options, Verified};

/// How a host key is shown and passed (`--key`): its 32 bytes in
/// base64url without padding.
pub fn fingerprint(key: &[u8; 32]) -> String {
    b64(key)
}

/// The public key of an Ed25519 `seed`.
pub fn public_key(seed: &[u8; 32]) -> [u8; 32] {
    ed25519_dalek::SigningKey::from_bytes(seed)
        .verifying_key()
        .to_bytes()
}

/// `text` with control characters and bidirectional overrides replaced,
/// safe to show in a terminal or a page.
pub fn inert(text: &str) -> String {
    text::inert(text)
}

#[cfg(test)]
mod author_tests;
#[cfg(test)]
mod tests;
