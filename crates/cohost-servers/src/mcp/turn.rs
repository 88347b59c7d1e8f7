//! What an MCP client sees of a session's current turn: the answer so far,
//! the tool calls, pending approvals, usage and how it ended. One task per
//! session folds the engine's events into a [`TurnReport`] held in a watch
//! channel, so `ask_agent`, `wait` and `session_status` read the same state
//! and a waiter wakes on every change.

use std::time::{Duration, Instant};

use cohost_core::{
    ApprovalOption, CohostError, DecisionOrigin, EndReason, Event, EventBody, ToolKind, ToolStatus,
    Usage,
};
use serde::Serialize;
use std::sync::Arc;
use tokio::sync::watch;

use crate::hub::HubSession;

/// One tool call of the turn, as the result summarises it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolSummary {
    /// The agent's id for the call.
    pub tool_id: String,
    /// Tool name as the agent calls it.
    pub name: String,
    /// Normalized kind.
    pub kind: ToolKind,
    /// The decision, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<ApprovalOption>,
    /// Who decided (`user`, `deadline`, `policy`, `cancelled`…).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecisionOrigin>,
    /// How it ran, once known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ToolStatus>,
}

/// An approval waiting for the client.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PendingView {
    /// The call to decide on (pass it to `resolve_approval`).
    pub tool_id: String,
    /// Tool name.
    pub name: String,
    /// Normalized kind.
    pub kind: ToolKind,
    /// Arguments (sanitized by the engine).
    pub input: serde_json::Value,
    /// Options the agent accepts.
    pub options: Vec<ApprovalOption>,
    /// Milliseconds left before it is denied.
    pub expires_in_ms: u64,
    #[serde(skip)]
    deadline: Option<Instant>,
}

impl PendingView {
    /// The view with its time left brought up to date.
    pub fn now(&self) -> PendingView {
        let mut p = self.clone();
        p.expires_in_ms = self.deadline.map_or(0, |d| {
            u64::try_from(d.saturating_duration_since(Instant::now()).as_millis())
                .unwrap_or(u64::MAX)
        });
        p
    }
}

/// The state of a session's latest turn.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct TurnReport {
    /// Turns started in this server (1 for the first).
    pub turn: u64,
    /// Whether the turn is still running.
    pub running: bool,
    /// The answer text so far.
    pub answer: String,
    /// Reasoning characters seen (the text itself is not repeated).
    pub reasoning_chars: usize,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolSummary>,
    /// Approvals waiting for a decision.
    pub pending_approvals: Vec<PendingView>,
    /// Token usage, when reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// How the turn ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<EndReason>,
    /// The error that ended it (code, message, fix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CohostError>,
    /// The agent's own session id, once known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub native_session_id: Option<String>,
}

impl TurnReport {
    /// The report with each pending approval's time left brought up to date.
    pub fn now(&self) -> TurnReport {
        let mut r = self.clone();
        r.pending_approvals = self
            .pending_approvals
            .iter()
            .map(PendingView::now)
            .collect();
        r
    }

    /// Fold one engine event in.
    pub fn apply(&mut self, ev: &Event) {
        match &ev.body {
            EventBody::StreamStart { session_id, .. } => {
                // A turn nobody began here (a steer that waited in the
                // queue) is a new turn all the same.
                if !self.running {
                    *self = TurnReport {
                        turn: self.turn + 1,
                        running: true,
                        native_session_id: self.native_session_id.take(),
                        ..TurnReport::default()
                    };
                }
                if let Some(id) = session_id {
                    self.native_session_id = Some(id.clone());
                }
            }
            EventBody::StreamChunk { delta, .. } => self.answer.push_str(delta),
            EventBody::ReasoningChunk { delta, .. } => self.reasoning_chars += delta.len(),
            EventBody::ToolCall {
                tool_id,
                name,
                kind,
                ..
            } => self.tool(tool_id, name, *kind),
            EventBody::ToolApprovalRequested {
                tool_id,
                name,
                kind,
                input,
                options,
                deadline_ms,
            } => {
                self.tool(tool_id, name, *kind);
                self.pending_approvals.retain(|p| p.tool_id != *tool_id);
                self.pending_approvals.push(PendingView {
                    tool_id: tool_id.clone(),
                    name: name.clone(),
                    kind: *kind,
                    input: input.clone(),
                    options: options.clone(),
                    expires_in_ms: *deadline_ms,
                    deadline: Instant::now().checked_add(Duration::from_millis(*deadline_ms)),
                });
            }
            EventBody::ToolApprovalDecided {
                tool_id,
                decision,
                origin,
                ..
            } => {
                self.pending_approvals.retain(|p| p.tool_id != *tool_id);
                if let Some(t) = self.tool_calls.iter_mut().find(|t| t.tool_id == *tool_id) {
                    t.decision = Some(*decision);
                    t.decided_by = Some(*origin);
                }
            }
            EventBody::ToolExecuted {
                tool_id, status, ..
            } => {
                if let Some(t) = self.tool_calls.iter_mut().find(|t| t.tool_id == *tool_id) {
                    t.status = Some(*status);
                }
            }
            EventBody::Usage(u) => self.usage = Some(*u),
            EventBody::Error(e) => self.error = Some(e.clone()),
            EventBody::StreamEnd { reason, usage } => {
                self.running = false;
                self.end_reason = Some(*reason);
                if usage.is_some() {
                    self.usage = *usage;
                }
                self.pending_approvals.clear();
            }
            _ => {}
        }
    }

