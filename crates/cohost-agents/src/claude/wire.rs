//! The stream-json wire format of Claude Code (and Qwen Code, which copies
//! it), exactly as the vendors name things.
//!
//! Readers are tolerant: every enum has a catch-all, every field we do not
//! need is ignored, every field we do need is optional where a version might
//! drop it. Writers ([`out`]) emit exactly the shapes the CLIs document.

use serde::Deserialize;
use serde_json::Value;

/// One stdout line.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Line {
    /// `system` messages: `init`, `status`, `api_retry`, `retry`...
    System(SystemMsg),
    /// A raw Anthropic streaming event (with `--include-partial-messages`).
    StreamEvent(StreamEventMsg),
    /// A complete assistant message.
    Assistant(AssistantMsg),
    /// A user message (tool results, interruption notes).
    User(UserMsg),
    /// The end of a turn.
    Result(ResultMsg),
    /// The CLI asks the host something (`can_use_tool`...).
    ControlRequest(ControlRequest),
    /// The CLI answers one of our control requests.
    ControlResponse(ControlResponseMsg),
    /// What became of a user message sent with a `uuid` (Claude Code,
    /// `msg_lifecycle_v1`): queued, started, then one terminal state.
    CommandLifecycle(CommandLifecycleMsg),
    /// Anything newer.
    #[serde(other)]
    Unknown,
}

/// `type: system`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SystemMsg {
    /// `init`, `status`, `api_retry` (Claude), `retry` (Qwen)...
    #[serde(default)]
    pub subtype: String,
    /// Native session id.
    pub session_id: Option<String>,
    /// Model (on `init`).
    pub model: Option<String>,
    /// `api_retry`: attempt number.
    pub attempt: Option<u64>,
    /// `api_retry`: retry budget.
    pub max_retries: Option<u64>,
    /// `api_retry`: wait before the next attempt.
    pub retry_delay_ms: Option<u64>,
    /// `api_retry`: HTTP status of the failed call.
    pub error_status: Option<u16>,
    /// `api_retry`: error kind (`authentication_failed`, `rate_limit`...).
    pub error: Option<Value>,
    /// Qwen `retry`: `{attempt, maxRetries, delayMs}`.
    pub data: Option<Value>,
    /// Claude `init`: what this CLI's protocol supports
    /// (`msg_lifecycle_v1`, `interrupt_cancel_queued_v1`...).
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// `type: command_lifecycle` (Claude Code 2.1.332, `msg_lifecycle_v1`):
/// the fate of a user message that carried a `uuid`. Its embedded schema
/// says: `queued` when it enters the CLI's command queue, `started` when a
/// turn takes it in (the running turn, or a turn of its own), then exactly
/// one of `completed`, `cancelled` (an interrupt with `cancel_queued`),
/// `discarded` (the session ended), `refused` (never queued).
#[derive(Debug, Deserialize)]
pub(crate) struct CommandLifecycleMsg {
    /// The `uuid` cohost gave the message.
    #[serde(default)]
    pub command_uuid: String,
    /// `queued`, `started`, `completed`, `cancelled`, `discarded`, `refused`.
    #[serde(default)]
    pub state: String,
}

/// `type: stream_event`.
#[derive(Debug, Deserialize)]
pub(crate) struct StreamEventMsg {
    /// The Anthropic SSE event.
    pub event: StreamEvent,
    /// Set when the event belongs to a sub-agent's tool call.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// Native session id.
    pub session_id: Option<String>,
}

/// Anthropic streaming events.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum StreamEvent {
    /// A message begins.
    MessageStart {
        /// The message header.
        message: MessageHeader,
    },
    /// A content block begins.
    ContentBlockStart {},
    /// A piece of a content block.
    ContentBlockDelta {
        /// The piece.
        delta: Delta,
    },
    /// A content block ends.
    ContentBlockStop {},
    /// Stop reason and usage of the message.
    MessageDelta {},
    /// The message ends.
    MessageStop {},
    /// Other events (`ping`, Qwen's `goal_state`...).
    #[serde(other)]
    Unknown,
}

