//! Integration tests of discovery: provider probes and status on stub
//! binaries, capability slots and the config, the hooks cohost installs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    unreachable_pub
)]

// The scratch environment is the session service's tests' own.
#[path = "../../../cohost-host/tests/common/mod.rs"]
mod common;
mod discovery_status;
mod hooks;
mod slots_config;
