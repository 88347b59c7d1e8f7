//! The pure state machine from `goose run --output-format stream-json`
//! NDJSON to [`AgentEvent`]s, written from goose's CLI docs
//! (block.github.io/goose/docs/guides/goose-cli-commands, `run` options)
//! and the event shapes of its `stream-json` writer: `message` (a goose
//! `Message`: role + content items `text`, `thinking`, `toolRequest`,
//! `toolResponse`), `notification`, `error`, and a terminal `complete`
//! (`total_tokens`). Fixture-only: never run against the real binary here.

use crate::catalog::CliEntry;
use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};
use serde_json::Value;

use crate::process::classify_stderr;
use crate::process::oneshot::{
    generic_fix, object_line, turn_marks, Closing, LineMap, TurnExit, TurnMarks,
};

/// Normalizes one `goose run` turn.
#[derive(Debug, Default)]
pub(crate) struct GooseNormalizer {
    session: Option<String>,
    turn: TurnMarks,
    errored: bool,
    /// Lines that were not events cohost knows.
    pub skipped_lines: usize,
}

impl GooseNormalizer {
    /// A normalizer for a turn of the named goose session.
    pub(crate) fn new(session: Option<String>) -> Self {
        GooseNormalizer {
            session,
            ..Self::default()
        }
    }

    fn start(&mut self, out: &mut Vec<AgentEvent>) {
        self.turn.start(self.session.clone(), None, out);
    }

    fn on_value(&mut self, v: &Value, out: &mut Vec<AgentEvent>) {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "message" => {
                self.start(out);
                let items = v.pointer("/message/content").and_then(Value::as_array);
                for item in items.into_iter().flatten() {
                    self.on_content(item, out);
                }
            }
            "error" => {
                self.start(out);
                self.errored = true;
                let msg = v
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("goose reported an error");
                let code = classify_stderr(msg).unwrap_or(ErrorCode::ProcessCrashed);
                out.push(AgentEvent::Error(
                    CohostError::new(code, format!("goose: {msg}")).with_fix(generic_fix(code)),
                ));
            }
            "complete" => {
                self.start(out);
                self.turn.ended = true;
                let usage = v
                    .get("total_tokens")
                    .and_then(Value::as_u64)
                    .map(|t| Usage {
                        // goose reports one total; cohost cannot split it honestly.
                        output_tokens: t,
                        ..Usage::default()
                    });
                out.push(AgentEvent::Ended {
                    reason: if self.errored {
                        EndReason::Error
                    } else {
                        EndReason::Completed
                    },
                    usage,
                });
            }
            "notification" => self.start(out),
            _ => self.skipped_lines += 1,
        }
    }

    fn on_content(&mut self, item: &Value, out: &mut Vec<AgentEvent>) {
        let s = |k: &str| item.get(k).and_then(Value::as_str);
        match s("type").unwrap_or("") {
            "text" => {
                if let Some(t) = s("text").filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::TextDelta(t.to_string()));
                }
            }
            "thinking" => {
                if let Some(t) = s("thinking").filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::ReasoningDelta(t.to_string()));
                }
            }
            "toolRequest" => {
                let id = s("id").unwrap_or("goose-tool").to_string();
                let call = item.pointer("/toolCall/value");
                let name = call
                    .and_then(|c| c.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("tool")
                    .to_string();
                out.push(AgentEvent::ToolCall(ToolCallInfo {
                    tool_id: id,
                    kind: tool_kind(&name),
                    input: call
                        .and_then(|c| c.get("arguments"))
                        .cloned()
                        .unwrap_or(Value::Null),
                    name,
                }));
            }
            "toolResponse" => {
                let id = s("id").unwrap_or("goose-tool").to_string();
                let result = item.get("toolResult");
                let ok =
                    result.and_then(|r| r.get("status")).and_then(Value::as_str) == Some("success");
                let value = result.and_then(|r| r.get("value"));
                let output = match value {
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    Some(Value::String(e)) => e.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let denied = !ok && output.to_ascii_lowercase().contains("declined");
                out.push(AgentEvent::ToolExecuted {
                    tool_id: id,
                    status: if ok {
                        ToolStatus::Ok
                    } else if denied {
                        ToolStatus::Denied
                    } else {
                        ToolStatus::Error
                    },
                    output,
                });
            }
            _ => {}
        }
    }
}

/// goose names tools `<extension>__<tool>` (`developer__shell`).
fn tool_kind(name: &str) -> ToolKind {
    let short = name.rsplit("__").next().unwrap_or(name);
    match short {
        "shell" => ToolKind::Execute,
        "text_editor" => ToolKind::Edit,
        other => ToolKind::from_tool_name(other),
    }
}

impl LineMap for GooseNormalizer {
    const NAME: &'static str = "goose";
    const SPEC: Option<&'static CliEntry> = Some(&crate::goose::SPEC);
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(v) = object_line(line, false, &mut self.skipped_lines) {
            self.on_value(&v, out);
        }
    }
    fn open(&mut self, out: &mut Vec<AgentEvent>) {
        self.start(out);
    }
    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let interrupted = how.interrupted;
        if self.errored && !interrupted {
            out.push(AgentEvent::Ended {
                reason: EndReason::Error,
                usage: None,
            });
            return Closing::Closed;
        }
        Closing::Usual { interrupted }
    }
}
