//! Gemini API over real HTTP, including Gemini CLI's router request.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use common::*;
use serde_json::{json, Value};

fn gemini_tools() -> Value {
    json!([{"functionDeclarations": [
        {"name": "read_file", "parametersJsonSchema": {"type": "object", "properties": {"absolute_path": {"type": "string"}}, "required": ["absolute_path"]}},
        {"name": "write_file", "parametersJsonSchema": {"type": "object", "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}}, "required": ["file_path", "content"]}},
        {"name": "run_shell_command", "parameters": {"type": "OBJECT", "properties": {"command": {"type": "STRING"}, "description": {"type": "STRING"}, "dir_path": {"type": "STRING"}}, "required": ["command"]}}
    ]}])
}

fn req(prompt: &str) -> Value {
    json!({
        "contents": [
            {"role": "user", "parts": [{"text": "This is the Gemini CLI. I'm currently working in the directory: /tmp/gem"}]},
            {"role": "model", "parts": [{"text": "Got it."}]},
            {"role": "user", "parts": [{"text": prompt}]}
        ],
        "systemInstruction": {"role": "user", "parts": [{"text": "You are an interactive CLI agent."}]},
        "tools": gemini_tools(),
        "generationConfig": {"temperature": 0, "thinkingConfig": {"includeThoughts": true}},
    })
}

const STREAM: &str = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";
const GENERATE: &str = "/v1beta/models/gemini-2.5-pro:generateContent";

fn parts(events: &[Sse]) -> Vec<Value> {
    events
        .iter()
        .flat_map(|e| {
            e.json()["candidates"][0]["content"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

#[tokio::test]
async fn stream_text_with_usage_on_the_last_chunk() {
    let h = server().await;
    let events = sse(post(&h, STREAM, &req("hello gemini")).await).await;
    assert!(events.len() >= 3);
    let text: String = parts(&events)
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(text, "Hello from fake-llm. You said: hello gemini");
    let last = events.last().unwrap().json();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    assert_eq!(last["modelVersion"], "gemini-2.5-pro");
    assert!(last["usageMetadata"]["totalTokenCount"].as_u64().unwrap() > 0);
    assert!(events[0].json()["candidates"][0]
        .get("finishReason")
        .is_none());
    let logged = &h.requests()[0];
    assert_eq!(logged.route, "gemini.stream_generate");
    assert_eq!(logged.query.as_deref(), Some("alt=sse"));
}

#[tokio::test]
async fn thought_parts_come_first() {
    let h = server().await;
    let events = sse(post(&h, STREAM, &req("[[reasoning]]")).await).await;
    let p = parts(&events);
    assert_eq!(p[0]["thought"], true);
    let last_thought = p.iter().rposition(|p| p["thought"] == true).unwrap();
    let first_text = p.iter().position(|p| p.get("thought").is_none()).unwrap();
    assert!(last_thought < first_text);
    assert!(
        events.last().unwrap().json()["usageMetadata"]["thoughtsTokenCount"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[tokio::test]
async fn function_call_then_function_response() {
    let h = server().await;
    let events = sse(post(&h, STREAM, &req("[[scenario:tool]]")).await).await;
    let call = parts(&events)
        .into_iter()
        .find_map(|p| p.get("functionCall").cloned())
        .unwrap();
    assert_eq!(call["name"], "run_shell_command");
    assert_eq!(
        call["args"],
        json!({"command": "echo cohost-tool-ok > cohost_tool_output.txt"})
    );

    let mut follow = req("[[scenario:tool]]");
    let contents = follow["contents"].as_array_mut().unwrap();
    contents.push(json!({"role": "model", "parts": [{"functionCall": call}]}));
    contents.push(
        json!({"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
        "response": {"output": "Command: echo\nStdout: gem-ok"}}}]}),
    );
    let body: Value = post(&h, GENERATE, &follow).await.json().await.unwrap();
    let text = body["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(text, "Tool said: Command: echo Stdout: gem-ok");
}

#[tokio::test]
async fn write_variant_uses_write_file_with_the_cli_directory() {
    let h = server().await;
    let body: Value = post(&h, GENERATE, &req("[[write]]"))
        .await
        .json()
        .await
        .unwrap();
    let call = &body["candidates"][0]["content"]["parts"][0]["functionCall"];
    assert_eq!(call["name"], "write_file");
    assert_eq!(call["args"]["file_path"], "/tmp/gem/cohost_tool_output.txt");
}

#[tokio::test]
async fn router_request_gets_json_for_its_schema() {
    let h = server().await;
    let router = json!({
        "contents": [{"role": "user", "parts": [{"text": "[[scenario:429]] classify this"}]}],
        "systemInstruction": {"parts": [{"text": "You are a routing classifier."}]},
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": {"type": "object", "properties": {
                "complexity_reasoning": {"type": "string"},
                "complexity_score": {"type": "integer", "minimum": 1, "maximum": 100}},
                "required": ["complexity_reasoning", "complexity_score"]}
        }
    });
    let resp = post(
        &h,
        "/v1beta/models/gemini-2.5-flash-lite:generateContent",
        &router,
    )
    .await;
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    let text = body["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    let answer: Value = serde_json::from_str(text).unwrap();
    assert!(answer["complexity_reasoning"].is_string());
    let score = answer["complexity_score"].as_i64().unwrap();
    assert!((1..=100).contains(&score));
    assert_eq!(h.requests()[0].scenario.as_deref(), Some("json"));

    // responseMimeType alone, with a next-speaker style enum: "user" ends the loop.
    let check = json!({
        "contents": [{"role": "user", "parts": [{"text": "who speaks next?"}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {
            "reasoning": {"type": "STRING"}, "next_speaker": {"type": "STRING", "enum": ["model", "user"]}}}}
    });
    let body: Value = post(&h, GENERATE, &check).await.json().await.unwrap();
    let answer: Value = serde_json::from_str(
        body["candidates"][0]["content"]["parts"][0]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(answer["next_speaker"], "user");
}

#[tokio::test]
async fn errors_use_google_shape() {
    let h = server().await;
    for (name, status) in ERRORS {
        let body = error_body(
            post(&h, STREAM, &req(&format!("[[{name}]]"))).await,
            *status,
        )
        .await;
        assert_eq!(body["error"]["code"], *status, "{name}");
        let expected = match *status {
            401 => "UNAUTHENTICATED",
            403 => "PERMISSION_DENIED",
            429 => "RESOURCE_EXHAUSTED",
            400 => "INVALID_ARGUMENT",
            404 => "NOT_FOUND",
            _ => "INTERNAL",
        };
        assert_eq!(body["error"]["status"], expected);
        if *name == "context" {
            let m = body["error"]["message"].as_str().unwrap();
            assert!(
                m.starts_with("The input token count") && m.contains("exceeds the maximum"),
                "{m}"
            );
        }
    }
}

#[tokio::test]
async fn malformed_count_tokens_and_models() {
    let h = server().await;
    let events = sse(post(&h, STREAM, &req("[[malformed]]")).await).await;
    assert!(serde_json::from_str::<Value>(&events.last().unwrap().data).is_err());
    let body: Value = post(&h, "/v1beta/models/gemini-2.5-pro:countTokens", &req("x"))
        .await
        .json()
        .await
        .unwrap();
    assert!(body["totalTokens"].as_u64().unwrap() > 0);
    let body: Value = get(&h, "/v1beta/models").await.json().await.unwrap();
    assert_eq!(body["models"][0]["name"], "models/fake-model");
    let body: Value = get(&h, "/v1beta/models/fake-model")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["name"], "models/fake-model");
}
