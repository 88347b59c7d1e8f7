//! No file-level import cycle inside any crate of the workspace (issue 31):
//! `cohost_testbench::modgraph` over every `crates/*/src`, an equivalent of
//! `cargo modules dependencies --acyclic` that needs no extra build.
//!
//! None is left (issue 31 broke them all); the allow-list below stays so a
//! cycle that cannot be broken at once can be listed. A cycle not in the
//! list fails, and so does a listed one that is gone (or has gained or lost
//! a file): the list only shrinks. A cycle is its set of files; the walk
//! written in the list is how to read it.
//!
//! `COHOST_IMPORT_CYCLES_REPORT=/path` also writes a summary there: per
//! crate, its files and its cycles (and the edges inside each, what to
//! cut); `COHOST_IMPORT_CYCLES_CRATES=/other/checkout/crates` scans another
//! tree instead (say `git archive` of an older commit) to compare.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use cohost_testbench::modgraph::{CrateGraph, Cycle};

/// `(crate, walk)`: cycles allowed to stay for now. Empty since issue 31
/// broke the last of the 16 the check came in with, so any cycle fails. A
/// cycle that truly cannot be broken at once goes here with a comment on
/// why; take it out when it is gone, and when it shrinks put its smaller
/// walk in (the failure prints it).
const ALLOWED: &[(&str, &str)] = &[];

fn crates_dir() -> PathBuf {
    match std::env::var_os("COHOST_IMPORT_CYCLES_CRATES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
    }
}

/// Every crate with a `src/`, by name, and its graph.
fn workspace() -> BTreeMap<String, CrateGraph> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let graph = CrateGraph::scan(&src).unwrap();
        out.insert(name, graph);
    }
    out
}

type Key = (String, BTreeSet<String>);

fn found(ws: &BTreeMap<String, CrateGraph>) -> BTreeMap<Key, String> {
    let mut out = BTreeMap::new();
    for (name, graph) in ws {
        for cycle in graph.cycles() {
            let key = (name.clone(), cycle.files.iter().cloned().collect());
            out.insert(key, cycle.to_string());
        }
    }
    out
}

fn allowed() -> BTreeMap<Key, String> {
    ALLOWED
        .iter()
        .map(|(name, walk)| {
            let key = (name.to_string(), Cycle::files_of_walk(walk));
            (key, walk.to_string())
        })
        .collect()
}

fn summary(ws: &BTreeMap<String, CrateGraph>) -> String {
    let mut out = String::new();
    let total: usize = ws.values().map(|g| g.cycles().len()).sum();
    writeln!(out, "file-level import cycles per crate: {total} in all").unwrap();
    for (name, graph) in ws {
        let cycles = graph.cycles();
        writeln!(
            out,
            "\n{name}: {} files, {} edges, {} cycles",
            graph.files.len(),
            graph.edges.len(),
            cycles.len()
        )
        .unwrap();
        for c in cycles {
            writeln!(out, "  {c}").unwrap();
            let edges: Vec<String> = c.edges.iter().map(|(a, b)| format!("{a} -> {b}")).collect();
            writeln!(out, "    edges: {}", edges.join(", ")).unwrap();
        }
    }
    out
}

fn report(ws: &BTreeMap<String, CrateGraph>) {
    if let Some(path) = std::env::var_os("COHOST_IMPORT_CYCLES_REPORT") {
        std::fs::write(path, summary(ws)).unwrap();
    }
}

/// The allow-listed cycle (its walk) that `files` is part of, if any: a
/// cycle that lost files is not new, only smaller.
fn listed_in<'a>(allowed: &'a BTreeMap<Key, String>, (name, files): &Key) -> Option<&'a String> {
    allowed
        .iter()
        .find(|((n, listed), _)| n == name && files.is_subset(listed))
        .map(|(_, walk)| walk)
}

#[test]
fn every_import_cycle_is_allow_listed() {
    let ws = workspace();
    report(&ws);
    let allowed = allowed();
    let new: Vec<String> = found(&ws)
        .into_iter()
        .filter(|(key, _)| listed_in(&allowed, key).is_none())
        .map(|((name, _), walk)| format!("  {name}: {walk}"))
        .collect();
    assert!(
        new.is_empty(),
        "{} new file-level import cycle(s) (or a listed one that gained a file); \
         break them: what both sides use moves to a module of its own, or the \
         lower module stops reaching up:\n{}\n\n{}",
        new.len(),
        new.join("\n"),
        summary(&ws)
    );
}

#[test]
fn every_allow_listed_cycle_still_exists() {
    let ws = workspace();
    let found = found(&ws);
    let mut stale = Vec::new();
    for ((name, files), walk) in allowed() {
        if found.contains_key(&(name.clone(), files.clone())) {
            continue;
        }
        let smaller: Vec<&String> = found
            .iter()
            .filter(|((n, f), _)| *n == name && f.is_subset(&files))
            .map(|(_, w)| w)
            .collect();
        if smaller.is_empty() {
            stale.push(format!("  {name}: {walk}\n    is gone: take it out"));
        } else {
            let now: Vec<String> = smaller
                .iter()
                .map(|w| format!("(\"{name}\", \"{w}\")"))
                .collect();
            stale.push(format!(
                "  {name}: {walk}\n    shrank to: {}",
                now.join(", ")
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "{} allow-listed import cycle(s) are gone or smaller; the list only \
         shrinks, update ALLOWED in {}:\n{}",
        stale.len(),
        file!(),
        stale.join("\n")
    );
}

#[test]
fn the_allow_list_is_well_formed() {
    let mut seen = BTreeSet::new();
    for (name, walk) in ALLOWED {
        assert!(crates_dir().join(name).join("src").is_dir(), "{name}");
        let files: Vec<&str> = walk.split(" -> ").collect();
        assert!(files.len() >= 3, "{name}: {walk}");
        assert_eq!(files.first(), files.last(), "{name}: {walk} is not closed");
        assert!(
            seen.insert((name, Cycle::files_of_walk(walk))),
            "{name}: {walk} twice"
        );
    }
}

#[test]
fn the_scan_sees_every_crate() {
    // A scanner that silently found nothing would pass the two checks
    // above with an empty list.
    let ws = workspace();
    assert!(ws.len() >= 10, "{:?}", ws.keys());
    for (name, graph) in &ws {
        assert!(
            graph.files.iter().any(|f| f == "lib.rs" || f == "main.rs"),
            "{name}"
        );
    }
    let testbench = &ws["cohost-testbench"];
    let edges = testbench.named_edges();
    assert!(
        edges.contains(&("bench.rs", "config.rs")),
        "cohost-testbench: {edges:?}"
    );
    assert!(testbench.files.iter().any(|f| f == "modgraph.rs"));
    assert!(!testbench.files.iter().any(|f| f.ends_with("_tests.rs")));
}
