//! The pure state machine from `opencode run --format json` lines to
//! [`AgentEvent`]s.
//!
//! opencode prints finished parts only: each `text` part becomes one
//! `TextDelta`, each terminal `tool_use` part a `ToolCall` plus a
//! `ToolExecuted`, each `step_finish` adds to the turn's usage. There is no
//! closing line: the turn ends when the process exits 0 (see
//! [`OpenCodeNormalizer::on_exit`]).

use crate::catalog::CliEntry;
use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};

use super::wire::{Envelope, ErrorEvent, RunEvent};
use crate::process::classify_stderr;
#[cfg(test)]
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{
    generic_fix, parse_line, turn_marks, Closing, LineMap, TurnExit, TurnMarks,
};

/// What an OpenCode fork (Kilo Code's CLI) changes in a run's lines: the
/// name its errors carry and the fix for a sign-in failure. The JSON is
/// the same.
pub(crate) trait Vendor: std::fmt::Debug + Send + 'static {
    /// The name errors are prefixed with (`opencode: ...`).
    const NAME: &'static str;
    /// Its provider spec (the login fix of an `AUTH_REQUIRED` exit).
    const SPEC: &'static CliEntry;
    /// The fix of an `AUTH_REQUIRED` error.
    const AUTH_FIX: &'static str;
    /// The fix of a `PERMISSION_REQUIRED` error (run mode cannot ask).
    const PERMISSION_FIX: &'static str;
}

/// OpenCode itself.
#[derive(Debug, Default)]
pub(crate) struct OpenCode;

impl Vendor for OpenCode {
    const NAME: &'static str = "opencode";
    const SPEC: &'static CliEntry = &crate::opencode::SPEC;
    const AUTH_FIX: &'static str =
        "check the provider's apiKey in opencode.json or run `opencode auth login`";
    const PERMISSION_FIX: &'static str =
        "use the `opencode-acp` provider to be asked, or --approve all to let it run tools";
}

/// Normalizes one `opencode run` turn (or a fork's, `V`).
#[derive(Debug)]
pub(crate) struct OpenCodeNormalizer<V: Vendor = OpenCode> {
    vendor: std::marker::PhantomData<V>,
    turn: TurnMarks,
    usage: Usage,
    saw_usage: bool,
    errored: bool,
    /// Lines that were not JSON objects of a known shape (logged, skipped).
    pub skipped_lines: usize,
}

impl<V: Vendor> Default for OpenCodeNormalizer<V> {
    fn default() -> Self {
        OpenCodeNormalizer {
            vendor: std::marker::PhantomData,
            turn: TurnMarks::default(),
            usage: Usage::default(),
            saw_usage: false,
            errored: false,
            skipped_lines: 0,
        }
    }
}

