//! Agent hooks (seed 001): make Claude Code, Codex and Gemini CLI call
//! `cohost hook-event <agent>` so a running cohost learns what the agent
//! does even when the user started it by hand.
//!
//! | agent | file | what cohost adds |
//! |---|---|---|
//! | claude | `~/.claude/settings.json` | `hooks.PostToolUse`, `hooks.Stop` entries |
//! | codex | `$CODEX_HOME/config.toml` (`~/.codex`) | top-level `notify = [cohost, hook-event, codex]` |
//! | gemini | `~/.gemini/settings.json` | `hooks.AfterTool`, `hooks.AfterAgent` entries |
//!
//! Install is idempotent; before the first write the original file is kept
//! in the state dir, with the hash of what cohost wrote. Uninstall restores
//! that backup byte for byte when the file is still exactly what cohost
//! wrote, and otherwise removes only cohost's entries. A malformed file is
//! reported (file + reason) and never overwritten. Writes are atomic.

// The crate's error names `EditError` from here, not through this
// module, which uses that error (no import cycle).
pub(crate) mod edit;
mod event;

pub use edit::EditError;
pub use event::{hook_event, listen_hook_events, HookEvent, HookEventOutcome};

use cohost_agents::catalog::{self, HookKind, HookSpec};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

use crate::error::DiscoveryError;
use crate::fsutil::atomic_write;
use crate::host::Host;

/// An agent cohost can install hooks for: a CLI of the provider list whose
/// entry says how it takes a hook ([`cohost_agents::catalog::HookSpec`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookAgent {
    id: &'static str,
    spec: HookSpec,
}

impl Serialize for HookAgent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id)
    }
}

impl HookAgent {
    /// Every agent with hooks, in the provider list's order.
    pub fn all() -> Vec<HookAgent> {
        catalog::hook_clis()
            .filter_map(|e| {
                Some(HookAgent {
                    id: e.id,
                    spec: e.hooks?,
                })
            })
            .collect()
    }

    /// Parse a provider id.
    pub fn parse(id: &str) -> Result<HookAgent, DiscoveryError> {
        let all = HookAgent::all();
        all.iter()
            .find(|a| a.id == id)
            .copied()
            .ok_or_else(|| DiscoveryError::NoHooks {
                id: id.to_owned(),
                supported: all.iter().map(|a| a.id).collect(),
            })
    }

    /// The provider id.
    pub fn id(self) -> &'static str {
        self.id
    }

    /// The events its hook runs on (none for a `notify` program).
    fn events(self) -> &'static [&'static str] {
        match self.spec.kind {
            HookKind::JsonEvents(events) => events,
            HookKind::TomlNotify => &[],
        }
    }

    fn toml_notify(self) -> bool {
        self.spec.kind == HookKind::TomlNotify
    }

    /// The settings file this agent reads.
    pub fn settings_path(self, host: &Host) -> PathBuf {
        let home = host.env.home.clone().unwrap_or_default();
        let dir = self
            .spec
            .dir_env
            .and_then(|var| host.env.var(var))
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(self.spec.home_dir));
        dir.join(self.spec.file)
    }
}

/// Hook state of one agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookStatus {
    /// The agent.
    pub agent: HookAgent,
    /// Whether cohost's hook is fully installed.
    pub installed: bool,
    /// The settings file (sanitized display).
    pub settings_file: String,
    /// Whether a backup of the original is kept.
    pub has_backup: bool,
    /// What the last operation did.
    pub action: &'static str,
}

fn command_line(cohost_bin: &str, agent: HookAgent) -> String {
    let quoted = if cohost_bin.contains([' ', '\'', '"']) {
        format!("'{}'", cohost_bin.replace('\'', r"'\''"))
    } else {
        cohost_bin.to_string()
    };
    format!("{quoted} hook-event {}", agent.id())
}

fn notify_argv(cohost_bin: &str, agent: HookAgent) -> Vec<String> {
    vec![
        cohost_bin.to_string(),
        "hook-event".into(),
        agent.id().into(),
    ]
}

fn state_paths(host: &Host, agent: HookAgent) -> (PathBuf, PathBuf) {
    let dir = host.paths.state_dir.join("hooks");
    (
        dir.join(format!("{}.backup", agent.id())),
        dir.join(format!("{}.written.sha256", agent.id())),
    )
}

fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Backup marker for "the file did not exist".
const ABSENT: &[u8] = b"\0cohost:absent\0";

