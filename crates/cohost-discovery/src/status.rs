//! Provider status (seed 002): discovery + credentials + the last smoke
//! test, reduced to one value with a message and a suggested fix.

use std::path::PathBuf;

use cohost_agents::catalog::{self, CliEntry};
use cohost_agents::process::{find_on_path, probe, EnvPolicy};
use cohost_core::{Capabilities, CohostError, ErrorCode, ProviderKind, SupportTier};
use serde::Serialize;

use crate::config::{HostConfig, ProviderSettings};
use crate::discovery::{discover_cli, discover_server, Discovery};
use crate::error::DiscoveryError;
use crate::host::{Host, ProviderFacts};
use crate::smoke as cache;

/// Seed 002's status values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusValue {
    /// Found, but whether it is signed in cannot be told.
    Installed,
    /// Not found.
    Missing,
    /// Found, no credentials.
    NeedsAuth,
    /// Found, credentials present, no failed smoke test.
    Ready,
    /// Disabled in config, or refused by an organisation policy.
    Blocked,
    /// Found but broken (version probe or last smoke test failed).
    Failed,
    /// Could not be determined.
    Unknown,
}

/// What credential detection found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AuthState {
    /// Credentials found (`how` names the variable, file or command, never a value).
    Present {
        /// Where.
        how: String,
    },
    /// None found.
    Missing {
        /// Why we think so.
        reason: String,
    },
    /// An organisation policy forbids this login.
    Blocked {
        /// What the tool said (sanitized).
        reason: String,
    },
    /// No way to tell.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// One provider's status card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderStatus {
    /// Provider id.
    pub provider_id: String,
    /// Label.
    pub label: String,
    /// Kind (`agent_cli`...).
    pub kind: &'static str,
    /// The value.
    pub status: StatusValue,
    /// What it means here (sanitized).
    pub message: String,
    /// What to do (sanitized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_fix: Option<String>,
    /// Seed 002 capability tags (`streaming`, `api_key_auth`...).
    pub capabilities: Vec<&'static str>,
    /// The registered driver's capabilities, when a driver is registered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver: Option<Capabilities>,
    /// Discovery details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discovery: Option<Discovery>,
    /// Credential detection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthState>,
}

/// Words in an `auth status` answer that mean a policy refuses the login.
const POLICY_WORDS: [&str; 3] = ["policy", "not allowed by your organization", "blocked"];

/// Credentials visible without running anything: a variable, then a file.
pub fn visible_credentials(
    host: &Host,
    entry: &CliEntry,
    settings: &ProviderSettings,
) -> Option<AuthState> {
    for var in entry.auth.env_vars {
        if host.env.var(var).is_some() || settings.env.get(*var).is_some_and(|v| !v.is_empty()) {
            return Some(AuthState::Present {
                how: format!("${var}"),
            });
        }
    }
    for rel in entry.auth.credential_files {
        if host.env.home_join(rel).is_some_and(|p| p.is_file()) {
            return Some(AuthState::Present {
                how: format!("~/{rel}"),
            });
        }
    }
    None
}

/// The binary that answers the status command: the wrapped CLI for a
/// wrapper that logs in through it (`claude-code-acp` → `claude`), so both
/// get one verdict from one credential source; else the CLI itself
/// (`command`, where it was found).
fn status_binary(host: &Host, entry: &CliEntry, command: Option<PathBuf>) -> Option<PathBuf> {
    match entry.login_binary {
        Some(name) => find_on_path(name, host.env.path.as_deref()),
        None => command,
    }
}

/// The narrow environment of a status probe.
pub(crate) fn probe_env(host: &Host, entry: &CliEntry, settings: &ProviderSettings) -> EnvPolicy {
    let mut policy = EnvPolicy::with_prefixes(entry.env_prefixes.iter().copied());
    policy.extend(host.env.child_overlay().iter());
    policy.extend(settings.env.iter());
    policy
}

/// The CLI's own pre-spawn check of the user's setup (gemini's auth type),
/// in the environment a run would give it, from the current directory.
fn preflight(
    host: &Host,
    entry: &CliEntry,
    settings: &ProviderSettings,
) -> Result<(), CohostError> {
    let Some(check) = entry.preflight else {
        return Ok(());
    };
    // The host's environment (not the process's: tests and `serve` give
    // their own), then the provider's configured variables.
    let mut env = host.env.child_overlay();
    env.extend(settings.env.clone());
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    (check.0)(&|n| env.get(n).cloned(), &cwd)
}

/// Detect credentials for a CLI: variables, then files, then its local
/// status command (bounded; never a model call).
pub async fn detect_auth(
    host: &Host,
    entry: &CliEntry,
    discovery: &Discovery,
    settings: &ProviderSettings,
) -> AuthState {
    auth_state(host, entry, discovery.command.clone(), settings).await
}

