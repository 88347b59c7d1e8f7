//! JSON-RPC 2.0 over newline-delimited stdio, sans IO, shared by the Codex
//! app-server driver and the ACP client: one line in → one [`Incoming`];
//! requests, notifications and responses out as single-line strings, in
//! the peer's [`Framing`].
//!
//! Our request ids are consecutive integers; a peer's request ids are kept
//! as raw JSON values (numbers or strings) and echoed back verbatim.

use serde_json::{Map, Value};

/// JSON-RPC "method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC "invalid params".
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC "internal error".
pub const INTERNAL_ERROR: i64 = -32603;

/// An error object from either side.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// Numeric code ([`INTERNAL_ERROR`] when the peer sent none).
    pub code: i64,
    /// Message.
    pub message: String,
    /// Optional details.
    pub data: Option<Value>,
}

impl RpcError {
    /// Message plus any string-ish details, for classification and display.
    pub fn describe(&self) -> String {
        match &self.data {
            Some(Value::String(s)) => format!("{} ({s})", self.message),
            Some(Value::Null) | None => self.message.clone(),
            Some(other) => {
                let mut d = other.to_string();
                if d.len() > 500 {
                    let mut cut = 500;
                    while !d.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    d.truncate(cut);
                }
                format!("{} ({d})", self.message)
            }
        }
    }

    fn from_value(e: &Value) -> RpcError {
        RpcError {
            code: e
                .get("code")
                .and_then(Value::as_i64)
                .unwrap_or(INTERNAL_ERROR),
            message: e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_string(),
            data: e.get("data").cloned(),
        }
    }
}

/// One message from the peer.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response {
        /// Our id. A peer may echo it as a numeric string; an id that is
        /// neither cannot be ours and is reported as `None`.
        id: Option<u64>,
        /// `result` or `error`.
        outcome: Result<Value, RpcError>,
    },
    /// The peer asks us something and waits for the answer.
    Request {
        /// The peer's id, echoed back verbatim.
        id: Value,
        /// Method name.
        method: String,
        /// Parameters (`null` when absent).
        params: Value,
    },
    /// The peer tells us something.
    Notification {
        /// Method name.
        method: String,
        /// Parameters (`null` when absent).
        params: Value,
    },
}

/// Why a line is not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not JSON at all (agent logs on stdout, a truncated line).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but no method and no id.
    #[error("JSON but not a JSON-RPC message")]
    NotRpc,
}

impl Incoming {
    /// Classify one stdout line. The `"jsonrpc"` field is accepted when
    /// present and never required (codex's app-server omits it).
    pub fn parse(line: &str) -> Result<Incoming, ParseError> {
        let v: Value =
            serde_json::from_str(line.trim()).map_err(|e| ParseError::NotJson(e.to_string()))?;
        let Value::Object(mut m) = v else {
            return Err(ParseError::NotRpc);
        };
        let params = m.remove("params").unwrap_or(Value::Null);
        let id = m.remove("id");
        match (m.remove("method"), id) {
            (Some(Value::String(method)), Some(id)) if !id.is_null() => {
                Ok(Incoming::Request { id, method, params })
            }
            (Some(Value::String(method)), _) => Ok(Incoming::Notification { method, params }),
            (None, Some(id)) => {
                let outcome = match m.remove("error") {
                    Some(e) if !e.is_null() => Err(RpcError::from_value(&e)),
                    _ => Ok(m.remove("result").unwrap_or(Value::Null)),
                };
                let id = id
                    .as_u64()
                    .or_else(|| id.as_str().and_then(|s| s.parse().ok()));
                Ok(Incoming::Response { id, outcome })
            }
            _ => Err(ParseError::NotRpc),
        }
    }
}

/// Parse one stdout line ([`Incoming::parse`]).
pub fn parse(line: &str) -> Result<Incoming, ParseError> {
    Incoming::parse(line)
}

/// How a peer spells the messages we send it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `"jsonrpc": "2.0"` on every message, `params` always present (ACP).
    V2,
    /// No version field; a notification without params has none (codex's
    /// app-server).
    Bare,
}

impl Framing {
    fn message(self, fields: impl IntoIterator<Item = (&'static str, Value)>) -> String {
        let mut m = Map::new();
        if self == Framing::V2 {
            m.insert("jsonrpc".into(), Value::from("2.0"));
        }
        for (k, v) in fields {
            m.insert(k.into(), v);
        }
        Value::Object(m).to_string()
    }

    /// A request line.
    pub fn request(self, id: u64, method: &str, params: Value) -> String {
        self.message([
            ("id", Value::from(id)),
            ("method", Value::from(method)),
            ("params", params),
        ])
    }

    /// A notification line; `Bare` framing leaves out `null` params.
    pub fn notification(self, method: &str, params: Value) -> String {
        let params = (self == Framing::V2 || !params.is_null()).then_some(("params", params));
        self.message(std::iter::once(("method", Value::from(method))).chain(params))
    }

    /// A success response line.
    pub fn response(self, id: &Value, result: Value) -> String {
        self.message([("id", id.clone()), ("result", result)])
    }

    /// An error response line.
    pub fn error_response(self, id: &Value, code: i64, message: &str) -> String {
        let mut e = Map::new();
        e.insert("code".into(), Value::from(code));
        e.insert("message".into(), Value::from(message));
        self.message([("id", id.clone()), ("error", Value::Object(e))])
    }
}

#[cfg(test)]
mod tests;
