//! Property: whatever a turn does to a tree (writes, binary content,
//! deletions, renames, mode changes, symlinks, a file where a directory
//! was), undo gives back the exact tree, content and mode, in a repository
//! and outside one.

use std::collections::BTreeMap;
use std::path::Path;

use cohost_core::Checkpoints;
use cohost_git::{undo, SessionCheckpoints};
use proptest::prelude::*;

use crate::support::{write_bytes, Scratch};

const PATHS: &[&str] = &["a", "b.txt", "d/c", "d/e/f", "d", "x/y", "x"];

#[derive(Debug, Clone)]
enum Op {
    Write(usize, Vec<u8>),
    Delete(usize),
    Rename(usize, usize),
    Exec(usize, bool),
    Link(usize, usize),
}

fn op() -> impl Strategy<Value = Op> {
    let p = 0..PATHS.len();
    let content = prop_oneof![
        "[a-z\n]{0,40}".prop_map(String::into_bytes),
        proptest::collection::vec(any::<u8>(), 0..64),
    ];
    prop_oneof![
        (p.clone(), content).prop_map(|(i, c)| Op::Write(i, c)),
        p.clone().prop_map(Op::Delete),
        (p.clone(), p.clone()).prop_map(|(a, b)| Op::Rename(a, b)),
        (p.clone(), any::<bool>()).prop_map(|(i, x)| Op::Exec(i, x)),
        (p.clone(), p).prop_map(|(a, b)| Op::Link(a, b)),
    ]
}

/// Apply `op` as an agent's tool would; one the file system refuses (a
/// file where a directory is) is skipped, as it would fail for the agent.
fn apply(root: &Path, op: &Op) {
    let at = |i: usize| root.join(PATHS[i]);
    let _ = match op {
        Op::Write(i, bytes) => {
            let path = at(*i);
            match path.parent().map(std::fs::create_dir_all) {
                Some(Err(e)) => Err(e),
                _ => std::fs::write(&path, bytes),
            }
        }
        Op::Delete(i) => std::fs::remove_file(at(*i)),
        Op::Rename(a, b) => std::fs::rename(at(*a), at(*b)),
        Op::Exec(i, x) => set_exec(&at(*i), *x),
        Op::Link(a, b) => std::os::unix::fs::symlink(PATHS[*b], at(*a)),
    };
}

fn set_exec(path: &Path, exec: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Ok(());
    }
    std::fs::set_permissions(
        path,
        std::fs::Permissions::from_mode(if exec { 0o755 } else { 0o644 }),
    )
}

/// The tree as git would see it: each file's kind, content or link
/// target, and executable bit (`.git` left out).
fn tree(root: &Path) -> BTreeMap<String, (char, Vec<u8>, bool)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(
                    rel,
                    (
                        'l',
                        target.to_string_lossy().into_owned().into_bytes(),
                        false,
                    ),
                );
            } else {
                let exec = meta.permissions().mode() & 0o100 != 0;
                out.insert(rel, ('f', std::fs::read(&path).unwrap(), exec));
            }
        }
    }
    out
}

fn roundtrip(repo: bool, initial: &[Op], turn: &[Op]) {
    let s = if repo {
        Scratch::repo()
    } else {
        Scratch::plain()
    };
    for op in initial {
        apply(&s.work, op);
    }
    if repo {
        s.git(&["add", "-A"]);
        s.git(&["commit", "-qm", "start", "--allow-empty"]);
    }
    let start = tree(&s.work);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let cp = SessionCheckpoints::open(&s.work, &s.state, "s-prop")
            .await
            .unwrap();
        let mark = cp.before_turn().await.unwrap().unwrap();
        for op in turn {
            apply(&s.work, op);
        }
        let changed = tree(&s.work) != start;
        let changes = cp.after_turn(mark).await.unwrap();
        assert_eq!(changed, !changes.is_empty(), "{changes:?}");
        if changed {
            undo(cp.store(), "s-prop", None, false).await.unwrap();
        }
    });
    assert_eq!(tree(&s.work), start);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn undo_gives_back_the_exact_tree_in_a_repository(
        initial in proptest::collection::vec(op(), 0..6),
        turn in proptest::collection::vec(op(), 1..8),
    ) {
        roundtrip(true, &initial, &turn);
    }

    #[test]
    fn undo_gives_back_the_exact_tree_outside_git(
        initial in proptest::collection::vec(op(), 0..6),
        turn in proptest::collection::vec(op(), 1..8),
    ) {
        roundtrip(false, &initial, &turn);
    }
}

#[test]
fn a_binary_file_becomes_a_directory_and_back() {
    roundtrip(
        true,
        &[Op::Write(4, vec![0, 159, 146, 150])],
        &[Op::Delete(4), Op::Write(1, b"x".to_vec()), Op::Rename(1, 2)],
    );
}

#[test]
fn a_written_file_is_not_left_behind_as_a_symlinks_target() {
    let _ = write_bytes;
    roundtrip(
        false,
        &[Op::Write(0, b"a".to_vec())],
        &[Op::Delete(0), Op::Link(0, 1)],
    );
}
