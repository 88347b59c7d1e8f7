//! The Goose adapter as a WebAssembly component against the built-in Goose
//! driver, in one run (plain `main`, no harness):
//!
//! 1. Per line, warm: the golden transcript `tool_turn` (tests/fixtures/
//!    goose/docs) fed line by line, many turns over, through the built-in
//!    normalizer and through one component instance per turn; the time per
//!    line and the ratio (goal: under 3x).
//! 2. Instantiation: cold (compile the component, then instantiate: what
//!    the first session of a cohost process pays) and warm (a fresh
//!    instance from the compiled component, what each turn pays; goal:
//!    under 5 ms), medians.
//!
//! The component is built by the test helper (`cohost_testbench::
//! wasm_examples`: wasm32-wasip2, release).
//!
//! `cargo bench -p cohost-agents --bench wasm_adapter`
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

use cohost_agents::catalog;
use cohost_agents::parsers::oneshot::TurnNormalizer;
use cohost_core::ErrorCode;
use cohost_testbench::wasm_examples::wasm_examples;
use cohost_wasm::{AdapterComponent, Classify, Limits, LoadOptions, Runtime, StartOptions};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn options() -> LoadOptions {
    LoadOptions {
        plugin: "goose-wasm".into(),
        sha256: None,
        limits: Limits::default(),
        classify: Classify {
            class_of: |_| None::<ErrorCode>,
            fix_for: |_| "",
        },
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let Some(ex) = wasm_examples() else { return };
    let bytes = std::fs::read(&ex.goose).unwrap();
    let transcript = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/goose/docs/tool_turn.jsonl"),
    )
    .unwrap();
    let lines: Vec<&str> = transcript.lines().skip(1).collect();
    let parser = catalog::CLIS
        .iter()
        .find(|e| e.id == "goose")
        .and_then(|e| e.parser)
        .unwrap();
    let rt = Runtime::shared().unwrap();

    // Instantiation, cold then warm.
    let mut cold = Vec::new();
    for _ in 0..5 {
        rt.clear_cache();
        let t = Instant::now();
        let c = AdapterComponent::load(&rt, &bytes, options()).unwrap();
        black_box(c.instantiate().unwrap());
        cold.push(t.elapsed());
    }
    let c = AdapterComponent::load(&rt, &bytes, options()).unwrap();
    let mut warm = Vec::new();
    for _ in 0..2000 {
        let t = Instant::now();
        black_box(c.instantiate().unwrap());
        warm.push(t.elapsed());
    }

    // Per line: whole turns, so both pay their per-turn start too.
    let turns = 20_000;
    let mut native = Duration::ZERO;
    let mut wasm = Duration::ZERO;
    let mut wasm_start = Duration::ZERO;
    for round in 0..3 {
        let t = Instant::now();
        for _ in 0..turns {
            let mut n = (parser.0)(Some("cohost-x"));
            for l in &lines {
                black_box(n.on_line(l));
            }
        }
        let native_round = t.elapsed();
        let t = Instant::now();
        let mut started = Duration::ZERO;
        for _ in 0..turns {
            let s = Instant::now();
            let mut i = c.instantiate().unwrap();
            i.start(StartOptions {
                session_id: Some("cohost-x".into()),
                ..StartOptions::default()
            })
            .unwrap();
            started += s.elapsed();
            for l in &lines {
                black_box(i.on_line(l).unwrap());
            }
        }
        let wasm_round = t.elapsed();
        if round > 0 {
            // The first round warms caches and the allocator.
            native += native_round;
            wasm += wasm_round - started;
            wasm_start += started;
        }
    }
    let n_lines = (2 * turns * lines.len()) as f64;
    let per = |d: Duration| d.as_nanos() as f64 / n_lines;
    let (nat, was) = (per(native), per(wasm));
    println!(
        "goose tool_turn, {} lines per turn, {} turns x 2 rounds",
        lines.len(),
        turns
    );
    println!("per line, built-in driver:      {nat:>9.0} ns");
    println!(
        "per line, wasm component:       {was:>9.0} ns  ({:.2}x the built-in; goal < 3x)",
        was / nat
    );
    println!(
        "per turn, instantiate + start:  {:>9.1} us",
        wasm_start.as_nanos() as f64 / (2 * turns) as f64 / 1000.0
    );
    println!(
        "instantiation, cold (compile):  {:>9.1} ms (median of 5)",
        median(cold).as_secs_f64() * 1000.0
    );
    let w = median(warm);
    println!(
        "instantiation, warm:            {:>9.1} us (median of 2000; goal < 5 ms)",
        w.as_secs_f64() * 1e6
    );
}
