//! The pure state machine from stream-json lines to cohost events and the
//! lines cohost writes back. No IO, no clock: a golden transcript is a unit
//! test.
//!
//! Decisions worth knowing:
//! - Text and reasoning come only from `stream_event` deltas (the driver
//!   always asks for partial messages); whole `assistant` messages repeat
//!   them, and on API errors carry the error text, which is reported as an
//!   error rather than as answer text.
//! - A tool call is held back until it is clear whether the CLI asks for
//!   approval: Claude asks before the message's `message_stop`, Qwen right
//!   after it. A call that gets a `can_use_tool` is reported once, as
//!   `ApprovalRequested`; the others as `ToolCall`.
//! - A 401/403/404 the CLI would retry (Claude retries 10 times with backoff,
//!   minutes in total) cannot succeed by waiting: the turn fails fast with
//!   the right code and the CLI is told to stop the turn.
//! - A user message steered into a running turn may be answered inside it
//!   or by a CLI turn of its own after the turn's `result`; either way it
//!   is this cohost turn's, so a `result` ends the turn only once every
//!   steered message is answered (the `steering` module).

use cohost_core::{
    AgentEvent, ApprovalOption, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolDecision,
    ToolKind, ToolStatus, Usage,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

use super::dialect::Dialect;
use super::wire::{self, out, ContentBlock, ControlRequestBody, Delta, Line, StreamEvent};
mod results;
mod steering;

use results::{classify_result, looks_denied, result_error, text_of, to_usage};
use steering::{Lifecycle, Steering};

/// What the normalizer wants done: the shared session output. `Ready`
/// means the CLI answered our `initialize`, with the session id when it
/// sent one (Qwen does; Claude does not).
pub type Output = crate::session::Output<Option<String>>;

/// Counters for diagnostics and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lines parsed.
    pub lines: u64,
    /// Lines of a kind we do not know (skipped).
    pub unknown: u64,
    /// Lines that were not valid JSON (reported as INVALID_OUTPUT).
    pub invalid: u64,
}

#[derive(Debug)]
struct PendingApproval {
    request_id: String,
    input: Value,
}

/// Normalizer settings.
#[derive(Debug, Clone)]
pub struct NormalizerConfig {
    /// The family member.
    pub dialect: Dialect,
    /// Deny every `can_use_tool` without asking (ApprovalMode::DenyAll).
    pub deny_all: bool,
    /// Report tool calls at once: nothing will ask for approval (AutoApprove).
    pub no_approvals: bool,
}

/// The state machine. One per CLI process; turns run one after another.
#[derive(Debug)]
pub struct Normalizer {
    cfg: NormalizerConfig,
    next_request: u64,
    init_request: Option<String>,
    in_turn: bool,
    started: bool,
    session_id: Option<String>,
    model: Option<String>,
    /// Tool calls not yet reported, waiting to see if approval is asked.
    held: Vec<ToolCallInfo>,
    /// `message_stop` seen with calls held (Qwen: flush on the next line).
    flush_armed: bool,
    approvals: HashMap<String, PendingApproval>,
    announced: HashSet<String>,
    denied: HashSet<String>,
    interrupt_requested: bool,
    fatal: Option<CohostError>,
    /// Text of the current message so far is nothing / is an error report.
    message_text_seen: bool,
    suppress_message_text: bool,
    /// Messages steered into the running turn ([`steering`]).
    steering: Steering,
    stats: Stats,
}

