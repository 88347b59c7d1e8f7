//! Smoke tests (seed 002): one tiny prompt with tools off, through the real
//! session engine, cached by provider id + config fingerprint so `cohost
//! agents` stays fast and repeated tests spend no quota.

use cohost_core::sanitize::is_secret_name;
use cohost_core::{
    sanitize, CohostError, EndReason, ErrorCode, EventBody, PromptInput, SessionOptions,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::config::HostConfig;
use crate::discovery::{discover_cli, Discovery};
use crate::fsutil::{atomic_write, FileLock};
use crate::host::{Host, ProviderFacts};
use crate::session::{Approvals, OpenSession, ProviderChoice, SessionRequest};

/// What the smoke test asks.
pub const SMOKE_PROMPT: &str = "Reply exactly: OK";

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

fn read_cache(host: &Host) -> BTreeMap<String, SmokeTestResult> {
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

fn store(host: &Host, result: &SmokeTestResult) -> Result<(), CohostError> {
    let _lock = FileLock::acquire(&host.paths.state_dir.join("smoke-tests.lock"))?;
    let mut all = read_cache(host);
    all.insert(result.provider_id.clone(), result.clone());
    let text = serde_json::to_string_pretty(&all).unwrap_or_default();
    atomic_write(&cache_file(host), text.as_bytes())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Run the smoke test of `id` (or return the cached result for the same
/// fingerprint unless `force`). Failures are results, not errors; `Err` is
/// only for an unknown provider or an unusable state dir.
pub async fn test_provider(
    host: &Host,
    id: &str,
    force: bool,
) -> Result<SmokeTestResult, CohostError> {
    let cfg = host.config()?;
    let f = host.facts(&cfg, id)?;
    let settings = cfg.provider(id);
    let discovery = match f.cli {
        Some(entry) => {
            Some(discover_cli(entry, settings.binary.as_deref(), &host.env, &host.timeouts).await)
        }
        None => None,
    };
    let fp = fingerprint(host, &cfg, &f, discovery.as_ref());
    if !force {
        if let Some(mut hit) = read_cache(host)
            .remove(id)
            .filter(|r| r.config_fingerprint == fp)
        {
            hit.cached = true;
            return Ok(hit);
        }
    }
    let started = Instant::now();
    let mut result = SmokeTestResult {
        provider_id: id.to_string(),
        ok: false,
        status: SmokeStatus::Unknown,
        message: String::new(),
        output_preview: None,
        error: None,
        tested_at_ms: now_ms(),
        duration_ms: 0,
        config_fingerprint: fp,
        cached: false,
    };
    let run = match (&discovery, host.registry.get(id)) {
        (Some(d), _) if !d.installed => Err(CohostError::new(
            ErrorCode::ProviderNotFound,
            format!("`{id}` is not installed"),
        )
        .with_fix(f.cli.map(|c| c.install_hint).unwrap_or_default())),
        (_, Err(_)) => Err(CohostError::new(
            ErrorCode::ProviderNotFound,
            format!("no driver for `{id}` is registered in this build"),
        )
        .with_fix("run `cohost agents` to see which providers have drivers")),
        (_, Ok(_)) => {
            let cwd = host.paths.state_dir.join("smoke").join(id);
            std::fs::create_dir_all(&cwd)
                .map_err(|e| crate::fsutil::io_error("create", &cwd, e))?;
            let mut req =
                SessionRequest::new(ProviderChoice::Id(id.to_string()), Approvals::deny_all());
            req.cwd = Some(cwd);
            req.provider_settings = true;
            req.binary = discovery.as_ref().and_then(|d| d.command.clone());
            req.options = SessionOptions {
                approval_deadline: Duration::from_secs(5),
                max_respawns: 0,
                ..Default::default()
            };
            match crate::session::prepare(host, &cfg, req).await {
                Ok(session) => Ok(run_once(session, host.timeouts.smoke).await),
                Err(e) => Err(e.into()),
            }
        }
    };
    match run {
        Err(e) => fail(&mut result, SmokeStatus::Failed, e),
        Ok(RunOutcome::TimedOut) => fail(
            &mut result,
            SmokeStatus::Timeout,
            CohostError::new(
                ErrorCode::Timeout,
                format!(
                    "`{id}` did not answer within {} s",
                    host.timeouts.smoke.as_secs()
                ),
            )
            .with_fix(format!(
                "run `{id}` yourself to see whether it waits for a login or input"
            )),
        ),
        Ok(RunOutcome::Error(e)) => {
            let status = if e.code == ErrorCode::AuthBlockedByPolicy {
                SmokeStatus::Blocked
            } else {
                SmokeStatus::Failed
            };
            fail(&mut result, status, e);
        }
        Ok(RunOutcome::Replied(text)) => {
            let preview: String = sanitize(text.trim()).chars().take(200).collect();
            result.ok = text.contains("OK");
            result.status = if result.ok {
                SmokeStatus::Passed
            } else {
                SmokeStatus::Failed
            };
            result.message = if result.ok {
                "replied OK".into()
            } else {
                format!("replied without OK: {preview:?}")
            };
            result.output_preview = Some(preview);
        }
    }
    result.duration_ms = started.elapsed().as_millis() as u64;
    store(host, &result)?;
    Ok(result)
}

fn fail(r: &mut SmokeTestResult, status: SmokeStatus, e: CohostError) {
    r.status = status;
    r.message = e.message.clone();
    r.error = Some(e);
}

enum RunOutcome {
    Replied(String),
    Error(CohostError),
    TimedOut,
}

async fn run_once(mut session: OpenSession, limit: Duration) -> RunOutcome {
    let deadline = tokio::time::Instant::now() + limit;
    match tokio::time::timeout_at(deadline, session.start()).await {
        Err(_) => {
            let _ = session.terminate().await;
            return RunOutcome::TimedOut;
        }
        Ok(Err(e)) => return RunOutcome::Error(e),
        Ok(Ok(())) => {}
    }
    let running = session.into_running();
    let mut events = running.subscribe_new();
    let turn = match running.prompt_last(PromptInput::text(SMOKE_PROMPT)) {
        Ok(t) => t,
        Err(e) => return RunOutcome::Error(e),
    };
    let Ok((text, first_error)) = tokio::time::timeout_at(deadline, reply(&mut events)).await
    else {
        // Best effort: the result is already known; a stuck agent is killed.
        let _ = running.terminate().await;
        return RunOutcome::TimedOut;
    };
    let outcome = match turn.outcome().await {
        Ok(o) => o,
        Err(e) => return RunOutcome::Error(e),
    };
    match outcome.reason {
        EndReason::Completed => RunOutcome::Replied(text),
        _ => RunOutcome::Error(outcome.error.or(first_error).unwrap_or_else(|| {
            CohostError::new(
                ErrorCode::ProcessCrashed,
                format!("the turn ended: {:?}", outcome.reason),
            )
        })),
    }
}

/// The answer's text and the turn's first error, read up to its end.
async fn reply(events: &mut cohost_session::Subscription) -> (String, Option<CohostError>) {
    let mut text = String::new();
    let mut first_error: Option<CohostError> = None;
    while let Ok(Some(ev)) = events.recv().await {
        match ev.body {
            EventBody::StreamChunk { delta, .. } => text.push_str(&delta),
            EventBody::Error(e) if first_error.is_none() => first_error = Some(e),
            EventBody::StreamEnd { .. } => break,
            _ => {}
        }
    }
    (text, first_error)
}
