//! Integration tests of the `cohost` binary: run, sessions, serve, MCP/ACP clients, shared rooms, the relay cluster, the TUI in a pty, the web page.
//!
//! One test binary for the crate (linking one binary instead of one per
//! file is most of a test build): each former `tests/<name>.rs` is the
//! module `<name>`, so its tests are `<name>::<test>`
//! (`cargo nextest run -p cohost-cli -E 'test(/^<name>::/)'`). The shared
//! support folders stay beside `it/` and are declared here once.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, nothing
// here is API, and a test may sleep while it polls a process it started
// (no session's runtime runs on its thread).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    unreachable_pub
)]

mod acp_clients;
mod acp_loopback;
mod agent_env;
mod approvals_shared;
mod book_events;
mod budget_real;
mod changes_real;
mod cli_agent_args;
mod cli_attach;
mod cli_sessions;
#[path = "../cli_support/mod.rs"]
mod cli_support;
#[path = "../clients/mod.rs"]
mod clients;
mod closed_stdout;
mod codex_real;
mod desktop_notify_real;
mod e2e_room;
mod guest_member;
mod host_notices;
mod invite_runtime;
mod join_views;
mod knock_room;
mod knock_tui;
mod mcp_clients;
mod mcp_host_claude;
#[path = "../mitm_support/mod.rs"]
mod mitm_support;
mod multiplayer;
mod no_orphans;
mod notify_pty;
#[path = "../orphans_support/mod.rs"]
mod orphans_support;
mod provider_lists;
mod record_cli;
mod record_signed;
mod relay_ha;
mod relay_mitm;
mod room_bridge;
mod room_cli;
mod room_real;
mod room_secrets;
mod room_share_cmds;
#[path = "../room_support/mod.rs"]
mod room_support;
mod run_cli;
mod sandbox_real;
mod secret_channels;
mod serve_schemathesis;
mod share_join_cli;
mod signed_out;
mod stdio_bad_input;
mod steer_real;
mod terminal_exits;
#[path = "../tls_support/mod.rs"]
mod tls_support;
mod tui_pty;
#[path = "../tui_support/mod.rs"]
mod tui_support;
// A build without WebAssembly plugins refuses their manifests (its own test).
#[cfg(feature = "wasm-plugins")]
mod wasm_agents;
mod web_page;
mod web_page_notify;
mod webhook_support;
