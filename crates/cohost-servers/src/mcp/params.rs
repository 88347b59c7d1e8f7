//! The MCP tools' arguments and their JSON schemas (what `tools/list` shows).

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;

/// Who decides on the agent's tool calls.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalArg {
    /// Ask the person: through MCP elicitation where the client supports
    /// it, else through `list_approvals` / `resolve_approval`; no answer
    /// before the deadline is a deny.
    #[default]
    Ask,
    /// Deny every tool call.
    Deny,
    /// Allow every tool call (the agent runs in its auto-approve mode).
    Auto,
}

impl From<ApprovalArg> for cohost_core::ApprovalMode {
    fn from(a: ApprovalArg) -> Self {
        match a {
            ApprovalArg::Ask => cohost_core::ApprovalMode::Ask,
            ApprovalArg::Deny => cohost_core::ApprovalMode::DenyAll,
            ApprovalArg::Auto => cohost_core::ApprovalMode::AutoApprove,
        }
    }
}

/// `ask_agent`: open a session and run one turn.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskAgent {
    /// Provider id (see `list_agents`); default: the first installed agent, else the mock.
    #[serde(default)]
    pub provider: Option<String>,
    /// What to ask.
    pub prompt: String,
    /// Working directory of the agent (absolute; must exist). Default: the server's.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Model, provider-specific (for the mock: a scenario name).
    #[serde(default)]
    pub model: Option<String>,
    /// Approval policy for the agent's tool calls (default `ask`).
    #[serde(default)]
    pub approval: ApprovalArg,
    /// Files to attach (paths relative to cwd, or absolute).
    #[serde(default)]
    pub context_files: Vec<PathBuf>,
    /// Wait for the turn to end (default true); false returns at once with the session id (then use `wait`).
    #[serde(default)]
    pub wait: Option<bool>,
}

/// `ask_room`: the same prompt to several agents at once, a room.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskRoom {
    /// Provider ids (see `list_agents`), 2 to 8; the same id twice is two members (`claude`, `claude#2`).
    pub agents: Vec<String>,
    /// What to ask every member.
    pub prompt: String,
    /// Working directory (absolute; must exist). Inside a git repository with a commit each member works in a worktree of its own.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Approval policy for the members' tool calls (default `ask`).
    #[serde(default)]
    pub approval: ApprovalArg,
    /// Files to attach (paths relative to cwd, or absolute).
    #[serde(default)]
    pub context_files: Vec<PathBuf>,
    /// Wait for every member's turn to end (default true); false returns the members' session ids at once (then use `wait` on each).
    #[serde(default)]
    pub wait: Option<bool>,
}

/// `continue_session`: one more turn in an open or stored session.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContinueSession {
    /// The cohost session id (`s-…`) from `ask_agent`, or one from `cohost sessions`.
    pub session_id: String,
    /// What to ask next.
    pub prompt: String,
    /// Files to attach.
    #[serde(default)]
    pub context_files: Vec<PathBuf>,
    /// Approval policy when a stored session is reopened (default `ask`).
    #[serde(default)]
    pub approval: ApprovalArg,
    /// Wait for the turn to end (default true).
    #[serde(default)]
    pub wait: Option<bool>,
}

/// A session id.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionId {
    /// The cohost session id.
    pub session_id: String,
}

/// `steer`: text for a session's running turn.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Steer {
    /// The cohost session id.
    pub session_id: String,
    /// The text: it reaches the running turn where the agent takes input
    /// mid-turn, else it waits in the session's queue for a turn of its own.
    pub text: String,
}

/// `session_changes`: what a session's turns changed.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SessionChanges {
    /// The cohost session id.
    pub session_id: String,
    /// One turn (1 is the session's first); default: every turn that changed a file.
    #[serde(default)]
    pub turn: Option<u64>,
    /// Whole diffs (default: bounded as in a `file_changes` event).
    #[serde(default)]
    pub whole: Option<bool>,
}

/// `undo_turn`: put back what a session's last turn (or turns) changed.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UndoTurn {
    /// The cohost session id.
    pub session_id: String,
    /// Undo this turn and every later one; default: the last turn.
    #[serde(default)]
    pub turn: Option<u64>,
    /// Put files back even if they changed since the turn (the versions
    /// replaced are kept under refs/cohost/).
    #[serde(default)]
    pub force: Option<bool>,
}

/// `session_status`: one session, or every open one.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Status {
    /// The cohost session id (default: every open session).
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `wait`: block until the turn ends, at most `timeout_secs`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Wait {
    /// The cohost session id.
    pub session_id: String,
    /// Seconds to wait at most (default 30, at most 300).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

/// `list_approvals`: the approvals waiting for a decision.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ListApprovals {
    /// Only this session's (default: every open session's).
    #[serde(default)]
    pub session_id: Option<String>,
}

