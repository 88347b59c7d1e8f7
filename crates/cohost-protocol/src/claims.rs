//! Room token claims (the JWT body the relay signs and verifies).

use serde::{Deserialize, Serialize};

use crate::roles::Role;

/// The `aud` every room token must carry.
pub const TOKEN_AUDIENCE: &str = "cohost-relay";

/// Claims of a room token. Tokens are HS256 JWTs signed with the relay's secret;
/// `exp`, `aud`, `room` and `role` are required.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// Room id the token admits to.
    pub room: String,
    /// Role in that room.
    pub role: Role,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Audience; must be [`TOKEN_AUDIENCE`].
    pub aud: String,
    /// Participant display name.
    pub sub: String,
    /// Unique token id (for audit and future revocation).
    pub jti: String,
    /// Issued-at, seconds since the Unix epoch.
    #[serde(default)]
    pub iat: u64,
}
