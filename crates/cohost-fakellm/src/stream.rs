//! Streaming bodies shared by every vendor: frames paced normally, slowly,
//! stalled after the first frame, or broken off with a malformed frame.

use std::convert::Infallible;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::sync::watch;

use futures::StreamExt;

use crate::reply::{Pace, Plan};

/// `text/event-stream` for SSE, `application/x-ndjson` for Ollama.
pub(crate) const SSE: &str = "text/event-stream";
pub(crate) const NDJSON: &str = "application/x-ndjson";

/// One SSE frame with an `event:` line (Anthropic, OpenAI Responses).
pub(crate) fn sse_event(event: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

/// One SSE frame with only a `data:` line (OpenAI Chat, Gemini).
pub(crate) fn sse_data(data: &str) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

struct State {
    frames: std::vec::IntoIter<Bytes>,
    sent: usize,
    pace: Pace,
    broken: Option<Bytes>,
    break_at: usize,
    shutdown: watch::Receiver<bool>,
}

/// Resolves when the server shuts down (or its handle is gone).
async fn shutdown_signal(rx: &mut watch::Receiver<bool>) {
    // An error means the sender was dropped: the server is gone, so end too.
    let _closed_or_set = rx.wait_for(|down| *down).await;
}

async fn next_frame(mut st: State) -> Option<(Result<Bytes, Infallible>, State)> {
    if *st.shutdown.borrow() {
        return None;
    }
    match st.pace {
        Pace::Stall if st.sent >= 1 => {
            // Hold the connection open with nothing more to say; the client's
            // disconnect drops this future, a server shutdown ends it.
            shutdown_signal(&mut st.shutdown).await;
            return None;
        }
        Pace::Malformed if st.sent >= st.break_at => {
            let broken = st.broken.take()?;
            st.sent += 1;
            return Some((Ok(broken), st));
        }
        Pace::Slow(delay) if st.sent > 0 => {
            let mut rx = st.shutdown.clone();
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = shutdown_signal(&mut rx) => return None,
            }
        }
        _ => {}
    }
    let frame = st.frames.next()?;
    st.sent += 1;
    Some((Ok(frame), st))
}

/// A 200 streaming response of `frames`, paced by `pace`. For
/// [`Pace::Malformed`], about half the frames go out, then `broken`, then EOF.
pub(crate) fn streaming(
    frames: Vec<Bytes>,
    pace: Pace,
    broken: Bytes,
    content_type: &'static str,
    shutdown: watch::Receiver<bool>,
) -> Response {
    let break_at = (frames.len() / 2).max(1);
    let state = State {
        frames: frames.into_iter(),
        sent: 0,
        pace,
        broken: Some(broken),
        break_at,
        shutdown,
    };
    let body = Body::from_stream(futures::stream::unfold(state, next_frame));
    let mut resp = (StatusCode::OK, body).into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// A JSON response with a status.
pub(crate) fn json(status: StatusCode, value: &serde_json::Value) -> Response {
    let mut resp = (status, value.to_string()).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A non-streaming reply: valid JSON; for `malformed` a body cut in half; for
/// `slow` the whole body after the time the deltas would have taken; for
/// `stall` headers and then nothing until the client leaves or the server stops.
pub(crate) fn json_reply(
    value: &serde_json::Value,
    plan: &Plan,
    shutdown: &watch::Receiver<bool>,
) -> Response {
    let full = value.to_string();
    let (wait, body) = match plan.pace {
        Pace::Normal => return json(StatusCode::OK, value),
        Pace::Malformed => {
            let cut = full
                .char_indices()
                .nth(full.chars().count() / 2)
                .map(|(i, _)| i)
                .unwrap_or(0);
            (None, Some(Bytes::from(full[..cut].to_string())))
        }
        Pace::Slow(delay) => {
            let n = u32::try_from(plan.text.len()).unwrap_or(u32::MAX);
            (Some(delay.saturating_mul(n)), Some(Bytes::from(full)))
        }
        Pace::Stall => (None, None),
    };
    let mut rx = shutdown.clone();
    let once = futures::stream::once(async move {
        match (wait, body) {
            (_, None) => {
                shutdown_signal(&mut rx).await;
                None
            }
            (Some(wait), Some(body)) => tokio::select! {
                _ = tokio::time::sleep(wait) => Some(body),
                _ = shutdown_signal(&mut rx) => None,
            },
            (None, body) => body,
        }
    })
    .filter_map(|b| async move { b.map(Ok::<_, Infallible>) });
    let mut resp = (StatusCode::OK, Body::from_stream(once)).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// Seconds a client is told to wait after a 429.
pub(crate) const RETRY_AFTER_SECS: u64 = 1;

/// Adds `Retry-After` to a 429 (and leaves other statuses alone).
pub(crate) fn with_retry_after(mut resp: Response) -> Response {
    if resp.status() == StatusCode::TOO_MANY_REQUESTS {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    }
    resp
}