/// [`detect_auth`] for a CLI found at `command` (`None`: not found): the
/// one credential check `cohost agents`, `serve`'s status and the default
/// agent's choice share. The status command runs through the async
/// [`probe`] runner (bounded by the auth timeout, its group killed after).
pub async fn auth_state(
    host: &Host,
    entry: &CliEntry,
    command: Option<PathBuf>,
    settings: &ProviderSettings,
) -> AuthState {
    if let Some(found) = visible_credentials(host, entry, settings) {
        return found;
    }
    let bin = status_binary(host, entry, command);
    let (Some(args), Some(bin)) = (entry.auth.status_args, bin.as_ref()) else {
        return if entry.auth.is_checkable() {
            AuthState::Missing {
                reason: missing_reason(entry),
            }
        } else {
            AuthState::Unknown {
                reason: format!("cohost cannot tell whether `{}` is signed in", entry.id),
            }
        };
    };
    let policy = probe_env(host, entry, settings);
    match probe(entry.id, bin, args, &policy, host.timeouts.auth).await {
        Ok(out) if out.success => AuthState::Present {
            how: format!("`{} {}`", status_command(entry), args.join(" ")),
        },
        Ok(out) => {
            let text = host.sanitizer.sanitize(out.text.trim()).into_owned();
            let lower = text.to_ascii_lowercase();
            if POLICY_WORDS.iter().any(|w| lower.contains(w)) {
                AuthState::Blocked {
                    reason: text.lines().next().unwrap_or_default().to_string(),
                }
            } else {
                AuthState::Missing {
                    reason: missing_reason(entry),
                }
            }
        }
        Err(e) => AuthState::Unknown {
            reason: CohostError::from(e).message,
        },
    }
}

/// The command name the status probe runs.
fn status_command(entry: &CliEntry) -> &'static str {
    entry.login_binary.unwrap_or(entry.command())
}

/// The key variables (`$NAME`) and credential files (`~/path`) where a
/// CLI's credentials can be seen without running it.
pub fn credential_sources(entry: &CliEntry) -> Vec<String> {
    let vars = entry.auth.env_vars.iter().map(|v| format!("${v}"));
    let files = entry.auth.credential_files.iter().map(|f| format!("~/{f}"));
    vars.chain(files).collect()
}

fn missing_reason(entry: &CliEntry) -> String {
    let mut what = credential_sources(entry);
    if let Some(a) = entry.auth.status_args {
        what.push(format!("`{} {}`", status_command(entry), a.join(" ")));
    }
    format!("no credentials found (checked {})", what.join(", "))
}

/// Seed 002 capability tags.
fn tags(f: &ProviderFacts) -> Vec<&'static str> {
    let mut t = Vec::new();
    if let Some(c) = f.cli {
        t.push("headless_text");
        if c.flags.json_output.is_some() || c.flags.stream_json.is_some() {
            t.push("json_output");
        }
        if c.token_streaming {
            t.push("streaming");
        }
        if !c.auth.env_vars.is_empty() {
            t.push("api_key_auth");
        }
        if c.login_args.is_some() {
            t.push("subscription_auth");
        }
        t.extend(["file_tools", "shell_tools"]);
    }
    if f.server.is_some() {
        t.extend(["headless_text", "streaming", "local_only", "model_server"]);
    }
    if f.user_defined || !catalog::api_key_env(&f.id).is_empty() {
        t.extend(["headless_text", "streaming", "api_key_auth"]);
    }
    t.sort_unstable();
    t.dedup();
    t
}

