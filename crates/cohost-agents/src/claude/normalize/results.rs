//! Mapping the CLI's result and tool-result payloads: usage, tool output
//! text, denials, and the error a failed `result` stands for.

use cohost_core::{CohostError, ErrorCode, Usage};
use serde_json::Value;

use crate::claude::wire;
use crate::process::classify_stderr;

pub(super) fn to_usage(u: &wire::WireUsage) -> Usage {
    Usage {
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        reasoning_tokens: u
            .output_tokens_details
            .as_ref()
            .map_or(0, |d| d.thinking_tokens),
        cache_read_tokens: u.cache_read_input_tokens,
        cache_write_tokens: u.cache_creation_input_tokens,
    }
}

/// Text of a tool result or error: a string, `{message}`, or text blocks.
pub(super) fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => s.clone(),
                other => other
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_default(),
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string()),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

pub(super) fn looks_denied(output: &str) -> bool {
    let t = output.to_ascii_lowercase();
    // The command ran and the OS refused it something (`bash: /x:
    // Permission denied`, node's `EACCES: permission denied`), often the
    // sandbox: the tool's failure, not a refusal to run the tool.
    if t.starts_with("exit code") || t.contains("eacces") {
        return false;
    }
    (t.contains("permission") && (t.contains("denied") || t.contains("rejected")))
        || t.contains("the user doesn't want to proceed")
}

/// The error a failed `result` stands for.
pub(super) fn classify_result(provider: &str, r: &wire::ResultMsg) -> CohostError {
    let mut text = r.result.clone().unwrap_or_default();
    if let Some(e) = &r.error {
        text.push(' ');
        text.push_str(&text_of(e));
    }
    for e in &r.errors {
        text.push(' ');
        text.push_str(&text_of(e));
    }
    let text = text.trim().to_string();
    let code = match (r.api_error_status, r.terminal_reason.as_deref()) {
        (_, Some("prompt_too_long")) => ErrorCode::ContextWindowExceeded,
        (Some(401) | Some(403), _) => ErrorCode::AuthRequired,
        (Some(429) | Some(529), _) => ErrorCode::RateLimited,
        (Some(404), _) => ErrorCode::ModelNotAvailable,
        (Some(413), _) => ErrorCode::ContextWindowExceeded,
        _ => classify_stderr(&text).unwrap_or(match r.api_error_status {
            Some(s) if s >= 500 => ErrorCode::NetworkError,
            _ if text.to_ascii_lowercase().contains("malformed") => ErrorCode::InvalidOutput,
            _ if r.subtype == "error_during_execution" => ErrorCode::ToolExecutionFailed,
            _ => ErrorCode::Unknown,
        }),
    };
    let detail = if text.is_empty() {
        r.subtype.clone()
    } else {
        text
    };
    result_error(provider, code, &detail)
}

pub(super) fn result_error(provider: &str, code: ErrorCode, detail: &str) -> CohostError {
    let login;
    let fix = match code {
        ErrorCode::AuthRequired => {
            login = crate::catalog::login_fix(provider)
                .unwrap_or_else(|| format!("run `cohost login {provider}`, or set its API key"));
            login.as_str()
        }
        ErrorCode::RateLimited => "wait and retry, or use a key with a higher rate limit",
        ErrorCode::ContextWindowExceeded => "start a new session or attach fewer/smaller files",
        ErrorCode::ModelNotAvailable => "pick a model this key can use (`--model`)",
        ErrorCode::NetworkError => "check the network and the API base URL, then retry",
        ErrorCode::InvalidOutput => {
            "the model API sent a broken response; retry, and check any proxy in between"
        }
        _ => "see the agent's message above; run the agent directly to diagnose",
    };
    CohostError::new(code, format!("agent `{provider}`: {detail}")).with_fix(fix)
}

#[cfg(test)]
mod tests {
    use super::looks_denied;

    #[test]
    fn an_os_permission_error_is_no_denial() {
        assert!(looks_denied("Permission to use Bash has been denied."));
        assert!(looks_denied(
            "The user doesn't want to proceed with this tool use."
        ));
        assert!(!looks_denied(
            "Exit code 1\n/bin/bash: line 1: /tmp/x/outside.txt: Permission denied"
        ));
        assert!(!looks_denied(
            "EACCES: permission denied, open '/home/u/outside.txt'"
        ));
    }
}
