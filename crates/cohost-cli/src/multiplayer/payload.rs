//! The application payloads host and participants exchange through the relay.
//!
//! The relay never reads these (it routes on the clear envelope only); they
//! are JSON today and can be encrypted end to end later without touching the
//! relay. One relay stream per turn (stream id = the turn's prompt id) carries
//! `ai.execution.started` (chunk 0), then every cohost event of the turn as
//! `ai.stream.chunk` (chunks 1..n, in order), then `ai.stream.end` or
//! `ai.stream.interrupted` carrying the final `stream_end` event. A
//! participant therefore sees exactly the host's normalized event stream, and
//! the relay's replay covers all of it.

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
