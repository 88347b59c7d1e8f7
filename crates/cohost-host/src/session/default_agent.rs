//! The agent a session runs when none is named: the first of
//! [`DEFAULT_PREFERENCE`] that can run (installed, enabled, signed
//! in), else the built-in mock, with a sentence saying which and why for
//! the front end to print. Whether it is signed in is the same async check
//! `cohost agents` makes ([`cohost_discovery::status`]), so no runtime worker waits on
//! a status command.

use cohost_agents::catalog;
use cohost_agents::process::find_on_path;

use cohost_discovery::config::HostConfig;
use cohost_discovery::host::Host;
use cohost_discovery::status::{auth_state, AuthState};

/// Real agents tried, in order, when no provider is named: the first that
/// is installed, enabled and signed in runs, else the built-in mock.
pub const DEFAULT_PREFERENCE: &[&str] =
    &["claude", "codex", "gemini", "qwen", "opencode", "copilot"];

/// The default pick: a provider id (`None` = the mock) and why.
pub(super) struct Pick {
    pub id: Option<String>,
    pub note: String,
}

/// Why `id` cannot be the default, or `None` when it can run.
async fn not_ready(host: &Host, cfg: &HostConfig, id: &str) -> Option<String> {
    let settings = cfg.provider(id);
    if !settings.enabled {
        return Some("disabled in the config".into());
    }
    let Ok(factory) = host.registry.get(id) else {
        return Some("no driver".into());
    };
    let Some(entry) = catalog::cli(id) else {
        return (!factory.is_available()).then(|| "not available".into());
    };
    let bin = match &settings.binary {
        Some(b) if b.components().count() > 1 => Some(b.clone()).filter(|b| b.is_file()),
        _ => find_on_path(entry.command(), host.env.path.as_deref()),
    };
    if bin.is_none() {
        return Some("not installed".into());
    }
    // A CLI whose sign-in cannot be checked gets the benefit of the doubt;
    // a status command that fails, hangs past the auth timeout or cannot
    // run means not signed in.
    let signed_in = match auth_state(host, entry, bin, &settings).await {
        AuthState::Present { .. } => true,
        _ => !entry.auth.is_checkable(),
    };
    if signed_in {
        return None;
    }
    Some(match entry.login_command() {
        Some(_) => format!("not signed in (`cohost login {id}`)"),
        None => format!(
            "no credentials (set ${})",
            entry.auth.env_vars.join(" or $")
        ),
    })
}

/// The first ready agent of the preference list, else the mock.
pub(super) async fn pick(host: &Host, cfg: &HostConfig) -> Pick {
    let mut skipped = Vec::new();
    for id in DEFAULT_PREFERENCE {
        match not_ready(host, cfg, id).await {
            None if skipped.is_empty() => {
                return Pick {
                    id: Some(id.to_string()),
                    note: format!("using `{id}`, the first ready agent (pass --agent to choose)"),
                }
            }
            None => {
                return Pick {
                    id: Some(id.to_string()),
                    note: format!(
                        "using `{id}`, the first ready agent; skipped {} (pass --agent to choose)",
                        skipped.join(", ")
                    ),
                }
            }
            Some(why) if why == "not installed" || why == "no driver" => {}
            Some(why) => skipped.push(format!("{id}: {why}")),
        }
    }
    let why = if skipped.is_empty() {
        "no agent CLI is installed".to_string()
    } else {
        format!("no agent is ready ({})", skipped.join(", "))
    };
    Pick {
        id: None,
        note: format!(
            "{why}; using the built-in mock agent. Install or sign in to one (see `cohost agents`), or pass --agent."
        ),
    }
}
