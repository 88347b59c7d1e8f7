//! Exit codes and how a command's failure is shown. The table is documented
//! in the book (docs/book/src/getting-started.md, events.md); it belongs to the binary, not to the domain.

use cohost_core::{CohostError, EndReason, ErrorCode, Sanitizer};
use std::io::Write;

/// Exit code for an internal error (a bug).
pub const INTERNAL: u8 = 1;
/// Exit code for a usage error (bad flags, empty prompt), as clap uses.
pub const USAGE: u8 = 2;
/// Exit code for an interrupted turn (128 + SIGINT, as shells expect).
pub const INTERRUPTED: u8 = 130;
/// Exit code when the agent stopped at its turn limit.
pub const MAX_TURNS: u8 = 9;
/// Exit code of `cohost doctor` when it found something to fix (a broken
/// config or hook file, a provider that failed or is blocked); notes such as
/// an unset optional API key do not count.
pub const DOCTOR_PROBLEMS: u8 = 10;
/// Exit code when the session's budget was spent (the turn ended with
/// reason `budget`, or a prompt was refused with `BUDGET_EXCEEDED`).
pub const BUDGET: u8 = 11;

/// Exit code of `cohost join` when the host of a `--knock` room did not let
/// this participant in: refused (`/refuse`), or not answered in time.
pub const TURNED_AWAY: u8 = 13;

/// The exit code of an error class. One code per class keeps scripts simple:
/// they rarely care whether the key was missing or expired, only that the
/// fix is "authenticate".
pub fn for_code(code: ErrorCode) -> u8 {
    use ErrorCode::*;
    match code {
        ConfigInvalid => 3,
        ProviderNotFound | VersionUnsupported | ProviderNotEnabled | UnsupportedMode
        | ModelNotAvailable => 4,
        AuthRequired | AuthBlockedByPolicy | PermissionRequired | LocalOnlyRequired => 5,
        RateLimited | ContextWindowExceeded => 6,
        NetworkError | Timeout => 7,
        SpawnFailed | ProcessCrashed | InvalidOutput | ToolExecutionFailed => 8,
        Cancelled => INTERRUPTED,
        BudgetExceeded => BUDGET,
        IllegalTransition | Unknown => INTERNAL,
        // A code added to the domain after this table: treat it as a bug
        // until it gets its class here.
        _ => INTERNAL,
    }
}

/// The exit code for a turn's end.
pub fn for_end(reason: EndReason, error: Option<&CohostError>) -> u8 {
    match reason {
        EndReason::Completed => 0,
        EndReason::Interrupted => INTERRUPTED,
        EndReason::MaxTurns => MAX_TURNS,
        EndReason::Budget => BUDGET,
        EndReason::Error => error.map(for_error).unwrap_or(INTERNAL),
    }
}

/// The exit code for an error's class.
pub fn for_error(e: &CohostError) -> u8 {
    for_code(e.code)
}

/// Why a command failed: the error to show once, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What to show.
    pub error: CohostError,
    /// The process exit code.
    pub exit: u8,
}

impl Failure {
    /// A usage error (exit 2) carrying `error`'s code and fix.
    pub fn usage(error: CohostError) -> Failure {
        Failure { error, exit: USAGE }
    }
}

/// An internal failure (exit 1): something that should not happen did.
pub fn internal(message: impl AsRef<str>) -> Failure {
    Failure {
        error: CohostError::new(ErrorCode::Unknown, message)
            .with_fix("this is a bug in cohost; please report it with the command you ran"),
        exit: INTERNAL,
    }
}

impl From<CohostError> for Failure {
    fn from(error: CohostError) -> Self {
        let exit = for_error(&error);
        Failure { error, exit }
    }
}

/// A library crate's own error fails a command as its wire error does.
macro_rules! failure_from_wire {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Failure {
            fn from(error: $error) -> Self {
                Failure::from(CohostError::from(error))
            }
        }
    )*};
}

failure_from_wire!(
    cohost_discovery::DiscoveryError,
    cohost_host::changes::ChangesError,
    cohost_host::session::attach::AttachError,
    cohost_host::session::CwdError,
    cohost_host::record::RecordError,
    cohost_host::StoreError,
    cohost_session::SessionError,
);

/// A session that could not be set up: a usage error (exit 2) when the
/// command line asked for the impossible (offered tools, arguments for the
/// agent), else as its wire error.
impl From<cohost_host::session::SetupError> for Failure {
    fn from(error: cohost_host::session::SetupError) -> Self {
        if error.is_usage() {
            Failure::usage(error.into())
        } else {
            Failure::from(CohostError::from(error))
        }
    }
}

/// What a command returns: `Ok(code)` when it ran (0, or a turn's end
/// code, whose error the event stream has already shown), `Err` when it
/// failed before or outside a turn (shown by [`report`]).
pub type CmdResult = Result<u8, Failure>;

/// Print an error for a human (or as one JSON line when `json`) on stderr:
/// an error report, one of the boundaries where errors pass the sanitizer
/// (the binary's, built at start by `secrets::install`).
pub fn show(e: &CohostError, json: bool) {
    let mut err = std::io::stderr().lock();
    write_error(&crate::secrets::sanitizer(), e, json, &mut err);
}

/// [`show`] to `w`, through `sanitizer`.
fn write_error(sanitizer: &Sanitizer, e: &CohostError, json: bool, w: &mut dyn Write) {
    let e = &e.clone().sanitized(sanitizer);
    // Best effort, as `eprintln!` was: a closed stderr has no one to tell.
    let _ = if json {
        let mut v = serde_json::to_value(e).unwrap_or_default();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("type".into(), "error".into());
        }
        writeln!(w, "{v}")
    } else {
        writeln!(w, "cohost: error {}: {}", e.code, e.message).and_then(|()| {
            match &e.suggested_fix {
                Some(fix) => writeln!(w, "  fix: {fix}"),
                None => Ok(()),
            }
        })
    };
}

/// Show a command's outcome once and return the process exit code.
pub fn report(result: CmdResult, json: bool) -> u8 {
    match result {
        Ok(code) => code,
        Err(f) => {
            show(&f.error, json);
            f.exit
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_nonzero_and_stable() {
        for code in ErrorCode::ALL {
            assert_ne!(for_code(code), 0, "{code}");
            assert_ne!(for_code(code), 2, "2 is reserved for usage errors: {code}");
        }
        assert_eq!(for_code(ErrorCode::AuthRequired), 5);
        assert_eq!(for_code(ErrorCode::Cancelled), 130);
    }

    #[test]
    fn failures_keep_their_class_unless_usage() {
        let e = CohostError::new(ErrorCode::NetworkError, "down");
        assert_eq!(Failure::from(e.clone()).exit, 7);
        assert_eq!(Failure::usage(e).exit, USAGE);
        assert_eq!(report(Ok(9), false), 9);
    }

    /// A value only the given sanitizer knows (no shape, no secret name)
    /// is redacted in both forms of the report, message and fix.
    #[test]
    fn a_report_passes_the_sanitizer_given() {
        const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
        assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
        let given = Sanitizer::shapes_only().with_known_values([PLANTED]);
        let e = CohostError::new(ErrorCode::NetworkError, format!("refused {PLANTED}"))
            .with_fix(format!("unset {PLANTED}"));
        for json in [false, true] {
            let mut out = Vec::new();
            write_error(&given, &e, json, &mut out);
            let out = String::from_utf8(out).unwrap();
            assert!(!out.contains(PLANTED), "{out}");
            assert_eq!(out.matches("[REDACTED]").count(), 2, "{out}");
        }
    }
}
