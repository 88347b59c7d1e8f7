//! `opencode run --format json` output, as opencode 1.18 names it: one JSON
//! object per line, `{"type", "timestamp", "sessionID", "part" | "error"}`.
//!
//! Tolerant: unknown event types land in [`RunEvent::Unknown`], unknown
//! fields are ignored.

use serde::Deserialize;

/// One stdout line.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum RunEvent {
    /// A model step began.
    StepStart(Envelope),
    /// A finished text part (whole, never a delta).
    Text(Envelope),
    /// A finished reasoning part (only with `--thinking`).
    Reasoning(Envelope),
    /// A tool part in a terminal state (`completed` / `error`).
    ToolUse(Envelope),
    /// A model step ended; carries tokens and the finish reason.
    StepFinish(Envelope),
    /// A session error (`APIError`, `ProviderAuthError`...).
    Error(ErrorEvent),
    /// A type this version of cohost does not know.
    #[serde(other)]
    Unknown,
}

/// The common envelope of part events.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Envelope {
    /// Native session id (`ses_…`).
    #[serde(rename = "sessionID", default)]
    pub session_id: Option<String>,
    /// The part.
    #[serde(default)]
    pub part: Part,
}

/// A message part (text, reasoning, tool, step-start, step-finish).
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Part {
    /// Part id.
    #[serde(default)]
    pub id: Option<String>,
    /// Text of a text / reasoning part.
    #[serde(default)]
    pub text: Option<String>,
    /// Tool name of a tool part.
    #[serde(default)]
    pub tool: Option<String>,
    /// The model's tool call id.
    #[serde(rename = "callID", default)]
    pub call_id: Option<String>,
    /// Tool state.
    #[serde(default)]
    pub state: Option<ToolState>,
    /// Step tokens.
    #[serde(default)]
    pub tokens: Option<Tokens>,
}

/// A tool part's state.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ToolState {
    /// `pending`, `running`, `completed`, `error`.
    #[serde(default)]
    pub status: String,
    /// Arguments.
    #[serde(default)]
    pub input: serde_json::Value,
    /// Output when completed.
    #[serde(default)]
    pub output: Option<String>,
    /// Error text when failed (also "The user rejected permission…").
    #[serde(default)]
    pub error: Option<String>,
}

/// Token counts of one step.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub(crate) struct Tokens {
    /// Prompt tokens.
    #[serde(default)]
    pub input: u64,
    /// Output tokens.
    #[serde(default)]
    pub output: u64,
    /// Reasoning tokens.
    #[serde(default)]
    pub reasoning: u64,
    /// Cache use.
    #[serde(default)]
    pub cache: CacheTokens,
}

/// Cache token counts.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub(crate) struct CacheTokens {
    /// Read from cache.
    #[serde(default)]
    pub read: u64,
    /// Written to cache.
    #[serde(default)]
    pub write: u64,
}

/// An `error` line.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ErrorEvent {
    /// Native session id.
    #[serde(rename = "sessionID", default)]
    pub session_id: Option<String>,
    /// The error object (`{name, data: {message, statusCode?}}`).
    #[serde(default)]
    pub error: serde_json::Value,
}
