//! The sans-IO core of the codex app-server driver: JSON-RPC lines in,
//! [`AgentEvent`]s and lines to write out. No process, no clock.
//!
//! Handshake: `initialize` → `initialized` → `thread/start` (or
//! `thread/resume`). Per turn: `turn/start`, then notifications until
//! `turn/completed`; text steered mid-turn goes as `turn/steer` (the
//! running turn's id as `expectedTurnId`; codex answers `{turnId}` once it
//! took the input into that turn, or an error such as "no active turn to
//! steer"). Server requests ending in `requestApproval` (plus the
//! legacy `applyPatchApproval`/`execCommandApproval`) become approvals; every
//! other server request gets a JSON-RPC error at once so codex never hangs.

use cohost_core::{
    AgentEvent, ApprovalMode, ApprovalOption, CohostError, EndReason, ErrorCode, ToolCallInfo,
    Usage,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

use super::errors::map_error;
use super::items::{answer_body, Answer};
use super::wire::{self, Incoming};

/// What the core wants done: the shared session output. `Ready` carries
/// the open thread's id, or why the handshake failed.
pub type Action = crate::session::Output<String>;

/// Session settings the core needs.
#[derive(Debug, Clone, Default)]
pub struct CoreConfig {
    /// Working directory of the thread.
    pub cwd: String,
    /// Approval policy.
    pub approval: ApprovalMode,
    /// Model override.
    pub model: Option<String>,
    /// Thread to resume.
    pub resume: Option<String>,
    /// Fork `resume` into a new thread (`thread/fork`) instead of resuming it.
    pub fork: bool,
    /// Extra developer instructions.
    pub system_prompt: Option<String>,
    /// cohost's OS sandbox confines codex: its own sandbox (bubblewrap,
    /// which needs `mount`, which the kernel refuses to a process under
    /// Landlock) cannot run inside it, so commands run in cohost's.
    pub outer_sandbox: bool,
    /// The names of the MCP servers cohost gave codex
    /// ([`cohost_core::AdapterConfig::mcp_servers`]: a room's bridge),
    /// whose calls cohost approves where they land (see
    /// `normalize/approvals.rs`).
    pub own_mcp_servers: Vec<String>,
}

/// `turn/start`'s input items: the text, then one `localImage` per image
/// (codex reads the file itself and sends it to the model as an image).
fn turn_input(text: &str, images: &[std::path::PathBuf]) -> Value {
    let mut items = vec![json!({"type": "text", "text": text})];
    items.extend(
        images
            .iter()
            .map(|p| json!({"type": "localImage", "path": p.display().to_string()})),
    );
    Value::Array(items)
}

/// Handshake progress.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Nothing sent yet.
    New,
    /// Waiting for the `initialize` or thread reply.
    Handshaking,
    /// A thread is open; turns may start.
    Ready,
    /// The handshake failed.
    Failed(CohostError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Initialize,
    Thread,
    TurnStart,
    Interrupt,
    Steer,
}

#[derive(Debug, Default)]
struct TurnState {
    id: Option<String>,
    started: bool,
    interrupt_wanted: bool,
    usage: Usage,
    errored: bool,
    delta_items: HashSet<String>,
    held: HashMap<String, ToolCallInfo>,
    announced: HashSet<String>,
}

/// The app-server protocol state machine.
#[derive(Debug)]
pub struct AppServerCore {
    cfg: CoreConfig,
    next_id: u64,
    pending: HashMap<u64, Pending>,
    phase: Phase,
    thread_id: Option<String>,
    model: Option<String>,
    turn: Option<TurnState>,
    approvals: HashMap<String, (Value, Answer)>,
    unknown: u64,
}

const IGNORED: &[&str] = &[
    "thread/started",
    "thread/status/changed",
    "thread/goal/cleared",
    "thread/settings/updated",
    "thread/name/updated",
    "account/rateLimits/updated",
    "account/updated",
    "serverRequest/resolved",
    "remoteControl/status/changed",
    "mcpServer/startupStatus/updated",
    "item/commandExecution/outputDelta",
    "item/fileChange/outputDelta",
    "item/fileChange/patchUpdated",
    "item/reasoning/summaryPartAdded",
    "item/plan/delta",
    "turn/diff/updated",
    "turn/plan/updated",
    "configWarning",
    "warning",
    "deprecationNotice",
    "skills/changed",
];

impl AppServerCore {
    /// A core for one app-server process.
    pub fn new(cfg: CoreConfig) -> Self {
        AppServerCore {
            cfg,
            next_id: 1,
            pending: HashMap::new(),
            phase: Phase::New,
            thread_id: None,
            model: None,
            turn: None,
            approvals: HashMap::new(),
            unknown: 0,
        }
    }

    /// Handshake progress.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The open thread (the native session id).
    pub fn thread_id(&self) -> Option<&str> {
        self.thread_id.as_deref()
    }

    /// Whether a turn is running.
    pub fn in_turn(&self) -> bool {
        self.turn.is_some()
    }

    /// Notifications and server requests of kinds cohost does not know.
    pub fn unknown_count(&self) -> u64 {
        self.unknown
    }

    /// The handshake failed: remember why and say so.
    fn fail(&mut self, err: CohostError) -> Vec<Action> {
        self.phase = Phase::Failed(err.clone());
        vec![Action::Ready(Err(err))]
    }

    fn request(&mut self, method: &str, params: Value, kind: Pending) -> Action {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id, kind);
        Action::Write(wire::request(id, method, params))
    }

    /// Begin the handshake.
    pub fn start(&mut self) -> Vec<Action> {
        self.phase = Phase::Handshaking;
        let params = json!({"clientInfo": {"name": "cohost", "title": "cohost", "version": env!("CARGO_PKG_VERSION")}});
        vec![self.request("initialize", params, Pending::Initialize)]
    }

    /// Start a turn with `text` and the images at `images` (absolute paths).
    pub fn start_turn(
        &mut self,
        text: &str,
        images: &[std::path::PathBuf],
    ) -> Result<Vec<Action>, CohostError> {
        let Some(thread) = self
            .thread_id
            .clone()
            .filter(|_| self.phase == Phase::Ready)
        else {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "codex has no open thread yet",
            )
            .with_fix("initialize the adapter before sending a prompt"));
        };
        if self.turn.is_some() {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "a codex turn is already running",
            )
            .with_fix("wait for the turn to end or interrupt it"));
        }
        self.turn = Some(TurnState::default());
        let params = json!({"threadId": thread, "input": turn_input(text, images)});
        Ok(vec![self.request("turn/start", params, Pending::TurnStart)])
    }

    /// Ask codex to stop the running turn (`turn/interrupt`). Sent as soon as
    /// the turn id is known.
    pub fn interrupt(&mut self) -> Vec<Action> {
        let Some(turn) = self.turn.as_mut() else {
            return Vec::new();
        };
        match turn.id.clone() {
            Some(turn_id) => self.send_interrupt(turn_id),
            None => {
                turn.interrupt_wanted = true;
                Vec::new()
            }
        }
    }

    /// Give `text` to the running turn (`turn/steer`); the answer comes as
    /// [`Action::Steered`] with the returned ticket (the request's id).
    pub fn steer(&mut self, text: &str) -> Result<(Vec<Action>, u64), CohostError> {
        let refused = |why: &str| {
            CohostError::new(
                ErrorCode::IllegalTransition,
                format!("codex cannot take the text now: {why}"),
            )
            .with_fix("the text is queued and sent as the next turn")
        };
        let thread = self
            .thread_id
            .clone()
            .ok_or_else(|| refused("no thread is open"))?;
        let Some(turn) = self.turn.as_ref() else {
            return Err(refused("no turn is running"));
        };
        if turn.interrupt_wanted {
            return Err(refused("the turn is being interrupted"));
        }
        let Some(turn_id) = turn.id.clone() else {
            return Err(refused("the turn has not started yet"));
        };
        let ticket = self.next_id;
        let params = json!({
            "threadId": thread,
            "expectedTurnId": turn_id,
            "input": turn_input(text, &[]),
        });
        Ok((
            vec![self.request("turn/steer", params, Pending::Steer)],
            ticket,
        ))
    }

    fn send_interrupt(&mut self, turn_id: String) -> Vec<Action> {
        let thread = self.thread_id.clone().unwrap_or_default();
        let params = json!({"threadId": thread, "turnId": turn_id});
        vec![self.request("turn/interrupt", params, Pending::Interrupt)]
    }

    /// Answer a pending approval.
    pub fn decide(
        &mut self,
        tool_id: &str,
        option: ApprovalOption,
    ) -> Result<Vec<Action>, CohostError> {
        let Some((rpc_id, answer)) = self.approvals.remove(tool_id) else {
            return Err(CohostError::new(
                ErrorCode::InvalidOutput,
                format!("codex has no pending approval for tool call `{tool_id}`"),
            )
            .with_fix("the turn may have ended; the decision was not needed"));
        };
        Ok(vec![Action::Write(wire::reply(
            &rpc_id,
            answer_body(&answer, option),
        ))])
    }

    /// Feed one stdout line.
    pub fn on_line(&mut self, line: &str) -> Vec<Action> {
        match Incoming::parse(line) {
            Ok(Incoming::Response {
                id: Some(id),
                outcome,
            }) => self.on_response(id, outcome),
            // An id that is not a number cannot be one of ours.
            Ok(Incoming::Response { id: None, .. }) => Vec::new(),
            Ok(Incoming::Request { id, method, params }) => self.on_request(id, &method, params),
            Ok(Incoming::Notification { method, params }) => self.on_notification(&method, params),
            Err(e) => {
                let shown: String = line.chars().take(120).collect();
                vec![Action::Event(AgentEvent::Error(
                    CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!(
                            "codex app-server printed a line that is not JSON-RPC ({e}): {shown}"
                        ),
                    )
                    .with_fix("the line was skipped; upgrade cohost if this repeats")
                    .retryable(false),
                ))]
            }
        }
    }

    fn on_response(&mut self, id: u64, result: Result<Value, wire::RpcError>) -> Vec<Action> {
        let Some(kind) = self.pending.remove(&id) else {
            return Vec::new();
        };
        match (kind, result) {
            (Pending::Initialize, Ok(_)) => {
                let mut out = vec![Action::Write(wire::notification("initialized"))];
                let sandbox = match self.cfg.approval {
                    _ if self.cfg.outer_sandbox => "danger-full-access",
                    ApprovalMode::DenyAll => "read-only",
                    _ => "workspace-write",
                };
                let policy = match self.cfg.approval {
                    ApprovalMode::AutoApprove => "never",
                    // `untrusted`: codex asks before every command that is not
                    // known read-only, and before every edit.
                    ApprovalMode::Ask | ApprovalMode::DenyAll => "untrusted",
                };
                let mut params =
                    json!({"cwd": self.cfg.cwd, "approvalPolicy": policy, "sandbox": sandbox});
                if let Some(m) = &self.cfg.model {
                    params["model"] = json!(m);
                }
                if let Some(s) = &self.cfg.system_prompt {
                    params["developerInstructions"] = json!(s);
                }
                let method = match self.cfg.resume.clone() {
                    Some(thread) => {
                        params["threadId"] = json!(thread);
                        // Full-history hydration is deprecated; we need none.
                        params["excludeTurns"] = json!(true);
                        if self.cfg.fork {
                            "thread/fork"
                        } else {
                            "thread/resume"
                        }
                    }
                    None => "thread/start",
                };
                out.push(self.request(method, params, Pending::Thread));
                out
            }
            (Pending::Thread, Ok(v)) => match v.pointer("/thread/id").and_then(Value::as_str) {
                Some(t) => {
                    self.thread_id = Some(t.to_string());
                    self.model = v.get("model").and_then(Value::as_str).map(String::from);
                    self.phase = Phase::Ready;
                    vec![Action::Ready(Ok(t.to_string()))]
                }
                None => self.fail(CohostError::new(
                    ErrorCode::InvalidOutput,
                    "codex app-server opened a thread without an id",
                )),
            },
            (Pending::Initialize | Pending::Thread, Err(e)) => {
                let err = match (&self.cfg.resume, kind) {
                    (Some(t), Pending::Thread) => CohostError::new(
                        ErrorCode::ConfigInvalid,
                        format!("codex could not resume thread `{t}`: {}", e.message),
                    )
                    .with_fix("check the session id, or start a new session without resume"),
                    _ => map_error(&e.message, &Value::Null),
                };
                self.fail(err)
            }
            (Pending::TurnStart, Ok(v)) => {
                let id = v
                    .pointer("/turn/id")
                    .and_then(Value::as_str)
                    .map(String::from);
                self.turn_known(id)
            }
            (Pending::TurnStart, Err(e)) => {
                self.turn = None;
                vec![
                    Action::Event(AgentEvent::Error(map_error(&e.message, &Value::Null))),
                    Action::Event(AgentEvent::Ended {
                        reason: EndReason::Error,
                        usage: None,
                    }),
                ]
            }
            (Pending::Interrupt, Err(e)) => {
                tracing::debug!(error = %e.message, "codex turn/interrupt refused");
                Vec::new()
            }
            (Pending::Interrupt, Ok(_)) => Vec::new(),
            (Pending::Steer, Ok(_)) => vec![Action::Steered(id, Ok(()))],
            (Pending::Steer, Err(e)) => vec![Action::Steered(
                id,
                Err(CohostError::new(
                    ErrorCode::IllegalTransition,
                    format!("codex did not take the text into the turn: {}", e.message),
                )
                .with_fix("the text is queued and sent as the next turn")),
            )],
        }
    }

    /// The turn id became known (reply to `turn/start` or `turn/started`).
    fn turn_known(&mut self, id: Option<String>) -> Vec<Action> {
        let session_id = self.thread_id.clone();
        let model = self.model.clone();
        let Some(turn) = self.turn.as_mut() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if !turn.started {
            turn.started = true;
            out.push(Action::Event(AgentEvent::Started { session_id, model }));
        }
        if turn.id.is_none() {
            turn.id = id.clone();
            if turn.interrupt_wanted {
                turn.interrupt_wanted = false;
                if let Some(id) = id {
                    out.extend(self.send_interrupt(id));
                }
            }
        }
        out
    }

    fn on_notification(&mut self, method: &str, params: Value) -> Vec<Action> {
        match method {
            "turn/started" => {
                let id = serde_json::from_value::<wire::TurnParams>(params)
                    .ok()
                    .map(|p| p.turn.id);
                self.turn_known(id)
            }
            "item/agentMessage/delta" => self.delta(params, false),
            "item/reasoning/summaryTextDelta" | "item/reasoning/textDelta" => {
                self.delta(params, true)
            }
            "item/started" => self.item(params, false),
            "item/completed" => self.item(params, true),
            "thread/tokenUsage/updated" => self.usage(params),
            "error" => self.error(params),
            "turn/completed" => self.completed(params),
            m if IGNORED.contains(&m) => Vec::new(),
            m => {
                self.unknown += 1;
                tracing::debug!(method = m, "codex: unknown notification skipped");
                Vec::new()
            }
        }
    }
}

mod approvals;
mod items_events;

#[cfg(test)]
mod steer_tests;
#[cfg(test)]
mod tests;
