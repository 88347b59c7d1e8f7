//! OpenAI Responses API: `POST /v1/responses` (SSE and JSON), as Codex uses it.

use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};

use crate::openai_chat::{content_blocks, created, openai_error};
use crate::reply::{split, text_of, Plan, Turn};
use crate::state::Shared;
use crate::stream::sse_event;
use crate::tools::{ToolKind, ToolSpec};

const OUTPUT_TYPES: &[&str] = &[
    "function_call_output",
    "custom_tool_call_output",
    "local_shell_call_output",
];

fn item_type(item: &Value) -> &str {
    item.get("type")
        .and_then(Value::as_str)
        .unwrap_or("message")
}

fn parse_tool(t: &Value, namespace: Option<&str>) -> Option<ToolSpec> {
    let (name, kind) = match t.get("type").and_then(Value::as_str)? {
        "function" => (t.get("name")?.as_str()?.to_string(), ToolKind::Function),
        "local_shell" => ("local_shell".to_string(), ToolKind::LocalShell),
        "custom" => (t.get("name")?.as_str()?.to_string(), ToolKind::Custom),
        _ => return None,
    };
    Some(ToolSpec {
        name,
        schema: t.get("parameters").cloned().unwrap_or(Value::Null),
        kind,
        namespace: namespace.map(String::from),
    })
}

/// The request's tools; a `namespace` tool (Codex 0.171.0 offers an MCP
/// server's tools as one, `{"type": "namespace", "name": "mcp__SERVER",
/// "tools": [...]}`) gives its functions, each with the namespace that its
/// call names (`namespace` of a `function_call` item, in the app-server
/// schema's `FunctionCallResponseItem`, tests/agents/schemas/).
fn tools_of(body: &Value) -> Vec<ToolSpec> {
    let mut out = Vec::new();
    for t in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if t.get("type").and_then(Value::as_str) == Some("namespace") {
            let ns = t.get("name").and_then(Value::as_str);
            let inner = t
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            out.extend(inner.filter_map(|f| parse_tool(f, ns)));
        } else {
            out.extend(parse_tool(t, None));
        }
    }
    out
}

pub(crate) fn parse(body: &Value) -> Turn {
    let mut system = body.get("instructions").map(text_of).unwrap_or_default();
    let (prompt_blocks, tool_result) = match body.get("input") {
        Some(Value::String(s)) => (vec![s.clone()], None),
        Some(Value::Array(items)) => {
            for item in items.iter().filter(|i| item_type(i) == "message") {
                if matches!(
                    item.get("role").and_then(Value::as_str),
                    Some("system" | "developer")
                ) {
                    system.push('\n');
                    system.push_str(&content_blocks(item.get("content")).join("\n"));
                }
            }
            let prompt = items
                .iter()
                .rev()
                .filter(|i| {
                    item_type(i) == "message"
                        && i.get("role").and_then(Value::as_str) == Some("user")
                })
                .map(|i| content_blocks(i.get("content")))
                .find(|b| b.iter().any(|t| !t.trim().is_empty()))
                .unwrap_or_default();
            let outputs: Vec<String> = items
                .iter()
                .rev()
                .take_while(|i| OUTPUT_TYPES.contains(&item_type(i)))
                .map(|i| text_of(i.get("output").unwrap_or(&Value::Null)))
                .collect();
            let result = (!outputs.is_empty())
                .then(|| outputs.into_iter().rev().collect::<Vec<_>>().join("\n"));
            (prompt, result)
        }
        _ => (Vec::new(), None),
    };
    let tools = tools_of(body);
    let json_schema = body
        .pointer("/text/format")
        .filter(|f| f.get("type").and_then(Value::as_str) == Some("json_schema"))
        .map(|f| f.get("schema").cloned().unwrap_or(json!({})));
    Turn::new(body, prompt_blocks, tool_result, tools, json_schema, system)
}

