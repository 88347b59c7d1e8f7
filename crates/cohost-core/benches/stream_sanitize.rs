//! Cost of sanitizing deltas as a stream (holding back possible secret tails)
//! against sanitizing each delta alone (what cohost did before, which misses
//! split secrets) and against sanitizing the whole text once.
//!
//! `cargo bench -p cohost-core --bench stream_sanitize`

// A bench crate: a failed unwrap is a failed bench with its line, and
// nothing here is API.
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::hint::black_box;
use std::time::Instant;

use cohost_core::sanitize::{Sanitizer, StreamSanitizer};

/// Word-sized deltas of ordinary assistant output with code, a URL and a key.
fn deltas() -> Vec<String> {
    let text = "Here is the fix. In `src/main.rs` change `let x = compute(a, b);` to \
        `let x = compute(a, b)?;` and set RUST_LOG=debug before running. The request \
        goes to https://api.example.com/v1/items?page=2 with the header \
        Authorization: Bearer abcdef0123456789ABCDEFxyz and returns JSON like \
        {\"id\": 7, \"name\": \"widget\"}. Your key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx \
        should never be printed.\n";
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

fn main() {
    let san = Sanitizer::new(
        [("MY_TOKEN", "tok-value-1234567890")],
        Some("/home/alice".into()),
    );
    let deltas = deltas();
    let bytes: usize = deltas.iter().map(String::len).sum();
    let rounds = 20;
    let mut per_delta = Vec::new();
    let mut stream = Vec::new();
    let mut whole = Vec::new();
    let joined: String = deltas.concat();
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(san.sanitize(&joined));
        whole.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for d in &deltas {
            black_box(san.sanitize(d));
        }
        per_delta.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut st = StreamSanitizer::new();
        for d in &deltas {
            black_box(st.push(&san, d));
        }
        black_box(st.finish(&san));
        stream.push(t.elapsed().as_secs_f64());
    }
    per_delta.sort_by(f64::total_cmp);
    stream.sort_by(f64::total_cmp);
    whole.sort_by(f64::total_cmp);
    let (a, b, w) = (per_delta[rounds / 2], stream[rounds / 2], whole[rounds / 2]);
    let n = deltas.len() as f64;
    println!(
        "stream_sanitize: {} deltas, {bytes} bytes; per delta alone {:.0} ns/delta ({:.1} MB/s); as a stream {:.0} ns/delta ({:.1} MB/s); stream/alone = {:.2}x; the whole text at once {:.1} MB/s, stream/whole = {:.2}x (medians of {rounds}). Alone is fast because 7-byte pieces skip the patterns, i.e. it misses split secrets",
        deltas.len(),
        a * 1e9 / n,
        bytes as f64 / a / 1e6,
        b * 1e9 / n,
        bytes as f64 / b / 1e6,
        b / a,
        bytes as f64 / w / 1e6,
        b / w
    );
}
