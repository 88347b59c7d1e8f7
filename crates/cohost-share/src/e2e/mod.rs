//! The end-to-end payload codec, format v1 (`docs/sharing-e2e.md`): every
//! application payload is AES-256-GCM under the room key of an epoch, bound
//! to the frame's clear header as associated data, and the host's frames
//! carry an Ed25519 signature inside the ciphertext. The relay holds no key.
//!
//! ```text
//! payload = 0x01 | epoch (u32 BE) | nonce (12) | AES-256-GCM(key[epoch], nonce, AD, inner)
//! inner   = flags (bit 0: signed) | [Ed25519 signature (64)] | body
//! signed  = "cohost-e2e-v1\0" | AD | epoch (u32 BE) | body
//! ```

mod keys;
mod wrap;

use std::sync::{PoisonError, RwLock};

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use cohost_protocol::{may_send, FrameType, InviteKeys, Role};
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

use crate::codec::{CodecError, Header, PayloadCodec};

pub use keys::{random_bytes, RoomKey};
pub use wrap::{unwrap_key, wrap_key, KeyPair};

/// The payload version this build writes and reads.
pub const PAYLOAD_VERSION: u8 = 1;
/// Bytes before the ciphertext: version, epoch, nonce.
const PREFIX_LEN: usize = 1 + 4 + 12;
/// The AES-GCM tag.
const TAG_LEN: usize = 16;
/// Domain separation of the host signature.
const SIG_CONTEXT: &[u8] = b"cohost-e2e-v1\0";
/// The `flags` bit of a signed inner payload.
const FLAG_SIGNED: u8 = 1;

/// The epoch a frame of `kind` is sealed under, given the sender's current
/// one: key messages always use the invite's key (epoch 0), so a participant
/// that holds only the invite can announce itself and read its keys; their
/// secrets are the wrapped keys inside.
fn seal_epoch(kind: FrameType, current: u32) -> u32 {
    match kind {
        FrameType::KeyAnnounce | FrameType::KeyRotate => 0,
        _ => current,
    }
}

/// Frames only the host may send (the one permission matrix says so): they
/// speak for the agent or the room, so they open only with the host's
/// signature, whatever role the relay stamped on them. A co-driver's
/// suggestion reaches the host as `prompt_suggested`, which nobody sends:
/// it is judged as the `suggest_prompt` it was sealed as.
fn host_only(kind: FrameType) -> bool {
    let kind = match kind {
        FrameType::PromptSuggested => FrameType::SuggestPrompt,
        k => k,
    };
    may_send(kind, Role::Host) && !may_send(kind, Role::CoDriver) && !may_send(kind, Role::Viewer)
}

