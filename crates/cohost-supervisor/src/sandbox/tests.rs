//! Enforcement on this kernel. `landlock_restrict_self` confines only the
//! calling thread (and what it starts), so each case runs in a thread of
//! its own and the test binary stays free.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};

/// Run `f` in a new thread confined by `policy`.
fn confined<T: Send + 'static>(policy: SandboxPolicy, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        let prepared = prepare(&policy).unwrap();
        assert!(prepared.confines(), "this kernel has Landlock");
        prepared.enforce().unwrap();
        f()
    })
    .join()
    .unwrap()
}

fn denied(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::EACCES) || e.raw_os_error() == Some(libc::EPERM)
}

fn has_landlock() -> bool {
    let s = Support::probe();
    if !s.available() {
        // Still a check: a required sandbox must then refuse to start.
        let required = SandboxPolicy {
            required: true,
            ..SandboxPolicy::default()
        };
        assert!(matches!(prepare(&required), Err(SandboxError::Unavailable)));
    }
    s.available()
}

#[test]
fn writes_land_only_in_the_allowed_tree_and_denied_reads_fail() {
    if !has_landlock() {
        return;
    }
    let root = tempfile_dir();
    let (tree, outside, secret) = (root.join("tree"), root.join("outside"), root.join("secret"));
    for d in [&tree, &outside, &secret] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(secret.join("key"), "private").unwrap();
    std::fs::write(outside.join("readme"), "public").unwrap();
    let policy = SandboxPolicy {
        read: vec![outside.clone(), "/usr".into(), "/lib".into(), "/etc".into()],
        write: vec![tree.clone()],
        denied: vec![secret.clone()],
        ..SandboxPolicy::default()
    };
    let (t, o, s) = (tree, outside.clone(), secret);
    let (inside, out_write, out_read, secret_read) = confined(policy, move || {
        (
            std::fs::write(t.join("ok.txt"), "x"),
            std::fs::write(o.join("no.txt"), "x"),
            std::fs::read_to_string(o.join("readme")),
            std::fs::read_to_string(s.join("key")),
        )
    });
    inside.expect("a write inside the tree works");
    assert!(denied(&out_write.unwrap_err()), "a write outside fails");
    assert_eq!(out_read.unwrap(), "public", "reads elsewhere work");
    assert!(
        denied(&secret_read.unwrap_err()),
        "the secret is not readable"
    );
    assert!(!outside.join("no.txt").exists());
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn connects_reach_only_the_allowed_ports() {
    if !has_landlock() || Support::probe().abi < 4 {
        eprintln!(
            "skipped: Landlock ABI {} has no TCP rules",
            Support::probe().abi
        );
        return;
    }
    let allowed = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let (a, o) = (allowed.local_addr().unwrap(), other.local_addr().unwrap());
    let policy = SandboxPolicy {
        connect_tcp: Some(vec![a.port()]),
        ..SandboxPolicy::default()
    };
    let (ok, refused) = confined(policy, move || {
        (
            TcpStream::connect(a).map(|_| ()),
            TcpStream::connect(o).map(|_| ()),
        )
    });
    ok.expect("the provider's port is reachable");
    assert!(denied(&refused.unwrap_err()), "another port is not");
}

#[test]
fn devices_open_for_writing_without_granting_their_directory() {
    if !has_landlock() {
        return;
    }
    let policy = SandboxPolicy {
        devices: vec!["/dev/null".into()],
        ..SandboxPolicy::default()
    };
    let (null, zero) = confined(policy, || {
        let null = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open("/dev/null")
            .and_then(|mut f| f.write_all(b"gone"));
        let zero = std::fs::File::open("/dev/zero").and_then(|mut f| f.read(&mut [0u8; 1]));
        (null, zero)
    });
    null.expect("/dev/null takes writes");
    assert!(denied(&zero.unwrap_err()), "other devices are not granted");
}

#[test]
fn support_says_what_it_enforces() {
    let policy = SandboxPolicy {
        connect_tcp: Some(vec![443]),
        scoped: true,
        ..SandboxPolicy::default()
    };
    let old = Support { abi: 3 };
    assert_eq!(old.missing(&policy).len(), 2, "{:?}", old.missing(&policy));
    assert!(!old.enforced(&policy).iter().any(|r| r.contains("tcp")));
    let new = Support { abi: 7 };
    assert!(new.missing(&policy).is_empty());
    assert!(new.enforced(&policy).iter().any(|r| r.contains("tcp")));
    let none = Support { abi: 0 };
    assert!(none.enforced(&policy).is_empty());
    assert!(none.missing(&policy)[0].contains("no Landlock"));
}

/// A scratch directory (this crate has no tempfile dependency).
fn tempfile_dir() -> PathBuf {
    let base = std::env::temp_dir().join(format!(
        "cohost-sandbox-test-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    canonical(&base)
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap()
}
