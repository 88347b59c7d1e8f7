//! Gemini CLI `--output-format stream-json` events, named as gemini names
//! them (checked on 0.61.0). Unknown `type`s become [`StreamEvent::Unknown`].

use serde::Deserialize;
use serde_json::Value;

/// One JSONL line of `gemini -p … --output-format stream-json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum StreamEvent {
    /// The session started.
    Init {
        /// Session id (resumable with `--resume`).
        #[serde(default)]
        session_id: Option<String>,
        /// Model (`auto` when routed).
        #[serde(default)]
        model: Option<String>,
    },
    /// A message; assistant text arrives as `delta: true` pieces (older
    /// versions send it whole, without `delta`: one piece all the same).
    Message {
        /// `user` or `assistant`.
        #[serde(default)]
        role: String,
        /// Text.
        #[serde(default)]
        content: String,
    },
    /// The model called a tool (it runs without asking in headless mode,
    /// within the approval mode gemini was started with).
    ToolUse {
        /// Tool name.
        #[serde(default)]
        tool_name: String,
        /// Call id.
        #[serde(default)]
        tool_id: String,
        /// Arguments.
        #[serde(default)]
        parameters: Value,
    },
    /// A tool finished.
    ToolResult {
        /// Call id.
        #[serde(default)]
        tool_id: String,
        /// `success` or `error`.
        #[serde(default)]
        status: String,
        /// Output.
        #[serde(default)]
        output: Option<String>,
        /// Error details.
        #[serde(default)]
        error: Option<ErrorInfo>,
    },
    /// A non-fatal error or warning during the turn.
    Error {
        /// `warning` or `error`.
        #[serde(default)]
        severity: String,
        /// Message.
        #[serde(default)]
        message: String,
    },
    /// The end of the turn.
    Result {
        /// `success` or `error`.
        #[serde(default)]
        status: String,
        /// What failed.
        #[serde(default)]
        error: Option<ErrorInfo>,
        /// Token counts.
        #[serde(default)]
        stats: Option<Stats>,
    },
    /// A kind this driver does not know.
    #[serde(other)]
    Unknown,
}

/// Gemini's error shape.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ErrorInfo {
    /// Message, e.g. `[API Error: {"error":{"code":401,…}}]`.
    #[serde(default)]
    pub message: String,
}

/// `result.stats`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub(crate) struct Stats {
    /// Input tokens (all models of the turn, cache reads included).
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Cache reads.
    #[serde(default)]
    pub cached: u64,
}
