//! Running a prompt and reading the host events it produced.

use cohost_core::{Event, EventBody, HostSession, PromptInput, TurnOutcome};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Run one prompt, bounded by `limit`, and collect its events.
pub async fn run_within(
    s: &mut HostSession,
    prompt: &str,
    limit: Duration,
) -> (TurnOutcome, Vec<Event>) {
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink_events = events.clone();
    let mut sink = move |e: Event| sink_events.lock().unwrap().push(e);
    let outcome = tokio::time::timeout(limit, s.prompt(PromptInput::text(prompt), &mut sink))
        .await
        .unwrap_or_else(|_| panic!("turn finished within {} s", limit.as_secs()));
    let ev = events.lock().unwrap().clone();
    (outcome, ev)
}

/// The answer text: every chunk's delta, in order.
pub fn text(ev: &[Event]) -> String {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// How many approvals the host was asked for.
pub fn approvals(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| matches!(e.body, EventBody::ToolApprovalRequested { .. }))
        .count()
}

/// The `chunk_index` of every chunk, in order.
pub fn chunk_indexes(ev: &[Event]) -> Vec<u64> {
    ev.iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { chunk_index, .. } => Some(*chunk_index),
            _ => None,
        })
        .collect()
}
