//! Smoke-test results and their cache: what a test found, the
//! configuration fingerprint it ran with, and the file keeping the last
//! result per provider. Running a test needs a session; reading its result
//! (`cohost agents`, [`crate::status`]) must not, so this part stands alone.

use cohost_core::sanitize::is_secret_name;
use cohost_core::CohostError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::HostConfig;
use crate::discovery::Discovery;
use crate::error::DiscoveryError;
use crate::fsutil::{atomic_write, FileLock};
use crate::host::{Host, ProviderFacts};

/// Seed 002's smoke-test outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmokeStatus {
    /// Replied OK.
    Passed,
    /// Ran and failed.
    Failed,
    /// Refused by a policy.
    Blocked,
    /// No answer in time.
    Timeout,
    /// Could not be run.
    Unknown,
}

/// One smoke test's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmokeTestResult {
    /// Provider id.
    pub provider_id: String,
    /// Whether it passed.
    pub ok: bool,
    /// Outcome.
    pub status: SmokeStatus,
    /// What happened (sanitized).
    pub message: String,
    /// Start of the reply (sanitized).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_preview: Option<String>,
    /// The error, for exit codes and fixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CohostError>,
    /// When it ran (ms since the epoch).
    pub tested_at_ms: u64,
    /// How long it took.
    pub duration_ms: u64,
    /// The configuration it ran with.
    pub config_fingerprint: String,
    /// Whether this came from the cache.
    #[serde(default)]
    pub cached: bool,
}

/// The configuration fingerprint: binary path, version, model, endpoint,
/// and the relevant variables — names always, values only when not secret
/// (a rotated key does not rerun the test; a changed base URL does).
pub fn fingerprint(
    host: &Host,
    cfg: &HostConfig,
    f: &ProviderFacts,
    d: Option<&Discovery>,
) -> String {
    let settings = cfg.provider(&f.id);
    let mut parts: Vec<String> = vec![format!("id={}", f.id)];
    if let Some(d) = d {
        parts.push(format!(
            "bin={}",
            d.command
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
        parts.push(format!(
            "version={}",
            d.version_display.clone().unwrap_or_default()
        ));
        parts.push(format!(
            "endpoint={}",
            d.endpoint.clone().unwrap_or_default()
        ));
    }
    parts.push(format!(
        "model={}",
        settings.model.clone().unwrap_or_default()
    ));
    let mut names: Vec<&str> = Vec::new();
    if let Some(c) = f.cli {
        names.extend(c.relevant_env);
        names.extend(c.auth.env_vars);
    }
    let api_keys = cohost_agents::catalog::api_key_env(&f.id);
    names.extend(api_keys.iter().map(String::as_str));
    names.extend(settings.env.keys().map(String::as_str));
    names.sort_unstable();
    names.dedup();
    for n in names {
        let value = settings
            .env
            .get(n)
            .map(String::as_str)
            .or_else(|| host.env.var(n));
        match value {
            Some(_) if is_secret_name(n) => parts.push(format!("{n}=<set>")),
            Some(v) => parts.push(format!("{n}={v}")),
            None => {}
        }
    }
    let digest = Sha256::digest(parts.join("\n").as_bytes());
    digest.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

fn cache_file(host: &Host) -> PathBuf {
    host.paths.state_dir.join("smoke-tests.json")
}

/// The last smoke-test result of each provider (none when unreadable).
pub fn read_cache(host: &Host) -> BTreeMap<String, SmokeTestResult> {
    std::fs::read_to_string(cache_file(host))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// The cached result for the provider's current fingerprint, if any.
pub async fn cached(
    host: &Host,
    cfg: &HostConfig,
    f: &ProviderFacts,
    d: &Discovery,
) -> Option<SmokeTestResult> {
    let fp = fingerprint(host, cfg, f, Some(d));
    read_cache(host)
        .remove(&f.id)
        .filter(|r| r.config_fingerprint == fp)
}

/// Keep `result` as its provider's last smoke-test result.
pub fn store(host: &Host, result: &SmokeTestResult) -> Result<(), DiscoveryError> {
    let _lock = FileLock::acquire(&host.paths.state_dir.join("smoke-tests.lock"))?;
    let mut all = read_cache(host);
    all.insert(result.provider_id.clone(), result.clone());
    let text = serde_json::to_string_pretty(&all).unwrap_or_default();
    atomic_write(&cache_file(host), text.as_bytes())
}
