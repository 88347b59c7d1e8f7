//! Server-wide behaviour: routing of unknown paths, the request log and its
//! redaction, scripts, pacing (slow, stall), determinism, start-up errors.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use cohost_fakellm::{
    load_script, FakeLlm, FakeLlmConfig, FakeLlmError, LoggedRequest, Scenario, ScriptStep,
    REDACTED,
};
use common::*;
use futures::StreamExt;
use serde_json::{json, Value};

fn anthropic(prompt: &str) -> Value {
    json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": prompt}]})
}

#[tokio::test]
async fn unknown_paths_get_empty_200_and_are_logged() {
    let h = server().await;
    let resp = post(&h, "/api/event_logging/batch", &json!({"events": [1, 2]})).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.json::<Value>().await.unwrap(), json!({}));
    let resp = get(&h, "/v1/update-check?channel=stable").await;
    assert_eq!(resp.status(), 200);
    let log = h.requests();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].route, "other");
    assert_eq!(log[0].path, "/api/event_logging/batch");
    assert_eq!(log[0].body, json!({"events": [1, 2]}));
    assert_eq!(log[1].method, "GET");
    assert_eq!(log[1].query.as_deref(), Some("channel=stable"));
    assert_eq!(log[1].seq, 1);
}

#[tokio::test]
async fn secrets_are_redacted_in_memory_and_in_the_jsonl_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("requests.jsonl");
    let h = server_with(FakeLlmConfig {
        log_path: Some(path.clone()),
        ..Default::default()
    })
    .await;
    let resp = client()
        .post(format!(
            "{}/v1beta/models/g:generateContent?key=AIzaSECRET1",
            h.base_url()
        ))
        .header("authorization", "Bearer sk-SECRET2")
        .header("x-api-key", "SECRET3")
        .header("x-goog-api-key", "SECRET4")
        .header("api-key", "SECRET5")
        .header("cookie", "session=SECRET6")
        .header("anthropic-version", "2023-06-01")
        .json(&json!({"contents": [{"parts": [{"text": "hi"}]}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = std::fs::read_to_string(&path).unwrap();
    for secret in [
        "SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6",
    ] {
        assert!(!text.contains(secret), "{secret} leaked into the log");
    }
    let lines: Vec<LoggedRequest> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, h.requests());
    let entry = &lines[0];
    for header in [
        "authorization",
        "x-api-key",
        "x-goog-api-key",
        "api-key",
        "cookie",
    ] {
        assert_eq!(entry.headers[header], REDACTED, "{header}");
    }
    assert_eq!(entry.headers["anthropic-version"], "2023-06-01");
    assert_eq!(entry.query.as_deref(), Some("key=[REDACTED]"));
    assert_eq!(entry.body["contents"][0]["parts"][0]["text"], "hi");
    assert_eq!(entry.route, "gemini.generate");
}

#[tokio::test]
async fn script_file_orders_scenarios_and_skips_unmatched_side_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.json");
    std::fs::write(
        &path,
        r#"{"default": "text",
            "steps": ["reasoning", {"scenario": "text", "match": "main task", "text": "scripted reply"}, "429"]}"#,
    )
    .unwrap();
    let script = load_script(&path).unwrap();
    assert_eq!(
        script.steps[1],
        ScriptStep {
            scenario: Scenario::Text,
            match_prompt: Some("main task".into()),
            text: Some("scripted reply".into()),
            tool: None,
            args: None,
        }
    );
    let h = server_with(FakeLlmConfig {
        script: Some(script),
        ..Default::default()
    })
    .await;
    let url = "/v1/messages";
    let body = |p: &str| json!({"messages": [{"role": "user", "content": p}]});
    let first: Value = post(&h, url, &body("a")).await.json().await.unwrap();
    assert_eq!(first["content"][0]["type"], "thinking");
    // A side request (title generation) does not match, gets the default, keeps the step.
    let side: Value = post(&h, url, &body("generate a title"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        side["content"][0]["text"],
        "Hello from fake-llm. You said: generate a title"
    );
    let main: Value = post(&h, url, &body("the main task"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(main["content"][0]["text"], "scripted reply");
    // A marker beats the script and does not consume a step.
    let marked: Value = post(&h, url, &body("[[text]]")).await.json().await.unwrap();
    assert_eq!(marked["type"], "message");
    assert_eq!(post(&h, url, &body("b")).await.status(), 429);
    // Steps used up: the default again.
    assert_eq!(post(&h, url, &body("c")).await.status(), 200);
    let scenarios: Vec<_> = h
        .requests()
        .iter()
        .map(|r| r.scenario.clone().unwrap())
        .collect();
    assert_eq!(
        scenarios,
        ["reasoning", "text", "text", "text", "429", "text"]
    );
}

#[test]
fn script_errors_say_what_and_how_to_fix() {
    let dir = tempfile::tempdir().unwrap();
    let missing = load_script(&dir.path().join("nope.json")).unwrap_err();
    assert!(matches!(missing, FakeLlmError::ScriptRead { .. }));
    assert!(missing.to_string().contains("nope.json"));

    let bad_json = dir.path().join("bad.json");
    std::fs::write(&bad_json, "{ \"steps\": [tool] }").unwrap();
    let e = load_script(&bad_json).unwrap_err();
    assert!(matches!(e, FakeLlmError::ScriptParse { .. }), "{e}");
    assert!(e.to_string().contains("expected JSON like"), "{e}");

    let bad_name = dir.path().join("name.json");
    std::fs::write(&bad_name, r#"{"steps": ["text", "explode"]}"#).unwrap();
    let e = load_script(&bad_name).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("steps[1]") && msg.contains("explode") && msg.contains("reasoning"),
        "{msg}"
    );
    assert!(e.suggested_fix().contains("scenario names"));

    let array = dir.path().join("array.json");
    std::fs::write(&array, r#"["tool", "text"]"#).unwrap();
    assert_eq!(load_script(&array).unwrap().steps.len(), 2);
}

#[tokio::test]
async fn same_requests_give_same_bytes_on_a_fresh_server() {
    async fn run() -> Vec<String> {
        let h = server().await;
        let mut out = Vec::new();
        for (path, body) in [
            ("/v1/messages", anthropic("[[reasoning]] x")),
            (
                "/v1/chat/completions",
                json!({"stream": true, "messages": [{"role": "user", "content": "y"}]}),
            ),
            (
                "/v1/responses",
                json!({"stream": true, "input": "[[tool]]", "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}]}),
            ),
            (
                "/v1beta/models/g:streamGenerateContent?alt=sse",
                json!({"contents": [{"parts": [{"text": "z"}]}]}),
            ),
            (
                "/api/chat",
                json!({"messages": [{"role": "user", "content": "w"}]}),
            ),
        ] {
            out.push(post(&h, path, &body).await.text().await.unwrap());
        }
        out
    }
    assert_eq!(run().await, run().await);
}

#[tokio::test]
async fn slow_streams_many_deltas_with_a_delay() {
    let config = FakeLlmConfig {
        slow_delay: Duration::from_millis(10),
        slow_deltas: 12,
        ..Default::default()
    };
    let h = server_with(config).await;
    let t = Instant::now();
    let events = sse(post(&h, "/v1/messages", &anthropic("[[slow]]")).await).await;
    let deltas = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .count();
    assert_eq!(deltas, 12);
    assert!(
        t.elapsed() >= Duration::from_millis(100),
        "{:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn stall_sends_the_first_event_then_nothing_and_shutdown_ends_it() {
    let h = server().await;
    let resp = post(&h, "/v1/messages", &anthropic("[[stall]]")).await;
    assert_eq!(resp.status(), 200);
    let mut body = resp.bytes_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).starts_with("event: message_start"));
    let more = tokio::time::timeout(Duration::from_millis(300), body.next()).await;
    assert!(more.is_err(), "stall must send nothing more");
    // Shutdown must not hang on the stalled stream.
    tokio::time::timeout(Duration::from_secs(3), h.shutdown())
        .await
        .expect("shutdown in time");
}

#[tokio::test]
async fn stalled_client_disconnect_leaves_the_server_usable() {
    let h = server().await;
    let resp = post(
        &h,
        "/v1/chat/completions",
        &json!({"stream": true, "messages": [{"role": "user", "content": "[[stall]]"}]}),
    )
    .await;
    drop(resp);
    let ok = post(
        &h,
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn start_on_checks_the_address() {
    let e = FakeLlm::start_on("0.0.0.0:0".parse().unwrap(), FakeLlmConfig::default())
        .await
        .unwrap_err();
    assert!(matches!(e, FakeLlmError::NotLoopback { .. }));
    let h = server().await;
    let e = FakeLlm::start_on(h.addr(), FakeLlmConfig::default())
        .await
        .unwrap_err();
    assert!(matches!(e, FakeLlmError::Bind { .. }), "{e}");
    assert!(e.to_string().contains("port 0"));
    assert!(h.base_url().starts_with("http://127.0.0.1:"));
    let explicit: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let h2 = FakeLlm::start_on(explicit, FakeLlmConfig::default())
        .await
        .unwrap();
    assert_ne!(h2.addr().port(), 0);
    h2.shutdown().await;
}

#[tokio::test]
async fn default_scenario_and_text_deltas_are_configurable() {
    let config = FakeLlmConfig {
        default_scenario: Scenario::Reasoning,
        text_deltas: 6,
        ..Default::default()
    };
    let h = server_with(config).await;
    let events = sse(post(&h, "/v1/messages", &anthropic("a long enough prompt")).await).await;
    let text_deltas = events
        .iter()
        .filter(|e| e.event.as_deref() == Some("content_block_delta"))
        .filter(|e| e.json()["delta"]["type"] == "text_delta")
        .count();
    assert_eq!(text_deltas, 6);
    assert_eq!(h.requests()[0].scenario.as_deref(), Some("reasoning"));
}

#[tokio::test]
async fn non_streaming_slow_and_stall() {
    let config = FakeLlmConfig {
        slow_delay: Duration::from_millis(10),
        slow_deltas: 10,
        ..Default::default()
    };
    let h = server_with(config).await;
    let body = |p: &str| json!({"messages": [{"role": "user", "content": p}]});
    let t = Instant::now();
    let slow: Value = post(&h, "/v1/chat/completions", &body("[[slow]]"))
        .await
        .json()
        .await
        .unwrap();
    assert!(
        t.elapsed() >= Duration::from_millis(90),
        "{:?}",
        t.elapsed()
    );
    assert!(slow["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .starts_with("tick 0 tick 1"));
    let resp = post(&h, "/v1/chat/completions", &body("[[stall]]")).await;
    assert_eq!(resp.status(), 200);
    let rest = tokio::time::timeout(Duration::from_millis(300), resp.bytes()).await;
    assert!(rest.is_err(), "a stalled JSON reply must not complete");
    tokio::time::timeout(Duration::from_secs(3), h.shutdown())
        .await
        .expect("shutdown in time");
}

#[test]
fn script_rejects_typos_and_wrong_types() {
    let p = std::path::Path::new("s.json");
    let e = cohost_fakellm::parse_script(r#"{"stepz": ["tool"]}"#, p).unwrap_err();
    assert!(e.to_string().contains("unknown key `stepz`"), "{e}");
    let e = cohost_fakellm::parse_script(r#"{"steps": [{"scenario": "tool", "matsh": "x"}]}"#, p)
        .unwrap_err();
    assert!(
        e.to_string().contains("steps[0]: unknown key `matsh`"),
        "{e}"
    );
    let e = cohost_fakellm::parse_script(r#"{"steps": [{"match": "x"}]}"#, p).unwrap_err();
    assert!(e.to_string().contains("missing `scenario`"), "{e}");
    let e = cohost_fakellm::parse_script(r#"{"loop": "yes"}"#, p).unwrap_err();
    assert!(
        e.to_string().contains("loop: expected true or false"),
        "{e}"
    );
    let e = cohost_fakellm::parse_script("\"tool\"", p).unwrap_err();
    assert!(
        e.to_string().contains("expected an object or an array"),
        "{e}"
    );
}

#[tokio::test]
async fn odd_bodies_never_break_the_server() {
    let h = server().await;
    let mut deep = json!({"type": "string"});
    for _ in 0..100 {
        deep = json!({"type": "object", "properties": {"command": deep}, "required": ["command"]});
    }
    let bodies = [
        json!(null),
        json!(42),
        json!([1, 2, 3]),
        json!({"messages": "nope", "input": 5, "contents": {"a": 1}, "tools": "x"}),
        json!({"messages": [{"role": 5, "content": {"weird": true}}, null, "str"]}),
        json!({"messages": [{"role": "user", "content": [{"type": "tool_result", "content": [[[]]]}]}]}),
        json!({"messages": [{"role": "user", "content": "[[tool]] ünïcödé 🚀 [["}],
               "tools": [{"name": "Bash", "input_schema": deep.clone()}, {"name": 7}]}),
        json!({"input": [{"type": "function_call_output", "output": {"x": [1]}}], "tools": [{"type": "local_shell"}]}),
        json!({"contents": [{"parts": [{"text": "[[tool]]"}]}], "tools": [{"functionDeclarations": [{"name": "f", "parameters": deep}]}],
               "generationConfig": {"responseMimeType": "application/json", "responseSchema": "not a schema"}}),
    ];
    let paths = [
        "/v1/messages",
        "/v1/messages/count_tokens",
        "/v1/chat/completions",
        "/v1/responses",
        "/v1beta/models/x:generateContent",
        "/v1beta/models/x:streamGenerateContent?alt=sse",
        "/v1beta/models/x:countTokens",
        "/v1beta/models/:generateContent",
        "/api/chat",
        "/api/show",
    ];
    for body in &bodies {
        for path in paths {
            let resp = post(&h, path, body).await;
            assert_eq!(resp.status(), 200, "{path} {body}");
            resp.bytes().await.expect("complete body");
        }
    }
    let raw = client()
        .post(format!("{}/v1/responses", h.base_url()))
        .body(vec![0xff, 0xfe, 0x00])
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 200);
    assert!(h.requests().iter().any(|r| r.body.is_string()));
}
