//! A session's turns in a git repository: what each changed, the user's
//! own state untouched, undo and its refusals.

use cohost_core::{ChangeStatus, Checkpoints};
use cohost_git::{recorded_turns, turn_patch, undo, DiffBounds, GitError, SessionCheckpoints};

use crate::support::Scratch;

async fn open(s: &Scratch) -> SessionCheckpoints {
    SessionCheckpoints::open(&s.work, &s.state, "s-test")
        .await
        .unwrap()
}

#[tokio::test]
async fn a_turn_that_writes_files_says_what_changed_and_touches_nothing_of_the_users() {
    let s = Scratch::repo();
    s.write("notes.txt", "the user's own untracked file\n");
    s.git(&["stash", "list"]);
    let before_state = s.user_state();
    let cp = open(&s).await;

    let mark = cp.before_turn().await.unwrap().unwrap();
    assert_eq!(mark.turn, 1);
    s.write("src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    s.write("src/new.rs", "pub fn two() {}\n");
    std::fs::remove_file(s.path("README.md")).unwrap();
    let changes = cp.after_turn(mark).await.unwrap();

    let summary: Vec<(String, ChangeStatus, u64, u64)> = changes
        .files
        .iter()
        .map(|f| (f.path.clone(), f.status, f.added, f.removed))
        .collect();
    assert_eq!(
        summary,
        [
            ("README.md".into(), ChangeStatus::Deleted, 0, 1),
            ("src/lib.rs".into(), ChangeStatus::Modified, 1, 1),
            ("src/new.rs".into(), ChangeStatus::Added, 1, 0),
        ]
    );
    let lib = &changes.files[1];
    let diff = lib.diff.as_deref().unwrap();
    assert!(diff.contains("-    1\n+    2\n"), "{diff}");
    assert_eq!(lib.size, 30);
    assert_eq!(lib.new_mode.as_deref(), Some("100644"));

    // The user's status now shows the turn's edits, but nothing else of
    // theirs moved: compare with the edits put back by hand.
    s.write("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    std::fs::remove_file(s.path("src/new.rs")).unwrap();
    s.write("README.md", "# demo\n");
    assert_eq!(s.user_state(), before_state);
    let refs = s.git(&["for-each-ref", "--format=%(refname)", "refs/cohost/"]);
    assert_eq!(
        refs,
        "refs/cohost/sessions/s-test/1/after\nrefs/cohost/sessions/s-test/1/before\n"
    );
}

#[tokio::test]
async fn a_turn_that_changed_nothing_is_empty_and_numbering_goes_on_after_resume() {
    let s = Scratch::repo();
    let cp = open(&s).await;
    let mark = cp.before_turn().await.unwrap().unwrap();
    assert!(cp.after_turn(mark).await.unwrap().is_empty());
    drop(cp);
    let again = open(&s).await;
    assert_eq!(again.before_turn().await.unwrap().unwrap().turn, 2);
}

#[tokio::test]
async fn renames_modes_and_binary_files_are_named_as_such() {
    let s = Scratch::repo();
    s.write("run.sh", "echo hi\n");
    s.write("data.bin", "x");
    let cp = open(&s).await;
    let mark = cp.before_turn().await.unwrap().unwrap();
    std::fs::create_dir_all(s.path("docs")).unwrap();
    std::fs::rename(s.path("README.md"), s.path("docs/README.md")).unwrap();
    set_exec(&s.path("run.sh"));
    crate::support::write_bytes(&s.path("data.bin"), b"\x00\x01\x02binary");
    let changes = cp.after_turn(mark).await.unwrap();
    let by_path = |p: &str| changes.files.iter().find(|f| f.path == p).unwrap();
    let moved = by_path("docs/README.md");
    assert_eq!(moved.status, ChangeStatus::Renamed);
    assert_eq!(moved.old_path.as_deref(), Some("README.md"));
    let run = by_path("run.sh");
    assert_eq!(run.status, ChangeStatus::ModeChanged);
    assert_eq!(run.new_mode.as_deref(), Some("100755"));
    let bin = by_path("data.bin");
    assert!(bin.binary);
    assert_eq!(bin.size, 9);
    assert!(bin.hash.as_deref().is_some_and(|h| h.len() == 40));
}

#[tokio::test]
async fn diffs_past_the_bound_keep_their_counts_and_the_whole_diff_is_still_there() {
    let s = Scratch::repo();
    let cp = open(&s).await.with_bounds(DiffBounds {
        per_file: 200,
        total: 300,
    });
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("a.txt", "small\n");
    s.write("b.txt", &"long line of text\n".repeat(50));
    s.write("c.txt", "small too\n");
    s.write("d.txt", "and one more small file, past the total\n");
    let changes = cp.after_turn(mark).await.unwrap();
    let got: Vec<(&str, bool, bool, u64)> = changes
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.diff.is_some(), f.diff_truncated, f.added))
        .collect();
    assert_eq!(
        got,
        [
            ("a.txt", true, false, 1),
            ("b.txt", false, true, 50),
            ("c.txt", true, false, 1),
            ("d.txt", false, true, 1),
        ]
    );
    let whole = turn_patch(cp.store(), "s-test", 1).await.unwrap();
    assert_eq!(whole.matches("+long line of text").count(), 50);
}

