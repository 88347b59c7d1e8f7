//! Integration tests of cohost-host: the agents list with the smoke cache, the session store, the smoke test.
//!
//! One test binary for the crate (linking one binary instead of one per
//! file is most of a test build): each former `tests/<name>.rs` is the
//! module `<name>`, so its tests are `<name>::<test>`
//! (`cargo nextest run -p cohost-host -E 'test(/^<name>::/)'`). The shared
//! support folders stay beside `it/` and are declared here once.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, nothing
// here is API, and a test may sleep (the store's tests space updates in
// time; no session's runtime runs on its thread).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    unreachable_pub
)]

mod agents_status;
// cohost-api's it binary compiles the same module and uses all of it.
#[allow(
    dead_code,
    reason = "shared with cohost-api's tests, which check it whole"
)]
#[path = "../common/mod.rs"]
mod common;
mod smoke;
mod store;
