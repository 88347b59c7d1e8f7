//! The shared framing, as ACP and the codex app-server use it.

use super::*;
use serde_json::json;

// ACP (`acp/rpc.rs` before the merge).

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
    }) = parse(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"auth","data":"401"}}"#)
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
    let v: Value =
        serde_json::from_str(&Framing::V2.error_response(&id, METHOD_NOT_FOUND, "no")).unwrap();
    assert_eq!(v["id"], "abc");
    assert_eq!(v["error"]["code"], -32601);
    let v: Value = serde_json::from_str(&Framing::V2.request(7, "m", json!({}))).unwrap();
    assert_eq!(v["id"], 7);
    assert_eq!(v["jsonrpc"], "2.0");
}

// Codex app-server (`codex/wire.rs` before the merge).

#[test]
fn classifies_with_and_without_jsonrpc_field() {
    let r = Incoming::parse(r#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#).unwrap();
    assert_eq!(
        r,
        Incoming::Response {
            id: Some(3),
            outcome: Ok(json!({"a":1}))
        }
    );
    let n = Incoming::parse(r#"{"method":"turn/started","params":{}}"#).unwrap();
    assert!(matches!(n, Incoming::Notification { method, .. } if method == "turn/started"));
    let q = Incoming::parse(r#"{"method":"x/requestApproval","id":"abc","params":{}}"#).unwrap();
    assert!(matches!(q, Incoming::Request { id, .. } if id == json!("abc")));
    let e = Incoming::parse(r#"{"id":"7","error":{"code":-1,"message":"no"}}"#).unwrap();
    assert!(matches!(
        e,
        Incoming::Response {
            id: Some(7),
            outcome: Err(_)
        }
    ));
}

#[test]
fn rejects_non_rpc() {
    assert!(matches!(
        Incoming::parse("{\"id\":"),
        Err(ParseError::NotJson(_))
    ));
    assert_eq!(Incoming::parse("[1,2]"), Err(ParseError::NotRpc));
    assert_eq!(Incoming::parse("{\"x\":1}"), Err(ParseError::NotRpc));
}

#[test]
fn framings_write_what_each_peer_expects() {
    assert_eq!(
        Framing::Bare.request(1, "thread/start", json!({})),
        r#"{"id":1,"method":"thread/start","params":{}}"#
    );
    assert_eq!(
        Framing::Bare.notification("initialized", Value::Null),
        r#"{"method":"initialized"}"#
    );
    assert_eq!(
        Framing::V2.notification("session/cancel", Value::Null),
        r#"{"jsonrpc":"2.0","method":"session/cancel","params":null}"#
    );
    assert_eq!(
        Framing::Bare.response(&json!("a"), json!({"ok": true})),
        r#"{"id":"a","result":{"ok":true}}"#
    );
    assert_eq!(
        Framing::V2.error_response(&json!(2), INVALID_PARAMS, "bad"),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}"#
    );
}
