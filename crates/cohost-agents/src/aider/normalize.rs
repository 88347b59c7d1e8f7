//! Aider's plain-text output (`--no-pretty --stream`) → [`AgentEvent`]s.
//!
//! Aider has no structured mode, so this is a line classifier, checked
//! against the pinned 0.86.2:
//! - start-up noise (analytics notice, terminal detection, version, model,
//!   git and repo-map lines, release-notes and git-setup questions aider
//!   answers itself) is dropped until the first line that is none of them;
//! - `Applied edit to FILE` → an `edit` tool call that ran; `Did not apply
//!   edit to FILE (--dry-run)` → one that was denied; `Commit HASH MSG` →
//!   a `git_commit` call that ran;
//! - `Tokens: N sent, M received.` → usage;
//! - `litellm.…Error` lines → an error (classified), the turn then ends in
//!   error even though aider exits 0; unless aider then says `Retrying in
//!   N seconds...`: that error was a passing one, reported as a status
//!   notice (with the wait) and the turn goes on;
//! - everything else is answer text, one chunk per line.

use crate::catalog::CliEntry;
use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};
use serde_json::json;

use crate::process::classify_stderr;
#[cfg(test)]
use crate::process::oneshot::TurnNormalizer;
use crate::process::oneshot::{generic_fix, turn_marks, Closing, LineMap, TurnExit, TurnMarks};

/// Normalizes one `aider --message` turn.
#[derive(Debug, Default)]
pub(crate) struct AiderNormalizer {
    turn: TurnMarks,
    in_answer: bool,
    error: Option<String>,
    usage: Option<Usage>,
    tools: usize,
}

/// What aider 0.86 prints when it has no model and no key.
const NO_KEY: &str = "No LLM model was specified and no API keys were provided.";

const NOISE_PREFIXES: &[&str] = &[
    "Analytics have been permanently disabled",
    "Detected dumb terminal",
    "Aider v",
    "Model: ",
    "Main model: ",
    "Weak model: ",
    "Editor model: ",
    "Git repo: ",
    "Repo-map: ",
    "No git repo found",
    "Added .aider",
    "Git repository created",
    "Update git name with",
    "Update git email with",
    "https://aider.chat/",
    "Would you like to see what's new",
    "Restored previous conversation history",
    "Use /help",
    "Warning: ",
    "You can skip this check",
    "Newer aider version",
];

impl AiderNormalizer {
    /// A normalizer for a new turn.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn start(&mut self, out: &mut Vec<AgentEvent>) {
        self.turn.start(None, None, out);
    }

    fn tool(
        &mut self,
        name: &str,
        kind: ToolKind,
        input: serde_json::Value,
        status: ToolStatus,
        output: &str,
        out: &mut Vec<AgentEvent>,
    ) {
        self.tools += 1;
        let tool_id = format!("aider-{}", self.tools);
        out.push(AgentEvent::ToolCall(ToolCallInfo {
            tool_id: tool_id.clone(),
            name: name.into(),
            kind,
            input,
        }));
        out.push(AgentEvent::ToolExecuted {
            tool_id,
            status,
            output: output.into(),
        });
    }

    fn classify(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        let t = line.trim_end();
        if let Some(file) = t.strip_prefix("Applied edit to ") {
            self.tool(
                "edit",
                ToolKind::Edit,
                json!({"path": file.trim()}),
                ToolStatus::Ok,
                t,
                out,
            );
        } else if let Some(rest) = t.strip_prefix("Did not apply edit to ") {
            let file = rest.split(" (").next().unwrap_or(rest).trim();
            self.tool(
                "edit",
                ToolKind::Edit,
                json!({"path": file}),
                ToolStatus::Denied,
                t,
                out,
            );
        } else if let Some(rest) = t.strip_prefix("Commit ").filter(|r| is_hash_then_msg(r)) {
            self.tool(
                "git_commit",
                ToolKind::Execute,
                json!({"message": rest}),
                ToolStatus::Ok,
                t,
                out,
            );
        } else if let Some(u) = parse_tokens(t) {
            self.usage = Some(u);
            out.push(AgentEvent::Usage(u));
        } else if let Some(ms) = retry_wait_ms(t).filter(|_| self.error.is_some()) {
            // aider retries by itself: what it reported is a notice, not the
            // end of the turn.
            let e = self.error.take().unwrap_or_default();
            out.push(AgentEvent::Status {
                message: format!("aider: {e} ({})", t.trim().trim_end_matches("...")),
                retry_after_ms: Some(ms),
            });
        } else if t.starts_with("litellm.") || t.contains("Error: OpenAIException") {
            if self.error.is_none() {
                self.error = Some(t.to_string());
            }
        } else if self.error.is_some() {
            // The rest of an error report (wrapped message, advice, URL prompt).
            if let Some(e) = self.error.as_mut() {
                if e.len() < 600 {
                    e.push(' ');
                    e.push_str(t.trim());
                }
            }
        } else {
            out.push(AgentEvent::TextDelta(format!("{t}\n")));
        }
    }
}

