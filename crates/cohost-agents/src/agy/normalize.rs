//! The pure state machine from Antigravity's (`agy`) stream-json NDJSON to
//! [`AgentEvent`]s, written from seed 003 (`/work/shared/seeds/003_*`, the
//! pi-antigravity provider notes): `init` binds the conversation
//! (`conversation_id`), `step_update` carries `user_input` / `checkpoint` /
//! `agent_response` / `tool` steps (answer text as `text_delta`, with
//! `usage`), `result` is terminal (`status` `SUCCESS`, older builds `OK`).
//! Unknown kinds are skipped. Fixture-only: never run against a real agy.

use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};
use serde_json::Value;

use crate::process::classify_stderr;
#[cfg(test)]
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{generic_fix, object_line, turn_marks, LineMap, TurnMarks};

/// Normalizes one agy turn.
#[derive(Debug, Default)]
pub(crate) struct AgyNormalizer {
    turn: TurnMarks,
    usage: Option<Usage>,
    /// Lines that were not events cohost knows.
    pub skipped_lines: usize,
}

impl AgyNormalizer {
    /// A normalizer for a new turn.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn start(
        &mut self,
        conversation: Option<String>,
        model: Option<String>,
        out: &mut Vec<AgentEvent>,
    ) {
        self.turn.start(conversation, model, out);
    }

    fn on_value(&mut self, v: &Value, out: &mut Vec<AgentEvent>) {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        match s("type").as_deref().unwrap_or("") {
            "init" => self.start(s("conversation_id"), s("model"), out),
            "step_update" => {
                self.start(None, None, out);
                let step = v.get("step").unwrap_or(v);
                self.on_step(step, out);
            }
            "result" => {
                self.start(None, None, out);
                self.turn.ended = true;
                let status = s("status").unwrap_or_default();
                if matches!(status.as_str(), "SUCCESS" | "OK") {
                    out.push(AgentEvent::Ended {
                        reason: EndReason::Completed,
                        usage: self.usage,
                    });
                } else if matches!(status.as_str(), "CANCELLED" | "ABORTED") {
                    out.push(AgentEvent::Ended {
                        reason: EndReason::Interrupted,
                        usage: self.usage,
                    });
                } else {
                    let msg = s("error").unwrap_or_else(|| format!("status {status}"));
                    let code = classify_stderr(&msg).unwrap_or(ErrorCode::ProcessCrashed);
                    out.push(AgentEvent::Error(
                        CohostError::new(code, format!("agy: {msg}")).with_fix(generic_fix(code)),
                    ));
                    out.push(AgentEvent::Ended {
                        reason: EndReason::Error,
                        usage: self.usage,
                    });
                }
            }
            _ => self.skipped_lines += 1,
        }
    }

    fn on_step(&mut self, step: &Value, out: &mut Vec<AgentEvent>) {
        let s = |k: &str| step.get(k).and_then(Value::as_str);
        let kind = s("kind").or_else(|| s("step_type")).unwrap_or("");
        match kind {
            "agent_response" => {
                if let Some(t) = s("thinking_delta").filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::ReasoningDelta(t.to_string()));
                }
                if let Some(t) = s("text_delta").filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::TextDelta(t.to_string()));
                }
                if let Some(u) = step.get("usage") {
                    self.on_usage(u, out);
                }
            }
            "tool" => {
                let id = s("step_id")
                    .or_else(|| s("id"))
                    .unwrap_or("agy-tool")
                    .to_string();
                let name = s("tool_name").unwrap_or("tool").to_string();
                match s("status").unwrap_or("") {
                    "running" | "pending" => out.push(AgentEvent::ToolCall(ToolCallInfo {
                        tool_id: id,
                        kind: ToolKind::from_tool_name(&name),
                        name,
                        input: step.get("input").cloned().unwrap_or(Value::Null),
                    })),
                    "completed" | "error" | "denied" => out.push(AgentEvent::ToolExecuted {
                        tool_id: id,
                        status: match s("status") {
                            Some("completed") => ToolStatus::Ok,
                            Some("denied") => ToolStatus::Denied,
                            _ => ToolStatus::Error,
                        },
                        output: s("output").unwrap_or("").to_string(),
                    }),
                    _ => self.skipped_lines += 1,
                }
            }
            // The echoed prompt and checkpoints carry nothing to show.
            "user_input" | "checkpoint" => {}
            _ => self.skipped_lines += 1,
        }
    }

    fn on_usage(&mut self, u: &Value, out: &mut Vec<AgentEvent>) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        let usage = Usage {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            reasoning_tokens: n("thinking_tokens"),
            cache_read_tokens: n("cache_read_tokens"),
            cache_write_tokens: 0,
        };
        self.usage = Some(usage);
        out.push(AgentEvent::Usage(usage));
    }
}

impl LineMap for AgyNormalizer {
    const NAME: &'static str = "agy";
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(v) = object_line(line, false, &mut self.skipped_lines) {
            self.on_value(&v, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::oneshot::replay_fixture;

    #[test]
    fn init_deltas_tools_usage_result() {
        let ev = replay_fixture("agy", "seed003", "turn", AgyNormalizer::new());
        assert_eq!(
            ev[0],
            AgentEvent::Started {
                session_id: Some("c0ffee00-1111-4222-8333-444455556666".into()),
                model: Some("gemini-3-pro".into())
            }
        );
        let text: String = ev
            .iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "The README has one heading.");
        assert!(ev.iter().any(|e| matches!(e, AgentEvent::ToolCall(c) if c.name == "view_file" && c.kind == ToolKind::Read)));
        assert!(ev.iter().any(|e| matches!(
            e,
            AgentEvent::ToolExecuted {
                status: ToolStatus::Ok,
                ..
            }
        )));
        assert!(
            matches!(ev.last(), Some(AgentEvent::Ended { reason: EndReason::Completed, usage: Some(u) }) if u.output_tokens == 9 && u.cache_read_tokens == 100)
        );
    }

    #[test]
    fn old_ok_status_and_failures() {
        let mut n = AgyNormalizer::new();
        let ev = n.on_line("{\"type\":\"result\",\"status\":\"OK\"}");
        assert!(matches!(
            ev.last(),
            Some(AgentEvent::Ended {
                reason: EndReason::Completed,
                ..
            })
        ));
        let mut n = AgyNormalizer::new();
        let ev = n.on_line(
            "{\"type\":\"result\",\"status\":\"ERROR\",\"error\":\"RESOURCE_EXHAUSTED: quota\"}",
        );
        assert!(ev
            .iter()
            .any(|e| matches!(e, AgentEvent::Error(err) if err.code == ErrorCode::RateLimited)));
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let mut n = AgyNormalizer::new();
        for l in [
            "x",
            "{\"type\":\"telemetry\"}",
            "{\"type\":\"step_update\",\"step\":{\"kind\":\"mystery\"}}",
            "{\"type\":\"step_update\",\"step\":{\"kind\":\"agent_response\",\"text_delta\":[1]}}",
        ] {
            n.on_line(l);
        }
        assert_eq!(n.skipped_lines, 3);
        assert!(!n.ended());
    }
}