    fn tool(&mut self, tool_id: &str, name: &str, kind: ToolKind) {
        if !self.tool_calls.iter().any(|t| t.tool_id == tool_id) {
            self.tool_calls.push(ToolSummary {
                tool_id: tool_id.to_string(),
                name: name.to_string(),
                kind,
                decision: None,
                decided_by: None,
                status: None,
            });
        }
    }
}

/// The watch of one session's turn, fed by a task reading its events.
pub struct TurnTracker {
    state: watch::Sender<TurnReport>,
}

impl TurnTracker {
    /// Follow a session's events until its broadcast closes; the session
    /// is marked idle when a turn ends (held weakly: the tracker never keeps
    /// an ended session alive).
    pub fn follow(session: &Arc<HubSession>) -> TurnTracker {
        let mut events = session.live.subscribe_new();
        let weak = Arc::downgrade(session);
        let (state, _) = watch::channel(TurnReport::default());
        let tx = state.clone();
        tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(Some(ev)) => {
                        tx.send_modify(|r| r.apply(&ev));
                        if matches!(ev.body, EventBody::StreamEnd { .. }) {
                            if let Some(s) = weak.upgrade() {
                                s.end_turn();
                            }
                        }
                    }
                    Ok(None) => break,
                    Err(lagged) => {
                        tracing::warn!(%lagged, "the MCP turn tracker");
                        break;
                    }
                }
            }
            tx.send_modify(|r| r.running = false);
        });
        TurnTracker { state }
    }

    /// Mark a new turn as started; refused while one runs.
    pub fn begin(&self) -> Result<u64, CohostError> {
        let mut started = None;
        self.state.send_if_modified(|r| {
            if r.running {
                return false;
            }
            let turn = r.turn + 1;
            *r = TurnReport {
                turn,
                running: true,
                native_session_id: r.native_session_id.take(),
                ..TurnReport::default()
            };
            started = Some(turn);
            true
        });
        started.ok_or_else(|| {
            CohostError::new(
                cohost_core::ErrorCode::ConfigInvalid,
                "the session is still running a turn",
            )
            .with_fix("call wait (or interrupt) first, then continue_session")
        })
    }

    /// Undo [`TurnTracker::begin`] when the prompt could not be queued.
    pub fn abort(&self, err: &CohostError) {
        let err = err.clone();
        self.state.send_modify(|r| {
            r.running = false;
            r.end_reason = Some(EndReason::Error);
            r.error = Some(err);
        });
    }

    /// A receiver of every change.
    pub fn subscribe(&self) -> watch::Receiver<TurnReport> {
        self.state.subscribe()
    }

    /// The current report.
    pub fn report(&self) -> TurnReport {
        self.state.borrow().now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(body: EventBody) -> Event {
        Event {
            id: "e".into(),
            prompt_id: "p".into(),
            correlation_id: "c".into(),
            ts: 0,
            agent: None,
            body,
        }
    }

    #[test]
    fn a_turn_folds_into_answer_tools_and_end() {
        let mut r = TurnReport {
            running: true,
            ..TurnReport::default()
        };
        for body in [
            EventBody::StreamChunk {
                stream_id: "s".into(),
                chunk_index: 0,
                delta: "hel".into(),
            },
            EventBody::ToolApprovalRequested {
                tool_id: "t1".into(),
                name: "write_file".into(),
                kind: ToolKind::Edit,
                input: serde_json::json!({}),
                options: vec![ApprovalOption::AllowOnce, ApprovalOption::RejectOnce],
                deadline_ms: 5000,
            },
        ] {
            r.apply(&ev(body));
        }
        assert_eq!(r.pending_approvals.len(), 1);
        assert!(r.now().pending_approvals[0].expires_in_ms <= 5000);
        r.apply(&ev(EventBody::ToolApprovalDecided {
            tool_id: "t1".into(),
            decision: ApprovalOption::RejectOnce,
            origin: DecisionOrigin::User,
            deciders: Vec::new(),
        }));
        r.apply(&ev(EventBody::StreamChunk {
            stream_id: "s".into(),
            chunk_index: 1,
            delta: "lo".into(),
        }));
        r.apply(&ev(EventBody::StreamEnd {
            reason: EndReason::Completed,
            usage: None,
        }));
        assert_eq!(r.answer, "hello");
        assert!(r.pending_approvals.is_empty());
        assert_eq!(r.tool_calls[0].decision, Some(ApprovalOption::RejectOnce));
        assert!(!r.running);
        assert_eq!(r.end_reason, Some(EndReason::Completed));
    }
}
