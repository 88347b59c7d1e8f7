//! Starts a bench for one CLI and keeps it up, for poking at a CLI by hand:
//!
//! ```sh
//! cargo run -p cohost-testbench --example bench_env -- opencode > /tmp/bench.env &
//! sleep 1; (set -a; . /tmp/bench.env; cd "$BENCH_CWD"; opencode run hello)
//! ```
//!
//! Prints the child environment as `KEY='value'` lines (plus `BENCH_CWD`), then
//! on stderr every request the fake server gets and every non-loopback socket
//! the CLI's processes hold, until Ctrl-C.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the test bench and its tools report on the terminal"
)]

use std::time::Duration;

use cohost_testbench::{AgentCli, Bench};

#[tokio::main]
async fn main() {
    let Some(name) = std::env::args().nth(1) else {
        eprintln!("usage: bench_env CLI   (one of: claude codex gemini qwen opencode copilot aider claude-code-acp codex-acp continue)");
        std::process::exit(2);
    };
    let cli: AgentCli = match name.parse() {
        Ok(cli) => cli,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let bench = match Bench::start(cli).await {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e} ({})", e.suggested_fix.as_deref().unwrap_or(""));
            std::process::exit(1);
        }
    };
    for (k, v) in bench.env() {
        println!("{k}='{}'", v.replace('\'', r"'\''"));
    }
    println!("BENCH_CWD='{}'", bench.cwd().display());
    let (mut seen_requests, mut seen_outbound) = (0, 0);
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
        let requests = bench.fake().requests();
        for r in requests.iter().skip(seen_requests) {
            eprintln!("fake-llm: {} {} -> {:?}", r.method, r.path, r.scenario);
        }
        seen_requests = requests.len();
        let outbound = bench.outbound();
        for o in outbound.iter().skip(seen_outbound) {
            eprintln!("OUTBOUND: {o}");
        }
        seen_outbound = outbound.len();
    }
}
