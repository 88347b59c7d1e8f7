//! The ACP client as a pure state machine: agent stdout lines in, cohost
//! events and lines to write out. No IO and no clock, so a golden transcript
//! is a unit test. File-system requests are handed to the IO shell as
//! [`FsRequest`] effects because they touch the disk.
//!
//! Decisions worth knowing:
//! - Our request ids are 0, 1, 2... in order (initialize, session/new or
//!   session/load, session/set_mode when the session must change mode, then
//!   one per prompt), so captured transcripts replay.
//! - A session is switched to the mode [`ClientConfig::mode`] names before
//!   it counts as open (Mistral Vibe's default mode writes files unasked).
//!   Only an agent that advertises modes is switched; if it cannot be, the
//!   session does not open unless the policy is auto-approve, where an
//!   agent that still asks is answered by cohost anyway.
//! - A `tool_call` still `pending` is held back until it is clear whether the
//!   agent asks for permission: a call that gets `session/request_permission`
//!   is reported once, as `ApprovalRequested`; others as `ToolCall`.
//! - `plan` updates become a `Status` event (one line per entry), not a
//!   Think tool call: a plan is progress information, not a call.
//! - Every request cohost does not implement (`terminal/*`, vendor methods
//!   such as qwen's `craft/drainMidTurnQueue`) is answered at once with
//!   -32601, so the agent never waits on us.
//! - Session updates outside a turn (history replayed by `session/load`,
//!   stragglers after a cancel) are dropped.
//! - Messages are the ACP SDK's schema types (`agent-client-protocol-schema`,
//!   the crate the ACP server in cohost-servers uses), read tolerantly by
//!   [`super::read`].

use agent_client_protocol_schema::v1 as schema;
use cohost_core::{
    AgentEvent, ApprovalMode, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolDecision,
    ToolStatus, Usage,
};
use schema::{AGENT_METHOD_NAMES as AGENT, CLIENT_METHOD_NAMES as CLIENT};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

use super::map;
use super::permission::{answer_permission, cancelled_permission, OpenPermission};
use super::read::{self, Hello};
use super::rpc::{self, Incoming};

/// What the client needs to know about the session it opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Provider id, for messages.
    pub provider_id: String,
    /// The session's working directory (absolute).
    pub cwd: String,
    /// Approval policy.
    pub approval: ApprovalMode,
    /// Native session id to load.
    pub resume: Option<String>,
    /// Fork `resume` into a new session (`session/fork`) instead of loading it.
    pub fork: bool,
    /// Model, when the user chose one (reported in `Started`).
    pub model: Option<String>,
    /// How the agent reports provider failures in answer text.
    pub text_errors: cohost_process::provider::acp::TextErrors,
    /// The session mode (`session/set_mode`) to switch an opened session to
    /// when the agent advertises modes: the spec's
    /// [`cohost_process::provider::acp::AcpSpec::approval_modes`] for the approval policy.
    pub mode: Option<String>,
    /// MCP servers cohost gives the agent, in every `session/new`,
    /// `session/load` and `session/fork` (`mcpServers`; commands already
    /// absolute, as the schema asks).
    pub mcp_servers: Vec<cohost_core::McpServer>,
    /// How to sign in to this agent, for an `AUTH_REQUIRED` error (from the
    /// provider list); `None`: the generic advice.
    pub login_fix: Option<String>,
}

/// A file-system request for the IO shell to perform and answer.
#[derive(Debug, Clone, PartialEq)]
pub enum FsOp {
    /// `fs/read_text_file`.
    Read {
        /// Path as the agent gave it.
        path: String,
        /// First line, 1-based.
        line: Option<u64>,
        /// Most lines.
        limit: Option<u64>,
    },
    /// `fs/write_text_file`.
    Write {
        /// Path as the agent gave it.
        path: String,
        /// New contents.
        content: String,
    },
}

