//! A bounded ring of an agent's stderr, and a classifier for the failures
//! agents report there.
//!
//! Agents print their fatal errors (bad key, rate limit, refused connection)
//! on stderr in free text. We keep the last bytes only, because a chatty
//! agent must not grow our memory, and classify them into the port's
//! [`ErrorCode`]s so every driver maps "401" the same way.

use cohost_core::{ErrorCode, Sanitizer};
use std::collections::VecDeque;
use std::sync::Arc;

/// Default ring size: the last 64 KiB of stderr.
pub const DEFAULT_STDERR_BYTES: usize = 64 * 1024;

/// The last `capacity` bytes written to stderr.
#[derive(Debug)]
pub struct StderrRing {
    buf: VecDeque<u8>,
    capacity: usize,
    total: u64,
    sanitizer: Arc<Sanitizer>,
}

impl StderrRing {
    /// A ring keeping at most `capacity` bytes, read through `sanitizer`.
    pub fn new(capacity: usize, sanitizer: Arc<Sanitizer>) -> Self {
        StderrRing {
            buf: VecDeque::with_capacity(capacity.min(8192)),
            capacity: capacity.max(1),
            total: 0,
            sanitizer,
        }
    }

    /// Append bytes, dropping the oldest beyond capacity.
    pub fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        let data = if data.len() > self.capacity {
            &data[data.len() - self.capacity..]
        } else {
            data
        };
        let overflow = (self.buf.len() + data.len()).saturating_sub(self.capacity);
        self.buf.drain(..overflow);
        self.buf.extend(data);
    }

    /// Bytes held now (at most the capacity).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was captured.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes ever written, including the dropped ones.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// The captured text, lossily decoded and sanitized (secrets removed,
    /// home shown as `~`): safe to show a user.
    pub fn text(&self) -> String {
        let (a, b) = self.buf.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        self.sanitizer
            .sanitize(&String::from_utf8_lossy(&bytes))
            .into_owned()
    }

    /// The last `max_lines` non-blank lines of [`StderrRing::text`], joined
    /// with `\n` (for one-line error messages and `health().last_error`).
    pub fn tail_lines(&self, max_lines: usize) -> String {
        tail_lines(&self.text(), max_lines)
    }
}

/// The last `max_lines` non-blank lines of `text`.
pub fn tail_lines(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(max_lines);
    lines[start..].join("\n")
}

/// Map an agent's error text (stderr, or an error message in its output) to
/// an error code, when it matches a failure every vendor reports alike.
///
/// Order matters: "context" checks run before "rate limit" because providers
/// phrase an over-long prompt as "too many tokens"; auth runs before model
/// lookups because a 401 often mentions the model too.
pub fn classify_stderr(text: &str) -> Option<ErrorCode> {
    let t = text.to_ascii_lowercase();
    let any = |needles: &[&str]| needles.iter().any(|n| t.contains(n));
    if any(&[
        "context length",
        "context_length",
        "context window",
        "maximum context",
        "prompt is too long",
        "prompt too long",
        "input is too long",
        "too many tokens",
        "context_window_exceeded",
        "exceeds the context",
    ]) {
        return Some(ErrorCode::ContextWindowExceeded);
    }
    if has_status(&t, "401")
        || any(&[
            "unauthorized",
            "invalid api key",
            "invalid x-api-key",
            "invalid_api_key",
            "authentication_error",
            "authentication failed",
            "not logged in",
            "please run /login",
            "api key not found",
            "missing api key",
            "no api key",
            "missing environment variable",
            // Gemini CLI without a usable auth type (exit 41), with no
            // key or settings at all, and its ACP mode.
            "invalid auth method",
            "please set an auth method",
            "api key is missing",
            // Qwen Code without an auth type.
            "no auth type is selected",
            // ACP's -32000 text (claude-code-acp).
            "authentication required",
            // Copilot CLI signed out.
            "copilot can be authenticated",
        ])
    {
        return Some(ErrorCode::AuthRequired);
    }
    if has_status(&t, "403") || any(&["forbidden", "permission_error"]) {
        return Some(if t.contains("policy") {
            ErrorCode::AuthBlockedByPolicy
        } else {
            ErrorCode::AuthRequired
        });
    }
    if has_status(&t, "429")
        || any(&[
            "rate limit",
            "rate_limit",
            "ratelimit",
            "too many requests",
            "overloaded",
            "resource_exhausted",
            "quota",
        ])
    {
        return Some(ErrorCode::RateLimited);
    }
    if any(&[
        "model not found",
        "model_not_found",
        "unknown model",
        "invalid model",
        "model is not available",
        "model does not exist",
        "no such model",
    ]) || (t.contains("model") && any(&["not_found_error", "does not exist", "not found"]))
    {
        return Some(ErrorCode::ModelNotAvailable);
    }
    if any(&[
        "econnrefused",
        "connection refused",
        "econnreset",
        "connection reset",
        "enotfound",
        "getaddrinfo",
        "etimedout",
        "network error",
        "fetch failed",
        "unable to connect",
        "failed to connect",
        "dns error",
    ]) {
        return Some(ErrorCode::NetworkError);
    }
    None
}

