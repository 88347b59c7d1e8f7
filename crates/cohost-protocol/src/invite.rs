//! Invite strings a participant can paste:
//! `cohost://<host:port>/<room>#<jwt>.<key>.<hostsig>.<hostx>.<ticket>`.
//!
//! `cohosts://` means the relay is behind TLS (`wss://`). The fragment, which
//! no HTTP client sends, holds the room token and, for end-to-end encrypted
//! rooms, the room key, the host's Ed25519 and X25519 public keys and the
//! invite's ticket (base64url, no padding; format v2 of
//! `docs/sharing-e2e.md`). The client library presents only the
//! token, in `Sec-WebSocket-Protocol` (`cohost.token.<jwt>`), never in a
//! query; the keys never leave the participant.
//! The WebSocket URL derived from an invite is `ws(s)://<host:port>/v1/rooms/<room>/ws`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;

use crate::ids::is_valid_id;
use crate::roles::Role;

/// The WebSocket subprotocol every cohost client offers and the relay echoes.
pub const SUBPROTOCOL: &str = "cohost.v1";
/// Prefix of the subprotocol entry that carries the room token.
pub const TOKEN_SUBPROTOCOL_PREFIX: &str = "cohost.token.";

/// Why an invite string could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InviteError {
    /// Does not start with `cohost://` or `cohosts://`.
    #[error(
        "invite must start with cohost:// or cohosts://; paste the whole invite the host gave you"
    )]
    Scheme,
    /// No `#<token>` fragment, or no `/<room>` path.
    #[error("invite is incomplete: expected cohost://<host:port>/<room>#<token>")]
    Incomplete,
    /// Room id invalid.
    #[error("invite names an invalid room id")]
    Room,
    /// A query string is present (tokens must never travel in a query).
    #[error("invite has a query string; tokens must be in the #fragment, never in a URL query")]
    Query,
    /// A key segment is not the right number of bytes of base64url.
    #[error("the invite's {0} is damaged (expected {1} bytes of base64url); paste the whole invite again or ask the host for a new one")]
    Key(&'static str, usize),
    /// A format-v1 invite (`JWT.KEY.HOSTPUB`): its host speaks a format
    /// this build no longer reads.
    #[error("this invite comes from a cohost that speaks sharing format v1; ask the host to upgrade cohost and send a new invite")]
    OldFormat,
}

/// The end-to-end keys an invite carries after its token.
#[derive(Clone, PartialEq, Eq)]
pub struct InviteKeys {
    /// The AES-256 room key of epoch 0.
    pub room_key: [u8; 32],
    /// The host's Ed25519 public key, which every host frame is signed with.
    pub host_public: [u8; 32],
    /// The host's X25519 public key, which frames meant for the host alone
    /// are sealed to.
    pub host_x25519: [u8; 32],
    /// This invite's secret: a participant proves with it that the key it
    /// announces is the invite holder's, so the host binds the key to the
    /// invite's role (and, for a personal invite, its name).
    pub ticket: [u8; 16],
}

impl std::fmt::Debug for InviteKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InviteKeys")
            .field("room_key", &"<redacted>")
            .field("host_public", &B64.encode(self.host_public))
            .field("host_x25519", &B64.encode(self.host_x25519))
            .field("ticket", &"<redacted>")
            .finish()
    }
}

fn key<const N: usize>(segment: &str, what: &'static str) -> Result<[u8; N], InviteError> {
    B64.decode(segment)
        .ok()
        .and_then(|v| <[u8; N]>::try_from(v).ok())
        .ok_or(InviteError::Key(what, N))
}

/// Splits a fragment into the token and, when it has seven dot-separated
/// segments (`JWT.KEY.HOSTSIG.HOSTX.TICKET`), the keys. Five segments are a
/// format-v1 invite, refused; anything else is all token.
fn split_fragment(fragment: &str) -> Result<(String, Option<InviteKeys>), InviteError> {
    let parts: Vec<&str> = fragment.split('.').collect();
    match parts[..] {
        [h, c, s, room_key, host, host_x, ticket] => {
            let keys = InviteKeys {
                room_key: key(room_key, "room key")?,
                host_public: key(host, "host key")?,
                host_x25519: key(host_x, "host X25519 key")?,
                ticket: key(ticket, "ticket")?,
            };
            Ok((format!("{h}.{c}.{s}"), Some(keys)))
        }
        [_, _, _, _, _] => Err(InviteError::OldFormat),
        _ => Ok((fragment.to_string(), None)),
    }
}

/// A parsed invite.
#[derive(Clone, PartialEq, Eq)]
pub struct Invite {
    /// `host:port` of the relay.
    pub authority: String,
    /// Whether to use `wss://`.
    pub secure: bool,
    /// Room id.
    pub room: String,
    /// The room token (JWT).
    pub token: String,
    /// The end-to-end keys (`None`: an invite minted by the relay, before
    /// the host added them).
    pub keys: Option<InviteKeys>,
}