/// `message_start.message`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MessageHeader {
    /// Model.
    pub model: Option<String>,
}

/// `content_block_delta.delta`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(clippy::enum_variant_names)] // the variants are the vendor's `type` names
pub(crate) enum Delta {
    /// Answer text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// Reasoning text.
    ThinkingDelta {
        /// The text.
        thinking: String,
    },
    /// Other deltas (`input_json_delta`, `signature_delta`...).
    #[serde(other)]
    Unknown,
}

/// `type: assistant`.
#[derive(Debug, Deserialize)]
pub(crate) struct AssistantMsg {
    /// The message.
    pub message: MessageBody,
    /// Set for a sub-agent's messages.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// Native session id.
    pub session_id: Option<String>,
}

/// A message body.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MessageBody {
    /// Content blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
}

/// A content block.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ContentBlock {
    /// A tool call.
    ToolUse {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        #[serde(default)]
        input: Value,
    },
    /// A tool's result.
    ToolResult {
        /// The call.
        tool_use_id: String,
        /// String or array of `{type:text,text}` blocks.
        #[serde(default)]
        content: Value,
        /// Whether the tool failed (or was denied).
        #[serde(default)]
        is_error: Option<bool>,
    },
    /// Other blocks: `text` and `thinking` (their text arrives earlier as
    /// stream deltas), images, redacted thinking...
    #[serde(other)]
    Unknown,
}

/// `type: user`.
#[derive(Debug, Deserialize)]
pub(crate) struct UserMsg {
    /// The message.
    pub message: UserBody,
    /// Claude: per-tool permission outcome.
    #[serde(default)]
    pub tool_result_meta: Vec<ToolResultMeta>,
    /// Set for a sub-agent's messages.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
}

/// A user message body: plain text or blocks.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UserBody {
    /// Content.
    #[serde(default)]
    pub content: UserContent,
}

/// User content.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum UserContent {
    /// Blocks.
    Blocks(Vec<ContentBlock>),
    /// Plain text (echoed prompts) or anything else: nothing cohost reads.
    Other(serde::de::IgnoredAny),
}

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Blocks(Vec::new())
    }
}

/// `tool_result_meta[]` (Claude).
#[derive(Debug, Deserialize)]
pub(crate) struct ToolResultMeta {
    /// Tool call id.
    pub id: Option<String>,
    /// `{decision: accept|reject, source}`.
    pub permission_decision: Option<PermissionDecision>,
}

/// How the CLI decided on a tool.
#[derive(Debug, Deserialize)]
pub(crate) struct PermissionDecision {
    /// `accept` or `reject`.
    pub decision: Option<String>,
}

/// `type: result`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ResultMsg {
    /// `success`, `error_during_execution`, `error_max_turns`...
    #[serde(default)]
    pub subtype: String,
    /// Whether the turn failed (Claude sets this with subtype `success` on API errors).
    #[serde(default)]
    pub is_error: bool,
    /// Final text or error text.
    pub result: Option<String>,
    /// Token usage of the turn.
    pub usage: Option<WireUsage>,
    /// HTTP status of a failed API call.
    pub api_error_status: Option<u16>,
    /// Why the turn ended (`completed`, `aborted_streaming`, `prompt_too_long`...).
    pub terminal_reason: Option<String>,
    /// Claude: diagnostic strings.
    #[serde(default)]
    pub errors: Vec<Value>,
    /// Qwen: `{message}`.
    pub error: Option<Value>,
    /// Native session id.
    pub session_id: Option<String>,
}

/// Token usage as the CLIs report it.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct WireUsage {
    /// Prompt tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Cache writes.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Cache reads.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// `{thinking_tokens}`.
    pub output_tokens_details: Option<OutputDetails>,
}

/// `usage.output_tokens_details`.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct OutputDetails {
    /// Reasoning tokens.
    #[serde(default)]
    pub thinking_tokens: u64,
}

