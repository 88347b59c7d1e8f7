//! Integration tests of cohost-host: discovery and status, hooks, slots, the store, the smoke test and `serve`.
//!
//! One test binary for the crate (linking one binary instead of one per
//! file is most of a test build): each former `tests/<name>.rs` is the
//! module `<name>`, so its tests are `<name>::<test>`
//! (`cargo nextest run -p cohost-host -E 'test(/^<name>::/)'`). The shared
//! support folders stay beside `it/` and are declared here once.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod agents_status;
#[path = "../common/mod.rs"]
mod common;
mod discovery_status;
mod hooks;
mod serve;
mod serve_auth;
mod serve_contract;
mod slots_config;
mod smoke;
mod store;
