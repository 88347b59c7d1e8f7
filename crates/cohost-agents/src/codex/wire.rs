//! Codex app-server wire types (JSON-RPC over stdio), named as codex names
//! them. Checked against the schema of 0.171.0
//! (`tests/agents/schemas/codex-0.171.0/`).
//!
//! The JSON-RPC framing is the shared [`crate::jsonrpc`] module: server
//! messages carry no `"jsonrpc"` field (accepted when present, never
//! required) and ours carry none either ([`crate::jsonrpc::Framing::Bare`]). Only the fields cohost uses are typed; everything else
//! is ignored, and unknown item types land in [`ThreadItem::Unknown`].

use serde::Deserialize;
use serde_json::Value;

use crate::jsonrpc::Framing;
pub(crate) use crate::jsonrpc::{Incoming, RpcError};

/// `item/agentMessage/delta`, `item/reasoning/textDelta`, `item/reasoning/summaryTextDelta`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeltaParams {
    /// The new text.
    pub delta: String,
    /// Item it belongs to.
    #[serde(default)]
    pub item_id: String,
}

/// `item/started` and `item/completed`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ItemParams {
    /// The item.
    pub item: ThreadItem,
}

/// The thread items cohost turns into events.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(crate) enum ThreadItem {
    /// Answer text.
    AgentMessage {
        /// Item id.
        id: String,
        /// Full text (complete on `item/completed`).
        #[serde(default)]
        text: String,
    },
    /// Reasoning.
    Reasoning {
        /// Item id.
        id: String,
        /// Summary parts.
        #[serde(default)]
        summary: Vec<String>,
        /// Raw reasoning parts.
        #[serde(default)]
        content: Vec<String>,
    },
    /// A shell command.
    #[serde(rename_all = "camelCase")]
    CommandExecution {
        /// Item id (= the approval's `itemId`).
        id: String,
        /// Command line.
        #[serde(default)]
        command: String,
        /// Working directory.
        #[serde(default)]
        cwd: Option<String>,
        /// `inProgress`, `completed`, `failed`, `declined`.
        #[serde(default)]
        status: String,
        /// stdout+stderr.
        #[serde(default)]
        aggregated_output: Option<String>,
        /// Exit code.
        #[serde(default)]
        exit_code: Option<i64>,
    },
    /// A patch to files.
    FileChange {
        /// Item id.
        id: String,
        /// Changed files.
        #[serde(default)]
        changes: Vec<FileUpdate>,
        /// Same statuses as commands.
        #[serde(default)]
        status: String,
    },
    /// An MCP tool call.
    McpToolCall {
        /// Item id.
        id: String,
        /// Server name.
        #[serde(default)]
        server: String,
        /// Tool name.
        #[serde(default)]
        tool: String,
        /// Arguments.
        #[serde(default)]
        arguments: Value,
        /// `inProgress`, `completed`, `failed`.
        #[serde(default)]
        status: String,
        /// Result payload.
        #[serde(default)]
        result: Value,
        /// Error payload.
        #[serde(default)]
        error: Value,
    },
    /// A web search.
    WebSearch {
        /// Item id.
        id: String,
        /// Query.
        #[serde(default)]
        query: String,
    },
    /// Anything else (user messages, plans, images, new kinds).
    #[serde(other)]
    Unknown,
}

/// One file of a `fileChange` item.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FileUpdate {
    /// Path.
    pub path: String,
    /// `{"type":"add"|"delete"|"update"}`.
    #[serde(default)]
    pub kind: Value,
}

/// `turn/started` and `turn/completed`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct TurnParams {
    /// The turn.
    pub turn: Turn,
}

/// A turn.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Turn {
    /// Turn id (needed for `turn/interrupt`).
    pub id: String,
    /// `completed`, `interrupted`, `failed`, `inProgress`.
    #[serde(default)]
    pub status: String,
    /// Error of a failed turn.
    #[serde(default)]
    pub error: Option<TurnError>,
}

/// Codex's error shape.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TurnError {
    /// Human message.
    #[serde(default)]
    pub message: String,
    /// Machine info: a string (`contextWindowExceeded`) or an object
    /// (`{"httpConnectionFailed":{"httpStatusCode":401}}`).
    #[serde(default)]
    pub codex_error_info: Value,
}

/// `error` notification.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ErrorParams {
    /// The error.
    pub error: TurnError,
    /// Codex retries on its own when true.
    #[serde(default)]
    pub will_retry: bool,
}

/// `thread/tokenUsage/updated`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenUsageParams {
    /// Turn the usage belongs to.
    #[serde(default)]
    pub turn_id: String,
    /// Usage.
    pub token_usage: ThreadTokenUsage,
}

/// Thread usage: `last` is the latest model request, `total` the thread's.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ThreadTokenUsage {
    /// The latest request.
    pub last: TokenBreakdown,
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TokenBreakdown {
    /// Input, cache reads included.
    #[serde(default)]
    pub input_tokens: u64,
    /// Cache reads.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Cache writes.
    #[serde(default)]
    pub cache_write_input_tokens: u64,
    /// Output, reasoning included.
    #[serde(default)]
    pub output_tokens: u64,
    /// Reasoning.
    #[serde(default)]
    pub reasoning_output_tokens: u64,
}

/// A request line (`id` + `method` + `params`).
pub(crate) fn request(id: u64, method: &str, params: Value) -> String {
    Framing::Bare.request(id, method, params)
}

/// A notification line.
pub(crate) fn notification(method: &str) -> String {
    Framing::Bare.notification(method, Value::Null)
}

/// A success reply to a server request.
pub(crate) fn reply(id: &Value, result: Value) -> String {
    Framing::Bare.response(id, result)
}

/// An error reply to a server request.
pub(crate) fn reply_error(id: &Value, code: i64, message: &str) -> String {
    Framing::Bare.error_response(id, code, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_item_types_are_tolerated() {
        let p: ItemParams =
            serde_json::from_value(json!({"item":{"type":"hologram","id":"1"}})).unwrap();
        assert!(matches!(p.item, ThreadItem::Unknown));
    }
}
