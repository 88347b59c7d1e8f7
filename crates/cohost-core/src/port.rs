//! The agent port: what every adapter implements, and what it emits.
//!
//! Adapters emit [`AgentEvent`]s: raw, un-numbered facts about the turn. The
//! host session engine turns them into wire [`crate::Event`]s: it assigns ids,
//! numbers chunks, applies approvals and sanitizes. Keeping numbering in one
//! place means no adapter can get chunk indexes wrong.

use async_trait::async_trait;
use futures::stream::BoxStream;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::CohostError;
use crate::event::{ApprovalOption, EndReason, ToolKind, ToolStatus, Usage};
use crate::provider::ProviderDescriptor;

/// How tool approvals are handled for a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// The agent asks; the engine's decision source answers (default).
    #[default]
    Ask,
    /// The user's policy lets the agent run tools without asking. Only this
    /// mode may launch an agent with its permission-bypass flag.
    AutoApprove,
    /// Every tool call is denied.
    DenyAll,
}

/// Configuration for one adapter instance.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterConfig {
    /// Working directory of the agent.
    pub cwd: PathBuf,
    /// Model to use; `None` = the agent's default.
    pub model: Option<String>,
    /// Explicit binary path (skips discovery).
    pub binary: Option<PathBuf>,
    /// Extra command-line arguments from the user (`cohost run ... -- ARGS`),
    /// after the driver's own.
    pub extra_args: Vec<String>,
    /// Extra environment for the child, on top of the narrow allowlist.
    pub env: BTreeMap<String, String>,
    /// Approval policy.
    pub approval: ApprovalMode,
    /// Native session id to resume.
    pub resume: Option<String>,
    /// Resume `resume` as a new branch (the agent's fork: Claude's
    /// `--fork-session`, Codex `thread/fork`, ACP `session/fork`), leaving
    /// the original session as it was. Only for providers whose
    /// capabilities say `fork`.
    #[serde(default)]
    pub fork: bool,
    /// Appended system prompt, for providers whose capabilities say
    /// `system_prompt` (the session service refuses it for the others).
    pub system_prompt: Option<String>,
    /// Tools the caller offers the model. API providers send them with every
    /// request and surface calls as `tool_call` events (they run nothing);
    /// agent CLIs bring their own tools and refuse these.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// `initialize` may return before the agent has answered its start-up
    /// handshake: the first prompt is then written without waiting for the
    /// answer, and a failed handshake is that prompt's error. For callers
    /// that prompt at once (`cohost run`), so the agent's boot overlaps
    /// cohost's own work; adapters without a handshake ignore it.
    #[serde(default)]
    pub defer_handshake: bool,
    /// The OS sandbox the agent runs in (off unless asked for).
    #[serde(default)]
    pub sandbox: crate::sandbox::SandboxRequest,
    /// MCP servers cohost gives the agent on top of the user's own (a
    /// room's bridge), for providers whose capabilities say `mcp_servers`
    /// (the others ignore them).
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
    /// What the adapter's own captured text passes (an agent's stderr,
    /// shown in crash reports): the session's sanitizer, which
    /// [`crate::HostSession::new`] puts here. Shapes only until then; never
    /// serialized.
    #[serde(skip)]
    pub sanitizer: std::sync::Arc<crate::sanitize::Sanitizer>,
}

/// An MCP server an agent starts itself over stdio: how each agent CLI's own
/// MCP configuration describes one (Claude Code's `--mcp-config`, Codex's
/// `mcp_servers` table, ACP's `session/new` `mcpServers`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServer {
    /// The server's name: the agent calls its tools `mcp__NAME__TOOL` (or
    /// its own spelling of that).
    pub name: String,
    /// The program.
    pub command: PathBuf,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Its environment (agents add it to what they pass down).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// A tool offered to the model: a name, what it does, and the JSON schema of
/// its arguments (an object schema).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// JSON schema of the arguments.
    pub input_schema: serde_json::Value,
}

/// A file attached to a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextFile {
    /// Path relative to the session's cwd, or absolute.
    pub path: PathBuf,
    /// Inline content, when the caller already has it.
    pub content: Option<String>,
}

