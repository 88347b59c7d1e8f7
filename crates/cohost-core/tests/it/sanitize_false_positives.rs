//! No false alarms: the sanitizer leaves real prose and code alone. The
//! corpus is this repository's own sources, README and book, the golden agent
//! transcripts, `Cargo.lock` (hashes), and generated git SHAs, UUIDs and a
//! base64 image in a data URL. Files that hold fake secrets on purpose (the
//! sanitizer's own corpus and the tests that seed it) are left out.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use cohost_core::sanitize::Sanitizer;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Files that contain fake secrets on purpose: scanning them would count
/// the secrets they plant as false alarms.
fn plants_secrets(path: &Path, text: &str) -> bool {
    let p = path.to_string_lossy();
    // Tests that plant a fake key (each checked by hand: every change the
    // sanitizer makes in them is the planted key).
    const PLANTED: &[&str] = &[
        "cohost-fakellm/src/log.rs",
        "cohost-fakellm/tests/it/server.rs",
        "cohost-agents/tests/it/http_litellm.rs",
        "cohost-cli/tests/it/run_cli.rs",
        "cohost-cli/src/secrets.rs",
        "cohost-host/tests/it/store.rs",
        "cohost-host/tests/it/serve/secrets.rs",
        // The same file after its move to cohost-api (issue 31): it plants a
        // URL password and a GitHub token in a config.
        "cohost-api/tests/it/serve/secrets.rs",
        "cohost-relay/tests/it/redis_history.rs",
        "cohost-relay/tests/it/redis_nodes.rs",
        "cohost-cli/tests/it/cli_attach.rs",
        // Its tests refuse a relay address with a user and password in it.
        "cohost-relay/src/relay_addr.rs",
        // The fuzzing record quotes, on purpose, the secret-shaped inputs
        // the fuzzer found against the sanitizer.
        "docs/fuzzing-results.md",
        // An invite link with a JWT, drawn as a QR code and read back.
        "cohost-tui/src/qr_tests.rs",
        // Sharing-format test vectors: fixed, published test secrets (bytes
        // like 0x33 repeated) from which every expected output is derived.
        "cohost-share/tests/vectors/e2e-v2.json",
    ];
    PLANTED.iter().any(|f| p.ends_with(f))
        || p.contains("/sanitize")
        || p.contains("secret_channels")
        || p.contains("/fuzz/")
        // Test files seeding keys into a channel say so with a vendor prefix.
        || text.contains("sk-ant-api03-")
        || text.contains("BEGIN RSA PRIVATE KEY")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if name == "target" || name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if p.is_dir() {
            walk(&p, out);
        } else if [
            "rs", "md", "json", "jsonl", "ndjson", "txt", "toml", "sse", "lock", "events",
        ]
        .iter()
        .any(|x| name.ends_with(&format!(".{x}")))
        {
            out.push(p);
        }
    }
}

/// Ordinary values that look random: they must survive.
fn generated() -> Vec<String> {
    let mut lines = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200 {
        let sha: String = (0..5).map(|_| format!("{:08x}", next() as u32)).collect();
        lines.push(format!("commit {sha} (HEAD -> main)"));
        lines.push(format!("resolved {sha}"));
        let u = next();
        let v = next();
        lines.push(format!(
            "session {:08x}-{:04x}-4{:03x}-a{:03x}-{:012x} started",
            u as u32,
            (u >> 32) as u16,
            (v & 0xfff) as u16,
            ((v >> 12) & 0xfff) as u16,
            v >> 16 & 0xffff_ffff_ffff
        ));
        lines.push(format!(
            "\"session_id\": \"{:016x}{:016x}\"",
            next(),
            next()
        ));
        lines.push(format!(
            "checksum = \"{:016x}{:016x}{:016x}{:016x}\"",
            next(),
            next(),
            next(),
            next()
        ));
        lines.push(format!("\"integrity\": \"sha512-{}\"", b64(&mut next, 86)));
    }
    lines.push(format!(
        "![chart](data:image/png;base64,{})",
        b64(&mut next, 4000)
    ));
    lines.push(format!(
        "<img src=\"data:image/jpeg;base64,{}==\">",
        b64(&mut next, 2000)
    ));
    lines
}

fn b64(next: &mut impl FnMut() -> u64, n: usize) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..n).map(|_| A[(next() % 64) as usize] as char).collect()
}

#[test]
fn prose_and_code_come_out_unchanged() {
    let san = Sanitizer::shapes_only();
    let mut files = Vec::new();
    walk(&root().join("crates"), &mut files);
    files.push(root().join("README.md"));
    walk(&root().join("docs"), &mut files);
    files.push(root().join("Cargo.lock"));
    let (mut lines, mut scanned_files, mut changed) = (0usize, 0usize, Vec::new());
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if plants_secrets(f, &text) {
            continue;
        }
        scanned_files += 1;
        for (i, line) in text.lines().enumerate() {
            lines += 1;
            let out = san.sanitize(line);
            if out != line {
                changed.push(format!("{}:{}: {line}\n   -> {out}", f.display(), i + 1));
            }
        }
    }
    for line in generated() {
        lines += 1;
        let out = san.sanitize(&line);
        if out != line {
            changed.push(format!("generated: {line}\n   -> {out}"));
        }
    }
    eprintln!(
        "false positives: {} of {lines} lines in {scanned_files} files ({:.4}%)",
        changed.len(),
        changed.len() as f64 * 100.0 / lines as f64
    );
    assert!(
        scanned_files > 100 && lines > 20_000,
        "{scanned_files} files, {lines} lines"
    );
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}

/// The key rule on JSON values (`sanitize_json`: a secret-named key's whole
/// value goes) over every JSON document of the repository: the golden
/// agent transcripts, fixtures and schemas, one document a line or a file.
/// A value that changes is a false alarm, as in the text test above.
#[test]
fn json_documents_come_out_unchanged_by_the_key_rule() {
    let san = Sanitizer::shapes_only();
    let mut files = Vec::new();
    walk(&root().join("crates"), &mut files);
    let (mut docs, mut values, mut changed) = (0usize, 0usize, Vec::new());
    fn count(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(a) => a.iter().map(count).sum(),
            serde_json::Value::Object(m) => m.values().map(count).sum(),
            _ => 1,
        }
    }
    for f in files.iter().filter(|f| {
        let n = f.to_string_lossy();
        [".json", ".jsonl", ".ndjson", ".events"]
            .iter()
            .any(|x| n.ends_with(x))
    }) {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if plants_secrets(f, &text) {
            continue;
        }
        let whole = serde_json::from_str::<serde_json::Value>(&text).ok();
        let parsed: Vec<(usize, serde_json::Value)> = match whole {
            Some(v) => vec![(1, v)],
            None => text
                .lines()
                .enumerate()
                .filter_map(|(i, l)| serde_json::from_str(l).ok().map(|v| (i + 1, v)))
                .collect(),
        };
        for (line, v) in parsed {
            docs += 1;
            values += count(&v);
            let mut out = v.clone();
            san.sanitize_json(&mut out);
            if out != v {
                changed.push(format!("{}:{line}:\n   {v}\n-> {out}", f.display()));
            }
        }
    }
    eprintln!(
        "JSON false positives: {} of {docs} documents ({values} values)",
        changed.len()
    );
    assert!(docs > 1_000, "{docs} JSON documents");
    assert!(changed.is_empty(), "{}", changed.join("\n"));
}
