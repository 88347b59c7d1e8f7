//! Gemini API: `models/{model}:generateContent`, `:streamGenerateContent?alt=sse`,
//! `:countTokens`, and the model list, under `/v1beta` (or `/v1`, `/v1alpha`).

use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};

use crate::reply::{tokens, ApiError, Plan, Turn};
use crate::state::Shared;
use crate::stream::{json as json_resp, sse_data, with_retry_after};
use crate::tools::ToolSpec;

type Routed = (&'static str, Response, Option<String>);

/// Routes a Gemini path; `None` when it is not one (the caller answers `{}`).
pub(crate) fn route(shared: &Shared, post: bool, path: &str, body: &Value) -> Option<Routed> {
    let rest = ["/v1beta/", "/v1/", "/v1alpha/"]
        .iter()
        .find_map(|p| path.strip_prefix(p))?;
    let rest = rest
        .strip_prefix("models")
        .or_else(|| rest.strip_prefix("tunedModels"))?;
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    match (post, rest.split_once(':')) {
        (false, None) if rest.is_empty() => Some(("gemini.models", list(shared), None)),
        (false, None) => Some((
            "gemini.model",
            json_resp(StatusCode::OK, &model_object(rest)),
            None,
        )),
        (true, Some((model, "generateContent"))) => {
            let (resp, s) = generate(shared, model, body, false);
            Some(("gemini.generate", resp, Some(s)))
        }
        (true, Some((model, "streamGenerateContent"))) => {
            let (resp, s) = generate(shared, model, body, true);
            Some(("gemini.stream_generate", resp, Some(s)))
        }
        (true, Some((_, "countTokens"))) => {
            let total = tokens(body.to_string().len());
            Some((
                "gemini.count_tokens",
                json_resp(StatusCode::OK, &json!({"totalTokens": total})),
                None,
            ))
        }
        _ => None,
    }
}

fn model_object(id: &str) -> Value {
    json!({
        "name": format!("models/{id}"),
        "version": "001",
        "displayName": id,
        "description": "cohost fake model",
        "inputTokenLimit": 1_048_576,
        "outputTokenLimit": 65_536,
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
    })
}

fn list(shared: &Shared) -> Response {
    let models: Vec<Value> = shared.models.iter().map(|m| model_object(m)).collect();
    json_resp(StatusCode::OK, &json!({"models": models}))
}

/// Non-thought text of a `{parts:[...]}` content.
fn parts_text(content: &Value) -> Vec<String> {
    content
        .get("parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn parse(model: &str, body: &Value) -> Turn {
    let contents = body
        .get("contents")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let is_user = |c: &&Value| c.get("role").and_then(Value::as_str).unwrap_or("user") == "user";
    let prompt_blocks = contents
        .iter()
        .rev()
        .filter(is_user)
        .map(parts_text)
        .find(|b| b.iter().any(|t| !t.trim().is_empty()))
        .unwrap_or_default();
    let tool_result = contents.last().and_then(|c| {
        let results: Vec<String> = c
            .get("parts")?
            .as_array()?
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .map(|r| crate::reply::text_of(r.get("response").unwrap_or(&Value::Null)))
            .collect();
        (!results.is_empty()).then(|| results.join("\n"))
    });
    let tools = body
        .get("tools")
        .and_then(Value::as_array)
        .map(|ts| {
            ts.iter()
                .filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array))
                .flatten()
                .filter_map(|d| ToolSpec::function(d, &["parametersJsonSchema", "parameters"]))
                .collect()
        })
        .unwrap_or_default();
    // Gemini CLI's router and next-speaker checks ask for JSON this way.
    let gc = body
        .get("generationConfig")
        .or_else(|| body.get("generation_config"));
    let schema = gc.and_then(|g| {
        g.get("responseJsonSchema")
            .or_else(|| g.get("responseSchema"))
    });
    let wants_json = gc
        .and_then(|g| g.get("responseMimeType"))
        .and_then(Value::as_str)
        == Some("application/json");
    let json_schema = schema.cloned().or_else(|| wants_json.then(|| json!({})));
    let system = body
        .get("systemInstruction")
        .map(parts_text)
        .unwrap_or_default()
        .join("\n");
    Turn {
        model: model.to_string(),
        ..Turn::new(body, prompt_blocks, tool_result, tools, json_schema, system)
    }
}

fn generate(shared: &Shared, model: &str, body: &Value, stream: bool) -> (Response, String) {
    shared.answer(
        &parse(model, body),
        stream,
        error,
        |plan| {
            (
                frames(plan),
                b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"bro\n\n",
            )
        },
        |plan| {
            let mut parts = Vec::new();
            if !plan.reasoning.is_empty() {
                parts.push(json!({"text": plan.reasoning_text(), "thought": true}));
            }
            if !plan.text.is_empty() {
                parts.push(json!({"text": plan.full_text()}));
            }
            parts.extend(call_part(plan));
            chunk(plan, parts, true)
        },
    )
}

fn call_part(plan: &Plan) -> Option<Value> {
    let tool = plan.tool.as_ref()?;
    Some(json!({"functionCall": {"name": tool.name, "args": tool.args}}))
}

fn chunk(plan: &Plan, parts: Vec<Value>, last: bool) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    let mut usage = json!({"promptTokenCount": plan.input_tokens});
    if last {
        candidate["finishReason"] = json!("STOP");
        let thoughts = if plan.reasoning.is_empty() {
            0
        } else {
            plan.reasoning_tokens()
        };
        usage = json!({
            "promptTokenCount": plan.input_tokens,
            "candidatesTokenCount": plan.output_tokens() - thoughts.min(plan.output_tokens()),
            "thoughtsTokenCount": thoughts,
            "totalTokenCount": plan.input_tokens + plan.output_tokens(),
        });
    }
    json!({
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": plan.model,
        "responseId": format!("fakellm-{:06}", plan.n),
    })
}

fn frames(plan: &Plan) -> Vec<Bytes> {
    let mut parts: Vec<Value> = plan
        .reasoning
        .iter()
        .map(|t| json!({"text": t, "thought": true}))
        .collect();
    parts.extend(plan.text.iter().map(|t| json!({"text": t})));
    // Gemini sends a function call whole, never as argument deltas.
    parts.extend(call_part(plan));
    let count = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| sse_data(&chunk(plan, vec![p], i + 1 == count).to_string()))
        .collect()
}

fn error(e: ApiError, turn: &Turn) -> Response {
    let input = tokens(turn.raw.len());
    let (status, google, message) = match e {
        ApiError::Unauthorized => {
            (StatusCode::UNAUTHORIZED, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key.".to_string())
        }
        ApiError::Forbidden => {
            (StatusCode::FORBIDDEN, "PERMISSION_DENIED", "The caller does not have permission".to_string())
        }
        ApiError::RateLimited => (
            StatusCode::TOO_MANY_REQUESTS,
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).".to_string(),
        ),
        ApiError::ContextLength => (
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            format!(
                "The input token count ({}) exceeds the maximum number of tokens allowed (1048576).",
                input + 1_048_576
            ),
        ),
        ApiError::Server => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting".to_string(),
        ),
        ApiError::UnknownModel => (
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            format!(
                "models/{} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.",
                turn.model
            ),
        ),
    };
    with_retry_after(json_resp(
        status,
        &json!({"error": {"code": status.as_u16(), "message": message, "status": google}}),
    ))
}
