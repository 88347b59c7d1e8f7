//! Process supervision and the runners over it, shared by every CLI
//! driver: the supervisor (below), the one-shot runner ([`oneshot`]), the
//! long-lived session actor ([`session`]), and the provider spec a driver
//! declares ([`provider`]: the types, not the list, which lives with the
//! drivers in `cohost-agents`). It knows no driver.
//!
//! The supervisor:
//!
//! - [`Supervised::spawn`] starts an agent as the leader of its own process
//!   group with piped stdio and a narrow environment ([`EnvPolicy`]: an
//!   allowlist, the provider's own prefixes, the user's explicit variables).
//! - stdout is framed into bounded lines ([`LineFramer`], 16 MiB by default;
//!   longer lines become [`Frame::Oversized`] and the stream continues),
//!   decoded lossily, a truncated last line included.
//! - stderr goes to a bounded ring ([`StderrRing`], last 64 KiB), sanitized
//!   on read; [`classify_stderr`] maps common failures to error codes.
//! - exit is watched ([`ExitInfo`]); signals go to the whole group
//!   ([`GroupSignal`]); the group is SIGKILLed on `terminate` and on `Drop`;
//!   [`kill_all`] kills every group still alive (the binary calls it on exit).
//! - [`supervisor`]: under the `cohost` binary each agent runs below a small
//!   supervisor (cohost in a hidden mode, a child subreaper) that kills the
//!   agent's whole tree, `setsid` descendants included, when the session
//!   ends or cohost dies, even by SIGKILL.
//! - a turn never waits on a pipe a descendant keeps open: once the leader
//!   exits, stdout and stderr end after a short idle grace.
//! - [`locate_binary`] and [`probe_version`] find the agent and check it;
//!   [`locate_checked`] does both against a driver's spec.
//!
//! A driver owns one [`Supervised`], takes its stdout receiver into the turn
//! stream, writes stdin through a cloneable [`StdinWriter`], and reports
//! [`Supervised::crash_report`] as `health().last_error` when the child dies.
//!
//! `oneshot` builds the one-process-per-turn runner and adapter on top of
//! this, shared by every driver whose CLI exits after each turn.

mod child;
mod env;
mod error;
mod framer;
// kill(2) on a process group.
#[allow(unsafe_code)]
mod group;
mod installed;
// The direct spawn's pre_exec hook (parent-death signal).
#[allow(unsafe_code)]
mod launch;
mod locate;
pub mod oneshot;
mod probe_cache;
mod probe_output;
pub mod procfs;
pub mod provider;
pub mod sandbox;
pub mod session;
mod spec;
mod stderr;
// fork/exec, setsid and waitpid of the spawn helper.
#[allow(unsafe_code)]
pub mod supervisor;

pub use child::crash_report;
pub use child::{StdinWriter, Supervised};
pub use env::{EnvPolicy, ALLOWED_NAMES, ALLOWED_PREFIXES};
pub use error::ProcessError;
pub use framer::{Frame, LineFramer, DEFAULT_MAX_LINE_BYTES};
pub use group::running_as_root;
pub use group::{
    deregister, kill_all, live_groups, register, signal_group, GroupRegistry, GroupSignal,
};
pub use installed::{locate_checked, PROBE_TIMEOUT};
pub use installed::{lock, session_health};
pub use locate::{find_on_path, locate_binary, probe, probe_version, Version, VersionRange};
/// For the fuzz targets in `fuzz/` only: the one-shot normalizers' line API.
#[doc(hidden)]
pub use oneshot::turn::TurnNormalizer;
pub use probe_cache::set_cache_file as set_probe_cache_file;
pub use probe_cache::write_atomic;
pub use probe_output::ProbeOutput;
pub use spec::{ExitInfo, ProcessSpec};
pub use stderr::tail_lines;
pub use stderr::{classify_stderr, StderrRing, DEFAULT_STDERR_BYTES};

use cohost_core::{CohostError, ErrorCode};

/// The non-fatal INVALID_OUTPUT error for a dropped over-long line.
pub fn oversized_line_error(provider_id: &str, bytes: usize) -> CohostError {
    CohostError::new(
        ErrorCode::InvalidOutput,
        format!("agent `{provider_id}` printed a {bytes}-byte line, over the line limit; it was skipped"),
    )
    .with_fix("usually a huge tool output; the turn continues without that event")
}

#[cfg(test)]
mod tests;