/// The bytes the host signs for a frame.
fn signed_bytes(ad: &[u8], epoch: u32, body: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(SIG_CONTEXT.len() + ad.len() + 4 + body.len());
    m.extend_from_slice(SIG_CONTEXT);
    m.extend_from_slice(ad);
    m.extend_from_slice(&epoch.to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// The end-to-end codec of one room, for the host (which signs) or a
/// participant (which verifies). Shared behind an `Arc`: the host rotates
/// and a participant learns keys while frames are sealed and opened.
pub struct E2e {
    keys: RwLock<keys::KeyRing>,
    signer: Option<SigningKey>,
    host: VerifyingKey,
}

impl std::fmt::Debug for E2e {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E2e")
            .field("epoch", &self.current_epoch())
            .field("signs", &self.signer.is_some())
            .finish_non_exhaustive()
    }
}

impl E2e {
    /// The host's codec for a new room: a fresh room key and signing key.
    pub fn generate_host() -> Result<E2e, CodecError> {
        Ok(E2e::host(RoomKey::generate()?, random_bytes()?))
    }

    /// The host's codec from a room key (epoch 0) and an Ed25519 seed.
    pub fn host(room_key: RoomKey, signing_seed: [u8; 32]) -> E2e {
        let signer = SigningKey::from_bytes(&signing_seed);
        E2e {
            host: signer.verifying_key(),
            keys: RwLock::new(keys::KeyRing::new(room_key)),
            signer: Some(signer),
        }
    }

    /// A participant's codec from the keys in its invite.
    pub fn participant(keys: &InviteKeys) -> Result<E2e, CodecError> {
        let host = VerifyingKey::from_bytes(&keys.host_public)
            .map_err(|_| CodecError::BadKey("host public key in the invite"))?;
        Ok(E2e {
            keys: RwLock::new(keys::KeyRing::new(RoomKey::from_bytes(keys.room_key))),
            signer: None,
            host,
        })
    }

    /// What the host puts into its invites: the epoch-0 key and its public key.
    pub fn invite_keys(&self) -> InviteKeys {
        let epoch0 = self.ring(|r| r.key(0).map(RoomKey::to_bytes));
        InviteKeys {
            room_key: epoch0.unwrap_or([0; 32]),
            host_public: self.host.to_bytes(),
        }
    }

    fn ring<T>(&self, f: impl FnOnce(&keys::KeyRing) -> T) -> T {
        f(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn ring_mut<T>(&self, f: impl FnOnce(&mut keys::KeyRing) -> T) -> T {
        f(&mut self.keys.write().unwrap_or_else(PoisonError::into_inner))
    }

    /// The epoch new frames are sealed under.
    pub fn current_epoch(&self) -> u32 {
        self.ring(keys::KeyRing::current)
    }

    /// The host starts a new epoch with a fresh key; frames sealed from now
    /// on are unreadable with the older keys. Returns the new epoch.
    pub fn rotate(&self) -> Result<u32, CodecError> {
        let key = RoomKey::generate()?;
        Ok(self.ring_mut(|r| r.push(key)))
    }

    /// A participant learns the key of `epoch` (from a `key.rotate`); the
    /// newest epoch held becomes the one it seals under.
    pub fn learn(&self, epoch: u32, key: RoomKey) {
        self.ring_mut(|r| r.insert(epoch, key));
    }

    /// Every epoch above 0 and its key, oldest first (what the host wraps
    /// for an announcing participant).
    pub fn later_keys(&self) -> Vec<(u32, RoomKey)> {
        self.ring(keys::KeyRing::later)
    }

    /// Seal with a given nonce (the test vectors fix it).
    fn seal_with(
        &self,
        header: &Header<'_>,
        nonce: [u8; 12],
        body: &[u8],
    ) -> Result<Vec<u8>, CodecError> {
        let epoch = seal_epoch(header.kind, self.current_epoch());
        let cipher = self
            .ring(|r| r.cipher(epoch))
            .ok_or(CodecError::UnknownEpoch(epoch))?;
        let ad = header.associated_data();
        let mut inner = Vec::with_capacity(1 + 64 + body.len());
        match &self.signer {
            Some(s) => {
                inner.push(FLAG_SIGNED);
                let sig = s.sign(&signed_bytes(&ad, epoch, body));
                inner.extend_from_slice(&sig.to_bytes());
            }
            None => inner.push(0),
        }
        inner.extend_from_slice(body);
        let ct = cipher
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: &inner,
                    aad: &ad,
                },
            )
            .map_err(|_| CodecError::Other("AES-GCM refused to seal the payload".into()))?;
        let mut out = Vec::with_capacity(PREFIX_LEN + ct.len());
        out.push(PAYLOAD_VERSION);
        out.extend_from_slice(&epoch.to_be_bytes());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        Ok(out)
    }
}

impl PayloadCodec for E2e {
    fn seal(&self, header: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        self.seal_with(header, random_bytes()?, &plaintext)
    }

    fn open(&self, header: &Header<'_>, payload: &[u8]) -> Result<Vec<u8>, CodecError> {
        let Some((&version, rest)) = payload.split_first() else {
            return Err(CodecError::Truncated(0));
        };
        if version != PAYLOAD_VERSION {
            return Err(CodecError::Version(version));
        }
        if payload.len() < PREFIX_LEN + TAG_LEN + 1 {
            return Err(CodecError::Truncated(payload.len()));
        }
        let (epoch, rest) = rest.split_at(4);
        let epoch = u32::from_be_bytes([epoch[0], epoch[1], epoch[2], epoch[3]]);
        let (nonce, ct) = rest.split_at(12);
        let nonce: [u8; 12] = nonce
            .try_into()
            .map_err(|_| CodecError::Truncated(payload.len()))?;
        let cipher: Aes256Gcm = self
            .ring(|r| r.cipher(epoch))
            .ok_or(CodecError::UnknownEpoch(epoch))?;
        let ad = header.associated_data();
        let inner = cipher
            .decrypt(&Nonce::from(nonce), Payload { msg: ct, aad: &ad })
            .map_err(|_| CodecError::Tampered)?;
        let Some((&flags, rest)) = inner.split_first() else {
            return Err(CodecError::Tampered);
        };
        if flags & !FLAG_SIGNED != 0 {
            // Authenticated but not a v1 layout: a newer sender.
            return Err(CodecError::Version(version));
        }
        let body = if flags & FLAG_SIGNED != 0 {
            if rest.len() < 64 {
                return Err(CodecError::BadSignature);
            }
            let (sig, body) = rest.split_at(64);
            let sig = Signature::from_slice(sig).map_err(|_| CodecError::BadSignature)?;
            self.host
                .verify_strict(&signed_bytes(&ad, epoch, body), &sig)
                .map_err(|_| CodecError::BadSignature)?;
            body
        } else if host_only(header.kind) {
            return Err(CodecError::NotFromHost(header.kind.name()));
        } else if header.role == Some(Role::Host) {
            return Err(CodecError::Unsigned);
        } else {
            rest
        };
        Ok(body.to_vec())
    }
}

#[cfg(test)]
mod tests;
