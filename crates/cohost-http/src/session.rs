//! What one adapter session shares between its methods and its turns:
//! the resolved endpoint, the HTTP client, model listing, and the end of a
//! turn (transcript update, persistence, final events).

use std::path::PathBuf;
use std::sync::Mutex;

use cohost_core::{AgentEvent, CohostError, EndReason, ErrorCode, PromptRequest};
use serde_json::Value;
use tokio::sync::mpsc;

use super::engine::Outcome;
use super::errors::{self, Ctx};
use super::providers::WireApi;
use super::transcript::{self, Item, Transcript};
use super::{anthropic, gemini, ollama, HttpOptions};

/// What `initialize` resolved.
#[derive(Debug, Clone)]
pub(super) struct Resolved {
    pub(super) client: reqwest::Client,
    pub(super) base: String,
    pub(super) key: Option<String>,
    pub(super) wire: WireApi,
    pub(super) model: String,
    pub(super) dir: PathBuf,
    pub(super) ctx: Ctx,
    pub(super) system: Option<String>,
    pub(super) cwd: PathBuf,
}

#[derive(Debug, Default)]
pub(super) struct Shared {
    pub(super) transcript: Transcript,
    pub(super) last_error: Option<String>,
}

/// Lock `m`, taking the data of a poisoned lock: the state behind it is
/// bookkeeping that stays usable after a panicking holder.
pub(super) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(super) fn build_client(
    options: &HttpOptions,
    base: &str,
) -> Result<reqwest::Client, CohostError> {
    let mut b = super::client_builder().connect_timeout(options.first_byte_timeout);
    let loopback = ["://127.0.0.1", "://localhost", "://[::1]"]
        .iter()
        .any(|h| base.contains(h));
    if loopback {
        // A proxy from the environment must not capture local servers.
        b = b.no_proxy();
    }
    b.build().map_err(|e| {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("cannot build the HTTP client: {e}"),
        )
        .with_fix("check the TLS / proxy settings in the environment")
    })
}

pub(super) fn auth_headers(wire: WireApi, key: Option<&str>) -> Vec<(&'static str, String)> {
    let mut h = Vec::new();
    match (wire, key) {
        (WireApi::AnthropicMessages, k) => {
            h.push(("anthropic-version", anthropic::API_VERSION.to_string()));
            if let Some(k) = k {
                h.push(("x-api-key", k.to_string()));
            }
        }
        (WireApi::Gemini, Some(k)) => h.push(("x-goog-api-key", k.to_string())),
        (_, Some(k)) => h.push(("authorization", format!("Bearer {k}"))),
        (_, None) => {}
    }
    h
}

pub(super) async fn list(r: &Resolved, options: &HttpOptions) -> Result<Vec<String>, CohostError> {
    let url = format!("{}{}", r.base, r.wire.models_path());
    let mut b = r.client.get(&url);
    for (k, v) in auth_headers(r.wire, r.key.as_deref()) {
        b = b.header(k, v);
    }
    let fetch = async {
        let resp = b
            .send()
            .await
            .map_err(|e| errors::from_transport(&e, &url, &r.ctx))?;
        let status = resp.status().as_u16();
        let text = resp
            .text()
            .await
            .map_err(|e| errors::from_transport(&e, &url, &r.ctx))?;
        if !(200..300).contains(&status) {
            return Err(errors::from_status(status, &text, &r.ctx));
        }
        let v: Value = serde_json::from_str(&text).map_err(|e| {
            CohostError::new(
                ErrorCode::InvalidOutput,
                format!(
                    "`{}` answered the model list with invalid JSON: {e}",
                    r.ctx.provider
                ),
            )
        })?;
        Ok(match r.wire {
            WireApi::Gemini => gemini::parse_model_list(&v),
            WireApi::Ollama => ollama::parse_model_list(&v),
            _ => anthropic::parse_model_list(&v),
        })
    };
    tokio::time::timeout(options.first_byte_timeout, fetch)
        .await
        .map_err(|_| {
            CohostError::new(
                ErrorCode::Timeout,
                format!(
                    "`{}` did not list its models in time ({url})",
                    r.ctx.provider
                ),
            )
            .with_fix("check that the server is running")
        })?
}

/// A fresh native session id: provider, time, and process-local randomness.
pub(super) fn new_session_id(provider: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(ms);
    h.write_u32(std::process::id());
    let safe: String = provider
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}-{ms:x}-{:016x}", h.finish())
}

/// The prompt text with attached files inlined as
/// [`cohost_core::port::file_block`]s (APIs have no file access, so a file
/// sent without content is read here).
pub(super) fn prompt_text(p: &PromptRequest, cwd: &std::path::Path) -> String {
    let mut text = p.text.clone();
    for f in &p.context_files {
        let content = match &f.content {
            Some(c) => c.clone(),
            None => {
                let path = if f.path.is_absolute() {
                    f.path.clone()
                } else {
                    cwd.join(&f.path)
                };
                match std::fs::read_to_string(&path) {
                    Ok(c) => c,
                    Err(e) => format!("(cohost could not read this file: {e})"),
                }
            }
        };
        text.push_str(&cohost_core::port::file_block(&f.path, &content));
    }
    text
}

/// Record the turn in the transcript (persisted before `Ended`, so the next
/// prompt and a resume see it), then report the end.
pub(super) async fn finish_turn(
    outcome: Outcome,
    mut transcript: Transcript,
    r: &Resolved,
    shared: &Mutex<Shared>,
    tx: &mpsc::Sender<AgentEvent>,
) {
    let mut events = Vec::new();
    let (keep, ended) = match outcome {
        Outcome::Done(finish, (text, tool_calls)) => {
            transcript.items.push(Item::Assistant { text, tool_calls });
            if let Some(note) = finish.note {
                events.push(AgentEvent::Status {
                    message: note,
                    retry_after_ms: None,
                });
            }
            if let Some(u) = finish.usage {
                events.push(AgentEvent::Usage(u));
            }
            (
                true,
                AgentEvent::Ended {
                    reason: finish.reason,
                    usage: finish.usage,
                },
            )
        }
        Outcome::Interrupted((text, tool_calls)) => {
            // Keep a partial answer so the conversation reads as it happened;
            // a turn with nothing to show is dropped as if never sent.
            let partial = !text.is_empty() || !tool_calls.is_empty();
            if partial {
                transcript.items.push(Item::Assistant { text, tool_calls });
            }
            (
                partial,
                AgentEvent::Ended {
                    reason: EndReason::Interrupted,
                    usage: None,
                },
            )
        }
        Outcome::Failed(e) => {
            lock(shared).last_error = Some(e.message.clone());
            events.push(AgentEvent::Error(e));
            (
                false,
                AgentEvent::Ended {
                    reason: EndReason::Error,
                    usage: None,
                },
            )
        }
    };
    if keep {
        // fsync can take tens of ms: keep it off the async worker.
        let (dir, copy) = (r.dir.clone(), transcript.clone());
        let saved = tokio::task::spawn_blocking(move || transcript::save(&dir, &copy))
            .await
            .unwrap_or_else(|e| {
                Err(CohostError::new(
                    ErrorCode::ConfigInvalid,
                    format!("saving the conversation failed: {e}"),
                ))
            });
        if let Err(e) = saved {
            // The answer is still good; only resume in a new process is lost.
            events.push(AgentEvent::Error(e.retryable(false)));
        }
        lock(shared).transcript = transcript;
    }
    events.push(ended);
    for ev in events {
        if tx.send(ev).await.is_err() {
            return;
        }
    }
}
