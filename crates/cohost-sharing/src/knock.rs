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
//!
//! Nobody waits forever: a knock the host has not answered by its deadline
//! (`--knock-timeout`, [`DEFAULT_TIMEOUT`]) is refused as if `/refuse`d.
//! The door takes the time it is told ([`Door::wait`], [`Door::expired`]),
//! so its deadlines are tested without a clock.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use tokio::time::Instant;

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

/// How long a knock waits for the host's answer unless `--knock-timeout`
/// says otherwise: long enough to read a fingerprint aloud, short enough
/// that nobody sits at a door nobody watches.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// The longest `--knock-timeout` (a day): a deadline is for people.
const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// `--knock-timeout`: `90`, `90s`, `5m` or `1h`, at least a second and at
/// most a day.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (n, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, "s"),
    };
    let secs: u64 = n
        .parse()
        .map_err(|_| format!("{s:?} is not a duration; write e.g. 90s, 5m or 1h"))?;
    let per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("unknown unit {unit:?}; write e.g. 90s, 5m or 1h")),
    };
    let d = Duration::from_secs(secs.saturating_mul(per));
    if d.is_zero() || d > MAX_TIMEOUT {
        return Err("a knock waits between 1s and 24h".into());
    }
    Ok(d)
}

/// A duration as the host and the participant read it: `5m`, `90s`.
pub fn timeout_text(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        s if s >= 3600 && s % 3600 == 0 => format!("{}h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// The door of a room with `--knock`.
#[derive(Debug)]
pub struct Door {
    /// By connection id, with the knock's deadline.
    waiting: BTreeMap<u64, (Knock, Instant)>,
    /// How long a knock waits for an answer.
    timeout: Duration,
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

impl Default for Door {
    fn default() -> Self {
        Door::new(DEFAULT_TIMEOUT)
    }
}

impl Door {
    /// A door whose knocks are refused after `timeout` without an answer.
    pub fn new(timeout: Duration) -> Door {
        Door {
            waiting: BTreeMap::new(),
            timeout,
            admitted: HashSet::new(),
        }
    }

    /// How long a knock waits for an answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether `key` must knock (it was not let in before).
    pub fn must_knock(&self, key: &[u8; 32]) -> bool {
        !self.admitted.contains(key)
    }

    /// `k` waits on connection `conn` from `now` (a new announcement on it
    /// replaces an earlier one, and its deadline). Returns what to tell
    /// the host.
    pub fn wait(&mut self, conn: u64, k: Knock, now: Instant) -> String {
        // Two at the door under one name (an open invite's holders name
        // themselves): this one is answered by its connection id.
        let twin = self
            .waiting
            .iter()
            .any(|(c, (w, _))| *c != conn && w.who.name == k.who.name);
        let answer = if twin {
            format!("#{conn}")
        } else {
            k.who.name.clone()
        };
        let said = format!(
            "{} knocks: key fingerprint {}; /admit {answer} or /refuse {answer} (refused in {} without an answer)",
            k.who.label(),
            fingerprint(&k.sender.key),
            timeout_text(self.timeout),
        );
        self.waiting.insert(conn, (k, now + self.timeout));
        said
    }

    /// The knocks whose deadline passed by `now`, taken off the door (the
    /// host refuses each).
    pub fn expired(&mut self, now: Instant) -> Vec<(u64, Knock)> {
        let (late, waiting): (BTreeMap<_, _>, BTreeMap<_, _>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(_, (_, at))| *at <= now);
        self.waiting = waiting;
        late.into_iter().map(|(c, (k, _))| (c, k)).collect()
    }

    /// When the next knock runs out of time, if anyone waits.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.waiting.values().map(|(_, at)| *at).min()
    }

    /// The knock `who` names (a name, `#ID` or ID), taken off the door.
    pub fn take(&mut self, who: &str) -> Option<(u64, Knock)> {
        let id = who.trim_start_matches('#').parse::<u64>().ok();
        let conn = self
            .waiting
            .iter()
            .find(|(c, (k, _))| Some(**c) == id || k.who.name == who)
            .map(|(c, _)| *c)?;
        self.waiting.remove(&conn).map(|(k, _)| (conn, k))
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
        self.waiting.values().map(|(k, _)| k.who.label()).collect()
    }
}

/// Why `--knock` could not keep the room's door (no keys, no randomness).
pub fn door_error(e: cohost_share::CodecError) -> cohost_core::CohostError {
    cohost_core::CohostError::new(
        cohost_core::ErrorCode::Unknown,
        format!("cannot keep the room's door: {e}"),
    )
    .with_fix("run cohost share without --knock, or try again")
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
                agents: Vec::new(),
            },
        }
    }

    #[test]
    fn the_host_sees_who_knocks_and_answers_by_name_or_id() {
        let mut door = Door::default();
        let now = Instant::now();
        let said = door.wait(3, knock(3, "ana", 1), now);
        assert!(
            said.starts_with("ana (co-driver) knocks: key fingerprint "),
            "{said}"
        );
        assert!(
            said.ends_with("/admit ana or /refuse ana (refused in 5m without an answer)"),
            "{said}"
        );
        door.wait(4, knock(4, "bo", 2), now);
        assert_eq!(door.waiting(), ["ana (co-driver)", "bo (co-driver)"]);
        // A second "bo" is answered by its id.
        let twin = door.wait(6, knock(6, "bo", 4), now);
        assert!(twin.contains("/admit #6 or /refuse #6"), "{twin}");
        assert_eq!(door.take("#6").map(|(c, _)| c), Some(6));
        assert_eq!(door.take("#4").map(|(c, _)| c), Some(4));
        assert!(door.take("bo").is_none());
        assert_eq!(
            door.take("ana").map(|(c, k)| (c, k.who.name)),
            Some((3, "ana".into()))
        );
        door.wait(5, knock(5, "cy", 3), now);
        door.left(5);
        assert!(door.waiting().is_empty());
        assert!(door.must_knock(&[1; 32]));
        door.admitted([1; 32]);
        assert!(!door.must_knock(&[1; 32]));
    }

    #[test]
    fn an_unanswered_knock_runs_out_at_its_deadline_and_not_before() {
        let mut door = Door::new(Duration::from_secs(90));
        let t0 = Instant::now();
        assert_eq!(door.next_deadline(), None);
        door.wait(3, knock(3, "ana", 1), t0);
        door.wait(4, knock(4, "bo", 2), t0 + Duration::from_secs(30));
        assert_eq!(door.next_deadline(), Some(t0 + Duration::from_secs(90)));
        assert!(door.expired(t0 + Duration::from_secs(89)).is_empty());
        let late = door.expired(t0 + Duration::from_secs(90));
        assert_eq!(late.iter().map(|(c, _)| *c).collect::<Vec<_>>(), [3]);
        assert_eq!(door.waiting(), ["bo (co-driver)"]);
        // Answered in time: nothing runs out.
        assert!(door.take("bo").is_some());
        assert!(door.expired(t0 + Duration::from_secs(3600)).is_empty());
        assert_eq!(door.next_deadline(), None);
    }

    #[test]
    fn a_knock_timeout_is_read_and_said_in_seconds_minutes_or_hours() {
        assert_eq!(parse_timeout("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_timeout("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("1h"), Ok(Duration::from_secs(3600)));
        for bad in [
            "",
            "0",
            "0s",
            "25h",
            "5 minutes",
            "m",
            "-1s",
            "99999999999999999999h",
        ] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
        assert_eq!(timeout_text(Duration::from_secs(300)), "5m");
        assert_eq!(timeout_text(Duration::from_secs(90)), "90s");
        assert_eq!(timeout_text(Duration::from_secs(7200)), "2h");
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