/// `POST /v1/responses`.
pub(crate) fn responses(shared: &Shared, body: &Value) -> (Response, String) {
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    shared.answer(
        &parse(body),
        stream,
        openai_error,
        |plan| (Frames::build(plan), b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"del\n\n"),
        |plan| response_object(plan, "completed", items(plan)),
    )
}

struct Ids {
    reasoning: String,
    message: String,
    call_item: String,
    call_id: String,
}

fn ids(plan: &Plan) -> Ids {
    let n = plan.n;
    Ids {
        reasoning: format!("rs_fakellm_{n:06}"),
        message: format!("msg_fakellm_{n:06}"),
        call_item: format!("fc_fakellm_{n:06}"),
        call_id: format!("call_fakellm_{n:06}"),
    }
}

fn reasoning_item(plan: &Plan, text: &str) -> Value {
    let summary = if text.is_empty() {
        json!([])
    } else {
        json!([{"type": "summary_text", "text": text}])
    };
    json!({"id": ids(plan).reasoning, "type": "reasoning", "summary": summary})
}

fn message_item(plan: &Plan, text: Option<&str>) -> Value {
    let (status, content) = match text {
        Some(t) => (
            "completed",
            json!([{"type": "output_text", "text": t, "annotations": []}]),
        ),
        None => ("in_progress", json!([])),
    };
    json!({"id": ids(plan).message, "type": "message", "status": status, "role": "assistant", "content": content})
}

/// The tool-call item; `done` fills in the arguments.
fn call_item(plan: &Plan, done: bool) -> Option<Value> {
    let tool = plan.tool.as_ref()?;
    let i = ids(plan);
    let status = if done { "completed" } else { "in_progress" };
    Some(match tool.kind {
        ToolKind::Function => {
            let mut item = json!({
                "id": i.call_item, "type": "function_call", "status": status, "call_id": i.call_id,
                "name": tool.name, "arguments": if done { plan.tool_args_json() } else { String::new() },
            });
            if let Some(ns) = &tool.namespace {
                item["namespace"] = json!(ns);
            }
            item
        }
        ToolKind::LocalShell => json!({
            "id": i.call_item, "type": "local_shell_call", "status": status, "call_id": i.call_id,
            "action": {"type": "exec", "command": tool.args.get("command").cloned().unwrap_or(json!([]))},
        }),
        ToolKind::Custom => json!({
            "id": i.call_item, "type": "custom_tool_call", "status": status, "call_id": i.call_id,
            "name": tool.name,
            "input": if done { tool.args.get("input").map(text_of).unwrap_or_default() } else { String::new() },
        }),
    })
}

fn items(plan: &Plan) -> Vec<Value> {
    let mut out = Vec::new();
    if !plan.reasoning.is_empty() {
        out.push(reasoning_item(plan, &plan.reasoning_text()));
    }
    if !plan.text.is_empty() {
        out.push(message_item(plan, Some(&plan.full_text())));
    }
    out.extend(call_item(plan, true));
    out
}

fn response_object(plan: &Plan, status: &str, output: Vec<Value>) -> Value {
    let usage = if status == "completed" {
        json!({
            "input_tokens": plan.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": plan.output_tokens(),
            "output_tokens_details": {"reasoning_tokens": if plan.reasoning.is_empty() { 0 } else { plan.reasoning_tokens() }},
            "total_tokens": plan.input_tokens + plan.output_tokens(),
        })
    } else {
        Value::Null
    };
    json!({
        "id": format!("resp_fakellm_{:06}", plan.n),
        "object": "response",
        "created_at": created(plan),
        "status": status,
        "model": plan.model,
        "output": output,
        "usage": usage,
        "error": null,
        "incomplete_details": null,
    })
}

/// Builds the event sequence with its running `sequence_number`.
struct Frames {
    out: Vec<Bytes>,
    seq: u64,
}

