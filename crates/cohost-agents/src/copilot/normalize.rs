//! The pure state machine from Copilot CLI's JSONL to [`AgentEvent`]s.
//!
//! Deltas are forwarded as they come; a whole `assistant.message` /
//! `assistant.reasoning` only adds text when no delta of that message was
//! seen (`--stream off`), so nothing is printed twice. Tool calls come from
//! `toolRequests` (or `tool.execution_start` when a call was not announced),
//! results from `tool.execution_complete` (`error.code == "denied"` means
//! the headless permission check refused it). `abort` marks the turn
//! interrupted; the `result` line closes it.

use crate::catalog::CliEntry;
use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};
use std::collections::HashSet;

use super::wire::{CopilotEvent, RunResult, SessionError, ToolComplete};
use crate::process::classify_stderr;
#[cfg(test)]
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{
    generic_fix, parse_line, turn_marks, Closing, LineMap, TurnExit, TurnMarks,
};

/// Normalizes one `copilot -p` turn.
#[derive(Debug, Default)]
pub(crate) struct CopilotNormalizer {
    session_id: Option<String>,
    turn: TurnMarks,
    aborted: bool,
    errored: bool,
    streamed: HashSet<String>,
    calls: HashSet<String>,
    usage: Option<Usage>,
    /// Lines that were not JSON objects (logged, skipped).
    pub skipped_lines: usize,
}

impl CopilotNormalizer {
    /// A normalizer for a turn in `session_id` (known up front when cohost
    /// chose it with `--session-id`, or resumed it).
    pub(crate) fn new(session_id: Option<String>) -> Self {
        CopilotNormalizer {
            session_id,
            ..Self::default()
        }
    }

    fn start(&mut self, model: Option<String>, out: &mut Vec<AgentEvent>) {
        self.turn.start(self.session_id.clone(), model, out);
    }

    fn on_event(&mut self, ev: CopilotEvent, out: &mut Vec<AgentEvent>) {
        match ev {
            CopilotEvent::MessageDelta { data } => {
                self.start(None, out);
                if let Some(id) = data.message_id {
                    self.streamed.insert(id);
                }
                if !data.delta_content.is_empty() {
                    out.push(AgentEvent::TextDelta(data.delta_content));
                }
            }
            CopilotEvent::ReasoningDelta { data } => {
                self.start(None, out);
                if let Some(id) = data.reasoning_id {
                    self.streamed.insert(id);
                }
                if !data.delta_content.is_empty() {
                    out.push(AgentEvent::ReasoningDelta(data.delta_content));
                }
            }
            CopilotEvent::Message { data } => {
                self.start(data.model.clone(), out);
                let seen = data
                    .message_id
                    .as_ref()
                    .is_some_and(|id| self.streamed.contains(id));
                if !seen && !data.content.is_empty() {
                    out.push(AgentEvent::TextDelta(data.content));
                }
                for t in data.tool_requests {
                    self.call(t.tool_call_id, t.name, t.arguments, out);
                }
            }
            CopilotEvent::Reasoning { data } => {
                self.start(None, out);
                let seen = data
                    .reasoning_id
                    .as_ref()
                    .is_some_and(|id| self.streamed.contains(id));
                if !seen && !data.content.is_empty() {
                    out.push(AgentEvent::ReasoningDelta(data.content));
                }
            }
            CopilotEvent::ToolStart { data } => {
                self.start(None, out);
                self.call(data.tool_call_id, data.tool_name, data.arguments, out);
            }
            CopilotEvent::ToolComplete { data } => {
                self.start(None, out);
                out.push(tool_done(data));
            }
            CopilotEvent::Usage { data } => self.on_usage(&data, out),
            CopilotEvent::SessionError { data } => {
                self.start(None, out);
                self.errored = true;
                out.push(AgentEvent::Error(session_error(data)));
            }
            CopilotEvent::Abort { .. } => {
                self.start(None, out);
                self.aborted = true;
            }
            CopilotEvent::Result(r) => self.on_result(r, out),
            CopilotEvent::Unknown => {}
        }
    }

    fn call(
        &mut self,
        tool_id: String,
        name: String,
        input: serde_json::Value,
        out: &mut Vec<AgentEvent>,
    ) {
        if !self.calls.insert(tool_id.clone()) {
            return; // Announced in the message already.
        }
        out.push(AgentEvent::ToolCall(ToolCallInfo {
            tool_id,
            kind: tool_kind(&name),
            name,
            input,
        }));
    }

