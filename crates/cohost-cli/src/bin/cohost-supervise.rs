//! `cohost-supervise`: the supervisor every agent runs below, as a program
//! of its own. `cohost` starts it from its own directory (falling back to
//! `cohost __supervise` when it is not there); it is not meant to be run by
//! hand. It links only `cohost-supervisor` (libc and rustix), so it starts
//! in a fraction of the time the whole `cohost` binary takes, and every
//! agent spawn waits for that.
#![allow(
    clippy::print_stderr,
    reason = "the supervisor says on stderr why it cannot start"
)]
#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    match cohost_supervisor::run_if_requested() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => {
            eprintln!(
                "cohost-supervise: internal to cohost (it supervises each agent cohost starts); run `cohost` instead"
            );
            ExitCode::from(2)
        }
    }
}
