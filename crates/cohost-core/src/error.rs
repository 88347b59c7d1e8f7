//! The one error taxonomy at the port, merged from the three seeds.
//!
//! Every error a user can see is a [`CohostError`]: a stable [`ErrorCode`], a
//! sanitized message, whether retrying can help, and what to do next.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::sanitize::Sanitizer;

/// Stable, documented error codes. The serialized form (`SCREAMING_SNAKE_CASE`)
/// is part of cohost's public wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The provider's binary or endpoint is missing.
    ProviderNotFound,
    /// The installed version is outside the tested range.
    VersionUnsupported,
    /// The provider exists but is disabled in configuration.
    ProviderNotEnabled,
    /// Credentials are missing, invalid or expired.
    AuthRequired,
    /// An organisation policy forbids this way of authenticating.
    AuthBlockedByPolicy,
    /// The agent needs a permission the user has not granted.
    PermissionRequired,
    /// The provider asked us to slow down (429, overload).
    RateLimited,
    /// The conversation no longer fits the model's context window.
    ContextWindowExceeded,
    /// The requested model is unknown to the provider.
    ModelNotAvailable,
    /// The provider cannot run in the requested mode.
    UnsupportedMode,
    /// Connection refused, DNS or TLS failure.
    NetworkError,
    /// No answer in time (no first byte, stalled stream, hung process).
    Timeout,
    /// The process could not be started.
    SpawnFailed,
    /// The agent process died unexpectedly.
    ProcessCrashed,
    /// The agent produced output that violates its own protocol.
    InvalidOutput,
    /// A tool the agent ran failed.
    ToolExecutionFailed,
    /// The operation was cancelled by the user.
    Cancelled,
    /// cohost's own configuration or the command line is wrong.
    ConfigInvalid,
    /// The operation is only allowed from the local machine.
    LocalOnlyRequired,
    /// A lifecycle transition that the state machine forbids (a bug).
    IllegalTransition,
    /// The session's budget is spent: no new prompt runs until the host
    /// raises it.
    BudgetExceeded,
    /// A code this version of cohost does not know (tolerant reader).
    #[serde(other)]
    Unknown,
}

// Exit codes per class belong to the binary (`cohost-cli`'s `exit.rs`).
impl ErrorCode {
    /// All codes, for documentation and exhaustive tests.
    pub const ALL: [ErrorCode; 21] = [
        ErrorCode::ProviderNotFound,
        ErrorCode::VersionUnsupported,
        ErrorCode::ProviderNotEnabled,
        ErrorCode::AuthRequired,
        ErrorCode::AuthBlockedByPolicy,
        ErrorCode::PermissionRequired,
        ErrorCode::RateLimited,
        ErrorCode::ContextWindowExceeded,
        ErrorCode::ModelNotAvailable,
        ErrorCode::UnsupportedMode,
        ErrorCode::NetworkError,
        ErrorCode::Timeout,
        ErrorCode::SpawnFailed,
        ErrorCode::ProcessCrashed,
        ErrorCode::InvalidOutput,
        ErrorCode::ToolExecutionFailed,
        ErrorCode::Cancelled,
        ErrorCode::ConfigInvalid,
        ErrorCode::LocalOnlyRequired,
        ErrorCode::IllegalTransition,
        ErrorCode::BudgetExceeded,
    ];

    /// Whether retrying the same request later can succeed without user action.
    pub fn default_retryable(self) -> bool {
        matches!(
            self,
            ErrorCode::RateLimited
                | ErrorCode::NetworkError
                | ErrorCode::Timeout
                | ErrorCode::ProcessCrashed
        )
    }

