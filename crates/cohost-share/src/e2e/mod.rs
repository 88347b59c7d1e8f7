//! The end-to-end payload codec, format v2 (`docs/sharing-e2e.md`): every
//! application payload is AES-256-GCM, under the room key of an epoch or
//! sealed to the host's X25519 key, bound to the frame's clear header as
//! associated data, and signed inside by its sender's Ed25519 key with a
//! sequence number. What a frame may say is decided by the key that signed
//! it (the host's, or one the host bound to an invite's role), never by the
//! relay's stamp. The relay holds no key.
//!
//! ```text
//! payload = 0x02 | 0x00 | epoch (4) | nonce (12) | AES-256-GCM(key[epoch], nonce, AD, inner)
//!         | 0x02 | 0x01 | eph (32)  | nonce (12) | AES-256-GCM(to-host key, nonce, AD, inner)
//! inner   = signer (32) | seq (8) | Ed25519 signature (64) | body
//! signed  = "cohost-e2e-v2\0" | AD | mode (1) | epoch (4) | seq (8) | body
//! ```

mod bind;
mod identity;
mod keys;
mod senders;
mod wrap;

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use aes_gcm::aead::{Aead, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use cohost_protocol::{may_send, route, FrameType, InviteKeys, Role, RoomId, Route};
use ed25519_dalek::{Signature, Signer as _, Verifier as _, VerifyingKey};
use x25519_dalek::{PublicKey, StaticSecret};

use cohost_core::sanitize::inert_line;

use crate::codec::{ad_type, CodecError, Evidence, Header, Opened, PayloadCodec, Sender, Signer};
use crate::payload::{KeyRoster, RosterMember};

pub use bind::{bind_proof, proof_holds, ticket_id};
pub use identity::Identity;
pub use keys::{random_bytes, RoomKey};
pub use senders::Bound;
pub use wrap::{unwrap_key, wrap_key, KeyPair};

/// The payload version this build writes and reads.
pub const PAYLOAD_VERSION: u8 = 2;
/// Mode byte: sealed under the room key of an epoch.
const MODE_ROOM: u8 = 0;
/// Mode byte: sealed to the host's X25519 key.
const MODE_TO_HOST: u8 = 1;
/// Bytes before the ciphertext in each mode.
const ROOM_PREFIX: usize = 2 + 4 + 12;
const TO_HOST_PREFIX: usize = 2 + 32 + 12;
/// The AES-GCM tag.
const TAG_LEN: usize = 16;
/// Signer key, sequence number, signature.
const INNER_HEAD: usize = 32 + 8 + 64;
/// Domain separation of every signature.
const SIG_CONTEXT: &[u8] = b"cohost-e2e-v2\0";

/// The epoch a room-key frame of `kind` is sealed under, given the sender's
/// current one: `key.rotate` and `key.door` always use the invite's key
/// (epoch 0), so a participant that holds only the invite can open the keys
/// wrapped for it, and the host's answer while it waits at the door.
fn seal_epoch(kind: FrameType, current: u32) -> u32 {
    match kind {
        FrameType::KeyRotate | FrameType::KeyDoor => 0,
        _ => current,
    }
}

/// Frames the relay delivers to the hosts alone: a participant seals them
/// to the host's key, so nobody else holding the room key reads them.
fn for_the_host(kind: FrameType) -> bool {
    matches!(route(kind), Route::ToHosts(_)) || cohost_protocol::to_hosts_only(kind)
}

/// Frames only the host may send (the one permission matrix says so): they
/// speak for the agent or the room, so they open only with the host's
/// signature.
fn host_only(kind: FrameType) -> bool {
    let kind = ad_type(kind);
    // A member's turn is the host's unless the host admitted a member on
    // the signer's machine (`E2e::authorize`), though the relay lets any
    // co-driver send one.
    kind.is_member_turn()
        || may_send(kind, Role::Host)
            && !may_send(kind, Role::CoDriver)
            && !may_send(kind, Role::Viewer)
}

/// A participant's frame of a member's turn must name, in its signed
/// body, a member the host admitted as running on that participant's
/// machine: the relay cannot tell, and a co-driver must not speak for the
/// host's agents or another's.
fn check_owner(kind: FrameType, b: &Bound, body: &[u8]) -> Result<(), CodecError> {
    if !kind.is_member_turn() {
        return Ok(());
    }
    #[derive(serde::Deserialize)]
    struct Named {
        agent: Option<String>,
    }
    let agent = serde_json::from_slice::<Named>(body)
        .ok()
        .and_then(|n| n.agent);
    match agent {
        Some(a) if b.agents.contains(&a) => Ok(()),
        a => Err(CodecError::NotOwner {
            kind: kind.name(),
            name: b.name.clone(),
            agent: a.map_or_else(|| "nobody".into(), |a| inert_line(&a)),
        }),
    }
}

/// The bytes a sender signs for a frame.
fn signed_bytes(ad: &[u8], mode: u8, epoch: u32, seq: u64, body: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(SIG_CONTEXT.len() + ad.len() + 13 + body.len());
    m.extend_from_slice(SIG_CONTEXT);
    m.extend_from_slice(ad);
    m.push(mode);
    m.extend_from_slice(&epoch.to_be_bytes());
    m.extend_from_slice(&seq.to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// The random parts of one sealed frame (the test vectors fix them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SealRandom {
    pub(crate) nonce: [u8; 12],
    pub(crate) eph: [u8; 32],
}

impl SealRandom {
    fn fresh() -> Result<SealRandom, CodecError> {
        Ok(SealRandom {
            nonce: random_bytes()?,
            eph: random_bytes()?,
        })
    }
}

/// The end-to-end codec of one room, for the host or a participant. Shared
/// behind an `Arc`: keys are rotated, learned and bound while frames are
/// sealed and opened.
pub struct E2e {
    room_keys: RwLock<keys::KeyRing>,
    me: Identity,
    host: VerifyingKey,
    host_x: PublicKey,
    /// The host's: it opens frames sealed to it.
    host_x_secret: Option<StaticSecret>,
    senders: RwLock<senders::Senders>,
}

impl std::fmt::Debug for E2e {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("E2e")
            .field("epoch", &self.current_epoch())
            .field("host", &self.is_host())
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

impl E2e {
    /// The host's codec for a new room: a fresh room key and identity.
    pub fn generate_host() -> Result<E2e, CodecError> {
        Ok(E2e::host(RoomKey::generate()?, Identity::generate()?))
    }

    /// The host's codec from a room key (epoch 0) and its identity.
    pub fn host(room_key: RoomKey, me: Identity) -> E2e {
        E2e {
            host: me.signing.verifying_key(),
            host_x: PublicKey::from(me.x.public_bytes()),
            host_x_secret: Some(me.x.secret().clone()),
            room_keys: RwLock::new(keys::KeyRing::new(room_key)),
            senders: RwLock::new(senders::Senders::default()),
            me,
        }
    }

    /// A participant's codec from the keys in its invite and its identity.
    pub fn participant(keys: &InviteKeys, me: Identity) -> Result<E2e, CodecError> {
        let host = VerifyingKey::from_bytes(&keys.host_public)
            .map_err(|_| CodecError::BadKey("host public key in the invite"))?;
        Ok(E2e {
            room_keys: RwLock::new(keys::KeyRing::new(RoomKey::from_bytes(keys.room_key))),
            me,
            host,
            host_x: PublicKey::from(keys.host_x25519),
            host_x_secret: None,
            senders: RwLock::new(senders::Senders::default()),
        })
    }

    /// Whether this is the host's codec.
    pub fn is_host(&self) -> bool {
        self.host_x_secret.is_some()
    }

    /// This side's identity.
    pub fn identity(&self) -> &Identity {
        &self.me
    }

    /// What the host puts into an invite with `ticket`: the epoch-0 key
    /// and its public keys.
    pub fn invite_keys(&self, ticket: [u8; 16]) -> InviteKeys {
        let epoch0 = self.ring(|r| r.key(0).map(RoomKey::to_bytes));
        InviteKeys {
            room_key: epoch0.unwrap_or([0; 32]),
            host_public: self.host.to_bytes(),
            host_x25519: self.host_x.to_bytes(),
            ticket,
        }
    }

    fn ring<T>(&self, f: impl FnOnce(&keys::KeyRing) -> T) -> T {
        f(&self
            .room_keys
            .read()
            .unwrap_or_else(PoisonError::into_inner))
    }

    fn ring_mut<T>(&self, f: impl FnOnce(&mut keys::KeyRing) -> T) -> T {
        f(&mut self
            .room_keys
            .write()
            .unwrap_or_else(PoisonError::into_inner))
    }

    fn senders<T>(&self, f: impl FnOnce(&senders::Senders) -> T) -> T {
        f(&self.senders.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn senders_mut<T>(&self, f: impl FnOnce(&mut senders::Senders) -> T) -> T {
        f(&mut self.senders.write().unwrap_or_else(PoisonError::into_inner))
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

    /// The host binds a participant's key: frames it signs open as its.
    pub fn bind(&self, key: [u8; 32], who: Bound) {
        self.senders_mut(|s| s.bind(key, who));
    }

    /// The host forgets a key (its participant left; it may come back
    /// through its invite).
    pub fn unbind(&self, key: &[u8; 32]) -> Option<Bound> {
        self.senders_mut(|s| s.unbind(key))
    }

    /// The host removes a key for good (a kick): nothing it signs opens
    /// again, under any epoch.
    pub fn remove(&self, key: [u8; 32]) -> Option<Bound> {
        self.senders_mut(|s| s.remove(key))
    }

    /// The host admits member `agent` as running on the machine of the
    /// participant holding `key` (bound): from now on that key may send
    /// `agent`'s turns. False when the key is not bound.
    pub fn admit_member(&self, key: &[u8; 32], agent: &str) -> bool {
        self.senders_mut(|s| s.admit_member(key, agent))
    }

    /// The host takes member `agent` back from whoever ran it.
    pub fn drop_member(&self, agent: &str) {
        self.senders_mut(|s| s.drop_member(agent));
    }

    /// Whether a key was removed.
    pub fn is_removed(&self, key: &[u8; 32]) -> bool {
        self.senders(|s| s.is_removed(key))
    }

    /// The key bound to a connection, if any.
    pub fn key_of(&self, conn_id: u64) -> Option<([u8; 32], Bound)> {
        self.senders(|s| {
            s.all()
                .find(|(_, b)| b.conn_id == conn_id)
                .map(|(k, b)| (*k, b.clone()))
        })
    }

    /// Who is bound now, as the host tells the room (`key.roster`), sorted
    /// by connection.
    pub fn roster(&self) -> KeyRoster {
        let mut members: Vec<RosterMember> = self.senders(|s| {
            s.all()
                .map(|(k, b)| RosterMember {
                    conn_id: b.conn_id,
                    name: b.name.clone(),
                    role: b.role,
                    ed25519: B64.encode(k),
                    agents: b.agents.clone(),
                })
                .collect()
        });
        members.sort_by_key(|m| m.conn_id);
        KeyRoster { members }
    }

    /// A participant takes the host's roster as the room's keys.
    pub fn take_roster(&self, roster: &KeyRoster) {
        let all: HashMap<[u8; 32], Bound> = roster
            .members
            .iter()
            .filter_map(|m| {
                let key = B64.decode(&m.ed25519).ok()?;
                let key = <[u8; 32]>::try_from(key).ok()?;
                let who = Bound {
                    conn_id: m.conn_id,
                    name: m.name.clone(),
                    role: m.role,
                    agents: m.agents.clone(),
                };
                Some((key, who))
            })
            .collect();
        self.senders_mut(|s| s.replace(all));
    }

    /// Seal with given random parts and sequence number (the test vectors
    /// fix them).
    pub(crate) fn seal_with(
        &self,
        header: &Header<'_>,
        random: SealRandom,
        seq: u64,
        body: &[u8],
    ) -> Result<Vec<u8>, CodecError> {
        let ad = header.associated_data();
        let to_host = !self.is_host() && for_the_host(header.kind);
        let (mode, epoch) = if to_host {
            (MODE_TO_HOST, 0)
        } else {
            (MODE_ROOM, seal_epoch(header.kind, self.current_epoch()))
        };
        let sig = self
            .me
            .signing
            .sign(&signed_bytes(&ad, mode, epoch, seq, body));
        let mut inner = Vec::with_capacity(INNER_HEAD + body.len());
        inner.extend_from_slice(&self.me.public());
        inner.extend_from_slice(&seq.to_be_bytes());
        inner.extend_from_slice(&sig.to_bytes());
        inner.extend_from_slice(body);
        let aead = Payload {
            msg: &inner,
            aad: &ad,
        };
        let mut out = vec![PAYLOAD_VERSION, mode];
        let cipher = if to_host {
            let eph = StaticSecret::from(random.eph);
            let eph_public = PublicKey::from(&eph).to_bytes();
            out.extend_from_slice(&eph_public);
            wrap::to_host_cipher(header.room, &eph, &self.host_x, &eph_public)?
        } else {
            out.extend_from_slice(&epoch.to_be_bytes());
            self.ring(|r| r.cipher(epoch))
                .ok_or(CodecError::UnknownEpoch(epoch))?
        };
        out.extend_from_slice(&random.nonce);
        let ct = cipher
            .encrypt(&Nonce::from(random.nonce), aead)
            .map_err(|_| CodecError::Other("AES-GCM refused to seal the payload".into()))?;
        out.extend_from_slice(&ct);
        Ok(out)
    }

    /// The cipher, mode and epoch of a received payload, and where its
    /// nonce and ciphertext start.
    fn cipher_of(
        &self,
        header: &Header<'_>,
        payload: &[u8],
    ) -> Result<(Aes256Gcm, u8, u32, usize), CodecError> {
        let Some(&version) = payload.first() else {
            return Err(CodecError::Truncated(0));
        };
        match version {
            PAYLOAD_VERSION => {}
            1 => return Err(CodecError::OldVersion(1)),
            v => return Err(CodecError::Version(v)),
        }
        let mode = payload.get(1).copied().ok_or(CodecError::Truncated(1))?;
        let prefix = match mode {
            MODE_ROOM => ROOM_PREFIX,
            MODE_TO_HOST => TO_HOST_PREFIX,
            _ => return Err(CodecError::Version(version)),
        };
        if payload.len() < prefix + TAG_LEN + INNER_HEAD {
            return Err(CodecError::Truncated(payload.len()));
        }
        if mode == MODE_ROOM {
            let mut e = [0u8; 4];
            e.copy_from_slice(&payload[2..6]);
            let epoch = u32::from_be_bytes(e);
            let cipher = self
                .ring(|r| r.cipher(epoch))
                .ok_or(CodecError::UnknownEpoch(epoch))?;
            return Ok((cipher, mode, epoch, 6));
        }
        let Some(secret) = &self.host_x_secret else {
            return Err(CodecError::NotForUs(header.kind.name()));
        };
        let mut eph = [0u8; 32];
        eph.copy_from_slice(&payload[2..34]);
        let cipher = wrap::to_host_cipher(header.room, secret, &PublicKey::from(eph), &eph)?;
        Ok((cipher, mode, 0, 34))
    }

    /// Who `key` is, and whether it may send a frame of `kind`.
    fn authorize(&self, kind: FrameType, key: &[u8; 32]) -> Result<Signer, CodecError> {
        if *key == self.host.to_bytes() {
            return Ok(Signer::Host);
        }
        // A member's turn is the host's, unless the host admitted a member
        // running on the signer's machine ([`E2e::check_owner`] then checks
        // it is that member's).
        let owner = kind.is_member_turn()
            && self.senders(|s| s.get(key).is_some_and(|b| !b.agents.is_empty()));
        if host_only(kind) && !owner {
            return Err(CodecError::NotFromHost(kind.name()));
        }
        if self.is_removed(key) {
            return Err(CodecError::Removed(kind.name()));
        }
        match self.senders(|s| s.get(key).cloned()) {
            Some(b) if may_send(ad_type(kind), b.role) => Ok(Signer::Participant(b)),
            Some(b) => Err(CodecError::NotAllowed {
                kind: kind.name(),
                name: b.name,
                role: b.role,
            }),
            None if kind == FrameType::KeyAnnounce => Ok(Signer::Unbound),
            None => Err(CodecError::UnknownSender(kind.name())),
        }
    }
}

impl PayloadCodec for E2e {
    fn seal(&self, header: &Header<'_>, plaintext: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        self.seal_with(header, SealRandom::fresh()?, self.me.take_seq(), &plaintext)
    }

    fn open(&self, header: &Header<'_>, payload: &[u8]) -> Result<Opened, CodecError> {
        let (cipher, mode, epoch, at) = self.cipher_of(header, payload)?;
        let nonce: [u8; 12] = payload[at..at + 12]
            .try_into()
            .map_err(|_| CodecError::Truncated(payload.len()))?;
        let ad = header.associated_data();
        let inner = cipher
            .decrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: &payload[at + 12..],
                    aad: &ad,
                },
            )
            .map_err(|_| CodecError::Tampered)?;
        if inner.len() < INNER_HEAD {
            return Err(CodecError::Tampered);
        }
        let mut key = [0u8; 32];
        key.copy_from_slice(&inner[..32]);
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&inner[32..40]);
        let seq = u64::from_be_bytes(seq);
        let signature: [u8; 64] = inner[40..INNER_HEAD]
            .try_into()
            .map_err(|_| CodecError::BadSignature)?;
        let body = &inner[INNER_HEAD..];
        let signed = signed_bytes(&ad, mode, epoch, seq, body);
        // Most frames are the host's: its key is held decompressed, which
        // spares each of them a point decompression, and it is the host's
        // own key (not small order), so the plain check is as strict as
        // `verify_strict` for it, without decompressing R on every chunk.
        // Keys announced by participants get the strict check.
        let signature = Signature::from_bytes(&signature);
        let verified = if key == self.host.to_bytes() {
            self.host.verify(&signed, &signature)
        } else {
            VerifyingKey::from_bytes(&key).and_then(|k| k.verify_strict(&signed, &signature))
        };
        verified.map_err(|_| CodecError::BadSignature)?;
        let signature = signature.to_bytes();
        let signer = self.authorize(header.kind, &key)?;
        if let Signer::Participant(b) = &signer {
            check_owner(header.kind, b, body)?;
        }
        let evidence = (signer != Signer::Host).then_some(Evidence { signed, signature });
        Ok(Opened {
            body: body.to_vec(),
            sender: Some(Sender {
                key,
                seq,
                signer,
                evidence,
            }),
        })
    }
}

/// Whether a participant's `key.announce` on `conn_id` proves it holds the
/// invite with `ticket`: the keys it names are its, on this connection.
pub fn announce_holds(
    room: &RoomId,
    conn_id: u64,
    ticket: &[u8; 16],
    a: &crate::payload::KeyAnnounce,
) -> bool {
    let (Ok(ed), Ok(x), Ok(proof)) = (
        B64.decode(&a.ed25519),
        B64.decode(&a.x25519),
        B64.decode(&a.proof),
    ) else {
        return false;
    };
    proof_holds(ticket, room, conn_id, &ed, &x, &proof)
}

#[cfg(test)]
mod tests;
