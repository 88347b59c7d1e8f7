//! What an agent changed, with the real pinned Claude Code and Codex CLIs
//! against the fake model server (issue 32): a tool call that writes a
//! file yields a `file_changes` event with its diff, `cohost diff` shows
//! it, `cohost undo` takes it back, and the user's own git state (status,
//! stash, branches, HEAD, config, the index's bytes, every ref outside
//! `refs/cohost/`) is what it was. Skips loudly when a CLI is missing,
//! unless `CI` is set.

use std::path::Path;
use std::process::Command;

use cohost_testbench::{require_cli, AgentCli, Bench};

/// `git ARGS` in `dir` as the user, with the bench's scratch HOME.
pub(crate) fn git(home: &Path, dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=u", "-c", "user.email=u@example.invalid"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        // `git status` would otherwise refresh the index it reads.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Everything of the user's repository besides the work tree.
pub(crate) fn user_state(home: &Path, dir: &Path) -> String {
    let index = std::fs::read(dir.join(".git/index")).unwrap();
    let refs = git(
        home,
        dir,
        &["for-each-ref", "--format=%(refname) %(objectname)"],
    );
    let refs: Vec<&str> = refs
        .lines()
        .filter(|l| !l.starts_with("refs/cohost/"))
        .collect();
    format!(
        "status:\n{}\nstash:\n{}\nbranches:\n{}\nhead: {}\nconfig:\n{}\nindex: {:?}\nrefs:\n{}",
        git(
            home,
            dir,
            &[
                "status",
                "--porcelain=v2",
                "--branch",
                "--untracked-files=all"
            ]
        ),
        git(home, dir, &["stash", "list"]),
        git(home, dir, &["branch", "-a", "-v"]),
        git(home, dir, &["rev-parse", "HEAD"]),
        std::fs::read_to_string(dir.join(".git/config")).unwrap(),
        index,
        refs.join("\n"),
    )
}

pub(crate) async fn cohost(b: &Bench, args: &[&str]) -> (i32, String, String) {
    let cmd = b.command_for(env!("CARGO_BIN_EXE_cohost"), args).output();
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd)
        .await
        .expect("cohost finished")
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(crate) async fn ok(b: &Bench, args: &[&str]) -> String {
    let (code, out, err) = cohost(b, args).await;
    assert_eq!(code, 0, "cohost {args:?}\nstdout:\n{out}\nstderr:\n{err}");
    out
}

/// The user's repository in `dir`: branch `main`, one commit of README.md.
pub(crate) fn users_repo(home: &Path, dir: &Path) {
    git(home, dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README.md"), "# the user's project\n").unwrap();
    git(home, dir, &["add", "README.md"]);
    git(home, dir, &["commit", "-qm", "start"]);
}

/// A stash entry and an untracked file of the user's, to be kept.
pub(crate) fn stash_and_untracked(home: &Path, dir: &Path) {
    std::fs::write(dir.join("README.md"), "# stashed edit\n").unwrap();
    git(home, dir, &["stash", "-q"]);
    std::fs::write(dir.join("notes.txt"), "untracked, the user's\n").unwrap();
}

/// [`user_state`] without the sessions' own `cohost/s-...` branches (a
/// worktree's branch is the one thing it adds), spacing normalized.
pub(crate) fn without_session_branches(state: &str) -> String {
    state
        .lines()
        .filter(|l| !l.contains("cohost/s-"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The whole story on one agent CLI.
async fn write_diff_undo(cli: AgentCli, agent: &str) {
    if require_cli(cli).is_none() {
        return;
    }
    let b = Bench::start(cli).await.unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    // The user's repository: a commit, an untracked file, a stash entry.
    users_repo(&home, &dir);
    stash_and_untracked(&home, &dir);
    let before = user_state(&home, &dir);

    let run = [
        "run",
        "--agent",
        agent,
        "--approve",
        "all",
        "--json",
        "[[scenario:write]] create the file",
    ];
    let events = ok(&b, &run).await;
    let changes: Vec<serde_json::Value> = events
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "file_changes")
        .collect();
    assert_eq!(changes.len(), 1, "one file_changes event:\n{events}");
    let file = &changes[0]["files"][0];
    assert_eq!(file["path"], "cohost_tool_output.txt", "{events}");
    assert_eq!(file["status"], "added");
    assert!(
        file["diff"].as_str().unwrap().contains("+cohost-tool-ok"),
        "{file}"
    );
    let types: Vec<String> = events
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|e| e["type"].as_str().unwrap_or_default().to_owned())
        .collect();
    let at = types.iter().position(|t| t == "file_changes").unwrap();
    assert_eq!(
        types.get(at + 1).map(String::as_str),
        Some("stream_end"),
        "{types:?}"
    );
    assert!(dir.join("cohost_tool_output.txt").exists());

    let shown = ok(&b, &["diff"]).await;
    assert!(
        shown.contains("A cohost_tool_output.txt (+1 -0)"),
        "{shown}"
    );
    assert!(shown.contains("+cohost-tool-ok"), "{shown}");
    let json: serde_json::Value = serde_json::from_str(&ok(&b, &["diff", "--json"]).await).unwrap();
    assert_eq!(json["turns"][0]["turn"], 1, "{json}");

    let undone = ok(&b, &["undo"]).await;
    assert!(
        undone.contains("removed  cohost_tool_output.txt"),
        "{undone}"
    );
    assert!(!dir.join("cohost_tool_output.txt").exists());
    assert_eq!(
        user_state(&home, &dir),
        before,
        "the user's git state is untouched"
    );
    let ours = git(
        &home,
        &dir,
        &["for-each-ref", "--format=%(refname)", "refs/cohost/"],
    );
    assert!(
        ours.lines().all(|r| r.starts_with("refs/cohost/sessions/")),
        "{ours}"
    );

    // Nothing left to undo: a clear error with a fix, exit 1.
    let (code, _, err) = cohost(&b, &["undo"]).await;
    assert_ne!(code, 0);
    assert!(err.contains("no recorded turns"), "{err}");
    assert!(err.contains("cohost diff"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_writes_a_file_and_undo_takes_it_back() {
    write_diff_undo(AgentCli::Claude, "claude").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_writes_a_file_and_undo_takes_it_back() {
    write_diff_undo(AgentCli::Codex, "codex").await;
}

/// `--worktree`: the agent writes in a worktree of its own; the user's
/// checkout has nothing of it until `cohost worktree apply`, then has it.
async fn worktree_then_apply(cli: AgentCli, agent: &str) {
    if require_cli(cli).is_none() {
        return;
    }
    let b = Bench::start(cli).await.unwrap();
    let (home, dir) = (b.home().to_path_buf(), b.cwd().to_path_buf());
    users_repo(&home, &dir);
    std::fs::write(dir.join("README.md"), "# an uncommitted edit\n").unwrap();
    let before = user_state(&home, &dir);

    let run = [
        "run",
        "--worktree",
        "--agent",
        agent,
        "--approve",
        "all",
        "[[scenario:write]] create the file",
    ];
    let (code, _, err) = cohost(&b, &run).await;
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("cohost worktree apply"), "{err}");
    assert!(
        !dir.join("cohost_tool_output.txt").exists(),
        "the checkout has nothing yet"
    );
    assert_eq!(
        without_session_branches(&user_state(&home, &dir)),
        without_session_branches(&before),
        "only the branch is new"
    );

    let listed = ok(&b, &["worktree", "list"]).await;
    assert!(
        listed.contains("1 file(s) changed, not brought in"),
        "{listed}"
    );
    let (code, _, err) = cohost(&b, &["worktree", "discard"]).await;
    assert_ne!(code, 0, "changes not brought in keep the worktree");
    assert!(err.contains("cohost_tool_output.txt"), "{err}");

    let applied = ok(&b, &["worktree", "apply"]).await;
    assert!(applied.contains("applied 1 file(s)"), "{applied}");
    assert_eq!(
        std::fs::read_to_string(dir.join("cohost_tool_output.txt"))
            .unwrap()
            .trim(),
        "cohost-tool-ok"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("README.md")).unwrap(),
        "# an uncommitted edit\n",
        "the user's own edit stays"
    );
    ok(&b, &["worktree", "discard"]).await;
    let branches = git(&home, &dir, &["branch", "--list", "cohost/*"]);
    assert_eq!(branches, "", "the branch went with the worktree");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_in_a_worktree_leaves_the_checkout_until_apply() {
    worktree_then_apply(AgentCli::Claude, "claude").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_in_a_worktree_leaves_the_checkout_until_apply() {
    worktree_then_apply(AgentCli::Codex, "codex").await;
}

/// No `git` on PATH: the session runs, and its first turn says that
/// checkpoints are off and how to get them.
#[test]
fn without_git_the_turn_runs_and_says_checkpoints_are_off() {
    let home = tempfile::tempdir().unwrap();
    let out = crate::cli_support::cohost_in(home.path(), "/nonexistent")
        .args(["run", "--agent", "mock", "--json", "hello"])
        .output()
        .unwrap();
    let stdout = crate::cli_support::ok(&out);
    let status: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "status")
        .collect();
    assert_eq!(status.len(), 1, "{stdout}");
    let message = status[0]["message"].as_str().unwrap();
    assert!(message.contains("git is not installed"), "{message}");
    assert!(message.contains("install git"), "{message}");
    assert!(
        stdout.contains(r#""type":"stream_end","reason":"completed""#),
        "the turn ran: {stdout}"
    );
}
