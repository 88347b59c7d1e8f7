//! cohost-relay: a zero-knowledge WebSocket relay for cohost rooms.
//!
//! It reads only the clear envelope of [`cohost_protocol::Frame`] (type, room,
//! stream, chunk index), checks the sender's role against the permission matrix,
//! stamps sender id and role, and fans frames out to the room — locally and, via
//! a [`broker::Broker`], to other relay nodes. Payloads are opaque: never parsed,
//! never logged.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cohost_relay::RelayError> {
//! use cohost_relay::{Relay, RelayConfig};
//! use cohost_protocol::Role;
//! let relay = Relay::bind(RelayConfig::default()).await?;
//! let room = relay.create_room(None)?;
//! let invite = relay.mint_invite(&room, Role::CoDriver, 3600, "ana")?;
//! println!("admin secret: {}\ninvite: {invite}", relay.admin_secret());
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]

/// Log filter directives to append to any `EnvFilter` a relay runs under: the
/// WebSocket library logs whole frames (payload bytes included) at TRACE, so its
/// targets are capped. The relay's own logs carry header fields and sizes only.
pub const LOG_DIRECTIVES: &str = "tungstenite=info,tokio_tungstenite=info";

pub mod admin;
pub mod auth;
pub mod broker;
pub mod client;
pub mod config;
mod error;
pub mod limits;
pub mod metrics;
pub mod order;
pub mod relay_addr;
pub mod ring;
mod server;
pub mod tls;
mod tls_problem;
pub mod web;

pub use broker::{Broker, MemoryBroker, RedisBroker};
pub use client::{ClientConfig, ClientError, ClientEvent, RelayClient};
pub use config::{Limits, Rate, RelayConfig, DEFAULT_MAX_TOKEN_LIFETIME, MIN_SECRET_BYTES};
pub use error::RelayError;
pub use relay_addr::RelayAddr;
pub use server::{Relay, RelayHandle};
pub use tls_problem::{cert_problem, CertProblem};
