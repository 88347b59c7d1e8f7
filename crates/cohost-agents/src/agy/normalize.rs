//! The pure state machine of one long-lived `agy --input-format stream-json
//! --output-format stream-json` process: a turn's text in, its stdin line
//! out; stdout lines in, [`AgentEvent`]s and the conversation binding out.
//! No IO, no clock: a transcript is a unit test and a fuzz target.
//!
//! Decisions worth knowing:
//! - `init` arrives once per process, after its first input line; it binds
//!   the conversation ([`Effect::Bound`]), which a restarted process resumes
//!   with `--conversation`. A step's or result's `conversation_id` binds
//!   only when nothing did yet.
//! - A turn's `Started` carries the bound conversation; it goes out with the
//!   turn's first event, so on a fresh process it is `init`'s.
//! - Answer text is a delta, but a `DONE` update may repeat the step's whole
//!   text and some builds resend cumulative text (seen by the pi bridge):
//!   only the new suffix is emitted. When a turn streamed no text at all,
//!   `result.response` is the answer.
//! - Every `usage` is reported as it arrives ([`AgentEvent::Usage`]); the
//!   last one is the turn's usage at `Ended` unless `result` carries its own.
//! - agy documents no in-band cancel: [`AgyCore::interrupt`] ends the turn
//!   itself and asks for the process to go ([`Effect::Stop`]); nothing a
//!   dying process prints afterwards reaches a turn.

use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};
use serde_json::Value;
use std::collections::HashMap;

use super::wire::{self, AgyEvent, Init, Step, TurnResult, WireUsage};
use crate::process::classify_stderr;

/// A side effect of the core that the session performs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Effect {
    /// The process serves this conversation (a restart resumes it).
    Bound(String),
    /// The turn was stopped here; the process must be stopped too, or it
    /// would go on working and its late lines would reach the next turn.
    Stop,
}

/// What the core wants done: the shared session output, with no handshake
/// (agy answers nothing before the first turn).
pub type Output = crate::session::Output<(), Effect>;

/// Counters for diagnostics and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Non-blank lines read.
    pub lines: u64,
    /// Events or steps of a kind cohost does not know (skipped).
    pub unknown: u64,
    /// Lines that are no agy event ([`wire::WireError`]) or were too long.
    pub invalid: u64,
    /// Events that arrived while no turn was running (dropped).
    pub outside_turn: u64,
}

/// Answer text shorter than this is never taken for a cumulative resend:
/// ordinary deltas ("**", "\n") extend short prefixes all the time.
const CUMULATIVE_MIN_CHARS: usize = 32;

/// What the core remembers of one step of the running turn.
#[derive(Debug, Default)]
struct StepSeen {
    kind: String,
    text: String,
    announced: bool,
    finished: bool,
}

/// The running turn.
#[derive(Debug, Default)]
struct Turn {
    started: bool,
    usage: Option<Usage>,
    text_streamed: bool,
    invalid_reported: bool,
    steps: HashMap<u64, StepSeen>,
    /// Tool steps that came without an index.
    anonymous_tools: u64,
    /// Events held until the turn's `Started`, so that a line agy printed
    /// before `init` does not start the turn without its conversation.
    held: Vec<AgentEvent>,
}

/// The state machine of one agy process; turns run one after another.
#[derive(Debug, Default)]
pub struct AgyCore {
    conversation: Option<String>,
    model: Option<String>,
    turn: Option<Turn>,
    /// Turns begun, for tool ids unique across the process's turns.
    turns: u64,
    stats: Stats,
}

fn to_usage(u: &WireUsage) -> Usage {
    Usage {
        input_tokens: u.input_tokens.unwrap_or(0),
        output_tokens: u.output_tokens.unwrap_or(0),
        reasoning_tokens: u.thinking_tokens.unwrap_or(0),
        cache_read_tokens: u.cache_read_tokens.unwrap_or(0),
        cache_write_tokens: 0,
    }
}

