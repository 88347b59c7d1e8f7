//! Trees that are not simple: each gets a clear typed error or works in a
//! documented way, and no file is lost.

use cohost_core::{ChangeStatus, Checkpoints, CohostError, ErrorCode};
use cohost_git::{undo, GitError, SessionCheckpoints, MAX_UNTRACKED_FILES};

use crate::support::{write_bytes, Scratch};

async fn open(s: &Scratch) -> Result<SessionCheckpoints, GitError> {
    SessionCheckpoints::open(&s.work, &s.state, "s-bad").await
}

#[tokio::test]
async fn a_deleted_working_directory_is_named() {
    let s = Scratch::repo();
    let cp = open(&s).await.unwrap();
    std::fs::remove_dir_all(&s.work).unwrap();
    let err = cp.before_turn().await.unwrap_err();
    assert!(err.message.contains("is gone"), "{err:?}");
    assert!(err.suggested_fix.is_some());
    let again = open(&s).await.unwrap_err();
    assert!(matches!(again, GitError::CwdGone(_)), "{again}");
}

#[tokio::test]
async fn a_merge_in_progress_and_a_detached_head_are_recorded_like_any_tree() {
    let s = Scratch::repo();
    s.git(&["checkout", "-q", "-b", "other"]);
    s.write("src/lib.rs", "other side\n");
    s.git(&["commit", "-qam", "other"]);
    s.git(&["checkout", "-q", "main"]);
    s.write("src/lib.rs", "main side\n");
    s.git(&["commit", "-qam", "main"]);
    // A conflicted merge: the user's index has unmerged entries.
    let out = s.git_output(&["merge", "-q", "other"]);
    assert!(!out.status.success(), "the merge conflicts");
    assert!(s.read("src/lib.rs").contains("<<<<<<<"));
    let state = s.user_state();
    let cp = open(&s).await.unwrap();
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("src/lib.rs", "resolved by the agent\n");
    let changes = cp.after_turn(mark).await.unwrap();
    assert_eq!(changes.files[0].path, "src/lib.rs");
    undo(cp.store(), "s-bad", None, false).await.unwrap();
    let back = s.read("src/lib.rs");
    assert!(back.contains("<<<<<<<"), "the conflict is back: {back}");
    assert_eq!(s.user_state(), state, "the merge state is the user's still");

    s.git(&["merge", "--abort"]);
    let head = s.git(&["rev-parse", "HEAD"]);
    s.git(&["checkout", "-q", "--detach", head.trim()]);
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("detached.txt", "x\n");
    assert_eq!(cp.after_turn(mark).await.unwrap().files.len(), 1);
}

#[tokio::test]
async fn not_utf8_content_and_names_and_large_files() {
    let s = Scratch::repo();
    let cp = open(&s).await.unwrap();
    let mark = cp.before_turn().await.unwrap().unwrap();
    write_bytes(&s.path("latin1.txt"), b"caf\xe9\n");
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"na\xefve.txt");
        std::fs::write(s.work.join(name), b"x\n").unwrap();
    }
    // Past git's big-file threshold: recorded by hash and size, no diff.
    let big = vec![b'a'; 17 * 1024 * 1024];
    write_bytes(&s.path("big.log"), &big);
    let changes = cp.after_turn(mark).await.unwrap();
    let big = changes.files.iter().find(|f| f.path == "big.log").unwrap();
    assert!(big.binary);
    assert_eq!(big.size, 17 * 1024 * 1024);
    assert!(
        big.diff.as_deref().is_none_or(|d| d.len() < 1024),
        "no content"
    );
    let latin = changes
        .files
        .iter()
        .find(|f| f.path == "latin1.txt")
        .unwrap();
    assert!(latin.diff.as_deref().unwrap().contains("caf\u{fffd}"));
    assert!(changes.files.iter().any(|f| f.path.starts_with("na")));
    // Undo removes them all, the oddly named one too.
    let report = undo(cp.store(), "s-bad", None, false).await.unwrap();
    assert_eq!(report.removed.len(), if cfg!(unix) { 3 } else { 2 });
    assert_eq!(s.git(&["status", "--porcelain"]), "");
}

#[tokio::test]
async fn a_directory_outside_git_too_large_to_record_is_refused_with_a_fix() {
    let s = Scratch::plain();
    let n = MAX_UNTRACKED_FILES + 1;
    for i in 0..n {
        std::fs::write(s.work.join(format!("f{i}")), b"").unwrap();
    }
    let err = open(&s).await.unwrap_err();
    assert!(
        matches!(err, GitError::TooLarge { what: "files", .. }),
        "{err}"
    );
    let wire = CohostError::from(err);
    assert_eq!(wire.code, ErrorCode::ConfigInvalid);
    assert!(wire.suggested_fix.unwrap().contains("checkpoints = false"));
}

