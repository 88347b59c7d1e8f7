//! Start-up overhead of `cohost run` over the bare CLI (issue 18): `cohost
//! run --agent claude hello` against `claude -p hello`, both against the
//! same fake model server in the same scratch user, run in alternating
//! pairs so machine load hits both alike. Prints the median wall time of
//! each and their ratio (goal: at most 1.03). A third run per round starts
//! with cohost's probe cache deleted: what every `cohost run` cost before
//! the cache (it probed `claude --version` and `claude --help` each time).
//!
//! ```text
//! cargo bench -p cohost-cli --bench startup -- --pairs 15
//! ```
//! Skips (exit 0, with a notice) when claude is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::{Duration, Instant};

use cohost_testbench::{AgentCli, Bench};

fn pairs_arg() -> usize {
    let argv: Vec<String> = std::env::args().collect();
    argv.iter()
        .position(|a| a == "--pairs")
        .and_then(|i| argv.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
}

async fn timed(mut cmd: tokio::process::Command, what: &str) -> Duration {
    let start = Instant::now();
    let out = cmd.output().await.unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let pairs = pairs_arg();
    let b = Bench::start(AgentCli::Claude).await.unwrap();
    let Some(claude) = b.bin_path(AgentCli::Claude) else {
        println!("startup: claude is not installed; skipped");
        return;
    };
    let cohost = env!("CARGO_BIN_EXE_cohost");
    let bare = || b.command_for(&claude, ["-p", "hello"]);
    let ours = || b.command_for(cohost, ["run", "--agent", "claude", "hello"]);
    let cache = b.layout().xdg_state.join("cohost/probes.json");
    let cold = || {
        let _ = std::fs::remove_file(&cache);
        ours()
    };
    // Warm all (page cache, first-run files, cohost's probe cache).
    timed(bare(), "claude -p").await;
    timed(ours(), "cohost run").await;
    let (mut t_bare, mut t_ours, mut t_cold) = (Vec::new(), Vec::new(), Vec::new());
    let (mut r_ours, mut r_cold) = (Vec::new(), Vec::new());
    for i in 0..pairs {
        // Rotate which goes first.
        let (a, c, k) = match i % 3 {
            0 => {
                let a = timed(bare(), "claude -p").await;
                let k = timed(cold(), "cohost run (cold)").await;
                (a, timed(ours(), "cohost run").await, k)
            }
            1 => {
                let k = timed(cold(), "cohost run (cold)").await;
                let c = timed(ours(), "cohost run").await;
                (timed(bare(), "claude -p").await, c, k)
            }
            _ => {
                let c = timed(ours(), "cohost run").await;
                let a = timed(bare(), "claude -p").await;
                (a, c, timed(cold(), "cohost run (cold)").await)
            }
        };
        r_ours.push(c.as_secs_f64() / a.as_secs_f64());
        r_cold.push(k.as_secs_f64() / a.as_secs_f64());
        t_bare.push(a);
        t_ours.push(c);
        t_cold.push(k);
    }
    let (mb, mo, mk) = (median(t_bare), median(t_ours), median(t_cold));
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("startup: {pairs} rounds, claude -p hello vs cohost run --agent claude hello");
    println!("  bare claude -p               median {:>7.1} ms", ms(mb));
    println!("  cohost run (probe cache)     median {:>7.1} ms", ms(mo));
    println!("  cohost run (no probe cache)  median {:>7.1} ms", ms(mk));
    println!(
        "  with cache: ratio of medians {:.3}, median of per-round ratios {:.3} (goal <= 1.03)",
        ms(mo) / ms(mb),
        mid(r_ours)
    );
    println!(
        "  no cache:   ratio of medians {:.3}, median of per-round ratios {:.3}",
        ms(mk) / ms(mb),
        mid(r_cold)
    );
}
