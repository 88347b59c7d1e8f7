//! cohost's session service: the one session-setup path every front end
//! opens its sessions through ([`session`]), the session store, the smoke
//! test (a session through that path), and what a session's turns changed
//! ([`changes`]: diffs, undo and worktrees over `cohost-git`).
//!
//! Everything takes a [`cohost_discovery::Host`] (registry + injectable
//! environment + paths), and returns data or a [`cohost_core::CohostError`];
//! the front ends only render. Every string that leaves this crate is
//! sanitized.

pub mod changes;
pub mod record;
pub mod session;
pub mod smoke;
pub mod store;
pub mod tools;

pub use session::{
    Approvals, OpenSession, ProviderChoice, Recording, SessionRequest, SetupError, Tools,
};
pub use smoke::{test_provider, SmokeStatus, SmokeTestResult};
pub use store::{SessionRecord, SessionStore, StoreError};