/// Attached files written into the prompt text: the one policy for every
/// provider that does not take them apart from the text (the session
/// service for a provider without `context_files`, Claude Code's user
/// message). A file with content becomes a [`file_block`]; a file without
/// becomes an `@path` mention on a line of its own (agent CLIs read
/// mentioned files themselves, or at least show the model the path).
pub fn inline_context_files(text: &str, files: &[ContextFile]) -> String {
    let mut out = text.to_string();
    for f in files {
        match &f.content {
            Some(c) => out.push_str(&file_block(&f.path, c)),
            None => out.push_str(&format!("\n@{}", f.path.display())),
        }
    }
    out
}

/// One file's content as it follows a prompt's text: a blank line, then
/// the content tagged with its path (`<file path="…">`).
pub fn file_block(path: &Path, content: &str) -> String {
    format!("\n\n<file path=\"{}\">\n{content}\n</file>", path.display())
}

/// An image attached to a prompt, already read and encoded by the host.
/// Drivers pass it in their provider's native form (a base64 content block,
/// a local image path item); only providers whose capabilities say `images`
/// ever receive one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptImage {
    /// Where it was read from (absolute).
    pub path: PathBuf,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, standard base64 with padding.
    pub data: String,
}

/// One prompt as the adapter receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRequest {
    /// The engine's id for this turn.
    pub prompt_id: String,
    /// The prompt text.
    pub text: String,
    /// Attached files.
    pub context_files: Vec<ContextFile>,
    /// Attached images.
    pub images: Vec<PromptImage>,
}

/// A tool call as the agent described it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallInfo {
    /// The agent's id for the call.
    pub tool_id: String,
    /// Tool name.
    pub name: String,
    /// Normalized kind.
    pub kind: ToolKind,
    /// Arguments.
    pub input: serde_json::Value,
}

/// What adapters emit during a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// The agent accepted the turn; carries its session id and model when known.
    Started {
        /// Native session id.
        session_id: Option<String>,
        /// Model.
        model: Option<String>,
    },
    /// Answer text (not cumulative).
    TextDelta(String),
    /// Reasoning text (not cumulative).
    ReasoningDelta(String),
    /// A tool call that needs no decision (already allowed, or advisory).
    ToolCall(ToolCallInfo),
    /// A tool call the agent will not run until [`AgentAdapter::approve_tool`].
    ApprovalRequested {
        /// The call.
        call: ToolCallInfo,
        /// Options the agent offers (usually all four).
        options: Vec<ApprovalOption>,
    },
    /// A tool finished.
    ToolExecuted {
        /// The call.
        tool_id: String,
        /// Outcome.
        status: ToolStatus,
        /// Output (the engine bounds and sanitizes it).
        output: String,
    },
    /// Usage so far.
    Usage(Usage),
    /// Informational status (rate-limit wait...).
    Status {
        /// Message.
        message: String,
        /// Known wait.
        retry_after_ms: Option<u64>,
    },
    /// An error. Non-fatal unless followed by `Ended { reason: Error }`.
    Error(CohostError),
    /// The turn is over; the adapter is ready for the next prompt.
    Ended {
        /// Why.
        reason: EndReason,
        /// Final usage.
        usage: Option<Usage>,
    },
}

/// The stream of a turn's events. It ends after [`AgentEvent::Ended`]; if it
/// ends without one, the engine treats the agent as crashed.
pub type AgentEventStream = BoxStream<'static, AgentEvent>;

/// A decision on a tool approval, delivered to the adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDecision {
    /// The call.
    pub tool_id: String,
    /// Chosen option.
    pub option: ApprovalOption,
    /// Why (sent to the agent on deny where the protocol carries a message).
    pub message: Option<String>,
}

/// Steps of the interrupt ladder, gentlest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InterruptStage {
    /// Protocol cancel (control `interrupt`, `turn/interrupt`, `session/cancel`...).
    /// Adapters without a protocol use their gentlest signal here.
    Cancel,
    /// SIGINT to the process group.
    Signal,
    /// SIGTERM to the process group.
    Terminate,
    /// SIGKILL to the process group. After this the adapter is dead.
    Kill,
}

impl InterruptStage {
    /// The ladder in order.
    pub const LADDER: [InterruptStage; 4] = [
        InterruptStage::Cancel,
        InterruptStage::Signal,
        InterruptStage::Terminate,
        InterruptStage::Kill,
    ];

