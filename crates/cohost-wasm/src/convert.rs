//! The world's events to cohost's [`AgentEvent`]s, strictly: a record that
//! breaks the world's rules is an error, never guessed at.

use cohost_core::{
    AgentEvent, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, ToolStatus, Usage,
};

use crate::world as w;

/// How an `error` event gets a code and a fix when the adapter leaves them
/// out: cohost's own classifier of agent messages (`cohost-agents` passes
/// its stderr classifier), so an adapter need not copy it.
#[derive(Debug, Clone, Copy)]
pub struct Classify {
    /// The class of an agent's message, when known.
    pub class_of: fn(&str) -> Option<ErrorCode>,
    /// The usual advice for a class.
    pub fix_for: fn(ErrorCode) -> &'static str,
}

impl Classify {
    /// The class of an unclassified message: the agent failed.
    pub const FALLBACK: ErrorCode = ErrorCode::ProcessCrashed;
}

/// The bytes of text an event carries (what the output limit counts).
pub(crate) fn text_bytes(ev: &w::Event) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let call = |c: &w::ToolCall| c.id.len() + c.name.len() + c.input_json.len();
    match ev {
        w::Event::Started(s) => opt(&s.session_id) + opt(&s.model),
        w::Event::TextDelta(t) | w::Event::ReasoningDelta(t) => t.len(),
        w::Event::ToolCall(c) | w::Event::ApprovalRequested(c) => call(c),
        w::Event::ToolExecuted(r) => r.id.len() + r.output.len(),
        w::Event::Status(s) => s.message.len(),
        w::Event::Error(f) => f.message.len() + opt(&f.fix),
        w::Event::Usage(_) | w::Event::Ended(_) => 0,
    }
}

fn usage(u: w::Usage) -> Usage {
    Usage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        reasoning_tokens: u.reasoning_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_write_tokens: u.cache_write_tokens,
    }
}

fn tool_kind(k: w::ToolKind) -> ToolKind {
    match k {
        w::ToolKind::Read => ToolKind::Read,
        w::ToolKind::Edit => ToolKind::Edit,
        w::ToolKind::Delete => ToolKind::Delete,
        w::ToolKind::Move => ToolKind::Move,
        w::ToolKind::Search => ToolKind::Search,
        w::ToolKind::Execute => ToolKind::Execute,
        w::ToolKind::Fetch => ToolKind::Fetch,
        w::ToolKind::Think => ToolKind::Think,
        w::ToolKind::Other => ToolKind::Other,
    }
}

fn error_code(c: w::ErrorCode) -> ErrorCode {
    match c {
        w::ErrorCode::AuthRequired => ErrorCode::AuthRequired,
        w::ErrorCode::AuthBlockedByPolicy => ErrorCode::AuthBlockedByPolicy,
        w::ErrorCode::PermissionRequired => ErrorCode::PermissionRequired,
        w::ErrorCode::RateLimited => ErrorCode::RateLimited,
        w::ErrorCode::ContextWindowExceeded => ErrorCode::ContextWindowExceeded,
        w::ErrorCode::ModelNotAvailable => ErrorCode::ModelNotAvailable,
        w::ErrorCode::UnsupportedMode => ErrorCode::UnsupportedMode,
        w::ErrorCode::NetworkError => ErrorCode::NetworkError,
        w::ErrorCode::Timeout => ErrorCode::Timeout,
        w::ErrorCode::ProcessCrashed => ErrorCode::ProcessCrashed,
        w::ErrorCode::InvalidOutput => ErrorCode::InvalidOutput,
        w::ErrorCode::ToolExecutionFailed => ErrorCode::ToolExecutionFailed,
    }
}

fn call_info(c: w::ToolCall) -> Result<ToolCallInfo, String> {
    let input = serde_json::from_str(&c.input_json).map_err(|e| {
        format!(
            "tool call `{}`: input-json is not JSON ({e}); use \"null\" for no arguments",
            c.id
        )
    })?;
    Ok(ToolCallInfo {
        kind: c
            .kind
            .map_or_else(|| ToolKind::from_tool_name(&c.name), tool_kind),
        tool_id: c.id,
        name: c.name,
        input,
    })
}

/// One world event as cohost's; `Err` says what is malformed.
pub(crate) fn event(ev: w::Event, classify: Classify) -> Result<AgentEvent, String> {
    Ok(match ev {
        w::Event::Started(s) => AgentEvent::Started {
            session_id: s.session_id,
            model: s.model,
        },
        w::Event::TextDelta(t) => AgentEvent::TextDelta(t),
        w::Event::ReasoningDelta(t) => AgentEvent::ReasoningDelta(t),
        w::Event::ToolCall(c) => AgentEvent::ToolCall(call_info(c)?),
        // The world gives no way to deliver a decision (stdin is closed
        // after `start`'s lines): cohost shows the call and never asks
        // anyone a question it cannot answer (`approval_notice`).
        w::Event::ApprovalRequested(c) => AgentEvent::ToolCall(call_info(c)?),
        w::Event::ToolExecuted(r) => AgentEvent::ToolExecuted {
            tool_id: r.id,
            status: match r.status {
                w::ToolStatus::Ok => ToolStatus::Ok,
                w::ToolStatus::Error => ToolStatus::Error,
                w::ToolStatus::Denied => ToolStatus::Denied,
            },
            output: r.output,
        },
        w::Event::Usage(u) => AgentEvent::Usage(usage(u)),
        w::Event::Status(s) => AgentEvent::Status {
            message: s.message,
            retry_after_ms: s.retry_after_ms,
        },
        w::Event::Error(f) => {
            let code = f
                .code
                .map(error_code)
                .unwrap_or_else(|| (classify.class_of)(&f.message).unwrap_or(Classify::FALLBACK));
            let fix = f
                .fix
                .unwrap_or_else(|| (classify.fix_for)(code).to_string());
            AgentEvent::Error(CohostError::new(code, &f.message).with_fix(fix))
        }
        w::Event::Ended(e) => AgentEvent::Ended {
            reason: match e.reason {
                w::EndReason::Completed => EndReason::Completed,
                w::EndReason::Interrupted => EndReason::Interrupted,
                w::EndReason::Error => EndReason::Error,
                w::EndReason::MaxTurns => EndReason::MaxTurns,
            },
            usage: e.usage.map(usage),
        },
    })
}

/// What cohost says when an adapter reports that its agent asks to approve
/// `tool`: `cohost:adapter@0.1.0` has no approval channel, so the agent
/// decides by the policy its command line set (the component maps
/// `options.approval` to the agent's own flags).
pub(crate) fn approval_notice(plugin: &str, call: &w::ToolCall) -> AgentEvent {
    AgentEvent::Status {
        message: format!(
            "agent asked to approve `{}` (call `{}`), but wasm plugin `{plugin}` has no approval channel: the agent decides by the approval policy set at launch (--approve)",
            call.name, call.id
        ),
        retry_after_ms: None,
    }
}
