//! The host's side of the room keys: who announced which X25519 key, who
//! was kicked, and the `key.rotate` messages that hand newer room keys to
//! the participants still in the room.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use cohost_protocol::{InviteKeys, RoomId};
use cohost_share::e2e::wrap_key;
use cohost_share::{CodecError, E2e, Header, KeyAnnounce, KeyRotate, Message, PayloadCodec};

/// The host's keys and key holders.
#[derive(Debug)]
pub struct HostKeys {
    room: RoomId,
    e2e: Arc<E2e>,
    /// Connection id -> announced X25519 public key (base64url).
    holders: HashMap<u64, String>,
    kicked: HashSet<u64>,
}

impl HostKeys {
    /// Keys for `room` held by `e2e`.
    pub fn new(room: RoomId, e2e: Arc<E2e>) -> HostKeys {
        HostKeys {
            room,
            e2e,
            holders: HashMap::new(),
            kicked: HashSet::new(),
        }
    }

    /// The codec (to seal frames with).
    pub fn codec(&self) -> Arc<E2e> {
        self.e2e.clone()
    }

    /// What invites carry.
    pub fn invite_keys(&self) -> InviteKeys {
        self.e2e.invite_keys()
    }

    fn rotate_for<'a>(
        &self,
        to: impl Iterator<Item = (u64, &'a String)>,
        epochs: &[(u32, cohost_share::e2e::RoomKey)],
    ) -> Result<Option<Message>, CodecError> {
        let mut keys = Vec::new();
        for (conn, public) in to {
            for (epoch, key) in epochs {
                keys.push(wrap_key(&self.room, *epoch, key, conn, public)?);
            }
        }
        Ok((!keys.is_empty()).then_some(Message::KeyRotate(KeyRotate { keys })))
    }

    /// A participant announced its key: remember it, and answer with every
    /// key newer than the invite's (nothing for a kicked connection).
    pub fn announced(&mut self, conn: u64, a: &KeyAnnounce) -> Result<Option<Message>, CodecError> {
        if self.kicked.contains(&conn) {
            return Ok(None);
        }
        self.holders.insert(conn, a.x25519.clone());
        let one = std::iter::once((conn, &a.x25519));
        self.rotate_for(one, &self.e2e.later_keys())
    }

    /// A connection left: it gets no more keys on that connection.
    pub fn left(&mut self, conn: u64) {
        self.holders.remove(&conn);
    }

    /// `conn` is kicked: a new epoch, wrapped for everyone else. Returns the
    /// epoch and the `key.rotate` to send (`None`: nobody else holds keys).
    pub fn kick(&mut self, conn: u64) -> Result<(u32, Option<Message>), CodecError> {
        self.kicked.insert(conn);
        self.holders.remove(&conn);
        let epoch = self.e2e.rotate()?;
        let newest: Vec<_> = self
            .e2e
            .later_keys()
            .into_iter()
            .filter(|(e, _)| *e == epoch)
            .collect();
        let msg = self.rotate_for(self.holders.iter().map(|(c, p)| (*c, p)), &newest)?;
        Ok((epoch, msg))
    }
}

/// Seals nothing: the stand-in when the system gave no random bytes for
/// room keys, so nothing leaves in the clear.
pub(crate) struct NoKeys(pub(crate) String);

impl PayloadCodec for NoKeys {
    fn seal(&self, _: &Header<'_>, _: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        Err(CodecError::Other(self.0.clone()))
    }
    fn open(&self, _: &Header<'_>, _: &[u8]) -> Result<Vec<u8>, CodecError> {
        Err(CodecError::Other(self.0.clone()))
    }
}
