//! Anthropic Messages API: `POST /v1/messages` (SSE and JSON) and count_tokens.

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};

use crate::reply::{text_of, ApiError, Plan, Turn};
use crate::state::Shared;
use crate::stream::{json as json_resp, sse_event, with_retry_after};
use crate::tools::{tools_in, ToolSpec};

/// Text of `system` given as a string or as an array of text blocks.
fn system_text(v: Option<&Value>) -> String {
    v.map(text_of).unwrap_or_default()
}

fn text_blocks(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn parse(body: &Value) -> Turn {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut system = system_text(body.get("system"));
    let mut convo = Vec::new();
    for m in &messages {
        // Claude Code may put a `role:"system"` entry inside `messages`.
        if m.get("role").and_then(Value::as_str) == Some("system") {
            system.push('\n');
            system.push_str(&text_of(m.get("content").unwrap_or(&Value::Null)));
        } else {
            convo.push(m);
        }
    }
    let user_blocks = |m: &&Value| {
        (m.get("role").and_then(Value::as_str) == Some("user"))
            .then(|| text_blocks(m.get("content").unwrap_or(&Value::Null)))
            .filter(|b| b.iter().any(|t| !t.trim().is_empty()))
    };
    let prompt_blocks = convo.iter().rev().find_map(user_blocks).unwrap_or_default();
    let tool_result = convo.last().and_then(|m| {
        let blocks = m.get("content")?.as_array()?;
        let results: Vec<String> = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| text_of(b.get("content").unwrap_or(&Value::Null)))
            .collect();
        (!results.is_empty()).then(|| results.join("\n"))
    });
    let tools = tools_in(body, |t| ToolSpec::function(t, &["input_schema"]));
    Turn::new(body, prompt_blocks, tool_result, tools, None, system)
}

/// `POST /v1/messages`.
pub(crate) fn messages(shared: &Shared, body: &Value) -> (Response, String) {
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    shared.answer(
        &parse(body),
        stream,
        error,
        |plan| (frames(plan), b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_del\n\n"),
        message,
    )
}

/// `POST /v1/messages/count_tokens`.
pub(crate) fn count_tokens(body: &Value) -> Response {
    json_resp(
        StatusCode::OK,
        &json!({"input_tokens": crate::reply::tokens(body.to_string().len())}),
    )
}

fn ids(plan: &Plan) -> (String, String) {
    (
        format!("msg_fakellm_{:06}", plan.n),
        format!("toolu_fakellm_{:06}", plan.n),
    )
}

fn stop_reason(plan: &Plan) -> &'static str {
    if plan.tool.is_some() {
        "tool_use"
    } else {
        "end_turn"
    }
}

fn signature(plan: &Plan) -> String {
    format!("fakellm-signature-{:06}", plan.n)
}

fn usage(plan: &Plan, output: u64) -> Value {
    json!({
        "input_tokens": plan.input_tokens,
        "output_tokens": output,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    })
}

/// The non-streaming message.
fn message(plan: &Plan) -> Value {
    let (id, tool_id) = ids(plan);
    let mut content = Vec::new();
    if !plan.reasoning.is_empty() {
        content.push(json!({"type": "thinking", "thinking": plan.reasoning_text(), "signature": signature(plan)}));
    }
    if !plan.text.is_empty() {
        content.push(json!({"type": "text", "text": plan.full_text()}));
    }
    if let Some(tool) = &plan.tool {
        content.push(
            json!({"type": "tool_use", "id": tool_id, "name": tool.name, "input": tool.args}),
        );
    }
    json!({
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": plan.model,
        "content": content,
        "stop_reason": stop_reason(plan),
        "stop_sequence": null,
        "usage": usage(plan, plan.output_tokens()),
    })
}

/// The SSE frames, in the order the real API sends them.
fn frames(plan: &Plan) -> Vec<Bytes> {
    let (_, tool_id) = ids(plan);
    let mut start = message(plan);
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"] = usage(plan, 1);
    let mut out = vec![
        sse_event(
            "message_start",
            &json!({"type": "message_start", "message": start}),
        ),
        sse_event("ping", &json!({"type": "ping"})),
    ];
    let mut index = 0;
    let mut block = |out: &mut Vec<Bytes>, start: Value, deltas: Vec<Value>| {
        out.push(sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for d in deltas {
            out.push(sse_event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": d}),
            ));
        }
        out.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    };
    if !plan.reasoning.is_empty() {
        let mut deltas: Vec<Value> = plan
            .reasoning
            .iter()
            .map(|t| json!({"type": "thinking_delta", "thinking": t}))
            .collect();
        deltas.push(json!({"type": "signature_delta", "signature": signature(plan)}));
        block(
            &mut out,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
            deltas,
        );
    }
    if !plan.text.is_empty() {
        let deltas = plan
            .text
            .iter()
            .map(|t| json!({"type": "text_delta", "text": t}))
            .collect();
        block(&mut out, json!({"type": "text", "text": ""}), deltas);
    }
    if let Some(tool) = &plan.tool {
        let args = plan.tool_args_json();
        let deltas = crate::reply::split(&args, 3)
            .into_iter()
            .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
            .collect();
        block(
            &mut out,
            json!({"type": "tool_use", "id": tool_id, "name": tool.name, "input": {}}),
            deltas,
        );
    }
    out.push(sse_event(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(plan), "stop_sequence": null},
            "usage": {"output_tokens": plan.output_tokens()},
        }),
    ));
    out.push(sse_event("message_stop", &json!({"type": "message_stop"})));
    out
}

/// The real API's error envelope and status for each failure.
fn error(e: ApiError, turn: &Turn) -> Response {
    let input = crate::reply::tokens(turn.raw.len());
    let (status, kind, message) = match e {
        ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "authentication_error", "invalid x-api-key".to_string()),
        ApiError::Forbidden => (
            StatusCode::FORBIDDEN,
            "permission_error",
            "Your API key does not have permission to use the specified resource.".to_string(),
        ),
        ApiError::RateLimited => (
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization. Please try again later.".to_string(),
        ),
        ApiError::ContextLength => (
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            format!("prompt is too long: {} tokens > 200000 maximum", input + 200_000),
        ),
        ApiError::Server => (StatusCode::INTERNAL_SERVER_ERROR, "api_error", "Internal server error".to_string()),
        ApiError::UnknownModel => (StatusCode::NOT_FOUND, "not_found_error", format!("model: {}", turn.model)),
    };
    let request_id = format!("req_fakellm_{:06}", turn.raw.len());
    let mut resp = with_retry_after(json_resp(
        status,
        &json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}),
    ));
    // The real API says whether a retry can help; the SDKs obey this header.
    let retry = matches!(e, ApiError::RateLimited | ApiError::Server);
    let h = resp.headers_mut();
    h.insert(
        "x-should-retry",
        HeaderValue::from_static(if retry { "true" } else { "false" }),
    );
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        h.insert("request-id", v);
    }
    resp
}
