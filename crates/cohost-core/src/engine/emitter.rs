//! Turns adapter facts into numbered, sanitized wire events for one turn.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::event::{EndReason, Event, EventBody, Usage};
use crate::sanitize::{Sanitizer, StreamSanitizer};

/// Receives the events of a turn. Any `FnMut(Event) + Send` closure is a sink.
pub trait EventSink: Send {
    /// Take one event.
    fn emit(&mut self, event: Event);
}

impl<F: FnMut(Event) + Send> EventSink for F {
    fn emit(&mut self, event: Event) {
        self(event);
    }
}

/// Per-turn event builder: ids, timestamps, chunk indexes, sanitizing.
pub(crate) struct TurnEmitter<'a> {
    pub prompt_id: String,
    pub correlation_id: String,
    seq: u64,
    text_index: u64,
    reasoning_index: u64,
    started: bool,
    ended: bool,
    provider: String,
    /// Deltas are sanitized as streams: a secret split across deltas is held
    /// back until it is whole, so it cannot slip through in pieces.
    text_guard: StreamSanitizer,
    reasoning_guard: StreamSanitizer,
    /// The session's sanitizer (its [`crate::SessionOptions::sanitizer`]).
    sanitizer: &'a Sanitizer,
    sink: &'a mut dyn EventSink,
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl<'a> TurnEmitter<'a> {
    pub(super) fn new(
        prompt_id: String,
        correlation_id: String,
        provider: String,
        sanitizer: &'a Sanitizer,
        sink: &'a mut dyn EventSink,
    ) -> Self {
        TurnEmitter {
            prompt_id,
            correlation_id,
            seq: 0,
            text_index: 0,
            reasoning_index: 0,
            started: false,
            ended: false,
            provider,
            text_guard: StreamSanitizer::new(),
            reasoning_guard: StreamSanitizer::new(),
            sanitizer,
            sink,
        }
    }

    fn push(&mut self, body: EventBody) {
        // Errors are built anywhere (adapters, the engine) with raw text;
        // this is where they leave for a sink.
        let body = match body {
            EventBody::Error(e) => EventBody::Error(e.sanitized(self.sanitizer)),
            other => other,
        };
        let event = Event {
            id: format!("{}.{}", self.prompt_id, self.seq),
            prompt_id: self.prompt_id.clone(),
            correlation_id: self.correlation_id.clone(),
            ts: now_ms(),
            agent: None,
            body,
        };
        self.seq += 1;
        self.sink.emit(event);
    }

    /// The session's sanitizer, for what the turn loop cleans itself.
    pub(super) fn sanitizer(&self) -> &'a Sanitizer {
        self.sanitizer
    }

    /// Emit `stream_start` once, before anything else.
    pub(super) fn start(&mut self, session_id: Option<String>, model: Option<String>) {
        if self.started {
            return;
        }
        self.started = true;
        self.push(EventBody::StreamStart {
            provider: self.provider.clone(),
            session_id,
            model,
        });
    }

    /// Emit any event, synthesizing `stream_start` first when the adapter
    /// did not announce the turn. Nothing is emitted after `stream_end`.
    /// Text held back by the stream sanitizer goes out first, except before
    /// side notes (`status`, `usage`) that do not end a run of text.
    pub(super) fn emit(&mut self, body: EventBody) {
        if !matches!(body, EventBody::Status { .. } | EventBody::Usage(_)) {
            self.flush_text();
            self.flush_reasoning();
        }
        self.emit_now(body);
    }

    fn emit_now(&mut self, body: EventBody) {
        if self.ended {
            return;
        }
        self.start(None, None);
        self.push(body);
    }

    pub(super) fn text(&mut self, delta: &str) {
        self.flush_reasoning();
        let clean = self.text_guard.push(self.sanitizer, delta);
        self.text_chunk(clean);
    }

    pub(super) fn reasoning(&mut self, delta: &str) {
        self.flush_text();
        let clean = self.reasoning_guard.push(self.sanitizer, delta);
        self.reasoning_chunk(clean);
    }

    fn flush_text(&mut self) {
        if self.text_guard.held() > 0 {
            let clean = self.text_guard.finish(self.sanitizer);
            self.text_chunk(clean);
        }
    }

    fn flush_reasoning(&mut self) {
        if self.reasoning_guard.held() > 0 {
            let clean = self.reasoning_guard.finish(self.sanitizer);
            self.reasoning_chunk(clean);
        }
    }

    fn text_chunk(&mut self, delta: String) {
        if delta.is_empty() {
            return;
        }
        let chunk_index = self.text_index;
        self.text_index += 1;
        let stream_id = format!("{}:text", self.prompt_id);
        self.emit_now(EventBody::StreamChunk {
            stream_id,
            chunk_index,
            delta,
        });
    }

    fn reasoning_chunk(&mut self, delta: String) {
        if delta.is_empty() {
            return;
        }
        let chunk_index = self.reasoning_index;
        self.reasoning_index += 1;
        let stream_id = format!("{}:reasoning", self.prompt_id);
        self.emit_now(EventBody::ReasoningChunk {
            stream_id,
            chunk_index,
            delta,
        });
    }

    pub(super) fn end(&mut self, reason: EndReason, usage: Option<Usage>) {
        if self.ended {
            return;
        }
        self.emit(EventBody::StreamEnd { reason, usage });
        self.ended = true;
    }
}

