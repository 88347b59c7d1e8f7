//! The supervisor's side of cohost's process supervision, and the control
//! protocol both sides speak.
//!
//! Every agent cohost starts runs below its own supervisor: a small program
//! that holds one end of a socket pair whose other end only cohost holds,
//! is a child subreaper (Linux), so every process the agent starts stays
//! its descendant even after `setsid` or a double fork, and, when the
//! socket closes (cohost ended the session or died, SIGKILL included),
//! SIGKILLs the agent's group and then every descendant until none is left.
//!
//! The program is `cohost-supervise`, installed next to `cohost`; without
//! it, `cohost` itself in the hidden mode [`SUPERVISE_ARG`]. Both run
//! [`run_if_requested`]. This crate is kept to libc, rustix and landlock because
//! each agent spawn waits for the supervisor to start, and a small program
//! starts in a fraction of the time the whole `cohost` binary takes.
//!
//! The protocol: the control socket is the supervisor's stdin. cohost first
//! sends one byte carrying the agent's stdin ([`hand_over_stdin`]), then
//! the agent's sandbox policy or that it has none ([`send_policy`]; the
//! supervisor confines the agent with it between fork and exec, see
//! [`sandbox`]); the supervisor's stdout and stderr are the agent's. The supervisor writes
//! lines: `P PID` (agent started) or `E MESSAGE` (it could not start), then
//! `X c CODE` or `X s SIGNAL` when the agent leader exits; cohost writes
//! nothing more but a byte to ask for the tree kill, or closes its end.

mod helper;
mod protocol;
pub mod sandbox;
pub mod tree;

use std::ffi::OsString;

pub use protocol::{
    hand_over_stdin, parse_exit, send_policy, supervise_args, take_policy, take_stdin,
    PROCESS_NAME, PROTOCOL, SUPERVISE_ARG,
};
pub use tree::KILL_BUDGET;

/// If this process was started as a supervisor (`argv[1]` is
/// [`SUPERVISE_ARG`]), run it and return its exit code. The rest of the
/// arguments are [`PROTOCOL`], then `PROGRAM ARGS...`, the agent's command
/// line.
pub fn run_if_requested() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != SUPERVISE_ARG {
        return None;
    }
    if args.next().as_deref() != Some(std::ffi::OsStr::new(PROTOCOL)) {
        return Some(helper::refuse_protocol());
    }
    let rest: Vec<OsString> = args.collect();
    Some(helper::run(&rest))
}