impl Frames {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = Value::String(kind.to_string());
        data["sequence_number"] = json!(self.seq);
        self.seq += 1;
        self.out.push(sse_event(kind, &data));
    }

    fn build(plan: &Plan) -> Vec<Bytes> {
        let mut f = Frames {
            out: Vec::new(),
            seq: 0,
        };
        let i = ids(plan);
        f.push(
            "response.created",
            json!({"response": response_object(plan, "in_progress", vec![])}),
        );
        f.push(
            "response.in_progress",
            json!({"response": response_object(plan, "in_progress", vec![])}),
        );
        let mut index = 0;
        if !plan.reasoning.is_empty() {
            let text = plan.reasoning_text();
            let at = json!({"item_id": i.reasoning, "output_index": index, "summary_index": 0});
            f.push(
                "response.output_item.added",
                json!({"output_index": index, "item": reasoning_item(plan, "")}),
            );
            f.push(
                "response.reasoning_summary_part.added",
                merge(&at, json!({"part": {"type": "summary_text", "text": ""}})),
            );
            for d in &plan.reasoning {
                f.push(
                    "response.reasoning_summary_text.delta",
                    merge(&at, json!({"delta": d})),
                );
            }
            f.push(
                "response.reasoning_summary_text.done",
                merge(&at, json!({"text": text})),
            );
            f.push(
                "response.reasoning_summary_part.done",
                merge(&at, json!({"part": {"type": "summary_text", "text": text}})),
            );
            f.push(
                "response.output_item.done",
                json!({"output_index": index, "item": reasoning_item(plan, &text)}),
            );
            index += 1;
        }
        if !plan.text.is_empty() {
            let text = plan.full_text();
            let at = json!({"item_id": i.message, "output_index": index, "content_index": 0});
            f.push(
                "response.output_item.added",
                json!({"output_index": index, "item": message_item(plan, None)}),
            );
            f.push(
                "response.content_part.added",
                merge(
                    &at,
                    json!({"part": {"type": "output_text", "text": "", "annotations": []}}),
                ),
            );
            for d in &plan.text {
                f.push(
                    "response.output_text.delta",
                    merge(&at, json!({"delta": d})),
                );
            }
            f.push(
                "response.output_text.done",
                merge(&at, json!({"text": text})),
            );
            f.push(
                "response.content_part.done",
                merge(
                    &at,
                    json!({"part": {"type": "output_text", "text": text, "annotations": []}}),
                ),
            );
            f.push(
                "response.output_item.done",
                json!({"output_index": index, "item": message_item(plan, Some(&text))}),
            );
            index += 1;
        }
        if let (Some(tool), Some(added), Some(done)) =
            (&plan.tool, call_item(plan, false), call_item(plan, true))
        {
            let at = json!({"item_id": i.call_item, "output_index": index});
            f.push(
                "response.output_item.added",
                json!({"output_index": index, "item": added}),
            );
            match tool.kind {
                ToolKind::Function => {
                    let args = plan.tool_args_json();
                    for d in split(&args, 3) {
                        f.push(
                            "response.function_call_arguments.delta",
                            merge(&at, json!({"delta": d})),
                        );
                    }
                    f.push(
                        "response.function_call_arguments.done",
                        merge(&at, json!({"arguments": args})),
                    );
                }
                ToolKind::Custom => {
                    let input = tool.args.get("input").map(text_of).unwrap_or_default();
                    f.push(
                        "response.custom_tool_call_input.delta",
                        merge(&at, json!({"delta": input})),
                    );
                    f.push(
                        "response.custom_tool_call_input.done",
                        merge(&at, json!({"input": input})),
                    );
                }
                ToolKind::LocalShell => {}
            }
            f.push(
                "response.output_item.done",
                json!({"output_index": index, "item": done}),
            );
        }
        f.push(
            "response.completed",
            json!({"response": response_object(plan, "completed", items(plan))}),
        );
        f.out
    }
}

fn merge(base: &Value, extra: Value) -> Value {
    let mut out = base.clone();
    if let (Some(o), Value::Object(e)) = (out.as_object_mut(), extra) {
        o.extend(e);
    }
    out
}
