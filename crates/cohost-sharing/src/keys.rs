//! The host's side of the room keys (format v2, `docs/sharing-e2e.md`):
//! the invites it issued (each with its ticket), the participants whose
//! keys it bound through them, who it removed, and the `key.rotate` and
//! `key.roster` messages that keep the room's keys in step.

use std::collections::HashMap;
use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use cohost_protocol::{InviteKeys, Role, RoomId};
use cohost_share::e2e::{announce_holds, random_bytes, ticket_id, wrap_key, Bound, RoomKey};
use cohost_share::{
    CodecError, E2e, Header, KeyAnnounce, KeyRotate, Message, Opened, PayloadCodec, Sender, Signer,
};

/// One invite the host issued.
#[derive(Debug, Clone)]
struct Ticket {
    secret: [u8; 16],
    role: Role,
    /// A personal invite's name (`None`: an open invite, for anyone who
    /// has it, each under the name they give).
    name: Option<String>,
    revoked: bool,
}

/// A participant whose key the host bound.
#[derive(Debug, Clone)]
struct Holder {
    key: [u8; 32],
    x25519: String,
    ticket: [u8; 8],
}

/// Why an announcement bound nobody.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The ticket names no invite of this room.
    #[error("its invite is not one this room issued")]
    UnknownInvite,
    /// The invite was revoked (its holder was removed).
    #[error("its invite was revoked")]
    Revoked,
    /// The proof does not hold for these keys on this connection.
    #[error(
        "its proof of holding the invite does not verify (moved to another connection, or forged)"
    )]
    BadProof,
    /// The frame was not signed by the key it announces.
    #[error("it announces a key other than the one it is signed with")]
    NotItsKey,
    /// A personal invite already in use by someone still connected.
    #[error("{0}'s personal invite is in use by another connection still in the room")]
    InUse(String),
    /// The key was removed earlier.
    #[error("that key was removed from the room")]
    Removed,
}

/// What binding an announcement gave.
#[derive(Debug)]
pub struct Admitted {
    /// Who, as bound.
    pub who: Bound,
    /// The keys of every epoch above 0, wrapped for it (`None`: none yet).
    pub rotate: Option<Message>,
    /// Whether a personal invite's earlier key was replaced (a reconnect
    /// with a new identity), which the host is told.
    pub replaced: bool,
}

/// The host's keys, invites and key holders.
#[derive(Debug)]
pub struct HostKeys {
    room: RoomId,
    e2e: Arc<E2e>,
    tickets: HashMap<[u8; 8], Ticket>,
    /// Connection id -> the key bound on it.
    holders: HashMap<u64, Holder>,
}

impl HostKeys {
    /// Keys for `room` held by `e2e`.
    pub fn new(room: RoomId, e2e: Arc<E2e>) -> HostKeys {
        HostKeys {
            room,
            e2e,
            tickets: HashMap::new(),
            holders: HashMap::new(),
        }
    }

    /// Fresh keys for `room`.
    pub fn generate(room: RoomId) -> Result<HostKeys, CodecError> {
        Ok(HostKeys::new(room, Arc::new(E2e::generate_host()?)))
    }

    /// The codec (to seal frames with).
    pub fn codec(&self) -> Arc<E2e> {
        self.e2e.clone()
    }

    /// The keys of a new invite for `role`: personal when it has a `name`
    /// (one person, the name fixed by the host, revocable alone), open
    /// otherwise (anyone holding it, under the name they give).
    pub fn issue(&mut self, role: Role, name: Option<&str>) -> Result<InviteKeys, CodecError> {
        let secret: [u8; 16] = random_bytes()?;
        self.tickets.insert(
            ticket_id(&secret),
            Ticket {
                secret,
                role,
                name: name.map(cohost_core::sanitize::inert_line),
                revoked: false,
            },
        );
        Ok(self.e2e.invite_keys(secret))
    }

    fn rotate_for<'a>(
        &self,
        to: impl Iterator<Item = (u64, &'a str)>,
        epochs: &[(u32, RoomKey)],
    ) -> Result<Option<Message>, CodecError> {
        let mut keys = Vec::new();
        for (conn, public) in to {
            for (epoch, key) in epochs {
                keys.push(wrap_key(&self.room, *epoch, key, conn, public)?);
            }
        }
        Ok((!keys.is_empty()).then_some(Message::KeyRotate(KeyRotate { keys })))
    }

    /// A participant on `conn` announced its keys, in a frame `sender`
    /// signed: bind them to the invite it proves it holds, and answer with
    /// every key newer than the invite's. `stamped` is the name the relay
    /// knows it by (an open invite's holder that gives none).
    pub fn announced(
        &mut self,
        conn: u64,
        sender: &Sender,
        a: &KeyAnnounce,
        stamped: &str,
    ) -> Result<Admitted, Refused> {
        let (who, id, replaced) = self.vet(conn, sender, a, stamped)?;
        if let Some(old) = self.holders.remove(&conn) {
            self.e2e.unbind(&old.key);
        }
        self.e2e.bind(sender.key, who.clone());
        self.holders.insert(
            conn,
            Holder {
                key: sender.key,
                x25519: a.x25519.clone(),
                ticket: id,
            },
        );
        let one = std::iter::once((conn, a.x25519.as_str()));
        // A key that does not wrap (a low-order X25519 key) binds nobody.
        let rotate = self
            .rotate_for(one, &self.e2e.later_keys())
            .map_err(|_| Refused::BadProof)?;
        Ok(Admitted {
            who,
            rotate,
            replaced,
        })
    }

