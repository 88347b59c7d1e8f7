//! Room tokens: HS256 JWTs with one pinned algorithm.

use std::time::{SystemTime, UNIX_EPOCH};

use cohost_protocol::{is_valid_id, Claims, Role, TOKEN_AUDIENCE};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};

/// Why a token was refused.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// Signature, algorithm, audience, expiry or claim shape is wrong.
    #[error("room token rejected: {0}; ask the host for a fresh invite")]
    Invalid(String),
    /// The token is for another room.
    #[error(
        "room token is for room {token_room:?}, not {requested:?}; use the invite for this room"
    )]
    WrongRoom {
        /// Room in the token.
        token_room: String,
        /// Room requested.
        requested: String,
    },
    /// Minting failed.
    #[error("could not mint a room token: {0}")]
    Mint(String),
}

/// Signs and verifies room tokens with the relay's HS256 secret.
pub struct TokenAuthority {
    enc: EncodingKey,
    dec: DecodingKey,
    validation: Validation,
    max_lifetime_secs: u64,
}

/// Clock skew tolerated on `exp` and `nbf`, in seconds.
const LEEWAY_SECS: u64 = 5;

/// Seconds since the Unix epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `n` random bytes, hex encoded.
pub fn random_hex(n: usize) -> String {
    let mut b = vec![0u8; n];
    // getrandom only fails when the OS has no entropy source; fall back to time-based bytes.
    if getrandom::fill(&mut b).is_err() {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for (i, x) in b.iter_mut().enumerate() {
            *x = (t >> ((i % 16) * 8)) as u8 ^ (i as u8);
        }
    }
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl TokenAuthority {
    /// An authority for `secret` (HS256 only; `alg: none` and every other
    /// algorithm are refused) with the default maximum token lifetime.
    pub fn new(secret: &[u8]) -> TokenAuthority {
        TokenAuthority::with_max_lifetime(secret, crate::config::DEFAULT_MAX_TOKEN_LIFETIME)
    }

    /// An authority that also refuses (to mint or admit) a token whose `exp`
    /// lies more than `max_lifetime` ahead.
    pub fn with_max_lifetime(secret: &[u8], max_lifetime: std::time::Duration) -> TokenAuthority {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.set_audience(&[TOKEN_AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "aud"]);
        validation.leeway = LEEWAY_SECS;
        validation.validate_exp = true;
        // `nbf`, when present, is honoured: a token not yet valid is refused.
        validation.validate_nbf = true;
        TokenAuthority {
            enc: EncodingKey::from_secret(secret),
            dec: DecodingKey::from_secret(secret),
            validation,
            max_lifetime_secs: max_lifetime.as_secs(),
        }
    }

    /// Mints a token for `room` and `role` valid `ttl_secs` from now.
    pub fn mint(
        &self,
        room: &str,
        role: Role,
        ttl_secs: u64,
        name: &str,
    ) -> Result<(String, Claims), AuthError> {
        if !is_valid_id(room) {
            return Err(AuthError::Mint(format!("invalid room id {room:?}")));
        }
        if ttl_secs > self.max_lifetime_secs {
            return Err(AuthError::Mint(format!(
                "a lifetime of {ttl_secs} s exceeds the relay's maximum of {} s; ask for a shorter one",
                self.max_lifetime_secs
            )));
        }
        let iat = now_secs();
        let claims = Claims {
            room: room.to_string(),
            role,
            exp: iat.saturating_add(ttl_secs),
            aud: TOKEN_AUDIENCE.to_string(),
            sub: name.to_string(),
            jti: random_hex(12),
            iat,
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.enc)
            .map_err(|e| AuthError::Mint(e.to_string()))?;
        Ok((token, claims))
    }

    /// Verifies signature, algorithm, `aud`, `exp`, and that the token is for `room`.
    pub fn verify(&self, token: &str, room: &str) -> Result<Claims, AuthError> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.dec, &self.validation)
            .map_err(|e| AuthError::Invalid(e.to_string()))?;
        let claims = data.claims;
        let latest = now_secs()
            .saturating_add(self.max_lifetime_secs)
            .saturating_add(LEEWAY_SECS);
        if claims.exp > latest {
            return Err(AuthError::Invalid(format!(
                "it expires more than the relay's maximum token lifetime ({} s) from now",
                self.max_lifetime_secs
            )));
        }
        if claims.room != room {
            return Err(AuthError::WrongRoom {
                token_room: claims.room,
                requested: room.to_string(),
            });
        }
        Ok(claims)
    }
}