/// Whether `code` (three digits) occurs as a standalone number, so "401"
/// matches "status 401" but not "port 34011".
fn has_status(text: &str, code: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(code).any(|(i, m)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + m.len()).copied();
        !before.is_some_and(|b| b.is_ascii_alphanumeric())
            && !after.is_some_and(|b| b.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_only_the_tail() {
        let mut r = StderrRing::new(10, Arc::default());
        r.push(b"0123456789abc");
        assert_eq!(r.text(), "3456789abc");
        r.push(b"XY");
        assert_eq!(r.text(), "56789abcXY");
        assert_eq!(r.len(), 10);
        assert_eq!(r.total_bytes(), 15);
        for _ in 0..10_000 {
            r.push(b"spam spam spam\n");
        }
        assert_eq!(r.len(), 10, "ring stays bounded");
    }

    #[test]
    fn ring_text_is_sanitized_and_lossy() {
        let mut r = StderrRing::new(1024, Arc::default());
        r.push(b"bad key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 \xff\n");
        let text = r.text();
        assert!(!text.contains("abcdefghijklmnop"), "{text}");
        assert!(text.contains('\u{fffd}'));
    }

    #[test]
    fn ring_text_passes_the_sanitizer_it_was_given() {
        // A value only this sanitizer knows (not the process's).
        const PLANTED: &str = "planted-q7Xw2Lm9Rk4Zt8Vn";
        assert_eq!(cohost_core::sanitize::global().sanitize(PLANTED), PLANTED);
        let given = Arc::new(Sanitizer::shapes_only().with_known_values([PLANTED]));
        let mut r = StderrRing::new(1024, given);
        r.push(format!("error: gateway refused {PLANTED}\n").as_bytes());
        assert!(!r.text().contains(PLANTED), "{}", r.text());
        assert!(r.text().contains("gateway refused"));
    }

    #[test]
    fn tail_lines_skips_blanks() {
        let mut r = StderrRing::new(1024, Arc::default());
        r.push(b"one\n\ntwo\nthree\n\n");
        assert_eq!(r.tail_lines(2), "two\nthree");
    }

    #[test]
    fn classifies_common_failures() {
        let cases = [
            (
                "API Error: 401 {\"error\":\"invalid x-api-key\"}",
                ErrorCode::AuthRequired,
            ),
            (
                "Invalid API key · Please run /login",
                ErrorCode::AuthRequired,
            ),
            (
                "status 403 forbidden by organization policy",
                ErrorCode::AuthBlockedByPolicy,
            ),
            ("API Error: 429 rate_limit_error", ErrorCode::RateLimited),
            ("Too Many Requests", ErrorCode::RateLimited),
            (
                "prompt is too long: 250000 tokens > 200000 maximum",
                ErrorCode::ContextWindowExceeded,
            ),
            (
                "This model's maximum context length is 128000 tokens",
                ErrorCode::ContextWindowExceeded,
            ),
            (
                "model: fake-x not_found_error",
                ErrorCode::ModelNotAvailable,
            ),
            (
                "Error: connect ECONNREFUSED 127.0.0.1:9",
                ErrorCode::NetworkError,
            ),
            ("TypeError: fetch failed", ErrorCode::NetworkError),
            (
                "Missing environment variable: `MY_PROVIDER_KEY`.",
                ErrorCode::AuthRequired,
            ),
            ("Invalid auth method selected.", ErrorCode::AuthRequired),
            // Captured from the pinned CLIs, signed out, no key.
            ("Please set an Auth method in your ~/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA", ErrorCode::AuthRequired),
            ("Gemini API key is missing or not configured.", ErrorCode::AuthRequired),
            ("No auth type is selected. Please configure an auth type (e.g. via settings or `--auth-type`) before running in non-interactive mode.", ErrorCode::AuthRequired),
            ("Authentication required", ErrorCode::AuthRequired),
            ("Copilot can be authenticated with GitHub using an OAuth Token or a Fine-Grained Personal Access Token.", ErrorCode::AuthRequired),
        ];
        for (text, code) in cases {
            assert_eq!(classify_stderr(text), Some(code), "{text}");
        }
    }

    #[test]
    fn ordinary_noise_is_not_classified() {
        for text in [
            "listening on 127.0.0.1:34011",
            "warning: deprecated flag",
            "request id 4290a1",
            "",
        ] {
            assert_eq!(classify_stderr(text), None, "{text}");
        }
    }
}
