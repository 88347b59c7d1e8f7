//! Integration tests of the local HTTP API (`cohost serve`): the routes,
//! authentication, the OpenAPI contract, sessions over HTTP, secrets.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    unreachable_pub
)]

// The scratch environment is the session service's tests' own.
#[path = "../../../cohost-host/tests/common/mod.rs"]
mod common;
mod serve;
mod serve_auth;
mod serve_contract;
mod support;
