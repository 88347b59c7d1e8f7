//! The cost of a checkpoint per turn on a large repository, as ratios
//! against `git status --porcelain` and `git diff` on the same tree in the
//! same run (issue 32's goal: the snapshot at most 1.5x `git status`, so it
//! can run every turn).
//!
//! A repository of `--files` files and `--mb` megabytes is generated in a
//! temp dir and committed (clone-free); then, for 1, 100 and 10,000 files
//! changed, each round: change the files, time `git status --porcelain`,
//! `git diff`, the snapshot before a turn (which hashes the changed files),
//! change them again, and time the end of a turn (snapshot and bounded
//! diff). Medians over `--rounds` rounds.
//!
//! `cargo bench -p cohost-git --bench checkpoint -- [--files N] [--mb M] [--rounds R]`

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    reason = "a bench program prints its figures and stops on a broken setup"
)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cohost_core::Checkpoints;
use cohost_git::SessionCheckpoints;

struct Args {
    files: usize,
    mb: usize,
    rounds: usize,
}

fn args() -> Args {
    let mut a = Args {
        files: 50_000,
        mb: 500,
        rounds: 5,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let value = || argv.get(i + 1).and_then(|v| v.parse().ok());
        match argv[i].as_str() {
            "--files" => a.files = value().expect("--files N"),
            "--mb" => a.mb = value().expect("--mb M"),
            "--rounds" => a.rounds = value().expect("--rounds R"),
            _ => {}
        }
        i += 1;
    }
    a
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new("git")
        .args(["-c", "user.name=b", "-c", "user.email=b@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn path_of(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!(
        "d{:03}/s{:02}/f{i:06}.txt",
        i / 1000,
        (i / 100) % 10
    ))
}

/// Text a compressor cannot shrink to nothing: numbered lines of a cheap
/// pseudo-random sequence.
fn content(i: usize, bytes: usize, salt: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 64);
    let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt;
    let mut line = 0;
    while out.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let _ = writeln!(out, "{line:05} {x:016x} {:016x}", x.rotate_left(23));
        line += 1;
    }
    out
}

fn generate(dir: &Path, home: &Path, a: &Args) {
    let per_file = a.mb * 1024 * 1024 / a.files.max(1);
    let start = Instant::now();
    for i in 0..a.files {
        let p = path_of(dir, i);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content(i, per_file, 0)).unwrap();
    }
    git(dir, home, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    git(dir, home, &["add", "-A"]);
    git(dir, home, &["commit", "-qm", "generated"]);
    println!(
        "generated {} files, {} MB, committed in {:.1} s",
        a.files,
        a.mb,
        start.elapsed().as_secs_f64()
    );
}

/// Append a line to the first `n` files (spread over the tree).
fn change(dir: &Path, files: usize, n: usize, round: u64) {
    let step = (files / n.max(1)).max(1);
    for k in 0..n.min(files) {
        let p = path_of(dir, k * step);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        writeln!(f, "changed in round {round}").unwrap();
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let a = args();
    let tmp = tempfile::tempdir().unwrap();
    let (dir, home, state) = (
        tmp.path().join("repo"),
        tmp.path().join("home"),
        tmp.path().join("state"),
    );
    for d in [&dir, &home, &state] {
        std::fs::create_dir_all(d).unwrap();
    }
    generate(&dir, &home, &a);
    // A warm user index, as on a machine where `git status` has run.
    git(&dir, &home, &["status", "--porcelain"]);
    let cp = SessionCheckpoints::open(&dir, &state, "s-bench")
        .await
        .unwrap();
    let first = Instant::now();
    let mut mark = cp.before_turn().await.unwrap().unwrap();
    println!(
        "first snapshot (private index seeded from yours): {:.1} ms",
        ms(first.elapsed())
    );

    println!(
        "\n{:>7} | {:>10} {:>10} | {:>10} {:>8} | {:>12} {:>8}",
        "changed", "status ms", "diff ms", "snapshot", "/status", "end of turn", "/(st+df)"
    );
    let mut round = 0u64;
    for n in [1usize, 100, 10_000] {
        let (mut st, mut df, mut snap, mut end) = (vec![], vec![], vec![], vec![]);
        for _ in 0..a.rounds {
            round += 1;
            change(&dir, a.files, n, round);
            st.push(git(&dir, &home, &["status", "--porcelain"]));
            df.push(git(&dir, &home, &["diff", "--no-color"]));
            // The end of the turn before: the tree with these changes.
            let t = Instant::now();
            let changes = cp.after_turn(mark).await.unwrap();
            end.push(t.elapsed());
            assert!(!changes.is_empty());
            // The start of the next: nothing new to hash.
            round += 1;
            change(&dir, a.files, n, round);
            let t = Instant::now();
            mark = cp.before_turn().await.unwrap().unwrap();
            snap.push(t.elapsed());
        }
        let (st, df, snap, end) = (median(st), median(df), median(snap), median(end));
        println!(
            "{n:>7} | {:>10.1} {:>10.1} | {:>10.1} {:>7.2}x | {:>12.1} {:>7.2}x",
            ms(st),
            ms(df),
            ms(snap),
            ms(snap) / ms(st),
            ms(end),
            ms(end) / (ms(st) + ms(df)),
        );
    }
}
