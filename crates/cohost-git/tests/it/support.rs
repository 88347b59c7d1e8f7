//! Scratch repositories: `git` run with a scratch HOME, so no test reads or
//! writes the real one's config.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// A scratch directory with a HOME and a state dir beside the work tree.
pub struct Scratch {
    _dir: TempDir,
    pub home: PathBuf,
    pub state: PathBuf,
    pub work: PathBuf,
}

impl Scratch {
    /// An empty work tree (not a repository).
    pub fn plain() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let state = dir.path().join("state");
        let work = dir.path().join("work");
        for d in [&home, &state, &work] {
            std::fs::create_dir_all(d).unwrap();
        }
        Scratch {
            _dir: dir,
            home,
            state,
            work,
        }
    }

    /// A repository with one commit (`README.md`, `src/lib.rs`).
    pub fn repo() -> Scratch {
        let s = Scratch::plain();
        s.git(&["init", "-q", "-b", "main"]);
        s.write("README.md", "# demo\n");
        s.write("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
        s.git(&["add", "-A"]);
        s.git(&["commit", "-qm", "first"]);
        s
    }

    /// Run git in the work tree as the user would; its stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Run git as the user would, failing or not.
    pub fn git_output(&self, args: &[&str]) -> std::process::Output {
        Command::new("git")
            .args(args)
            .current_dir(&self.work)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            // `git status` would refresh (rewrite) the index it reads.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_AUTHOR_NAME", "u")
            .env("GIT_AUTHOR_EMAIL", "u@example.invalid")
            .env("GIT_COMMITTER_NAME", "u")
            .env("GIT_COMMITTER_EMAIL", "u@example.invalid")
            .output()
            .unwrap()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.work.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        write_bytes(&self.path(rel), text.as_bytes());
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    /// Everything the user can see of the repository's state besides the
    /// work tree: status, stash, branches, HEAD, config, the index's bytes,
    /// and every ref outside `refs/cohost/`.
    pub fn user_state(&self) -> String {
        let index = std::fs::read(self.work.join(".git/index")).unwrap_or_default();
        let refs = self.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
        let refs: Vec<&str> = refs
            .lines()
            .filter(|l| !l.starts_with("refs/cohost/"))
            .collect();
        format!(
            "status:\n{}\nstash:\n{}\nbranches:\n{}\nhead: {}\nconfig:\n{}\nindex: {} bytes {:x}\nrefs:\n{}",
            self.git(&["status", "--porcelain=v2", "--branch", "--untracked-files=all"]),
            self.git(&["stash", "list"]),
            self.git(&["branch", "-a", "-v"]),
            self.git(&["rev-parse", "HEAD"]),
            std::fs::read_to_string(self.work.join(".git/config")).unwrap(),
            index.len(),
            fnv(&index),
            refs.join("\n"),
        )
    }
}

pub fn write_bytes(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
