//! Ollama API over real HTTP.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use common::*;
use serde_json::{json, Value};

fn req(prompt: &str, stream: Option<bool>) -> Value {
    let mut r = json!({
        "model": "llama3.2",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": prompt}],
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object",
            "properties": {"command": {"type": "string"}}, "required": ["command"]}}}],
    });
    if let Some(s) = stream {
        r["stream"] = json!(s);
    }
    r
}

async fn lines(h: &cohost_fakellm::FakeLlmHandle, body: &Value) -> Vec<Value> {
    let resp = post(h, "/api/chat", body).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/x-ndjson");
    ndjson(&resp.text().await.unwrap())
}

#[tokio::test]
async fn streams_ndjson_by_default() {
    let h = server().await;
    let l = lines(&h, &req("hi ollama", None)).await;
    assert!(l.len() >= 4);
    let text: String = l
        .iter()
        .filter_map(|v| v["message"]["content"].as_str())
        .collect();
    assert_eq!(text, "Hello from fake-llm. You said: hi ollama");
    let last = l.last().unwrap();
    assert_eq!(last["done"], true);
    assert_eq!(last["done_reason"], "stop");
    assert!(last["eval_count"].as_u64().unwrap() > 0);
    assert!(l[..l.len() - 1].iter().all(|v| v["done"] == false));
}

#[tokio::test]
async fn thinking_then_text() {
    let h = server().await;
    let l = lines(&h, &req("[[reasoning]]", Some(true))).await;
    assert!(l[0]["message"]["thinking"].is_string());
}

#[tokio::test]
async fn tool_call_then_follow_up() {
    let h = server().await;
    let l = lines(&h, &req("[[tool]]", Some(true))).await;
    let call = l
        .iter()
        .find_map(|v| v["message"]["tool_calls"].get(0).cloned())
        .unwrap();
    assert_eq!(call["function"]["name"], "bash");
    assert_eq!(
        call["function"]["arguments"]["command"],
        "echo cohost-tool-ok > cohost_tool_output.txt"
    );
    let mut follow = req("[[tool]]", Some(false));
    let msgs = follow["messages"].as_array_mut().unwrap();
    msgs.push(json!({"role": "assistant", "content": "", "tool_calls": [call]}));
    msgs.push(json!({"role": "tool", "content": "ollama-ok"}));
    let body: Value = post(&h, "/api/chat", &follow).await.json().await.unwrap();
    assert_eq!(body["message"]["content"], "Tool said: ollama-ok");
    assert_eq!(body["done"], true);
}

#[tokio::test]
async fn errors_and_malformed() {
    let h = server().await;
    for (name, status) in ERRORS {
        let body = error_body(
            post(&h, "/api/chat", &req(&format!("[[{name}]]"), None)).await,
            *status,
        )
        .await;
        assert!(body["error"].is_string(), "{name}: {body}");
    }
    let body = error_body(
        post(&h, "/api/chat", &req("[[unknown_model]]", None)).await,
        404,
    )
    .await;
    assert_eq!(
        body["error"],
        "model \"llama3.2\" not found, try pulling it first"
    );
    let resp = post(&h, "/api/chat", &req("[[malformed]]", None)).await;
    let text = resp.text().await.unwrap();
    let last = text.lines().last().unwrap();
    assert!(serde_json::from_str::<Value>(last).is_err());
}

#[tokio::test]
async fn tags_show_version() {
    let h = server().await;
    let tags: Value = get(&h, "/api/tags").await.json().await.unwrap();
    assert_eq!(tags["models"][0]["name"], "fake-model:latest");
    let show: Value = post(&h, "/api/show", &json!({"model": "fake-model"}))
        .await
        .json()
        .await
        .unwrap();
    assert!(show["capabilities"]
        .as_array()
        .unwrap()
        .contains(&json!("tools")));
    let v: Value = get(&h, "/api/version").await.json().await.unwrap();
    assert!(v["version"].is_string());
}