/// A decision on an approval request.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DecisionArg {
    /// Allow this call.
    Allow,
    /// Allow this and similar calls for the session.
    AllowAlways,
    /// Deny this call.
    Deny,
    /// Deny this and similar calls for the session.
    DenyAlways,
}

impl From<DecisionArg> for cohost_core::ApprovalOption {
    fn from(d: DecisionArg) -> Self {
        use cohost_core::ApprovalOption as O;
        match d {
            DecisionArg::Allow => O::AllowOnce,
            DecisionArg::AllowAlways => O::AllowAlways,
            DecisionArg::Deny => O::RejectOnce,
            DecisionArg::DenyAlways => O::RejectAlways,
        }
    }
}

/// `resolve_approval`: answer one pending approval.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ResolveApproval {
    /// The cohost session id.
    pub session_id: String,
    /// The tool call's id (from `list_approvals`).
    pub tool_id: String,
    /// The decision.
    pub decision: DecisionArg,
    /// A reason, passed to the agent with a deny.
    #[serde(default)]
    pub message: Option<String>,
}

/// No arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Empty {}

fn schema<T: JsonSchema>() -> Arc<JsonObject> {
    let value = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    let mut obj = match value {
        serde_json::Value::Object(o) => o,
        _ => JsonObject::new(),
    };
    obj.remove("$schema");
    obj.remove("title");
    obj.entry("type")
        .or_insert_with(|| serde_json::Value::String("object".into()));
    Arc::new(obj)
}

/// Every tool the server offers.
pub fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "list_agents",
            "The agents and model providers cohost can drive here: id, kind, status (installed, ready, needs_auth, missing…), a fix when one is needed, and capabilities.",
            schema::<Empty>(),
        ),
        Tool::new(
            "ask_agent",
            "Ask a coding agent (Claude Code, Codex, Gemini CLI, …, or the mock) one question in a new cohost session. Progress notifications carry the streamed answer. Tool calls the agent wants to make are approved by you (elicitation, or list_approvals/resolve_approval); unanswered ones are denied at their deadline. Returns the answer, the session id (for continue_session), usage and a summary of tool calls.",
            schema::<AskAgent>(),
        ),
        Tool::new(
            "ask_room",
            "Ask several coding agents the same question at once (a room; compare their answers). Each member is a cohost session of its own (continue_session, session_changes, undo_turn take its session id), in a git worktree of its own when cwd is a repository, so no two write the same files. Returns the room id and each member's name and result as ask_agent gives it.",
            schema::<AskRoom>(),
        ),
        Tool::new(
            "continue_session",
            "One more turn in a session from ask_agent (or a stored one, which is resumed).",
            schema::<ContinueSession>(),
        ),
        Tool::new(
            "session_status",
            "A session's state (or every open session's, without session_id): whether a turn runs, the answer so far, tool calls, pending approvals, usage.",
            schema::<Status>(),
        ),
        Tool::new(
            "wait",
            "Wait until the session's turn ends, at most timeout_secs (≤ 300); returns the status, `done` says whether it ended.",
            schema::<Wait>(),
        ),
        Tool::new(
            "session_changes",
            "What a session's turns changed in its working tree: for each turn, each file's path, status (added, modified, deleted, renamed, mode_changed), +/- line counts and unified diff.",
            schema::<SessionChanges>(),
        ),
        Tool::new(
            "undo_turn",
            "Put back what a session's last turn (or `turn` and every later one) changed, byte for byte. Refused, naming the files, when one changed since the turn, unless `force`; refused while a turn runs.",
            schema::<UndoTurn>(),
        ),
        Tool::new(
            "steer",
            "Text for a session's running turn. Where the agent's protocol takes input mid-turn (Codex's app-server, the mock) it reaches the agent during this turn (outcome `steered`); otherwise it waits in the session's queue and runs as the next turn (outcome `queued`, with its queue item; `wait` follows it). Refused when no turn runs: use continue_session.",
            schema::<Steer>(),
        ),
        Tool::new(
            "interrupt",
            "Interrupt the session's running turn (protocol cancel, then signals; it ends within 2 s). The session stays usable.",
            schema::<SessionId>(),
        ),
        Tool::new(
            "list_approvals",
            "Tool calls waiting for a decision, with their time left before they are denied.",
            schema::<ListApprovals>(),
        ),
        Tool::new(
            "resolve_approval",
            "Allow or deny one pending tool call.",
            schema::<ResolveApproval>(),
        ),
    ]
}
