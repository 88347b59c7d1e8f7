//! Edge cases the fake model server does not produce: a key echoed in an
//! error body, a missing key, Anthropic's 529 overload, a mid-stream error
//! event. A tiny canned-response server on 127.0.0.1:0 plays them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use crate::http_support as support;

use std::sync::{Arc, Mutex};

use cohost_agents::http::{providers, HttpFactory, OpenAiCompatible};
use cohost_core::{AdapterConfig, EndReason, ErrorCode, EventBody, HostSession, Policy};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Serves `responses` in order, one per connection, and records request heads.
struct Canned {
    base: String,
    seen: Arc<Mutex<Vec<String>>>,
}

async fn canned(responses: Vec<String>) -> Canned {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        for resp in responses {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            // Read the head and the body (Content-Length) before answering.
            loop {
                let n = sock.read(&mut chunk).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if buf.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf).to_string());
            let _ = sock.write_all(resp.as_bytes()).await;
            let _ = sock.shutdown().await;
        }
    });
    Canned { base, seen }
}

fn http(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
        body.len()
    )
}

fn config(home: &std::path::Path, vars: &[(&str, &str)]) -> AdapterConfig {
    let mut c = AdapterConfig {
        cwd: home.to_path_buf(),
        ..AdapterConfig::default()
    };
    c.env.insert("HOME".into(), home.display().to_string());
    c.env.insert(
        "XDG_STATE_HOME".into(),
        home.join("state").display().to_string(),
    );
    for (k, v) in vars {
        c.env.insert(k.to_string(), v.to_string());
    }
    c
}

#[tokio::test]
async fn key_echoed_in_error_body_is_redacted() {
    // A plain value with no vendor shape: only exact-value redaction can catch it.
    let key = "plain-value-key-0123456789abcdef";
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {key}. Check it.","code":"invalid_api_key"}}}}"#
    );
    let srv = canned(vec![http(
        "401 Unauthorized",
        "content-type: application/json\r\n",
        &body,
    )])
    .await;
    let home = tempfile::tempdir().unwrap();
    let f = OpenAiCompatible::new(
        "acme",
        "ACME",
        format!("{}/v1", srv.base),
        Some("ACME_SECRET_KEY"),
        vec!["m".into()],
    );
    let mut s = HostSession::new(
        Arc::new(f),
        config(home.path(), &[("ACME_SECRET_KEY", key)]),
        Arc::new(Policy::DenyAll),
        Default::default(),
    );
    s.start().await.unwrap();
    let (ev, out) = prompt(&mut s, "hi").await;
    let err = out.error.expect("auth error");
    assert_eq!(err.code, ErrorCode::AuthRequired);
    assert!(
        err.message.contains("Incorrect API key provided"),
        "{}",
        err.message
    );
    let all = serde_json::to_string(&ev).unwrap();
    assert!(!all.contains(key), "key leaked into events: {all}");
    assert!(!s
        .health()
        .await
        .last_error
        .unwrap_or_default()
        .contains(key));
    assert!(err.suggested_fix.unwrap().contains("ACME_SECRET_KEY"));
    // It was sent, as a bearer header.
    assert!(srv.seen.lock().unwrap()[0].contains(&format!("Bearer {key}")));
}

#[tokio::test]
async fn missing_key_fails_start_naming_the_variable() {
    let home = tempfile::tempdir().unwrap();
    let f = OpenAiCompatible::new(
        "acme",
        "ACME",
        "http://127.0.0.1:9/v1",
        Some("COHOST_TEST_UNSET_KEY_7731"),
        vec!["m".into()],
    );
    let mut s = HostSession::new(
        Arc::new(f),
        config(home.path(), &[]),
        Arc::new(Policy::DenyAll),
        Default::default(),
    );
    let err = s.start().await.unwrap_err();
    assert_eq!(err.code, ErrorCode::AuthRequired);
    assert!(err.message.contains("COHOST_TEST_UNSET_KEY_7731"));
    assert!(err
        .suggested_fix
        .unwrap()
        .contains("COHOST_TEST_UNSET_KEY_7731"));
    // The built-in direct APIs need theirs too (only checked when the
    // machine does not set it for real).
    if std::env::var_os("ANTHROPIC_API_KEY").is_none() {
        let mut s = HostSession::new(
            Arc::new(HttpFactory::new(providers::anthropic())),
            config(home.path(), &[]),
            Arc::new(Policy::DenyAll),
            Default::default(),
        );
        let err = s.start().await.unwrap_err();
        assert_eq!(err.code, ErrorCode::AuthRequired);
        assert!(err.suggested_fix.unwrap().contains("ANTHROPIC_API_KEY"));
    }
}

