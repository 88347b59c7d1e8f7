//! The thin IO shell around the sans-IO cores: send the request (with
//! bounded rate-limit retries), read the body under first-byte and idle
//! timeouts, feed the decoder and the normalizer, forward events, and stop
//! at once when the turn is cancelled (dropping the response closes the
//! connection, which is how an HTTP provider is interrupted).

use std::time::Duration;

use cohost_core::{AgentEvent, CohostError, ErrorCode};
use futures::StreamExt;
use tokio::sync::{mpsc, watch};

use super::decode::{Decoder, Frame};
use super::errors::{self, Ctx};
use super::normalize::{feed, Finish, Normalizer};
use super::transcript::ToolUse;
use super::HttpOptions;

/// One prepared request.
pub(crate) struct Request {
    pub client: reqwest::Client,
    pub url: String,
    /// Header pairs, secrets included (never logged).
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// How the HTTP part of a turn ended.
pub(crate) enum Outcome {
    /// The vendor's end event arrived.
    Done(Finish, (String, Vec<ToolUse>)),
    /// Cancelled; what had arrived so far.
    Interrupted((String, Vec<ToolUse>)),
    /// A fatal error; what had arrived so far.
    Failed(CohostError),
}

/// Resolves when the turn is cancelled (or the adapter is gone).
async fn cancelled(rx: &mut watch::Receiver<bool>) {
    // An error means the sender (the adapter) was dropped: stop as well.
    let _closed_or_set = rx.wait_for(|c| *c).await;
}

/// The receiver of the turn's events went away (the engine dropped the
/// stream): nothing more to do.
struct Gone;

async fn forward(tx: &mpsc::Sender<AgentEvent>, events: &mut Vec<AgentEvent>) -> Result<(), Gone> {
    for ev in events.drain(..) {
        tx.send(ev).await.map_err(|_| Gone)?;
    }
    Ok(())
}

fn timeout_error(ctx: &Ctx, what: &str, after: Duration) -> CohostError {
    CohostError::new(
        ErrorCode::Timeout,
        format!(
            "`{}` {what} for {} ms; the connection was dropped",
            ctx.provider,
            after.as_millis()
        ),
    )
    .with_fix("try again; local models may need a longer timeout (HttpOptions)")
}

/// Send with retries; `Ok(response)` is a 2xx response.
async fn send(
    req: &Request,
    ctx: &Ctx,
    opts: &HttpOptions,
    cancel: &mut watch::Receiver<bool>,
    tx: &mpsc::Sender<AgentEvent>,
) -> Result<Option<reqwest::Response>, CohostError> {
    let mut attempt: u32 = 0;
    loop {
        let mut builder = req.client.post(&req.url).body(req.body.clone());
        for (k, v) in &req.headers {
            builder = builder.header(*k, v);
        }
        let resp = tokio::select! {
            _ = cancelled(cancel) => return Ok(None),
            r = tokio::time::timeout(opts.first_byte_timeout, builder.send()) => match r {
                Err(_) => return Err(timeout_error(ctx, "sent no response", opts.first_byte_timeout)),
                Ok(Err(e)) => return Err(errors::from_transport(&e, &req.url, ctx)),
                Ok(Ok(resp)) => resp,
            },
        };
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            return Ok(Some(resp));
        }
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let wait = errors::retry_after(
            header("retry-after-ms").as_deref(),
            header("retry-after").as_deref(),
            header("date").as_deref(),
            std::time::SystemTime::now(),
        );
        let body = tokio::select! {
            _ = cancelled(cancel) => return Ok(None),
            b = tokio::time::timeout(opts.idle_timeout, resp.text()) => match b {
                Ok(Ok(t)) => t,
                // The status alone still classifies the failure.
                _ => String::new(),
            },
        };
        let err = errors::from_status(status, &body, ctx);
        if err.code != ErrorCode::RateLimited || !err.retryable || attempt >= opts.max_retries {
            return Err(err);
        }
        attempt += 1;
        // Exponential backoff when the server names no wait; never longer than the cap.
        let wait = wait
            .unwrap_or_else(|| Duration::from_millis(500u64.saturating_mul(1 << attempt.min(10))))
            .min(opts.max_retry_wait);
        let status_event = AgentEvent::Status {
            message: format!(
                "`{}` is rate limiting (HTTP {status}); retry {attempt} of {} in {} ms",
                ctx.provider,
                opts.max_retries,
                wait.as_millis()
            ),
            retry_after_ms: Some(wait.as_millis() as u64),
        };
        if tx.send(status_event).await.is_err() {
            return Ok(None);
        }
        tokio::select! {
            _ = cancelled(cancel) => return Ok(None),
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Run the HTTP part of one turn.
pub(crate) async fn run(
    req: Request,
    mut decoder: Decoder,
    mut normalizer: Box<dyn Normalizer>,
    ctx: Ctx,
    opts: HttpOptions,
    mut cancel: watch::Receiver<bool>,
    tx: mpsc::Sender<AgentEvent>,
) -> Outcome {
    let resp = match send(&req, &ctx, &opts, &mut cancel, &tx).await {
        Ok(Some(r)) => r,
        Ok(None) => return Outcome::Interrupted(normalizer.assistant()),
        Err(e) => return Outcome::Failed(e),
    };
    let mut body = resp.bytes_stream();
    let mut frames: Vec<Frame> = Vec::new();
    let mut events: Vec<AgentEvent> = Vec::new();
    loop {
        let chunk = tokio::select! {
            _ = cancelled(&mut cancel) => return Outcome::Interrupted(normalizer.assistant()),
            c = tokio::time::timeout(opts.idle_timeout, body.next()) => c,
        };
        let bytes = match chunk {
            Err(_) => {
                return Outcome::Failed(timeout_error(
                    &ctx,
                    "stalled mid-stream: no data",
                    opts.idle_timeout,
                ))
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => return Outcome::Failed(errors::from_transport(&e, &req.url, &ctx)),
            Ok(Some(Ok(b))) => b,
        };
        decoder.push(&bytes, &mut frames);
        for f in frames.drain(..) {
            if let Err(e) = feed(normalizer.as_mut(), &ctx.provider, &f, &mut events) {
                // Deliver what came before the fatal event first.
                if forward(&tx, &mut events).await.is_err() {
                    return Outcome::Interrupted(normalizer.assistant());
                }
                return Outcome::Failed(e);
            }
        }
        if forward(&tx, &mut events).await.is_err() {
            return Outcome::Interrupted(normalizer.assistant());
        }
    }
    decoder.finish(&mut frames);
    for f in frames.drain(..) {
        if let Err(e) = feed(normalizer.as_mut(), &ctx.provider, &f, &mut events) {
            return Outcome::Failed(e);
        }
    }
    if decoder.overflowed() {
        events.push(AgentEvent::Error(
            CohostError::new(
                ErrorCode::InvalidOutput,
                format!(
                    "`{}` sent an over-long stream line; it was cut",
                    ctx.provider
                ),
            )
            .retryable(false),
        ));
    }
    if forward(&tx, &mut events).await.is_err() {
        return Outcome::Interrupted(normalizer.assistant());
    }
    match normalizer.finish() {
        Some(finish) => Outcome::Done(finish, normalizer.assistant()),
        None => Outcome::Failed(
            CohostError::new(
                ErrorCode::InvalidOutput,
                format!(
                    "`{}` closed the stream before its end event; the answer is incomplete",
                    ctx.provider
                ),
            )
            .with_fix("send the prompt again; if it repeats, a proxy may be cutting long responses")
            .retryable(true),
        ),
    }
}
