//! Relay configuration and limits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::broker::Broker;

/// Token-bucket parameters: `per_sec` sustained, `burst` capacity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Tokens refilled per second.
    pub per_sec: f64,
    /// Bucket capacity.
    pub burst: f64,
}

/// Every limit the relay enforces. Defaults suit a local or small hosted relay.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest frame (whole envelope) a HOST may send.
    pub max_frame_host: usize,
    /// Largest frame a CO_DRIVER may send.
    pub max_frame_co_driver: usize,
    /// Largest frame a VIEWER may send.
    pub max_frame_viewer: usize,
    /// Connections per room on this node.
    pub max_participants_per_room: usize,
    /// Time from accept to a valid room token (in the upgrade or as the first
    /// message); a connection still unauthenticated then is closed.
    pub handshake_timeout: Duration,
    /// Queued bytes per connection above which replayable chunks are dropped (and a `room.gap` sent).
    pub outbox_soft_bytes: usize,
    /// Queued bytes per connection above which the connection is closed.
    pub outbox_hard_bytes: usize,
    /// Replay ring capacity per room, in payload+header bytes.
    pub ring_max_bytes: usize,
    /// Replay ring capacity per room, in frames.
    pub ring_max_frames: usize,
    /// Frames older than this are evicted from the ring.
    pub ring_max_age: Duration,
    /// WebSocket read buffer per connection (small keeps idle sockets cheap).
    pub read_buffer_size: usize,
    /// Most bytes gathered into one write syscall. The frames queued for a
    /// connection are written together (one syscall per batch, up to this size)
    /// and the buffer is freed once drained, so idle sockets keep none of it.
    /// 1 = one write per frame.
    pub write_batch_bytes: usize,
    /// Rate of stream frames (`ai.execution.started`, `ai.stream.*`).
    pub rate_stream: Rate,
    /// Rate of `ai.request.suggest_prompt`.
    pub rate_suggest: Rate,
    /// Rate of `chat.message`.
    pub rate_chat: Rate,
    /// Rate of every other frame type (per type).
    pub rate_other: Rate,
    /// Rate of `room.resume` (each one restarts a replay).
    pub rate_resume: Rate,
    /// Rate of `room.error` replies to refused frames; once it is spent,
    /// refused frames get no reply and count as strikes.
    pub rate_refusal_replies: Rate,
    /// Strikes (refused frames over [`Limits::rate_refusal_replies`]) after
    /// which the connection is closed with 4429.
    pub max_refusal_strikes: u32,
    /// Connections held at once (authenticated or not). At the cap, or when
    /// the process runs out of file descriptors, the oldest connection that
    /// has not authenticated yet is closed to make room.
    pub max_connections: usize,
    /// Connections held at once from one IP address (same eviction rule).
    pub max_connections_per_ip: usize,
    /// Longest a batch may take to reach the socket; a reader that stops
    /// reading for longer is disconnected with 4408.
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame_host: 1024 * 1024,
            max_frame_co_driver: 64 * 1024,
            max_frame_viewer: 16 * 1024,
            max_participants_per_room: 2048,
            handshake_timeout: Duration::from_secs(10),
            outbox_soft_bytes: 256 * 1024,
            outbox_hard_bytes: 4 * 1024 * 1024,
            ring_max_bytes: 8 * 1024 * 1024,
            ring_max_frames: 65_536,
            ring_max_age: Duration::from_secs(600),
            read_buffer_size: 1024,
            write_batch_bytes: 64 * 1024,
            rate_stream: Rate {
                per_sec: 20_000.0,
                burst: 40_000.0,
            },
            rate_suggest: Rate {
                per_sec: 2.0,
                burst: 10.0,
            },
            rate_chat: Rate {
                per_sec: 10.0,
                burst: 30.0,
            },
            rate_other: Rate {
                per_sec: 50.0,
                burst: 200.0,
            },
            rate_resume: Rate {
                per_sec: 1.0,
                burst: 5.0,
            },
            rate_refusal_replies: Rate {
                per_sec: 10.0,
                burst: 50.0,
            },
            max_refusal_strikes: 20,
            max_connections: 50_000,
            max_connections_per_ip: 4096,
            write_timeout: Duration::from_secs(15),
        }
    }
}

