//! Turns adapter facts into numbered, sanitized wire events for one turn.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::event::{EndReason, Event, EventBody, Usage};
use crate::sanitize;

/// Receives the events of a turn. Any `FnMut(Event) + Send` closure is a sink.
pub trait EventSink: Send {
    /// Take one event.
    fn emit(&mut self, event: Event);
}

impl<F: FnMut(Event) + Send> EventSink for F {
    fn emit(&mut self, event: Event) {
        self(event)
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
    sink: &'a mut dyn EventSink,
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl<'a> TurnEmitter<'a> {
    pub fn new(
        prompt_id: String,
        correlation_id: String,
        provider: String,
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
            sink,
        }
    }

    fn push(&mut self, body: EventBody) {
        let event = Event {
            id: format!("{}.{}", self.prompt_id, self.seq),
            prompt_id: self.prompt_id.clone(),
            correlation_id: self.correlation_id.clone(),
            ts: now_ms(),
            body,
        };
        self.seq += 1;
        self.sink.emit(event);
    }

    /// Emit `stream_start` once, before anything else.
    pub fn start(&mut self, session_id: Option<String>, model: Option<String>) {
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
    pub fn emit(&mut self, body: EventBody) {
        if self.ended {
            return;
        }
        self.start(None, None);
        self.push(body);
    }

    pub fn text(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        let chunk_index = self.text_index;
        self.text_index += 1;
        let stream_id = format!("{}:text", self.prompt_id);
        self.emit(EventBody::StreamChunk {
            stream_id,
            chunk_index,
            delta: sanitize::sanitize(delta),
        });
    }

    pub fn reasoning(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        let chunk_index = self.reasoning_index;
        self.reasoning_index += 1;
        let stream_id = format!("{}:reasoning", self.prompt_id);
        self.emit(EventBody::ReasoningChunk {
            stream_id,
            chunk_index,
            delta: sanitize::sanitize(delta),
        });
    }

    pub fn end(&mut self, reason: EndReason, usage: Option<Usage>) {
        if self.ended {
            return;
        }
        self.emit(EventBody::StreamEnd { reason, usage });
        self.ended = true;
    }
}

/// The first `max` bytes of `s` on a char boundary, sanitized, with a marker
/// when cut.
pub(crate) fn preview(s: &str, max: usize) -> String {
    let clean = sanitize::sanitize(s);
    if clean.len() <= max {
        return clean;
    }
    let mut cut = max;
    while !clean.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… [{} bytes more]", &clean[..cut], clean.len() - cut)
}
