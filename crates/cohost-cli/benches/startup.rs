//! Start-up overhead of `cohost run` over the bare CLI (issue 18): `cohost
//! run --agent claude hello` against `claude -p hello`, both against the
//! same fake model server in the same scratch user, in rounds whose order
//! rotates so machine load hits all alike. Prints each variant's median
//! wall time and its ratio to the bare CLI (goal: at most 1.03). Two more
//! variants per round: Claude in the session mode cohost drives it in, run
//! by hand (what the mode costs without cohost), and `cohost run` with its
//! probe cache deleted first (what every run cost before the cache: it
//! probed `claude --version` and `claude --help` each time). Each ratio
//! comes with a 95% bootstrap interval over the rounds: on a shared VM one
//! run's median moves by several %, and the interval says how much of a
//! difference this run can resolve. The bench's network watch is stopped
//! first: its sampling costs CPU the timed runs would otherwise get, and
//! more of it during a cohost run (three processes) than a bare one. cohost
//! runs from copies of its binaries (`cohost`, `cohost-supervise`), as an
//! install leaves them.
//!
//! ```text
//! cargo bench -p cohost-cli --bench startup -- --pairs 15
//! cargo bench -p cohost-cli --bench startup -- --pairs 31 --ablate
//! cargo bench -p cohost-cli --bench startup -- --pairs 41 --baseline /tmp/old/cohost
//! ```
//! `--baseline PATH` adds `PATH run --agent claude hello`, another cohost
//! build (the previous commit's, say), to the same rounds.
//! `--ablate` replaces the no-cache variant with `claude -p hello` plus
//! each part of the session mode's flags in turn (stream-json output,
//! partial messages, approvals over stdio), to see which part costs.
//! `--hold` prints the scratch user's environment as shell `export`s and
//! keeps the fake model server up until Ctrl-C, to time or trace one run
//! by hand.
//! Skips (exit 0, with a notice) when claude is not installed.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench prints its results"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use std::time::{Duration, Instant};

use cohost_testbench::{shell_quote, AgentCli, Bench};

fn has_flag(flag: &str) -> bool {
    std::env::args().any(|a| a == flag)
}

/// The value after `flag`, if any.
fn flag_value(flag: &str) -> Option<String> {
    let argv: Vec<String> = std::env::args().collect();
    argv.iter()
        .position(|a| a == flag)
        .and_then(|i| argv.get(i + 1))
        .cloned()
}

fn pairs_arg() -> usize {
    flag_value("--pairs")
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
}

async fn timed(mut cmd: tokio::process::Command, input: Option<&str>, what: &str) -> Duration {
    use tokio::io::AsyncWriteExt;
    let start = Instant::now();
    if input.is_some() {
        cmd.stdin(std::process::Stdio::piped());
    }
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).await.unwrap();
        // Dropped: EOF, the end of the session's input.
    }
    let out = child.wait_with_output().await.unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// Copy the program at `from` into `dir`; returns the copy's path.
