//! [`ProcessError`]: what can go wrong finding, checking and probing an
//! agent's binary and preparing its sandbox, typed and with its source, and its mapping to the wire
//! error ([`CohostError`]) at the adapter, the edge.

use std::path::PathBuf;

use cohost_core::{CohostError, ErrorCode};

use crate::{Version, VersionRange};

/// A failure to find, check or probe an agent's binary.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcessError {
    /// The binary is missing, or the configured path is no executable.
    #[error("agent `{provider}` is not installed: {what}")]
    NotFound {
        /// Provider id.
        provider: String,
        /// What was looked for and not found.
        what: String,
        /// How to install it.
        install_hint: String,
    },
    /// The installed version is outside the range the driver runs.
    #[error("agent `{provider}` {version} is outside the tested range {range}")]
    VersionOutOfRange {
        /// Provider id.
        provider: String,
        /// The version found.
        version: Version,
        /// The versions the driver runs.
        range: VersionRange,
        /// How to install another one.
        install_hint: String,
    },
    /// `--version` printed no version (or failed).
    #[error("agent `{provider}`: `{} --version` printed no version: {first_line}", binary.display())]
    NoVersion {
        /// Provider id.
        provider: String,
        /// The binary probed.
        binary: PathBuf,
        /// The first line it printed, or `(nothing)`.
        first_line: String,
    },
    /// The probe could not be started.
    #[error("could not run `{}`: {source}", binary.display())]
    ProbeSpawn {
        /// The binary.
        binary: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Waiting for the probe failed.
    #[error("`{command}` failed: {source}")]
    ProbeWait {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The probe did not answer in time (it was killed).
    #[error("agent `{provider}`: `{command}` did not answer within {ms} ms")]
    ProbeTimeout {
        /// Provider id.
        provider: String,
        /// The command line.
        command: String,
        /// The time it had.
        ms: u128,
    },
    /// The sandbox is required and this kernel cannot confine the agent.
    #[error(
        "the sandbox is required, but this kernel has no Landlock, so the agent cannot be confined"
    )]
    SandboxUnavailable,
    /// The sandbox could not prepare a path (its private temp dir).
    #[error("the sandbox could not {what} `{}`: {source}", path.display())]
    SandboxIo {
        /// What it tried.
        what: &'static str,
        /// On what.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl ProcessError {
    /// The wire code this error maps to.
    pub fn code(&self) -> ErrorCode {
        match self {
            ProcessError::NotFound { .. } => ErrorCode::ProviderNotFound,
            ProcessError::VersionOutOfRange { .. } | ProcessError::NoVersion { .. } => {
                ErrorCode::VersionUnsupported
            }
            ProcessError::ProbeSpawn { .. } | ProcessError::ProbeWait { .. } => {
                ErrorCode::SpawnFailed
            }
            ProcessError::ProbeTimeout { .. } => ErrorCode::Timeout,
            ProcessError::SandboxUnavailable => ErrorCode::UnsupportedMode,
            ProcessError::SandboxIo { .. } => ErrorCode::SpawnFailed,
        }
    }

    /// What the user should do next, when there is something to say.
    fn fix(&self) -> Option<String> {
        match self {
            ProcessError::NotFound {
                provider,
                install_hint,
                ..
            } => Some(format!(
                "{install_hint}; or set the binary path in cohost's config for `{provider}`"
            )),
            ProcessError::VersionOutOfRange {
                range,
                install_hint,
                ..
            } => Some(format!("install a version in {range} ({install_hint})")),
            ProcessError::NoVersion { .. } => {
                Some("reinstall the agent; cohost needs a version it was tested with".into())
            }
            ProcessError::ProbeSpawn { .. } => {
                Some("check that the file is an executable for this platform".into())
            }
            ProcessError::ProbeWait { .. } => None,
            ProcessError::ProbeTimeout { .. } => {
                Some("run the command yourself to see whether it waits for input or a login".into())
            }
            ProcessError::SandboxUnavailable => Some(
                "run on Linux 5.13 or later with `landlock` in the kernel's lsm= list (`cohost \
                 doctor` shows what is enforced), or use --sandbox=on to run unconfined with a \
                 notice"
                    .into(),
            ),
            ProcessError::SandboxIo { .. } => Some(
                "check that directory's permissions and free space, or use --sandbox=off".into(),
            ),
        }
    }
}

impl From<ProcessError> for CohostError {
    fn from(e: ProcessError) -> Self {
        CohostError::new(e.code(), e.to_string()).with_optional_fix(e.fix())
    }
}