/// What the session looks like once open.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// Native session id.
    pub session_id: String,
    /// Whether `session/load` resumed it.
    pub resumed: bool,
    /// Agent name and version from `initialize`, when it gave them.
    pub agent: Option<schema::Implementation>,
    /// Capabilities from `initialize`.
    pub capabilities: schema::AgentCapabilities,
}

/// A file-system request to perform and answer (request `id`).
#[derive(Debug, Clone, PartialEq)]
pub struct FsRequest {
    /// The agent's request id.
    pub id: Value,
    /// What to do.
    pub op: FsOp,
}

/// What the client wants done: the shared session output. `Ready` carries
/// the open session or why the handshake failed; `Effect` a file-system
/// request.
pub type Output = cohost_process::session::Output<Opened, FsRequest>;

/// Counters of what the tolerant reader skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lines that were not JSON-RPC.
    pub garbage: u64,
    /// Update kinds cohost does not map.
    pub unknown_updates: u64,
    /// Updates or requests whose shape was wrong.
    pub malformed: u64,
    /// Agent requests answered with -32601.
    pub unknown_requests: u64,
    /// Responses to ids we never sent.
    pub unmatched: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Start,
    Handshake,
    Idle,
    Prompting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Initialize,
    NewSession,
    LoadSession,
    ForkSession,
    SetMode,
    Prompt,
}

impl Pending {
    /// The method this answers.
    fn method(self) -> &'static str {
        match self {
            Pending::Initialize => AGENT.initialize,
            Pending::NewSession => AGENT.session_new,
            Pending::LoadSession => AGENT.session_load,
            Pending::ForkSession => AGENT.session_fork,
            Pending::SetMode => AGENT.session_set_mode,
            Pending::Prompt => AGENT.session_prompt,
        }
    }
}

/// The ACP client state machine.
#[derive(Debug)]
pub struct AcpClient {
    cfg: ClientConfig,
    phase: Phase,
    next_id: u64,
    pending: HashMap<u64, Pending>,
    hello: Hello,
    session_id: Option<String>,
    /// A session the agent opened (id, whether resumed) that waits for
    /// its `session/set_mode` answer before it is ready.
    switching: Option<(String, bool)>,
    model: Option<String>,
    /// Tool calls seen, by id (merged from calls and updates).
    calls: HashMap<String, ToolCallInfo>,
    held: Vec<String>,
    announced: HashSet<String>,
    finished: HashSet<String>,
    denied: HashSet<String>,
    permissions: HashMap<String, OpenPermission>,
    usage: Option<Usage>,
    /// `session/cancel` was sent in this turn.
    cancelled: bool,
    /// Answer text arrived in this turn.
    text_seen: bool,
    /// The turn's answer text was a provider failure (reported as an error).
    text_failed: bool,
    /// Shown once as a `Status` at the start of the next turn.
    notice: Option<String>,
    stats: Stats,
}

impl AcpClient {
    /// A client that has sent nothing yet.
    pub fn new(cfg: ClientConfig) -> Self {
        AcpClient {
            model: cfg.model.clone(),
            cfg,
            phase: Phase::Start,
            next_id: 0,
            pending: HashMap::new(),
            hello: Hello::default(),
            session_id: None,
            switching: None,
            calls: HashMap::new(),
            held: Vec::new(),
            announced: HashSet::new(),
            finished: HashSet::new(),
            denied: HashSet::new(),
            permissions: HashMap::new(),
            usage: None,
            cancelled: false,
            text_seen: false,
            text_failed: false,
            notice: None,
            stats: Stats::default(),
        }
    }

    /// What the reader skipped so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The native session id, once open.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Whether a turn is running.
    pub fn in_turn(&self) -> bool {
        self.phase == Phase::Prompting
    }