fn install(from: &str, dir: &std::path::Path) -> String {
    let name = std::path::Path::new(from).file_name().expect("a file name");
    let to = dir.join(name);
    std::fs::copy(from, &to).unwrap_or_else(|e| panic!("copy {from}: {e}"));
    to.to_string_lossy().into_owned()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let pairs = pairs_arg();
    // Another cohost build (say, the previous commit's) in the same rounds:
    // a before/after that machine load cannot skew.
    let baseline = flag_value("--baseline");
    let mut b = Bench::start(AgentCli::Claude).await.unwrap();
    b.stop_network_watch();
    let Some(claude) = b.bin_path(AgentCli::Claude) else {
        println!("startup: claude is not installed; skipped");
        return;
    };
    // Run copies, as `cargo install` would leave them: a binary the linker
    // has just written starts up to ~1 ms slower than a copy of it (how its
    // pages sit in the page cache), which is not what users run.
    let installed = tempfile::tempdir().unwrap();
    let cohost = &install(env!("CARGO_BIN_EXE_cohost"), installed.path());
    install(env!("CARGO_BIN_EXE_cohost-supervise"), installed.path());
    let baseline_dir = tempfile::tempdir().unwrap();
    let baseline = baseline.map(|other| {
        let bin = install(&other, baseline_dir.path());
        let beside = std::path::Path::new(&other).with_file_name("cohost-supervise");
        if beside.exists() {
            install(&beside.to_string_lossy(), baseline_dir.path());
        }
        bin
    });
    let cache = b.layout().xdg_state.join("cohost/probes.json");
    if has_flag("--hold") {
        // The bench's scratch user, to time or trace one run by hand.
        for (k, v) in b.env() {
            println!("export {k}={}", shell_quote(&v));
        }
        println!("cd {}", shell_quote(&b.layout().work.to_string_lossy()));
        println!("# holding the fake model server; Ctrl-C ends");
        let _ = tokio::signal::ctrl_c().await;
        return;
    }
    // The session mode cohost drives Claude in (control protocol, partial
    // messages, approvals over stdio), run by hand: what the mode itself
    // costs over `-p hello`, with no cohost in between.
    let session_input = concat!(
        r#"{"type":"control_request","request_id":"0","request":{"subtype":"initialize"}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"hello"},"parent_tool_use_id":null,"session_id":""}"#,
        "\n"
    );
    // The same flags the driver passes (its flag table), plus approvals
    // over stdio as the driver asks for them.
    let claude_entry = cohost_agents::catalog::CLIS
        .iter()
        .find(|e| e.id == "claude")
        .expect("claude is in the catalog");
    let mut mode_args = vec!["-p".to_string()];
    mode_args.extend(claude_entry.flags.stream_session_args());
    mode_args.extend(["--permission-prompt-tool".into(), "stdio".into()]);
    type Make<'a> = Box<dyn Fn() -> tokio::process::Command + 'a>;
    let mut variants: Vec<(String, Make<'_>, Option<&str>)> = vec![(
        "bare claude -p".into(),
        Box::new(|| b.command_for(&claude, ["-p", "hello"])),
        None,
    )];
    let ablate = has_flag("--ablate");
    if ablate {
        // What each part of the session mode costs on its own, added to
        // `claude -p hello` one step at a time.
        let out = ["--output-format", "stream-json", "--verbose"];
        let steps: [(&str, &[&str]); 3] = [
            ("+ stream-json out", &[]),
            (
                "+ stream-json out, partials",
                &["--include-partial-messages"],
            ),
            (
                "+ stream-json out, stdio approvals",
                &["--permission-prompt-tool", "stdio"],
            ),
        ];
        for (label, extra) in steps {
            let (b, claude) = (&b, &claude);
            let mut args = vec!["-p", "hello"];
            args.extend(out);
            args.extend(extra);
            variants.push((
                label.into(),
                Box::new(move || b.command_for(claude, &args)),
                None,
            ));
        }
    }
    variants.push((
        "claude session mode by hand".into(),
        Box::new(|| b.command_for(&claude, &mode_args)),
        Some(session_input),
    ));
    variants.push((
        "cohost run (probe cache)".into(),
        Box::new(|| b.command_for(cohost, ["run", "--agent", "claude", "hello"])),
        None,
    ));
    if let Some(other) = &baseline {
        let b = &b;
        variants.push((
            "baseline cohost run".into(),
            Box::new(move || b.command_for(other, ["run", "--agent", "claude", "hello"])),
            None,
        ));
    }
    if !ablate {
        variants.push((
            "cohost run (no probe cache)".into(),
            Box::new(|| {
                let _ = std::fs::remove_file(&cache);
                b.command_for(cohost, ["run", "--agent", "claude", "hello"])
            }),
            None,
        ));
    }
    // Warm all (page cache, first-run files, cohost's probe cache).
    for (name, make, input) in &variants {
        timed(make(), *input, name).await;
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for i in 0..pairs {
        // Rotate which goes first, so machine load hits all alike.
        let mut round = vec![Duration::ZERO; variants.len()];
        for k in 0..variants.len() {
            let v = (i + k) % variants.len();
            let (name, make, input) = &variants[v];
            round[v] = timed(make(), *input, name).await;
        }
        for (v, t) in round.iter().enumerate() {
            ratios[v].push(t.as_secs_f64() / round[0].as_secs_f64());
            times[v].push(*t);
        }
    }
    // Per-round ratios' quartiles: the spread says how far one run's
    // median can be trusted (this machine's neighbours move it by several %).
    let quartiles = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 4], v[v.len() / 2], v[(3 * v.len()) / 4])
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let intervals: Vec<(f64, f64)> = (0..variants.len())
        .map(|v| bootstrap_ratio_interval(&times[0], &times[v]))
        .collect();
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    println!("startup: {pairs} rounds, claude -p hello vs cohost run --agent claude hello");
    for (v, (name, _, _)) in variants.iter().enumerate() {
        let (q1, q2, q3) = quartiles(ratios[v].clone());
        let (lo, hi) = intervals[v];
        println!(
            "  {name:<30} median {:>7.1} ms  ratio of medians {:.3} (95% CI {lo:.3}-{hi:.3})  per-round ratio median {q2:.3} (quartiles {q1:.3}-{q3:.3})",
            ms(medians[v]),
            ms(medians[v]) / ms(medians[0]),
        );
    }
    println!("  goal: cohost run (probe cache) <= 1.03 of bare claude -p");
}

/// A 95% percentile-bootstrap interval of the ratio of medians
/// `median(variant) / median(base)`, resampling whole rounds (each round's
/// pair stays together, so load that hit both alike cancels as it does in
/// the point estimate). A fixed-seed generator: the same times give the
/// same interval.
fn bootstrap_ratio_interval(base: &[Duration], variant: &[Duration]) -> (f64, f64) {
    const RESAMPLES: usize = 4000;
    let n = base.len();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        // xorshift64*: plenty for picking rounds.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let picks: Vec<usize> = (0..n).map(|_| (next() % n as u64) as usize).collect();
            let b = median(picks.iter().map(|&i| base[i]).collect());
            let v = median(picks.iter().map(|&i| variant[i]).collect());
            v.as_secs_f64() / b.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    (
        ratios[RESAMPLES / 40],
        ratios[RESAMPLES - 1 - RESAMPLES / 40],
    )
}