impl Normalizer {
    /// A normalizer for one CLI process.
    pub fn new(cfg: NormalizerConfig) -> Self {
        Normalizer {
            cfg,
            next_request: 0,
            init_request: None,
            in_turn: false,
            started: false,
            session_id: None,
            model: None,
            held: Vec::new(),
            flush_armed: false,
            approvals: HashMap::new(),
            announced: HashSet::new(),
            denied: HashSet::new(),
            interrupt_requested: false,
            fatal: None,
            message_text_seen: false,
            suppress_message_text: false,
            steering: Steering::default(),
            stats: Stats::default(),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The native session id, once seen.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Whether a turn is running.
    pub fn in_turn(&self) -> bool {
        self.in_turn
    }

    fn request_id(&mut self) -> String {
        self.next_request += 1;
        format!("cohost_{}", self.next_request)
    }

    /// The `initialize` control request to write first.
    pub fn initialize(&mut self) -> String {
        let id = self.request_id();
        self.init_request = Some(id.clone());
        out::control_request(&id, "initialize")
    }

    /// Start a turn; returns the user message to write.
    pub fn begin_turn(&mut self, text: &str) -> String {
        self.begin_turn_content(serde_json::Value::from(text))
    }

    /// Start a turn whose content is a string or content blocks (images).
    pub fn begin_turn_content(&mut self, content: serde_json::Value) -> String {
        self.in_turn = true;
        self.started = false;
        self.held.clear();
        self.flush_armed = false;
        self.approvals.clear();
        self.interrupt_requested = false;
        self.fatal = None;
        self.steering.begin_turn();
        out::user_content(content)
    }

    /// Ask the CLI to stop the turn (protocol cancel); returns the line.
    /// Where the CLI can, the interrupt also drops the messages still
    /// queued, so nothing steered runs after the user stopped the turn.
    pub fn interrupt(&mut self) -> String {
        self.interrupt_requested = true;
        let id = self.request_id();
        if self.steering.cancel_queued {
            out::interrupt_cancel_queued(&id)
        } else {
            out::control_request(&id, "interrupt")
        }
    }

    /// Give `text` to the running turn as a user message named `uuid` (a
    /// fresh UUID; the CLI's `command_lifecycle` lines name it). Returns
    /// the line to write and the ticket of the [`Output::Steered`] that
    /// answers it: taken once the CLI queued or started it, refused if it
    /// did not. The turn then ends only when the CLI has answered it (the
    /// `steering` module). Refused, and the text queued by the caller,
    /// while no turn runs, while it is being stopped, and with a CLI that
    /// does not report what becomes of the message.
    pub fn steer(&mut self, text: &str, uuid: &str) -> Result<(String, u64), CohostError> {
        let id = self.cfg.dialect.id;
        let refused = |why: &str| {
            CohostError::new(
                ErrorCode::IllegalTransition,
                format!("agent `{id}` cannot take the text now: {why}"),
            )
            .with_fix("the text is queued and sent as the next turn")
        };
        if !self.in_turn {
            return Err(refused("no turn is running"));
        }
        if self.interrupt_requested || self.fatal.is_some() {
            return Err(refused("the turn is being stopped"));
        }
        if let Some(e) = self.steering.refusal(id) {
            return Err(e);
        }
        let ticket = self.steering.add(uuid);
        Ok((out::user_steer(text, uuid), ticket))
    }

    /// The answer to a pending approval.
    pub fn decide(&mut self, decision: &ToolDecision) -> Result<String, CohostError> {
        let Some(p) = self.approvals.remove(&decision.tool_id) else {
            return Err(CohostError::new(
                ErrorCode::InvalidOutput,
                format!(
                    "agent `{}` has no pending approval for tool call `{}`",
                    self.cfg.dialect.id, decision.tool_id
                ),
            )
            .with_fix("the call may have been cancelled already; nothing to do"));
        };
        if decision.option.is_allow() {
            Ok(out::allow(&p.request_id, &p.input))
        } else {
            self.denied.insert(decision.tool_id.clone());
            let why = decision
                .message
                .clone()
                .unwrap_or_else(|| "The user denied this tool call.".to_string());
            Ok(out::deny(&p.request_id, &why))
        }
    }

    /// A line longer than the framer's limit was dropped.
    pub fn on_oversized(&mut self, bytes: usize, out: &mut Vec<Output>) {
        self.stats.invalid += 1;
        out.push(Output::Event(AgentEvent::Error(
            crate::process::oversized_line_error(self.cfg.dialect.id, bytes),
        )));
    }

    /// Feed one stdout line.
    pub fn on_line(&mut self, line: &str, out: &mut Vec<Output>) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return;
        }
        self.stats.lines += 1;
        let parsed: Line = match serde_json::from_str(trimmed) {
            Ok(l) => l,
            Err(e) => {
                self.stats.invalid += 1;
                let preview: String = trimmed.chars().take(120).collect();
                out.push(Output::Event(AgentEvent::Error(
                    CohostError::new(
                        ErrorCode::InvalidOutput,
                        format!(
                            "agent `{}` printed a line that is not stream-json ({e}): {preview}",
                            self.cfg.dialect.id
                        ),
                    )
                    .with_fix("the line was skipped; if this repeats, check the agent's version")
                    .retryable(false),
                )));
                return;
            }
        };
        // Qwen asks for approval just after `message_stop`; any other line
        // means no request is coming for the calls still held.
        let is_approval = matches!(&parsed, Line::ControlRequest(r)
            if matches!(r.request, ControlRequestBody::CanUseTool { .. }));
        if self.flush_armed && !is_approval {
            self.flush_held(out);
        }
        match parsed {
            Line::System(s) => self.on_system(s, out),
            Line::StreamEvent(e) => self.on_stream_event(e, out),
            Line::Assistant(a) => self.on_assistant(a, out),
            Line::User(u) => self.on_user(u, out),
            Line::Result(r) => self.on_result(r, out),
            Line::ControlRequest(r) => self.on_control_request(r, out),
            Line::ControlResponse(r) => self.on_control_response(r, out),
            Line::CommandLifecycle(c) => self.on_lifecycle(c, out),
            Line::Unknown => self.stats.unknown += 1,
        }
    }

