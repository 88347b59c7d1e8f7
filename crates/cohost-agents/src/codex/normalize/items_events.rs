//! Turn notifications: deltas, items, usage, errors, the end of the turn.

use cohost_core::{AgentEvent, ApprovalMode, CohostError, EndReason, ErrorCode};
use serde_json::Value;

use super::super::errors::map_error;
use super::super::items::tool_call;
use super::super::wire::{self, DeltaParams, ItemParams, ThreadItem};
use super::{Action, AppServerCore};

impl AppServerCore {
    pub(super) fn delta(&mut self, params: Value, reasoning: bool) -> Vec<Action> {
        let (Some(turn), Ok(d)) = (
            self.turn.as_mut(),
            serde_json::from_value::<DeltaParams>(params),
        ) else {
            return Vec::new();
        };
        turn.delta_items.insert(d.item_id);
        if d.delta.is_empty() {
            return Vec::new();
        }
        vec![Action::Event(if reasoning {
            AgentEvent::ReasoningDelta(d.delta)
        } else {
            AgentEvent::TextDelta(d.delta)
        })]
    }

    pub(super) fn item(&mut self, params: Value, completed: bool) -> Vec<Action> {
        let auto = self.cfg.approval == ApprovalMode::AutoApprove;
        let (Some(turn), Ok(p)) = (
            self.turn.as_mut(),
            serde_json::from_value::<ItemParams>(params),
        ) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        match p.item {
            // Items streamed as deltas are done; the rest arrive whole.
            ThreadItem::AgentMessage { id, text } => {
                if completed && !turn.delta_items.contains(&id) && !text.is_empty() {
                    out.push(Action::Event(AgentEvent::TextDelta(text)));
                }
            }
            ThreadItem::Reasoning {
                id,
                summary,
                content,
            } => {
                let text = if summary.is_empty() { content } else { summary }.join("\n");
                if completed && !turn.delta_items.contains(&id) && !text.is_empty() {
                    out.push(Action::Event(AgentEvent::ReasoningDelta(text)));
                }
            }
            ThreadItem::Unknown => {}
            tool => {
                let Some((call, result)) = tool_call(tool) else {
                    return out;
                };
                let id = call.tool_id.clone();
                if !completed {
                    // Under `never` nothing will ask: report the call now.
                    // Otherwise hold it: an approval request may follow, and
                    // a call that needs a decision is not a plain tool_call.
                    if auto {
                        turn.announced.insert(id);
                        out.push(Action::Event(AgentEvent::ToolCall(call)));
                    } else {
                        turn.held.insert(id, call);
                    }
                    return out;
                }
                if turn.announced.insert(id.clone()) {
                    let call = turn.held.remove(&id).unwrap_or(call);
                    out.push(Action::Event(AgentEvent::ToolCall(call)));
                }
                if let Some((status, output)) = result {
                    out.push(Action::Event(AgentEvent::ToolExecuted {
                        tool_id: id,
                        status,
                        output,
                    }));
                }
            }
        }
        out
    }

    pub(super) fn usage(&mut self, params: Value) -> Vec<Action> {
        let (Some(turn), Ok(p)) = (
            self.turn.as_mut(),
            serde_json::from_value::<wire::TokenUsageParams>(params),
        ) else {
            return Vec::new();
        };
        // `thread/resume` replays the previous turn's usage, possibly after
        // our `turn/start`; count only updates for this turn's id (which is
        // always known before the model answers).
        if turn.id.as_deref() != Some(p.turn_id.as_str()) {
            return Vec::new();
        }
        let l = p.token_usage.last;
        let u = &mut turn.usage;
        u.input_tokens += l.input_tokens.saturating_sub(l.cached_input_tokens);
        u.cache_read_tokens += l.cached_input_tokens;
        u.cache_write_tokens += l.cache_write_input_tokens;
        u.output_tokens += l.output_tokens;
        u.reasoning_tokens += l.reasoning_output_tokens;
        vec![Action::Event(AgentEvent::Usage(*u))]
    }

    pub(super) fn error(&mut self, params: Value) -> Vec<Action> {
        let Ok(p) = serde_json::from_value::<wire::ErrorParams>(params) else {
            return Vec::new();
        };
        if p.will_retry {
            return vec![Action::Event(AgentEvent::Status {
                message: format!("codex is retrying: {}", p.error.message),
                retry_after_ms: None,
            })];
        }
        if let Some(t) = self.turn.as_mut() {
            t.errored = true;
        }
        vec![Action::Event(AgentEvent::Error(map_error(
            &p.error.message,
            &p.error.codex_error_info,
        )))]
    }

    pub(super) fn completed(&mut self, params: Value) -> Vec<Action> {
        let Some(turn) = self.turn.take() else {
            return Vec::new();
        };
        self.approvals.clear();
        let Ok(p) = serde_json::from_value::<wire::TurnParams>(params) else {
            return vec![Action::Event(AgentEvent::Ended {
                reason: EndReason::Error,
                usage: None,
            })];
        };
        let usage = (!turn.usage.is_empty()).then_some(turn.usage);
        let mut out = Vec::new();
        let reason = match p.turn.status.as_str() {
            "completed" => EndReason::Completed,
            "interrupted" => EndReason::Interrupted,
            _ => {
                if !turn.errored {
                    let e = match &p.turn.error {
                        Some(e) => map_error(&e.message, &e.codex_error_info),
                        None => CohostError::new(
                            ErrorCode::InvalidOutput,
                            format!("codex ended the turn with status `{}`", p.turn.status),
                        ),
                    };
                    out.push(Action::Event(AgentEvent::Error(e)));
                }
                EndReason::Error
            }
        };
        out.push(Action::Event(AgentEvent::Ended { reason, usage }));
        out
    }
}
