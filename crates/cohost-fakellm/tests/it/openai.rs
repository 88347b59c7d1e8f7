//! OpenAI Chat Completions and Responses over real HTTP.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use common::*;
use serde_json::{json, Value};

// ---------- Chat Completions (Qwen Code, OpenCode, Copilot, Aider) ----------

fn chat_tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"absolute_path": {"type": "string"}}, "required": ["absolute_path"]}}},
        {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}, "required": ["file_path", "content"]}}},
        {"type": "function", "function": {"name": "run_shell_command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}, "directory": {"type": "string"}}, "required": ["command"]}}},
    ])
}

fn chat(prompt: &str, stream: bool) -> Value {
    json!({
        "model": "qwen-fake",
        "stream": stream,
        "stream_options": {"include_usage": true},
        "messages": [
            {"role": "system", "content": "You are Qwen Code."},
            {"role": "user", "content": [{"type": "text", "text": prompt}]}
        ],
        "tools": chat_tools(),
    })
}

fn chunks(events: &[Sse]) -> Vec<Value> {
    assert_eq!(events.last().unwrap().data, "[DONE]");
    events[..events.len() - 1].iter().map(Sse::json).collect()
}

fn delta_text(chunks: &[Value], field: &str) -> String {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"][field].as_str())
        .collect()
}

