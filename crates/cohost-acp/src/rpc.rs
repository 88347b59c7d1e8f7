//! ACP's JSON-RPC 2.0 framing: the shared [`crate::jsonrpc`] module with
//! `"jsonrpc": "2.0"` on every message we send. Params and results are the
//! ACP SDK's schema types.

use serde::Serialize;
use serde_json::Value;

use crate::jsonrpc::Framing;
pub(crate) use crate::jsonrpc::{parse, Incoming, RpcError, INVALID_PARAMS, METHOD_NOT_FOUND};

/// A schema message as JSON. The schema's types serialize infallibly (derived
/// impls, string keys); should that ever change, the failure is logged.
fn json(message: &impl Serialize) -> Value {
    serde_json::to_value(message).unwrap_or_else(|e| {
        tracing::error!(error = %e, "an ACP message did not serialize");
        Value::Null
    })
}

/// A request line.
pub(crate) fn request(id: u64, method: &str, params: &impl Serialize) -> String {
    Framing::V2.request(id, method, json(params))
}

/// A notification line.
pub(crate) fn notification(method: &str, params: &impl Serialize) -> String {
    Framing::V2.notification(method, json(params))
}

/// A success response line.
pub(crate) fn response(id: &Value, result: &impl Serialize) -> String {
    Framing::V2.response(id, json(result))
}

/// An error response line.
pub(crate) fn error_response(id: &Value, code: i64, message: &str) -> String {
    Framing::V2.error_response(id, code, message)
}
