//! Integration tests of the relay: room flow, admin API, limits, Redis history and nodes.
//!
//! One test binary for the crate (linking one binary instead of one per
//! file is most of a test build): each former `tests/<name>.rs` is the
//! module `<name>`, so its tests are `<name>::<test>`
//! (`cargo nextest run -p cohost-relay -E 'test(/^<name>::/)'`). The shared
//! support folders stay beside `it/` and are declared here once.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod admin_api;
mod bounded;
#[path = "../common/mod.rs"]
mod common;
mod exhaustion;
mod operable;
mod participant_view;
mod redis_history;
mod redis_nodes;
mod rejections;
mod room_flow;
mod safe_settings;
