//! Agents' hook events (`cohost hook-event`), kept for `GET /api/hooks/events`.
//!
//! Each event is sanitized once on arrival (hook payloads carry prompts,
//! commands and paths), numbered, kept in a bounded replay buffer for late
//! subscribers and broadcast to live ones.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use cohost_core::sync::lock;
use cohost_core::Sanitizer;

use serde::Serialize;
use tokio::sync::broadcast;

use cohost_discovery::hooks::HookEvent;

/// Events replayed to a new subscriber.
const REPLAY: usize = 256;

/// One hook event as the API shows it.
#[derive(Debug, Clone, Serialize)]
pub struct FeedEvent {
    /// Position in this server's feed, from 0.
    pub seq: u64,
    /// Milliseconds since the Unix epoch, when cohost received it.
    pub ts: u64,
    /// `claude`, `codex`, `gemini`.
    pub agent: String,
    /// The hook's event name (`PreToolUse`, `agent-turn-complete`...), or `event`.
    pub kind: String,
    /// The agent's JSON, sanitized.
    pub payload: serde_json::Value,
}

/// The feed: replay buffer plus broadcast.
pub struct HookFeed {
    state: Mutex<(u64, VecDeque<FeedEvent>)>,
    tx: broadcast::Sender<FeedEvent>,
    sanitizer: Arc<Sanitizer>,
}

impl HookFeed {
    /// An empty feed whose events pass `sanitizer` (the host's) on arrival.
    pub fn new(sanitizer: Arc<Sanitizer>) -> Self {
        HookFeed {
            state: Mutex::new((0, VecDeque::new())),
            tx: broadcast::channel(REPLAY).0,
            sanitizer,
        }
    }

    /// Records and broadcasts one event.
    pub fn publish(&self, ev: HookEvent) {
        let mut payload = ev.payload;
        self.sanitizer.sanitize_json(&mut payload);
        let kind = payload
            .get("hook_event_name")
            .or_else(|| payload.get("type"))
            .and_then(|v| v.as_str())
            .unwrap_or("event")
            .to_string();
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut st = lock(&self.state);
        let fe = FeedEvent {
            seq: st.0,
            ts,
            agent: self.sanitizer.sanitize(&ev.agent).into_owned(),
            kind: self.sanitizer.sanitize(&kind).into_owned(),
            payload,
        };
        tracing::info!(agent = %fe.agent, kind = %fe.kind, "hook event");
        st.0 += 1;
        if st.1.len() >= REPLAY {
            st.1.pop_front();
        }
        st.1.push_back(fe.clone());
        // Under the lock, so a subscriber's snapshot and receiver never
        // miss or repeat an event.
        let _ = self.tx.send(fe);
    }

    /// Past events and a receiver for the next ones.
    pub fn subscribe(&self) -> (Vec<FeedEvent>, broadcast::Receiver<FeedEvent>) {
        let st = lock(&self.state);
        (st.1.iter().cloned().collect(), self.tx.subscribe())
    }
}
