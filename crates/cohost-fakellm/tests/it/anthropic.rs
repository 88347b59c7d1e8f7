//! Anthropic Messages API over real HTTP.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use common::*;
use serde_json::{json, Value};

fn claude_tools() -> Value {
    json!([
        {"name": "Task", "description": "Launch an agent", "input_schema": {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}},
        {"name": "Bash", "description": "Run a command", "input_schema": {"type": "object", "properties": {
            "command": {"type": "string"}, "timeout": {"type": "number"}, "description": {"type": "string"},
            "run_in_background": {"type": "boolean"}}, "required": ["command"], "additionalProperties": false}},
        {"name": "Read", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}},
        {"name": "Write", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}, "required": ["file_path", "content"]}},
    ])
}

/// A request shaped like Claude Code's: system blocks, a system entry inside
/// `messages`, a user message of several text blocks.
fn request(prompt: &str, stream: bool) -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 32000,
        "stream": stream,
        "system": [{"type": "text", "text": "You are Claude Code.\nWorking directory: /tmp/proj\n"}],
        "messages": [
            {"role": "system", "content": "extra system"},
            {"role": "user", "content": [
                {"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
                {"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}
            ]}
        ],
        "tools": claude_tools(),
    })
}

fn deltas(events: &[Sse], kind: &str, field: &str) -> String {
    events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .map(|e| e.json())
        .filter(|d| d["delta"]["type"] == kind)
        .map(|d| d["delta"][field].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn text_stream_has_the_real_event_sequence() {
    let h = server().await;
    let events = sse(post(&h, "/v1/messages?beta=true", &request("hi there", true)).await).await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
    assert_eq!(names[..3], ["message_start", "ping", "content_block_start"]);
    assert_eq!(
        names[names.len() - 3..],
        ["content_block_stop", "message_delta", "message_stop"]
    );
    let text_deltas = names
        .iter()
        .filter(|n| **n == "content_block_delta")
        .count();
    assert!(text_deltas >= 3, "{text_deltas} deltas");
    for e in &events {
        assert_eq!(
            e.json()["type"],
            e.event.as_deref().unwrap(),
            "event name matches data type"
        );
    }
    assert_eq!(
        deltas(&events, "text_delta", "text"),
        "Hello from fake-llm. You said: hi there"
    );
    let start = events[0].json();
    assert_eq!(start["message"]["model"], "claude-sonnet-4-5");
    assert!(start["message"]["usage"]["input_tokens"].as_u64().unwrap() > 0);
    let md = events[events.len() - 2].json();
    assert_eq!(md["delta"]["stop_reason"], "end_turn");
    assert!(md["usage"]["output_tokens"].as_u64().unwrap() > 0);
    let logged = h.requests();
    assert_eq!(logged[0].route, "anthropic.messages");
    assert_eq!(logged[0].query.as_deref(), Some("beta=true"));
    assert_eq!(logged[0].scenario.as_deref(), Some("text"));
}

#[tokio::test]
async fn reasoning_stream_sends_thinking_then_signature_then_text() {
    let h = server().await;
    let events = sse(post(
        &h,
        "/v1/messages",
        &request("why? [[scenario:reasoning]]", true),
    )
    .await)
    .await;
    let thinking = deltas(&events, "thinking_delta", "thinking");
    assert!(
        thinking.starts_with("Thinking about the request"),
        "{thinking}"
    );
    assert!(!deltas(&events, "signature_delta", "signature").is_empty());
    assert!(deltas(&events, "text_delta", "text").starts_with("Hello from fake-llm"));
    let starts: Vec<Value> = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_start"))
        .map(|e| e.json()["content_block"]["type"].clone())
        .collect();
    assert_eq!(starts, vec![json!("thinking"), json!("text")]);
}

#[tokio::test]
async fn tool_call_picks_bash_then_quotes_the_result() {
    let h = server().await;
    let events = sse(post(
        &h,
        "/v1/messages",
        &request("make a file [[scenario:tool]]", true),
    )
    .await)
    .await;
    let start = events
        .iter()
        .find(|e| e.event.as_deref() == Some("content_block_start"))
        .unwrap()
        .json();
    assert_eq!(start["content_block"]["type"], "tool_use");
    assert_eq!(start["content_block"]["name"], "Bash");
    let id = start["content_block"]["id"].as_str().unwrap().to_string();
    let args: Value =
        serde_json::from_str(&deltas(&events, "input_json_delta", "partial_json")).unwrap();
    assert_eq!(
        args,
        json!({"command": "echo cohost-tool-ok > cohost_tool_output.txt"})
    );
    assert_eq!(
        events[events.len() - 2].json()["delta"]["stop_reason"],
        "tool_use"
    );

    // The follow-up carries the tool result: the model answers with text quoting it.
    let mut follow = request("make a file [[scenario:tool]]", true);
    let msgs = follow["messages"].as_array_mut().unwrap();
    msgs.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": args}]}));
    msgs.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": "done-42"}]}]}));
    let events = sse(post(&h, "/v1/messages", &follow).await).await;
    assert_eq!(deltas(&events, "text_delta", "text"), "Tool said: done-42");
    assert_eq!(
        events[events.len() - 2].json()["delta"]["stop_reason"],
        "end_turn"
    );
}

#[tokio::test]
async fn write_variant_prefers_write_with_absolute_path() {
    let h = server().await;
    let resp = post(&h, "/v1/messages", &request("[[scenario:write]]", false)).await;
    let body: Value = resp.json().await.unwrap();
    let tool = &body["content"][0];
    assert_eq!(tool["type"], "tool_use");
    assert_eq!(tool["name"], "Write");
    assert_eq!(
        tool["input"],
        json!({"file_path": "/tmp/proj/cohost_tool_output.txt", "content": "cohost-tool-ok"})
    );
    assert_eq!(body["stop_reason"], "tool_use");
}

#[tokio::test]
async fn non_streaming_text_and_reasoning() {
    let h = server().await;
    let body: Value = post(&h, "/v1/messages", &request("thinking", false))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["type"], "message");
    assert_eq!(body["content"][0]["type"], "thinking");
    assert!(body["content"][0]["signature"].is_string());
    assert_eq!(
        body["content"][1]["text"],
        "Hello from fake-llm. You said: thinking"
    );
    assert_eq!(body["stop_reason"], "end_turn");
    assert!(body["usage"]["output_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn errors_use_anthropic_shape_and_status() {
    let h = server().await;
    for (name, status) in ERRORS {
        let resp = post(
            &h,
            "/v1/messages",
            &request(&format!("[[scenario:{name}]]"), true),
        )
        .await;
        assert_should_retry(&resp);
        let body = error_body(resp, *status).await;
        assert_eq!(body["type"], "error", "{name}");
        let kind = body["error"]["type"].as_str().unwrap();
        let expected = match *status {
            401 => "authentication_error",
            403 => "permission_error",
            429 => "rate_limit_error",
            400 => "invalid_request_error",
            404 => "not_found_error",
            _ => "api_error",
        };
        assert_eq!(kind, expected);
        if *name == "context" {
            assert!(body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("prompt is too long: "));
        }
    }
}

#[tokio::test]
async fn malformed_stream_breaks_mid_way() {
    let h = server().await;
    let resp = post(&h, "/v1/messages", &request("[[scenario:malformed]]", true)).await;
    let events = sse(resp).await;
    let last = events.last().unwrap();
    assert!(
        serde_json::from_str::<Value>(&last.data).is_err(),
        "last frame must be broken"
    );
    assert!(!events
        .iter()
        .any(|e| e.event.as_deref() == Some("message_stop")));
    let body = post(
        &h,
        "/v1/messages",
        &request("[[scenario:malformed]]", false),
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(serde_json::from_str::<Value>(&body).is_err());
}

#[tokio::test]
async fn count_tokens_and_models() {
    let h = server().await;
    let body: Value = post(&h, "/v1/messages/count_tokens", &request("x", false))
        .await
        .json()
        .await
        .unwrap();
    assert!(body["input_tokens"].as_u64().unwrap() > 0);
    let models: Value = get(&h, "/v1/models").await.json().await.unwrap();
    assert_eq!(models["data"][0]["id"], "fake-model");
    assert_eq!(models["data"][0]["type"], "model");
    assert_eq!(models["has_more"], false);
}

#[tokio::test]
async fn tolerates_odd_requests() {
    let h = server().await;
    // No user text at all, string content, and a body that is not JSON.
    let body: Value = post(&h, "/v1/messages", &json!({"model": "m", "messages": []}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        body["content"][0]["text"],
        "Hello from fake-llm. You said nothing."
    );
    let body: Value = post(
        &h,
        "/v1/messages",
        &json!({"messages": [{"role": "user", "content": "plain"}]}),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(
        body["content"][0]["text"],
        "Hello from fake-llm. You said: plain"
    );
    let resp = client()
        .post(format!("{}/v1/messages", h.base_url()))
        .body("not json{")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // Tool scenario with no tools offered falls back to text.
    let body: Value = post(
        &h,
        "/v1/messages",
        &json!({"messages": [{"role": "user", "content": "tool"}]}),
    )
    .await
    .json()
    .await
    .unwrap();
    assert!(body["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("no tools were offered"));
}