#[tokio::test]
async fn undo_puts_the_last_turn_back_and_refuses_over_the_users_edits() {
    let s = Scratch::repo();
    let cp = open(&s).await;
    let one = cp.before_turn().await.unwrap().unwrap();
    s.write("src/lib.rs", "turn one\n");
    cp.after_turn(one).await.unwrap();
    let two = cp.before_turn().await.unwrap().unwrap();
    s.write("src/lib.rs", "turn two\n");
    s.write("added.txt", "made by turn two\n");
    cp.after_turn(two).await.unwrap();

    // The user edits a file turn two made: undo refuses, naming it.
    s.write("added.txt", "the user's edit\n");
    let err = undo(cp.store(), "s-test", None, false).await.unwrap_err();
    let GitError::ChangedSince { files } = &err else {
        panic!("{err}");
    };
    assert_eq!(files, &["added.txt"]);
    assert_eq!(s.read("src/lib.rs"), "turn two\n", "nothing was written");

    // Forced: turn two is undone, the user's version kept under a ref.
    let report = undo(cp.store(), "s-test", None, true).await.unwrap();
    assert_eq!(report.turns, [2]);
    assert_eq!(report.removed, ["added.txt"]);
    assert_eq!(report.restored, ["src/lib.rs"]);
    assert_eq!(s.read("src/lib.rs"), "turn one\n");
    assert!(!s.path("added.txt").exists());
    let kept = s.git(&["show", &format!("{}:added.txt", report.saved_as)]);
    assert_eq!(kept, "the user's edit\n");

    // The next undo takes turn one back to the commit's content.
    let turns = recorded_turns(cp.store(), "s-test").await.unwrap();
    assert_eq!(turns.iter().map(|t| t.turn).collect::<Vec<_>>(), [1]);
    undo(cp.store(), "s-test", None, false).await.unwrap();
    assert_eq!(s.read("src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n");
    assert_eq!(s.git(&["status", "--porcelain"]), "");
    let err = undo(cp.store(), "s-test", None, false).await.unwrap_err();
    assert!(matches!(err, GitError::NoTurns(_)), "{err}");
}

#[tokio::test]
async fn undo_from_a_turn_takes_every_later_one_and_an_unknown_turn_is_named() {
    let s = Scratch::repo();
    let cp = open(&s).await;
    for n in 1..=3 {
        let mark = cp.before_turn().await.unwrap().unwrap();
        s.write(&format!("t{n}.txt"), "x\n");
        s.write("src/lib.rs", &format!("turn {n}\n"));
        cp.after_turn(mark).await.unwrap();
    }
    let err = undo(cp.store(), "s-test", Some(7), false)
        .await
        .unwrap_err();
    assert!(matches!(err, GitError::NoSuchTurn { turn: 7, .. }), "{err}");
    let report = undo(cp.store(), "s-test", Some(2), false).await.unwrap();
    assert_eq!(report.turns, [2, 3]);
    assert_eq!(s.read("src/lib.rs"), "turn 1\n");
    assert!(s.path("t1.txt").exists());
    assert!(!s.path("t2.txt").exists() && !s.path("t3.txt").exists());
}

#[tokio::test]
async fn outside_git_the_store_is_cohosts_own() {
    let s = Scratch::plain();
    s.write("plan.md", "one\n");
    let cp = open(&s).await;
    assert_eq!(cp.store().kind(), cohost_git::StoreKind::Standalone);
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("plan.md", "two\n");
    let changes = cp.after_turn(mark).await.unwrap();
    assert_eq!(changes.files[0].path, "plan.md");
    assert!(
        !s.path(".git").exists(),
        "no repository is made in the user's dir"
    );
    undo(cp.store(), "s-test", None, false).await.unwrap();
    assert_eq!(s.read("plan.md"), "one\n");
}

#[cfg(unix)]
fn set_exec(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}
