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
    /// Time to present a token (first-frame mode) after the upgrade.
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
    /// Browser Origins allowed to connect. A request without `Origin` (non-browser) is always allowed.
    pub allowed_origins: Vec<String>,
    /// Broker for multi-node fan-out; `None`: in-memory broker private to this relay.
    pub broker: Option<Arc<dyn Broker>>,
    /// All limits.
    pub limits: Limits,
}

impl Default for RelayConfig {
    fn default() -> Self {
        RelayConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            admin_secret: None,
            jwt_secret: None,
            public_authority: None,
            public_tls: false,
            allowed_origins: Vec::new(),
            broker: None,
            limits: Limits::default(),
        }
    }
}

impl RelayConfig {
    /// Defaults overridden by `COHOST_RELAY_BIND`, `COHOST_RELAY_ADMIN_SECRET`,
    /// `COHOST_RELAY_JWT_SECRET`, `COHOST_RELAY_PUBLIC` (host:port for invites)
    /// and `COHOST_RELAY_ORIGINS` (comma-separated). The Redis broker is chosen by
    /// the caller (see [`crate::broker::RedisBroker::connect`] and `COHOST_RELAY_REDIS_URL`).
    pub fn from_env() -> Result<RelayConfig, crate::RelayError> {
        let mut c = RelayConfig::default();
        if let Ok(b) = std::env::var("COHOST_RELAY_BIND") {
            c.bind = b.parse().map_err(|_| {
                crate::RelayError::Config(format!(
                    "COHOST_RELAY_BIND={b:?} is not an address like 127.0.0.1:7070"
                ))
            })?;
        }
        c.admin_secret = std::env::var("COHOST_RELAY_ADMIN_SECRET")
            .ok()
            .filter(|s| !s.is_empty());
        c.jwt_secret = std::env::var("COHOST_RELAY_JWT_SECRET")
            .ok()
            .filter(|s| !s.is_empty())
            .map(String::into_bytes);
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
            .field("limits", &self.limits)
            .finish()
    }
}
