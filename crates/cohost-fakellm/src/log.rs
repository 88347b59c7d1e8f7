//! The request log: every request, in memory and optionally as JSONL on disk,
//! with credentials redacted so a log can be attached to a bug report.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::FakeLlmError;

/// What replaces a secret header or query value.
pub const REDACTED: &str = "[REDACTED]";

const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cookie",
    "set-cookie",
];
const SECRET_QUERY_KEYS: &[&str] = &["key", "api_key", "apikey", "access_token"];

/// One request as the server saw it (one JSONL line of the log file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoggedRequest {
    /// 0-based arrival order.
    pub seq: u64,
    /// HTTP method.
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// Raw query string with secret parameters redacted.
    pub query: Option<String>,
    /// Lower-case header names; secret values replaced by [`REDACTED`].
    pub headers: BTreeMap<String, String>,
    /// JSON body; a non-JSON body is kept as a string, an empty one as null.
    pub body: Value,
    /// Which handler answered, e.g. `anthropic.messages` or `other`.
    pub route: String,
    /// Scenario played, for model requests.
    pub scenario: Option<String>,
}

/// Redacts secret headers and flattens the rest to strings.
pub(crate) fn redact_headers(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (name, value) in headers {
        let name = name.as_str().to_ascii_lowercase();
        let value = if SECRET_HEADERS.contains(&name.as_str()) {
            REDACTED.to_string()
        } else {
            String::from_utf8_lossy(value.as_bytes()).into_owned()
        };
        // Repeated headers: keep them all, comma-joined as HTTP allows.
        out.entry(name)
            .and_modify(|v: &mut String| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    out
}

/// Gemini clients may pass the API key as `?key=`; that must not reach a log.
pub(crate) fn redact_query(query: Option<&str>) -> Option<String> {
    let query = query?;
    let parts: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if SECRET_QUERY_KEYS.contains(&k.to_ascii_lowercase().as_str()) => {
                format!("{k}={REDACTED}")
            }
            _ => pair.to_string(),
        })
        .collect();
    Some(parts.join("&"))
}

/// Body as JSON when it parses, else as (lossy) text.
pub(crate) fn body_value(bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// In-memory list plus optional JSONL file.
#[derive(Debug)]
pub(crate) struct RequestLog {
    entries: Mutex<Vec<LoggedRequest>>,
    file: Option<Mutex<File>>,
}

impl RequestLog {
    pub(crate) fn open(path: Option<&Path>) -> Result<Self, FakeLlmError> {
        let file = match path {
            Some(p) => Some(Mutex::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|source| FakeLlmError::LogOpen {
                        path: p.to_path_buf(),
                        source,
                    })?,
            )),
            None => None,
        };
        Ok(RequestLog {
            entries: Mutex::new(Vec::new()),
            file,
        })
    }

    pub(crate) fn push(&self, entry: LoggedRequest) {
        if let Some(file) = &self.file {
            match serde_json::to_string(&entry) {
                Ok(mut line) => {
                    line.push('\n');
                    let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
                    // The log is a diagnostic aid: a full disk must not fail the request.
                    if let Err(e) = f.write_all(line.as_bytes()) {
                        tracing::warn!(error = %e, "fake-llm: could not append to the request log");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "fake-llm: could not serialize a log entry"),
            }
        }
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(entry);
    }

    pub(crate) fn snapshot(&self) -> Vec<LoggedRequest> {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_headers_and_query() {
        let mut h = HeaderMap::new();
        h.insert("Authorization", "Bearer sk-secret".parse().unwrap());
        h.insert("x-goog-api-key", "g".parse().unwrap());
        h.insert("user-agent", "ua".parse().unwrap());
        let r = redact_headers(&h);
        assert_eq!(r["authorization"], REDACTED);
        assert_eq!(r["x-goog-api-key"], REDACTED);
        assert_eq!(r["user-agent"], "ua");
        assert_eq!(
            redact_query(Some("alt=sse&key=abc")).as_deref(),
            Some("alt=sse&key=[REDACTED]")
        );
    }
}
