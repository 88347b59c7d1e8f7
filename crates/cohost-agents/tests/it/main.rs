//! Integration tests of the agent drivers: golden transcripts, each CLI end to end on its pinned binary, the HTTP providers, plugins and the pty.
//!
//! One test binary for the crate (linking one binary instead of one per
//! file is most of a test build): each former `tests/<name>.rs` is the
//! module `<name>`, so its tests are `<name>::<test>`
//! (`cargo nextest run -p cohost-agents -E 'test(/^<name>::/)'`). The shared
//! support folders stay beside `it/` and are declared here once.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test says what it skipped and what it measured on the terminal"
)]
// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod acp_e2e;
mod acp_golden;
mod agy_engine;
mod aider_e2e;
mod claude_e2e;
mod claude_golden;
mod claude_handshake;
mod claude_steer;
#[path = "../claude_support/mod.rs"]
mod claude_support;
mod codex_e2e;
mod continue_e2e;
mod copilot_e2e;
mod fixture_only_engines;
mod gemini_e2e;
mod http_edge;
mod http_litellm;
mod http_providers;
mod http_support;
mod kilo_e2e;
mod opencode_e2e;
mod plugin_manifests;
mod pty_e2e;
mod qwen_e2e;
#[path = "../support/mod.rs"]
mod support;
#[cfg(feature = "wasm-plugins")]
mod wasm_plugin;