#[tokio::test]
async fn chat_text_stream_with_usage_and_done() {
    let h = server().await;
    let c = chunks(&sse(post(&h, "/v1/chat/completions", &chat("hello", true)).await).await);
    assert_eq!(c[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(c[0]["object"], "chat.completion.chunk");
    assert_eq!(
        delta_text(&c, "content"),
        "Hello from fake-llm. You said: hello"
    );
    assert!(
        c.iter()
            .filter(|c| c["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|s| !s.is_empty()))
            .count()
            >= 3
    );
    let finish = &c[c.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    let usage = c.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert!(usage["usage"]["total_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn chat_without_include_usage_has_no_usage_chunk() {
    let h = server().await;
    let mut req = chat("hello", true);
    req.as_object_mut().unwrap().remove("stream_options");
    let c = chunks(&sse(post(&h, "/v1/chat/completions", &req).await).await);
    assert!(c.iter().all(|c| c.get("usage").is_none()));
    assert_eq!(c.last().unwrap()["choices"][0]["finish_reason"], "stop");
}

#[tokio::test]
async fn chat_reasoning_content_comes_first() {
    let h = server().await;
    let c =
        chunks(&sse(post(&h, "/v1/chat/completions", &chat("[[reasoning]]", true)).await).await);
    let first_reasoning = c
        .iter()
        .position(|c| c["choices"][0]["delta"]["reasoning_content"].is_string())
        .unwrap();
    let first_text = c
        .iter()
        .position(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        })
        .unwrap();
    assert!(first_reasoning < first_text);
    assert!(delta_text(&c, "reasoning_content").starts_with("Thinking about"));
}

#[tokio::test]
async fn chat_tool_call_then_follow_up() {
    let h = server().await;
    let c = chunks(
        &sse(post(&h, "/v1/chat/completions", &chat("[[scenario:tool]]", true)).await).await,
    );
    let calls: Vec<&Value> = c
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert_eq!(calls[0]["function"]["name"], "run_shell_command");
    let id = calls[0]["id"].as_str().unwrap().to_string();
    let args: String = calls
        .iter()
        .filter_map(|c| c["function"]["arguments"].as_str())
        .collect();
    let args: Value = serde_json::from_str(&args).unwrap();
    assert_eq!(
        args,
        json!({"command": "echo cohost-tool-ok > cohost_tool_output.txt"})
    );
    assert_eq!(c[c.len() - 2]["choices"][0]["finish_reason"], "tool_calls");

    let mut follow = chat("[[scenario:tool]]", false);
    let msgs = follow["messages"].as_array_mut().unwrap();
    msgs.push(
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function",
        "function": {"name": "run_shell_command", "arguments": args.to_string()}}]}),
    );
    msgs.push(json!({"role": "tool", "tool_call_id": id, "content": "exit 0"}));
    let body: Value = post(&h, "/v1/chat/completions", &follow)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        body["choices"][0]["message"]["content"],
        "Tool said: exit 0"
    );
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
}

#[tokio::test]
async fn chat_non_streaming_shapes() {
    let h = server().await;
    let body: Value = post(&h, "/v1/chat/completions", &chat("[[write]]", false))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["object"], "chat.completion");
    let call = &body["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "write_file");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["content"], "cohost-tool-ok");
    let body: Value = post(&h, "/v1/chat/completions", &chat("[[reasoning]]", false))
        .await
        .json()
        .await
        .unwrap();
    assert!(body["choices"][0]["message"]["reasoning_content"].is_string());
    assert!(
        body["usage"]["completion_tokens_details"]["reasoning_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[tokio::test]
async fn chat_and_responses_errors_use_openai_shape() {
    let h = server().await;
    for (name, status) in ERRORS {
        for path in ["/v1/chat/completions", "/v1/responses"] {
            let req = if path.ends_with("responses") {
                responses_req(&format!("[[{name}]]"), true)
            } else {
                chat(&format!("[[{name}]]"), true)
            };
            let resp = post(&h, path, &req).await;
            assert_should_retry(&resp);
            let body = error_body(resp, *status).await;
            let err = &body["error"];
            assert!(
                err["message"].is_string() && err["type"].is_string(),
                "{path} {name}: {body}"
            );
            match *name {
                "context" => {
                    assert_eq!(err["code"], "context_length_exceeded");
                    assert!(err["message"]
                        .as_str()
                        .unwrap()
                        .starts_with("This model's maximum context length is"));
                }
                "unknown_model" => assert_eq!(err["code"], "model_not_found"),
                "429" => assert_eq!(err["code"], "rate_limit_exceeded"),
                "401" => assert_eq!(err["code"], "invalid_api_key"),
                _ => {}
            }
        }
    }
}

#[tokio::test]
async fn chat_malformed_stream() {
    let h = server().await;
    let events = sse(post(&h, "/v1/chat/completions", &chat("[[malformed]]", true)).await).await;
    assert!(serde_json::from_str::<Value>(&events.last().unwrap().data).is_err());
    assert!(events.iter().all(|e| e.data != "[DONE]"));
}

// ---------- Responses (Codex) ----------

fn codex_tools() -> Value {
    json!([
        {"type": "function", "name": "shell", "strict": false, "parameters": {"type": "object", "properties": {
            "command": {"type": "array", "items": {"type": "string"}}, "workdir": {"type": "string"}, "timeout_ms": {"type": "number"}},
            "required": ["command"], "additionalProperties": false}},
        {"type": "function", "name": "update_plan", "parameters": {"type": "object", "properties": {"plan": {"type": "array"}}, "required": ["plan"]}},
        {"type": "custom", "name": "apply_patch", "format": {"type": "grammar", "syntax": "lark", "definition": "start: ..."}},
        {"type": "web_search"},
    ])
}

fn responses_req(prompt: &str, stream: bool) -> Value {
    json!({
        "model": "fake-model",
        "instructions": "You are Codex.",
        "stream": stream,
        "store": false,
        "include": ["reasoning.encrypted_content"],
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context><cwd>/tmp/codex</cwd></environment_context>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
        ],
        "tools": codex_tools(),
    })
}

fn of_type(events: &[Sse], kind: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.event.as_deref() == Some(kind))
        .map(Sse::json)
        .collect::<Vec<_>>()
}

#[tokio::test]
async fn responses_text_stream() {
    let h = server().await;
    let events = sse(post(&h, "/v1/responses", &responses_req("hi codex", true)).await).await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
    assert_eq!(
        names[..3],
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added"
        ]
    );
    assert_eq!(*names.last().unwrap(), "response.completed");
    for (i, e) in events.iter().enumerate() {
        let d = e.json();
        assert_eq!(d["type"], e.event.as_deref().unwrap());
        assert_eq!(d["sequence_number"], i);
    }
    let deltas = of_type(&events, "response.output_text.delta");
    assert!(deltas.len() >= 3);
    let text: String = deltas
        .iter()
        .map(|d| d["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hello from fake-llm. You said: hi codex");
    let done = of_type(&events, "response.completed").remove(0);
    assert_eq!(done["response"]["status"], "completed");
    assert_eq!(done["response"]["output"][0]["content"][0]["text"], text);
    assert!(done["response"]["usage"]["total_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn responses_reasoning_summary() {
    let h = server().await;
    let events = sse(post(&h, "/v1/responses", &responses_req("[[reasoning]]", true)).await).await;
    let added = of_type(&events, "response.output_item.added");
    assert_eq!(added[0]["item"]["type"], "reasoning");
    assert_eq!(added[1]["item"]["type"], "message");
    assert!(!of_type(&events, "response.reasoning_summary_text.delta").is_empty());
    let done = of_type(&events, "response.output_item.done");
    assert!(done[0]["item"]["summary"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Thinking about"));
}

#[tokio::test]
async fn responses_tool_call_uses_codex_shell_then_follow_up() {
    let h = server().await;
    let events = sse(post(&h, "/v1/responses", &responses_req("[[tool]]", true)).await).await;
    let added = of_type(&events, "response.output_item.added");
    assert_eq!(added[0]["item"]["type"], "function_call");
    assert_eq!(added[0]["item"]["name"], "shell");
    let args: String = of_type(&events, "response.function_call_arguments.delta")
        .iter()
        .map(|d| d["delta"].as_str().unwrap().to_string())
        .collect();
    let args: Value = serde_json::from_str(&args).unwrap();
    assert_eq!(
        args["command"],
        json!([
            "bash",
            "-lc",
            "echo cohost-tool-ok > cohost_tool_output.txt"
        ])
    );
    let done = of_type(&events, "response.output_item.done").remove(0);
    let call_id = done["item"]["call_id"].as_str().unwrap().to_string();
    assert_eq!(
        serde_json::from_str::<Value>(done["item"]["arguments"].as_str().unwrap()).unwrap(),
        args
    );

    let mut follow = responses_req("[[tool]]", true);
    let input = follow["input"].as_array_mut().unwrap();
    input.push(done["item"].clone());
    input.push(json!({"type": "function_call_output", "call_id": call_id, "output": "{\"output\":\"ok-7\",\"metadata\":{\"exit_code\":0}}"}));
    let events = sse(post(&h, "/v1/responses", &follow).await).await;
    let text: String = of_type(&events, "response.output_text.delta")
        .iter()
        .map(|d| d["delta"].as_str().unwrap().to_string())
        .collect();
    assert!(text.starts_with("Tool said: "), "{text}");
    assert!(text.contains("ok-7"));
}

/// Codex 0.171.0 offers an MCP server's tools as one `namespace` tool; a
/// script's call by name names the namespace beside the tool, and the
/// default tool scenario still picks the shell, never a grouped tool.
#[tokio::test]
async fn responses_call_a_namespaced_mcp_tool_by_name() {
    let script = cohost_fakellm::parse_script(
        r#"{"default": "tool", "steps": [
            {"scenario": "tool", "match": "ask the room", "tool": "ask_member",
             "args": {"name": "claude", "prompt": "hi"}}
        ]}"#,
        std::path::Path::new("inline.json"),
    )
    .unwrap();
    let h = server_with(cohost_fakellm::FakeLlmConfig {
        script: Some(script),
        ..Default::default()
    })
    .await;
    let with_room = |prompt: &str| {
        let mut req = responses_req(prompt, true);
        req["tools"].as_array_mut().unwrap().push(json!({
            "type": "namespace", "name": "mcp__cohost_room", "description": "room",
            "tools": [
                {"type": "function", "name": "exec_room", "parameters": {"type": "object", "properties": {}}},
                {"type": "function", "name": "ask_member", "parameters": {"type": "object",
                    "properties": {"name": {"type": "string"}, "prompt": {"type": "string"}},
                    "required": ["name", "prompt"]}}
            ]
        }));
        req
    };
    let events = sse(post(&h, "/v1/responses", &with_room("ask the room")).await).await;
    let done = of_type(&events, "response.output_item.done").remove(0);
    assert_eq!(done["item"]["type"], "function_call");
    assert_eq!(done["item"]["namespace"], "mcp__cohost_room");
    assert_eq!(done["item"]["name"], "ask_member");
    let args: Value = serde_json::from_str(done["item"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"name": "claude", "prompt": "hi"}));
    // Without a plain shell, `exec_room` would pass for one by its name;
    // it is grouped, so the plain file writer is picked instead.
    let mut req = with_room("[[tool]]");
    req["tools"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "shell");
    let events = sse(post(&h, "/v1/responses", &req).await).await;
    let done = of_type(&events, "response.output_item.done").remove(0);
    assert_eq!(done["item"]["name"], "apply_patch", "{done}");
    assert!(done["item"].get("namespace").is_none(), "{done}");
}

#[tokio::test]
async fn responses_write_uses_apply_patch_custom_tool() {
    let h = server().await;
    let body: Value = post(&h, "/v1/responses", &responses_req("[[write]]", false))
        .await
        .json()
        .await
        .unwrap();
    let item = &body["output"][0];
    assert_eq!(item["type"], "custom_tool_call");
    assert_eq!(item["name"], "apply_patch");
    assert!(item["input"]
        .as_str()
        .unwrap()
        .contains("*** Add File: cohost_tool_output.txt"));
    assert_eq!(body["object"], "response");
}

#[tokio::test]
async fn responses_non_streaming_text_and_string_input() {
    let h = server().await;
    let body: Value = post(
        &h,
        "/v1/responses",
        &json!({"model": "m", "input": "just a string"}),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(body["status"], "completed");
    assert_eq!(
        body["output"][0]["content"][0]["text"],
        "Hello from fake-llm. You said: just a string"
    );
}

#[tokio::test]
async fn responses_malformed_stream() {
    let h = server().await;
    let events = sse(post(&h, "/v1/responses", &responses_req("[[malformed]]", true)).await).await;
    assert!(serde_json::from_str::<Value>(&events.last().unwrap().data).is_err());
    assert!(of_type(&events[..events.len() - 1], "response.completed").is_empty());
}
