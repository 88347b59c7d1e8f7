//! Wrapping a room key to one participant's X25519 public key, for
//! `key.rotate`: X25519 with a fresh ephemeral key, HKDF-SHA256 bound to the
//! room and epoch, then AES-256-GCM.

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::{Aes256Gcm, KeyInit, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use cohost_protocol::RoomId;
use hkdf::Hkdf;
use sha2::Sha256;
use x25519_dalek::{PublicKey, StaticSecret};

use super::keys::{random_bytes, RoomKey};
use crate::codec::CodecError;
use crate::payload::WrappedKey;

/// HKDF info prefix of the wrapping key (the epoch follows, 4 bytes BE).
const WRAP_INFO: &[u8] = b"cohost-e2e-v2 key-wrap";
/// HKDF info prefix of a frame sealed to the host (the ephemeral public key
/// follows, 32 bytes).
const TO_HOST_INFO: &[u8] = b"cohost-e2e-v2 to-host";

/// An X25519 key pair: a participant's public half goes out in
/// `key.announce` and the host wraps new room keys to it; the host's public
/// half rides in its invites and frames meant for the host alone are sealed
/// to it.
pub struct KeyPair {
    secret: StaticSecret,
    public: PublicKey,
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyPair")
            .field("public", &self.public_b64())
            .finish_non_exhaustive()
    }
}

impl KeyPair {
    /// A fresh key pair.
    pub fn generate() -> Result<KeyPair, CodecError> {
        Ok(KeyPair::from_secret(random_bytes()?))
    }

    /// The key pair of a secret (test vectors).
    pub fn from_secret(secret: [u8; 32]) -> KeyPair {
        let secret = StaticSecret::from(secret);
        KeyPair {
            public: PublicKey::from(&secret),
            secret,
        }
    }

    /// The public key, base64url without padding (as `key.announce` sends it).
    pub fn public_b64(&self) -> String {
        B64.encode(self.public.as_bytes())
    }

    /// The public key's bytes.
    pub fn public_bytes(&self) -> [u8; 32] {
        self.public.to_bytes()
    }

    /// The secret's bytes (an identity file; never for a log).
    pub fn secret_bytes(&self) -> [u8; 32] {
        self.secret.to_bytes()
    }
}

/// The AES key of a frame sealed to the host: X25519 between a fresh
/// ephemeral key and the host's, HKDF-SHA256 bound to the room and the
/// ephemeral public key. The sender calls it with its ephemeral secret and
/// the host's public key; the host with its secret and the ephemeral public.
pub(super) fn to_host_cipher(
    room: &RoomId,
    ours: &StaticSecret,
    theirs: &PublicKey,
    eph_public: &[u8; 32],
) -> Result<Aes256Gcm, CodecError> {
    let shared = ours.diffie_hellman(theirs);
    if !shared.was_contributory() {
        return Err(CodecError::BadKey("X25519 public key (low order)"));
    }
    let mut info = TO_HOST_INFO.to_vec();
    info.extend_from_slice(eph_public);
    let mut k = [0u8; 32];
    Hkdf::<Sha256>::new(Some(room.as_str().as_bytes()), shared.as_bytes())
        .expand(&info, &mut k)
        .map_err(|_| CodecError::Other("HKDF refused a 32-byte output".into()))?;
    Ok(Aes256Gcm::new(&k.into()))
}

impl KeyPair {
    pub(super) fn secret(&self) -> &StaticSecret {
        &self.secret
    }
}

fn decode<const N: usize>(s: &str, what: &'static str) -> Result<[u8; N], CodecError> {
    B64.decode(s)
        .ok()
        .and_then(|v| <[u8; N]>::try_from(v).ok())
        .ok_or(CodecError::BadKey(what))
}

/// The AES key that wraps epoch `epoch`'s room key between `ours` and `theirs`.
fn wrapping_cipher(
    room: &RoomId,
    epoch: u32,
    ours: &StaticSecret,
    theirs: &PublicKey,
) -> Result<Aes256Gcm, CodecError> {
    let shared = ours.diffie_hellman(theirs);
    if !shared.was_contributory() {
        // A low-order public key would make the wrap readable by anyone.
        return Err(CodecError::BadKey("X25519 public key (low order)"));
    }
    let mut info = WRAP_INFO.to_vec();
    info.extend_from_slice(&epoch.to_be_bytes());
    let mut k = [0u8; 32];
    Hkdf::<Sha256>::new(Some(room.as_str().as_bytes()), shared.as_bytes())
        .expand(&info, &mut k)
        .map_err(|_| CodecError::Other("HKDF refused a 32-byte output".into()))?;
    Ok(Aes256Gcm::new(&k.into()))
}

/// `key` of `epoch` wrapped for connection `to`, whose announced public key
/// is `recipient` (base64url).
pub fn wrap_key(
    room: &RoomId,
    epoch: u32,
    key: &RoomKey,
    to: u64,
    recipient: &str,
) -> Result<WrappedKey, CodecError> {
    wrap_key_with(
        random_bytes()?,
        random_bytes()?,
        room,
        epoch,
        key,
        to,
        recipient,
    )
}

/// [`wrap_key`] with a given ephemeral secret and nonce (test vectors).
pub(crate) fn wrap_key_with(
    eph: [u8; 32],
    nonce: [u8; 12],
    room: &RoomId,
    epoch: u32,
    key: &RoomKey,
    to: u64,
    recipient: &str,
) -> Result<WrappedKey, CodecError> {
    let theirs = PublicKey::from(decode::<32>(recipient, "X25519 public key")?);
    let eph = StaticSecret::from(eph);
    let cipher = wrapping_cipher(room, epoch, &eph, &theirs)?;
    let ct = cipher
        .encrypt(
            &Nonce::from(nonce),
            Payload {
                msg: &key.to_bytes(),
                aad: &epoch.to_be_bytes(),
            },
        )
        .map_err(|_| CodecError::Other("AES-GCM refused to wrap the key".into()))?;
    Ok(WrappedKey {
        epoch,
        to,
        eph: B64.encode(PublicKey::from(&eph).as_bytes()),
        nonce: B64.encode(nonce),
        ct: B64.encode(ct),
    })
}

/// The room key inside a wrap addressed to `pair`.
pub fn unwrap_key(room: &RoomId, pair: &KeyPair, w: &WrappedKey) -> Result<RoomKey, CodecError> {
    let eph = PublicKey::from(decode::<32>(&w.eph, "ephemeral key")?);
    let nonce = decode::<12>(&w.nonce, "wrap nonce")?;
    let ct = B64
        .decode(&w.ct)
        .map_err(|_| CodecError::BadKey("wrapped key"))?;
    let cipher = wrapping_cipher(room, w.epoch, &pair.secret, &eph)?;
    let key = cipher
        .decrypt(
            &Nonce::from(nonce),
            Payload {
                msg: &ct,
                aad: &w.epoch.to_be_bytes(),
            },
        )
        .map_err(|_| CodecError::Tampered)?;
    let key = <[u8; 32]>::try_from(key).map_err(|_| CodecError::BadKey("wrapped key"))?;
    Ok(RoomKey::from_bytes(key))
}
