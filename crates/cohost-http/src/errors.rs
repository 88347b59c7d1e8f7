//! HTTP failures to [`CohostError`]: status, vendor error body and transport
//! errors mapped onto cohost's taxonomy, with secrets removed.
//!
//! Pure functions: the engine hands in the status, headers it read and the
//! body text; nothing here does IO.

use std::time::Duration;

use cohost_core::{CohostError, ErrorCode};

/// What a vendor's error body says, whatever its shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VendorError {
    /// Human message.
    pub message: String,
    /// Machine kind: Anthropic `error.type`, OpenAI `error.code`/`type`,
    /// Google `error.status`.
    pub kind: String,
}

/// Parse the error envelopes of Anthropic (`{type:error,error:{type,message}}`),
/// OpenAI (`{error:{message,type,code}}`), Google (`{error:{code,message,status}}`)
/// and Ollama (`{error:"..."}`); anything else is kept as (bounded) text.
pub fn parse_body(body: &str) -> VendorError {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return VendorError {
            message: bounded(body.trim(), 500),
            kind: String::new(),
        };
    };
    let err = v.get("error").unwrap_or(&v);
    if let Some(s) = err.as_str() {
        return VendorError {
            message: bounded(s, 500),
            kind: String::new(),
        };
    }
    let text = |k: &str| err.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let message = text("message")
        .or_else(|| text("detail"))
        .unwrap_or_else(|| bounded(&v.to_string(), 500));
    let kind = [text("code"), text("status"), text("type")]
        .into_iter()
        .flatten()
        .find(|k| !k.is_empty() && k != "error")
        .unwrap_or_default();
    VendorError {
        message: bounded(&message, 500),
        kind,
    }
}

fn bounded(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

/// Replace the exact key value (it may match no known key shape, so the
/// global sanitizer could miss it) before anything becomes an error.
pub fn redact_key(text: &str, key: Option<&str>) -> String {
    match key {
        Some(k) if k.len() >= 4 => text.replace(k, cohost_core::sanitize::REDACTED),
        _ => text.to_string(),
    }
}

/// Context for messages and fixes.
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// Provider id (`anthropic`...).
    pub provider: String,
    /// The variable holding the key, when the provider uses one.
    pub key_env: Option<String>,
    /// The variable holding the base URL.
    pub base_env: Option<String>,
    /// The model asked for.
    pub model: String,
    /// The key in use, to redact.
    pub key: Option<String>,
}

fn contains_any(hay: &str, needles: &[&str]) -> bool {
    let lower = hay.to_ascii_lowercase();
    needles.iter().any(|n| lower.contains(n))
}

/// Whether this status means "slow down and retry".
pub fn is_rate_limit(status: u16, body: &VendorError) -> bool {
    status == 429
        || status == 529
        || status == 503
        || contains_any(
            &body.kind,
            &["overloaded", "rate_limit", "resource_exhausted"],
        )
}

/// Whether retrying cannot help even though it is a 429 (OpenAI's "you are
/// out of credit" comes as a 429 too).
pub fn is_quota_exhausted(body: &VendorError) -> bool {
    contains_any(&body.kind, &["insufficient_quota", "billing"])
        || contains_any(&body.message, &["exceeded your current quota"])
}

