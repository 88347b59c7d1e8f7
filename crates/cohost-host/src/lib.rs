//! cohost's host-side local services: provider discovery and status, smoke
//! tests, login commands, capability slots, agent hooks, the session store,
//! the localhost settings API, and the one session-setup service every front
//! end opens its sessions through ([`session`]).
//!
//! Everything takes a [`Host`] (registry + injectable environment + paths),
//! and returns data or a [`cohost_core::CohostError`]; the `cohost` binary
//! only prints. Every string that leaves this crate is sanitized.

// The only unsafe code is `fsutil`'s flock(2) calls and `serve::token`'s
// geteuid(2), allowed there alone.

pub mod changes;
pub mod config;
pub mod config_keys;
pub mod discovery;
pub mod env;
pub mod fsutil;
pub mod hooks;
pub mod host;
pub mod login;
mod probe_http;
pub mod serve;
pub mod session;
pub mod slots;
pub mod smoke;
pub mod status;
pub mod store;
pub mod tools;

pub use config::{HostConfig, ProviderSettings};
pub use discovery::{CommandSource, Discovery};
pub use env::{DiscoveryEnv, HostPaths, Timeouts};
pub use host::{Host, ProviderFacts};
pub use login::{login_command, LoginCommand};
pub use serve::{serve, DEFAULT_PORT};
pub use session::{
    Approvals, OpenSession, ProviderChoice, Recording, SessionRequest, SetupError, Tools,
};
pub use slots::{ResolvedSlot, SlotMode, SlotSpec, SlotView};
pub use smoke::{test_provider, SmokeStatus, SmokeTestResult};
pub use status::{all_statuses, provider_status, AuthState, ProviderStatus, StatusValue};
pub use store::{SessionRecord, SessionStore};
