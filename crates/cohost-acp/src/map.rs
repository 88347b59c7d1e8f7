//! Pure mappings from ACP values to cohost's: tool kinds, permission
//! options, stop reasons, usage, errors, plans and tool output previews.

use agent_client_protocol_schema::v1 as schema;
use cohost_core::{
    ApprovalOption, CohostError, EndReason, ErrorCode, ToolCallInfo, ToolKind, Usage,
};
use schema::{PermissionOptionKind, PlanEntryStatus, StopReason, ToolCallContent, ToolCallUpdate};
use serde_json::Value;
use std::collections::HashMap;

use super::rpc::RpcError;
use cohost_process::classify_stderr;

/// ACP tool kind → cohost kind (`switch_mode`, `other` and kinds newer than
/// the schema → other).
pub(crate) fn tool_kind(kind: schema::ToolKind) -> ToolKind {
    match kind {
        schema::ToolKind::Read => ToolKind::Read,
        schema::ToolKind::Edit => ToolKind::Edit,
        schema::ToolKind::Delete => ToolKind::Delete,
        schema::ToolKind::Move => ToolKind::Move,
        schema::ToolKind::Search => ToolKind::Search,
        schema::ToolKind::Execute => ToolKind::Execute,
        schema::ToolKind::Think => ToolKind::Think,
        schema::ToolKind::Fetch => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

/// Option kind → the agent's option id (the first option of each kind).
pub(crate) fn option_ids(options: &[schema::PermissionOption]) -> HashMap<ApprovalOption, String> {
    let mut map = HashMap::new();
    for o in options {
        let kind = match o.kind {
            PermissionOptionKind::AllowOnce => ApprovalOption::AllowOnce,
            PermissionOptionKind::AllowAlways => ApprovalOption::AllowAlways,
            PermissionOptionKind::RejectOnce => ApprovalOption::RejectOnce,
            PermissionOptionKind::RejectAlways => ApprovalOption::RejectAlways,
            _ => continue,
        };
        map.entry(kind).or_insert_with(|| o.option_id.0.to_string());
    }
    map
}

/// The text of a content block (`None` for images, resources, audio).
pub(crate) fn text(block: schema::ContentBlock) -> Option<String> {
    match block {
        schema::ContentBlock::Text(t) => Some(t.text),
        _ => None,
    }
}

/// Fold a tool call or update into what we know of the call. The name is the
/// title (ACP has no separate tool name); the input is `rawInput`, else the
/// title, so a decider always sees what will run. A call of kind `other`
/// (also what the schema reads a `tool_call` that names no kind as) takes a
/// kind guessed from its title.
pub(crate) fn merge_call(call: &mut ToolCallInfo, tc: &ToolCallUpdate) {
    let fields = &tc.fields;
    if let Some(t) = fields.title.as_ref().filter(|t| !t.is_empty()) {
        call.name = t.clone();
    }
    match fields.kind {
        Some(k) if k != schema::ToolKind::Other => call.kind = tool_kind(k),
        _ if call.kind == ToolKind::Other && !call.name.is_empty() => {
            call.kind = ToolKind::from_tool_name(&call.name);
        }
        _ => {}
    }
    match &fields.raw_input {
        Some(v) if !v.is_null() && v.as_object().is_none_or(|o| !o.is_empty()) => {
            call.input = v.clone();
        }
        _ => {
            if call.input.is_null() && !call.name.is_empty() {
                call.input = serde_json::json!({ "title": call.name });
            }
        }
    }
    if call.name.is_empty() {
        call.name = "tool".into();
    }
}

/// The text a finished tool produced: its content blocks and diffs, else
/// its `rawOutput`.
pub(crate) fn tool_output(tc: &ToolCallUpdate) -> String {
    let mut parts = Vec::new();
    for c in tc.fields.content.iter().flatten() {
        match c {
            ToolCallContent::Content(c) => {
                if let schema::ContentBlock::Text(t) = &c.content {
                    parts.push(t.text.clone());
                }
            }
            ToolCallContent::Diff(d) => {
                parts.push(format!("{}:\n{}", d.path.display(), d.new_text));
            }
            // Terminals, and content kinds newer than the schema.
            _ => {}
        }
    }
    if parts.is_empty() {
        match &tc.fields.raw_output {
            Some(Value::String(s)) => parts.push(s.clone()),
            Some(v) if !v.is_null() => {
                let text = ["output", "stdout", "content", "result"]
                    .iter()
                    .find_map(|k| v.get(k).and_then(Value::as_str));
                parts.push(text.map_or_else(|| v.to_string(), str::to_string));
            }
            _ => {}
        }
    }
    parts.join("\n")
}

/// One line per plan entry, `[x]` done, `[~]` in progress, `[ ]` pending.
pub(crate) fn plan_text(entries: &[schema::PlanEntry]) -> String {
    let lines: Vec<String> = entries
        .iter()
        .map(|e| {
            let mark = match e.status {
                PlanEntryStatus::Completed => "[x]",
                PlanEntryStatus::InProgress => "[~]",
                _ => "[ ]",
            };
            format!("{mark} {}", e.content)
        })
        .collect();
    format!("plan:\n{}", lines.join("\n"))
}

/// Token usage from a prompt response: ACP's `usage`, else gemini's
/// `_meta.quota.token_count`.
pub(crate) fn usage(resp: &schema::PromptResponse) -> Option<Usage> {
    if let Some(u) = &resp.usage {
        return Some(Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            reasoning_tokens: u.thought_tokens.unwrap_or(0),
            cache_read_tokens: u.cached_read_tokens.unwrap_or(0),
            cache_write_tokens: u.cached_write_tokens.unwrap_or(0),
        });
    }
    let tc = resp.meta.as_ref()?.get("quota")?.get("token_count")?;
    let n = |k: &str| tc.get(k).and_then(Value::as_u64).unwrap_or(0);
    let u = Usage {
        input_tokens: n("input_tokens"),
        output_tokens: n("output_tokens"),
        ..Usage::default()
    };
    (!u.is_empty()).then_some(u)
}

/// `stopReason` → end reason, plus an error for `refusal`.
pub(crate) fn stop_reason(provider: &str, reason: StopReason) -> (EndReason, Option<CohostError>) {
    match reason {
        StopReason::Cancelled => (EndReason::Interrupted, None),
        StopReason::MaxTurnRequests => (EndReason::MaxTurns, None),
        StopReason::Refusal => (
            EndReason::Error,
            Some(
                CohostError::new(
                    ErrorCode::AuthBlockedByPolicy,
                    format!("agent `{provider}`: the model refused to continue"),
                )
                .with_fix("rephrase the prompt or use another model"),
            ),
        ),
        // end_turn, max_tokens (the answer is complete as far as it goes),
        // and reasons newer than this driver (read as end_turn, see
        // `read::prompt_response`).
        _ => (EndReason::Completed, None),
    }
}

fn fix_for(code: ErrorCode, provider: &str, login_fix: Option<&str>) -> String {
    match code {
        ErrorCode::AuthRequired => login_fix.map(str::to_string).unwrap_or_else(|| {
            format!("log in with `{provider}`'s own CLI or set its API key, then retry")
        }),
        ErrorCode::RateLimited => "wait a moment and retry".into(),
        ErrorCode::ContextWindowExceeded => "start a new session".into(),
        ErrorCode::ModelNotAvailable => "pick a model the provider serves (`--model`)".into(),
        _ => "check the agent's model provider settings and retry".into(),
    }
}

/// A failed `session/prompt`.
pub(crate) fn prompt_error(provider: &str, login_fix: Option<&str>, e: &RpcError) -> CohostError {
    let text = e.describe();
    let code = classify_stderr(&text)
        .or_else(|| auth_words(&text))
        .or_else(|| status_code(e.code))
        .unwrap_or(ErrorCode::NetworkError);
    CohostError::new(code, format!("agent `{provider}`: {text}"))
        .with_fix(fix_for(code, provider, login_fix))
}

/// `--fork` on an agent whose `initialize` does not offer `session/fork`.
pub(crate) fn fork_unsupported(provider: &str) -> CohostError {
    CohostError::new(
        ErrorCode::UnsupportedMode,
        format!("agent `{provider}` cannot fork a session (its initialize offers no session/fork)"),
    )
    .with_fix(
        "resume the session instead (--resume ID), or update the agent to a version that can fork",
    )
}

/// The session could not be put in the mode that makes the agent ask
/// before tools ([`cohost_process::provider::acp::AcpSpec::approval_modes`]).
pub(crate) fn mode_unavailable(provider: &str, mode: &str, why: &str) -> CohostError {
    CohostError::new(
        ErrorCode::UnsupportedMode,
        format!(
            "agent `{provider}` could not be switched to session mode `{mode}` ({why}); \
             without it the agent would run tools without asking"
        ),
    )
    .with_fix(
        "check the agent's version against the tested one (`cohost agents`), \
         or run with --approve all to let it run tools",
    )
}

/// A failed handshake step.
pub(crate) fn handshake_error(
    provider: &str,
    login_fix: Option<&str>,
    step: &str,
    e: &RpcError,
) -> CohostError {
    let text = e.describe();
    // ACP's "authentication required" is -32000.
    let code = if e.code == -32000 || text.to_ascii_lowercase().contains("auth") {
        ErrorCode::AuthRequired
    } else if step == "session/load" || step == "session/fork" {
        ErrorCode::ConfigInvalid
    } else {
        classify_stderr(&text).unwrap_or(ErrorCode::SpawnFailed)
    };
    let fix = if code == ErrorCode::ConfigInvalid && step == "session/fork" {
        "check the session id (`cohost sessions`), or resume it (--resume ID) instead of forking it"
            .to_string()
    } else if code == ErrorCode::ConfigInvalid {
        "check the session id, or start without --resume for a new session".to_string()
    } else {
        fix_for(code, provider, login_fix)
    };
    CohostError::new(code, format!("agent `{provider}` refused {step}: {text}")).with_fix(fix)
}

/// Wordings the shared classifier misses (opencode relays OpenAI's
/// "Incorrect API key provided").
fn auth_words(text: &str) -> Option<ErrorCode> {
    let t = text.to_ascii_lowercase();
    (t.contains("api key")
        && ["incorrect", "invalid", "not valid"]
            .iter()
            .any(|w| t.contains(w)))
    .then_some(ErrorCode::AuthRequired)
}

/// Some agents put the HTTP status in the JSON-RPC code (gemini: 401).
fn status_code(code: i64) -> Option<ErrorCode> {
    Some(match code {
        401 | 403 => ErrorCode::AuthRequired,
        429 => ErrorCode::RateLimited,
        404 => ErrorCode::ModelNotAvailable,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(id: &str, kind: PermissionOptionKind) -> schema::PermissionOption {
        schema::PermissionOption::new(id.to_string(), id, kind)
    }

    #[test]
    fn option_ids_follow_kinds_not_ids() {
        // (An option of a kind newer than the schema never gets here: see
        // `read::permission_request`.)
        let m = option_ids(&[
            opt("proceed_always", PermissionOptionKind::AllowAlways),
            opt("proceed_once", PermissionOptionKind::AllowOnce),
            opt("cancel", PermissionOptionKind::RejectOnce),
            opt("also_once", PermissionOptionKind::AllowOnce),
        ]);
        assert_eq!(m[&ApprovalOption::AllowOnce], "proceed_once");
        assert_eq!(m[&ApprovalOption::RejectOnce], "cancel");
        assert!(!m.contains_key(&ApprovalOption::RejectAlways));
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn stop_reasons() {
        assert_eq!(
            stop_reason("x", StopReason::EndTurn).0,
            EndReason::Completed
        );
        assert_eq!(
            stop_reason("x", StopReason::Cancelled).0,
            EndReason::Interrupted
        );
        assert_eq!(
            stop_reason("x", StopReason::MaxTurnRequests).0,
            EndReason::MaxTurns
        );
        assert_eq!(
            stop_reason("x", StopReason::MaxTokens).0,
            EndReason::Completed
        );
        let (r, e) = stop_reason("x", StopReason::Refusal);
        assert_eq!(r, EndReason::Error);
        assert!(e.is_some());
        let brand_new =
            super::super::read::prompt_response(serde_json::json!({"stopReason": "brand_new"}));
        assert_eq!(
            stop_reason("x", brand_new.stop_reason).0,
            EndReason::Completed
        );
    }

    #[test]
    fn errors_are_classified() {
        let e = RpcError {
            code: 401,
            message: "{\"error\":{\"message\":\"API key not valid.\"}}".into(),
            data: None,
        };
        assert_eq!(prompt_error("g", None, &e).code, ErrorCode::AuthRequired);
        let e = RpcError {
            code: -32603,
            message: "Internal error".into(),
            data: Some(Value::String("429 Too Many Requests".into())),
        };
        assert_eq!(prompt_error("g", None, &e).code, ErrorCode::RateLimited);
        let e = RpcError {
            code: -32000,
            message: "Authentication required".into(),
            data: None,
        };
        let h = handshake_error("g", None, "session/new", &e);
        assert_eq!(h.code, ErrorCode::AuthRequired);
        assert!(h.suggested_fix.is_some());
        // A known wrapper's fix names how to log in to what it wraps (the
        // provider list gives it; `cohost_agents::acp` checks codex-acp's).
        let login = "run `cohost login codex-acp` (runs `codex login`), or set $OPENAI_API_KEY";
        let h = handshake_error("codex-acp", Some(login), "session/new", &e);
        assert_eq!(
            h.suggested_fix.as_deref(),
            Some("run `cohost login codex-acp` (runs `codex login`), or set $OPENAI_API_KEY")
        );
    }

    #[test]
    fn kinds_map_one_to_one() {
        for (k, want) in [
            ("read", ToolKind::Read),
            ("edit", ToolKind::Edit),
            ("delete", ToolKind::Delete),
            ("move", ToolKind::Move),
            ("search", ToolKind::Search),
            ("execute", ToolKind::Execute),
            ("think", ToolKind::Think),
            ("fetch", ToolKind::Fetch),
            ("switch_mode", ToolKind::Other),
            ("other", ToolKind::Other),
            ("brand_new", ToolKind::Other),
        ] {
            let kind: schema::ToolKind = serde_json::from_value(serde_json::json!(k)).unwrap();
            assert_eq!(tool_kind(kind), want, "{k}");
        }
    }
}

/// A provider failure that the agent reported as its answer text (see
/// [`TextErrors`]), as a typed error; `None` for an ordinary answer.
///
/// [`TextErrors`]: cohost_process::provider::acp::TextErrors
pub(crate) fn text_error(
    kind: cohost_process::provider::acp::TextErrors,
    provider: &str,
    text: &str,
) -> Option<CohostError> {
    use cohost_process::provider::acp::TextErrors;
    match kind {
        TextErrors::None => None,
        TextErrors::Copilot => copilot_text_error(provider, text),
    }
}

/// `Error: Authentication failed with provider at URL (HTTP 401).\n  Check …`:
/// only this exact shape (copilot 1.0.102), so an answer that merely talks
/// about errors is never taken for one.
fn copilot_text_error(provider: &str, text: &str) -> Option<CohostError> {
    let rest = text.strip_prefix("Error: ")?;
    let (first, tail) = rest.split_once('\n').unwrap_or((rest, ""));
    let open = first.rfind("(HTTP ")?;
    let status: u16 = first[open + 6..]
        .trim_end_matches(['.', ' '])
        .strip_suffix(')')?
        .parse()
        .ok()?;
    let code = match status {
        401 | 403 => ErrorCode::AuthRequired,
        429 => ErrorCode::RateLimited,
        404 => ErrorCode::ModelNotAvailable,
        _ => ErrorCode::Unknown,
    };
    let fix = tail.trim();
    let mut e = CohostError::new(code, format!("{provider}: {}", first.trim()));
    if !fix.is_empty() {
        e = e.with_fix(fix);
    }
    Some(e)
}

#[cfg(test)]
mod text_error_tests {
    use super::*;
    use cohost_process::provider::acp::TextErrors;

    #[test]
    fn copilot_failure_text_is_typed_and_answers_are_not() {
        let e = text_error(
            TextErrors::Copilot,
            "copilot-acp",
            "Error: Authentication failed with provider at http://127.0.0.1:1/v1 (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY.",
        )
        .unwrap();
        assert_eq!(e.code, ErrorCode::AuthRequired);
        assert!(e.message.contains("(HTTP 401)"), "{}", e.message);
        assert_eq!(
            e.suggested_fix.as_deref(),
            Some("Check your COPILOT_PROVIDER_API_KEY.")
        );
        let rl = text_error(
            TextErrors::Copilot,
            "c",
            "Error: Too many requests (HTTP 429).",
        )
        .unwrap();
        assert_eq!(rl.code, ErrorCode::RateLimited);
        for answer in [
            "Here is how to fix `Error: ... (HTTP 401).`",
            "Error: the build failed because of a typo",
            "Error: something (HTTP four-oh-one).",
            "",
        ] {
            assert!(
                text_error(TextErrors::Copilot, "c", answer).is_none(),
                "{answer}"
            );
        }
        assert!(text_error(
            TextErrors::None,
            "c",
            "Error: Authentication failed with provider at x (HTTP 401)."
        )
        .is_none());
    }
}
