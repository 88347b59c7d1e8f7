//! Integration tests of the testbench: the scratch bench, the CLI smoke run, the drift report and scripts/test.sh.
//!
//! One test binary for the crate (linking one binary instead of one per
//! file is most of a test build): each former `tests/<name>.rs` is the
//! module `<name>`, so its tests are `<name>::<test>`
//! (`cargo nextest run -p cohost-testbench -E 'test(/^<name>::/)'`). The shared
//! support folders stay beside `it/` and are declared here once.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod bench;
mod book_links;
#[path = "../common/mod.rs"]
mod common;
mod drift_report;
mod import_cycles;
mod sanitizer_global;
mod smoke;
mod test_script;
