//! Soak of issue 13 ("no orphan, no hang"): randomized cycles of
//! `cohost run` ended every way it can end (normal end, SIGINT, SIGINT
//! twice, SIGTERM, SIGHUP, SIGKILL of cohost, the agent killed mid-stream,
//! the agent crashing while an approval waits), across the mock, a plugin
//! agent whose children hide (own group, signal-ignoring, `setsid`), and
//! real Claude Code and Codex against the fake model server; then a
//! long-lived `cohost serve` before and after N sessions.
//!
//! It reports orphans (processes of the agent still alive 2 s after cohost
//! ended; the goal is 0), hangs, the slowest time from the ending action to
//! quiescence (cohost gone and no marked process left; for a normal end,
//! the whole run), and the fds and RSS of `cohost serve`. Bounded in count and time:
//!
//! ```text
//! cargo test -p cohost-cli --bench soak -- --cycles 50 --seconds 100 --serve-sessions 20
//! cargo bench -p cohost-cli --bench soak -- --cycles 1000 --seconds 3000
//! ```
//! Exits 1 when any orphan or hang was seen.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
// A bench: it may unwrap, and sleep while it paces cycles and waits for
// the processes it started.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    unreachable_pub
)]

mod cycle;
#[path = "../../tests/orphans_support/mod.rs"]
mod orphans_support;
mod rigs;
mod serve;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cycle::{End, Outcome};
use rigs::Rigs;

struct Args {
    cycles: usize,
    seconds: u64,
    seed: u64,
    serve_sessions: usize,
}

fn parse_args() -> Args {
    let mut a = Args {
        cycles: 50,
        seconds: 100,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
        serve_sessions: 20,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let mut num = || it.next().and_then(|v| v.parse::<u64>().ok());
        match flag.as_str() {
            "--cycles" => a.cycles = num().map_or(a.cycles, |n| n as usize),
            "--seconds" => a.seconds = num().unwrap_or(a.seconds),
            "--seed" => a.seed = num().unwrap_or(a.seed),
            "--serve-sessions" => a.serve_sessions = num().map_or(a.serve_sessions, |n| n as usize),
            _ => {} // `--bench` and friends from cargo
        }
    }
    a
}

/// xorshift64*: reproducible from `--seed`, no dependency.
pub struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// An index below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Default)]
struct Tally {
    runs: usize,
    orphans: usize,
    hangs: usize,
    slowest: Duration,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = parse_args();
    let rigs = Rigs::start().await;
    let agents = rigs.available();
    println!(
        "soak: seed {}, up to {} cycles in {} s, agents {:?}",
        args.seed,
        args.cycles,
        args.seconds,
        agents.iter().map(|a| a.name()).collect::<Vec<_>>()
    );
    let mut rng = Rng(args.seed.max(1));
    let mut table: BTreeMap<(&'static str, &'static str), Tally> = BTreeMap::new();
    let start = Instant::now();
    let budget = Duration::from_secs(args.seconds);
    let mut ran = 0;
    while ran < args.cycles && start.elapsed() < budget {
        let agent = agents[rng.below(agents.len())];
        let ends = End::valid_for(agent);
        let end = ends[rng.below(ends.len())];
        let out: Outcome = cycle::run(&rigs, agent, end).await;
        let t = table.entry((agent.name(), end.name())).or_default();
        t.runs += 1;
        t.orphans += out.orphans.len();
        t.hangs += usize::from(out.hung);
        t.slowest = t.slowest.max(out.quiescence);
        if !out.orphans.is_empty() || out.hung {
            println!(
                "cycle {ran}: {} / {}: hung={} orphans={:?}",
                agent.name(),
                end.name(),
                out.hung,
                out.orphans
            );
        }
        ran += 1;
    }
    let elapsed = start.elapsed();
    println!(
        "\n{:<8} {:<18} {:>5} {:>7} {:>5} {:>10}",
        "agent", "end", "runs", "orphans", "hangs", "slowest"
    );
    let mut total = Tally::default();
    for ((agent, end), t) in &table {
        println!(
            "{agent:<8} {end:<18} {:>5} {:>7} {:>5} {:>8}ms",
            t.runs,
            t.orphans,
            t.hangs,
            t.slowest.as_millis()
        );
        total.runs += t.runs;
        total.orphans += t.orphans;
        total.hangs += t.hangs;
        // A normal end's time is the whole turn, not a shutdown.
        if *end != "normal" {
            total.slowest = total.slowest.max(t.slowest);
        }
    }
    println!(
        "total: {} cycles in {:.1} s, {} orphans, {} hangs, slowest quiescence after an ending action {} ms",
        total.runs,
        elapsed.as_secs_f64(),
        total.orphans,
        total.hangs,
        total.slowest.as_millis()
    );
    let serve_ok = if args.serve_sessions > 0 {
        serve::soak(&rigs, args.serve_sessions).await
    } else {
        true
    };
    if total.orphans > 0 || total.hangs > 0 || !serve_ok {
        std::process::exit(1);
    }
}