    /// Whether the stage may kill the agent process (so it must be respawned).
    pub fn is_destructive(self) -> bool {
        self >= InterruptStage::Terminate
    }
}

/// What `initialize` learned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitInfo {
    /// Installed version, when probed.
    pub version: Option<String>,
    /// Native session id, when known before the first turn.
    pub session_id: Option<String>,
}

/// Runtime health of an adapter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Whether the agent process (or connection) is alive.
    pub alive: bool,
    /// Binary in use.
    pub binary: Option<String>,
    /// Version.
    pub version: Option<String>,
    /// Last error seen (sanitized), e.g. a crash reason from stderr.
    pub last_error: Option<String>,
}

/// The port every agent adapter implements.
///
/// Methods take `&mut self`; the event stream returned by `send_prompt` is
/// owned separately, so the engine can call `interrupt` and `approve_tool`
/// while it reads the stream.
#[async_trait]
pub trait AgentAdapter: Send {
    /// The provider this adapter drives.
    fn descriptor(&self) -> &ProviderDescriptor;

    /// Spawn / connect and check health.
    async fn initialize(&mut self, config: &AdapterConfig) -> Result<InitInfo, CohostError>;

    /// Start a turn. At most one turn runs at a time.
    async fn send_prompt(&mut self, prompt: PromptRequest)
        -> Result<AgentEventStream, CohostError>;

    /// Run one step of the interrupt ladder. Stages an adapter cannot perform
    /// are no-ops that return `Ok`.
    async fn interrupt(&mut self, stage: InterruptStage) -> Result<(), CohostError>;

    /// Deliver a decision for a pending approval.
    async fn approve_tool(&mut self, decision: ToolDecision) -> Result<(), CohostError>;

    /// Give `text` to the agent during the running turn (steering), where
    /// its protocol takes input mid-turn; `Ok` only once the agent has
    /// taken it into this turn. Any error means it did not, and the caller
    /// queues the text as a next turn instead. The default (no protocol for
    /// it) refuses with `UNSUPPORTED_MODE`.
    async fn steer(&mut self, text: &str) -> Result<(), CohostError> {
        let _ = text;
        Err(steer_unsupported(&self.descriptor().id))
    }

    /// Health snapshot.
    async fn health(&mut self) -> Health;

    /// Stop everything and release resources (kills the process group).
    async fn terminate(&mut self) -> Result<(), CohostError>;
}

/// UNSUPPORTED_MODE for a steer the agent's protocol cannot take mid-turn.
pub fn steer_unsupported(provider_id: &str) -> CohostError {
    CohostError::new(
        crate::error::ErrorCode::UnsupportedMode,
        format!("agent `{provider_id}` takes no input while a turn runs"),
    )
    .with_fix("the text is queued and sent as the next turn; `/queue` shows it")
}

/// Makes adapters for one provider id. Registered in a [`crate::Registry`].
pub trait AdapterFactory: Send + Sync {
    /// The provider's descriptor.
    fn descriptor(&self) -> ProviderDescriptor;

    /// A fresh, uninitialized adapter.
    fn create(&self) -> Box<dyn AgentAdapter>;

    /// Whether the provider looks usable here without spawning anything
    /// (binary on PATH, endpoint configured). Used to pick a default agent.
    fn is_available(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attached_files_follow_the_text_as_blocks_or_mentions() {
        let files = [
            ContextFile {
                path: "notes.txt".into(),
                content: Some("line-two\nline-three".into()),
            },
            ContextFile {
                path: "src/lib.rs".into(),
                content: None,
            },
            ContextFile {
                path: "/abs/b.md".into(),
                content: None,
            },
        ];
        assert_eq!(
            inline_context_files("summarize", &files),
            "summarize\n\n<file path=\"notes.txt\">\nline-two\nline-three\n</file>\
             \n@src/lib.rs\n@/abs/b.md"
        );
        assert_eq!(inline_context_files("just text", &[]), "just text");
        assert_eq!(
            file_block(Path::new("a b.txt"), ""),
            "\n\n<file path=\"a b.txt\">\n\n</file>"
        );
    }
}
