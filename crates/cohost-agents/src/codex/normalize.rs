//! The sans-IO core of the codex app-server driver: JSON-RPC lines in,
//! [`AgentEvent`]s and lines to write out. No process, no clock.
//!
//! Handshake: `initialize` → `initialized` → `thread/start` (or
//! `thread/resume`). Per turn: `turn/start`, then notifications until
//! `turn/completed`. Server requests ending in `requestApproval` (plus the
//! legacy `applyPatchApproval`/`execCommandApproval`) become approvals; every
//! other server request gets a JSON-RPC error at once so codex never hangs.

use cohost_core::{
    AgentEvent, ApprovalMode, ApprovalOption, CohostError, EndReason, ErrorCode, ToolCallInfo,
    ToolKind, ToolStatus, Usage,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

use super::errors::map_error;
use super::wire::{self, DeltaParams, Incoming, ItemParams, ThreadItem};

/// What the core wants done.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Hand this event to the current turn.
    Emit(AgentEvent),
    /// Write this line to the app-server's stdin.
    Send(String),
}

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
    /// Extra developer instructions.
    pub system_prompt: Option<String>,
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
}

/// How an approval must be answered.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    /// v2: `{"decision":"accept"|"acceptForSession"|"decline"}`.
    Decision,
    /// Legacy: `{"decision":"approved"|"approved_for_session"|"denied"}`.
    Review,
    /// `item/permissions/requestApproval`: grant the requested profile or nothing.
    Permissions(Value),
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

    fn request(&mut self, method: &str, params: Value, kind: Pending) -> Action {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(id, kind);
        Action::Send(wire::request(id, method, params))
    }

    /// Begin the handshake.
    pub fn start(&mut self) -> Vec<Action> {
        self.phase = Phase::Handshaking;
        let params = json!({"clientInfo": {"name": "cohost", "title": "cohost", "version": env!("CARGO_PKG_VERSION")}});
        vec![self.request("initialize", params, Pending::Initialize)]
    }

    /// Start a turn with `text`.
    pub fn start_turn(&mut self, text: &str) -> Result<Vec<Action>, CohostError> {
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
        let params = json!({"threadId": thread, "input": [{"type": "text", "text": text}]});
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
        Ok(vec![Action::Send(wire::reply(
            &rpc_id,
            answer_body(&answer, option),
        ))])
    }

    /// Feed one stdout line.
    pub fn on_line(&mut self, line: &str) -> Vec<Action> {
        match Incoming::parse(line) {
            Ok(Incoming::Response { id, result }) => self.on_response(id, result),
            Ok(Incoming::Request { id, method, params }) => self.on_request(id, &method, params),
            Ok(Incoming::Notification { method, params }) => self.on_notification(&method, params),
            Err(e) => {
                let shown: String = line.chars().take(120).collect();
                vec![Action::Emit(AgentEvent::Error(
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
                let mut out = vec![Action::Send(wire::notification("initialized"))];
                let sandbox = match self.cfg.approval {
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
                        "thread/resume"
                    }
                    None => "thread/start",
                };
                out.push(self.request(method, params, Pending::Thread));
                out
            }
            (Pending::Thread, Ok(v)) => {
                match v.pointer("/thread/id").and_then(Value::as_str) {
                    Some(t) => {
                        self.thread_id = Some(t.to_string());
                        self.model = v.get("model").and_then(Value::as_str).map(String::from);
                        self.phase = Phase::Ready;
                    }
                    None => {
                        self.phase = Phase::Failed(CohostError::new(
                            ErrorCode::InvalidOutput,
                            "codex app-server opened a thread without an id",
                        ));
                    }
                }
                Vec::new()
            }
            (Pending::Initialize | Pending::Thread, Err(e)) => {
                let err = match (&self.cfg.resume, kind) {
                    (Some(t), Pending::Thread) => CohostError::new(
                        ErrorCode::ConfigInvalid,
                        format!("codex could not resume thread `{t}`: {}", e.message),
                    )
                    .with_fix("check the session id, or start a new session without resume"),
                    _ => map_error(&e.message, &Value::Null),
                };
                self.phase = Phase::Failed(err);
                Vec::new()
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
                    Action::Emit(AgentEvent::Error(map_error(&e.message, &Value::Null))),
                    Action::Emit(AgentEvent::Ended {
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
            out.push(Action::Emit(AgentEvent::Started { session_id, model }));
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

    fn on_request(&mut self, id: Value, method: &str, params: Value) -> Vec<Action> {
        let answer = match method {
            "applyPatchApproval" | "execCommandApproval" => Answer::Review,
            "item/permissions/requestApproval" => {
                Answer::Permissions(params.get("permissions").cloned().unwrap_or(json!({})))
            }
            m if m.ends_with("requestApproval") => Answer::Decision,
            _ => {
                self.unknown += 1;
                return vec![Action::Send(wire::reply_error(
                    &id,
                    -32601,
                    &format!("cohost does not support `{method}`"),
                ))];
            }
        };
        let call = self.approval_call(method, &id, &params);
        if let Some(turn) = self.turn.as_mut() {
            turn.announced.insert(call.tool_id.clone());
            turn.held.remove(&call.tool_id);
        }
        match self.cfg.approval {
            ApprovalMode::Ask => {
                self.approvals.insert(call.tool_id.clone(), (id, answer));
                vec![Action::Emit(AgentEvent::ApprovalRequested {
                    call,
                    options: ApprovalOption::ALL.to_vec(),
                })]
            }
            // Policy decides at once; the call is still reported.
            ApprovalMode::AutoApprove | ApprovalMode::DenyAll => {
                let option = if self.cfg.approval == ApprovalMode::AutoApprove {
                    ApprovalOption::AllowOnce
                } else {
                    ApprovalOption::RejectOnce
                };
                vec![
                    Action::Emit(AgentEvent::ToolCall(call)),
                    Action::Send(wire::reply(&id, answer_body(&answer, option))),
                ]
            }
        }
    }

    fn approval_call(&self, method: &str, rpc_id: &Value, p: &Value) -> ToolCallInfo {
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(String::from);
        let tool_id = s("itemId")
            .or_else(|| s("callId"))
            .unwrap_or_else(|| rpc_id.to_string());
        if let Some(held) = self.turn.as_ref().and_then(|t| t.held.get(&tool_id)) {
            return held.clone();
        }
        let (name, kind, input) = match method {
            "item/commandExecution/requestApproval" => (
                "shell",
                ToolKind::Execute,
                json!({"command": p.get("command"), "cwd": p.get("cwd"), "reason": p.get("reason")}),
            ),
            "execCommandApproval" => (
                "shell",
                ToolKind::Execute,
                json!({"command": p.get("command"), "cwd": p.get("cwd")}),
            ),
            "item/fileChange/requestApproval" => (
                "apply_patch",
                ToolKind::Edit,
                json!({"reason": p.get("reason"), "grantRoot": p.get("grantRoot")}),
            ),
            "applyPatchApproval" => (
                "apply_patch",
                ToolKind::Edit,
                json!({"files": p.get("fileChanges").and_then(Value::as_object).map(|m| m.keys().cloned().collect::<Vec<_>>())}),
            ),
            "item/permissions/requestApproval" => (
                "permissions",
                ToolKind::Other,
                json!({"permissions": p.get("permissions"), "reason": p.get("reason")}),
            ),
            other => (other, ToolKind::Other, p.clone()),
        };
        ToolCallInfo {
            tool_id,
            name: name.to_string(),
            kind,
            input,
        }
    }

    fn on_notification(&mut self, method: &str, params: Value) -> Vec<Action> {
        match method {
            "turn/started" => {
                let id = params
                    .pointer("/turn/id")
                    .and_then(Value::as_str)
                    .map(String::from);
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

    fn delta(&mut self, params: Value, reasoning: bool) -> Vec<Action> {
        let (Some(turn), Ok(d)) = (
            self.turn.as_mut(),
            serde_json::from_value::<DeltaParams>(params),
        ) else {
            return Vec::new();
        };
        turn.delta_items.insert(d.item_id);
        if d.delta.is_empty() {
            return Vec::new();
        }
        vec![Action::Emit(if reasoning {
            AgentEvent::ReasoningDelta(d.delta)
        } else {
            AgentEvent::TextDelta(d.delta)
        })]
    }

    fn item(&mut self, params: Value, completed: bool) -> Vec<Action> {
        let auto = self.cfg.approval == ApprovalMode::AutoApprove;
        let (Some(turn), Ok(p)) = (
            self.turn.as_mut(),
            serde_json::from_value::<ItemParams>(params),
        ) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        match p.item {
            // Items streamed as deltas are done; the rest arrive whole.
            ThreadItem::AgentMessage { id, text } => {
                if completed && !turn.delta_items.contains(&id) && !text.is_empty() {
                    out.push(Action::Emit(AgentEvent::TextDelta(text)));
                }
            }
            ThreadItem::Reasoning {
                id,
                summary,
                content,
            } => {
                let text = if summary.is_empty() { content } else { summary }.join("\n");
                if completed && !turn.delta_items.contains(&id) && !text.is_empty() {
                    out.push(Action::Emit(AgentEvent::ReasoningDelta(text)));
                }
            }
            ThreadItem::Unknown => {}
            tool => {
                let Some((call, result)) = tool_call(tool) else {
                    return out;
                };
                let id = call.tool_id.clone();
                if !completed {
                    // Under `never` nothing will ask: report the call now.
                    // Otherwise hold it: an approval request may follow, and
                    // a call that needs a decision is not a plain tool_call.
                    if auto {
                        turn.announced.insert(id);
                        out.push(Action::Emit(AgentEvent::ToolCall(call)));
                    } else {
                        turn.held.insert(id, call);
                    }
                    return out;
                }
                if turn.announced.insert(id.clone()) {
                    let call = turn.held.remove(&id).unwrap_or(call);
                    out.push(Action::Emit(AgentEvent::ToolCall(call)));
                }
                if let Some((status, output)) = result {
                    out.push(Action::Emit(AgentEvent::ToolExecuted {
                        tool_id: id,
                        status,
                        output,
                    }));
                }
            }
        }
        out
    }

    fn usage(&mut self, params: Value) -> Vec<Action> {
        let (Some(turn), Ok(p)) = (
            self.turn.as_mut(),
            serde_json::from_value::<wire::TokenUsageParams>(params),
        ) else {
            return Vec::new();
        };
        // `thread/resume` replays the previous turn's usage, possibly after
        // our `turn/start`; count only updates for this turn's id (which is
        // always known before the model answers).
        if turn.id.as_deref() != Some(p.turn_id.as_str()) {
            return Vec::new();
        }
        let l = p.token_usage.last;
        let u = &mut turn.usage;
        u.input_tokens += l.input_tokens.saturating_sub(l.cached_input_tokens);
        u.cache_read_tokens += l.cached_input_tokens;
        u.cache_write_tokens += l.cache_write_input_tokens;
        u.output_tokens += l.output_tokens;
        u.reasoning_tokens += l.reasoning_output_tokens;
        vec![Action::Emit(AgentEvent::Usage(*u))]
    }

    fn error(&mut self, params: Value) -> Vec<Action> {
        let Ok(p) = serde_json::from_value::<wire::ErrorParams>(params) else {
            return Vec::new();
        };
        if p.will_retry {
            return vec![Action::Emit(AgentEvent::Status {
                message: format!("codex is retrying: {}", p.error.message),
                retry_after_ms: None,
            })];
        }
        if let Some(t) = self.turn.as_mut() {
            t.errored = true;
        }
        vec![Action::Emit(AgentEvent::Error(map_error(
            &p.error.message,
            &p.error.codex_error_info,
        )))]
    }

    fn completed(&mut self, params: Value) -> Vec<Action> {
        let Some(turn) = self.turn.take() else {
            return Vec::new();
        };
        self.approvals.clear();
        let Ok(p) = serde_json::from_value::<wire::TurnParams>(params) else {
            return vec![Action::Emit(AgentEvent::Ended {
                reason: EndReason::Error,
                usage: None,
            })];
        };
        let usage = (!turn.usage.is_empty()).then_some(turn.usage);
        let mut out = Vec::new();
        let reason = match p.turn.status.as_str() {
            "completed" => EndReason::Completed,
            "interrupted" => EndReason::Interrupted,
            _ => {
                if !turn.errored {
                    let e = match &p.turn.error {
                        Some(e) => map_error(&e.message, &e.codex_error_info),
                        None => CohostError::new(
                            ErrorCode::InvalidOutput,
                            format!("codex ended the turn with status `{}`", p.turn.status),
                        ),
                    };
                    out.push(Action::Emit(AgentEvent::Error(e)));
                }
                EndReason::Error
            }
        };
        out.push(Action::Emit(AgentEvent::Ended { reason, usage }));
        out
    }
}

fn answer_body(answer: &Answer, option: ApprovalOption) -> Value {
    match answer {
        Answer::Decision => json!({"decision": match option {
            ApprovalOption::AllowOnce => "accept",
            ApprovalOption::AllowAlways => "acceptForSession",
            ApprovalOption::RejectOnce | ApprovalOption::RejectAlways => "decline",
        }}),
        Answer::Review => json!({"decision": match option {
            ApprovalOption::AllowOnce => "approved",
            ApprovalOption::AllowAlways => "approved_for_session",
            ApprovalOption::RejectOnce | ApprovalOption::RejectAlways => "denied",
        }}),
        Answer::Permissions(requested) => {
            let scope = if option == ApprovalOption::AllowAlways {
                "session"
            } else {
                "turn"
            };
            let granted = if option.is_allow() {
                requested.clone()
            } else {
                json!({})
            };
            json!({"permissions": granted, "scope": scope})
        }
    }
}

type ToolResult = Option<(ToolStatus, String)>;

/// A tool item as a call, plus its outcome when it is finished.
fn tool_call(item: ThreadItem) -> Option<(ToolCallInfo, ToolResult)> {
    let status_of = |s: &str| match s {
        "completed" => Some(ToolStatus::Ok),
        "failed" => Some(ToolStatus::Error),
        "declined" => Some(ToolStatus::Denied),
        _ => None,
    };
    Some(match item {
        ThreadItem::CommandExecution {
            id,
            command,
            cwd,
            status,
            aggregated_output,
            exit_code,
        } => {
            let status = match (status_of(&status), exit_code) {
                (Some(ToolStatus::Ok), Some(c)) if c != 0 => Some(ToolStatus::Error),
                (s, _) => s,
            };
            (
                ToolCallInfo {
                    tool_id: id,
                    name: "shell".into(),
                    kind: ToolKind::Execute,
                    input: json!({"command": command, "cwd": cwd}),
                },
                status.map(|s| (s, aggregated_output.unwrap_or_default())),
            )
        }
        ThreadItem::FileChange {
            id,
            changes,
            status,
        } => {
            let kinds: Vec<&str> = changes
                .iter()
                .map(|c| {
                    c.kind
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("update")
                })
                .collect();
            let kind = if !kinds.is_empty() && kinds.iter().all(|k| *k == "delete") {
                ToolKind::Delete
            } else {
                ToolKind::Edit
            };
            let files: Vec<Value> = changes
                .iter()
                .zip(&kinds)
                .map(|(c, k)| json!({"path": c.path, "kind": k}))
                .collect();
            let summary = files
                .iter()
                .filter_map(|f| f["path"].as_str())
                .collect::<Vec<_>>()
                .join(", ");
            (
                ToolCallInfo {
                    tool_id: id,
                    name: "apply_patch".into(),
                    kind,
                    input: json!({"changes": files}),
                },
                status_of(&status).map(|s| (s, summary)),
            )
        }
        ThreadItem::McpToolCall {
            id,
            server,
            tool,
            arguments,
            status,
            result,
            error,
        } => {
            let output = if error.is_null() { result } else { error };
            (
                ToolCallInfo {
                    tool_id: id,
                    kind: ToolKind::from_tool_name(&tool),
                    name: format!("{server}/{tool}"),
                    input: arguments,
                },
                status_of(&status).map(|s| (s, compact(&output))),
            )
        }
        ThreadItem::WebSearch { id, query } => (
            ToolCallInfo {
                tool_id: id,
                name: "web_search".into(),
                kind: ToolKind::Fetch,
                input: json!({"query": query}),
            },
            Some((ToolStatus::Ok, String::new())),
        ),
        _ => return None,
    })
}

fn compact(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
