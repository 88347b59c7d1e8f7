//! The pure normalizer for one `gemini -p … --output-format stream-json`
//! turn: JSONL in, [`AgentEvent`]s out.

use crate::catalog::CliEntry;
use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};

use super::wire::{Stats, StreamEvent};
use crate::process::classify_stderr;
use crate::process::oneshot::{error_end, turn_marks, Closing, LineMap, TurnExit, TurnMarks};

/// Normalizer state for one turn.
#[derive(Debug, Default)]
pub(crate) struct GeminiNormalizer {
    marks: TurnMarks,
    errored: bool,
    unknown: u64,
}

impl GeminiNormalizer {
    /// A fresh normalizer.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Lines of kinds this driver does not know (skipped).
    #[cfg(test)]
    pub(crate) fn unknown_count(&self) -> u64 {
        self.unknown
    }

    /// Feed one line.
    pub(crate) fn push(&mut self, line: &str) -> Vec<AgentEvent> {
        let ev: StreamEvent = match serde_json::from_str(line) {
            Ok(ev) => ev,
            Err(e) => {
                let shown: String = line.chars().take(120).collect();
                return vec![AgentEvent::Error(
                    CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!(
                            "gemini printed a line that is not a stream-json event ({e}): {shown}"
                        ),
                    )
                    .with_fix("the line was skipped; upgrade cohost if this repeats")
                    .retryable(false),
                )];
            }
        };
        let mut out = Vec::new();
        match ev {
            StreamEvent::Init { session_id, model } => {
                self.marks.started = true;
                out.push(AgentEvent::Started { session_id, model });
            }
            StreamEvent::Message { role, content } => {
                // Assistant text arrives in `delta` pieces; a whole message
                // (older versions) is one piece. User echoes are not output.
                if role == "assistant" && !content.is_empty() {
                    out.push(AgentEvent::TextDelta(content));
                }
            }
            StreamEvent::ToolUse {
                tool_name,
                tool_id,
                parameters,
            } => out.push(AgentEvent::ToolCall(ToolCallInfo {
                kind: tool_kind(&tool_name),
                tool_id,
                name: tool_name,
                input: parameters,
            })),
            StreamEvent::ToolResult {
                tool_id,
                status,
                output,
                error,
            } => {
                let ok = status == "success";
                let output = match (output, error) {
                    (Some(o), _) if ok || !o.is_empty() => o,
                    (_, Some(e)) => e.message,
                    (o, None) => o.unwrap_or_default(),
                };
                out.push(AgentEvent::ToolExecuted {
                    tool_id,
                    status: if ok {
                        ToolStatus::Ok
                    } else {
                        ToolStatus::Error
                    },
                    output,
                });
            }
            StreamEvent::Error { severity, message } => {
                if severity == "warning" {
                    out.push(AgentEvent::Status {
                        message: format!("gemini: {message}"),
                        retry_after_ms: None,
                    });
                } else {
                    out.push(AgentEvent::Error(map_error(&message)));
                }
            }
            StreamEvent::Result {
                status,
                error,
                stats,
            } => {
                let usage = stats.map(usage_of);
                if let Some(u) = usage {
                    out.push(AgentEvent::Usage(u));
                }
                let reason = if status == "success" {
                    EndReason::Completed
                } else {
                    let message = error.map(|e| e.message).unwrap_or_else(|| status.clone());
                    out.push(AgentEvent::Error(map_error(&message)));
                    self.errored = true;
                    EndReason::Error
                };
                self.marks.ended = true;
                out.push(AgentEvent::Ended { reason, usage });
            }
            StreamEvent::Unknown => {
                self.unknown += 1;
                tracing::debug!("gemini: unknown stream-json event skipped");
            }
        }
        out
    }
}

impl LineMap for GeminiNormalizer {
    const NAME: &'static str = "gemini";
    const SPEC: Option<&'static CliEntry> = Some(&crate::gemini::SPEC);
    const FIX: fn(ErrorCode) -> &'static str = fix_for;
    turn_marks!(marks);

    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        out.append(&mut self.push(line));
    }

    /// An exit closes the turn without an opening `Started`.
    fn open(&mut self, _out: &mut Vec<AgentEvent>) {}

    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        const RESUME_FAILED: &str = "Error resuming session";
        if let Some(line) = how.stderr.lines().find(|l| l.contains(RESUME_FAILED)) {
            if !how.interrupted {
                out.append(&mut error_end(
                    CohostError::new(ErrorCode::ConfigInvalid, format!("gemini: {}", line.trim()))
                        .with_fix("check the session id (`gemini --list-sessions` in the same directory), or start a new session"),
                ));
                return Closing::Closed;
            }
        }
        // A clean non-zero exit with a known cause (bad flag, no auth) is a
        // failed turn, not a crash; anything else is a crash.
        Closing::Usual {
            interrupted: how.interrupted,
        }
    }
}

fn usage_of(s: Stats) -> Usage {
    Usage {
        input_tokens: s.input_tokens.saturating_sub(s.cached),
        output_tokens: s.output_tokens,
        cache_read_tokens: s.cached,
        ..Usage::default()
    }
}

/// Gemini's own tool names (`run_shell_command`, `write_file`, `replace`...).
fn tool_kind(name: &str) -> ToolKind {
    match name {
        "run_shell_command" => ToolKind::Execute,
        "write_file" | "replace" | "edit" => ToolKind::Edit,
        "read_file" | "read_many_files" => ToolKind::Read,
        "glob" | "search_file_content" | "grep" | "list_directory" => ToolKind::Search,
        "web_fetch" | "google_web_search" => ToolKind::Fetch,
        "save_memory" | "write_todos" | "update_topic" => ToolKind::Think,
        other => ToolKind::from_tool_name(other),
    }
}

/// Map gemini's error text (`[API Error: {"error":{"code":401…}}]`).
pub(crate) fn map_error(message: &str) -> CohostError {
    let lower = message.to_ascii_lowercase();
    let code = if lower.contains("input token count") || lower.contains("maximum number of tokens")
    {
        ErrorCode::ContextWindowExceeded
    } else {
        classify_stderr(message).unwrap_or(ErrorCode::NetworkError)
    };
    CohostError::new(code, format!("gemini: {}", message.trim())).with_fix(fix_for(code))
}

fn fix_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => {
            "set GEMINI_API_KEY (or run `gemini` once to log in) and check security.auth.selectedType in ~/.gemini/settings.json"
        }
        ErrorCode::RateLimited => {
            "wait and retry; gemini already retried (general.maxAttempts in settings.json)"
        }
        ErrorCode::ContextWindowExceeded => "start a new session or shorten the prompt",
        ErrorCode::ModelNotAvailable => "pick a model the API serves (`--model`)",
        _ => "check GOOGLE_GEMINI_BASE_URL / network access and retry",
    }
}

#[cfg(test)]
mod tests;
