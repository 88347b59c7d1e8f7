//! Helpers shared by the integration tests: a server on a free loopback port,
//! a real HTTP client, and SSE / NDJSON readers.

use cohost_fakellm::{FakeLlm, FakeLlmConfig, FakeLlmHandle};
use serde_json::Value;

pub async fn server() -> FakeLlmHandle {
    server_with(FakeLlmConfig::default()).await
}

pub async fn server_with(config: FakeLlmConfig) -> FakeLlmHandle {
    FakeLlm::start(config).await.expect("start fake-llm")
}

pub fn client() -> reqwest::Client {
    // In a workspace build reqwest is compiled with `rustls-no-provider`
    // (feature unification with cohost-agents), so a crypto provider must be
    // installed before any client is built; alone it is a no-op.
    let _already = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

pub async fn post(h: &FakeLlmHandle, path: &str, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}{path}", h.base_url()))
        .json(body)
        .send()
        .await
        .expect("send")
}

pub async fn get(h: &FakeLlmHandle, path: &str) -> reqwest::Response {
    client()
        .get(format!("{}{path}", h.base_url()))
        .send()
        .await
        .expect("send")
}

/// One SSE frame: its `event:` name (if any) and its `data:` payload.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: Option<String>,
    pub data: String,
}

impl Sse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("bad SSE json {:?}: {e}", self.data))
    }
}

pub fn parse_sse(text: &str) -> Vec<Sse> {
    text.replace("\r\n", "\n")
        .split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .map(|frame| {
            let mut event = None;
            let mut data = Vec::new();
            for line in frame.lines() {
                if let Some(e) = line.strip_prefix("event: ") {
                    event = Some(e.to_string());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push(d.to_string());
                }
            }
            Sse {
                event,
                data: data.join("\n"),
            }
        })
        .collect()
}

pub async fn sse(resp: reqwest::Response) -> Vec<Sse> {
    assert_eq!(resp.status(), 200);
    let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/event-stream"), "content-type {ct}");
    parse_sse(&resp.text().await.expect("body"))
}

pub fn ndjson(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("ndjson line"))
        .collect()
}

/// The error scenarios with the status each must produce.
pub const ERRORS: &[(&str, u16)] = &[
    ("401", 401),
    ("403", 403),
    ("429", 429),
    ("context", 400),
    ("500", 500),
    ("unknown_model", 404),
];

/// Asserts status and the Retry-After header on 429, returns the JSON body.
pub async fn error_body(resp: reqwest::Response, status: u16) -> Value {
    assert_eq!(resp.status().as_u16(), status);
    if status == 429 {
        assert_eq!(resp.headers()["retry-after"], "1");
    }
    resp.json().await.expect("error json")
}

/// Anthropic and OpenAI errors tell SDKs whether a retry can help.
pub fn assert_should_retry(resp: &reqwest::Response) {
    let want = matches!(resp.status().as_u16(), 429 | 500);
    let got = resp.headers()["x-should-retry"].to_str().unwrap();
    assert_eq!(
        got,
        if want { "true" } else { "false" },
        "status {}",
        resp.status()
    );
}
