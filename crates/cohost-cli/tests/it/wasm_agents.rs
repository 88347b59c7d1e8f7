//! `cohost agents` with WebAssembly adapter plugins (issue 35): the table
//! and `--json` show each component's sha256, whether the manifest pins
//! it, its world and its limits; a component built for another world
//! version is refused on stderr, naming the manifest, the field and both
//! versions, and cohost goes on.

#![allow(clippy::unwrap_used, clippy::expect_used, unreachable_pub)]

use crate::cli_support;

use cli_support::{cohost_in, ok};
use cohost_testbench::wasm_examples::wasm_examples;

#[test]
fn agents_shows_wasm_plugins_hash_world_and_limits() {
    let Some(ex) = wasm_examples() else { return };
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/cohost/agents");
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = std::fs::read(&ex.goose).unwrap();
    std::fs::write(dir.join("goose.wasm"), &bytes).unwrap();
    let sum = std::process::Command::new("sha256sum")
        .arg(dir.join("goose.wasm"))
        .output()
        .unwrap();
    let sha = String::from_utf8_lossy(&sum.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    std::fs::write(
        dir.join("goose-wasm.toml"),
        format!(
            "id = \"goose-wasm\"\nbinary = \"goose\"\nprotocol = \"wasm\"\nenv_prefixes = [\"GOOSE_\"]\n[wasm]\ncomponent = \"goose.wasm\"\nsha256 = \"{sha}\"\nmemory_mib = 32\n"
        ),
    )
    .unwrap();
    let mut next = bytes;
    let (from, to) = (b"cohost:adapter/turn@0.1.0", b"cohost:adapter/turn@0.2.0");
    while let Some(at) = next.windows(from.len()).position(|w| w == from) {
        next[at..at + from.len()].copy_from_slice(to);
    }
    std::fs::write(dir.join("next.wasm"), &next).unwrap();
    std::fs::write(
        dir.join("next.toml"),
        "id = \"next\"\nbinary = \"goose\"\nprotocol = \"wasm\"\n[wasm]\ncomponent = \"next.wasm\"\n",
    )
    .unwrap();

    let out = cohost_in(home.path(), "/usr/bin:/bin")
        .args(["agents"])
        .output()
        .unwrap();
    let table = ok(&out);
    assert!(table.contains("WASM ADAPTERS"), "{table}");
    assert!(
        table.contains(&format!(
            "goose-wasm     cohost:adapter@0.1.0 sha256:{sha} (pinned)"
        )),
        "{table}"
    );
    assert!(
        table.contains("limits: 500 ms/call, 32 MiB memory"),
        "{table}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("next.toml")
            && stderr.contains("`wasm.component`")
            && stderr.contains(
                "built for cohost:adapter@0.2.0, this cohost speaks cohost:adapter@0.1.0"
            ),
        "{stderr}"
    );
    assert!(!table.contains("next "), "{table}");

    let json = ok(&cohost_in(home.path(), "/usr/bin:/bin")
        .args(["agents", "--json"])
        .output()
        .unwrap());
    let list: serde_json::Value = serde_json::from_str(&json).unwrap();
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["provider_id"] == "goose-wasm")
        .unwrap_or_else(|| panic!("no goose-wasm in {list}"));
    assert_eq!(entry["wasm"]["sha256"], sha.as_str());
    assert_eq!(entry["wasm"]["pinned"], true);
    assert_eq!(entry["wasm"]["world"], "cohost:adapter@0.1.0");
    assert_eq!(entry["wasm"]["limits"]["memory_bytes"], 32 << 20);
}
