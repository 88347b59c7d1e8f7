//! Codex app-server wire types (JSON-RPC over stdio), named as codex names
//! them. Checked against the schema of 0.171.0
//! (`tests/agents/schemas/codex-0.171.0/`).
//!
//! Server messages carry no `"jsonrpc"` field; we accept it when present and
//! never require it. Only the fields cohost uses are typed; everything else
//! is ignored, and unknown item types land in [`ThreadItem::Unknown`].

use serde::Deserialize;
use serde_json::{json, Value};

/// One line from the app-server, classified by JSON-RPC shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A reply to one of our requests.
    Response {
        /// Our request id.
        id: u64,
        /// `result` on success, `Err(error object)` otherwise.
        result: Result<Value, RpcError>,
    },
    /// A request the server wants answered (approvals...).
    Request {
        /// The server's id, echoed back verbatim (number or string).
        id: Value,
        /// Method.
        method: String,
        /// Params (`null` when absent).
        params: Value,
    },
    /// A notification.
    Notification {
        /// Method.
        method: String,
        /// Params (`null` when absent).
        params: Value,
    },
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RpcError {
    /// Code.
    #[serde(default)]
    pub code: i64,
    /// Message.
    #[serde(default)]
    pub message: String,
}

/// Why a line is not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Not JSON at all (or truncated).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but neither request, response nor notification.
    #[error("not a JSON-RPC message")]
    NotRpc,
}

impl Incoming {
    /// Classify one line.
    pub fn parse(line: &str) -> Result<Incoming, WireError> {
        let v: Value = serde_json::from_str(line).map_err(|e| WireError::NotJson(e.to_string()))?;
        let Value::Object(mut obj) = v else {
            return Err(WireError::NotRpc);
        };
        let params = obj.remove("params").unwrap_or(Value::Null);
        match (obj.remove("id"), obj.remove("method")) {
            (Some(id), Some(Value::String(method))) => Ok(Incoming::Request { id, method, params }),
            (None, Some(Value::String(method))) => Ok(Incoming::Notification { method, params }),
            (Some(id), None) => {
                // Our ids are numbers; a server may echo them as strings.
                let id = id
                    .as_u64()
                    .or_else(|| id.as_str().and_then(|s| s.parse().ok()))
                    .ok_or(WireError::NotRpc)?;
                let result = match obj.remove("error") {
                    Some(e) => Err(serde_json::from_value(e).unwrap_or(RpcError {
                        code: 0,
                        message: "unreadable error".into(),
                    })),
                    None => Ok(obj.remove("result").unwrap_or(Value::Null)),
                };
                Ok(Incoming::Response { id, result })
            }
            _ => Err(WireError::NotRpc),
        }
    }
}

/// `item/agentMessage/delta`, `item/reasoning/textDelta`, `item/reasoning/summaryTextDelta`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeltaParams {
    /// The new text.
    pub delta: String,
    /// Item it belongs to.
    #[serde(default)]
    pub item_id: String,
}

/// `item/started` and `item/completed`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemParams {
    /// The item.
    pub item: ThreadItem,
}

/// The thread items cohost turns into events.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ThreadItem {
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
pub struct FileUpdate {
    /// Path.
    pub path: String,
    /// `{"type":"add"|"delete"|"update"}`.
    #[serde(default)]
    pub kind: Value,
}

/// `turn/started` and `turn/completed`.
#[derive(Debug, Clone, Deserialize)]
pub struct TurnParams {
    /// The turn.
    pub turn: Turn,
}

/// A turn.
#[derive(Debug, Clone, Deserialize)]
pub struct Turn {
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
pub struct TurnError {
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
pub struct ErrorParams {
    /// The error.
    pub error: TurnError,
    /// Codex retries on its own when true.
    #[serde(default)]
    pub will_retry: bool,
}

/// `thread/tokenUsage/updated`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsageParams {
    /// Turn the usage belongs to.
    #[serde(default)]
    pub turn_id: String,
    /// Usage.
    pub token_usage: ThreadTokenUsage,
}

/// Thread usage: `last` is the latest model request, `total` the thread's.
#[derive(Debug, Clone, Deserialize)]
pub struct ThreadTokenUsage {
    /// The latest request.
    pub last: TokenBreakdown,
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenBreakdown {
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
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"id": id, "method": method, "params": params}).to_string()
}

/// A notification line.
pub fn notification(method: &str) -> String {
    json!({"method": method}).to_string()
}

/// A success reply to a server request.
pub fn reply(id: &Value, result: Value) -> String {
    json!({"id": id, "result": result}).to_string()
}

/// An error reply to a server request.
pub fn reply_error(id: &Value, code: i64, message: &str) -> String {
    json!({"id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_with_and_without_jsonrpc_field() {
        let r = Incoming::parse(r#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#).unwrap();
        assert_eq!(
            r,
            Incoming::Response {
                id: 3,
                result: Ok(json!({"a":1}))
            }
        );
        let n = Incoming::parse(r#"{"method":"turn/started","params":{}}"#).unwrap();
        assert!(matches!(n, Incoming::Notification { method, .. } if method == "turn/started"));
        let q =
            Incoming::parse(r#"{"method":"x/requestApproval","id":"abc","params":{}}"#).unwrap();
        assert!(matches!(q, Incoming::Request { id, .. } if id == json!("abc")));
        let e = Incoming::parse(r#"{"id":"7","error":{"code":-1,"message":"no"}}"#).unwrap();
        assert!(matches!(
            e,
            Incoming::Response {
                id: 7,
                result: Err(_)
            }
        ));
    }

    #[test]
    fn rejects_non_rpc() {
        assert!(matches!(
            Incoming::parse("{\"id\":"),
            Err(WireError::NotJson(_))
        ));
        assert_eq!(Incoming::parse("[1,2]"), Err(WireError::NotRpc));
        assert_eq!(Incoming::parse("{\"x\":1}"), Err(WireError::NotRpc));
    }

    #[test]
    fn unknown_item_types_are_tolerated() {
        let p: ItemParams =
            serde_json::from_value(json!({"item":{"type":"hologram","id":"1"}})).unwrap();
        assert!(matches!(p.item, ThreadItem::Unknown));
    }
}