/// Map an HTTP error status and body to a [`CohostError`].
pub fn from_status(status: u16, body_text: &str, ctx: &Ctx) -> CohostError {
    let body = parse_body(&redact_key(body_text, ctx.key.as_deref()));
    let said = if body.message.is_empty() {
        String::new()
    } else {
        format!(": {}", body.message)
    };
    let p = ctx.provider.as_str();
    let key_fix = match &ctx.key_env {
        Some(k) => format!(
            "check that {k} holds a valid key with access to `{}`",
            ctx.model
        ),
        None => "check the credentials configured for this provider".to_string(),
    };
    let ctx_words = [
        "context_length",
        "context length",
        "context window",
        "prompt is too long",
        "too many tokens",
        "maximum context",
        "exceeds the maximum number of tokens",
        "input length exceeds",
        "num_ctx",
    ];
    let e = if status == 401 || status == 403 {
        CohostError::new(
            ErrorCode::AuthRequired,
            format!("`{p}` refused the credentials (HTTP {status}){said}"),
        )
        .with_fix(key_fix)
    } else if is_rate_limit(status, &body) {
        let quota = is_quota_exhausted(&body);
        CohostError::new(
            ErrorCode::RateLimited,
            format!("`{p}` is rate limiting or overloaded (HTTP {status}){said}"),
        )
        .with_fix(if quota {
            "the account is out of quota; add credit or use another key"
        } else {
            "wait a little and send the prompt again"
        })
        .retryable(!quota)
    } else if status == 413
        || contains_any(&body.message, &ctx_words)
        || contains_any(&body.kind, &ctx_words)
    {
        CohostError::new(
            ErrorCode::ContextWindowExceeded,
            format!(
                "the conversation no longer fits `{}`'s context window{said}",
                ctx.model
            ),
        )
        .with_fix("start a new session, or use a model with a larger context window")
    } else if status == 404 || contains_any(&body.kind, &["model_not_found", "not_found"]) {
        let model_related =
            contains_any(&body.message, &["model"]) || contains_any(&body.kind, &["model"]);
        if model_related || status != 404 {
            CohostError::new(
                ErrorCode::ModelNotAvailable,
                format!(
                    "`{p}` does not offer model `{}` (HTTP {status}){said}",
                    ctx.model
                ),
            )
            .with_fix(format!(
                "pick a model from `cohost models {p}`, or pass --model"
            ))
        } else {
            CohostError::new(
                ErrorCode::ConfigInvalid,
                format!("`{p}` has no such endpoint (HTTP 404){said}"),
            )
            .with_fix(match &ctx.base_env {
                Some(b) => format!("check {b}: it must point at the API root"),
                None => "check the provider's base URL".into(),
            })
        }
    } else if status >= 500 {
        CohostError::new(
            ErrorCode::NetworkError,
            format!("`{p}` had a server error (HTTP {status}){said}"),
        )
        .with_fix("the provider is having trouble; try again in a moment")
        .retryable(true)
    } else {
        CohostError::new(
            ErrorCode::ConfigInvalid,
            format!("`{p}` rejected the request (HTTP {status}){said}"),
        )
        .with_fix("check the model name and the provider's settings")
    };
    e
}

/// The stream's error when `v` carries a non-null `error` member (the
/// streams whose error is an ordinary event with that member).
pub fn check_error_member(v: &serde_json::Value, ctx: &Ctx) -> Result<(), CohostError> {
    match v.get("error").is_some_and(|e| !e.is_null()) {
        true => Err(from_stream_error(&v.to_string(), ctx)),
        false => Ok(()),
    }
}

/// A fatal error event inside a 200 stream (`event: error`, `{error:...}`).
pub fn from_stream_error(data: &str, ctx: &Ctx) -> CohostError {
    let body = parse_body(&redact_key(data, ctx.key.as_deref()));
    let status = if contains_any(
        &body.kind,
        &["overloaded", "rate_limit", "resource_exhausted"],
    ) {
        429
    } else if contains_any(
        &body.kind,
        &["authentication", "permission", "invalid_api_key"],
    ) {
        401
    } else if contains_any(&body.kind, &["not_found"]) {
        404
    } else if contains_any(&body.kind, &["invalid_request"]) {
        400
    } else {
        500
    };
    from_status(status, data, ctx)
}

/// How long a 429 asks us to wait: `retry-after-ms`, else `Retry-After` in
/// seconds or as an HTTP-date, else none. A date is measured against the
/// response's own `Date` header when it has one (the server's clock, so a
/// skewed local clock does not matter), else against `now`; a date already
/// past means no wait.
pub fn retry_after(
    retry_after_ms: Option<&str>,
    retry_after: Option<&str>,
    date: Option<&str>,
    now: std::time::SystemTime,
) -> Option<Duration> {
    if let Some(ms) = retry_after_ms.and_then(|v| v.trim().parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_millis(ms as u64));
        }
    }
    let value = retry_after?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::from_millis((secs * 1000.0) as u64));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let reference = date
        .and_then(|d| httpdate::parse_http_date(d.trim()).ok())
        .unwrap_or(now);
    Some(at.duration_since(reference).unwrap_or(Duration::ZERO))
}

/// `err` and every cause under it, `: `-joined: a transport error's own
/// text ("error sending request for url") says nothing of why.
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut chain = err.to_string();
    let mut src = err.source();
    while let Some(s) = src {
        chain.push_str(": ");
        chain.push_str(&s.to_string());
        src = s.source();
    }
    chain
}