/// The status of one provider.
pub async fn provider_status(
    host: &Host,
    cfg: &HostConfig,
    id: &str,
) -> Result<ProviderStatus, DiscoveryError> {
    let f = host.facts(cfg, id)?;
    let settings = cfg.provider(id);
    let mut st = ProviderStatus {
        provider_id: f.id.clone(),
        label: f.label.clone(),
        kind: f.kind.as_str(),
        status: StatusValue::Unknown,
        message: String::new(),
        suggested_fix: None,
        capabilities: tags(&f),
        driver: f.descriptor.as_ref().map(|d| d.capabilities.clone()),
        discovery: None,
        auth: None,
    };
    let set = |st: &mut ProviderStatus, v, msg: String, fix: Option<String>| {
        st.status = v;
        st.message = host.sanitizer.sanitize(&msg).into_owned();
        st.suggested_fix = fix.map(|f| host.sanitizer.sanitize(&f).into_owned());
    };
    if !settings.enabled {
        set(
            &mut st,
            StatusValue::Blocked,
            format!(
                "`{id}` is disabled in {} ({})",
                cfg.path().display(),
                ErrorCode::ProviderNotEnabled
            ),
            Some(format!("cohost config set providers.{id}.enabled true")),
        );
        return Ok(st);
    }
    if let Some(entry) = f.cli {
        let d = discover_cli(
            entry,
            settings.binary.as_deref(),
            &host.env,
            &host.timeouts,
            &host.sanitizer,
        )
        .await;
        if !d.installed {
            set(
                &mut st,
                StatusValue::Missing,
                format!("{} is not installed", entry.label),
                Some(entry.install_hint.to_string()),
            );
        } else if let Some(e) = &d.version_error {
            set(
                &mut st,
                StatusValue::Failed,
                e.message.clone(),
                e.suggested_fix.clone(),
            );
        } else {
            let auth = detect_auth(host, entry, &d, &settings).await;
            match &auth {
                AuthState::Missing { reason } => set(
                    &mut st,
                    StatusValue::NeedsAuth,
                    reason.clone(),
                    // The same words `run` ends with (an ACP variant's own id).
                    Some(catalog::login_fix(id).unwrap_or_else(|| entry.login_fix())),
                ),
                AuthState::Blocked { reason } => set(
                    &mut st,
                    StatusValue::Blocked,
                    format!("sign-in refused by policy: {reason}"),
                    Some("ask your administrator, or use an API key the policy allows".into()),
                ),
                AuthState::Unknown { reason } => set(
                    &mut st,
                    StatusValue::Installed,
                    format!("installed; {reason}"),
                    Some(format!("run `cohost test {id}` to check it end to end")),
                ),
                AuthState::Present { how } => {
                    let failed = cache::cached(host, cfg, &f, &d).await.filter(|r| !r.ok);
                    match (preflight(host, entry, &settings), failed) {
                        // Credentials alone do not make it ready when the CLI
                        // would still refuse to start.
                        (Err(e), _) => set(
                            &mut st,
                            StatusValue::NeedsAuth,
                            e.message.clone(),
                            e.suggested_fix,
                        ),
                        (Ok(()), Some(r)) => set(
                            &mut st,
                            StatusValue::Failed,
                            format!("last smoke test failed: {}", r.message),
                            Some(format!("fix it, then `cohost test {id} --force`")),
                        ),
                        (Ok(()), None) => set(
                            &mut st,
                            StatusValue::Ready,
                            format!("ready (credentials: {how})"),
                            None,
                        ),
                    }
                }
            }
            st.auth = Some(auth);
        }
        st.discovery = Some(d);
        return Ok(st);
    }
    if let Some(entry) = f.server {
        let d = discover_server(
            entry,
            settings.endpoint.as_deref(),
            &host.env,
            &host.timeouts,
            &host.sanitizer,
        )
        .await;
        if d.installed {
            set(
                &mut st,
                StatusValue::Ready,
                format!(
                    "{} answers at {}",
                    entry.label,
                    d.command_display.clone().unwrap_or_default()
                ),
                None,
            );
        } else {
            set(
                &mut st,
                StatusValue::Missing,
                format!(
                    "{} does not answer at {}",
                    entry.label,
                    d.endpoint.clone().unwrap_or_default()
                ),
                Some(entry.install_hint.to_string()),
            );
        }
        st.discovery = Some(d);
        return Ok(st);
    }
    let keys: Vec<String> = match settings.key_env.clone() {
        Some(k) => vec![k],
        None => catalog::api_key_env(id),
    };
    if !keys.is_empty() {
        match keys
            .iter()
            .find(|k| host.env.var(k).is_some() || settings.env.contains_key(*k))
        {
            Some(k) => set(
                &mut st,
                StatusValue::Ready,
                format!("API key set (${k})"),
                None,
            ),
            None => set(
                &mut st,
                StatusValue::NeedsAuth,
                format!("no API key (${} is not set)", keys.join(" / $")),
                Some(format!("export {}=…", keys[0])),
            ),
        }
        return Ok(st);
    }
    match &f.descriptor {
        Some(d) if d.capabilities.tier == SupportTier::Builtin => {
            set(&mut st, StatusValue::Ready, "built in".into(), None);
        }
        _ => set(
            &mut st,
            StatusValue::Unknown,
            format!(
                "cohost has no discovery data for `{id}` ({})",
                kind_name(f.kind)
            ),
            Some(format!("run `cohost test {id}` to check it end to end")),
        ),
    }
    Ok(st)
}

fn kind_name(k: ProviderKind) -> &'static str {
    k.as_str()
}

/// Status of every known provider (the `cohost agents` table), sorted by id.
pub async fn all_statuses(host: &Host, cfg: &HostConfig) -> Vec<ProviderStatus> {
    let ids = host.known_ids(cfg);
    let futs = ids.iter().map(|id| provider_status(host, cfg, id));
    futures::future::join_all(futs)
        .await
        .into_iter()
        .flatten()
        .collect()
}
