//! `cohost run` with several agents (a room, compare mode) on the mock, as
//! a user runs it: answers grouped under each member, the summary, the
//! exit code, members in their own worktrees inside git and side by side
//! outside it, and the options a room refuses.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `cohost` with a scratch HOME and `git` as the only program on PATH.
pub(crate) fn cohost(home: &Path, cwd: &Path) -> Command {
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

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
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
    // And the human list says so under each.
    let listed = cohost(home.path(), repo.path())
        .arg("sessions")
        .output()
        .unwrap();
    let listed = text(&listed.stdout);
    let room = records[0]["room"]["id"].as_str().unwrap();
    for member in ["mock", "mock#2"] {
        assert!(
            listed.contains(&format!("member {member} of room {room}")),
            "{listed}"
        );
    }
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
}

use crate::share_join_cli::{lines_of, Reaper};

const STEP: std::time::Duration = std::time::Duration::from_secs(30);

/// A git repository with one commit (`a.txt`) on `main`.
pub(crate) fn committed_repo() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    git(repo.path(), &["add", "a.txt"]);
    git(repo.path(), &["commit", "-qm", "start"]);
    repo
}

/// `cohost share --approve none --json ARGS` in `repo`: its console on
/// stdin, its notices on stdout, its errors on stderr (all piped).
pub(crate) fn share_in(home: &Path, repo: &Path, args: &[&str]) -> Reaper {
    Reaper(
        cohost(home, repo)
            .arg("share")
            .args(args)
            .args(["--approve", "none", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// `/quit` on the host's console: its exit status, within [`STEP`].
pub(crate) fn quit(
    host: &mut Reaper,
    mut stdin: std::process::ChildStdin,
) -> std::process::ExitStatus {
    use std::io::Write;
    writeln!(stdin, "/quit").unwrap();
    drop(stdin);
    let deadline = std::time::Instant::now() + STEP;
    loop {
        if let Some(s) = host.0.try_wait().unwrap() {
            return s;
        }
        assert!(std::time::Instant::now() < deadline, "share did not quit");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_shared_room_runs_a_co_drivers_suggestion_on_the_member_it_names() {
    use std::io::Write;
    let home = tempfile::tempdir().unwrap();
    let repo = committed_repo();
    let mut host = share_in(
        home.path(),
        repo.path(),
        &["-a", "mock", "-a", "mock", "--suggestions", "accept"],
    );
    let host_out = lines_of(host.0.stdout.take().unwrap());
    let host_err = lines_of(host.0.stderr.take().unwrap());
    let first: serde_json::Value =
        serde_json::from_str(&host_out.recv_timeout(STEP).expect("the invites")).unwrap();
    assert_eq!(first["notice"], "invites", "{first}");
    let co = first["co_driver"].as_str().unwrap().to_string();

    // A co-driver's `@mock#2 TEXT`: accepted by the room's policy, run on
    // the second member only, every frame of it naming that member.
    let join = cohost(home.path(), home.path())
        .args(["join", "--json", "--until-end", "--name", "ana"])
        .env("COHOST_INVITE", &co)
        .args(["--suggest", "@mock#2 [mock:say] for the second"])
        .output()
        .unwrap();
    assert_eq!(join.status.code(), Some(0), "{}", text(&join.stderr));
    let frames: Vec<serde_json::Value> = text(&join.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let turn: Vec<&serde_json::Value> = frames
        .iter()
        .filter(|f| {
            f["frame"]
                .as_str()
                .is_some_and(|n| n.starts_with("ai.execution") || n.starts_with("ai.stream"))
        })
        .collect();
    assert_eq!(turn[0]["frame"], "ai.execution.started", "{frames:?}");
    assert_eq!(turn[0]["payload"]["agent"], "mock#2");
    assert_eq!(turn[0]["payload"]["text"], "[mock:say] for the second");
    for f in &turn[1..] {
        assert_eq!(f["payload"]["agent"], "mock#2", "{f}");
    }
    let said: String = turn
        .iter()
        .filter(|f| f["payload"]["type"] == "stream_chunk")
        .map(|f| f["payload"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(said, "for the second");

    // The host's console: the member, and `/members` naming both.
    let mut stdin = host.0.stdin.take().unwrap();
    writeln!(stdin, "/members").unwrap();
    let listed = loop {
        let line = host_out.recv_timeout(STEP).expect("the member list");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["notice"] == "room" && v["message"].as_str().unwrap_or("").starts_with("members") {
            break v["message"].as_str().unwrap().to_string();
        }
    };
    assert!(
        listed.contains("* mock (mock) idle") && listed.contains("mock#2 (mock) idle"),
        "{listed}"
    );
    // Each member works in a worktree of its own while the room is open.
    let worktrees = git(repo.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 3, "{worktrees}");
    let status = quit(&mut host, stdin);
    let err: Vec<String> = host_err.try_iter().collect();
    assert_eq!(status.code(), Some(0), "{err:?}");
    // The members changed nothing: their worktrees went with the room; the
    // user's checkout is untouched.
    let worktrees = git(repo.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(git(repo.path(), &["status", "--porcelain"]), "");
    assert_eq!(
        git(repo.path(), &["branch", "--show-current"]).trim(),
        "main"
    );
}

#[test]
fn a_member_whose_output_fell_behind_fails_the_run_and_is_named() {
    use std::io::Read;
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = Reaper(
        cohost(home.path(), dir.path())
            .args([
                "run",
                "-a",
                "mock",
                "-a",
                "mock",
                "--json",
                "--no-checkpoints",
            ])
            .arg("[mock:chunks:80000]")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Nobody reads for a while: the writer blocks on the full pipe while
    // the members stream on, past what a reader may fall behind.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let mut stdout = child.0.stdout.take().unwrap();
    let err = lines_of(child.0.stderr.take().unwrap());
    let mut out = Vec::new();
    stdout.read_to_end(&mut out).unwrap();
    let status = child.0.wait().unwrap();
    let err: Vec<String> = err.iter().collect();
    let said = err.join("\n");
    assert!(said.contains("were not shown"), "{said}");
    assert_eq!(status.code(), Some(1), "{said}");
    // What was shown is whole JSON lines, each naming its member.
    for line in text(&out).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["agent"] == "mock" || v["agent"] == "mock#2", "{line}");
    }
}