    fn emit(&mut self, out: &mut Vec<Output>, ev: AgentEvent) {
        if !self.in_turn {
            return; // Between turns nothing is listening.
        }
        if !self.started && !matches!(ev, AgentEvent::Started { .. }) {
            self.start(out);
        }
        out.push(Output::Event(ev));
    }

    fn start(&mut self, out: &mut Vec<Output>) {
        if self.in_turn && !self.started {
            self.started = true;
            out.push(Output::Event(AgentEvent::Started {
                session_id: self.session_id.clone(),
                model: self.model.clone(),
            }));
        }
    }

    fn note_session(&mut self, id: Option<&String>) {
        if let Some(id) = id.filter(|s| !s.is_empty()) {
            if self.session_id.as_deref() != Some(id) {
                self.session_id = Some(id.clone());
            }
        }
    }

    fn on_system(&mut self, s: wire::SystemMsg, out: &mut Vec<Output>) {
        self.note_session(s.session_id.as_ref());
        match s.subtype.as_str() {
            "init" => {
                self.steering.capabilities(&s.capabilities);
                if s.model.is_some() {
                    self.model = s.model.clone();
                }
                self.start(out);
            }
            "api_retry" => self.on_retry(
                s.error_status,
                s.attempt,
                s.max_retries,
                s.retry_delay_ms,
                s.error.as_ref().map(text_of).unwrap_or_default(),
                out,
            ),
            "retry" => {
                let d = s.data.unwrap_or(Value::Null);
                let num = |k: &str| d.get(k).and_then(Value::as_u64);
                self.on_retry(
                    None,
                    num("attempt"),
                    num("maxRetries"),
                    num("delayMs"),
                    String::new(),
                    out,
                );
            }
            // Progress notes with nothing for the user.
            "status" | "thinking_tokens" | "compact_boundary" | "hook_response"
            | "permission_denied" => {}
            _ => self.stats.unknown += 1,
        }
    }

    fn on_retry(
        &mut self,
        status: Option<u16>,
        attempt: Option<u64>,
        max: Option<u64>,
        delay_ms: Option<u64>,
        kind: String,
        out: &mut Vec<Output>,
    ) {
        let fatal_code = match status {
            Some(401) | Some(403) => Some(ErrorCode::AuthRequired),
            Some(404) => Some(ErrorCode::ModelNotAvailable),
            _ => None,
        };
        if let (Some(code), Some(st)) = (fatal_code, status) {
            if self.fatal.is_none() && self.in_turn {
                let e = result_error(
                    self.cfg.dialect.id,
                    code,
                    &format!("the model API answered {st} ({kind})"),
                );
                self.fatal = Some(e.clone());
                self.emit(out, AgentEvent::Error(e));
                let line = self.interrupt();
                out.push(Output::Write(line));
            }
            return;
        }
        let what = status.map_or_else(|| "failed".to_string(), |s| format!("answered {s}"));
        let message = format!(
            "the model API {what}{}; retry {}/{} in {} ms",
            if kind.is_empty() {
                String::new()
            } else {
                format!(" ({kind})")
            },
            attempt.unwrap_or(0),
            max.unwrap_or(0),
            delay_ms.unwrap_or(0)
        );
        self.emit(
            out,
            AgentEvent::Status {
                message,
                retry_after_ms: delay_ms,
            },
        );
    }

