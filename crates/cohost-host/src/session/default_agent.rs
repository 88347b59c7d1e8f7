//! The agent a session runs when none is named: the first of
//! [`super::DEFAULT_PREFERENCE`] that can run (installed, enabled, signed
//! in), else the built-in mock, with a sentence saying which and why for
//! the front end to print.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cohost_agents::catalog;
use cohost_agents::process::{find_on_path, signal_group, GroupSignal};

use crate::config::HostConfig;
use crate::host::Host;
use crate::status::{probe_env, visible_credentials};

/// The default pick: a provider id (`None` = the mock) and why.
pub(super) struct Pick {
    pub id: Option<String>,
    pub note: String,
}

/// Why `id` cannot be the default, or `None` when it can run.
fn not_ready(host: &Host, cfg: &HostConfig, id: &str) -> Option<String> {
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
    let Some(bin) = bin else {
        return Some("not installed".into());
    };
    if visible_credentials(host, entry, &settings).is_some() || !entry.auth.is_checkable() {
        return None;
    }
    let status_bin = match entry.login_binary {
        Some(name) => find_on_path(name, host.env.path.as_deref()),
        None => Some(bin),
    };
    let signed_in = match (entry.auth.status_args, status_bin) {
        (Some(args), Some(b)) => {
            let env = probe_env(host, entry, &settings);
            status_ok(&b, args, env.build_from_process(), host.timeouts.auth)
        }
        _ => false,
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

/// Whether `bin args…` exits 0 within `timeout` (its group is killed after).
fn status_ok(
    bin: &Path,
    args: &[&str],
    env: std::collections::BTreeMap<std::ffi::OsString, std::ffi::OsString>,
    timeout: Duration,
) -> bool {
    use std::os::unix::process::CommandExt;
    let Ok(mut child) = Command::new(bin)
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
    else {
        return false;
    };
    let pgid = i32::try_from(child.id()).ok();
    let deadline = Instant::now() + timeout;
    let ok = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break false;
            }
        }
    };
    if let Some(g) = pgid {
        let _ = signal_group(g, GroupSignal::Kill);
    }
    ok
}

/// The first ready agent of the preference list, else the mock.
pub(super) fn pick(host: &Host, cfg: &HostConfig) -> Pick {
    let mut skipped = Vec::new();
    for id in super::DEFAULT_PREFERENCE {
        match not_ready(host, cfg, id) {
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
