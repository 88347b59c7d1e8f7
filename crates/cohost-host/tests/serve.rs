//! The local API: localhost guard, OpenAPI document, settings endpoints, and
//! a full prompt's events over SSE on the mock provider.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod common;

use common::{claude_script, Scratch};
use futures::StreamExt;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The token `cohost serve` wrote for the scratch user.
fn token(s: &Scratch) -> String {
    cohost_host::serve::read_api_token(&s.host().paths)
        .unwrap()
        .as_str()
        .to_string()
}

/// A client sending the scratch user's token, as cohost's own clients do.
/// reqwest is built without a default TLS provider in this workspace.
fn client(s: &Scratch) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        format!("Bearer {}", token(s)).parse().unwrap(),
    );
    cohost_agents::http::client_builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

async fn start(s: &Scratch) -> SocketAddr {
    common::serve_mock(s).await
}

/// Creates a mock session working in a scratch dir; returns its id.
async fn create_session(
    c: &reqwest::Client,
    addr: SocketAddr,
    s: &Scratch,
    approval: Option<&str>,
) -> String {
    let cwd = s.dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut body = serde_json::json!({"provider": "mock", "cwd": cwd});
    if let Some(a) = approval {
        body["approval"] = a.into();
    }
    let created: serde_json::Value = c
        .post(format!("http://{addr}/api/sessions"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    created["id"].as_str().unwrap().to_string()
}

/// A raw request with the scratch user's token, so the test controls the
/// Host and Origin headers exactly.
async fn raw_status(s: &Scratch, addr: SocketAddr, host: &str, origin: Option<&str>) -> u16 {
    let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    let token = token(s);
    let req = format!(
        "GET /api/openapi.json HTTP/1.1\r\nHost: {host}\r\n{origin}Authorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    sock.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    sock.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8_lossy(&buf);
    text.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn foreign_host_and_origin_are_refused() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let port = addr.port();
    assert_eq!(
        raw_status(&s, addr, &format!("127.0.0.1:{port}"), None).await,
        200
    );
    assert_eq!(
        raw_status(
            &s,
            addr,
            &format!("localhost:{port}"),
            Some(&format!("http://localhost:{port}"))
        )
        .await,
        200
    );
    // DNS rebinding: the page's host name in Host.
    assert_eq!(
        raw_status(&s, addr, &format!("evil.example:{port}"), None).await,
        403
    );
    assert_eq!(
        raw_status(&s, addr, "127.0.0.1", None).await,
        403,
        "port must match"
    );
    // A cross-site page calling localhost.
    assert_eq!(
        raw_status(
            &s,
            addr,
            &format!("127.0.0.1:{port}"),
            Some("http://evil.example")
        )
        .await,
        403
    );
    assert_eq!(
        raw_status(&s, addr, &format!("127.0.0.1:{port}"), Some("null")).await,
        403
    );
    // And binding anything but loopback is refused.
    let e = cohost_host::serve("0.0.0.0:0".parse().unwrap(), s.host())
        .await
        .unwrap_err();
    assert_eq!(e.code, cohost_core::ErrorCode::LocalOnlyRequired);
}

#[tokio::test]
async fn openapi_document_is_valid_and_complete() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let text = client(&s)
        .get(format!("http://{addr}/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let doc: openapiv3::OpenAPI = serde_json::from_str(&text).expect("a valid OpenAPI 3 document");
    assert!(doc.openapi.starts_with("3."));
    let mut paths: Vec<&str> = doc.paths.paths.keys().map(String::as_str).collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "/api/hooks/events",
            "/api/openapi.json",
            "/api/sessions",
            "/api/sessions/{id}",
            "/api/sessions/{id}/approvals/{tool_id}",
            "/api/sessions/{id}/events",
            "/api/sessions/{id}/interrupt",
            "/api/sessions/{id}/prompt",
            "/api/settings/providers",
            "/api/settings/providers/active",
            "/api/settings/providers/{id}/login",
            "/api/settings/providers/{id}/status",
            "/api/settings/providers/{id}/test",
        ]
    );
    // Every documented operation is routed (a missing route is 404 with an empty body or 405).
    let client = client(&s);
    for (path, item) in &doc.paths.paths {
        let item = item.as_item().unwrap();
        let url = format!(
            "http://{addr}{}",
            path.replace("{id}", "mock").replace("{tool_id}", "t")
        );
        for (method, op) in [
            ("GET", &item.get),
            ("POST", &item.post),
            ("DELETE", &item.delete),
        ] {
            if op.is_none() || path.ends_with("/events") {
                continue;
            }
            let resp = client
                .request(method.parse().unwrap(), &url)
                .json(&serde_json::json!({}))
                .send()
                .await
                .unwrap();
            assert_ne!(resp.status().as_u16(), 405, "{method} {path} not routed");
            let body = resp.text().await.unwrap();
            assert!(!body.is_empty(), "{method} {path} answered nothing");
        }
    }
}

#[tokio::test]
async fn settings_endpoints() {
    let s = Scratch::new();
    s.stub_on_path("claude", &claude_script("2.1.332", 1));
    let addr = start(&s).await;
    let c = client(&s);
    let get = |p: &str| c.get(format!("http://{addr}{p}")).send();

    let st: serde_json::Value = get("/api/settings/providers/claude/status")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(st["status"], "needs_auth");
    assert_eq!(st["discovery"]["command_source"], "path");
    let r = get("/api/settings/providers/nope/status").await.unwrap();
    assert_eq!(r.status().as_u16(), 404);
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(e["code"], "PROVIDER_NOT_FOUND");

    let login: serde_json::Value = c
        .post(format!("http://{addr}/api/settings/providers/claude/login"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        login["command"]
            .as_str()
            .unwrap()
            .ends_with("claude auth login"),
        "{login}"
    );

    let t: serde_json::Value = c
        .post(format!("http://{addr}/api/settings/providers/mock/test"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(t["status"], "passed", "{t}");
    let t: serde_json::Value = c
        .post(format!("http://{addr}/api/settings/providers/mock/test"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(t["cached"], true);

    let r = c
        .post(format!("http://{addr}/api/settings/providers/active"))
        .json(&serde_json::json!({"provider_id": "mock"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let list: serde_json::Value = get("/api/settings/providers")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["active_provider"], "mock");
    assert!(list["providers"].as_array().unwrap().len() >= 16);
    let saved = std::fs::read_to_string(s.home.join(".config/cohost/config.toml")).unwrap();
    assert!(saved.contains("active_provider = \"mock\""), "{saved}");
}

/// Read SSE `data:` payloads until the `ends`-th `stream_end`.
async fn read_until(
    resp: reqwest::Response,
    ends: usize,
    mut on_event: impl FnMut(&serde_json::Value),
) -> Vec<serde_json::Value> {
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    let mut events = Vec::new();
    let mut seen = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while let Ok(Some(chunk)) = tokio::time::timeout_at(deadline, stream.next()).await {
        buf.push_str(&String::from_utf8_lossy(&chunk.unwrap()));
        while let Some(end) = buf.find("\n\n") {
            let frame: String = buf.drain(..end + 2).collect();
            for line in frame.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    let ev: serde_json::Value = serde_json::from_str(data.trim()).unwrap();
                    on_event(&ev);
                    seen += usize::from(ev["type"] == "stream_end");
                    events.push(ev);
                    if seen == ends {
                        return events;
                    }
                }
            }
        }
    }
    panic!("fewer than {ends} stream_end events; got {events:?}");
}

#[tokio::test]
async fn sse_client_receives_a_full_prompt_and_answers_an_approval() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let c = client(&s);
    let id = create_session(&c, addr, &s, Some("ask")).await;

    let events_resp = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(events_resp.headers()["content-type"], "text/event-stream");
    let r = c
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": "hello there"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let events = read_until(events_resp, 1, |_| {}).await;
    assert_eq!(events.first().unwrap()["type"], "stream_start");
    assert_eq!(events.last().unwrap()["reason"], "completed");
    let chunks: Vec<u64> = events
        .iter()
        .filter(|e| e["type"] == "stream_chunk")
        .map(|e| e["chunk_index"].as_u64().unwrap())
        .collect();
    assert!(chunks.len() > 3);
    assert_eq!(
        chunks,
        (0..chunks.len() as u64).collect::<Vec<_>>(),
        "contiguous chunk indexes"
    );
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "stream_chunk")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert!(text.contains("hello there"), "{text}");

    // Second turn: a tool approval answered through the API. A new
    // subscriber gets the first turn replayed, then the live second turn.
    let events_resp = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    c.post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": "write it [mock:tool]"}))
        .send()
        .await
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let approver = c.clone();
    let answer = tokio::spawn(async move {
        let tool_id = rx.recv().await.unwrap();
        approver
            .post(format!(
                "http://{addr}/api/sessions/{id}/approvals/{tool_id}"
            ))
            .json(&serde_json::json!({"decision": "allow_once"}))
            .send()
            .await
            .unwrap()
            .status()
    });
    let all = read_until(events_resp, 2, |ev| {
        if ev["type"] == "tool_approval_requested" {
            let _ = tx.send(ev["tool_id"].as_str().unwrap().to_string());
        }
    })
    .await;
    assert_eq!(answer.await.unwrap().as_u16(), 200);
    assert_eq!(
        &all[..events.len()],
        &events[..],
        "replay of the first turn"
    );
    let mock_turn = &all[events.len()..];
    assert_eq!(mock_turn.last().unwrap()["reason"], "completed");
    let decided = mock_turn
        .iter()
        .find(|e| e["type"] == "tool_approval_decided")
        .expect("decision recorded");
    assert_eq!(decided["decision"], "allow_once");
    assert_eq!(decided["origin"], "user");
    let executed = mock_turn
        .iter()
        .find(|e| e["type"] == "tool_executed")
        .unwrap();
    assert_eq!(executed["status"], "ok");

    let sessions: serde_json::Value = c
        .get(format!("http://{addr}/api/sessions"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(sessions[0]["watermark"], 2, "{sessions}");
}

/// DELETE ends a live session mid-turn: the turn stops, SSE subscribers see
/// the stream close, the id no longer takes prompts, the store keeps it.
#[tokio::test]
async fn deleting_a_session_ends_it() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let c = client(&s);
    let id = create_session(&c, addr, &s, None).await;
    let events = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    c.post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": "count [mock:slow]"}))
        .send()
        .await
        .unwrap();
    let mut stream = events.bytes_stream();
    let mut seen = String::new();
    // Wait until the turn is streaming.
    while !seen.contains("stream_chunk") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("a chunk in time")
            .expect("stream open")
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    let r = c
        .delete(format!("http://{addr}/api/sessions/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    // The SSE stream ends (the interrupted turn's end, then close).
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(Ok(chunk)) = stream.next().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(closed.is_ok(), "the event stream stayed open: {seen}");
    assert!(seen.contains("\"interrupted\""), "{seen}");
    for r in [
        c.post(format!("http://{addr}/api/sessions/{id}/prompt"))
            .json(&serde_json::json!({"text": "again"}))
            .send()
            .await
            .unwrap(),
        c.delete(format!("http://{addr}/api/sessions/{id}"))
            .send()
            .await
            .unwrap(),
    ] {
        assert_eq!(r.status().as_u16(), 404);
    }
    let listed = c
        .get(format!("http://{addr}/api/sessions"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        listed.contains(&id),
        "the store keeps the session: {listed}"
    );
}

/// A hook's event (what `cohost hook-event` forwards) reaches SSE
/// subscribers of `/api/hooks/events`, sanitized; late subscribers get it
/// replayed.
#[tokio::test]
async fn hook_events_are_served_sanitized() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let socket = s.host().paths.hook_socket();
    let payload = serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "curl -H 'x-api-key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx' https://example.com"}
    })
    .to_string();
    let outcome = cohost_host::hooks::hook_event(&socket, "claude", None, payload.as_bytes()).await;
    assert_eq!(outcome, cohost_host::hooks::HookEventOutcome::Forwarded);
    let resp = client(&s)
        .get(format!("http://{addr}/api/hooks/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    let data = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let chunk = stream.next().await.expect("open").unwrap();
            buf.push_str(&String::from_utf8_lossy(&chunk));
            if let Some(line) = buf.lines().find_map(|l| l.strip_prefix("data:")) {
                return line.trim().to_string();
            }
        }
    })
    .await
    .expect("the hook event arrives");
    let ev: serde_json::Value = serde_json::from_str(&data).unwrap();
    assert_eq!(ev["agent"], "claude");
    assert_eq!(ev["kind"], "PreToolUse");
    assert_eq!(ev["seq"], 0);
    assert!(buf.contains("event: PreToolUse"), "{buf}");
    let cmd = ev["payload"]["tool_input"]["command"].as_str().unwrap();
    assert!(!cmd.contains("AbCdEfGh"), "{cmd}");
    assert!(cmd.contains("[REDACTED]"), "{cmd}");
}

/// `tools` in a session request is for API providers: an agent (here the
/// mock) refuses it with a typed 400.
#[tokio::test]
async fn tools_are_refused_for_agents() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let cwd = s.dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let r = client(&s)
        .post(format!("http://{addr}/api/sessions"))
        .json(&serde_json::json!({"provider": "mock", "cwd": cwd,
            "tools": [{"name": "run_shell", "input_schema": {"type": "object"}}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["code"], "CONFIG_INVALID");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("runs its own tools"),
        "{body}"
    );
}

/// A prompt full of secrets: nothing of the corpus reaches an SSE subscriber.
#[tokio::test]
async fn sse_carries_no_secret_of_the_corpus() {
    use cohost_core::sanitize::corpus;
    let s = Scratch::new();
    let addr = start(&s).await;
    let c = client(&s);
    let id = create_session(&c, addr, &s, None).await;
    let events_resp = c
        .get(format!("http://{addr}/api/sessions/{id}/events"))
        .send()
        .await
        .unwrap();
    let r = c
        .post(format!("http://{addr}/api/sessions/{id}/prompt"))
        .json(&serde_json::json!({"text": corpus::text()}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let mut seen = String::new();
    read_until(events_resp, 1, |ev| seen.push_str(&ev.to_string())).await;
    assert!(
        seen.contains("[REDACTED]"),
        "the prompt did not come back: {seen}"
    );
    assert_eq!(corpus::leaks(&seen), Vec::<&str>::new());
}

/// Config values full of secrets do not come back from the settings API.
#[tokio::test]
async fn settings_responses_carry_no_secret_of_the_config() {
    let s = Scratch::new();
    s.write_config(
        "[providers.ollama]\nendpoint = \"http://admin:p4ssw0rd-in-config@127.0.0.1:9/\"\n\n\
         [providers.mock]\nmodel = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"\n",
    );
    let addr = start(&s).await;
    let c = client(&s);
    for path in [
        "/api/settings/providers",
        "/api/settings/providers/mock/status",
    ] {
        let body: String = c
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(body.contains("mock"), "{path}: {body}");
        assert!(!body.contains("p4ssw0rd-in-config"), "{path}: {body}");
        assert!(
            !body.contains("abcdefghijklmnopqrstuvwxyz0123"),
            "{path}: {body}"
        );
    }
}