    fn on_stream_event(&mut self, e: wire::StreamEventMsg, out: &mut Vec<Output>) {
        self.note_session(e.session_id.as_ref());
        if e.parent_tool_use_id.is_some() {
            return; // A sub-agent's own stream: its tool calls surface as approvals.
        }
        match e.event {
            StreamEvent::MessageStart { message } => {
                self.message_text_seen = false;
                self.suppress_message_text = false;
                if message.model.is_some() && self.model.is_none() {
                    self.model = message.model;
                }
            }
            StreamEvent::ContentBlockDelta { delta } => match delta {
                Delta::TextDelta { text } if !text.is_empty() => {
                    if !self.message_text_seen {
                        self.message_text_seen = true;
                        self.suppress_message_text = self
                            .cfg
                            .dialect
                            .error_text_prefix
                            .is_some_and(|p| text.starts_with(p));
                    }
                    if !self.suppress_message_text {
                        self.emit(out, AgentEvent::TextDelta(text));
                    }
                }
                Delta::ThinkingDelta { thinking } if !thinking.is_empty() => {
                    self.emit(out, AgentEvent::ReasoningDelta(thinking));
                }
                _ => {}
            },
            StreamEvent::MessageStop {} => {
                if self.cfg.dialect.approval_after_message_stop {
                    self.flush_armed = !self.held.is_empty();
                } else {
                    self.flush_held(out);
                }
            }
            StreamEvent::ContentBlockStart {}
            | StreamEvent::ContentBlockStop {}
            | StreamEvent::MessageDelta {} => {}
            StreamEvent::Unknown => self.stats.unknown += 1,
        }
    }

    fn on_assistant(&mut self, a: wire::AssistantMsg, out: &mut Vec<Output>) {
        self.note_session(a.session_id.as_ref());
        if a.parent_tool_use_id.is_some() {
            return;
        }
        for block in a.message.content {
            if let ContentBlock::ToolUse { id, name, input } = block {
                if self.announced.contains(&id) {
                    continue;
                }
                let call = ToolCallInfo {
                    kind: ToolKind::from_tool_name(&name),
                    tool_id: id,
                    name,
                    input,
                };
                if self.cfg.no_approvals {
                    self.announced.insert(call.tool_id.clone());
                    self.emit(out, AgentEvent::ToolCall(call));
                } else {
                    self.held.push(call);
                }
            }
        }
    }

    fn flush_held(&mut self, out: &mut Vec<Output>) {
        self.flush_armed = false;
        for call in std::mem::take(&mut self.held) {
            if self.announced.insert(call.tool_id.clone()) {
                self.emit(out, AgentEvent::ToolCall(call));
            }
        }
    }

