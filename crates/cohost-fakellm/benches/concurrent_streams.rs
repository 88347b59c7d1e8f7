//! Load check, not a test: N concurrent streaming requests (default 1,000)
//! over loopback against one fake-llm, spread over the five streaming APIs.
//! Counts errors (must be 0) and reports total time, requests/s and events/s.
//!
//! Run: `cargo bench -p cohost-fakellm --bench concurrent_streams`
//! Knobs: `FAKELLM_BENCH_REQUESTS` (default 1000), `FAKELLM_BENCH_TIMEOUT_SECS` (default 60).
//! Each connection costs two file descriptors here (client and server side):
//! the soft `nofile` limit must exceed 2 x N plus a margin (`ulimit -n 4096`).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench crate: a failed unwrap is a failed bench with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cohost_fakellm::{FakeLlm, FakeLlmConfig};
use futures::StreamExt;
use serde_json::{json, Value};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Soft `nofile` limit from /proc, to explain a failure before it happens.
fn nofile_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// (path, body, terminator that a complete stream ends with, frame separator)
fn request(i: u64) -> (&'static str, Value, &'static str, &'static str) {
    let prompt = format!("bench request {i}");
    match i % 5 {
        0 => (
            "/v1/messages",
            json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": prompt}]}),
            "message_stop",
            "\n\n",
        ),
        1 => (
            "/v1/chat/completions",
            json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": prompt}]}),
            "[DONE]",
            "\n\n",
        ),
        2 => (
            "/v1/responses",
            json!({"model": "m", "stream": true, "input": prompt}),
            "response.completed",
            "\n\n",
        ),
        3 => (
            "/v1beta/models/fake-model:streamGenerateContent?alt=sse",
            json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}]}),
            "\"finishReason\":\"STOP\"",
            "\n\n",
        ),
        _ => (
            "/api/chat",
            json!({"model": "m", "messages": [{"role": "user", "content": prompt}]}),
            "\"done\":true",
            "\n",
        ),
    }
}

fn main() {
    let n = env_num("FAKELLM_BENCH_REQUESTS", 1000);
    let timeout = Duration::from_secs(env_num("FAKELLM_BENCH_TIMEOUT_SECS", 60));
    if let Some(limit) = nofile_limit() {
        if limit < 2 * n + 64 {
            eprintln!("warning: nofile soft limit {limit} is below 2 x {n} + 64; raise it with `ulimit -n`");
        }
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cannot start the tokio runtime: {e}");
            std::process::exit(2);
        }
    };
    let errors = rt.block_on(run(n, timeout));
    if errors > 0 {
        std::process::exit(1);
    }
}

async fn run(n: u64, timeout: Duration) -> u64 {
    let config = FakeLlmConfig {
        text_deltas: 8,
        ..Default::default()
    };
    let server = match FakeLlm::start(config).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fake-llm did not start: {e}");
            return 1;
        }
    };
    let base = server.base_url();
    // See tests/common: reqwest may be built without a crypto provider.
    let _already = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(n as usize)
        .build()
        .unwrap_or_default();
    let events = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    // Every task waits at the barrier so the requests really are in flight together.
    let barrier = Arc::new(tokio::sync::Barrier::new(n as usize + 1));
    let mut tasks = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (client, base, events, errors, barrier) = (
            client.clone(),
            base.clone(),
            events.clone(),
            errors.clone(),
            barrier.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let (path, body, terminator, sep) = request(i);
            barrier.wait().await;
            match one(&client, &format!("{base}{path}"), &body, terminator, sep).await {
                Ok(count) => {
                    events.fetch_add(count, Ordering::Relaxed);
                }
                Err(e) => {
                    if errors.fetch_add(1, Ordering::Relaxed) < 5 {
                        eprintln!("request {i} ({path}) failed: {e}");
                    }
                }
            }
        }));
    }
    barrier.wait().await;
    let start = Instant::now();
    let all = futures::future::join_all(tasks);
    if tokio::time::timeout(timeout, all).await.is_err() {
        eprintln!("timed out after {timeout:?}");
        errors.fetch_add(1, Ordering::Relaxed);
    }
    let elapsed = start.elapsed();
    let (events, errors) = (
        events.load(Ordering::Relaxed),
        errors.load(Ordering::Relaxed),
    );
    let secs = elapsed.as_secs_f64().max(1e-9);
    println!("fake-llm concurrent streaming bench");
    println!("  requests:        {n} concurrent (anthropic, openai chat, openai responses, gemini, ollama in turn)");
    println!("  errors:          {errors}");
    println!("  total time:      {:.3} s", secs);
    println!("  requests/s:      {:.0}", n as f64 / secs);
    println!("  stream events:   {events}");
    println!("  events/s:        {:.0}", events as f64 / secs);
    server.shutdown().await;
    errors
}

/// One streaming request read to the end; returns its number of frames.
async fn one(
    client: &reqwest::Client,
    url: &str,
    body: &Value,
    terminator: &str,
    sep: &str,
) -> Result<u64, String> {
    let resp = client
        .post(url)
        .json(body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("status {}", resp.status()));
    }
    let mut stream = resp.bytes_stream();
    let mut text = Vec::new();
    while let Some(chunk) = stream.next().await {
        text.extend_from_slice(&chunk.map_err(|e| e.to_string())?);
    }
    let text = String::from_utf8(text).map_err(|e| e.to_string())?;
    if !text.contains(terminator) {
        return Err(format!("stream ended without {terminator}"));
    }
    Ok(text.split(sep).filter(|f| !f.trim().is_empty()).count() as u64)
}