impl<V: Vendor> OpenCodeNormalizer<V> {
    /// A normalizer for a new turn.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn start(&mut self, session: Option<&String>, out: &mut Vec<AgentEvent>) {
        self.turn.start(session.cloned(), None, out);
    }

    fn on_event(&mut self, ev: RunEvent, out: &mut Vec<AgentEvent>) {
        match ev {
            RunEvent::StepStart(e) => self.start(e.session_id.as_ref(), out),
            RunEvent::Text(e) => {
                self.start(e.session_id.as_ref(), out);
                if let Some(t) = e.part.text.filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::TextDelta(t));
                }
            }
            RunEvent::Reasoning(e) => {
                self.start(e.session_id.as_ref(), out);
                if let Some(t) = e.part.text.filter(|t| !t.is_empty()) {
                    out.push(AgentEvent::ReasoningDelta(t));
                }
            }
            RunEvent::ToolUse(e) => self.on_tool(e, out),
            RunEvent::StepFinish(e) => {
                self.start(e.session_id.as_ref(), out);
                if let Some(t) = e.part.tokens {
                    self.saw_usage = true;
                    self.usage.input_tokens += t.input;
                    self.usage.output_tokens += t.output;
                    self.usage.reasoning_tokens += t.reasoning;
                    self.usage.cache_read_tokens += t.cache.read;
                    self.usage.cache_write_tokens += t.cache.write;
                    out.push(AgentEvent::Usage(self.usage));
                }
            }
            RunEvent::Error(e) => self.on_error(e, out),
            RunEvent::Unknown => self.skipped_lines += 1,
        }
    }

    fn on_tool(&mut self, e: Envelope, out: &mut Vec<AgentEvent>) {
        self.start(e.session_id.as_ref(), out);
        let part = e.part;
        let name = part.tool.unwrap_or_else(|| "tool".into());
        let tool_id = part
            .call_id
            .or(part.id)
            .unwrap_or_else(|| format!("opencode-tool-{name}"));
        let state = part.state.unwrap_or_default();
        out.push(AgentEvent::ToolCall(ToolCallInfo {
            tool_id: tool_id.clone(),
            kind: tool_kind(&name),
            name,
            input: state.input,
        }));
        let (status, output) = match state.status.as_str() {
            "completed" => (ToolStatus::Ok, state.output.unwrap_or_default()),
            "error" => {
                let err = state.error.unwrap_or_default();
                // opencode's run mode auto-rejects `ask` permissions with this text.
                let denied = err.contains("rejected permission") || err.contains("denied");
                (
                    if denied {
                        ToolStatus::Denied
                    } else {
                        ToolStatus::Error
                    },
                    err,
                )
            }
            // Run mode prints tools only when they settle; anything else is
            // a newer format: report the call, not a result we do not have.
            _ => return,
        };
        out.push(AgentEvent::ToolExecuted {
            tool_id,
            status,
            output,
        });
    }

    fn on_error(&mut self, e: ErrorEvent, out: &mut Vec<AgentEvent>) {
        self.start(e.session_id.as_ref(), out);
        // opencode sends `{name, data: {message, statusCode?}}`; Kilo 7.7
        // also a plain string (`"run ended with an auto-rejected
        // permission; ..."`).
        let (name, message, status) = match &e.error {
            serde_json::Value::String(s) => ("", s.as_str(), None),
            err => {
                let data = err.get("data");
                let message = data
                    .and_then(|d| d.get("message"))
                    .and_then(|v| v.as_str())
                    .or_else(|| err.get("message").and_then(|v| v.as_str()))
                    .unwrap_or("unknown error");
                let status = data
                    .and_then(|d| d.get("statusCode"))
                    .and_then(serde_json::Value::as_u64);
                let name = err.get("name").and_then(|v| v.as_str()).unwrap_or("");
                (name, message, status)
            }
        };
        let text = match (name, status) {
            ("", _) => message.to_string(),
            (name, Some(s)) => format!("{name} (HTTP {s}): {message}"),
            (name, None) => format!("{name}: {message}"),
        };
        let code = if name == "ProviderAuthError" {
            ErrorCode::AuthRequired
        } else if message.contains("auto-rejected permission") {
            // Run mode cannot ask: the policy's `ask` rejected a tool.
            ErrorCode::PermissionRequired
        } else {
            classify_stderr(&text).unwrap_or(ErrorCode::ProcessCrashed)
        };
        self.errored = true;
        out.push(AgentEvent::Error(
            CohostError::new(code, format!("{}: {text}", V::NAME)).with_fix(fix_for::<V>(code)),
        ));
    }

    fn final_usage(&self) -> Option<Usage> {
        self.saw_usage.then_some(self.usage)
    }
}

impl<V: Vendor> LineMap for OpenCodeNormalizer<V> {
    const NAME: &'static str = V::NAME;
    const SPEC: Option<&'static CliEntry> = Some(V::SPEC);
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        if let Some(ev) = parse_line::<RunEvent>(line, false, &mut self.skipped_lines) {
            self.on_event(ev, out);
        }
    }
    /// An interrupted turn closes without an opening `Started`.
    fn open(&mut self, _out: &mut Vec<AgentEvent>) {}
    const FIX: fn(ErrorCode) -> &'static str = fix_for::<V>;
    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let (exit, interrupted) = (how.info, how.interrupted);
        if interrupted {
            return Closing::Usual { interrupted };
        }
        self.start(None, out);
        if self.errored {
            out.push(AgentEvent::Ended {
                reason: EndReason::Error,
                usage: self.final_usage(),
            });
        } else if exit.and_then(|e| e.code) == Some(0) {
            out.push(AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: self.final_usage(),
            });
        } else {
            return Closing::Usual { interrupted: false };
        }
        Closing::Closed
    }
}

fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" => ToolKind::Execute,
        "edit" | "write" | "patch" | "multiedit" => ToolKind::Edit,
        "read" => ToolKind::Read,
        "grep" | "glob" | "list" | "codesearch" => ToolKind::Search,
        "webfetch" | "websearch" => ToolKind::Fetch,
        "todowrite" | "todoread" | "task" => ToolKind::Think,
        other => ToolKind::from_tool_name(other),
    }
}

fn fix_for<V: Vendor>(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => V::AUTH_FIX,
        ErrorCode::PermissionRequired => V::PERMISSION_FIX,
        _ => generic_fix(code),
    }
}

#[cfg(test)]
mod tests;
