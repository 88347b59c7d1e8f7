//! Sessions over the API: a full prompt over SSE, deletion, hook events,
//! the tools policy.

use super::*;

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
    let outcome =
        cohost_discovery::hooks::hook_event(&socket, "claude", None, payload.as_bytes()).await;
    assert_eq!(
        outcome,
        cohost_discovery::hooks::HookEventOutcome::Forwarded
    );
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

/// `cwd` is the client's: a relative one would be resolved against the
/// server's own directory (`../../..` reached outside it), so it is refused
/// like one that does not exist, with a typed 400 and a fix.
#[tokio::test]
async fn a_relative_or_missing_cwd_is_refused() {
    let s = Scratch::new();
    let addr = start(&s).await;
    for (cwd, says) in [
        ("../../..".to_string(), "absolute"),
        (
            s.dir.path().join("nowhere").display().to_string(),
            "not an existing directory",
        ),
    ] {
        let r = client(&s)
            .post(format!("http://{addr}/api/sessions"))
            .json(&serde_json::json!({"provider": "mock", "cwd": cwd}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{cwd}");
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!(body["code"], "CONFIG_INVALID", "{body}");
        assert!(body["message"].as_str().unwrap().contains(says), "{body}");
        assert!(body["suggested_fix"].as_str().is_some(), "{body}");
    }
}

/// A request body far past any session request's size gets an error reply
/// (413), and the server goes on.
#[tokio::test]
async fn an_oversized_request_gets_an_error_reply() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let big = format!(
        "{{\"provider\": \"mock\", \"cwd\": \"{}\"}}",
        "a".repeat(50 << 20)
    );
    let r = client(&s)
        .post(format!("http://{addr}/api/sessions"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    let r = client(&s)
        .get(format!("http://{addr}/api/sessions"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200, "the server goes on");
}

#[tokio::test]
async fn a_room_is_several_member_sessions_each_driven_by_its_id() {
    let s = Scratch::new();
    let addr = start(&s).await;
    let c = client(&s);
    let cwd = s.dir.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let resp = c
        .post(format!("http://{addr}/api/rooms"))
        .json(&serde_json::json!({"agents": ["mock", "mock"], "cwd": cwd}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let room: serde_json::Value = resp.json().await.unwrap();
    let members = room["members"].as_array().unwrap();
    let names: Vec<&str> = members
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mock", "mock#2"]);
    // Each member answers its own prompt on its own event stream.
    for m in members {
        let id = m["id"].as_str().unwrap();
        let events = c
            .get(format!("http://{addr}/api/sessions/{id}/events"))
            .send()
            .await
            .unwrap();
        let said = format!("[mock:say] I am {}", m["name"].as_str().unwrap());
        let sent = c
            .post(format!("http://{addr}/api/sessions/{id}/prompt"))
            .json(&serde_json::json!({ "text": said }))
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), 202);
        let evs = read_until(events, 1, |_| {}).await;
        let text: String = evs
            .iter()
            .filter(|e| e["type"] == "stream_chunk")
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        assert_eq!(text, format!("I am {}", m["name"].as_str().unwrap()));
    }
    // Each is recorded as a member of the room.
    let records: Vec<serde_json::Value> = c
        .get(format!("http://{addr}/api/sessions"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let in_room = records
        .iter()
        .filter(|r| r["room"]["id"] == room["room"])
        .count();
    assert_eq!(in_room, 2);
    // One agent is not a room; an unknown one is 404.
    let one = c
        .post(format!("http://{addr}/api/rooms"))
        .json(&serde_json::json!({"agents": ["mock"], "cwd": cwd}))
        .send()
        .await
        .unwrap();
    assert_eq!(one.status(), 400);
    let unknown = c
        .post(format!("http://{addr}/api/rooms"))
        .json(&serde_json::json!({"agents": ["mock", "nope"], "cwd": cwd}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
}
