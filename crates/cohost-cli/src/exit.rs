//! Exit codes and how errors are shown. The table is documented in the README.

use cohost_core::{CohostError, EndReason};

/// Exit code for a usage error (bad flags, empty prompt), as clap uses.
pub const USAGE: u8 = 2;
/// Exit code for an interrupted turn (128 + SIGINT, as shells expect).
pub const INTERRUPTED: u8 = 130;
/// Exit code when the agent stopped at its turn limit.
pub const MAX_TURNS: u8 = 9;

/// The exit code for a turn's end.
pub fn for_end(reason: EndReason, error: Option<&CohostError>) -> u8 {
    match reason {
        EndReason::Completed => 0,
        EndReason::Interrupted => INTERRUPTED,
        EndReason::MaxTurns => MAX_TURNS,
        EndReason::Error => error.map(for_error).unwrap_or(1),
    }
}

/// The exit code for an error's class.
pub fn for_error(e: &CohostError) -> u8 {
    u8::try_from(e.exit_code()).unwrap_or(1)
}

/// Print an error for a human (or as one JSON line when `json`), return its code.
pub fn report(e: &CohostError, json: bool) -> u8 {
    if json {
        let mut v = serde_json::to_value(e).unwrap_or_default();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("type".into(), "error".into());
        }
        eprintln!("{v}");
    } else {
        eprintln!("cohost: error {}: {}", e.code, e.message);
        if let Some(fix) = &e.suggested_fix {
            eprintln!("  fix: {fix}");
        }
    }
    for_error(e)
}