/// The part of `text` not streamed yet for a step whose text so far is
/// `seen`; `done`: the step's closing update, which may repeat it all.
fn fresh_text<'a>(seen: &mut String, text: &'a str, done: bool) -> Option<&'a str> {
    if text.is_empty() || (done && text == seen.as_str()) {
        return None;
    }
    let resend = !seen.is_empty()
        && text.len() > seen.len()
        && (done || seen.chars().count() >= CUMULATIVE_MIN_CHARS);
    let fresh = match text.strip_prefix(seen.as_str()) {
        Some(rest) if resend => rest,
        _ => text,
    };
    seen.push_str(fresh);
    Some(fresh)
}

/// The fix for an error agy reported.
fn fix_for(code: ErrorCode) -> String {
    match code {
        ErrorCode::AuthRequired => crate::catalog::login_fix("agy")
            .unwrap_or_else(|| "sign in to Antigravity (`agy`) and retry".into()),
        ErrorCode::RateLimited => "wait for the Antigravity quota to refill and retry".into(),
        ErrorCode::ContextWindowExceeded => "start a new session or shorten the prompt".into(),
        ErrorCode::ModelNotAvailable => "pick a model agy offers (`--model`)".into(),
        ErrorCode::Timeout => "retry; agy gave up on the turn itself".into(),
        _ => "retry; if it repeats, run `agy` by hand to see the problem".into(),
    }
}

impl AgyCore {
    /// The core of a process started for `conversation` (`--conversation`),
    /// or for a new one.
    pub fn new(conversation: Option<String>) -> Self {
        AgyCore {
            conversation,
            ..AgyCore::default()
        }
    }

    /// The conversation bound so far.
    pub fn conversation(&self) -> Option<&str> {
        self.conversation.as_deref()
    }

    /// Whether a turn is running.
    pub fn in_turn(&self) -> bool {
        self.turn.is_some()
    }

    /// Counters so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Start a turn: the line to write goes to `out`. Refused while one runs
    /// (agy reads its stdin as one queue of turns).
    pub fn begin_turn(&mut self, text: &str, out: &mut Vec<Output>) -> Result<(), CohostError> {
        if self.turn.is_some() {
            return Err(CohostError::new(
                ErrorCode::IllegalTransition,
                "agent `agy` is already running a turn",
            )
            .with_fix("wait for the turn to end or interrupt it"));
        }
        self.turns += 1;
        self.turn = Some(Turn::default());
        out.push(Output::Write(wire::user_line(text)));
        Ok(())
    }