impl Invite {
    /// Parses `cohost://host:port/room#token[.key.hostsig.hostx.ticket]`.
    pub fn parse(s: &str) -> Result<Invite, InviteError> {
        let s = s.trim();
        let (secure, rest) = if let Some(r) = s.strip_prefix("cohosts://") {
            (true, r)
        } else if let Some(r) = s.strip_prefix("cohost://") {
            (false, r)
        } else {
            return Err(InviteError::Scheme);
        };
        let (before, fragment) = rest.split_once('#').ok_or(InviteError::Incomplete)?;
        if before.contains('?') {
            return Err(InviteError::Query);
        }
        let (authority, room) = before.split_once('/').ok_or(InviteError::Incomplete)?;
        let room = room.trim_end_matches('/');
        if authority.is_empty() || fragment.is_empty() {
            return Err(InviteError::Incomplete);
        }
        if !is_valid_id(room) {
            return Err(InviteError::Room);
        }
        let (token, keys) = split_fragment(fragment)?;
        Ok(Invite {
            authority: authority.to_string(),
            secure,
            room: room.to_string(),
            token,
            keys,
        })
    }

    /// The same invite carrying `keys` (the host adds them locally to what
    /// the relay minted).
    pub fn with_keys(mut self, keys: InviteKeys) -> Invite {
        self.keys = Some(keys);
        self
    }

    /// The role the token claims, read without verifying it (only the relay
    /// can verify; a participant uses this to know the role it will act in
    /// before the relay welcomes it). `None` for a token that is not a JWT.
    pub fn claimed_role(&self) -> Option<Role> {
        #[derive(serde::Deserialize)]
        struct RoleClaim {
            role: Role,
        }
        let body = self.token.split('.').nth(1)?;
        let json = B64.decode(body).ok()?;
        serde_json::from_slice::<RoleClaim>(&json)
            .ok()
            .map(|c| c.role)
    }

    /// The WebSocket URL to connect to (no token in it).
    pub fn ws_url(&self) -> String {
        ws_url(&self.authority, self.secure, &self.room)
    }
}

/// The relay's WebSocket URL for a room: `ws(s)://<authority>/v1/rooms/<room>/ws`.
pub fn ws_url(authority: &str, secure: bool, room: &str) -> String {
    let scheme = if secure { "wss" } else { "ws" };
    format!("{scheme}://{authority}/v1/rooms/{room}/ws")
}

impl std::fmt::Display for Invite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.secure { "cohosts" } else { "cohost" };
        write!(
            f,
            "{scheme}://{}/{}#{}",
            self.authority, self.room, self.token
        )?;
        if let Some(k) = &self.keys {
            write!(
                f,
                ".{}.{}.{}.{}",
                B64.encode(k.room_key),
                B64.encode(k.host_public),
                B64.encode(k.host_x25519),
                B64.encode(k.ticket)
            )?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for Invite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invite")
            .field("authority", &self.authority)
            .field("secure", &self.secure)
            .field("room", &self.room)
            .field("token", &"<redacted>")
            .field("keys", &self.keys)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let i = Invite::parse("cohost://127.0.0.1:7000/abc#x.y.z").unwrap();
        assert_eq!(i.ws_url(), "ws://127.0.0.1:7000/v1/rooms/abc/ws");
        assert_eq!(i.token, "x.y.z");
        assert_eq!(Invite::parse(&i.to_string()).unwrap(), i);
        assert_eq!(
            Invite::parse("cohost://h:1/r?token=a#b"),
            Err(InviteError::Query)
        );
        assert_eq!(Invite::parse("http://h/r#t"), Err(InviteError::Scheme));
        assert_eq!(
            Invite::parse("cohost://h:1/r"),
            Err(InviteError::Incomplete)
        );
        assert_eq!(i.keys, None);
    }

    #[test]
    fn keys_ride_in_the_fragment_and_round_trip() {
        // {"role":"CO_DRIVER"} as a JWT body.
        let body = B64.encode(br#"{"room":"abc","role":"CO_DRIVER"}"#);
        let keys = InviteKeys {
            room_key: [7; 32],
            host_public: [9; 32],
            host_x25519: [8; 32],
            ticket: [6; 16],
        };
        let i = Invite::parse(&format!("cohosts://relay.example:443/abc#h.{body}.s"))
            .unwrap()
            .with_keys(keys.clone());
        let s = i.to_string();
        assert_eq!(s.matches('.').count(), 7, "{s}");
        let back = Invite::parse(&s).unwrap();
        assert_eq!(back, i);
        assert_eq!(back.keys, Some(keys));
        assert_eq!(back.token, format!("h.{body}.s"));
        assert_eq!(back.claimed_role(), Some(Role::CoDriver));
        assert!(back.secure);
        assert!(!format!("{back:?}").contains(&B64.encode([7u8; 32])));
        assert!(!format!("{back:?}").contains(&B64.encode([6u8; 16])));
        let short = B64.encode([1u8; 31]);
        let k = B64.encode([1u8; 32]);
        let t = B64.encode([1u8; 16]);
        assert_eq!(
            Invite::parse(&format!("cohost://h:1/r#a.b.c.{short}.{k}.{k}.{t}")),
            Err(InviteError::Key("room key", 32))
        );
        assert_eq!(
            Invite::parse(&format!("cohost://h:1/r#a.b.c.{k}.{k}.{k}.{k}")),
            Err(InviteError::Key("ticket", 16))
        );
        // A format-v1 invite (JWT.KEY.HOSTPUB) says what to do about it.
        let v1 = Invite::parse(&format!("cohost://h:1/r#a.b.c.{k}.{k}"));
        assert_eq!(v1, Err(InviteError::OldFormat));
        assert!(v1.unwrap_err().to_string().contains("upgrade cohost"));
    }
}
