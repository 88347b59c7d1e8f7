//! OpenAI Chat Completions: `POST /v1/chat/completions` (SSE and JSON), and
//! the OpenAI error envelope shared with the Responses API.

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};

use crate::reply::{text_of, tokens, ApiError, Plan, Turn};
use crate::state::Shared;
use crate::stream::{json as json_resp, sse_data, with_retry_after};
use crate::tools::{tools_in, ToolSpec};

/// Text parts of a chat message's `content` (string or array of parts).
pub(crate) fn content_blocks(content: Option<&Value>) -> Vec<String> {
    match content {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| {
                matches!(
                    p.get("type").and_then(Value::as_str),
                    Some("text" | "input_text") | None
                )
            })
            .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

pub(crate) fn parse(body: &Value) -> Turn {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let system = messages
        .iter()
        .filter(|m| matches!(role(m), "system" | "developer"))
        .flat_map(|m| content_blocks(m.get("content")))
        .collect::<Vec<_>>()
        .join("\n");
    let prompt_blocks = messages
        .iter()
        .rev()
        .filter(|m| role(m) == "user")
        .map(|m| content_blocks(m.get("content")))
        .find(|b| b.iter().any(|t| !t.trim().is_empty()))
        .unwrap_or_default();
    // Parallel calls end the conversation with several tool messages in a row.
    let trailing: Vec<String> = messages
        .iter()
        .rev()
        .take_while(|m| matches!(role(m), "tool" | "function"))
        .map(|m| text_of(m.get("content").unwrap_or(&Value::Null)))
        .collect();
    let tool_result =
        (!trailing.is_empty()).then(|| trailing.into_iter().rev().collect::<Vec<_>>().join("\n"));
    let tools = tools_in(body, |t| {
        ToolSpec::function(t.get("function").unwrap_or(t), &["parameters"])
    });
    let json_schema =
        body.get("response_format")
            .and_then(|rf| match rf.get("type").and_then(Value::as_str) {
                Some("json_schema") => Some(
                    rf.pointer("/json_schema/schema")
                        .cloned()
                        .unwrap_or(json!({})),
                ),
                Some("json_object") => Some(json!({})),
                _ => None,
            });
    Turn::new(body, prompt_blocks, tool_result, tools, json_schema, system)
}

/// `POST /v1/chat/completions`.
pub(crate) fn completions(shared: &Shared, body: &Value) -> (Response, String) {
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    shared.answer(
        &parse(body),
        stream,
        openai_error,
        |plan| {
            (
                frames(plan, include_usage),
                b"data: {\"id\":\"chatcmpl-broken\",\"choices\":[{\"delta\":{\"content\":\"br\n\n",
            )
        },
        completion,
    )
}

fn ids(plan: &Plan) -> (String, String) {
    (
        format!("chatcmpl-fakellm-{:06}", plan.n),
        format!("call_fakellm_{:06}", plan.n),
    )
}

/// Fixed, counter-derived timestamps keep responses byte-for-byte repeatable.
pub(crate) fn created(plan: &Plan) -> u64 {
    1_700_000_000 + plan.n
}

fn finish_reason(plan: &Plan) -> &'static str {
    if plan.tool.is_some() {
        "tool_calls"
    } else {
        "stop"
    }
}

fn usage(plan: &Plan) -> Value {
    json!({
        "prompt_tokens": plan.input_tokens,
        "completion_tokens": plan.output_tokens(),
        "total_tokens": plan.input_tokens + plan.output_tokens(),
        "completion_tokens_details": {"reasoning_tokens": if plan.reasoning.is_empty() { 0 } else { plan.reasoning_tokens() }},
    })
}

