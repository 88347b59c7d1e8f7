//! Participant roles in a room.

use serde::{Deserialize, Serialize};

/// The role a connection holds in a room, taken from its room token.
///
/// On the wire a role is one byte (see [`Role::code`]); in JSON (token claims,
/// admin API) it is the upper-case name, e.g. `"CO_DRIVER"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    /// The session owner: runs the agent locally, source of truth for the stream.
    Host,
    /// May suggest prompts and chat; sees the stream.
    CoDriver,
    /// Read-only participant; may chat.
    Viewer,
}

impl Role {
    /// Every role, in wire-code order.
    pub const ALL: [Role; 3] = [Role::Host, Role::CoDriver, Role::Viewer];

    /// The one-byte wire code (1, 2, 3). 0 on the wire means "not stamped".
    pub fn code(self) -> u8 {
        match self {
            Role::Host => 1,
            Role::CoDriver => 2,
            Role::Viewer => 3,
        }
    }

    /// The role for a wire code; `None` for 0 (unstamped) or unknown codes.
    pub fn from_code(code: u8) -> Option<Role> {
        match code {
            1 => Some(Role::Host),
            2 => Some(Role::CoDriver),
            3 => Some(Role::Viewer),
            _ => None,
        }
    }

    /// The name used in claims and JSON, e.g. `CO_DRIVER`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Host => "HOST",
            Role::CoDriver => "CO_DRIVER",
            Role::Viewer => "VIEWER",
        }
    }

    /// Parses `HOST`, `CO_DRIVER` or `VIEWER` (case-insensitive, `-` allowed for `_`).
    pub fn parse(s: &str) -> Option<Role> {
        match s.to_ascii_uppercase().replace('-', "_").as_str() {
            "HOST" => Some(Role::Host),
            "CO_DRIVER" | "CODRIVER" => Some(Role::CoDriver),
            "VIEWER" => Some(Role::Viewer),
            _ => None,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::from_code(r.code()), Some(r));
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        assert_eq!(Role::from_code(0), None);
        assert_eq!(Role::from_code(4), None);
        assert_eq!(
            serde_json::to_string(&Role::CoDriver).unwrap(),
            "\"CO_DRIVER\""
        );
    }
}