/// `type: control_request` from the CLI.
#[derive(Debug, Deserialize)]
pub(crate) struct ControlRequest {
    /// Id to answer with.
    pub request_id: String,
    /// The request.
    pub request: ControlRequestBody,
}

/// Control requests the CLI sends.
#[derive(Debug, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub(crate) enum ControlRequestBody {
    /// Permission to run a tool.
    CanUseTool {
        /// Tool name.
        tool_name: String,
        /// Arguments.
        #[serde(default)]
        input: Value,
        /// The call id (both CLIs send it; older Claude versions may not).
        tool_use_id: Option<String>,
    },
    /// Hooks, MCP messages and anything newer.
    #[serde(other)]
    Unknown,
}

/// `type: control_response` from the CLI.
#[derive(Debug, Deserialize)]
pub(crate) struct ControlResponseMsg {
    /// The response.
    pub response: ControlResponseBody,
}

/// A control response body.
#[derive(Debug, Deserialize)]
pub(crate) struct ControlResponseBody {
    /// `success` or `error`.
    #[serde(default)]
    pub subtype: String,
    /// Our request id.
    #[serde(default)]
    pub request_id: String,
    /// Payload (Qwen's initialize carries `session_id`).
    pub response: Option<Value>,
    /// Error text.
    pub error: Option<Value>,
}

/// Lines cohost writes to the CLI's stdin.
pub(crate) mod out {
    use serde_json::{json, Value};

    /// `control_request` of a subtype with no parameters (`initialize`, `interrupt`).
    pub(crate) fn control_request(request_id: &str, subtype: &str) -> String {
        json!({"type": "control_request", "request_id": request_id, "request": {"subtype": subtype}})
            .to_string()
    }

    /// `interrupt` that also drops the user messages still waiting in the
    /// CLI's queue (`cancel_queued`, advertised as
    /// `interrupt_cancel_queued_v1`), so a steered text cannot outlive the
    /// turn it was sent to.
    pub(crate) fn interrupt_cancel_queued(request_id: &str) -> String {
        json!({
            "type": "control_request",
            "request_id": request_id,
            "request": {"subtype": "interrupt", "cancel_queued": true}
        })
        .to_string()
    }

    /// A user message sent while a turn runs, with the `uuid` the CLI's
    /// `command_lifecycle` lines will name it by.
    pub(crate) fn user_steer(text: &str, uuid: &str) -> String {
        json!({
            "type": "user",
            "message": {"role": "user", "content": text},
            "parent_tool_use_id": null,
            "session_id": "",
            "uuid": uuid
        })
        .to_string()
    }

    /// A user turn whose content is a string or an array of Anthropic
    /// content blocks (text, image).
    pub(crate) fn user_content(content: Value) -> String {
        json!({
            "type": "user",
            "message": {"role": "user", "content": content},
            "parent_tool_use_id": null,
            "session_id": ""
        })
        .to_string()
    }

    /// Allow a tool. `updatedInput` must be present: without it the CLI
    /// treats the answer as a deny.
    pub(crate) fn allow(request_id: &str, input: &Value) -> String {
        success(
            request_id,
            json!({"behavior": "allow", "updatedInput": input}),
        )
    }

    /// Deny a tool, with the reason the model will see.
    pub(crate) fn deny(request_id: &str, message: &str) -> String {
        success(request_id, json!({"behavior": "deny", "message": message}))
    }

    /// Refuse a control request we do not implement, so the CLI never waits.
    pub(crate) fn unsupported(request_id: &str, subtype: &str) -> String {
        json!({
            "type": "control_response",
            "response": {
                "subtype": "error",
                "request_id": request_id,
                "error": format!("cohost does not handle control request `{subtype}`")
            }
        })
        .to_string()
    }

    fn success(request_id: &str, response: Value) -> String {
        json!({
            "type": "control_response",
            "response": {"subtype": "success", "request_id": request_id, "response": response}
        })
        .to_string()
    }
}
