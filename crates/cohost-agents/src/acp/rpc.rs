//! ACP's JSON-RPC 2.0 framing: the shared [`crate::jsonrpc`] module with
//! `"jsonrpc": "2.0"` on every message we send.

use serde_json::Value;

use crate::jsonrpc::Framing;
pub(crate) use crate::jsonrpc::{parse, Incoming, RpcError, INVALID_PARAMS, METHOD_NOT_FOUND};

/// A request line.
pub(crate) fn request(id: u64, method: &str, params: Value) -> String {
    Framing::V2.request(id, method, params)
}

/// A notification line.
pub(crate) fn notification(method: &str, params: Value) -> String {
    Framing::V2.notification(method, params)
}

/// A success response line.
pub(crate) fn response(id: &Value, result: Value) -> String {
    Framing::V2.response(id, result)
}

/// An error response line.
pub(crate) fn error_response(id: &Value, code: i64, message: &str) -> String {
    Framing::V2.error_response(id, code, message)
}
