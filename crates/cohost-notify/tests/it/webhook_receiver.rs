//! The webhook sink against a real HTTP server on 127.0.0.1 (port 0): the
//! approval-needed and turn-end POSTs arrive, ntfy-shaped and sanitized
//! (no prompt, no secret); a dead endpoint is retried a bounded number of
//! times, then reported once, and never delays the caller.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use axum::routing::post;
use cohost_core::{ApprovalOption, EndReason, Event, EventBody, ToolKind};
use cohost_notify::{Notifier, WebhookSink, WEBHOOK_ATTEMPTS};

/// One POST as received: its headers of interest and body.
#[derive(Debug, Clone)]
struct Got {
    title: String,
    tags: String,
    priority: String,
    body: String,
}

async fn receiver() -> (String, Arc<Mutex<Vec<Got>>>) {
    let got = Arc::new(Mutex::new(Vec::new()));
    let seen = got.clone();
    let app = axum::Router::new().route(
        "/cohost-topic",
        post(move |headers: HeaderMap, body: String| {
            let seen = seen.clone();
            async move {
                let h = |n: &str| {
                    headers
                        .get(n)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_owned()
                };
                seen.lock().unwrap().push(Got {
                    title: h("title"),
                    tags: h("tags"),
                    priority: h("priority"),
                    body,
                });
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/cohost-topic"), got)
}

fn ev(body: EventBody) -> Event {
    Event {
        id: "p.1".into(),
        prompt_id: "p".into(),
        correlation_id: "c".into(),
        ts: 0,
        agent: None,
        body,
    }
}

const SECRET: &str = "sk-ant-api03-Zq8sVt4kWm2nXy7rLp5bHc9dJf3gKa6eTu1oQi0wEs";

async fn wait_for(got: &Arc<Mutex<Vec<Got>>>, n: usize) -> Vec<Got> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = got.lock().unwrap().clone();
        if now.len() >= n || Instant::now() > deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn approval_and_turn_end_reach_the_receiver_sanitized() {
    let (url, got) = receiver().await;
    let notifier = Notifier::new(crate::shapes_only()).with_sink(WebhookSink::new(&url).unwrap());
    let mut approval = ev(EventBody::ToolApprovalRequested {
        tool_id: "t1".into(),
        name: "Bash".into(),
        kind: ToolKind::Execute,
        input: serde_json::json!({"command": format!("echo the secret prompt text {SECRET}")}),
        options: ApprovalOption::ALL.to_vec(),
        deadline_ms: 60_000,
    });
    approval.agent = Some(format!("claude {SECRET}"));
    notifier.event(&approval, "claude");
    notifier.event(
        &ev(EventBody::StreamChunk {
            stream_id: "s".into(),
            chunk_index: 0,
            delta: "the answer text".into(),
        }),
        "claude",
    );
    notifier.event(
        &ev(EventBody::StreamEnd {
            reason: EndReason::Completed,
            usage: None,
        }),
        "claude",
    );
    let received = got;
    let got = wait_for(&received, 2).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].tags, "approval_needed");
    assert_eq!(got[0].priority, "high");
    assert!(got[0].title.contains("needs approval"), "{got:?}");
    assert!(
        got[0].body.ends_with("wants to run the tool Bash"),
        "{got:?}"
    );
    assert_eq!(got[1].tags, "turn_ended");
    assert_eq!(got[1].body, "the turn is done");
    for g in &got {
        let all = format!("{g:?}");
        assert!(
            !all.contains("Zq8sVt4kWm2nXy7r"),
            "a secret went out: {all}"
        );
        assert!(!all.contains("secret prompt"), "the prompt went out: {all}");
        assert!(!all.contains("answer text"), "the answer went out: {all}");
    }
    // Nothing more comes (the chunk is worth no notice).
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(received.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_dead_endpoint_is_retried_then_reported_once_and_delays_nobody() {
    // A port that was free a moment ago: nothing listens there.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let reports = Arc::new(Mutex::new(Vec::new()));
    let r = reports.clone();
    let url = format!("http://{dead}/topic?auth=tk_Zq8sVt4kWm2nXy7rLp5bHc9dJf3g");
    let notifier = Notifier::new(crate::shapes_only())
        .on_report(move |m| r.lock().unwrap().push((Instant::now(), m)))
        .with_sink(
            WebhookSink::new(&url)
                .unwrap()
                .with_backoff(Duration::from_millis(50)),
        );
    let end = ev(EventBody::StreamEnd {
        reason: EndReason::Error,
        usage: None,
    });
    let started = Instant::now();
    for _ in 0..5 {
        notifier.event(&end, "claude");
    }
    let took = started.elapsed();
    assert!(took < Duration::from_millis(50), "notify waited {took:?}");
    // Five notices, each tried WEBHOOK_ATTEMPTS times (50 + 100 ms apart).
    tokio::time::sleep(Duration::from_millis(5 * 200 + 500)).await;
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "reported once: {reports:?}");
    let (at, msg) = &reports[0];
    assert!(
        *at - started >= Duration::from_millis(150),
        "reported before the retries: {:?}",
        *at - started
    );
    assert!(msg.contains("webhook"), "{msg}");
    assert!(msg.contains(&format!("{WEBHOOK_ATTEMPTS} tries")), "{msg}");
    assert!(
        !msg.contains(&dead.port().to_string()),
        "the URL was shown: {msg}"
    );
    assert!(!msg.contains("tk_Zq8sVt4kWm2nXy7r"), "{msg}");
}
