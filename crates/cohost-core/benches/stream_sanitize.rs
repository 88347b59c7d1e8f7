//! Cost of sanitizing deltas as a stream with today's sanitizer (the
//! 40+-shape corpus in one regex pass, known-value redaction) against the
//! sanitizer before it (`baseline/`, kept verbatim), in the same run; plus
//! each against sanitizing the whole text once.
//!
//! `cargo bench -p cohost-core --bench stream_sanitize`
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench crate: a failed unwrap is a failed bench with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::hint::black_box;
use std::time::Instant;

use cohost_core::sanitize::{Sanitizer, StreamSanitizer};

mod baseline;

/// Word-sized deltas of ordinary assistant output with code, a URL and a key.
fn deltas() -> Vec<String> {
    let text = "Here is the fix. In `src/main.rs` change `let x = compute(a, b);` to \
        `let x = compute(a, b)?;` and set RUST_LOG=debug before running. The request \
        goes to https://api.example.com/v1/items?page=2 with the header \
        Authorization: Bearer abcdef0123456789ABCDEFxyz and returns JSON like \
        {\"id\": 7, \"name\": \"widget\"}. Your key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx \
        should never be printed. Ünïcödé prose — and “quotes” too.\n";
    let mut out = Vec::new();
    for _ in 0..200 {
        // Model deltas are 1-4 words, often splitting words; cut every 7 bytes.
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = rest.len().min(7);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            out.push(rest[..cut].to_string());
            rest = &rest[cut..];
        }
    }
    out
}

/// Median seconds of `f` and of `g` over `rounds` rounds, run alternately so
/// a machine's changing load weighs on both alike.
fn medians(rounds: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let time = |h: &mut dyn FnMut()| {
        let t = Instant::now();
        h();
        t.elapsed().as_secs_f64()
    };
    let (mut a, mut b): (Vec<f64>, Vec<f64>) =
        (0..rounds).map(|_| (time(&mut f), time(&mut g))).unzip();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    (a[rounds / 2], b[rounds / 2])
}

fn main() {
    let env = [("MY_TOKEN", "tok-value-1234567890")];
    let home = Some("/home/alice".to_string());
    // Today's, with a few known values as the binary installs them.
    let san = Sanitizer::new(env, home.clone()).with_known_values([
        "sk-configured-provider-key-0123456789",
        "credential-file-token-abcdefghijkl",
    ]);
    let old = baseline::Sanitizer::new(env, home);
    let deltas = deltas();
    let bytes: usize = deltas.iter().map(String::len).sum();
    let joined: String = deltas.concat();
    let rounds = 21;
    let (new_stream, old_stream) = medians(
        rounds,
        || {
            let mut st = StreamSanitizer::new();
            for d in &deltas {
                black_box(st.push(&san, d));
            }
            black_box(st.finish(&san));
        },
        || {
            let mut st = baseline::StreamSanitizer::new();
            for d in &deltas {
                black_box(st.push(&old, d));
            }
            black_box(st.finish(&old));
        },
    );
    let (new_whole, old_whole) = medians(
        rounds,
        || {
            black_box(san.sanitize(&joined));
        },
        || {
            black_box(old.sanitize(&joined));
        },
    );
    let n = deltas.len() as f64;
    println!(
        "stream_sanitize: {} deltas, {bytes} bytes (medians of {rounds} alternating rounds)\n  \
         as a stream: today {:.0} ns/delta ({:.1} MB/s), baseline {:.0} ns/delta ({:.1} MB/s): today/baseline = {:.2}x\n  \
         whole text once: today {:.1} MB/s, baseline {:.1} MB/s: today/baseline = {:.2}x",
        deltas.len(),
        new_stream * 1e9 / n,
        bytes as f64 / new_stream / 1e6,
        old_stream * 1e9 / n,
        bytes as f64 / old_stream / 1e6,
        new_stream / old_stream,
        bytes as f64 / new_whole / 1e6,
        bytes as f64 / old_whole / 1e6,
        new_whole / old_whole,
    );
}