    /// Stop the running turn (no-op between turns): it ends `Interrupted`
    /// now, and the process is asked to go.
    pub fn interrupt(&mut self, out: &mut Vec<Output>) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        out.push(Output::Event(AgentEvent::Ended {
            reason: EndReason::Interrupted,
            usage: turn.usage,
        }));
        out.push(Output::Effect(Effect::Stop));
    }

    /// A line longer than the framer's limit was dropped.
    pub fn on_oversized(&mut self, bytes: usize, out: &mut Vec<Output>) {
        self.stats.invalid += 1;
        self.emit(
            AgentEvent::Error(crate::process::oversized_line_error("agy", bytes)),
            out,
        );
    }

    /// Feed one stdout line.
    pub fn on_line(&mut self, line: &str, out: &mut Vec<Output>) {
        if line.trim().is_empty() {
            return;
        }
        self.stats.lines += 1;
        match wire::parse_line(line) {
            Ok(AgyEvent::Init(init)) => self.on_init(init, out),
            Ok(AgyEvent::Step(step)) => self.on_step(step, out),
            Ok(AgyEvent::Result(result)) => self.on_result(result, out),
            Ok(_) => self.stats.unknown += 1,
            Err(e) => self.on_invalid(line, &e, out),
        }
    }

    fn on_invalid(&mut self, line: &str, e: &wire::WireError, out: &mut Vec<Output>) {
        self.stats.invalid += 1;
        tracing::debug!(error = %e, "agy printed a line that is not an event");
        // One report per turn: a build that decorates its output would
        // otherwise bury the answer in errors.
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if std::mem::replace(&mut turn.invalid_reported, true) {
            return;
        }
        let preview: String = line.trim().chars().take(120).collect();
        let err = CohostError::new(
            ErrorCode::InvalidOutput,
            format!("agent `agy` printed a line that is not a stream-json event ({e}): {preview}"),
        )
        .with_fix("the line was skipped; if this repeats, check the agy version")
        .retryable(false);
        if turn.started {
            self.emit(AgentEvent::Error(err), out);
        } else {
            turn.held.push(AgentEvent::Error(err));
        }
    }

    /// Bind `id`; `overrides`: an `init` (the process's own word) replaces
    /// an earlier binding, anything else only fills an empty one.
    fn bind(&mut self, id: Option<String>, overrides: bool, out: &mut Vec<Output>) {
        let Some(id) = id.filter(|i| !i.is_empty()) else {
            return;
        };
        if self.conversation.as_deref() == Some(id.as_str())
            || (self.conversation.is_some() && !overrides)
        {
            return;
        }
        self.conversation = Some(id.clone());
        out.push(Output::Effect(Effect::Bound(id)));
    }

    /// Push `ev` to the running turn, `Started` first; dropped between turns.
    fn emit(&mut self, ev: AgentEvent, out: &mut Vec<Output>) {
        if self.turn.is_none() {
            self.stats.outside_turn += 1;
            return;
        }
        self.start(out);
        out.push(Output::Event(ev));
    }

    /// `Started` and what was held for it, if the turn has not sent it yet.
    fn start(&mut self, out: &mut Vec<Output>) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if std::mem::replace(&mut turn.started, true) {
            return;
        }
        out.push(Output::Event(AgentEvent::Started {
            session_id: self.conversation.clone(),
            model: self.model.clone(),
        }));
        out.extend(turn.held.drain(..).map(Output::Event));
    }

    fn on_usage(&mut self, u: &WireUsage, out: &mut Vec<Output>) {
        let usage = to_usage(u);
        if let Some(turn) = self.turn.as_mut() {
            turn.usage = Some(usage);
        }
        self.emit(AgentEvent::Usage(usage), out);
    }

    fn on_init(&mut self, init: Init, out: &mut Vec<Output>) {
        self.bind(init.conversation_id, true, out);
        if init.model.is_some() {
            self.model = init.model;
        }
        if self.turn.is_none() {
            self.stats.outside_turn += 1;
            return;
        }
        self.start(out);
        if let Some(u) = &init.usage {
            self.on_usage(u, out);
        }
    }

    fn on_step(&mut self, step: Step, out: &mut Vec<Output>) {
        self.bind(step.conversation_id.clone(), false, out);
        let Some(turn) = self.turn.as_mut() else {
            self.stats.outside_turn += 1;
            return;
        };
        // A step's closing update may name only its index: its kind is the
        // one its earlier updates gave.
        let kind = match (step.step_type.clone(), step.step_index) {
            (Some(kind), Some(i)) => {
                turn.steps.entry(i).or_default().kind.clone_from(&kind);
                kind
            }
            (Some(kind), None) => kind,
            (None, Some(i)) => turn
                .steps
                .get(&i)
                .map(|s| s.kind.clone())
                .unwrap_or_default(),
            (None, None) => String::new(),
        };
        self.start(out);
        match kind.as_str() {
            "agent_response" => self.on_response(&step, out),
            "tool" => self.on_tool(&step, out),
            // The echoed prompt, checkpoints and agy's own notes carry
            // nothing to show.
            "user_input" | "checkpoint" | "system_message" => {}
            _ => self.stats.unknown += 1,
        }
        // After the step's own events: the count includes what they carried.
        if let Some(u) = &step.usage {
            self.on_usage(u, out);
        }
    }

    fn on_response(&mut self, step: &Step, out: &mut Vec<Output>) {
        let done = step.state.as_deref() == Some("DONE");
        let text = step.text_delta.as_deref().or(step.response_text.as_deref());
        let mut events = Vec::new();
        // Without an index nothing can be repeated: every text is a delta.
        let mut unindexed = String::new();
        if let Some(turn) = self.turn.as_mut() {
            if let Some(t) = step.thought_text.as_deref().filter(|t| !t.is_empty()) {
                events.push(AgentEvent::ReasoningDelta(t.to_string()));
            }
            if let Some(text) = text {
                let seen = match step.step_index {
                    Some(i) => &mut turn.steps.entry(i).or_default().text,
                    None => &mut unindexed,
                };
                if let Some(fresh) = fresh_text(seen, text, done) {
                    turn.text_streamed = true;
                    events.push(AgentEvent::TextDelta(fresh.to_string()));
                }
            }
        }
        for ev in events {
            self.emit(ev, out);
        }
    }

    fn on_tool(&mut self, step: &Step, out: &mut Vec<Output>) {
        // No index: nothing later can refer to this call.
        let mut unindexed = StepSeen::default();
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let info = step.tool_info.as_ref();
        let info_str = |k: &str| info.and_then(|i| i.get(k)).and_then(Value::as_str);
        let name = step
            .tool_name
            .as_deref()
            .or_else(|| info_str("name"))
            .unwrap_or("tool")
            .to_string();
        let (id, seen) = match step.step_index {
            Some(i) => (
                format!("agy-{}-{i}", self.turns),
                turn.steps.entry(i).or_default(),
            ),
            None => {
                turn.anonymous_tools += 1;
                let id = format!("agy-{}-t{}", self.turns, turn.anonymous_tools);
                (id, &mut unindexed)
            }
        };
        let mut events = Vec::new();
        if !std::mem::replace(&mut seen.announced, true) {
            let input = match info {
                Some(i) => i.get("parameters").cloned().unwrap_or_else(|| i.clone()),
                None => Value::Null,
            };
            events.push(AgentEvent::ToolCall(ToolCallInfo {
                tool_id: id.clone(),
                kind: ToolKind::from_tool_name(&name),
                name,
                input,
            }));
        }
        let status = match step.state.as_deref() {
            Some("DONE") => Some(ToolStatus::Ok),
            Some("ERROR") => Some(ToolStatus::Error),
            _ => None,
        };
        if let Some(status) = status {
            if !std::mem::replace(&mut seen.finished, true) {
                let output = match status {
                    ToolStatus::Ok => step.response_text.as_deref().or_else(|| info_str("output")),
                    _ => step
                        .error_message
                        .as_deref()
                        .or(step.response_text.as_deref()),
                };
                events.push(AgentEvent::ToolExecuted {
                    tool_id: id,
                    status,
                    output: output.unwrap_or_default().to_string(),
                });
            }
        }
        for ev in events {
            self.emit(ev, out);
        }
    }

    fn on_result(&mut self, r: TurnResult, out: &mut Vec<Output>) {
        self.bind(r.conversation_id.clone(), false, out);
        let Some(turn) = self.turn.as_ref() else {
            self.stats.outside_turn += 1;
            return;
        };
        let usage = r.usage.as_ref().map(to_usage).or(turn.usage);
        let text_streamed = turn.text_streamed;
        let status = r.status.as_deref().unwrap_or_default().to_ascii_uppercase();
        let reason = match status.as_str() {
            "SUCCESS" | "OK" => EndReason::Completed,
            "CANCELLED" | "CANCELED" | "ABORTED" => EndReason::Interrupted,
            _ => EndReason::Error,
        };
        self.start(out);
        if reason == EndReason::Completed && !text_streamed {
            if let Some(answer) = r.response.filter(|a| !a.is_empty()) {
                self.emit(AgentEvent::TextDelta(answer), out);
            }
        }
        if reason == EndReason::Error {
            let msg = r
                .error
                .filter(|e| !e.trim().is_empty())
                .unwrap_or_else(|| format!("the turn ended with status `{status}`"));
            let code = match status.as_str() {
                "TIMEOUT" => ErrorCode::Timeout,
                _ => classify_stderr(&msg).unwrap_or(ErrorCode::Unknown),
            };
            let err = CohostError::new(code, format!("agy: {msg}")).with_fix(fix_for(code));
            self.emit(AgentEvent::Error(err), out);
        }
        self.turn = None;
        out.push(Output::Event(AgentEvent::Ended { reason, usage }));
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
