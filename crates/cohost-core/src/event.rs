//! cohost's public wire format: one [`Event`] per line, serde JSON.
//!
//! Readers are tolerant (unknown fields are ignored, unknown `type`s become
//! [`EventBody::Unknown`]); cohost writes exactly what is documented.

use serde::{Deserialize, Serialize};

use crate::changes::TurnChanges;
use crate::error::{CohostError, ErrorCode};

/// One normalized event. Every event carries ids that tie it to a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Unique event id (`<prompt_id>.<seq>`).
    pub id: String,
    /// The prompt (turn) this event belongs to.
    pub prompt_id: String,
    /// Caller-supplied or generated id that links a request across systems
    /// (e.g. a relay suggestion and the run it caused).
    pub correlation_id: String,
    /// Milliseconds since the Unix epoch.
    pub ts: u64,
    /// The room member whose session this is (`claude`, `claude#2`):
    /// present only in a room of several agents, absent for one agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub body: EventBody,
}

/// The kinds of event, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventBody {
    /// The turn started. First event of every turn.
    StreamStart {
        /// Provider id, e.g. `claude`.
        provider: String,
        /// The agent's own session/thread id, when it has one (used for resume).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
        /// Model in use, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
    },
    /// A piece of the answer text. Never cumulative.
    StreamChunk {
        /// Stream this chunk belongs to.
        stream_id: String,
        /// 0 for the first chunk of a stream, then +1 exactly.
        chunk_index: u64,
        /// The new text.
        delta: String,
    },
    /// A piece of the model's reasoning, where the agent exposes it.
    ReasoningChunk {
        /// Stream this chunk belongs to (separate from the text stream).
        stream_id: String,
        /// 0 for the first chunk of a stream, then +1 exactly.
        chunk_index: u64,
        /// The new reasoning text.
        delta: String,
    },
    /// The agent decided to call a tool.
    ToolCall {
        /// The agent's id for this call.
        tool_id: String,
        /// Tool name as the agent calls it.
        name: String,
        /// Normalized kind.
        kind: ToolKind,
        /// Arguments (sanitized).
        input: serde_json::Value,
    },
    /// The agent waits for a decision before running a tool.
    ToolApprovalRequested {
        /// The agent's id for this call.
        tool_id: String,
        /// Tool name.
        name: String,
        /// Normalized kind.
        kind: ToolKind,
        /// Arguments (sanitized).
        input: serde_json::Value,
        /// Options the decider may pick.
        options: Vec<ApprovalOption>,
        /// Milliseconds until an unanswered request is denied.
        deadline_ms: u64,
    },
    /// A decision on an approval request was made and sent to the agent.
    ToolApprovalDecided {
        /// The call decided on.
        tool_id: String,
        /// The option chosen.
        decision: ApprovalOption,
        /// Who decided.
        origin: DecisionOrigin,
        /// The people whose decision it was, by name, when people shared
        /// it (a participant the host granted approval to, or every
        /// approver a quorum counted); empty: the origin says it all.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        deciders: Vec<String>,
    },
    /// A tool finished (or was denied).
    ToolExecuted {
        /// The call.
        tool_id: String,
        /// Outcome.
        status: ToolStatus,
        /// The start of the output (sanitized, bounded).
        #[serde(default)]
        output_preview: String,
    },
    /// Token accounting, cumulative for the turn so far.
    Usage(Usage),
    /// Something the user should know while waiting (rate-limit wait, retry).
    Status {
        /// Human-readable (sanitized).
        message: String,
        /// When the wait is known, how long.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after_ms: Option<u64>,
    },
    /// The turn ended. Last event of every turn.
    StreamEnd {
        /// Why it ended.
        reason: EndReason,
        /// Final usage, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// What the turn changed in the working tree, when it changed anything:
    /// sent just before `stream_end`.
    FileChanges(TurnChanges),
    /// Something went wrong. A fatal error is followed by `stream_end` with
    /// reason `error`; a non-fatal one (e.g. one bad line) is not.
    Error(CohostError),
    /// The session's (or room's) budget: 80% spent (`warning`), spent
    /// (`exceeded`: the turn stops with reason `budget`, new prompts get
    /// `BUDGET_EXCEEDED`), or raised by the host (`raised`).
    Budget(crate::limits::BudgetNotice),
    /// Text sent while the turn ran reached the agent during it (steering,
    /// for agents whose protocol takes input mid-turn).
    Steered(crate::steer::SteerNotice),
    /// The session's queue of prompts waiting for the next turn changed:
    /// text sent while a turn ran that the agent could not take mid-turn
    /// was queued, an item was moved or dropped, or one began to run.
    Queue(crate::steer::QueueNotice),
    /// An event type this version does not know (tolerant reader).
    #[serde(other)]
    Unknown,
}

/// Normalized tool kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads files.
    Read,
    /// Edits or writes files.
    Edit,
    /// Deletes files.
    Delete,
    /// Moves or renames files.
    Move,
    /// Searches (grep, glob).
    Search,
    /// Runs commands.
    Execute,
    /// Fetches from the network.
    Fetch,
    /// Thinking / planning tools.
    Think,
    /// Anything else (and unknown kinds from newer writers).
    #[serde(other)]
    Other,
}