/// The first `max` bytes of `s` on a char boundary, sanitized (as JSON when
/// it is a JSON document: tools report structured output as text), with a
/// marker when cut.
pub(crate) fn preview(sanitizer: &Sanitizer, s: &str, max: usize) -> String {
    let clean = sanitizer.sanitize_text_or_json(s).into_owned();
    if clean.len() <= max {
        return clean;
    }
    let mut cut = max;
    while !clean.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… [{} bytes more]", &clean[..cut], clean.len() - cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: impl FnOnce(&mut TurnEmitter<'_>)) -> Vec<Event> {
        let mut events = Vec::new();
        let mut sink = |e: Event| events.push(e);
        let sanitizer = Sanitizer::shapes_only();
        let mut em = TurnEmitter::new(
            "p1".into(),
            "c1".into(),
            "mock".into(),
            &sanitizer,
            &mut sink,
        );
        f(&mut em);
        drop(em);
        events
    }

    fn deltas(events: &[Event]) -> Vec<(String, u64, String)> {
        events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::StreamChunk {
                    stream_id,
                    chunk_index,
                    delta,
                }
                | EventBody::ReasoningChunk {
                    stream_id,
                    chunk_index,
                    delta,
                } => Some((stream_id.clone(), *chunk_index, delta.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_key_split_across_deltas_never_reaches_the_sink() {
        let events = run(|em| {
            em.text("your key is sk-ant-api03-AbCd");
            em.text("EfGhIjKlMnOpQrStUv");
            em.text("WxYz0123 and more");
            em.end(EndReason::Completed, None);
        });
        let all: String = deltas(&events).into_iter().map(|d| d.2).collect();
        assert!(!all.contains("EfGhIjKl"), "{all}");
        assert!(!all.contains("AbCd"), "{all}");
        assert_eq!(all, "your key is [REDACTED] and more");
        // Chunk indexes stay dense although a delta produced nothing.
        let idx: Vec<u64> = deltas(&events).iter().map(|d| d.1).collect();
        assert_eq!(idx, (0..idx.len() as u64).collect::<Vec<_>>());
    }

    #[test]
    fn held_text_goes_out_before_a_tool_call_and_the_end() {
        let events = run(|em| {
            em.reasoning("thinking ab");
            em.text("Let me run it");
            em.emit(EventBody::Status {
                message: "waiting".into(),
                retry_after_ms: None,
            });
            em.emit(EventBody::ToolCall {
                tool_id: "t1".into(),
                name: "shell".into(),
                kind: crate::event::ToolKind::Execute,
                input: serde_json::json!({}),
            });
            em.text("done");
            em.end(EndReason::Completed, None);
        });
        let kinds: Vec<String> = events
            .iter()
            .map(|e| match &e.body {
                EventBody::StreamChunk { delta, .. } => format!("text:{delta}"),
                EventBody::ReasoningChunk { delta, .. } => format!("reasoning:{delta}"),
                EventBody::ToolCall { .. } => "tool_call".into(),
                EventBody::Status { .. } => "status".into(),
                EventBody::StreamStart { .. } => "start".into(),
                EventBody::StreamEnd { .. } => "end".into(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "start",
                "reasoning:thinking ",
                "reasoning:ab",
                "text:Let me run ",
                "status",
                "text:it",
                "tool_call",
                "text:done",
                "end"
            ]
        );
    }
}
