//! `cohost run` with several agents (a room, compare mode) on the mock, as
//! a user runs it: answers grouped under each member, the summary, the
//! exit code, members in their own worktrees inside git and side by side
//! outside it, and the options a room refuses.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `cohost` with a scratch HOME and `git` as the only program on PATH.
fn cohost(home: &Path, cwd: &Path) -> Command {
    let bin = home.join("bin");
    if !bin.join("git").exists() {
        std::fs::create_dir_all(&bin).unwrap();
        let git = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join("git"))
            .find(|p| p.is_file())
            .expect("git on PATH");
        std::os::unix::fs::symlink(git, bin.join("git")).unwrap();
    }
    let mut c = Command::new(env!("CARGO_BIN_EXE_cohost"));
    c.env_clear()
        .env("PATH", &bin)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .current_dir(cwd)
        .stdin(Stdio::null());
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=u", "-c", "user.email=u@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn room_run(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    cohost(home, cwd).arg("run").args(args).output().unwrap()
}

#[test]
fn answers_are_grouped_by_member_with_a_summary_and_worktrees_inside_git() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    git(repo.path(), &["add", "a.txt"]);
    git(repo.path(), &["commit", "-qm", "start"]);
    let out = room_run(
        home.path(),
        repo.path(),
        &["-a", "mock", "-a", "mock", "[mock:say] the same answer"],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The first member to speak is shown first; each answer whole under
    // its name, never interleaved.
    let one = "── mock ──\nthe same answer\n";
    let two = "── mock#2 ──\nthe same answer\n";
    assert!(
        stdout == format!("{one}{two}") || stdout == format!("{two}{one}"),
        "{stdout:?}"
    );
    assert!(stderr.contains("cohost: room r-"), "{stderr}");
    let rows: Vec<&str> = stderr.lines().filter(|l| l.contains("completed")).collect();
    assert_eq!(rows.len(), 2, "{stderr}");
    assert!(rows[0].trim_start().starts_with("mock "), "{stderr}");
    assert!(rows[1].trim_start().starts_with("mock#2 "), "{stderr}");
    assert!(!stderr.contains("share"), "worktrees in git: {stderr}");
    // They changed nothing: their worktrees and branches are gone.
    assert_eq!(git(repo.path(), &["worktree", "list"]).lines().count(), 1);
    assert_eq!(git(repo.path(), &["branch"]).trim(), "* main");
    // Each is a recorded member of one room.
    let listed = cohost(home.path(), repo.path())
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let records: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    let mut members: Vec<&str> = records
        .iter()
        .filter_map(|r| r["room"]["member"].as_str())
        .collect();
    members.sort_unstable();
    assert_eq!(members, ["mock", "mock#2"]);
}

#[test]
fn outside_git_members_share_the_directory_and_say_so() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = room_run(
        home.path(),
        dir.path(),
        &["-a", "mock", "-a", "mock", "--json", "[mock:text] hi"],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("the agents share"), "{stderr}");
    assert!(stderr.contains("not in a git repository"), "{stderr}");
    assert!(
        !stderr.contains("not recorded"),
        "checkpoints work for both: {stderr}"
    );
    let agents: std::collections::BTreeSet<String> = text(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["agent"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(agents.into_iter().collect::<Vec<_>>(), ["mock", "mock#2"]);
}

#[test]
fn failing_members_set_the_exit_code_and_an_unknown_one_is_named() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let alone = cohost(home.path(), dir.path())
        .args(["run", "-a", "mock", "[mock:error:RATE_LIMITED] hi"])
        .output()
        .unwrap();
    let out = room_run(
        home.path(),
        dir.path(),
        &["-a", "mock", "-a", "mock", "[mock:error:RATE_LIMITED] hi"],
    );
    // The room's exit code is what one such member's run gives.
    assert_ne!(alone.status.code(), Some(0));
    assert_eq!(
        out.status.code(),
        alone.status.code(),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        text(&out.stderr).matches(" error ").count(),
        2,
        "{}",
        text(&out.stderr)
    );
    let out = room_run(home.path(), dir.path(), &["-a", "mock", "-a", "nope", "hi"]);
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr.contains("nope: unknown agent"), "{stderr}");
}

#[test]
fn options_a_room_does_not_take_are_usage_errors() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = room_run(
        home.path(),
        dir.path(),
        &["-a", "mock", "-a", "mock", "--resume", "s-1", "hi"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--resume takes one agent"));
    let nine: Vec<&str> = std::iter::repeat_n(["-a", "mock"], 9).flatten().collect();
    let out = room_run(
        home.path(),
        dir.path(),
        &[nine.as_slice(), &["hi"]].concat(),
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("at most 8"),
        "{}",
        text(&out.stderr)
    );
    let out = cohost(home.path(), dir.path())
        .args(["share", "-a", "mock", "-a", "mock"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("runs one agent"),
        "{}",
        text(&out.stderr)
    );
}
