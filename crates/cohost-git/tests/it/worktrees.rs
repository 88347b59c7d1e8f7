//! A session's own worktree: made from HEAD plus the user's uncommitted
//! changes, the user's checkout untouched until its changes are brought in
//! (applied or merged), never discarded with changes not brought in.

use cohost_git::worktree;
use cohost_git::GitError;

use crate::support::Scratch;

#[tokio::test]
async fn a_worktree_starts_from_head_and_the_users_uncommitted_changes() {
    let s = Scratch::repo();
    s.write("src/lib.rs", "uncommitted edit\n");
    s.write("notes.txt", "untracked\n");
    let state = s.user_state();
    let wt = worktree::create(&s.work, &s.state, "s-wt").await.unwrap();
    assert!(wt.path.starts_with(&s.state), "{}", wt.path.display());
    assert_eq!(wt.branch, "cohost/s-wt");
    assert_eq!(
        std::fs::read_to_string(wt.path.join("src/lib.rs")).unwrap(),
        "uncommitted edit\n"
    );
    assert_eq!(
        std::fs::read_to_string(wt.path.join("notes.txt")).unwrap(),
        "untracked\n"
    );
    // The agent works there; the user's checkout does not move.
    std::fs::write(wt.path.join("README.md"), "# changed in the worktree\n").unwrap();
    std::fs::write(wt.path.join("new.txt"), "new\n").unwrap();
    // The branch is new (and only that); everything else is as it was.
    assert!(s.user_state().contains("refs/heads/cohost/s-wt"));
    assert_eq!(
        without_branch(&s.user_state(), "cohost/s-wt"),
        without_branch(&state, "cohost/s-wt"),
        "the user's state, besides the new branch"
    );
    assert_eq!(s.read("README.md"), "# demo\n");
    let st = worktree::status(&wt, &s.state, "s-wt").await.unwrap();
    assert_eq!(st.files, ["README.md", "new.txt"]);

    // Brought in as uncommitted changes: the index stays the user's.
    let index_before = std::fs::read(s.work.join(".git/index")).unwrap();
    let applied = worktree::apply(&wt, &s.state, "s-wt").await.unwrap();
    assert_eq!(applied, ["README.md", "new.txt"]);
    assert_eq!(s.read("README.md"), "# changed in the worktree\n");
    assert_eq!(s.read("new.txt"), "new\n");
    assert_eq!(
        s.read("src/lib.rs"),
        "uncommitted edit\n",
        "the user's edit stays"
    );
    assert_eq!(
        std::fs::read(s.work.join(".git/index")).unwrap(),
        index_before
    );

    // Brought in: discarding needs no force, also a second later, when a
    // snapshot of the same files is another commit.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    worktree::discard(&wt, &s.state, "s-wt", false)
        .await
        .unwrap();
    assert!(!wt.path.exists());
    assert!(!s
        .git(&["branch", "--list", "cohost/s-wt"])
        .contains("cohost/"));
}

/// `state` without the lines naming `branch`, spaces collapsed (`git
/// branch -v` pads its columns to the longest name).
fn without_branch(state: &str, branch: &str) -> String {
    state
        .lines()
        .filter(|l| !l.contains(branch))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn changes_not_brought_in_keep_the_worktree_unless_forced() {
    let s = Scratch::repo();
    let wt = worktree::create(&s.work, &s.state, "s-keep").await.unwrap();
    std::fs::write(wt.path.join("work.txt"), "the agent's\n").unwrap();
    let err = worktree::discard(&wt, &s.state, "s-keep", false)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, GitError::NotBroughtIn { files } if files == &["work.txt"]),
        "{err}"
    );
    assert!(wt.path.join("work.txt").exists(), "nothing was deleted");
    let dropped = worktree::discard(&wt, &s.state, "s-keep", true)
        .await
        .unwrap();
    assert_eq!(dropped, ["work.txt"]);
    assert!(!wt.path.exists());
    let kept = s.git(&["show", "refs/cohost/sessions/s-keep/discarded:work.txt"]);
    assert_eq!(kept, "the agent's\n", "kept under refs/cohost/");
}

#[tokio::test]
async fn a_change_that_does_not_apply_is_refused_and_nothing_is_written() {
    let s = Scratch::repo();
    let wt = worktree::create(&s.work, &s.state, "s-clash")
        .await
        .unwrap();
    std::fs::write(wt.path.join("README.md"), "# the agent's version\n").unwrap();
    s.write("README.md", "# the user's own version since\n");
    let err = worktree::apply(&wt, &s.state, "s-clash").await.unwrap_err();
    assert!(
        matches!(&err, GitError::WontApply { files, .. } if files == &["README.md"]),
        "{err}"
    );
    assert_eq!(s.read("README.md"), "# the user's own version since\n");
}

#[tokio::test]
async fn merge_commits_on_the_branch_and_merges_it() {
    let s = Scratch::repo();
    let wt = worktree::create(&s.work, &s.state, "s-merge")
        .await
        .unwrap();
    std::fs::write(wt.path.join("feature.txt"), "done\n").unwrap();
    let merged = worktree::merge(&wt, &s.state, "s-merge").await.unwrap();
    assert_eq!(merged, ["feature.txt"]);
    assert_eq!(s.read("feature.txt"), "done\n");
    let log = s.git(&["log", "--format=%s", "-3"]);
    assert!(log.contains("cohost session s-merge"), "{log}");
    assert_eq!(s.git(&["status", "--porcelain"]), "");
    worktree::discard(&wt, &s.state, "s-merge", false)
        .await
        .unwrap();
}

#[tokio::test]
async fn outside_git_and_before_the_first_commit_are_named() {
    let s = Scratch::plain();
    let err = worktree::possible(&s.work).await.unwrap_err();
    assert!(matches!(err, GitError::NotARepository(_)), "{err}");
    let err = worktree::create(&s.work, &s.state, "s-x")
        .await
        .unwrap_err();
    assert!(matches!(err, GitError::NotARepository(_)), "{err}");
    s.git(&["init", "-q"]);
    let err = worktree::possible(&s.work).await.unwrap_err();
    assert!(matches!(err, GitError::NoCommit(_)), "{err}");
    let err = worktree::create(&s.work, &s.state, "s-x")
        .await
        .unwrap_err();
    assert!(matches!(err, GitError::NoCommit(_)), "{err}");
    let gone = s.work.join("gone");
    assert!(matches!(
        worktree::possible(&gone).await,
        Err(GitError::CwdGone(_))
    ));
}

#[tokio::test]
async fn a_repository_with_a_commit_can_have_worktrees_and_asking_writes_nothing() {
    let s = Scratch::repo();
    let before = s.user_state();
    worktree::possible(&s.path("src")).await.unwrap();
    assert_eq!(s.user_state(), before);
    assert!(!s.state.join("checkpoints").exists(), "asking made a store");
}