/// How to run a relay. Build with [`RelayConfig::default`] or [`RelayConfig::from_env`].
#[derive(Clone)]
pub struct RelayConfig {
    /// Address to bind; default `127.0.0.1:0` (loopback, ephemeral port).
    pub bind: SocketAddr,
    /// Bearer secret for `/admin/*`. `None`: generated at start (read it from the handle and print it).
    pub admin_secret: Option<String>,
    /// HS256 key for room tokens. `None`: random per process (set it when running several nodes).
    pub jwt_secret: Option<Vec<u8>>,
    /// `host:port` put into invites; default: the bound address.
    pub public_authority: Option<String>,
    /// Whether invites say `cohosts://` (relay behind TLS).
    pub public_tls: bool,
    /// Terminate TLS here: PEM certificate chain and private key (both or
    /// neither). Invites then say `cohosts://`.
    pub tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
    /// Browser Origins allowed to connect. A request without `Origin` (non-browser) is always allowed.
    pub allowed_origins: Vec<String>,
    /// Broker for multi-node fan-out; `None`: in-memory broker private to this relay.
    pub broker: Option<Arc<dyn Broker>>,
    /// Longest lifetime (`exp` minus now) a room token may have, minted or presented.
    /// A longer-lived token is refused: a leaked invite must not stay good for years.
    pub max_token_lifetime: Duration,
    /// All limits.
    pub limits: Limits,
}

/// Shortest admin or JWT secret the relay accepts, in bytes.
pub const MIN_SECRET_BYTES: usize = 32;

/// Default [`RelayConfig::max_token_lifetime`]: 7 days.
pub const DEFAULT_MAX_TOKEN_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

/// Refuses a configured secret that is too short to resist guessing.
fn check_secret(what: &str, var: &str, secret: Option<&[u8]>) -> Result<(), crate::RelayError> {
    match secret {
        Some(s) if s.len() < MIN_SECRET_BYTES => Err(crate::RelayError::Config(format!(
            "the {what} is {} bytes long; it must be at least {MIN_SECRET_BYTES} bytes \
             (anyone could forge or guess a shorter one). Set {var} to a random value, \
             e.g. `openssl rand -hex 32`, or leave it unset so the relay generates one",
            s.len()
        ))),
        _ => Ok(()),
    }
}

impl Default for RelayConfig {
    fn default() -> Self {
        RelayConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            admin_secret: None,
            jwt_secret: None,
            public_authority: None,
            public_tls: false,
            tls: None,
            allowed_origins: Vec::new(),
            broker: None,
            max_token_lifetime: DEFAULT_MAX_TOKEN_LIFETIME,
            limits: Limits::default(),
        }
    }
}

impl RelayConfig {
    /// Refuses settings that would make the relay unsafe: an admin or JWT
    /// secret shorter than [`MIN_SECRET_BYTES`] (an empty one included), or a
    /// zero token lifetime. [`crate::Relay::bind`] calls it before binding.
    pub fn validate(&self) -> Result<(), crate::RelayError> {
        check_secret(
            "admin secret",
            "COHOST_RELAY_ADMIN_SECRET (or admin_secret in the relay's secrets file)",
            self.admin_secret.as_deref().map(str::as_bytes),
        )?;
        check_secret(
            "JWT secret",
            "COHOST_RELAY_JWT_SECRET (or jwt_secret in the relay's secrets file)",
            self.jwt_secret.as_deref(),
        )?;
        if self.max_token_lifetime.is_zero() {
            return Err(crate::RelayError::Config(
                "the maximum token lifetime is 0; set COHOST_RELAY_MAX_TOKEN_LIFETIME to seconds > 0 (default 604800, 7 days)".into(),
            ));
        }
        Ok(())
    }

    /// Overrides each secret whose environment variable is set, independently:
    /// `COHOST_RELAY_ADMIN_SECRET` alone replaces the admin secret (from a
    /// secrets file, say) and leaves the JWT secret alone, and the other way
    /// round. A variable set to the empty string counts as set, so
    /// [`RelayConfig::validate`] refuses it rather than silently ignoring it.
    pub fn apply_env_secrets(&mut self) {
        self.apply_secrets_from(|k| std::env::var(k).ok());
    }

    /// [`RelayConfig::apply_env_secrets`] with the variables read through `get`.
    pub fn apply_secrets_from(&mut self, get: impl Fn(&str) -> Option<String>) {
        if let Some(a) = get("COHOST_RELAY_ADMIN_SECRET") {
            self.admin_secret = Some(a);
        }
        if let Some(j) = get("COHOST_RELAY_JWT_SECRET") {
            self.jwt_secret = Some(j.into_bytes());
        }
    }

