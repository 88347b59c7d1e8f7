//! JSON-RPC 2.0 framing for ACP, sans IO: one line in → one [`Incoming`];
//! requests, notifications and responses out as single-line strings.
//!
//! Our request ids are consecutive integers from 0; the agent's request ids
//! are kept as raw JSON values (numbers or strings) and echoed back verbatim.

use serde_json::{json, Value};

/// JSON-RPC "method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC "invalid params".
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC "internal error".
pub const INTERNAL_ERROR: i64 = -32603;

/// An error object from either side.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// Numeric code.
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
}

/// One message from the agent.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// The answer to one of our requests.
    Response {
        /// Our id (non-integer ids cannot be ours and are reported as `None`).
        id: Option<u64>,
        /// `result` or `error`.
        outcome: Result<Value, RpcError>,
    },
    /// The agent asks us something and waits for the answer.
    Request {
        /// The agent's id, echoed back verbatim.
        id: Value,
        /// Method name.
        method: String,
        /// Parameters (`null` when absent).
        params: Value,
    },
    /// The agent tells us something.
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

/// Parse one stdout line.
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
                Some(e) if !e.is_null() => Err(RpcError {
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
                }),
                _ => Ok(m.remove("result").unwrap_or(Value::Null)),
            };
            Ok(Incoming::Response {
                id: id.as_u64(),
                outcome,
            })
        }
        _ => Err(ParseError::NotRpc),
    }
}

/// A request line.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A notification line.
pub fn notification(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// A success response line.
pub fn response(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// An error response line.
pub fn error_response(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_apart() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#),
            Ok(Incoming::Response {
                id: Some(3),
                outcome: Ok(_)
            })
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file","params":{}}"#),
            Ok(Incoming::Request { method, .. }) if method == "fs/read_text_file"
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"session/update"}"#),
            Ok(Incoming::Notification {
                params: Value::Null,
                ..
            })
        ));
        let Ok(Incoming::Response {
            outcome: Err(e), ..
        }) = parse(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"auth","data":"401"}}"#,
        )
        else {
            panic!("error response");
        };
        assert_eq!(e.code, -32000);
        assert_eq!(e.describe(), "auth (401)");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for line in [
            "",
            "hello",
            "[1,2]",
            "{\"jsonrpc\":\"2.0\"}",
            "{\"id\":",
            "null",
        ] {
            assert!(parse(line).is_err(), "{line}");
        }
    }

    #[test]
    fn writers_echo_ids_verbatim() {
        let id = json!("abc");
        let v: Value = serde_json::from_str(&error_response(&id, METHOD_NOT_FOUND, "no")).unwrap();
        assert_eq!(v["id"], "abc");
        assert_eq!(v["error"]["code"], -32601);
        let v: Value = serde_json::from_str(&request(7, "m", json!({}))).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["jsonrpc"], "2.0");
    }
}