fn completion(plan: &Plan) -> Value {
    let (id, call_id) = ids(plan);
    let mut message = json!({
        "role": "assistant",
        "content": if plan.text.is_empty() { Value::Null } else { Value::String(plan.full_text()) },
    });
    if !plan.reasoning.is_empty() {
        message["reasoning_content"] = Value::String(plan.reasoning_text());
    }
    if let Some(tool) = &plan.tool {
        message["tool_calls"] = json!([{
            "id": call_id, "type": "function",
            "function": {"name": tool.name, "arguments": plan.tool_args_json()},
        }]);
    }
    json!({
        "id": id,
        "object": "chat.completion",
        "created": created(plan),
        "model": plan.model,
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason(plan)}],
        "usage": usage(plan),
    })
}

fn frames(plan: &Plan, include_usage: bool) -> Vec<Bytes> {
    let (id, call_id) = ids(plan);
    let chunk = |delta: Value, finish: Value| {
        let c = json!({
            "id": id, "object": "chat.completion.chunk", "created": created(plan), "model": plan.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        sse_data(&c.to_string())
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    out.extend(
        plan.reasoning
            .iter()
            .map(|t| chunk(json!({"reasoning_content": t}), Value::Null)),
    );
    out.extend(
        plan.text
            .iter()
            .map(|t| chunk(json!({"content": t}), Value::Null)),
    );
    if let Some(tool) = &plan.tool {
        out.push(chunk(
            json!({"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                   "function": {"name": tool.name, "arguments": ""}}]}),
            Value::Null,
        ));
        for piece in crate::reply::split(&plan.tool_args_json(), 3) {
            out.push(chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
    }
    out.push(chunk(json!({}), Value::String(finish_reason(plan).into())));
    if include_usage {
        let u = json!({
            "id": id, "object": "chat.completion.chunk", "created": created(plan), "model": plan.model,
            "choices": [], "usage": usage(plan),
        });
        out.push(sse_data(&u.to_string()));
    }
    out.push(sse_data("[DONE]"));
    out
}

/// OpenAI's error envelope and status (Chat Completions and Responses share it).
pub(crate) fn openai_error(e: ApiError, turn: &Turn) -> Response {
    let input = tokens(turn.raw.len());
    let model = if turn.model.is_empty() {
        "fake-model"
    } else {
        turn.model.as_str()
    };
    let (status, message, kind, code) = match e {
        ApiError::Unauthorized => (
            StatusCode::UNAUTHORIZED,
            "Incorrect API key provided: sk-fake***. You can find your API key at https://platform.openai.com/account/api-keys.".to_string(),
            "invalid_request_error",
            json!("invalid_api_key"),
        ),
        ApiError::Forbidden => (
            StatusCode::FORBIDDEN,
            format!("Project does not have access to model `{model}`"),
            "invalid_request_error",
            json!("model_not_found"),
        ),
        ApiError::RateLimited => (
            StatusCode::TOO_MANY_REQUESTS,
            format!("Rate limit reached for {model} on tokens per min (TPM): Limit 30000, Used 30000, Requested {input}. Please try again in 1s."),
            "tokens",
            json!("rate_limit_exceeded"),
        ),
        ApiError::ContextLength => (
            StatusCode::BAD_REQUEST,
            format!(
                "This model's maximum context length is 128000 tokens. However, your messages resulted in {} tokens. Please reduce the length of the messages.",
                input + 128_000
            ),
            "invalid_request_error",
            json!("context_length_exceeded"),
        ),
        ApiError::Server => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "The server had an error while processing your request. Sorry about that!".to_string(),
            "server_error",
            Value::Null,
        ),
        ApiError::UnknownModel => (
            StatusCode::NOT_FOUND,
            format!("The model `{model}` does not exist or you do not have access to it."),
            "invalid_request_error",
            json!("model_not_found"),
        ),
    };
    let mut resp = with_retry_after(json_resp(
        status,
        &json!({"error": {"message": message, "type": kind, "param": null, "code": code}}),
    ));
    // OpenAI's SDKs obey this header: no pointless retries of a 401 or 404.
    let retry = matches!(e, ApiError::RateLimited | ApiError::Server);
    resp.headers_mut().insert(
        "x-should-retry",
        axum::http::HeaderValue::from_static(if retry { "true" } else { "false" }),
    );
    resp
}
