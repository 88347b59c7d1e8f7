//! Overhead of an HTTP provider adapter over a bare reqwest client reading
//! the same fake stream: time to the first text event and time per event,
//! as ratios. Bounded: a fixed number of runs per wire (~10 s in all).
//!
//! Run: `cargo bench -p cohost-agents --bench http_overhead`
//! Knob: `HTTP_BENCH_RUNS` (default 40 per wire).
//!
//! The adapter side runs through `HostSession` (numbering, sanitizing, the
//! event sink), i.e. what a cohost user gets; the bare side only finds the
//! first text delta in the bytes and counts frames.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unreachable_pub,
    missing_docs
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cohost_core::{AdapterConfig, Event, EventBody, HostSession, Policy, PromptInput};
use cohost_fakellm::{FakeLlm, FakeLlmConfig};
use cohost_http::{providers, HttpFactory};
use futures::StreamExt;
use serde_json::json;

const KEY: &str = "bench-key-0000000000";

struct Sample {
    /// The raw body (bare only), for the CPU measurement.
    bytes: Vec<u8>,
    first: Duration,
    /// Adapter: the last text chunk; bare: the end of the body.
    last: Duration,
    total: Duration,
    events: usize,
}

fn prompt_text() -> String {
    // The fake quotes up to 200 chars of the prompt: long text, many deltas.
    "bench ".repeat(40)
}

async fn bare(client: &reqwest::Client, wire: &str, base: &str) -> Sample {
    let (url, body, needle) = match wire {
        "openai" => (
            format!("{base}/v1/chat/completions"),
            json!({"model": "fake-model", "stream": true, "stream_options": {"include_usage": true},
                   "messages": [{"role": "user", "content": prompt_text()}]}),
            "\"content\":\"H",
        ),
        _ => (
            format!("{base}/v1/messages"),
            json!({"model": "fake-model", "stream": true, "max_tokens": 8192,
                   "messages": [{"role": "user", "content": [{"type": "text", "text": prompt_text()}]}]}),
            "\"text\":\"H",
        ),
    };
    let t0 = Instant::now();
    let resp = client
        .post(&url)
        .header("authorization", format!("Bearer {KEY}"))
        .header("x-api-key", KEY)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .expect("bare request");
    let mut stream = resp.bytes_stream();
    let mut seen = Vec::new();
    let mut first = None;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.expect("bare body");
        seen.extend_from_slice(&chunk);
        if first.is_none() && String::from_utf8_lossy(&seen).contains(needle) {
            first = Some(t0.elapsed());
        }
    }
    let text = String::from_utf8_lossy(&seen);
    let total = t0.elapsed();
    Sample {
        bytes: seen.clone(),
        first: first.expect("a text delta"),
        last: total,
        total,
        events: text.matches("\n\n").count(),
    }
}

async fn adapter(session: &mut HostSession) -> Sample {
    let t0 = Instant::now();
    let first = Arc::new(Mutex::new(None));
    let last = Arc::new(Mutex::new(Duration::ZERO));
    let count = Arc::new(Mutex::new(0usize));
    let (f, l, c) = (first.clone(), last.clone(), count.clone());
    let mut sink = move |e: Event| {
        if matches!(e.body, EventBody::StreamChunk { .. }) {
            let now = t0.elapsed();
            let mut f = f.lock().unwrap();
            if f.is_none() {
                *f = Some(now);
            }
            *l.lock().unwrap() = now;
        }
        *c.lock().unwrap() += 1;
    };
    let out = session
        .prompt(PromptInput::text(prompt_text()), &mut sink)
        .await;
    assert_eq!(
        out.reason,
        cohost_core::EndReason::Completed,
        "{:?}",
        out.error
    );
    let total = t0.elapsed();
    let first = first.lock().unwrap().expect("a text chunk");
    let events = *count.lock().unwrap();
    let last = *last.lock().unwrap();
    Sample {
        bytes: Vec::new(),
        first,
        last,
        total,
        events,
    }
}

/// The adapter's own stream, without the session engine on top.
async fn raw_adapter(factory: &HttpFactory, config: &AdapterConfig) -> (Duration, Duration) {
    use cohost_core::{AgentAdapter, AgentEvent, PromptRequest};
    let mut a = factory.adapter();
    a.initialize(config).await.expect("init");
    let mut result = (Duration::ZERO, Duration::ZERO);
    let turns = 1;
    for _ in 0..turns {
        let t0 = Instant::now();
        let mut stream = a
            .send_prompt(PromptRequest {
                prompt_id: "p".into(),
                text: prompt_text(),
                context_files: vec![],
                images: vec![],
            })
            .await
            .expect("send");
        let (mut first, mut last) = (None, Duration::ZERO);
        while let Some(ev) = stream.next().await {
            if let AgentEvent::TextDelta(_) = ev {
                let now = t0.elapsed();
                first.get_or_insert(now);
                last = now;
            }
            if matches!(ev, AgentEvent::Ended { .. }) {
                break;
            }
        }
        result = (first.expect("text"), last);
    }
    result
}

