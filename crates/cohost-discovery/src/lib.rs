//! What this machine has and how cohost is set up on it: the [`Host`]
//! context every service takes (registry + injectable environment +
//! paths), `config.toml` and the one list of its keys, provider discovery
//! and status probes (async, cached), smoke-test results, login commands,
//! capability slots, and the hooks cohost installs in agents' settings.
//!
//! It runs no session: the session service (`cohost-host`) and the front
//! ends build on it. Every string that leaves this crate is sanitized.

pub mod config;
pub mod config_keys;
pub mod discovery;
pub mod env;
mod error;
pub mod fsutil;
pub mod hooks;
pub mod host;
pub mod login;
pub mod prices;
mod probe_http;
pub mod slots;
pub mod smoke;
pub mod status;
pub mod watch;

pub use config::{HostConfig, ProviderSettings};
pub use discovery::{CommandSource, Discovery};
pub use env::{DiscoveryEnv, HostPaths, Timeouts};
pub use error::DiscoveryError;
pub use host::{Host, ProviderFacts};
pub use login::{login_command, LoginCommand};
pub use slots::{ResolvedSlot, SlotMode, SlotSpec, SlotView};
pub use smoke::{SmokeStatus, SmokeTestResult};
pub use status::{all_statuses, provider_status, AuthState, ProviderStatus, StatusValue};