impl ToolKind {
    /// Every kind, in the order people read them.
    pub const ALL: [ToolKind; 9] = [
        ToolKind::Read,
        ToolKind::Edit,
        ToolKind::Delete,
        ToolKind::Move,
        ToolKind::Search,
        ToolKind::Execute,
        ToolKind::Fetch,
        ToolKind::Think,
        ToolKind::Other,
    ];

    /// The kind's wire name (`execute`), as serde writes it.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Fetch => "fetch",
            ToolKind::Think => "think",
            ToolKind::Other => "other",
        }
    }

    /// The kind a person named (`execute`, `Edit`); `None` for a word that
    /// names no kind (unlike serde, which reads it as `other`).
    pub fn parse(word: &str) -> Option<ToolKind> {
        ToolKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(word.trim()))
    }

    /// Guess a kind from a vendor tool name (`Bash`, `write_file`, `shell`...).
    pub fn from_tool_name(name: &str) -> ToolKind {
        let words = split_words(name);
        let has = |parts: &[&str]| words.iter().any(|w| parts.contains(&w.as_str()));
        if has(&["think", "plan", "todo", "todowrite"]) {
            ToolKind::Think
        } else if has(&[
            "bash", "shell", "exec", "execute", "command", "terminal", "run", "sh",
        ]) {
            ToolKind::Execute
        } else if has(&["delete", "remove", "rm", "unlink"]) {
            ToolKind::Delete
        } else if has(&["move", "rename", "mv"]) {
            ToolKind::Move
        } else if has(&[
            "write",
            "edit",
            "multiedit",
            "patch",
            "replace",
            "create",
            "apply",
            "str",
        ]) {
            ToolKind::Edit
        } else if has(&["grep", "glob", "search", "find", "ls", "list"]) {
            ToolKind::Search
        } else if has(&["read", "view", "cat", "open"]) {
            ToolKind::Read
        } else if has(&["fetch", "web", "http", "url", "browse", "download"]) {
            ToolKind::Fetch
        } else {
            ToolKind::Other
        }
    }
}

/// Split `run_shell_command`, `WebFetch`, `str-replace` into lowercase words.
fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Options offered to whoever decides on a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalOption {
    /// Allow this call.
    AllowOnce,
    /// Allow this and similar calls for the session.
    AllowAlways,
    /// Deny this call.
    RejectOnce,
    /// Deny this and similar calls for the session.
    RejectAlways,
}

impl ApprovalOption {
    /// Whether the option lets the tool run.
    pub fn is_allow(self) -> bool {
        matches!(
            self,
            ApprovalOption::AllowOnce | ApprovalOption::AllowAlways
        )
    }

    /// The four options in their usual order.
    pub const ALL: [ApprovalOption; 4] = [
        ApprovalOption::AllowOnce,
        ApprovalOption::AllowAlways,
        ApprovalOption::RejectOnce,
        ApprovalOption::RejectAlways,
    ];
}

/// Who made an approval decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionOrigin {
    /// The configured policy (`--approve all|none`).
    Policy,
    /// The local user, interactively.
    User,
    /// A remote host decision (relay).
    Remote,
    /// Nobody answered before the deadline: denied.
    Deadline,
    /// The turn was interrupted while waiting: denied.
    Cancelled,
    /// The agent died while waiting: denied.
    Crash,
    /// Unknown origin from a newer writer.
    #[serde(other)]
    Other,
}

/// Outcome of a tool execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Ran and succeeded.
    Ok,
    /// Ran and failed.
    Error,
    /// Did not run because it was denied.
    Denied,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The agent finished its answer.
    Completed,
    /// The user interrupted.
    Interrupted,
    /// An error ended the turn (see the preceding `error` event).
    Error,
    /// The agent hit its turn limit.
    MaxTurns,
    /// The session's budget was spent during the turn (see the `budget`
    /// event before it); the turn was interrupted.
    Budget,
}

/// Token accounting. All fields default to 0 when the agent does not report them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens (excluding cache reads).
    #[serde(default)]
    pub input_tokens: u64,
    /// Generated tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Reasoning tokens, when reported separately.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Whether nothing was reported.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}

impl Event {
    /// Parse one NDJSON line tolerantly. Unknown types become
    /// [`EventBody::Unknown`]; malformed JSON is an `INVALID_OUTPUT` error.
    pub fn from_json_line(line: &str) -> Result<Event, CohostError> {
        serde_json::from_str(line).map_err(|e| {
            CohostError::new(ErrorCode::InvalidOutput, format!("not a cohost event: {e}"))
                .with_fix("each line must be one JSON object as documented in the README")
        })
    }

    /// Serialize as one line (no trailing newline).
    pub fn to_json_line(&self) -> String {
        // Serializing our own plain data cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(body: EventBody) -> Event {
        Event {
            id: "p1.0".into(),
            prompt_id: "p1".into(),
            correlation_id: "c1".into(),
            ts: 1,
            agent: None,
            body,
        }
    }

