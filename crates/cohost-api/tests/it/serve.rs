//! The local API: localhost guard, OpenAPI document, settings endpoints, and
//! a full prompt's events over SSE on the mock provider. The
//! topics are modules (`api`, `sessions`, `secrets`), the shared
//! helpers are here.

// A test crate: a failed unwrap is a failed test with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

mod api;
mod budget;
use crate::common;
mod secrets;
mod sessions;
mod steer;

use common::{claude_script, Scratch};
use futures::StreamExt;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The token `cohost serve` wrote for the scratch user.
fn token(s: &Scratch) -> String {
    cohost_api::read_api_token(&s.host().paths)
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
    crate::support::serve_mock(s).await
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