/// CPU cost of the sans-IO path alone: decode + normalize a captured body.
fn cpu_per_frame(wire: &str, body: &[u8]) -> (f64, usize) {
    use cohost_http::{anthropic, decode::SseDecoder, errors::Ctx, normalize, openai_chat};
    let iters = 500;
    let t0 = Instant::now();
    let mut frames_seen = 0;
    for _ in 0..iters {
        let ctx = Ctx {
            provider: wire.into(),
            model: "fake-model".into(),
            ..Ctx::default()
        };
        let mut n: Box<dyn normalize::Normalizer> = match wire {
            "openai" => Box::new(openai_chat::ChatNormalizer::new(ctx)),
            _ => Box::new(anthropic::AnthropicNormalizer::new(ctx)),
        };
        let mut d = SseDecoder::new();
        let (mut frames, mut events) = (Vec::new(), Vec::new());
        // Network-sized pieces, as they arrive.
        for piece in body.chunks(64) {
            d.push(piece, &mut frames);
        }
        d.finish(&mut frames);
        frames_seen = frames.len();
        for f in &frames {
            normalize::feed(n.as_mut(), wire, f, &mut events).expect("clean stream");
        }
        assert!(n.finish().is_some());
        std::hint::black_box(&events);
    }
    (
        t0.elapsed().as_secs_f64() * 1e6 / (iters * frames_seen.max(1)) as f64,
        frames_seen,
    )
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let runs: usize = std::env::var("HTTP_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let server = FakeLlm::start(FakeLlmConfig {
        text_deltas: 200,
        ..Default::default()
    })
    .await
    .expect("fake server");
    let base = server.base_url();
    let home = tempfile::tempdir().unwrap();
    println!("http_overhead: {runs} runs per wire, medians; ~200 text deltas per stream");
    for wire in ["openai", "anthropic"] {
        let (factory, vars) = match wire {
            "openai" => (
                HttpFactory::new(providers::openai()),
                [
                    ("OPENAI_BASE_URL", format!("{base}/v1")),
                    ("OPENAI_API_KEY", KEY.to_string()),
                ],
            ),
            _ => (
                HttpFactory::new(providers::anthropic()),
                [
                    ("ANTHROPIC_BASE_URL", base.clone()),
                    ("ANTHROPIC_API_KEY", KEY.to_string()),
                ],
            ),
        };
        let mut config = AdapterConfig {
            cwd: home.path().to_path_buf(),
            model: Some("fake-model".into()),
            ..AdapterConfig::default()
        };
        config
            .env
            .insert("HOME".into(), home.path().display().to_string());
        config.env.insert(
            "XDG_STATE_HOME".into(),
            home.path().join("state").display().to_string(),
        );
        for (k, v) in vars {
            config.env.insert(k.into(), v);
        }
        let (mut b_first, mut b_total, mut a_first, mut a_total) = (vec![], vec![], vec![], vec![]);
        let (mut a_last, mut a_persist) = (vec![], vec![]);
        let (mut r_first, mut r_last) = (vec![], vec![]);
        let (mut b_events, mut a_events) = (0, 0);
        let mut body = Vec::new();
        for _ in 0..runs {
            // A fresh connection per run on both sides: the fake server does
            // not set TCP_NODELAY, so a reused loopback connection can stall
            // ~40 ms on a delayed ACK mid-stream (Nagle), whichever client
            // holds it; fresh connections measure the clients, not that.
            let client = cohost_http::client_builder().no_proxy().build().unwrap();
            let b = bare(&client, wire, &base).await;
            b_first.push(b.first);
            b_total.push(b.total);
            b_events = b.events;
            body = b.bytes;
            // A fresh session per run: each turn replays a one-turn
            // conversation, as the bare request does.
            let mut s = HostSession::new(
                Arc::new(factory.clone()),
                config.clone(),
                Arc::new(Policy::DenyAll),
                Default::default(),
            );
            s.start().await.expect("session");
            let a = adapter(&mut s).await;
            a_first.push(a.first);
            a_total.push(a.total);
            a_last.push(a.last);
            a_persist.push(a.total.saturating_sub(a.last));
            let (rf, rl) = raw_adapter(&factory, &config).await;
            r_first.push(rf);
            r_last.push(rl);
            a_events = a.events;
        }
        let (bf, bt, af, at) = (
            median(b_first.clone()),
            median(b_total.clone()),
            median(a_first),
            median(a_total),
        );
        let (al, ap) = (median(a_last.clone()), median(a_persist));
        let (rf, rl) = (median(r_first), median(r_last));
        let min = |v: &[Duration]| v.iter().min().copied().unwrap_or_default();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (cpu, frames) = cpu_per_frame(wire, &body);
        println!(
            "{wire:>9}: first text     bare {:>7.3} ms   session {:>7.3} ms (x{:.2})   adapter stream {:>7.3} ms (x{:.2})",
            ms(bf), ms(af), af.as_secs_f64() / bf.as_secs_f64(), ms(rf), rf.as_secs_f64() / bf.as_secs_f64()
        );
        println!(
            "{wire:>9}: whole stream   bare {:>7.3} ms   session {:>7.3} ms (x{:.2})   adapter stream {:>7.3} ms (x{:.2})   [medians]",
            ms(bt), ms(al), al.as_secs_f64() / bt.as_secs_f64(), ms(rl), rl.as_secs_f64() / bt.as_secs_f64()
        );
        println!(
            "{wire:>9}: whole stream   bare {:>7.3} ms   session {:>7.3} ms (x{:.2})   [best runs]",
            ms(min(&b_total)),
            ms(min(&a_last)),
            min(&a_last).as_secs_f64() / min(&b_total).as_secs_f64().max(1e-9)
        );
        println!(
            "{wire:>9}: per event      bare {:>6.2} µs   session {:>6.2} µs (medians / {b_events} frames; {a_events} cohost events)   decode+normalize CPU {cpu:.2} µs/frame ({frames} frames)",
            bt.as_secs_f64() * 1e6 / b_events.max(1) as f64,
            al.as_secs_f64() * 1e6 / b_events.max(1) as f64,
        );
        println!("{wire:>9}: turn end       session {:>7.3} ms total, {:>6.3} ms after the last chunk (transcript save)", ms(at), ms(ap));
    }
    server.shutdown().await;
}
