//! Reading the host events of one turn: the answer text, how many
//! approvals were asked, how many chunks came. Shared by the drift check;
//! E2E tests may use them instead of their own copies.

use cohost_core::{Event, EventBody};

/// The answer: every `stream_chunk` delta, in order.
pub fn answer_text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::StreamChunk { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// How many `tool_approval_requested` events came.
pub fn approvals_asked(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::ToolApprovalRequested { .. }))
        .count()
}

/// How many `stream_chunk` events came.
pub fn chunk_count(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e.body, EventBody::StreamChunk { .. }))
        .count()
}
