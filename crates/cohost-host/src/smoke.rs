//! Smoke tests (seed 002): one tiny prompt with tools off, through the real
//! session engine, cached by provider id + config fingerprint so `cohost
//! agents` stays fast and repeated tests spend no quota.

use cohost_core::{CohostError, EndReason, ErrorCode, EventBody, PromptInput, SessionOptions};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::session::{Approvals, OpenSession, ProviderChoice, SessionRequest};
use cohost_discovery::discovery::discover_cli;
use cohost_discovery::host::Host;
use cohost_discovery::DiscoveryError;

pub use cohost_discovery::smoke::{cached, fingerprint, SmokeStatus, SmokeTestResult};
use cohost_discovery::smoke::{read_cache, store};

/// What the smoke test asks.
pub const SMOKE_PROMPT: &str = "Reply exactly: OK";

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Run the smoke test of `id` (or return the cached result for the same
/// fingerprint unless `force`). Failures are results, not errors: each
/// result carries its failure as the wire error every front end shows and
/// the cache keeps. `Err` is only for an unknown provider, an unreadable
/// config or an unusable state dir.
pub async fn test_provider(
    host: &Host,
    id: &str,
    force: bool,
) -> Result<SmokeTestResult, DiscoveryError> {
    let cfg = host.config()?;
    let f = host.facts(&cfg, id)?;
    let settings = cfg.provider(id);
    let discovery = match f.cli {
        Some(entry) => Some(
            discover_cli(
                entry,
                settings.binary.as_deref(),
                &host.env,
                &host.timeouts,
                &host.sanitizer,
            )
            .await,
        ),
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
            std::fs::create_dir_all(&cwd).map_err(|e| DiscoveryError::io("create", &cwd, e))?;
            let mut req =
                SessionRequest::new(ProviderChoice::Id(id.to_string()), Approvals::deny_all());
            req.cwd = Some(cwd);
            req.provider_settings = true;
            req.binary = discovery.as_ref().and_then(|d| d.command.clone());
            req.options = SessionOptions {
                approval_deadline: Duration::from_secs(5),
                max_respawns: 0,
                sanitizer: host.sanitizer.clone(),
                ..Default::default()
            };
            match crate::session::prepare(host, &cfg, req).await {
                Ok(session) => Ok(run_once(session, host.timeouts.smoke).await),
                Err(e) => Err(e.into()),
            }
        }
    };
    match run {
        Err(e) => fail(host, &mut result, SmokeStatus::Failed, e),
        Ok(RunOutcome::TimedOut) => fail(
            host,
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
            fail(host, &mut result, status, e);
        }
        Ok(RunOutcome::Replied(text)) => {
            let preview: String = host
                .sanitizer
                .sanitize(text.trim())
                .chars()
                .take(200)
                .collect();
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

/// `r` failed with `e`, as the host's sanitizer shows it (the result is
/// cached on disk and shown by every front end).
fn fail(host: &Host, r: &mut SmokeTestResult, status: SmokeStatus, e: CohostError) {
    let e = e.sanitized(&host.sanitizer);
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
        Err(e) => return RunOutcome::Error(e.into()),
    };
    let Ok((text, first_error)) = tokio::time::timeout_at(deadline, reply(&mut events)).await
    else {
        // Best effort: the result is already known; a stuck agent is killed.
        let _ = running.terminate().await;
        return RunOutcome::TimedOut;
    };
    let outcome = match turn.outcome().await {
        Ok(o) => o,
        Err(e) => return RunOutcome::Error(e.into()),
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