#[tokio::test]
async fn ignored_build_output_is_not_recorded() {
    let s = Scratch::repo();
    s.write(".gitignore", "target/\n");
    s.git(&["add", ".gitignore"]);
    s.git(&["commit", "-qm", "ignore"]);
    let cp = open(&s).await.unwrap();
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("target/debug/out.bin", "built");
    s.write("src/lib.rs", "changed\n");
    let changes = cp.after_turn(mark).await.unwrap();
    let paths: Vec<&str> = changes.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["src/lib.rs"]);
    assert_eq!(changes.files[0].status, ChangeStatus::Modified);
}

#[tokio::test]
async fn cohosts_own_state_inside_the_tree_is_never_recorded() {
    // A session run in the home directory (outside git): cohost's state
    // directory, with the store itself, lies inside the recorded tree.
    let s = Scratch::plain();
    let state = s.work.join(".local/state/cohost");
    let cp = SessionCheckpoints::open(&s.work, &state, "s-home")
        .await
        .unwrap();
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write(
        ".local/state/cohost/sessions.json",
        "{\"written\": \"during the turn\"}",
    );
    s.write("plan.md", "the agent's file\n");
    let changes = cp.after_turn(mark).await.unwrap();
    let paths: Vec<&str> = changes.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["plan.md"]);
    undo(cp.store(), "s-home", None, false).await.unwrap();
    assert!(s.path(".local/state/cohost/sessions.json").exists());
    assert!(!s.path("plan.md").exists());
}

#[tokio::test]
async fn inside_a_bare_repository_the_store_is_cohosts_own() {
    // A bare repository has no work tree: its directory is recorded like
    // any directory outside git, and nothing is written into it.
    let s = Scratch::plain();
    s.git(&["init", "-q", "--bare"]);
    let refs_before = s.git(&["for-each-ref"]);
    let cp = open(&s).await.unwrap();
    assert_eq!(cp.store().kind(), cohost_git::StoreKind::Standalone);
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("notes.txt", "x\n");
    assert_eq!(cp.after_turn(mark).await.unwrap().files.len(), 1);
    assert_eq!(
        s.git(&["for-each-ref"]),
        refs_before,
        "no ref in the bare repository"
    );
}

#[tokio::test]
async fn a_shallow_clone_and_a_submodule_are_recorded() {
    let upstream = Scratch::repo();
    s_commit(&upstream, "second.txt");
    let s = Scratch::plain();
    let url = format!("file://{}", upstream.work.display());
    s.git(&["clone", "-q", "--depth", "1", &url, "."]);
    assert_eq!(
        s.git(&["rev-parse", "--is-shallow-repository"]).trim(),
        "true"
    );
    // A submodule: its files are its own repository's; the superproject
    // records its commit.
    s.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "sub",
    ]);
    s.git(&["commit", "-qm", "add sub"]);
    let cp = open(&s).await.unwrap();
    let mark = cp.before_turn().await.unwrap().unwrap();
    s.write("src/lib.rs", "changed in a shallow clone\n");
    s.write("sub/inside.txt", "a file inside the submodule\n");
    let changes = cp.after_turn(mark).await.unwrap();
    let paths: Vec<&str> = changes.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["src/lib.rs"],
        "the submodule's own files are not the superproject's"
    );
    undo(cp.store(), "s-bad", None, false).await.unwrap();
    assert_eq!(s.read("src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n");
    assert!(
        s.path("sub/inside.txt").exists(),
        "undo never reaches into a submodule"
    );
}

fn s_commit(s: &Scratch, name: &str) {
    s.write(name, "more\n");
    s.git(&["add", name]);
    s.git(&["commit", "-qm", name]);
}

/// A room's members start in one directory at once: outside git they
/// share one standalone store, made once (the race once failed one of
/// them with "cannot mkdir ... File exists").
#[tokio::test]
async fn sessions_starting_at_once_outside_git_share_one_store() {
    // The window is a few milliseconds wide: several rounds to hit it.
    for _ in 0..10 {
        starting_at_once().await;
    }
}

async fn starting_at_once() {
    let s = Scratch::plain();
    s.write("a.txt", "x\n");
    let opens: Vec<_> = (0..6)
        .map(|i| {
            let (work, state) = (s.work.clone(), s.state.clone());
            tokio::spawn(
                async move { SessionCheckpoints::open(&work, &state, &format!("s-{i}")).await },
            )
        })
        .collect();
    for open in opens {
        open.await.unwrap().unwrap();
    }
    let dirs: Vec<_> = std::fs::read_dir(s.state.join("checkpoints/dirs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(dirs.len(), 1, "one store, no leftovers: {dirs:?}");
}