    #[test]
    fn chunk_serializes_flat_with_type() {
        let e = ev(EventBody::StreamChunk {
            stream_id: "p1:text".into(),
            chunk_index: 0,
            delta: "Hi".into(),
        });
        let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
        assert_eq!(
            v,
            json!({"id":"p1.0","prompt_id":"p1","correlation_id":"c1","ts":1,
                   "type":"stream_chunk","stream_id":"p1:text","chunk_index":0,"delta":"Hi"})
        );
    }

    #[test]
    fn usage_and_error_are_flat() {
        let e = ev(EventBody::Usage(Usage {
            input_tokens: 3,
            output_tokens: 4,
            ..Usage::default()
        }));
        let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
        assert_eq!(v["type"], "usage");
        assert_eq!(v["input_tokens"], 3);
        let e = ev(EventBody::Error(CohostError::new(
            ErrorCode::Timeout,
            "slow",
        )));
        let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["code"], "TIMEOUT");
        assert_eq!(v["retryable"], true);
    }

    #[test]
    fn unknown_fields_and_kinds_are_tolerated() {
        let line = r#"{"id":"x","prompt_id":"p","correlation_id":"c","ts":5,"type":"stream_chunk","stream_id":"s","chunk_index":2,"delta":"a","extra":{"new":true}}"#;
        let e = Event::from_json_line(line).unwrap();
        assert!(matches!(
            e.body,
            EventBody::StreamChunk { chunk_index: 2, .. }
        ));
        let line =
            r#"{"id":"x","prompt_id":"p","correlation_id":"c","ts":5,"type":"hologram","beam":1}"#;
        let e = Event::from_json_line(line).unwrap();
        assert_eq!(e.body, EventBody::Unknown);
        let line = r#"{"id":"x","prompt_id":"p","correlation_id":"c","ts":5,"type":"tool_call","tool_id":"t","name":"n","kind":"teleport","input":{}}"#;
        let e = Event::from_json_line(line).unwrap();
        assert!(matches!(
            e.body,
            EventBody::ToolCall {
                kind: ToolKind::Other,
                ..
            }
        ));
    }

    #[test]
    fn malformed_lines_are_typed_errors() {
        for bad in [
            "",
            "{",
            "null",
            "[1,2]",
            "{\"type\":\"stream_chunk\"}",
            "\u{0}garbage",
        ] {
            let err = Event::from_json_line(bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidOutput, "{bad:?}");
        }
    }

    #[test]
    fn every_body_roundtrips() {
        let bodies = vec![
            EventBody::StreamStart {
                provider: "mock".into(),
                session_id: Some("s".into()),
                model: None,
            },
            EventBody::ReasoningChunk {
                stream_id: "p1:reasoning".into(),
                chunk_index: 0,
                delta: "hmm".into(),
            },
            EventBody::ToolCall {
                tool_id: "t1".into(),
                name: "Bash".into(),
                kind: ToolKind::Execute,
                input: json!({"command":"ls"}),
            },
            EventBody::ToolApprovalRequested {
                tool_id: "t1".into(),
                name: "Bash".into(),
                kind: ToolKind::Execute,
                input: json!({"command":"ls"}),
                options: ApprovalOption::ALL.to_vec(),
                deadline_ms: 1000,
            },
            EventBody::ToolApprovalDecided {
                tool_id: "t1".into(),
                decision: ApprovalOption::RejectOnce,
                origin: DecisionOrigin::Deadline,
                deciders: Vec::new(),
            },
            EventBody::ToolExecuted {
                tool_id: "t1".into(),
                status: ToolStatus::Denied,
                output_preview: String::new(),
            },
            EventBody::Status {
                message: "waiting".into(),
                retry_after_ms: Some(10),
            },
            EventBody::StreamEnd {
                reason: EndReason::Interrupted,
                usage: Some(Usage::default()),
            },
        ];
        for b in bodies {
            let e = ev(b);
            let back = Event::from_json_line(&e.to_json_line()).unwrap();
            assert_eq!(back, e);
        }
    }

    #[test]
    fn tool_kinds_from_names() {
        assert_eq!(ToolKind::from_tool_name("Bash"), ToolKind::Execute);
        assert_eq!(
            ToolKind::from_tool_name("run_shell_command"),
            ToolKind::Execute
        );
        assert_eq!(ToolKind::from_tool_name("write_file"), ToolKind::Edit);
        assert_eq!(ToolKind::from_tool_name("Read"), ToolKind::Read);
        assert_eq!(ToolKind::from_tool_name("Grep"), ToolKind::Search);
        assert_eq!(ToolKind::from_tool_name("WebFetch"), ToolKind::Fetch);
        assert_eq!(ToolKind::from_tool_name("frobnicate"), ToolKind::Other);
        assert_eq!(ToolKind::from_tool_name("format_code"), ToolKind::Other);
        assert_eq!(ToolKind::from_tool_name("exec_command"), ToolKind::Execute);
        assert_eq!(ToolKind::from_tool_name("TodoWrite"), ToolKind::Think);
    }
}