    /// Defaults overridden by `COHOST_RELAY_BIND`, `COHOST_RELAY_ADMIN_SECRET`,
    /// `COHOST_RELAY_JWT_SECRET`, `COHOST_RELAY_PUBLIC` (host:port for invites),
    /// `COHOST_RELAY_ORIGINS` (comma-separated) and
    /// `COHOST_RELAY_MAX_TOKEN_LIFETIME` (seconds). The Redis broker is chosen by
    /// the caller (see [`crate::broker::RedisBroker::connect`] and `COHOST_RELAY_REDIS_URL`).
    pub fn from_env() -> Result<RelayConfig, crate::RelayError> {
        let mut c = RelayConfig::default();
        c.apply_env_secrets();
        if let Ok(v) = std::env::var("COHOST_RELAY_MAX_TOKEN_LIFETIME") {
            let secs: u64 = v.trim().parse().map_err(|_| {
                crate::RelayError::Config(format!(
                    "COHOST_RELAY_MAX_TOKEN_LIFETIME={v:?} is not a number of seconds, like 604800 (7 days)"
                ))
            })?;
            c.max_token_lifetime = Duration::from_secs(secs);
        }
        if let Ok(b) = std::env::var("COHOST_RELAY_BIND") {
            c.bind = b.parse().map_err(|_| {
                crate::RelayError::Config(format!(
                    "COHOST_RELAY_BIND={b:?} is not an address like 127.0.0.1:7070"
                ))
            })?;
        }
        c.public_authority = std::env::var("COHOST_RELAY_PUBLIC")
            .ok()
            .filter(|s| !s.is_empty());
        if let Ok(o) = std::env::var("COHOST_RELAY_ORIGINS") {
            c.allowed_origins = o
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
        }
        Ok(c)
    }
}

impl std::fmt::Debug for RelayConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayConfig")
            .field("bind", &self.bind)
            .field(
                "admin_secret",
                &self.admin_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "jwt_secret",
                &self.jwt_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("public_authority", &self.public_authority)
            .field("allowed_origins", &self.allowed_origins)
            .field("broker", &self.broker.is_some())
            .field("max_token_lifetime", &self.max_token_lifetime)
            .field("limits", &self.limits)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(admin: Option<&str>, jwt: Option<&[u8]>) -> RelayConfig {
        RelayConfig {
            admin_secret: admin.map(str::to_string),
            jwt_secret: jwt.map(<[u8]>::to_vec),
            ..RelayConfig::default()
        }
    }

    #[test]
    fn short_or_empty_secrets_are_refused_with_the_variable_named() {
        let long = "x".repeat(MIN_SECRET_BYTES);
        for (cfg, var) in [
            (with(None, Some(b"")), "COHOST_RELAY_JWT_SECRET"),
            (with(None, Some(b"k")), "COHOST_RELAY_JWT_SECRET"),
            (with(Some(""), None), "COHOST_RELAY_ADMIN_SECRET"),
            (with(Some(&long[1..]), None), "COHOST_RELAY_ADMIN_SECRET"),
        ] {
            let err = cfg
                .validate()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                err.contains(var) && err.contains("at least 32 bytes"),
                "{err}"
            );
        }
        assert!(
            with(None, None).validate().is_ok(),
            "generated secrets are fine"
        );
        assert!(with(Some(&long), Some(long.as_bytes())).validate().is_ok());
    }

    /// `COHOST_RELAY_ADMIN_SECRET` alone once lost to the secrets file.
    #[test]
    fn each_secret_variable_is_honoured_on_its_own() {
        let file_admin = "a".repeat(40);
        let file_jwt = "j".repeat(40);
        let env_admin = "e".repeat(40);
        let mut c = with(Some(&file_admin), Some(file_jwt.as_bytes()));
        c.apply_secrets_from(|k| (k == "COHOST_RELAY_ADMIN_SECRET").then(|| env_admin.clone()));
        assert_eq!(c.admin_secret.as_deref(), Some(env_admin.as_str()));
        assert_eq!(c.jwt_secret.as_deref(), Some(file_jwt.as_bytes()));
        let mut c = with(Some(&file_admin), Some(file_jwt.as_bytes()));
        c.apply_secrets_from(|k| (k == "COHOST_RELAY_JWT_SECRET").then(String::new));
        assert_eq!(c.admin_secret.as_deref(), Some(file_admin.as_str()));
        assert!(
            c.validate().is_err(),
            "an empty JWT variable is refused, not ignored"
        );
    }
}
