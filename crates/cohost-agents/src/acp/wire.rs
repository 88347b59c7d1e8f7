//! ACP's own message types, named as the protocol names them, tolerant of
//! everything newer agents add: unknown update kinds become
//! [`SessionUpdate::Unknown`], unknown fields are ignored, most fields are
//! optional because agents differ in what they fill in.

// The vendor's message shape is decoded whole (and shown in debug logs);
// not every field drives an event.
#![allow(dead_code)]

use serde::Deserialize;
use serde_json::Value;

/// `initialize` result (the parts cohost uses).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct InitializeResult {
    /// Protocol version the agent speaks.
    pub protocol_version: Option<Value>,
    /// What the agent can do.
    pub agent_capabilities: AgentCapabilities,
    /// Name and version of the agent.
    pub agent_info: Option<AgentInfo>,
}

/// `agentCapabilities`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentCapabilities {
    /// `session/load` is supported.
    pub load_session: bool,
    /// Content kinds accepted in prompts.
    pub prompt_capabilities: PromptCapabilities,
    /// Optional session methods (`fork`, `resume`, `list`: present means
    /// supported).
    pub session_capabilities: SessionCapabilities,
}

/// `agentCapabilities.sessionCapabilities`: each present member (an object,
/// possibly empty) means the agent serves that unstable session method.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionCapabilities {
    /// `session/fork` is supported.
    pub fork: Option<serde_json::Value>,
}

/// `promptCapabilities`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PromptCapabilities {
    /// Images.
    pub image: bool,
    /// Audio.
    pub audio: bool,
    /// Embedded `resource` blocks (file contents inline).
    pub embedded_context: bool,
}

/// `agentInfo`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct AgentInfo {
    /// Agent name.
    pub name: Option<String>,
    /// Agent version.
    pub version: Option<String>,
}

/// `session/update` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionNotification {
    /// Session the update belongs to.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The update.
    pub update: SessionUpdate,
}

/// One `session/update`, tagged by `sessionUpdate`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub(crate) enum SessionUpdate {
    /// Answer text.
    AgentMessageChunk {
        /// The chunk.
        content: ContentBlock,
    },
    /// Reasoning text.
    AgentThoughtChunk {
        /// The chunk.
        content: ContentBlock,
    },
    /// The user's own message (replayed by `session/load`).
    UserMessageChunk {},
    /// A new tool call.
    ToolCall(ToolCall),
    /// Progress or result of a tool call.
    ToolCallUpdate(ToolCall),
    /// The agent's plan.
    Plan {
        /// Plan entries.
        #[serde(default)]
        entries: Vec<PlanEntry>,
    },
    /// Context-window usage (unstable in the schema).
    UsageUpdate(UsageUpdate),
    /// Anything else (`available_commands_update`, `current_mode_update`...).
    #[serde(other)]
    Unknown,
}

/// A content block; only text matters to cohost's event stream.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct ContentBlock {
    /// `text`, `image`, `resource_link`, `resource`...
    #[serde(rename = "type")]
    pub kind: String,
    /// Text, for `text` blocks.
    pub text: Option<String>,
    /// Target, for `resource_link` blocks.
    pub uri: Option<String>,
}

/// A tool call or an update of one (every field but the id is optional in
/// updates, and agents leave them out in calls too).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct ToolCall {
    /// The agent's id.
    pub tool_call_id: String,
    /// Human title (often the command or path).
    pub title: Option<String>,
    /// ACP tool kind.
    pub kind: Option<String>,
    /// `pending`, `in_progress`, `completed`, `failed`.
    pub status: Option<String>,
    /// Produced content.
    pub content: Option<Vec<ToolCallContent>>,
    /// Arguments as the agent saw them.
    pub raw_input: Option<Value>,
    /// Output as the agent saw it.
    pub raw_output: Option<Value>,
}

/// One piece of tool-call content.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ToolCallContent {
    /// A content block.
    Content {
        /// The block.
        content: ContentBlock,
    },
    /// A file diff.
    Diff {
        /// File.
        #[serde(default)]
        path: String,
        /// New contents.
        #[serde(default, rename = "newText")]
        new_text: String,
    },
    /// A terminal the agent created.
    Terminal {},
    /// Anything newer.
    #[serde(other)]
    Unknown,
}

/// A plan entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct PlanEntry {
    /// What.
    pub content: String,
    /// `pending`, `in_progress`, `completed`.
    pub status: Option<String>,
}

/// `usage_update`: context window used / size.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UsageUpdate {
    /// Tokens in the context window.
    pub used: Option<u64>,
    /// Window size.
    pub size: Option<u64>,
}

/// `session/request_permission` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionRequest {
    /// Session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The call in question.
    pub tool_call: ToolCall,
    /// The agent's options.
    #[serde(default)]
    pub options: Vec<PermissionOption>,
}

/// One permission option.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PermissionOption {
    /// The id to answer with.
    pub option_id: String,
    /// Label.
    #[serde(default)]
    pub name: String,
    /// `allow_once`, `allow_always`, `reject_once`, `reject_always`.
    #[serde(default)]
    pub kind: String,
}

/// `session/prompt` result.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct PromptResponse {
    /// `end_turn`, `max_tokens`, `max_turn_requests`, `refusal`, `cancelled`.
    pub stop_reason: Option<String>,
    /// Token usage (unstable in the schema).
    pub usage: Option<TokenUsage>,
    /// Vendor extras (gemini reports tokens in `_meta.quota.token_count`).
    #[serde(rename = "_meta")]
    pub meta: Option<Value>,
}

/// Token usage in a prompt response.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct TokenUsage {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Reasoning tokens.
    pub thought_tokens: Option<u64>,
    /// Cache reads.
    pub cached_read_tokens: Option<u64>,
    /// Cache writes.
    pub cached_write_tokens: Option<u64>,
}

/// `fs/read_text_file` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReadTextFile {
    /// Absolute path.
    pub path: String,
    /// First line, 1-based.
    #[serde(default)]
    pub line: Option<u64>,
    /// Most lines to return.
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `fs/write_text_file` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WriteTextFile {
    /// Absolute path.
    pub path: String,
    /// New contents.
    pub content: String,
}