    /// The wire name, e.g. `AUTH_REQUIRED`.
    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            ProviderNotFound => "PROVIDER_NOT_FOUND",
            VersionUnsupported => "VERSION_UNSUPPORTED",
            ProviderNotEnabled => "PROVIDER_NOT_ENABLED",
            AuthRequired => "AUTH_REQUIRED",
            AuthBlockedByPolicy => "AUTH_BLOCKED_BY_POLICY",
            PermissionRequired => "PERMISSION_REQUIRED",
            RateLimited => "RATE_LIMITED",
            ContextWindowExceeded => "CONTEXT_WINDOW_EXCEEDED",
            ModelNotAvailable => "MODEL_NOT_AVAILABLE",
            UnsupportedMode => "UNSUPPORTED_MODE",
            NetworkError => "NETWORK_ERROR",
            Timeout => "TIMEOUT",
            SpawnFailed => "SPAWN_FAILED",
            ProcessCrashed => "PROCESS_CRASHED",
            InvalidOutput => "INVALID_OUTPUT",
            ToolExecutionFailed => "TOOL_EXECUTION_FAILED",
            Cancelled => "CANCELLED",
            ConfigInvalid => "CONFIG_INVALID",
            LocalOnlyRequired => "LOCAL_ONLY_REQUIRED",
            IllegalTransition => "ILLEGAL_TRANSITION",
            BudgetExceeded => "BUDGET_EXCEEDED",
            Unknown => "UNKNOWN",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error as users and other programs see it. Construct with
/// [`CohostError::new`]. Building one consults nothing: the message is
/// sanitized where it leaves cohost (the session engine's emitter, error
/// reports, the HTTP API, MCP/ACP replies, the record), with the
/// [`Sanitizer`] value that boundary holds ([`CohostError::sanitized`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct CohostError {
    /// Stable machine-readable code.
    pub code: ErrorCode,
    /// What happened, to what (sanitized at the boundary, not here).
    pub message: String,
    /// Whether retrying later can succeed without user action.
    pub retryable: bool,
    /// What the user should do next, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_fix: Option<String>,
}

impl CohostError {
    /// A new error.
    pub fn new(code: ErrorCode, message: impl AsRef<str>) -> Self {
        CohostError {
            code,
            message: message.as_ref().to_string(),
            retryable: code.default_retryable(),
            suggested_fix: None,
        }
    }

    /// Attach a suggested fix.
    pub fn with_fix(mut self, fix: impl AsRef<str>) -> Self {
        self.suggested_fix = Some(fix.as_ref().to_string());
        self
    }

    /// Attach `fix` when there is one (a typed error's own fix, which
    /// some of its variants do not have).
    pub fn with_optional_fix(self, fix: Option<impl AsRef<str>>) -> Self {
        match fix {
            Some(fix) => self.with_fix(fix),
            None => self,
        }
    }

    /// This error with its message and fix passed through `sanitizer`: what
    /// a boundary shows or sends.
    pub fn sanitized(mut self, sanitizer: &Sanitizer) -> Self {
        self.message = sanitizer.sanitize(&self.message).into_owned();
        self.suggested_fix = self
            .suggested_fix
            .map(|f| sanitizer.sanitize(&f).into_owned());
        self
    }

    /// Override whether the error is retryable.
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }
}

/// A file or directory cohost could not make, read, write, lock or
/// restrict: what it tried, on which path, and the system's reason (kept
/// as `source()`). The I/O variant of the crates that keep files
/// (discovery's config and caches, the session store, the record) wraps
/// it, so all say it alike.
#[derive(Debug, thiserror::Error)]
#[error("could not {what} `{}`: {source}", path.display())]
pub struct IoFailure {
    /// What cohost tried ("read", "create directory").
    pub what: &'static str,
    /// The file or directory.
    pub path: std::path::PathBuf,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

impl IoFailure {
    /// `what` on `path` failed with `source`.
    pub fn new(what: &'static str, path: &std::path::Path, source: std::io::Error) -> IoFailure {
        IoFailure {
            what,
            path: path.to_path_buf(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: ErrorCode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, code);
        }
    }

    #[test]
    fn unknown_codes_degrade() {
        let code: ErrorCode = serde_json::from_str("\"SOMETHING_NEW\"").unwrap();
        assert_eq!(code, ErrorCode::Unknown);
    }

    #[test]
    fn messages_are_sanitized() {
        let e = CohostError::new(
            ErrorCode::AuthRequired,
            "bad key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
        )
        .with_fix("set ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789")
        .sanitized(&Sanitizer::shapes_only());
        assert!(!e.message.contains("abcdefghijklmnop"));
        assert!(!e.suggested_fix.unwrap().contains("abcdefghijklmnop"));
    }
}
