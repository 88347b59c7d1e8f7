//! The payload schema: what each application frame carries, as JSON.
//!
//! Tolerant readers: unknown fields are ignored and optional ones default,
//! so a newer host's payloads still decode here.

use serde::{Deserialize, Serialize};

/// `ai.request.suggest_prompt` / `ai.request.prompt_suggested`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// Chosen by the co-driver; the host echoes it in its decision.
    pub suggestion_id: String,
    /// The proposed prompt.
    pub text: String,
    /// Display name of the co-driver, when it gives one.
    #[serde(default)]
    pub from: Option<String>,
}

/// `ai.request.suggestion_decided`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuggestionDecision {
    /// Which suggestion.
    pub suggestion_id: String,
    /// Run (true) or rejected (false).
    pub accepted: bool,
    /// The prompt id of the run, when accepted.
    #[serde(default)]
    pub prompt_id: Option<String>,
}

/// `ai.execution.started`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionStarted {
    /// The turn's prompt id (also the relay stream id).
    pub prompt_id: String,
    /// The turn's correlation id (the suggestion id when it came from one).
    pub correlation_id: String,
    /// The prompt text.
    pub text: String,
    /// Provider id running it.
    pub provider: String,
    /// `host` or the suggestion id it came from.
    pub origin: String,
}

/// `chat.message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chat {
    /// Display name.
    #[serde(default)]
    pub from: Option<String>,
    /// Message.
    pub text: String,
}