    fn on_user(&mut self, u: wire::UserMsg, out: &mut Vec<Output>) {
        self.flush_held(out);
        if u.parent_tool_use_id.is_some() {
            return;
        }
        let rejected: HashSet<String> = u
            .tool_result_meta
            .iter()
            .filter(|m| {
                m.permission_decision
                    .as_ref()
                    .and_then(|d| d.decision.as_deref())
                    == Some("reject")
            })
            .filter_map(|m| m.id.clone())
            .collect();
        let wire::UserContent::Blocks(blocks) = u.message.content else {
            return;
        };
        for block in blocks {
            if let ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } = block
            {
                let output = text_of(&content);
                let status = if !is_error.unwrap_or(false) {
                    ToolStatus::Ok
                } else if self.denied.remove(&tool_use_id)
                    || rejected.contains(&tool_use_id)
                    || looks_denied(&output)
                {
                    ToolStatus::Denied
                } else {
                    ToolStatus::Error
                };
                self.approvals.remove(&tool_use_id);
                self.emit(
                    out,
                    AgentEvent::ToolExecuted {
                        tool_id: tool_use_id,
                        status,
                        output,
                    },
                );
            }
        }
    }

    fn on_control_request(&mut self, r: wire::ControlRequest, out: &mut Vec<Output>) {
        match r.request {
            ControlRequestBody::CanUseTool {
                tool_name,
                input,
                tool_use_id,
            } => {
                // Without an id we still need one to correlate the decision.
                let tool_id = tool_use_id.unwrap_or_else(|| r.request_id.clone());
                self.held.retain(|c| c.tool_id != tool_id);
                let call = ToolCallInfo {
                    kind: ToolKind::from_tool_name(&tool_name),
                    tool_id: tool_id.clone(),
                    name: tool_name,
                    input: input.clone(),
                };
                if self.cfg.deny_all || !self.in_turn {
                    // DenyAll: refuse here, and still show the call.
                    self.denied.insert(tool_id.clone());
                    if self.announced.insert(tool_id) {
                        self.emit(out, AgentEvent::ToolCall(call));
                    }
                    out.push(Output::Write(out::deny(
                        &r.request_id,
                        "Tool use is disabled by the user's policy (cohost --approve none).",
                    )));
                    return;
                }
                self.announced.insert(tool_id.clone());
                self.approvals.insert(
                    tool_id,
                    PendingApproval {
                        request_id: r.request_id,
                        input,
                    },
                );
                self.emit(
                    out,
                    AgentEvent::ApprovalRequested {
                        call,
                        options: ApprovalOption::ALL.to_vec(),
                    },
                );
            }
            ControlRequestBody::Unknown => {
                self.stats.unknown += 1;
                out.push(Output::Write(out::unsupported(&r.request_id, "unknown")));
            }
        }
    }

    fn on_control_response(&mut self, r: wire::ControlResponseMsg, out: &mut Vec<Output>) {
        let body = r.response;
        if self.init_request.as_deref() == Some(body.request_id.as_str()) {
            self.init_request = None;
            let session_id = body
                .response
                .as_ref()
                .and_then(|v| v.get("session_id"))
                .and_then(Value::as_str)
                .map(str::to_string);
            self.note_session(session_id.as_ref());
            out.push(Output::Ready(Ok(session_id)));
        } else if body.subtype == "error" {
            let why = body.error.as_ref().map(text_of).unwrap_or_default();
            tracing::debug!(provider = self.cfg.dialect.id, %why, "control request refused");
        }
    }

    fn on_result(&mut self, r: wire::ResultMsg, out: &mut Vec<Output>) {
        self.flush_held(out);
        self.note_session(r.session_id.as_ref());
        // A failed result before `initialize` is answered is why the CLI
        // will not start (Qwen without an auth type): the handshake fails
        // with it, typed, instead of "exited before answering".
        if self.init_request.is_some() && (r.is_error || r.subtype != "success") {
            self.init_request = None;
            out.push(Output::Ready(Err(classify_result(self.cfg.dialect.id, &r))));
        }
        if !self.in_turn {
            return;
        }
        // Usage events of a turn are running totals: with a steered
        // message answered by a `result` of its own, the sum of both.
        self.steering.add_usage(r.usage.as_ref().map(to_usage));
        if let Some(u) = self.steering.usage().filter(|u| !u.is_empty()) {
            self.emit(out, AgentEvent::Usage(u));
        }
        let reason = if self.fatal.is_some() {
            EndReason::Error
        } else if r.subtype == "success" && !r.is_error {
            EndReason::Completed
        } else if self.interrupt_requested && r.subtype == "error_during_execution" {
            EndReason::Interrupted
        } else if r.subtype == "error_max_turns" {
            EndReason::MaxTurns
        } else {
            let e = classify_result(self.cfg.dialect.id, &r);
            self.emit(out, AgentEvent::Error(e));
            EndReason::Error
        };
        let stopping = self.interrupt_requested && self.steering.cancel_queued;
        match self.steering.on_result(reason, stopping) {
            Some((reason, usage)) => self.end_turn(reason, usage, out),
            None => tracing::debug!(
                provider = self.cfg.dialect.id,
                "a result with steered text still to answer: the turn goes on"
            ),
        }
    }

    fn end_turn(&mut self, reason: EndReason, usage: Option<Usage>, out: &mut Vec<Output>) {
        self.emit(out, AgentEvent::Ended { reason, usage });
        self.in_turn = false;
        self.approvals.clear();
    }

    fn on_lifecycle(&mut self, c: wire::CommandLifecycleMsg, out: &mut Vec<Output>) {
        let id = self.cfg.dialect.id;
        match self.steering.on_lifecycle(&c.command_uuid, &c.state, id) {
            Lifecycle::Answer(ticket, answer) => out.push(Output::Steered(ticket, answer)),
            Lifecycle::Nothing => {}
        }
        if !self.in_turn {
            return;
        }
        // A steer still queued when the turn's last `result` came, and
        // then dropped (an interrupt with `cancel_queued`): no further
        // `result` will come, so the turn ends here.
        if let Some((reason, usage)) = self.steering.after_lifecycle() {
            let reason = if self.interrupt_requested && reason == EndReason::Completed {
                EndReason::Interrupted
            } else {
                reason
            };
            self.end_turn(reason, usage, out);
        }
    }
}
