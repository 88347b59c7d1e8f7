//! `cohost share --knock`: whoever opens an invite waits at the door until
//! the host lets them in (`/admit NAME`) or turns them away (`/refuse
//! NAME`), seeing the name and the fingerprint of the key they announced.
//!
//! What keeps a waiting participant out is the room key, not politeness:
//! an invite carries the key of epoch 0, so a knocking room starts at
//! epoch 1 before anything is said in it ([`start`]), and a participant
//! gets the keys of the epochs above 0 only in the `key.rotate` the host
//! sends when it binds their key, on `/admit`. Until then every frame of
//! the room is sealed under a key they do not hold, and a frame they sign
//! opens nowhere (their key is bound to nothing).

use std::collections::{BTreeMap, HashSet};

use cohost_share::e2e::Bound;
use cohost_share::{CodecError, E2e, KeyAnnounce, Sender};

/// Someone at the door: their announcement, checked, kept until the host
/// answers it.
#[derive(Debug, Clone)]
pub struct Knock {
    /// The frame's signer (the key they announced).
    pub sender: Sender,
    /// What they announced.
    pub announce: KeyAnnounce,
    /// The name the relay knows them by (an open invite's holder that
    /// gives none).
    pub stamped: String,
    /// Who their invite makes them.
    pub who: Bound,
}

/// The door of a room with `--knock`.
#[derive(Debug, Default)]
pub struct Door {
    /// By connection id.
    waiting: BTreeMap<u64, Knock>,
    /// Keys the host let in: the same key coming back (a reconnect with
    /// `cohost join --identity`) does not knock again.
    admitted: HashSet<[u8; 32]>,
}

/// Start a knocking room: a new epoch, so nothing said from now on opens
/// with the key every invite carries. Returns the epoch.
pub fn start(e2e: &E2e) -> Result<u32, CodecError> {
    e2e.rotate()
}

/// A key's fingerprint to read aloud and compare: the first 8 bytes of the
/// SHA-256 of the Ed25519 public key, hex, in groups of four.
pub fn fingerprint(key: &[u8; 32]) -> String {
    let hex = cohost_record::hex(&cohost_record::sha256(key)[..8]);
    hex.as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}

impl Door {
    /// Whether `key` must knock (it was not let in before).
    pub fn must_knock(&self, key: &[u8; 32]) -> bool {
        !self.admitted.contains(key)
    }

    /// `k` waits on connection `conn` (a new announcement on it replaces
    /// an earlier one). Returns what to tell the host.
    pub fn wait(&mut self, conn: u64, k: Knock) -> String {
        // Two at the door under one name (an open invite's holders name
        // themselves): this one is answered by its connection id.
        let twin = self
            .waiting
            .iter()
            .any(|(c, w)| *c != conn && w.who.name == k.who.name);
        let answer = if twin {
            format!("#{conn}")
        } else {
            k.who.name.clone()
        };
        let said = format!(
            "{} knocks: key fingerprint {}; /admit {answer} or /refuse {answer}",
            k.who.label(),
            fingerprint(&k.sender.key),
        );
        self.waiting.insert(conn, k);
        said
    }

    /// The knock `who` names (a name, `#ID` or ID), taken off the door.
    pub fn take(&mut self, who: &str) -> Option<(u64, Knock)> {
        let id = who.trim_start_matches('#').parse::<u64>().ok();
        let conn = self
            .waiting
            .iter()
            .find(|(c, k)| Some(**c) == id || k.who.name == who)
            .map(|(c, _)| *c)?;
        self.waiting.remove_entry(&conn)
    }

    /// The host let `key` in.
    pub fn admitted(&mut self, key: [u8; 32]) {
        self.admitted.insert(key);
    }

    /// Connection `conn` left: its knock goes with it.
    pub fn left(&mut self, conn: u64) {
        self.waiting.remove(&conn);
    }

    /// Who waits, as the room shows them.
    pub fn waiting(&self) -> Vec<String> {
        self.waiting.values().map(|k| k.who.label()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cohost_protocol::Role;
    use cohost_share::Signer;

    fn knock(conn: u64, name: &str, key: u8) -> Knock {
        Knock {
            sender: Sender {
                key: [key; 32],
                seq: 1,
                signer: Signer::Unbound,
                evidence: None,
            },
            announce: KeyAnnounce {
                ed25519: String::new(),
                x25519: String::new(),
                name: Some(name.into()),
                ticket: String::new(),
                proof: String::new(),
            },
            stamped: name.into(),
            who: Bound {
                conn_id: conn,
                name: name.into(),
                role: Role::CoDriver,
            },
        }
    }

    #[test]
    fn the_host_sees_who_knocks_and_answers_by_name_or_id() {
        let mut door = Door::default();
        let said = door.wait(3, knock(3, "ana", 1));
        assert!(
            said.starts_with("ana (co-driver) knocks: key fingerprint "),
            "{said}"
        );
        assert!(said.ends_with("/admit ana or /refuse ana"), "{said}");
        door.wait(4, knock(4, "bo", 2));
        assert_eq!(door.waiting(), ["ana (co-driver)", "bo (co-driver)"]);
        // A second "bo" is answered by its id.
        let twin = door.wait(6, knock(6, "bo", 4));
        assert!(twin.ends_with("/admit #6 or /refuse #6"), "{twin}");
        assert_eq!(door.take("#6").map(|(c, _)| c), Some(6));
        assert_eq!(door.take("#4").map(|(c, _)| c), Some(4));
        assert!(door.take("bo").is_none());
        assert_eq!(
            door.take("ana").map(|(c, k)| (c, k.who.name)),
            Some((3, "ana".into()))
        );
        door.wait(5, knock(5, "cy", 3));
        door.left(5);
        assert!(door.waiting().is_empty());
        assert!(door.must_knock(&[1; 32]));
        door.admitted([1; 32]);
        assert!(!door.must_knock(&[1; 32]));
    }

    #[test]
    fn a_fingerprint_is_short_stable_and_tells_keys_apart() {
        let a = fingerprint(&[1; 32]);
        // The same known answer as the web page's unit test.
        assert_eq!(a, "72cd-6e84-22c4-07fb");
        assert_eq!(a.len(), 19, "{a}");
        assert_eq!(a.matches('-').count(), 3, "{a}");
        assert_eq!(a, fingerprint(&[1; 32]));
        assert_ne!(a, fingerprint(&[2; 32]));
    }
}
