//! Vendor data about every known agent CLI and local model server: binary
//! names, install locations, version probes, tested versions, how to detect
//! credentials, how to log in, and the per-CLI flag table of seed 001.
//!
//! This is data, not behaviour: discovery, status and hooks (in
//! `cohost-host`) and the drivers read it, so a fact about a vendor lives in
//! exactly one place. Facts marked "fixture-only" come from public docs and
//! were never run on a test machine.

mod data;
mod flags;
mod pins;

pub use data::{API_KEYS, CLIS, SERVERS};
pub use flags::{ArgTemplate, FlagTable, PromptArg, QueryArgs};
pub use pins::{pinned_version, PINS_FILE};

use crate::process::{Version, VersionRange};

/// How a credential is looked for, without spending model quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthSpec {
    /// Any of these set (non-empty) counts as configured credentials.
    pub env_vars: &'static [&'static str],
    /// Credential files relative to `$HOME`; any existing one counts.
    pub credential_files: &'static [&'static str],
    /// A local command (arguments after the binary) that exits 0 when logged
    /// in and non-zero when not, e.g. `claude auth status`. Never a model call.
    pub status_args: Option<&'static [&'static str]>,
}

impl AuthSpec {
    /// Whether there is any way to tell if the user is authenticated.
    pub fn is_checkable(&self) -> bool {
        !self.env_vars.is_empty() || !self.credential_files.is_empty() || self.status_args.is_some()
    }
}

/// How sure we are about a CLI's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Installed by `tests/agents/install.sh` and run on a test machine.
    Tested,
    /// From public docs only (not installable here).
    FixtureOnly,
}

/// One known agent CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CliEntry {
    /// Provider id users type (`claude`, `cursor`...).
    pub id: &'static str,
    /// Human label.
    pub label: &'static str,
    /// Executable names, preferred first.
    pub binaries: &'static [&'static str],
    /// Vendor install directories relative to `$HOME` (`.claude/local`).
    pub vendor_dirs: &'static [&'static str],
    /// Arguments that print the version; empty when the tool has none (ACP
    /// wrappers), in which case discovery does not probe it.
    pub version_args: &'static [&'static str],
    /// Key in `tests/agents/versions.env` holding the pinned version.
    pub pin_key: Option<&'static str>,
    /// Credential detection.
    pub auth: AuthSpec,
    /// Interactive login: arguments after the binary (`["auth", "login"]`).
    /// `None` when the tool logs in from inside its own TUI.
    pub login_args: Option<&'static [&'static str]>,
    /// Another binary that performs the login (ACP wrappers log in through
    /// the CLI they wrap); `None` = this CLI's own binary.
    pub login_binary: Option<&'static str>,
    /// What to tell a user who lacks the tool.
    pub install_hint: &'static str,
    /// Environment prefixes the vendor's users set (`ANTHROPIC_`).
    pub env_prefixes: &'static [&'static str],
    /// Variables whose names (and, when not secret, values) change behaviour;
    /// they feed the smoke-test fingerprint.
    pub relevant_env: &'static [&'static str],
    /// Command-line flags.
    pub flags: FlagTable,
    /// Whether a headless run streams token deltas (the `assistant` slot
    /// needs it when no driver is registered to say so).
    pub token_streaming: bool,
    /// The HTTP provider id serving this vendor's models in `api` mode.
    pub api_provider: Option<&'static str>,
    /// Models the vendor documents; empty = any model name is accepted.
    pub models: &'static [&'static str],
    /// How sure we are.
    pub evidence: Evidence,
}

impl CliEntry {
    /// The tested version range: from the pinned version up to (not
    /// including) the next minor for 0.x tools, the next major otherwise.
    /// `None` when nothing is pinned (fixture-only tools).
    pub fn tested_range(&self) -> Option<VersionRange> {
        let pinned = pinned_version(self.pin_key?)?;
        let max_exclusive = if pinned.major == 0 {
            Version::new(0, pinned.minor + 1, 0)
        } else {
            Version::new(pinned.major + 1, 0, 0)
        };
        Some(VersionRange {
            min: pinned,
            max_exclusive,
        })
    }

    /// The login command line (binary name first), when the tool has one.
    pub fn login_command(&self) -> Option<Vec<String>> {
        let args = self.login_args?;
        let bin = self
            .login_binary
            .or_else(|| self.binaries.first().copied())?;
        Some(
            std::iter::once(bin)
                .chain(args.iter().copied())
                .map(String::from)
                .collect(),
        )
    }
}

/// How a local model server is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerEntry {
    /// Provider id (`ollama`, `lmstudio`).
    pub id: &'static str,
    /// Human label.
    pub label: &'static str,
    /// Variable that overrides the endpoint (`OLLAMA_HOST`), if any.
    pub host_env: Option<&'static str>,
    /// Default base URL.
    pub default_base: &'static str,
    /// Path that lists models and answers quickly (`/api/tags`).
    pub probe_path: &'static str,
    /// What to tell a user who lacks the server.
    pub install_hint: &'static str,
}

/// The CLI entry for a provider id.
pub fn cli(id: &str) -> Option<&'static CliEntry> {
    CLIS.iter().find(|e| e.id == id)
}

/// The flag table of a CLI; all-`None` for an unknown id (the drivers'
/// golden-argv tests catch a driver whose id is missing).
pub fn flags(id: &str) -> FlagTable {
    cli(id).map_or(data::NO_FLAGS, |e| e.flags)
}

/// The API-key variables of an HTTP provider (empty when it needs none).
pub fn api_key_env(id: &str) -> &'static [&'static str] {
    API_KEYS
        .iter()
        .find(|(p, _)| *p == id)
        .map_or(&[], |(_, vars)| vars)
}

/// The server entry for a provider id.
pub fn server(id: &str) -> Option<&'static ServerEntry> {
    SERVERS.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod driver_argv;