    fn on_usage(&mut self, data: &serde_json::Value, out: &mut Vec<AgentEvent>) {
        let n = |k: &str| data.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let mut u = self.usage.unwrap_or_default();
        u.input_tokens += n("inputTokens");
        u.output_tokens += n("outputTokens");
        u.cache_read_tokens += n("cacheReadTokens");
        u.cache_write_tokens += n("cacheWriteTokens");
        self.usage = Some(u);
        out.push(AgentEvent::Usage(u));
    }

    fn on_result(&mut self, r: RunResult, out: &mut Vec<AgentEvent>) {
        if self.session_id.is_none() {
            self.session_id = r.session_id;
        }
        self.start(None, out);
        self.turn.ended = true;
        let reason = if self.aborted {
            EndReason::Interrupted
        } else if self.errored || r.exit_code.is_some_and(|c| c != 0) {
            if !self.errored {
                out.push(AgentEvent::Error(
                    CohostError::new(
                        ErrorCode::ProcessCrashed,
                        format!(
                            "copilot finished with exit code {}",
                            r.exit_code.unwrap_or(-1)
                        ),
                    )
                    .with_fix("run the same prompt with `copilot -p` to see its own message"),
                ));
            }
            EndReason::Error
        } else {
            EndReason::Completed
        };
        out.push(AgentEvent::Ended {
            reason,
            usage: self.usage,
        });
    }
}

fn tool_done(data: ToolComplete) -> AgentEvent {
    let (status, output) = match (data.success, data.error) {
        (true, _) => (
            ToolStatus::Ok,
            data.result.map(|r| r.content).unwrap_or_default(),
        ),
        (false, Some(e)) if e.code.as_deref() == Some("denied") => (ToolStatus::Denied, e.message),
        (false, Some(e)) => (ToolStatus::Error, e.message),
        (false, None) => (
            ToolStatus::Error,
            data.result.map(|r| r.content).unwrap_or_default(),
        ),
    };
    AgentEvent::ToolExecuted {
        tool_id: data.tool_call_id,
        status,
        output,
    }
}

fn session_error(data: SessionError) -> CohostError {
    let code = match data.error_type.as_str() {
        "authentication" => ErrorCode::AuthRequired,
        "rate_limit" | "rateLimit" => ErrorCode::RateLimited,
        "context_length" | "contextLength" => ErrorCode::ContextWindowExceeded,
        _ => {
            let status = data
                .status_code
                .map(|s| format!(" status {s}"))
                .unwrap_or_default();
            classify_stderr(&format!("{}{status}", data.message))
                .unwrap_or(ErrorCode::ProcessCrashed)
        }
    };
    let first = data.message.lines().next().unwrap_or("session error");
    CohostError::new(code, format!("copilot: {first}")).with_fix(fix_for(code))
}

fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" | "shell" | "powershell" => ToolKind::Execute,
        "view" | "read" => ToolKind::Read,
        "edit" | "create" | "str_replace_editor" | "apply_patch" => ToolKind::Edit,
        "grep" | "glob" | "rg" => ToolKind::Search,
        "web_fetch" => ToolKind::Fetch,
        other => ToolKind::from_tool_name(other),
    }
}

fn fix_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => {
            "check COPILOT_PROVIDER_API_KEY (bring-your-own-key) or run `copilot login`"
        }
        _ => generic_fix(code),
    }
}

impl LineMap for CopilotNormalizer {
    const NAME: &'static str = "copilot";
    const SPEC: Option<&'static CliEntry> = Some(&crate::copilot::SPEC);
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(ev) = parse_line::<CopilotEvent>(line, false, &mut self.skipped_lines) {
            self.on_event(ev, out);
        }
    }
    fn open(&mut self, out: &mut Vec<AgentEvent>) {
        self.start(None, out);
    }
    const FIX: fn(ErrorCode) -> &'static str = fix_for;
    fn close(&mut self, how: TurnExit<'_>, _out: &mut Vec<AgentEvent>) -> Closing {
        let interrupted = how.interrupted;
        Closing::Usual {
            interrupted: interrupted || self.aborted,
        }
    }
}

#[cfg(test)]
mod tests;