fn malformed(path: &Path, source: EditError) -> DiscoveryError {
    DiscoveryError::HookSettings {
        path: path.to_path_buf(),
        source,
    }
}

fn read_opt(path: &Path) -> Result<Option<Vec<u8>>, DiscoveryError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(DiscoveryError::io("read", path, e)),
    }
}

fn text_of(path: &Path, bytes: &[u8]) -> Result<String, DiscoveryError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        malformed(
            path,
            EditError::Malformed {
                format: "UTF-8",
                reason: "invalid bytes".into(),
            },
        )
    })
}

/// Install cohost's hook for `agent`; `cohost_bin` is the command the hook
/// runs (the CLI passes its own absolute path).
pub fn install(
    host: &Host,
    agent: HookAgent,
    cohost_bin: &str,
) -> Result<HookStatus, DiscoveryError> {
    let path = agent.settings_path(host);
    let original = read_opt(&path)?;
    let text = match &original {
        Some(b) => text_of(&path, b)?,
        None => String::new(),
    };
    let new = if agent.toml_notify() {
        edit::toml_add_notify(&text, &notify_argv(cohost_bin, agent))
    } else {
        edit::json_add_hooks(&text, agent.events(), &command_line(cohost_bin, agent))
    }
    .map_err(|e| malformed(&path, e))?;
    let Some(new) = new else {
        return status_with(host, agent, cohost_bin, "already installed");
    };
    let (backup, written) = state_paths(host, agent);
    if !backup.exists() {
        atomic_write(&backup, original.as_deref().unwrap_or(ABSENT))?;
    }
    atomic_write(&path, new.as_bytes())?;
    atomic_write(&written, sha(new.as_bytes()).as_bytes())?;
    status_with(host, agent, cohost_bin, "installed")
}

/// Remove cohost's hook for `agent`.
pub fn uninstall(
    host: &Host,
    agent: HookAgent,
    cohost_bin: &str,
) -> Result<HookStatus, DiscoveryError> {
    let path = agent.settings_path(host);
    let (backup, written) = state_paths(host, agent);
    let current = read_opt(&path)?;
    let wrote = std::fs::read_to_string(&written).ok();
    let untouched = current.as_deref().map(sha) == wrote;
    let action = match (read_opt(&backup)?, current) {
        // Nobody changed the file since cohost wrote it: restore exactly.
        (Some(orig), Some(_)) if untouched => {
            if orig == ABSENT {
                std::fs::remove_file(&path).map_err(|e| DiscoveryError::io("remove", &path, e))?;
            } else {
                atomic_write(&path, &orig)?;
            }
            "restored the original file"
        }
        (_, Some(bytes)) => {
            let text = text_of(&path, &bytes)?;
            let new = if agent.toml_notify() {
                edit::toml_remove_notify(&text, &notify_argv(cohost_bin, agent))
            } else {
                edit::json_remove_hooks(&text, &command_line(cohost_bin, agent))
            }
            .map_err(|e| malformed(&path, e))?;
            match new {
                Some(t) => {
                    atomic_write(&path, t.as_bytes())?;
                    "removed cohost's entries"
                }
                None => "not installed",
            }
        }
        (_, None) => "not installed",
    };
    // Best effort: stale state only means the next uninstall edits surgically.
    let _ = std::fs::remove_file(&backup);
    let _ = std::fs::remove_file(&written);
    status_with(host, agent, cohost_bin, action)
}

/// Whether cohost's hook is installed for `agent`.
pub fn status(
    host: &Host,
    agent: HookAgent,
    cohost_bin: &str,
) -> Result<HookStatus, DiscoveryError> {
    status_with(host, agent, cohost_bin, "checked")
}

fn status_with(
    host: &Host,
    agent: HookAgent,
    cohost_bin: &str,
    action: &'static str,
) -> Result<HookStatus, DiscoveryError> {
    let path = agent.settings_path(host);
    let installed = match read_opt(&path)? {
        None => false,
        Some(b) => {
            let text = text_of(&path, &b)?;
            if agent.toml_notify() {
                edit::toml_has_notify(&text, &notify_argv(cohost_bin, agent))
            } else {
                edit::json_has_hooks(&text, agent.events(), &command_line(cohost_bin, agent))
            }
            .map_err(|e| malformed(&path, e))?
        }
    };
    Ok(HookStatus {
        agent,
        installed,
        settings_file: host
            .sanitizer
            .sanitize(&path.display().to_string())
            .into_owned(),
        has_backup: state_paths(host, agent).0.exists(),
        action,
    })
}
