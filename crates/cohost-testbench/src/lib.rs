//! cohost-testbench: the support crate for tests that drive the **real** agent
//! CLIs (installed by `tests/agents/install.sh`) fully offline against
//! `cohost-fakellm`. A dev-dependency only; never part of the product.
//!
//! A [`Bench`] owns one fake model server on 127.0.0.1:0, one scratch user
//! (HOME, XDG dirs, CODEX_HOME, a `work/` cwd, all in a temp dir) configured
//! so exactly one [`AgentCli`] talks to that server and nothing else, and one
//! unique [`MARKER_VAR`] value that every child inherits, so the bench can
//! find — and kill — anything the CLI left behind, and watch what it connects to.
//!
//! ```no_run
//! # async fn demo() {
//! use std::time::Duration;
//! use cohost_testbench::{assert_no_leftovers, require_cli, run_with_timeout, AgentCli, Bench};
//! let Some(_) = require_cli(AgentCli::Claude) else { return };
//! let bench = Bench::start(AgentCli::Claude).await.expect("bench");
//! let out = run_with_timeout(bench.command(["-p", "hello"]), Duration::from_secs(120))
//!     .await
//!     .expect("spawn");
//! assert!(out.success(), "{}", out.describe());
//! assert!(out.stdout.contains("You said: hello"));
//! assert!(!bench.model_requests().is_empty());
//! bench.assert_only_loopback();
//! assert_no_leftovers(bench.marker()).await;
//! # }
//! ```
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the test bench and its tools report on the terminal"
)]
// Only `process` (kill(2) of leftovers) may use unsafe code.
#![deny(unsafe_code)]

mod bench;
mod cli;
pub mod config;
pub mod drift;
pub mod events;
mod install;
pub mod modgraph;
mod netwatch;
// kill(2) of leftover processes and groups.
#[allow(unsafe_code)]
mod process;
pub mod procfs;
pub mod skip;
pub mod snapshot;
pub mod wasm_examples;

pub use bench::{assert_requests_to, Bench};
pub use cli::{AgentCli, ModelApi, UnknownCli};
pub use config::{Layout, Setup, FAKE_API_KEY, FAKE_MODEL};
pub use install::{agents_dir, bin_dir, installed_bin, require_cli};
pub use netwatch::{NetWatch, Outbound};
pub use process::{
    assert_no_leftovers, kill_leftovers, leftover_processes, run_with_timeout, spawn_in_group,
    GroupGuard, RunOutput,
};
pub use procfs::{ProcInfo, MARKER_VAR};
pub use skip::{on_ci, skip_or_fail};

/// `s` in single quotes for a POSIX shell (a `'` inside becomes `'\''`).
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Re-exported so tests need no direct dependency to tune the server.
pub use cohost_fakellm::{FakeLlmConfig, LoggedRequest, Scenario};
