//! The Goose adapter as a WebAssembly component against the built-in Goose
//! driver, in one run (plain `main`, no harness):
//!
//! 1. Per line, warm: the golden transcript `tool_turn` (tests/fixtures/
//!    goose/docs) fed line by line, whole turns, through the built-in
//!    normalizer and through one component instance per turn (from the
//!    instance pool, as cohost does; and, for comparison, from a runtime
//!    without the pool); native and wasm alternate in short rounds, each
//!    round gives a ratio and the median ratio is the figure (goal: under
//!    3x). Also the cost of one call with an empty line (the crossing
//!    alone, what batching lines per call could save at most).
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

    // Per line: whole turns, so both pay their per-turn start too, and the
    // component its instance (taken from the pool and given back, as in
    // cohost). Native and wasm alternate in short rounds and each round
    // gives a ratio, so a neighbour's load on a shared machine shifts both
    // sides of a ratio alike; the median ratio is the figure.
    let unpooled_rt = Runtime::unpooled().unwrap();
    let unpooled = AdapterComponent::load(&unpooled_rt, &bytes, options()).unwrap();
    let native_turns = |turns: usize| {
        let t = Instant::now();
        for _ in 0..turns {
            let mut n = (parser.0)(Some("cohost-x"));
            for l in &lines {
                black_box(n.on_line(l));
            }
        }
        t.elapsed()
    };
    let wasm_turns = |c: &AdapterComponent, turns: usize| {
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
        (t.elapsed() - started, started)
    };
    let (rounds, turns) = (11, 4000);
    let per_line = |d: Duration| d.as_nanos() as f64 / (turns * lines.len()) as f64;
    // One round to warm caches and the allocator, not counted.
    native_turns(turns);
    wasm_turns(&c, turns);
    wasm_turns(&unpooled, turns);
    let (mut nat, mut was, mut unp, mut ratio, mut ratio_unpooled) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut wasm_start = Duration::ZERO;
    for round in 0..rounds {
        let (n, (w, started), (u, _)) = if round % 2 == 0 {
            let n = native_turns(turns);
            (n, wasm_turns(&c, turns), wasm_turns(&unpooled, turns))
        } else {
            let u = wasm_turns(&unpooled, turns);
            let w = wasm_turns(&c, turns);
            (native_turns(turns), w, u)
        };
        wasm_start += started;
        let (n, w, u) = (per_line(n), per_line(w), per_line(u));
        nat.push(n);
        was.push(w);
        unp.push(u);
        ratio.push(w / n);
        ratio_unpooled.push(u / n);
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    let (r, r_lo, r_hi) = med(ratio);
    let (ru, ru_lo, ru_hi) = med(ratio_unpooled);
    println!(
        "goose tool_turn, {} lines per turn, {rounds} rounds of {turns} turns each side",
        lines.len()
    );
    println!(
        "per line, built-in driver:      {:>9.0} ns (median round)",
        med(nat).0
    );
    println!(
        "per line, wasm component:       {:>9.0} ns  {r:.2}x the built-in (median round ratio; rounds {r_lo:.2}-{r_hi:.2}; goal < 3x)",
        med(was).0
    );
    println!(
        "  without the instance pool:    {:>9.0} ns  {ru:.2}x (rounds {ru_lo:.2}-{ru_hi:.2})",
        med(unp).0
    );
    let mut i = c.instantiate().unwrap();
    i.start(StartOptions::default()).unwrap();
    let t = Instant::now();
    for _ in 0..100_000 {
        black_box(i.on_line("").unwrap());
    }
    println!(
        "one call, empty line:           {:>9.0} ns (the host/guest crossing)",
        t.elapsed().as_nanos() as f64 / 100_000.0
    );
    println!(
        "per turn, instantiate + start:  {:>9.1} us",
        wasm_start.as_nanos() as f64 / (rounds * turns) as f64 / 1000.0
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
