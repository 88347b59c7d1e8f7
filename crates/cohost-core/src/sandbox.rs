//! What a session asks of the OS sandbox its agent runs in (issue 36). The
//! policy itself (which paths, which ports) is computed where the agent is
//! launched, from this request and what the agent is known to need.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use crate::{CohostError, ErrorCode};

/// Whether an agent runs confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// Unconfined (the agent has the user's rights).
    #[default]
    Off,
    /// Confined where the kernel can; where it cannot, a notice and the
    /// agent runs unconfined.
    On,
    /// Confined, or the session does not start.
    Required,
}

impl SandboxMode {
    /// The word users type.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::On => "on",
            SandboxMode::Required => "required",
        }
    }

    /// Whether the agent is to be confined at all.
    pub fn is_on(self) -> bool {
        self != SandboxMode::Off
    }
}

impl std::str::FromStr for SandboxMode {
    type Err = CohostError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "false" | "no" => Ok(SandboxMode::Off),
            "on" | "true" | "yes" => Ok(SandboxMode::On),
            "required" => Ok(SandboxMode::Required),
            other => Err(CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("`{other}` is not a sandbox mode"),
            )
            .with_fix("use off, on or required")),
        }
    }
}

/// What the session adds to the sandbox beyond what the agent itself needs
/// (its working tree, state directories and provider port are the launch's
/// to work out).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxRequest {
    /// Off, on or required.
    #[serde(default)]
    pub mode: SandboxMode,
    /// More paths the agent may write, e.g. the git directory a worktree's
    /// commits go to.
    #[serde(default)]
    pub write: Vec<PathBuf>,
    /// Paths the agent may not read: cohost's own keys, tokens and records.
    #[serde(default)]
    pub deny: Vec<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_bad_ones_say_what_is_accepted() {
        assert_eq!("on".parse::<SandboxMode>().ok(), Some(SandboxMode::On));
        assert_eq!(
            "Required".parse::<SandboxMode>().ok(),
            Some(SandboxMode::Required)
        );
        assert_eq!("off".parse::<SandboxMode>().ok(), Some(SandboxMode::Off));
        let e = "strict".parse::<SandboxMode>().err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("strict")));
    }
}