/// A transport error (no HTTP status) to a [`CohostError`].
pub fn from_transport(err: &reqwest::Error, url: &str, ctx: &Ctx) -> CohostError {
    let chain = redact_key(&error_chain(err), ctx.key.as_deref());
    let base_fix = match &ctx.base_env {
        Some(b) => format!("check that the server is running and that {b} is right"),
        None => "check that the server is running and the base URL is right".into(),
    };
    if err.is_timeout() {
        return CohostError::new(
            ErrorCode::Timeout,
            format!("`{}` did not answer in time ({url}): {chain}", ctx.provider),
        )
        .with_fix("try again; raise the provider timeout for slow local models");
    }
    let hint = if contains_any(&chain, &["certificate", "tls", "handshake"]) {
        "TLS failed"
    } else if contains_any(&chain, &["dns", "resolve", "lookup", "name or service"]) {
        "name lookup failed"
    } else if contains_any(&chain, &["refused"]) {
        "connection refused"
    } else {
        "connection failed"
    };
    CohostError::new(
        ErrorCode::NetworkError,
        format!(
            "`{}` is unreachable at {url} ({hint}): {chain}",
            ctx.provider
        ),
    )
    .with_fix(base_fix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Ctx {
        Ctx {
            provider: "openai".into(),
            key_env: Some("OPENAI_API_KEY".into()),
            base_env: Some("OPENAI_BASE_URL".into()),
            model: "m".into(),
            key: Some("plainvalue-1234".into()),
        }
    }

    #[test]
    fn vendor_shapes() {
        let a = parse_body(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            (a.kind.as_str(), a.message.as_str()),
            ("overloaded_error", "Overloaded")
        );
        let o = parse_body(
            r#"{"error":{"message":"x","type":"invalid_request_error","code":"model_not_found"}}"#,
        );
        assert_eq!(o.kind, "model_not_found");
        let g = parse_body(r#"{"error":{"code":429,"message":"q","status":"RESOURCE_EXHAUSTED"}}"#);
        assert_eq!(g.kind, "RESOURCE_EXHAUSTED");
        assert_eq!(
            parse_body(r#"{"error":"model \"x\" not found"}"#).message,
            "model \"x\" not found"
        );
        assert_eq!(
            parse_body("<html>bad gateway</html>").message,
            "<html>bad gateway</html>"
        );
    }

    #[test]
    fn classification() {
        let c = |s, b: &str| from_status(s, b, &ctx()).code;
        assert_eq!(c(401, "{}"), ErrorCode::AuthRequired);
        assert_eq!(c(403, "{}"), ErrorCode::AuthRequired);
        assert_eq!(c(429, "{}"), ErrorCode::RateLimited);
        assert_eq!(
            c(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error"}}"#
            ),
            ErrorCode::RateLimited
        );
        assert_eq!(c(503, "unavailable"), ErrorCode::RateLimited);
        assert_eq!(
            c(
                400,
                r#"{"error":{"message":"prompt is too long: 1 tokens > 2 maximum"}}"#
            ),
            ErrorCode::ContextWindowExceeded
        );
        assert_eq!(
            c(
                400,
                r#"{"error":{"code":"context_length_exceeded","message":"x"}}"#
            ),
            ErrorCode::ContextWindowExceeded
        );
        assert_eq!(
            c(
                404,
                r#"{"error":"model \"x\" not found, try pulling it first"}"#
            ),
            ErrorCode::ModelNotAvailable
        );
        assert_eq!(c(404, "no route"), ErrorCode::ConfigInvalid);
        assert_eq!(c(500, "{}"), ErrorCode::NetworkError);
        assert_eq!(c(400, "{}"), ErrorCode::ConfigInvalid);
        let quota = from_status(
            429,
            r#"{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}"#,
            &ctx(),
        );
        assert!(!quota.retryable);
    }

    #[test]
    fn key_is_redacted_and_fix_names_variable() {
        let e = from_status(
            401,
            r#"{"error":{"message":"bad key plainvalue-1234"}}"#,
            &ctx(),
        );
        assert!(!e.message.contains("plainvalue-1234"), "{}", e.message);
        assert!(e.suggested_fix.unwrap().contains("OPENAI_API_KEY"));
    }

    #[test]
    fn retry_after_forms() {
        let now = std::time::SystemTime::now();
        assert_eq!(
            retry_after(None, Some("2"), None, now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(Some("150"), Some("2"), None, now),
            Some(Duration::from_millis(150))
        );
        assert_eq!(retry_after(None, Some("-1"), None, now), None);
        assert_eq!(retry_after(None, Some("soon"), None, now), None);
        // An HTTP-date is measured on the server's clock when `Date` is given,
        // however wrong the local clock is.
        assert_eq!(
            retry_after(
                None,
                Some("Wed, 21 Oct 2015 07:28:30 GMT"),
                Some("Wed, 21 Oct 2015 07:28:00 GMT"),
                now
            ),
            Some(Duration::from_secs(30))
        );
        // Without `Date`, against the local clock; a past date means now.
        let local = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(
            retry_after(None, Some("Wed, 21 Oct 2015 07:28:05 GMT"), None, local),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            retry_after(None, Some("Wed, 21 Oct 2015 07:28:00 GMT"), None, now),
            Some(Duration::ZERO)
        );
    }
}
