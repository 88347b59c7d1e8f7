//! [`PluginError`]: a manifest that could not be used. Parsing a manifest
//! (`manifest.rs`) makes them and loading the plugins (`mod.rs`) reports
//! them.

use std::fmt;
use std::path::PathBuf;

/// A manifest that could not be used: which file, which field, why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PluginError {
    /// The manifest file.
    pub file: PathBuf,
    /// The offending field (dotted for nested keys), when known.
    pub field: Option<String>,
    /// 1-based line of the problem, for syntax and type errors.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "plugin {}", self.file.display())?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}; this plugin was skipped", self.reason)
    }
}

impl PluginError {
    /// The same problem in cohost's error taxonomy, for users.
    pub fn to_cohost(&self) -> cohost_core::CohostError {
        cohost_core::CohostError::new(cohost_core::ErrorCode::ConfigInvalid, self.to_string())
            .with_fix("fix the manifest (see the plugin section of the README) or remove it")
    }
}

/// What a plugin agent without an approval channel answers to a decision
/// (one process per turn: its policy is set at launch); `fix` says what to
/// use instead.
pub(super) fn no_approval_channel(
    agent: &str,
    tool_id: &str,
    fix: &str,
) -> cohost_core::CohostError {
    cohost_core::CohostError::new(
        cohost_core::ErrorCode::UnsupportedMode,
        format!("agent `{agent}` has no approval channel (tool call `{tool_id}`)"),
    )
    .with_fix(fix)
}
