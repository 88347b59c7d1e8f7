//! Ollama API: `POST /api/chat` (NDJSON stream by default), `/api/tags`,
//! `/api/show`, `/api/version`.

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};

use crate::openai_chat;
use crate::reply::{ApiError, Outcome, Plan};
use crate::state::Shared;
use crate::stream::{json as json_resp, json_reply, streaming, with_retry_after, NDJSON};

/// Fixed timestamp: responses must not depend on the clock.
const CREATED_AT: &str = "2025-01-01T00:00:00Z";

/// `POST /api/chat`. The message and tool shapes are OpenAI chat's, so its parser is reused.
pub(crate) fn chat(shared: &Shared, body: &Value) -> (Response, String) {
    let mut turn = openai_chat::parse(body);
    // Ollama's structured output: `format: "json"` or `format: {schema}`.
    turn.json_schema = match body.get("format") {
        Some(Value::String(s)) if s == "json" => Some(json!({})),
        Some(schema @ Value::Object(_)) => Some(schema.clone()),
        _ => None,
    };
    let (outcome, scenario) = shared.decide(&turn);
    // Unlike the other APIs, Ollama streams unless told not to.
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(true);
    let resp = match outcome {
        Outcome::Error(e) => error(e, &turn.model),
        Outcome::Reply(plan) if stream => {
            let broken = Bytes::from_static(
                b"{\"model\":\"fake\",\"message\":{\"role\":\"assistant\",\"content\":\"bro\n",
            );
            streaming(
                lines(&plan),
                plan.pace,
                broken,
                NDJSON,
                shared.shutdown.clone(),
            )
        }
        Outcome::Reply(plan) => {
            let mut message = json!({"role": "assistant", "content": plan.full_text()});
            if !plan.reasoning.is_empty() {
                message["thinking"] = json!(plan.reasoning_text());
            }
            if let Some(calls) = tool_calls(&plan) {
                message["tool_calls"] = calls;
            }
            json_reply(&done(&plan, message), &plan, &shared.shutdown)
        }
    };
    (resp, scenario)
}

fn tool_calls(plan: &Plan) -> Option<Value> {
    let tool = plan.tool.as_ref()?;
    Some(json!([{"function": {"name": tool.name, "arguments": tool.args}}]))
}

fn line(v: &Value) -> Bytes {
    Bytes::from(format!("{v}\n"))
}

fn partial(plan: &Plan, message: Value) -> Value {
    json!({"model": plan.model, "created_at": CREATED_AT, "message": message, "done": false})
}

fn done(plan: &Plan, message: Value) -> Value {
    json!({
        "model": plan.model,
        "created_at": CREATED_AT,
        "message": message,
        "done": true,
        "done_reason": "stop",
        "total_duration": 1_000_000,
        "load_duration": 1_000,
        "prompt_eval_count": plan.input_tokens,
        "prompt_eval_duration": 1_000,
        "eval_count": plan.output_tokens(),
        "eval_duration": 1_000,
    })
}

fn lines(plan: &Plan) -> Vec<Bytes> {
    let mut out: Vec<Bytes> = plan
        .reasoning
        .iter()
        .map(|t| {
            line(&partial(
                plan,
                json!({"role": "assistant", "content": "", "thinking": t}),
            ))
        })
        .collect();
    out.extend(
        plan.text
            .iter()
            .map(|t| line(&partial(plan, json!({"role": "assistant", "content": t})))),
    );
    if let Some(calls) = tool_calls(plan) {
        out.push(line(&partial(
            plan,
            json!({"role": "assistant", "content": "", "tool_calls": calls}),
        )));
    }
    out.push(line(&done(
        plan,
        json!({"role": "assistant", "content": ""}),
    )));
    out
}

fn error(e: ApiError, model: &str) -> Response {
    let model = if model.is_empty() {
        "fake-model"
    } else {
        model
    };
    let (status, message) = match e {
        ApiError::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized".to_string()),
        ApiError::Forbidden => (StatusCode::FORBIDDEN, "forbidden".to_string()),
        ApiError::RateLimited => (
            StatusCode::TOO_MANY_REQUESTS,
            "too many requests, please retry later".to_string(),
        ),
        ApiError::ContextLength => (
            StatusCode::BAD_REQUEST,
            "the input length exceeds the context length; increase num_ctx or shorten the prompt"
                .to_string(),
        ),
        ApiError::Server => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "llama runner process has terminated: exit status 2".to_string(),
        ),
        ApiError::UnknownModel => (
            StatusCode::NOT_FOUND,
            format!("model \"{model}\" not found, try pulling it first"),
        ),
    };
    with_retry_after(json_resp(status, &json!({"error": message})))
}

fn details() -> Value {
    json!({
        "parent_model": "", "format": "gguf", "family": "fake", "families": ["fake"],
        "parameter_size": "1B", "quantization_level": "Q4_K_M",
    })
}

/// `GET /api/tags`.
pub(crate) fn tags(shared: &Shared) -> Response {
    let models: Vec<Value> = shared
        .models
        .iter()
        .map(|m| {
            let name = if m.contains(':') {
                m.clone()
            } else {
                format!("{m}:latest")
            };
            json!({
                "name": name, "model": name, "modified_at": CREATED_AT, "size": 1_000_000,
                "digest": "0000000000000000000000000000000000000000000000000000000000000000",
                "details": details(),
            })
        })
        .collect();
    json_resp(StatusCode::OK, &json!({"models": models}))
}

/// `POST /api/show`.
pub(crate) fn show(shared: &Shared, body: &Value) -> Response {
    let model = body
        .get("model")
        .or_else(|| body.get("name"))
        .and_then(Value::as_str)
        .unwrap_or(shared.default_model());
    json_resp(
        StatusCode::OK,
        &json!({
            "modelfile": format!("FROM {model}\n"),
            "parameters": "num_ctx 32768",
            "template": "{{ .Prompt }}",
            "details": details(),
            "model_info": {"general.architecture": "fake", "fake.context_length": 32768},
            "capabilities": ["completion", "tools", "thinking"],
            "modified_at": CREATED_AT,
        }),
    )
}

/// `GET /api/version`.
pub(crate) fn version() -> Response {
    json_resp(StatusCode::OK, &json!({"version": "0.12.0"}))
}
