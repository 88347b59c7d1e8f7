//! Codex's error reports mapped to cohost's taxonomy.
//!
//! The app-server says what went wrong in `codexErrorInfo` (a string such as
//! `contextWindowExceeded`, or an object carrying the HTTP status); `codex
//! exec` only prints the message, so the message is the fallback.

use cohost_core::{CohostError, ErrorCode};
use serde_json::Value;

use crate::process::classify_stderr;

/// Map a codex error (message + optional `codexErrorInfo`) to a [`CohostError`].
pub(crate) fn map_error(message: &str, info: &Value) -> CohostError {
    if let Some(var) = missing_variable(message) {
        return missing_env_error(&var);
    }
    let code = code_from_info(info)
        .or_else(|| classify_stderr(message))
        .unwrap_or(ErrorCode::NetworkError);
    let fix = match code {
        ErrorCode::AuthRequired => {
            "check the API key codex uses (the provider's env_key in $CODEX_HOME/config.toml, or `codex login`)"
        }
        ErrorCode::RateLimited => "wait a moment and retry, or lower the request rate",
        ErrorCode::ContextWindowExceeded => {
            "start a new session or ask codex to compact the conversation"
        }
        ErrorCode::ModelNotAvailable => "pick a model the provider serves (`--model`)",
        ErrorCode::AuthBlockedByPolicy | ErrorCode::PermissionRequired => {
            "the provider refused this request by policy; rephrase or use another model"
        }
        _ => "check the model provider's base_url in $CODEX_HOME/config.toml and retry",
    };
    CohostError::new(code, format!("codex: {message}")).with_fix(fix)
}

/// The variable of codex's "Missing environment variable: `NAME`." (a
/// model provider's `env_key` that is not set).
fn missing_variable(message: &str) -> Option<String> {
    let rest = message.split_once("Missing environment variable")?.1;
    let name = rest.split('`').nth(1)?;
    (!name.is_empty()).then(|| name.to_string())
}

/// AUTH_REQUIRED naming the unset variable a codex model provider reads its
/// key from, and how to set it. cohost passes every variable codex's config
/// names, so the variable is unset where cohost itself runs.
pub(crate) fn missing_env_error(var: &str) -> CohostError {
    CohostError::new(
        ErrorCode::AuthRequired,
        format!("codex: the model provider's key variable `{var}` is not set"),
    )
    .with_fix(format!(
        "export {var}=<key> in the shell you start cohost from (the provider's env_key in $CODEX_HOME/config.toml names it), or set it under [providers.codex] env in cohost's config"
    ))
}

fn code_from_info(info: &Value) -> Option<ErrorCode> {
    match info {
        Value::String(s) => match s.as_str() {
            "contextWindowExceeded" => Some(ErrorCode::ContextWindowExceeded),
            "usageLimitExceeded"
            | "rateLimitExceeded"
            | "serverOverloaded"
            | "sessionBudgetExceeded"
            | "policyCapacityUnavailable"
            | "flexUnavailable" => Some(ErrorCode::RateLimited),
            "modelNotFound" => Some(ErrorCode::ModelNotAvailable),
            "unauthorized" => Some(ErrorCode::AuthRequired),
            "cyberPolicy" | "bioPolicy" | "misalignmentPolicyViolation" | "inferenceHookDenied" => {
                Some(ErrorCode::AuthBlockedByPolicy)
            }
            "tooManyDenials" => Some(ErrorCode::PermissionRequired),
            "sandboxError" => Some(ErrorCode::ToolExecutionFailed),
            "internalServerError" => Some(ErrorCode::NetworkError),
            _ => None,
        },
        Value::Object(obj) => obj.values().find_map(|inner| {
            let status = inner.get("httpStatusCode")?.as_u64()?;
            Some(match status {
                401 | 403 => ErrorCode::AuthRequired,
                429 => ErrorCode::RateLimited,
                404 => ErrorCode::ModelNotAvailable,
                413 => ErrorCode::ContextWindowExceeded,
                _ => return None,
            })
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn info_strings_and_statuses_map() {
        let e = map_error("x", &json!("contextWindowExceeded"));
        assert_eq!(e.code, ErrorCode::ContextWindowExceeded);
        let e = map_error(
            "unexpected status 401",
            &json!({"httpConnectionFailed":{"httpStatusCode":401}}),
        );
        assert_eq!(e.code, ErrorCode::AuthRequired);
        let e = map_error(
            "exceeded retry limit",
            &json!({"responseTooManyFailedAttempts":{"httpStatusCode":429}}),
        );
        assert_eq!(e.code, ErrorCode::RateLimited);
        assert!(e.retryable);
        assert!(e.suggested_fix.is_some());
    }

    #[test]
    fn missing_env_key_is_auth_required_naming_it() {
        let e = map_error(
            "Missing environment variable: `MY_PROVIDER_KEY`.",
            &Value::Null,
        );
        assert_eq!(e.code, ErrorCode::AuthRequired);
        assert!(e.message.contains("MY_PROVIDER_KEY"), "{}", e.message);
        assert!(e.suggested_fix.unwrap().contains("export MY_PROVIDER_KEY="));
    }

    #[test]
    fn message_is_the_fallback() {
        let e = map_error("unexpected status 401 Unauthorized", &Value::Null);
        assert_eq!(e.code, ErrorCode::AuthRequired);
        let e = map_error("stream disconnected before completion", &json!("other"));
        assert_eq!(e.code, ErrorCode::NetworkError);
    }
}
