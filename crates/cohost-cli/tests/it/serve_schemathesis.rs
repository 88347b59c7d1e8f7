//! schemathesis (pinned, `tests/agents/install-schemathesis.sh`) fuzzes a
//! real `cohost serve` against the OpenAPI document it serves, with every
//! check (status codes and content types documented, responses matching
//! their schemas, schema-valid requests accepted, ...), bounded in examples
//! and time. Any failure fails this test with schemathesis's report.
//! `COHOST_SCHEMATHESIS_EXAMPLES` and `COHOST_SCHEMATHESIS_SEED` override
//! the bounds (a random seed explores more; CI keeps the fixed one).

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::cli_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Kills the server when the test ends, however it ends.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn schemathesis_finds_no_failure_in_cohost_serve() {
    let install = "bash tests/agents/install-schemathesis.sh";
    let Some(st) = cli_support::installed("schemathesis", install) else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cohost"))
        .args(["serve", "--port", "0"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .current_dir(home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut banner = String::new();
    BufReader::new(stdout).read_line(&mut banner).unwrap();
    let base = banner
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {banner:?}"))
        .to_string();
    let token =
        std::fs::read_to_string(home.path().join(".local/state/cohost/run/api-token")).unwrap();
    let examples = std::env::var("COHOST_SCHEMATHESIS_EXAMPLES").unwrap_or_else(|_| "10".into());
    let seed = std::env::var("COHOST_SCHEMATHESIS_SEED").unwrap_or_else(|_| "18".into());
    let started = Instant::now();
    let out = Command::new(&st)
        .args(["run", &format!("{base}/api/openapi.json")])
        .args([
            "--header",
            &format!("Authorization: Bearer {}", token.trim()),
        ])
        .args([
            "--checks",
            "all",
            "--max-examples",
            &examples,
            "--seed",
            &seed,
        ])
        .args(["--max-time", "60", "--request-timeout", "20"])
        .args(["--generation-database", "none", "--no-color"])
        // The two SSE streams never end, so no response to check arrives
        // (serve.rs reads them); everything else is fuzzed.
        .args(["--exclude-path-regex", "/events$", "--workers", "2"])
        .env("HOME", home.path())
        .current_dir(home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis found failures (reproduce: COHOST_SCHEMATHESIS_SEED={seed}):\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("passed"), "{report}");
    eprintln!("schemathesis: {:?}\n{report}", started.elapsed());
    drop(server);
}