const ANTHROPIC_OK: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok \"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"then\"}}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},\"usage\":{\"output_tokens\":2}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

#[tokio::test]
async fn anthropic_529_overload_is_retried_and_max_tokens_noted() {
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let srv = canned(vec![
        http(
            "529 Site Overloaded",
            "retry-after: 0\r\ncontent-type: application/json\r\n",
            overloaded,
        ),
        http(
            "200 OK",
            "content-type: text/event-stream\r\n",
            ANTHROPIC_OK,
        ),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let f = HttpFactory::new(providers::anthropic()).with_options(test_options());
    let mut s = HostSession::new(
        Arc::new(f),
        config(
            home.path(),
            &[
                ("ANTHROPIC_BASE_URL", &srv.base),
                ("ANTHROPIC_API_KEY", KEY),
            ],
        ),
        Arc::new(Policy::DenyAll),
        Default::default(),
    );
    s.start().await.unwrap();
    let (ev, out) = prompt(&mut s, "hi").await;
    assert_eq!(out.reason, EndReason::Completed, "{:?}", errors(&ev));
    assert_eq!(texts(&ev).concat(), "ok then");
    let statuses: Vec<_> = ev
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Status {
                message,
                retry_after_ms,
            } => Some((message.clone(), *retry_after_ms)),
            _ => None,
        })
        .collect();
    assert_eq!(statuses.len(), 2, "{statuses:?}");
    assert_eq!(statuses[0].1, Some(0), "Retry-After: 0 honoured");
    assert!(statuses[1].0.contains("output token limit"), "{statuses:?}");
    assert_eq!(out.usage.unwrap().output_tokens, 2);
    let heads = srv.seen.lock().unwrap().clone();
    assert_eq!(heads.len(), 2);
    assert!(heads[0].contains("anthropic-version: 2023-06-01"));
}

#[tokio::test]
async fn anthropic_mid_stream_error_event_is_fatal() {
    let stream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"par\"}}\n\n\
event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let srv = canned(vec![http(
        "200 OK",
        "content-type: text/event-stream\r\n",
        stream,
    )])
    .await;
    let home = tempfile::tempdir().unwrap();
    let f = HttpFactory::new(providers::anthropic()).with_options(test_options());
    let mut s = HostSession::new(
        Arc::new(f),
        config(
            home.path(),
            &[
                ("ANTHROPIC_BASE_URL", &srv.base),
                ("ANTHROPIC_API_KEY", KEY),
            ],
        ),
        Arc::new(Policy::DenyAll),
        Default::default(),
    );
    s.start().await.unwrap();
    let (ev, out) = prompt(&mut s, "hi").await;
    assert_eq!(
        texts(&ev).concat(),
        "par",
        "text before the error is delivered"
    );
    assert_eq!(out.reason, EndReason::Error);
    assert_eq!(out.error.unwrap().code, ErrorCode::RateLimited);
}

#[tokio::test]
async fn resume_of_unknown_session_is_a_config_error() {
    let home = tempfile::tempdir().unwrap();
    let mut c = config(home.path(), &[("OPENAI_API_KEY", KEY)]);
    c.resume = Some("openai-doesnotexist".into());
    let mut s = HostSession::new(
        Arc::new(HttpFactory::new(providers::openai())),
        c,
        Arc::new(Policy::DenyAll),
        Default::default(),
    );
    let err = s.start().await.unwrap_err();
    assert_eq!(err.code, ErrorCode::ConfigInvalid);
    assert!(err.suggested_fix.is_some());
}
