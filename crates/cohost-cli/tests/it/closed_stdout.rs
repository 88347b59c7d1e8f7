//! Output into a pipe whose reader is gone (`cohost completions bash | head`):
//! every command that prints a lot ends cleanly instead of panicking on the
//! write that fails.

use std::process::{Command, Stdio};

/// Runs `cohost ARGS` with stdout the write end of a pipe whose read end is
/// already closed, so its first write fails with `EPIPE`.
fn into_a_closed_pipe(home: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_cohost"))
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn printing_into_a_closed_pipe_is_no_panic() {
    let home = tempfile::tempdir().unwrap();
    for args in [
        &["completions", "bash"][..],
        &["completions", "zsh"],
        &["completions", "fish"],
        &["man"],
        &["--help"],
        &["agents"],
        &["agents", "--json"],
        &["config", "keys"],
        &["doctor", "--json"],
        &["sessions"],
        &["run", "--agent", "mock", "hello"],
    ] {
        let (code, stderr) = into_a_closed_pipe(home.path(), args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
}