    fn request(&mut self, params: &impl serde::Serialize, what: Pending) -> String {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id, what);
        rpc::request(id, what.method(), params)
    }

    /// The `initialize` request. We offer file reads and writes (confined to
    /// the cwd by the shell; not to [`super::providers::NO_CLIENT_FS`]) and
    /// no terminals.
    pub fn initialize(&mut self) -> String {
        self.phase = Phase::Handshake;
        let fs = !super::providers::NO_CLIENT_FS.contains(&self.cfg.provider_id.as_str());
        let params =
            schema::InitializeRequest::new(agent_client_protocol_schema::ProtocolVersion::V1)
                .client_capabilities(
                    schema::ClientCapabilities::new()
                        .fs(schema::FileSystemCapabilities::new()
                            .read_text_file(fs)
                            .write_text_file(fs))
                        .terminal(false),
                )
                .client_info(schema::Implementation::new(
                    "cohost",
                    env!("CARGO_PKG_VERSION"),
                ));
        self.request(&params, Pending::Initialize)
    }

    /// Start a turn with these prompt content blocks.
    pub fn begin_turn(
        &mut self,
        blocks: Vec<schema::ContentBlock>,
        out: &mut Vec<Output>,
    ) -> Result<(), CohostError> {
        let id = &self.cfg.provider_id;
        let Some(session_id) = self.session_id.clone() else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{id}` has no open session"),
            )
            .with_fix("start the session first"));
        };
        if self.phase != Phase::Idle {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{id}` is already running a turn"),
            )
            .with_fix("wait for the turn to end or interrupt it"));
        }
        self.phase = Phase::Prompting;
        self.usage = None;
        self.cancelled = false;
        let line = self.request(
            &schema::PromptRequest::new(session_id.clone(), blocks),
            Pending::Prompt,
        );
        out.push(Output::Event(AgentEvent::Started {
            session_id: Some(session_id),
            model: self.model.clone(),
        }));
        if let Some(message) = self.notice.take() {
            out.push(Output::Event(AgentEvent::Status {
                message,
                retry_after_ms: None,
            }));
        }
        out.push(Output::Write(line));
        Ok(())
    }

    /// `session/cancel`, after answering every open permission request with
    /// `cancelled` as the protocol requires. No-op outside a turn.
    pub fn cancel(&mut self, out: &mut Vec<Output>) {
        if self.phase != Phase::Prompting {
            return;
        }
        for (_, p) in self.permissions.drain() {
            out.push(Output::Write(cancelled_permission(&p.rpc_id)));
        }
        self.cancelled = true;
        let sid = self.session_id.clone().unwrap_or_default();
        out.push(Output::Write(rpc::notification(
            AGENT.session_cancel,
            &schema::CancelNotification::new(sid),
        )));
    }

    /// Answer a pending permission request with the agent's own option id
    /// for the chosen kind (or its nearest sibling when the agent does not
    /// offer that kind).
    pub fn decide(&mut self, decision: &ToolDecision) -> Result<String, CohostError> {
        let Some(p) = self.permissions.remove(&decision.tool_id) else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                format!(
                    "agent `{}` has no open approval for tool call `{}`",
                    self.cfg.provider_id, decision.tool_id
                ),
            )
            .with_fix("the turn may have ended or been interrupted; nothing to do"));
        };
        let allow = decision.option.is_allow();
        if !allow {
            self.denied.insert(decision.tool_id.clone());
        }
        Ok(answer_permission(&p, decision.option))
    }

    /// Feed one stdout line.
    pub fn on_line(&mut self, line: &str, out: &mut Vec<Output>) {
        if line.trim().is_empty() {
            return;
        }
        match rpc::parse(line) {
            Err(e) => {
                self.stats.garbage += 1;
                tracing::debug!(provider = %self.cfg.provider_id, error = %e, "non-JSON-RPC line from agent");
            }
            Ok(Incoming::Response { id, outcome }) => {
                match id.and_then(|id| self.pending.remove(&id)) {
                    Some(what) => self.on_response(what, outcome, out),
                    None => self.stats.unmatched += 1,
                }
            }
            Ok(Incoming::Request { id, method, params }) => {
                self.on_request(id, &method, params, out);
            }
            Ok(Incoming::Notification { method, params }) => {
                if method == CLIENT.session_update {
                    self.on_update(params, out);
                } else {
                    self.stats.unknown_updates += 1;
                }
            }
        }
    }

    /// An over-long line was dropped: a non-fatal error in the turn.
    pub fn on_oversized(&mut self, bytes: usize, out: &mut Vec<Output>) {
        self.stats.malformed += 1;
        if self.phase == Phase::Prompting {
            out.push(Output::Event(AgentEvent::Error(
                cohost_process::oversized_line_error(&self.cfg.provider_id, bytes),
            )));
        }
    }

    fn on_response(
        &mut self,
        what: Pending,
        outcome: Result<Value, rpc::RpcError>,
        out: &mut Vec<Output>,
    ) {
        match (what, outcome) {
            (Pending::Initialize, Ok(v)) => {
                self.hello = read::initialize(v);
                let caps = &self.hello.capabilities;
                let line = match self.cfg.resume.clone() {
                    Some(sid) if self.cfg.fork => {
                        if caps.session_capabilities.fork.is_none() {
                            out.push(Output::Ready(Err(map::fork_unsupported(
                                &self.cfg.provider_id,
                            ))));
                            return;
                        }
                        let fork = schema::ForkSessionRequest::new(sid, self.cfg.cwd.clone())
                            .mcp_servers(super::mcp::to_acp(&self.cfg.mcp_servers));
                        self.request(&fork, Pending::ForkSession)
                    }
                    Some(sid) if caps.load_session => {
                        let load = schema::LoadSessionRequest::new(sid, self.cfg.cwd.clone())
                            .mcp_servers(super::mcp::to_acp(&self.cfg.mcp_servers));
                        self.request(&load, Pending::LoadSession)
                    }
                    resume => {
                        if let Some(sid) = resume {
                            self.notice = Some(format!(
                                "agent `{}` cannot load sessions; session {sid} was not resumed, this is a new session",
                                self.cfg.provider_id
                            ));
                        }
                        self.new_session()
                    }
                };
                out.push(Output::Write(line));
            }
            (Pending::NewSession | Pending::ForkSession, Ok(v)) => {
                // Both answers carry the new session's id first; the rest
                // (modes, config options) cohost does not use.
                let opened = match what {
                    Pending::ForkSession => {
                        serde_json::from_value::<schema::ForkSessionResponse>(v.clone())
                            .map(|r| r.session_id)
                    }
                    _ => serde_json::from_value::<schema::NewSessionResponse>(v.clone())
                        .map(|r| r.session_id),
                };
                match opened {
                    Ok(sid) => {
                        // `models.currentModelId`: the unstable session-model
                        // API that gemini 0.61.0 and claude-code-acp 0.16.2
                        // still answer with; schema 1.17 replaced it with
                        // config options and has no type for it.
                        if let Some(m) = v.pointer("/models/currentModelId").and_then(Value::as_str)
                        {
                            self.model = self.model.clone().or(Some(m.to_string()));
                        }
                        // A fork is a new session that carries the parent's history.
                        let resumed = what == Pending::ForkSession;
                        self.opened(sid.0.to_string(), resumed, read::modes(&v), out);
                    }
                    Err(e) => out.push(Output::Ready(Err(CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!(
                            "agent `{}` answered {} without a usable sessionId ({e})",
                            self.cfg.provider_id,
                            what.method()
                        ),
                    )
                    .with_fix("the agent does not follow ACP; check its version")))),
                }
            }
            (Pending::LoadSession, Ok(v)) => {
                let sid = self.cfg.resume.clone().unwrap_or_default();
                self.opened(sid, true, read::modes(&v), out);
            }
            (Pending::SetMode, outcome) => {
                let (sid, resumed) = self.switching.take().unwrap_or_default();
                match outcome {
                    Ok(_) => self.open(sid, resumed, out),
                    Err(e) => self.mode_failed(sid, resumed, &e.describe(), out),
                }
            }
            (Pending::LoadSession, Err(e)) => {
                // A session the agent cannot load (gemini 0.61 cannot find the
                // ones it records) must not make the agent unusable, nor lose
                // the conversation silently: open a new one and say so.
                let sid = self.cfg.resume.clone().unwrap_or_default();
                let why = e.describe();
                tracing::warn!(provider = %self.cfg.provider_id, session = %sid, error = %why, "session/load failed");
                self.notice = Some(format!(
                    "could not resume session {sid} ({why}); this is a new session"
                ));
                let line = self.new_session();
                out.push(Output::Write(line));
            }
            (Pending::Initialize | Pending::NewSession | Pending::ForkSession, Err(e)) => {
                out.push(Output::Ready(Err(map::handshake_error(
                    &self.cfg.provider_id,
                    self.cfg.login_fix.as_deref(),
                    what.method(),
                    &e,
                ))));
            }
            (Pending::Prompt, Ok(v)) => {
                let resp = read::prompt_response(v);
                let usage = map::usage(&resp);
                let (mut reason, error) = map::stop_reason(&self.cfg.provider_id, resp.stop_reason);
                // Some agents (opencode 1.18) finish the answer after a cancel
                // and say `end_turn`; for the user the turn was still interrupted.
                if self.cancelled && reason == EndReason::Completed {
                    reason = EndReason::Interrupted;
                }
                // codex-acp 0.16 offers no "deny and go on": its only reject
                // option (`abort`) stops the turn, answered `cancelled`.
                // Nobody interrupted; the turn ended on cohost's denial.
                if !self.cancelled && reason == EndReason::Interrupted && !self.denied.is_empty() {
                    reason = EndReason::Completed;
                }
                if self.text_failed && reason == EndReason::Completed {
                    reason = EndReason::Error;
                }
                if let Some(e) = error {
                    out.push(Output::Event(AgentEvent::Error(e)));
                }
                self.end_turn(reason, usage, out);
            }
            (Pending::Prompt, Err(e)) => {
                out.push(Output::Event(AgentEvent::Error(map::prompt_error(
                    &self.cfg.provider_id,
                    self.cfg.login_fix.as_deref(),
                    &e,
                ))));
                self.end_turn(EndReason::Error, None, out);
            }
        }
    }

    /// The `session/new` request, with cohost's MCP servers (often none).
    fn new_session(&mut self) -> String {
        let params = schema::NewSessionRequest::new(self.cfg.cwd.clone())
            .mcp_servers(super::mcp::to_acp(&self.cfg.mcp_servers));
        self.request(&params, Pending::NewSession)
    }

    /// The agent opened the session: switch it to the configured mode
    /// first when the agent advertises modes and is in another one.
    fn opened(
        &mut self,
        session_id: String,
        resumed: bool,
        modes: Option<schema::SessionModeState>,
        out: &mut Vec<Output>,
    ) {
        let (Some(want), Some(modes)) = (self.cfg.mode.clone(), modes) else {
            return self.open(session_id, resumed, out);
        };
        if *modes.current_mode_id.0 == *want {
            return self.open(session_id, resumed, out);
        }
        if !modes.available_modes.iter().any(|m| *m.id.0 == *want) {
            let offered: Vec<&str> = modes.available_modes.iter().map(|m| &*m.id.0).collect();
            let why = format!("it offers only {}", offered.join(", "));
            return self.mode_failed(session_id, resumed, &why, out);
        }
        let set = schema::SetSessionModeRequest::new(session_id.clone(), want);
        let line = self.request(&set, Pending::SetMode);
        self.switching = Some((session_id, resumed));
        out.push(Output::Write(line));
    }

    /// The session could not be switched to the configured mode. Under
    /// auto-approve it opens anyway (an agent that asks is answered "allow"
    /// by cohost); otherwise the agent could run tools without asking, so
    /// the session does not open.
    fn mode_failed(&mut self, session_id: String, resumed: bool, why: &str, out: &mut Vec<Output>) {
        let want = self.cfg.mode.clone().unwrap_or_default();
        if self.cfg.approval == ApprovalMode::AutoApprove {
            tracing::warn!(provider = %self.cfg.provider_id, mode = %want, reason = %why, "session mode not set");
            return self.open(session_id, resumed, out);
        }
        out.push(Output::Ready(Err(map::mode_unavailable(
            &self.cfg.provider_id,
            &want,
            why,
        ))));
    }

    fn open(&mut self, session_id: String, resumed: bool, out: &mut Vec<Output>) {
        self.session_id = Some(session_id.clone());
        self.phase = Phase::Idle;
        out.push(Output::Ready(Ok(Opened {
            session_id,
            resumed,
            agent: self.hello.agent.clone(),
            capabilities: self.hello.capabilities.clone(),
        })));
    }

    fn end_turn(&mut self, reason: EndReason, usage: Option<Usage>, out: &mut Vec<Output>) {
        self.flush_held(None, out);
        // Denied calls the agent never reported on still need an outcome.
        let mut denied: Vec<String> = self
            .denied
            .iter()
            .filter(|id| !self.finished.contains(*id))
            .cloned()
            .collect();
        denied.sort();
        for tool_id in denied {
            out.push(Output::Event(AgentEvent::ToolExecuted {
                tool_id,
                status: ToolStatus::Denied,
                output: String::new(),
            }));
        }
        let usage = usage.or(self.usage);
        if let Some(u) = usage {
            out.push(Output::Event(AgentEvent::Usage(u)));
        }
        out.push(Output::Event(AgentEvent::Ended { reason, usage }));
        self.phase = Phase::Idle;
        self.text_seen = false;
        self.text_failed = false;
        self.calls.clear();
        self.held.clear();
        self.announced.clear();
        self.finished.clear();
        self.denied.clear();
        self.permissions.clear();
    }

    fn on_request(&mut self, id: Value, method: &str, params: Value, out: &mut Vec<Output>) {
        let bad_params = |out: &mut Vec<Output>, e: serde_json::Error| {
            out.push(Output::Write(rpc::error_response(
                &id,
                rpc::INVALID_PARAMS,
                &format!("invalid params for {method}: {e}"),
            )));
        };
        if method == CLIENT.session_request_permission {
            match read::permission_request(params) {
                Ok((call, options)) => self.on_permission(id, &call, &options, out),
                Err(e) => {
                    self.stats.malformed += 1;
                    bad_params(out, e);
                }
            }
        } else if method == CLIENT.fs_read_text_file {
            match serde_json::from_value::<schema::ReadTextFileRequest>(params) {
                Ok(r) => out.push(Output::Effect(FsRequest {
                    id,
                    op: FsOp::Read {
                        path: r.path.to_string_lossy().into_owned(),
                        line: r.line.map(u64::from),
                        limit: r.limit.map(u64::from),
                    },
                })),
                Err(e) => bad_params(out, e),
            }
        } else if method == CLIENT.fs_write_text_file {
            match serde_json::from_value::<schema::WriteTextFileRequest>(params) {
                Ok(w) => out.push(Output::Effect(FsRequest {
                    id,
                    op: FsOp::Write {
                        path: w.path.to_string_lossy().into_owned(),
                        content: w.content,
                    },
                })),
                Err(e) => bad_params(out, e),
            }
        } else {
            self.stats.unknown_requests += 1;
            out.push(Output::Write(rpc::error_response(
                &id,
                rpc::METHOD_NOT_FOUND,
                &format!("cohost does not implement {method}"),
            )));
        }
    }
}

#[path = "normalize_updates.rs"]
mod updates;

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
