//! Every list of providers kept outside the provider list agrees with it
//! (issue 31): the pins in `tests/agents/versions.env`, the agents
//! `tests/agents/install.sh` installs, the test bench's CLIs, the registry,
//! the default-agent order and the book's provider table. Adding a CLI to
//! the provider list without its pin, install line or book row (or
//! leaving one behind after removing it) fails here, naming what is
//! missing where.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use cohost_agents::catalog::{self, Evidence};
use cohost_testbench::AgentCli;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `install.sh --list-specs`: `(name, versions.env key, pinned version)`.
fn install_specs() -> Vec<(String, String, String)> {
    let out = Command::new("bash")
        .arg(repo().join("tests/agents/install.sh"))
        .arg("--list-specs")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 5, "NAME KIND PACKAGE KEY PIN: {l}");
            (f[0].to_string(), f[3].to_string(), f[4].to_string())
        })
        .collect()
}

/// The pin keys of the tested CLIs of the provider list.
fn tested_pin_keys() -> BTreeSet<&'static str> {
    catalog::CLIS
        .iter()
        .filter(|e| e.evidence == Evidence::Tested)
        .map(|e| {
            e.pin_key
                .unwrap_or_else(|| panic!("{}: tested but not pinned", e.id))
        })
        .collect()
}

#[test]
fn install_script_and_pins_install_exactly_the_tested_clis() {
    let specs = install_specs();
    let installed: BTreeSet<&str> = specs.iter().map(|(_, k, _)| k.as_str()).collect();
    let tested = tested_pin_keys();
    assert_eq!(
        installed, tested,
        "install.sh's AGENTS (left) and the provider list's tested CLIs (right) differ"
    );
    for (name, key, pin) in &specs {
        let pinned = catalog::pinned_version(key)
            .unwrap_or_else(|| panic!("{name}: {key} is not in versions.env"));
        assert_eq!(pinned.to_string(), *pin, "{name}: {key}");
    }
    let env = std::fs::read_to_string(repo().join("tests/agents/versions.env")).unwrap();
    let keys: BTreeSet<&str> = env
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split('=').next())
        .collect();
    assert_eq!(
        keys, tested,
        "versions.env (left) pins something the provider list does not test, or misses a pin"
    );
}

#[test]
fn the_test_bench_knows_every_installed_cli() {
    let installed: BTreeSet<String> = install_specs().into_iter().map(|(n, _, _)| n).collect();
    let bench: BTreeSet<String> = AgentCli::ALL.iter().map(|c| c.name().to_string()).collect();
    assert_eq!(
        bench, installed,
        "cohost-testbench's AgentCli::ALL (left) and install.sh's AGENTS (right) differ"
    );
}

#[test]
fn the_registry_holds_the_provider_list_and_nothing_else() {
    let mut registry = cohost_core::Registry::new();
    cohost_agents::builtin::register_all(&mut registry).unwrap();
    let registered: BTreeSet<String> = registry.ids().into_iter().collect();
    let mut listed: BTreeSet<String> = catalog::CLIS.iter().map(|e| e.id.to_string()).collect();
    listed.extend(catalog::acp_variants().map(|(v, _)| v.to_string()));
    listed.extend(catalog::api_providers().into_iter().map(|p| p.id));
    listed.insert("mock".into());
    assert_eq!(registered, listed, "registered (left) and listed (right)");
    for id in cohost_host::session::DEFAULT_PREFERENCE {
        let e = catalog::cli(id).unwrap_or_else(|| panic!("default agent {id} is not listed"));
        assert_eq!(
            e.evidence,
            Evidence::Tested,
            "default agent {id} is untested"
        );
    }
}

#[test]
fn the_book_has_a_row_for_every_provider_with_its_pin() {
    let readme = std::fs::read_to_string(repo().join("docs/book/src/agents.md")).unwrap();
    let row = |id: &str| -> Option<String> {
        let start = format!("| `{id}` |");
        readme
            .lines()
            .find(|l| l.starts_with(&start))
            .map(String::from)
    };
    let mut missing = Vec::new();
    let mut rows = 0;
    for e in catalog::CLIS {
        let ids =
            std::iter::once(e.id).chain(e.acp.filter(|mode| mode.id != e.id).map(|mode| mode.id));
        for id in ids {
            let Some(line) = row(id) else {
                missing.push(id);
                continue;
            };
            rows += 1;
            if let Some(v) = e.pin_key.and_then(catalog::pinned_version) {
                assert!(
                    line.contains(&v.to_string()),
                    "the book's row of {id} (docs/book/src/agents.md) does not say the pinned {v}: {line}"
                );
            }
        }
    }
    assert!(
        missing.is_empty(),
        "no row in the book's provider table (docs/book/src/agents.md) for {missing:?}"
    );
    assert!(rows >= catalog::CLIS.len());
}
