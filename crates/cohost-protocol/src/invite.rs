//! Invite strings a participant can paste: `cohost://<host:port>/<room>#<token>`.
//!
//! `cohosts://` means the relay is behind TLS (`wss://`). The token sits in the
//! URL *fragment*, which no HTTP client sends, and the client library presents
//! it in `Sec-WebSocket-Protocol` (`cohost.token.<jwt>`), never in a query.
//! The WebSocket URL derived from an invite is `ws(s)://<host:port>/v1/rooms/<room>/ws`.

use crate::envelope::is_valid_id;

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
}

impl Invite {
    /// Parses `cohost://host:port/room#token`.
    pub fn parse(s: &str) -> Result<Invite, InviteError> {
        let s = s.trim();
        let (secure, rest) = if let Some(r) = s.strip_prefix("cohosts://") {
            (true, r)
        } else if let Some(r) = s.strip_prefix("cohost://") {
            (false, r)
        } else {
            return Err(InviteError::Scheme);
        };
        let (before, token) = rest.split_once('#').ok_or(InviteError::Incomplete)?;
        if before.contains('?') {
            return Err(InviteError::Query);
        }
        let (authority, room) = before.split_once('/').ok_or(InviteError::Incomplete)?;
        let room = room.trim_end_matches('/');
        if authority.is_empty() || token.is_empty() {
            return Err(InviteError::Incomplete);
        }
        if !is_valid_id(room) {
            return Err(InviteError::Room);
        }
        Ok(Invite {
            authority: authority.to_string(),
            secure,
            room: room.to_string(),
            token: token.to_string(),
        })
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
        )
    }
}

impl std::fmt::Debug for Invite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invite")
            .field("authority", &self.authority)
            .field("secure", &self.secure)
            .field("room", &self.room)
            .field("token", &"<redacted>")
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
    }
}
