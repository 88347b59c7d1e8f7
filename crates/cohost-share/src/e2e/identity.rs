//! Who sends a frame: an Ed25519 signing key, an X25519 key to receive room
//! keys (and, for the host, frames sealed to it), and the sender's sequence
//! numbers (format v2, `docs/sharing-e2e.md`, "Identities").

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use ed25519_dalek::SigningKey;

use super::keys::random_bytes;
use super::wrap::KeyPair;
use crate::codec::CodecError;

/// One sender's keys and its next sequence number. `Debug` shows only the
/// public keys.
pub struct Identity {
    pub(super) signing: SigningKey,
    pub(super) x: KeyPair,
    next_seq: AtomicU64,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("ed25519", &b64(&self.public()))
            .field("x25519", &self.x.public_b64())
            .finish_non_exhaustive()
    }
}

fn b64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

/// Microseconds since the Unix epoch: the first sequence number of an
/// identity made or loaded now, so a sender that comes back with the same
/// keys keeps climbing past what receivers took from it before.
fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX / 2))
}

impl Identity {
    /// A fresh identity.
    pub fn generate() -> Result<Identity, CodecError> {
        Ok(Identity::from_secrets(random_bytes()?, random_bytes()?))
    }

    /// The identity of two 32-byte secrets (an identity file, test
    /// vectors), numbering from now.
    pub fn from_secrets(ed25519_seed: [u8; 32], x25519_secret: [u8; 32]) -> Identity {
        Identity::numbered_from(ed25519_seed, x25519_secret, now_micros())
    }

    /// [`Identity::from_secrets`] with a given first sequence number.
    pub fn numbered_from(ed25519_seed: [u8; 32], x25519_secret: [u8; 32], seq: u64) -> Identity {
        Identity {
            signing: SigningKey::from_bytes(&ed25519_seed),
            x: KeyPair::from_secret(x25519_secret),
            next_seq: AtomicU64::new(seq),
        }
    }

    /// The two secrets, to keep in an identity file (never for a log).
    pub fn to_secrets(&self) -> ([u8; 32], [u8; 32]) {
        (self.signing.to_bytes(), self.x.secret_bytes())
    }

    /// The Ed25519 public key every frame of this sender is signed with.
    pub fn public(&self) -> [u8; 32] {
        self.signing.verifying_key().to_bytes()
    }

    /// The X25519 key pair room keys are wrapped to.
    pub fn x25519(&self) -> &KeyPair {
        &self.x
    }

    /// The next sequence number to sign with.
    pub(super) fn take_seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Ordering::Relaxed)
    }
}
