//! [`Shared`], the state of one running server: its settings, script
//! cursor, counters and request log. The HTTP shell (`server.rs`) owns it
//! and every wire format's handler answers through it.

use std::sync::atomic::{AtomicU64, Ordering};

use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::watch;

use crate::log::{LoggedRequest, RequestLog};
use crate::reply::{decide, ApiError, Knobs, Outcome, Plan, Turn};
use crate::script::ScriptCursor;
use crate::stream::{json_reply, streaming, SSE};
use crate::FakeLlmConfig;

/// State shared by every request of one server.
pub(crate) struct Shared {
    pub knobs: Knobs,
    pub models: Vec<String>,
    cursor: ScriptCursor,
    counter: AtomicU64,
    seq: AtomicU64,
    log: RequestLog,
    pub shutdown: watch::Receiver<bool>,
}

impl Shared {
    /// The state of a server started with `config`, logging to `log`.
    pub(crate) fn new(
        config: FakeLlmConfig,
        log: RequestLog,
        shutdown: watch::Receiver<bool>,
    ) -> Shared {
        Shared {
            knobs: Knobs {
                text_deltas: config.text_deltas.max(1),
                slow_deltas: config.slow_deltas.max(1),
                slow_delay: config.slow_delay,
                default: config.default_scenario,
            },
            models: if config.models.is_empty() {
                vec!["fake-model".into()]
            } else {
                config.models
            },
            cursor: ScriptCursor::new(config.script.unwrap_or_default()),
            counter: AtomicU64::new(0),
            seq: AtomicU64::new(0),
            log,
            shutdown,
        }
    }

    /// Logs one request, numbered in arrival order (its `seq` is set here).
    pub(crate) fn record(&self, mut request: LoggedRequest) {
        request.seq = self.seq.fetch_add(1, Ordering::Relaxed);
        self.log.push(request);
    }

    /// Every request so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<LoggedRequest> {
        self.log.snapshot()
    }

    /// Normalized request in, decision out; ids come from the shared counter so
    /// a fresh server answers the same request sequence with the same bytes.
    pub(crate) fn decide(&self, turn: &Turn) -> (Outcome, String) {
        let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        decide(turn, n, &self.knobs, &self.cursor)
    }

    /// Decide `turn` and answer it in one wire format: `error` renders a
    /// scripted error, `streamed` gives the stream's frames plus the broken
    /// frame a malformed stream ends with, `whole` the non-streaming body.
    pub(crate) fn answer(
        &self,
        turn: &Turn,
        stream: bool,
        error: fn(ApiError, &Turn) -> Response,
        streamed: impl FnOnce(&Plan) -> (Vec<Bytes>, &'static [u8]),
        whole: impl FnOnce(&Plan) -> Value,
    ) -> (Response, String) {
        let (outcome, scenario) = self.decide(turn);
        let resp = match outcome {
            Outcome::Error(e) => error(e, turn),
            Outcome::Reply(plan) if stream => {
                let (frames, broken) = streamed(&plan);
                streaming(
                    frames,
                    plan.pace,
                    Bytes::from_static(broken),
                    SSE,
                    self.shutdown.clone(),
                )
            }
            Outcome::Reply(plan) => json_reply(&whole(&plan), &plan, &self.shutdown),
        };
        (resp, scenario)
    }

    pub(crate) fn default_model(&self) -> &str {
        self.models
            .first()
            .map(String::as_str)
            .unwrap_or("fake-model")
    }
}
