//! The pure state machine from Cursor Agent's `--output-format stream-json`
//! NDJSON to [`AgentEvent`]s, written from Cursor's public reference
//! (cursor.com/docs/cli/reference/output-format): `system`/`init`
//! (session_id, model), `assistant` (one line per whole message),
//! `tool_call` `started`/`completed` with the call under a `<name>ToolCall`
//! key holding `args` and `result` (`success` / `error` / `rejected`), and
//! a terminal `result` (`subtype`, `is_error`, `result`, `session_id`).
//! Fixture-only: never run against the real binary here.

use crate::catalog::CliEntry;
use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus,
};
use serde_json::Value;

use crate::process::classify_stderr;
use crate::process::oneshot::{
    error_end, generic_fix, object_line, turn_marks, Closing, LineMap, TurnExit, TurnMarks,
};

/// Normalizes one `cursor-agent -p` turn.
#[derive(Debug, Default)]
pub(crate) struct CursorNormalizer {
    turn: TurnMarks,
    /// Lines that were not JSON objects or had an unknown `type`.
    pub skipped_lines: usize,
}

impl CursorNormalizer {
    /// A normalizer for a new turn.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn start(&mut self, v: &Value, out: &mut Vec<AgentEvent>) {
        self.turn
            .start(str_of(v, "session_id"), str_of(v, "model"), out);
    }

    fn on_value(&mut self, v: &Value, out: &mut Vec<AgentEvent>) {
        let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
        match kind {
            "system" => self.start(v, out),
            "assistant" => {
                self.start(v, out);
                let text = content_text(v.pointer("/message/content"));
                if !text.is_empty() {
                    out.push(AgentEvent::TextDelta(text));
                }
            }
            "thinking" => {
                self.start(v, out);
                if let Some(t) = str_of(v, "text").filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::ReasoningDelta(t));
                }
            }
            "tool_call" => {
                self.start(v, out);
                self.on_tool(v, out);
            }
            "result" => {
                self.start(v, out);
                self.turn.ended = true;
                let is_error = v.get("is_error").and_then(Value::as_bool).unwrap_or(false)
                    || str_of(v, "subtype").is_some_and(|s| s != "success");
                if is_error {
                    let msg = str_of(v, "result")
                        .or_else(|| str_of(v, "error"))
                        .unwrap_or_else(|| "the run failed".into());
                    let code = classify_stderr(&msg).unwrap_or(ErrorCode::ProcessCrashed);
                    out.push(AgentEvent::Error(
                        CohostError::new(code, format!("cursor-agent: {msg}"))
                            .with_fix(fix_for(code)),
                    ));
                }
                out.push(AgentEvent::Ended {
                    reason: if is_error {
                        EndReason::Error
                    } else {
                        EndReason::Completed
                    },
                    usage: None,
                });
            }
            // `user` echoes the prompt; anything else is newer than the docs.
            "user" => {}
            _ => self.skipped_lines += 1,
        }
    }

    fn on_tool(&mut self, v: &Value, out: &mut Vec<AgentEvent>) {
        let tool_id = str_of(v, "call_id").unwrap_or_else(|| "cursor-tool".into());
        let Some((key, call)) = v
            .get("tool_call")
            .and_then(Value::as_object)
            .and_then(|m| m.iter().next())
        else {
            self.skipped_lines += 1;
            return;
        };
        let name = key.strip_suffix("ToolCall").unwrap_or(key).to_string();
        match str_of(v, "subtype").as_deref() {
            Some("started") => out.push(AgentEvent::ToolCall(ToolCallInfo {
                tool_id,
                kind: tool_kind(&name),
                name,
                input: call.get("args").cloned().unwrap_or(Value::Null),
            })),
            Some("completed") => {
                let result = call.get("result");
                let (status, body) = if let Some(s) = result.and_then(|r| r.get("success")) {
                    (ToolStatus::Ok, s)
                } else if let Some(r) = result.and_then(|r| r.get("rejected")) {
                    (ToolStatus::Denied, r)
                } else {
                    (
                        ToolStatus::Error,
                        result.and_then(|r| r.get("error")).unwrap_or(&Value::Null),
                    )
                };
                out.push(AgentEvent::ToolExecuted {
                    tool_id,
                    status,
                    output: preview(body),
                });
            }
            _ => self.skipped_lines += 1,
        }
    }
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// The most useful text of a result body: `content`, `stdout`, `message`,
/// else the JSON itself.
fn preview(body: &Value) -> String {
    for k in ["content", "stdout", "output", "message", "reason"] {
        if let Some(s) = body.get(k).and_then(Value::as_str) {
            return s.to_string();
        }
    }
    match body {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn tool_kind(name: &str) -> ToolKind {
    match name {
        "shell" => ToolKind::Execute,
        "read" => ToolKind::Read,
        "write" | "edit" => ToolKind::Edit,
        "delete" => ToolKind::Delete,
        "grep" | "glob" | "ls" => ToolKind::Search,
        "todo" | "updateTodos" => ToolKind::Think,
        other => ToolKind::from_tool_name(other),
    }
}

fn fix_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => "run `cursor-agent login` or set CURSOR_API_KEY",
        _ => generic_fix(code),
    }
}

impl LineMap for CursorNormalizer {
    const NAME: &'static str = "cursor-agent";
    // `NAME` is no provider id of the list: no login fix of its own.
    const SPEC: Option<&'static CliEntry> = None;
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(v) = object_line(line, false, &mut self.skipped_lines) {
            self.on_value(&v, out);
        }
    }
    const FIX: fn(ErrorCode) -> &'static str = fix_for;
    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let (stderr, interrupted) = (how.stderr, how.interrupted);
        // Cursor's own wording, which the shared classifier does not know.
        let lower = stderr.to_ascii_lowercase();
        if !interrupted && lower.contains("authentication required") {
            let line = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            out.extend(error_end(
                CohostError::new(
                    ErrorCode::AuthRequired,
                    format!("cursor-agent: {}", line.trim()),
                )
                .with_fix(fix_for(ErrorCode::AuthRequired)),
            ));
            return Closing::Closed;
        }
        Closing::Usual { interrupted }
    }
}