    /// Who an announcement on `conn` would bind, without binding it (a
    /// room with `--knock` shows the host who knocks first).
    pub fn check(
        &self,
        conn: u64,
        sender: &Sender,
        a: &KeyAnnounce,
        stamped: &str,
    ) -> Result<Bound, Refused> {
        self.vet(conn, sender, a, stamped).map(|(who, _, _)| who)
    }

    /// A knock refused: the key never binds or opens again, and a personal
    /// invite's ticket is revoked with it (its person cannot come back
    /// through it); an open invite stays for the others who hold it.
    /// Returns whether the invite was personal.
    pub fn refuse(&mut self, key: [u8; 32], a: &KeyAnnounce) -> bool {
        self.e2e.remove(key);
        let ticket = B64
            .decode(&a.ticket)
            .ok()
            .and_then(|v| <[u8; 8]>::try_from(v).ok())
            .and_then(|id| self.tickets.get_mut(&id));
        match ticket {
            Some(t) if t.name.is_some() => {
                t.revoked = true;
                true
            }
            _ => false,
        }
    }

    /// Whether `a` on `conn` proves an invite, and who it binds: the
    /// binding, its ticket, and whether it replaces a personal invite's
    /// earlier key.
    fn vet(
        &self,
        conn: u64,
        sender: &Sender,
        a: &KeyAnnounce,
        stamped: &str,
    ) -> Result<(Bound, [u8; 8], bool), Refused> {
        if self.e2e.is_removed(&sender.key) {
            return Err(Refused::Removed);
        }
        if B64.decode(&a.ed25519).ok().as_deref() != Some(&sender.key[..]) {
            return Err(Refused::NotItsKey);
        }
        let id: [u8; 8] = B64
            .decode(&a.ticket)
            .ok()
            .and_then(|v| v.try_into().ok())
            .ok_or(Refused::UnknownInvite)?;
        let ticket = self.tickets.get(&id).ok_or(Refused::UnknownInvite)?.clone();
        if ticket.revoked {
            return Err(Refused::Revoked);
        }
        if !announce_holds(&self.room, conn, &ticket.secret, a) {
            return Err(Refused::BadProof);
        }
        let mut replaced = false;
        if let Some(name) = &ticket.name {
            let earlier = self
                .holders
                .iter()
                .find(|(c, h)| h.ticket == id && **c != conn)
                .map(|(c, h)| (*c, h.key));
            if let Some((_, key)) = earlier {
                if key != sender.key {
                    return Err(Refused::InUse(name.clone()));
                }
            }
            replaced = self
                .holders
                .get(&conn)
                .is_some_and(|h| h.ticket == id && h.key != sender.key);
        }
        let name = ticket.name.clone().unwrap_or_else(|| {
            a.name
                .as_deref()
                .map(cohost_core::sanitize::inert_line)
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| stamped.to_string())
        });
        let who = Bound {
            conn_id: conn,
            name,
            role: ticket.role,
            agents: Vec::new(),
        };
        Ok((who, id, replaced))
    }

    /// Who is bound on `conn`, if anyone.
    pub fn bound(&self, conn: u64) -> Option<Bound> {
        self.e2e.key_of(conn).map(|(_, b)| b)
    }

    /// The room's roster to send (after anyone is bound, leaves or is
    /// removed).
    pub fn roster(&self) -> Message {
        Message::KeyRoster(self.e2e.roster())
    }

    /// A connection left: its key opens nothing until it announces again
    /// (through its invite, which still holds).
    pub fn left(&mut self, conn: u64) {
        if let Some(h) = self.holders.remove(&conn) {
            self.e2e.unbind(&h.key);
        }
    }

    /// `conn` is removed: its key never opens again, a personal invite is
    /// revoked with it, and a new epoch is wrapped for everyone else.
    /// Returns the epoch and the `key.rotate` to send (`None`: nobody else
    /// holds keys), and whether the invite it used was an open one (which
    /// the relay's revocation shuts for everyone holding it).
    pub fn kick(&mut self, conn: u64) -> Result<(u32, Option<Message>, bool), CodecError> {
        let mut open = false;
        if let Some(h) = self.holders.remove(&conn) {
            self.e2e.remove(h.key);
            if let Some(t) = self.tickets.get_mut(&h.ticket) {
                open = t.name.is_none();
                // An open invite stays valid for the others who hold it
                // (the relay's token revocation is what shuts it).
                t.revoked |= !open;
            }
        }
        let epoch = self.e2e.rotate()?;
        let newest: Vec<_> = self
            .e2e
            .later_keys()
            .into_iter()
            .filter(|(e, _)| *e == epoch)
            .collect();
        let to = self.holders.iter().map(|(c, h)| (*c, h.x25519.as_str()));
        let msg = self.rotate_for(to, &newest)?;
        Ok((epoch, msg, open))
    }
}

/// Whether a frame that opened came from the host itself.
pub fn from_host(sender: Option<&Sender>) -> bool {
    sender.is_some_and(|s| s.signer == Signer::Host)
}

/// Seals nothing: the stand-in when the system gave no random bytes for
/// room keys, so nothing leaves in the clear.
pub(crate) struct NoKeys(pub(crate) String);

impl PayloadCodec for NoKeys {
    fn seal(&self, _: &Header<'_>, _: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        Err(CodecError::Other(self.0.clone()))
    }
    fn open(&self, _: &Header<'_>, _: &[u8]) -> Result<Opened, CodecError> {
        Err(CodecError::Other(self.0.clone()))
    }
}
