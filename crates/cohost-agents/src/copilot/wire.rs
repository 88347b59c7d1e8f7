//! `copilot -p PROMPT --output-format json` output (Copilot CLI 1.0): JSONL
//! session events `{"type", "data", "id", "timestamp", "parentId",
//! "ephemeral"}` and a final `{"type":"result", "sessionId", "exitCode",
//! "usage"}`. Only the fields cohost reads are typed; everything else is
//! ignored, unknown types are [`CopilotEvent::Unknown`].

use serde::Deserialize;

/// One stdout line.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type")]
pub(crate) enum CopilotEvent {
    /// Answer text delta.
    #[serde(rename = "assistant.message_delta")]
    MessageDelta {
        /// Payload.
        #[serde(default)]
        data: Delta,
    },
    /// Reasoning text delta.
    #[serde(rename = "assistant.reasoning_delta")]
    ReasoningDelta {
        /// Payload.
        #[serde(default)]
        data: Delta,
    },
    /// A whole assistant message, with the tool calls it makes.
    #[serde(rename = "assistant.message")]
    Message {
        /// Payload.
        #[serde(default)]
        data: Message,
    },
    /// A whole reasoning block.
    #[serde(rename = "assistant.reasoning")]
    Reasoning {
        /// Payload.
        #[serde(default)]
        data: Reasoning,
    },
    /// A tool started.
    #[serde(rename = "tool.execution_start")]
    ToolStart {
        /// Payload.
        #[serde(default)]
        data: ToolStart,
    },
    /// A tool finished (or was denied).
    #[serde(rename = "tool.execution_complete")]
    ToolComplete {
        /// Payload.
        #[serde(default)]
        data: ToolComplete,
    },
    /// Token usage of a model call, when the version reports it.
    #[serde(rename = "assistant.usage")]
    Usage {
        /// Payload.
        #[serde(default)]
        data: serde_json::Value,
    },
    /// A session-level failure (auth, rate limit, model...).
    #[serde(rename = "session.error")]
    SessionError {
        /// Payload.
        #[serde(default)]
        data: SessionError,
    },
    /// The user (SIGINT) aborted the turn (its `data.reason` is not read).
    #[serde(rename = "abort")]
    Abort {},
    /// The last line of a run.
    #[serde(rename = "result")]
    Result(RunResult),
    /// Anything else (`session.*`, `model.*`, `assistant.turn_start`...).
    #[serde(other)]
    Unknown,
}

/// A text or reasoning delta.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Delta {
    /// Message id (answer deltas).
    #[serde(default)]
    pub message_id: Option<String>,
    /// Reasoning id (reasoning deltas).
    #[serde(default)]
    pub reasoning_id: Option<String>,
    /// The new text.
    #[serde(default)]
    pub delta_content: String,
}

/// A whole assistant message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Message {
    /// Message id.
    #[serde(default)]
    pub message_id: Option<String>,
    /// Model.
    #[serde(default)]
    pub model: Option<String>,
    /// Whole text.
    #[serde(default)]
    pub content: String,
    /// Tool calls.
    #[serde(default)]
    pub tool_requests: Vec<ToolRequest>,
}

/// A tool call in a message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolRequest {
    /// Call id.
    #[serde(default)]
    pub tool_call_id: String,
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// Arguments.
    #[serde(default)]
    pub arguments: serde_json::Value,
}

/// A whole reasoning block.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Reasoning {
    /// Reasoning id.
    #[serde(default)]
    pub reasoning_id: Option<String>,
    /// Whole text.
    #[serde(default)]
    pub content: String,
}

/// `tool.execution_start`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolStart {
    /// Call id.
    #[serde(default)]
    pub tool_call_id: String,
    /// Tool name.
    #[serde(default)]
    pub tool_name: String,
    /// Arguments.
    #[serde(default)]
    pub arguments: serde_json::Value,
}

/// `tool.execution_complete`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolComplete {
    /// Call id.
    #[serde(default)]
    pub tool_call_id: String,
    /// Whether it ran and succeeded.
    #[serde(default)]
    pub success: bool,
    /// Output (`content`).
    #[serde(default)]
    pub result: Option<ToolResult>,
    /// Failure (`message`, `code`: `denied` when permission was refused).
    #[serde(default)]
    pub error: Option<ToolError>,
}

/// A tool's output.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ToolResult {
    /// Text shown to the model.
    #[serde(default)]
    pub content: String,
}

/// A tool's failure.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ToolError {
    /// Message.
    #[serde(default)]
    pub message: String,
    /// Code (`denied`...).
    #[serde(default)]
    pub code: Option<String>,
}

/// `session.error`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionError {
    /// `authentication`, `rate_limit`, `model`...
    #[serde(default)]
    pub error_type: String,
    /// Human message.
    #[serde(default)]
    pub message: String,
    /// HTTP status, when the provider answered one.
    #[serde(default)]
    pub status_code: Option<u16>,
}

/// The final `result` line.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunResult {
    /// Native session id.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The process's exit code.
    #[serde(default)]
    pub exit_code: Option<i64>,
}