/// Drop the yes/no questions aider asks and answers itself (no terminal),
/// which it prints on the same line as what follows:
/// `Create new file? (Y)es/(N)o [Yes]: Did not apply edit to …`.
fn strip_questions(mut line: &str) -> &str {
    while line.contains("(Y)es/(N)o") {
        match line
            .find("]: ")
            .or_else(|| line.ends_with("]:").then(|| line.len() - 2))
        {
            Some(i) => line = line.get(i + 3..).unwrap_or(""),
            None => break,
        }
    }
    line
}

/// litellm's exception class names, which aider prints verbatim.
fn litellm_code(text: &str) -> Option<ErrorCode> {
    let table = [
        (
            "ContextWindowExceededError",
            ErrorCode::ContextWindowExceeded,
        ),
        ("AuthenticationError", ErrorCode::AuthRequired),
        ("PermissionDeniedError", ErrorCode::AuthRequired),
        ("RateLimitError", ErrorCode::RateLimited),
        ("NotFoundError", ErrorCode::ModelNotAvailable),
        ("APIConnectionError", ErrorCode::NetworkError),
        ("Timeout", ErrorCode::Timeout),
    ];
    table
        .iter()
        .find(|(name, _)| text.contains(name))
        .map(|(_, code)| *code)
}

/// `Retrying in 0.2 seconds...` (aider's own retry after a litellm error)
/// → the wait in milliseconds.
fn retry_wait_ms(line: &str) -> Option<u64> {
    let secs = line
        .trim()
        .strip_prefix("Retrying in ")?
        .strip_suffix(" seconds...")?
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)?;
    Some((secs * 1000.0).round() as u64)
}

fn is_hash_then_msg(rest: &str) -> bool {
    let hash = rest.split(' ').next().unwrap_or("");
    (7..=40).contains(&hash.len()) && hash.chars().all(|c| c.is_ascii_hexdigit())
}

/// `Tokens: 593 sent, 55 received.` (also `1.2k sent, 3 cache hit…`).
fn parse_tokens(line: &str) -> Option<Usage> {
    let rest = line.strip_prefix("Tokens: ")?;
    let mut u = Usage::default();
    for part in rest.split(',') {
        let mut words = part.split_whitespace();
        let n = parse_count(words.next()?)?;
        match words.next()? {
            "sent" => u.input_tokens = n,
            "received." | "received" => u.output_tokens = n,
            "cache" => match words.next() {
                Some("write") | Some("write.") => u.cache_write_tokens = n,
                Some("hit") | Some("hit.") => u.cache_read_tokens = n,
                _ => {}
            },
            _ => {}
        }
    }
    Some(u)
}

fn parse_count(s: &str) -> Option<u64> {
    if let Some(k) = s.strip_suffix('k') {
        return k.parse::<f64>().ok().map(|v| (v * 1000.0).round() as u64);
    }
    s.replace(',', "").parse().ok()
}

fn fix_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::AuthRequired => {
            "check OPENAI_API_KEY / the key aider uses for this model (--api-key)"
        }
        _ => generic_fix(code),
    }
}

impl LineMap for AiderNormalizer {
    const NAME: &'static str = "aider";
    const SPEC: Option<&'static CliEntry> = Some(&crate::aider::SPEC);
    turn_marks!(turn);
    fn map_line(&mut self, line: &str, out: &mut Vec<AgentEvent>) {
        self.start(out);
        let t = strip_questions(line.trim_end());
        if t.is_empty() {
            return;
        }
        // Without a key aider starts OpenRouter's browser sign-in and waits
        // five minutes for it (listening on localhost:8484): no run could
        // answer that, so the turn ends here, signed out.
        if t.starts_with(NO_KEY) {
            out.push(AgentEvent::Error(
                CohostError::new(
                    ErrorCode::AuthRequired,
                    format!("aider: {NO_KEY} (it would wait for a browser sign-in to OpenRouter)"),
                )
                .with_fix(
                    crate::catalog::login_fix(Self::NAME)
                        .unwrap_or_else(|| fix_for(ErrorCode::AuthRequired).into()),
                ),
            ));
            out.push(AgentEvent::Ended {
                reason: EndReason::Error,
                usage: None,
            });
            return;
        }
        if !self.in_answer {
            if t.trim().is_empty() || NOISE_PREFIXES.iter().any(|p| t.starts_with(p)) {
                return;
            }
            self.in_answer = true;
        }
        self.classify(t, out);
    }
    const FIX: fn(ErrorCode) -> &'static str = fix_for;
    fn close(&mut self, how: TurnExit<'_>, out: &mut Vec<AgentEvent>) -> Closing {
        let (exit, interrupted) = (how.info, how.interrupted);
        if interrupted {
            return Closing::Usual { interrupted };
        }
        if let Some(e) = self.error.take() {
            let code = litellm_code(&e)
                .or_else(|| classify_stderr(&e))
                .unwrap_or(ErrorCode::ProcessCrashed);
            out.push(AgentEvent::Error(
                CohostError::new(code, format!("aider: {e}")).with_fix(fix_for(code)),
            ));
            out.push(AgentEvent::Ended {
                reason: EndReason::Error,
                usage: self.usage,
            });
            return Closing::Closed;
        }
        if exit.and_then(|e| e.code) == Some(0) {
            out.push(AgentEvent::Ended {
                reason: EndReason::Completed,
                usage: self.usage,
            });
            return Closing::Closed;
        }
        Closing::Usual { interrupted: false }
    }
}

#[cfg(test)]
mod tests;
