//! `drift`: does the newest release of each pinned agent CLI still work
//! through cohost? For each CLI of `tests/agents/versions.env`: look up the
//! newest version in its registry, install it into a scratch prefix (never
//! over the pinned install), run the standard scenarios through cohost's
//! driver against the fake model server, capture the CLI's stdout, and
//! compare it and its `--help` with the pinned goldens and the flag table.
//!
//! ```text
//! cargo run -p cohost-testbench --bin drift [-- --pinned | --only NAME | --json | --timeout-secs N]
//!     [--at NAME=VERSION] [--scenarios LIST] [--baseline PINNED.json] [--json-out FILE] [--save DIR]
//! ```
//!
//! Exit status: 0 all green, 1 a release breaks something, 2 bad usage.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the test bench and its tools report on the terminal"
)]
// A binary: `pub` only marks what its modules share.
#![allow(unreachable_pub)]

mod check;
mod profile;
mod releases;
mod scenarios;
mod wrapper;

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use cohost_core::Registry;
use cohost_testbench::drift::{render, DriftReport, SCENARIOS};

/// Drift check of the agent CLIs against their newest releases.
#[derive(Debug, Parser)]
#[command(name = "drift")]
struct Args {
    /// Check the pinned installs instead (no registry, no install); must be all green.
    #[arg(long)]
    pinned: bool,
    /// Only these CLIs (install.sh names, comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Also write the JSON report to FILE (the table still goes to stdout).
    #[arg(long, value_name = "FILE")]
    json_out: Option<PathBuf>,
    /// Time bound per CLI, in seconds.
    #[arg(long, default_value_t = 900)]
    timeout_secs: u64,
    /// Check NAME at VERSION instead of its newest release (repeatable).
    #[arg(long, value_name = "NAME=VERSION")]
    at: Vec<String>,
    /// Only these scenarios (default: all six).
    #[arg(long, value_delimiter = ',')]
    scenarios: Vec<String>,
    /// Hide transcript differences this earlier `--pinned --json` report
    /// shows too (how the goldens' capture differs from the drift scenarios).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Keep the captured transcripts as DIR/<cli>/<version>/<scenario>.jsonl.
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
}

fn usage_error(msg: &str) -> ! {
    eprintln!("drift: {msg}");
    std::process::exit(2)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args = Args::parse();
    let at: Vec<(String, String)> = args
        .at
        .iter()
        .map(|a| match a.split_once('=') {
            Some((n, v)) if !n.is_empty() && !v.is_empty() => (n.to_string(), v.to_string()),
            _ => usage_error(&format!("--at wants NAME=VERSION, got {a}")),
        })
        .collect();
    let scenarios: Vec<String> = if args.scenarios.is_empty() {
        SCENARIOS.iter().map(|s| s.to_string()).collect()
    } else {
        args.scenarios.clone()
    };
    if let Some(bad) = scenarios.iter().find(|s| !SCENARIOS.contains(&s.as_str())) {
        usage_error(&format!(
            "unknown scenario {bad}; expected one of {}",
            SCENARIOS.join(", ")
        ));
    }
    let baseline: Option<DriftReport> = args.baseline.as_ref().map(|path| {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| usage_error(&format!("--baseline {}: {e}", path.display())));
        serde_json::from_str(&text).unwrap_or_else(|e| {
            usage_error(&format!(
                "--baseline {}: not a drift --json report: {e}",
                path.display()
            ))
        })
    });
    let specs = match releases::specs().await {
        Ok(s) => s,
        Err(e) => usage_error(&e),
    };
    for name in args.only.iter().chain(at.iter().map(|(n, _)| n)) {
        if !specs.iter().any(|s| &s.name == name) {
            let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
            usage_error(&format!(
                "unknown CLI {name}; expected one of {}",
                names.join(", ")
            ));
        }
    }
    let scratch = match tempfile::Builder::new().prefix("cohost-drift-").tempdir() {
        Ok(d) => d,
        Err(e) => usage_error(&format!("cannot create a scratch dir: {e}")),
    };
    let mut registry = Registry::new();
    if let Err(e) = cohost_agents::builtin::register_all(&mut registry) {
        usage_error(&format!("driver registry: {e}"));
    }
    let plan = check::Plan {
        pinned: args.pinned,
        at,
        scenarios,
        per_cli: Duration::from_secs(args.timeout_secs),
        scratch: scratch.path().to_path_buf(),
        save: args.save.clone(),
    };
    let mut report = DriftReport {
        mode: if args.pinned { "pinned" } else { "newest" }.into(),
        clis: Vec::new(),
    };
    // One CLI at a time: they are heavy and the machine is shared.
    for spec in specs
        .iter()
        .filter(|s| args.only.is_empty() || args.only.contains(&s.name))
    {
        report.clis.push(check::check(spec, &plan, &registry).await);
    }
    if let Some(base) = &baseline {
        report.apply_baseline(base);
    }
    if let Some(path) = &args.json_out {
        if let Err(e) = std::fs::write(path, report.to_json() + "\n") {
            eprintln!("drift: cannot write {}: {e}", path.display());
        }
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", render(&report));
    }
    let code = i32::from(report.breaks());
    drop(scratch);
    std::process::exit(code);
}
