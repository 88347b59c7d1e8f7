//! Who reaches the process-wide sanitizer (issue 31): the binary, and the
//! files listed here until they are given the sanitizer as a value.
//!
//! The rule (`cohost_core::sanitize`'s module doc, the book's
//! dev/architecture.md): the composition root builds one `Sanitizer` and
//! hands it to every boundary, so only `cohost-cli` may read the global
//! (`sanitize::install`, `global`, `shared`, and the free functions
//! `sanitize`, `sanitize_json`, `sanitize_text_or_json` that use it). A
//! library that reaches it sanitizes with whatever this process installed,
//! and no test can tell. This check reads every crate's non-test code
//! (`cohost_testbench::modgraph::named_paths`) and counts, per file, the
//! paths that name the global's API: `cohost_core::sanitize::global` and
//! its siblings, `sanitize::global` after the module was imported, and
//! `cohost_core::sanitize` itself (the function) in a file that does not
//! use the module by name. A file not listed fails with one; a listed file
//! with more than its count fails; a listed file with fewer says so, so its
//! number comes down (the list only shrinks).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cohost_testbench::modgraph::{is_test_file, named_paths};

/// `(file, uses)`: who still reaches the global. `cohost-cli/src/secrets.rs`
/// is the binary's one read of it (it installs it and hands it on); every
/// library crate is handed a value.
const ALLOWED: &[(&str, usize)] = &[("cohost-cli/src/secrets.rs", 4)];

/// The functions of `cohost_core::sanitize` that use the process-wide one.
const GLOBAL_API: &[&str] = &[
    "install",
    "global",
    "shared",
    "warm_up",
    "sanitize",
    "sanitize_json",
    "sanitize_text_or_json",
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn sources(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if path.is_dir() {
            sources(&path, &rel, out);
        } else if rel.ends_with(".rs") {
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// How many paths in `src` name the global's API.
fn uses(src: &str, in_core: bool) -> usize {
    let paths = named_paths(src);
    let root = |s: &str| s == "cohost_core" || (in_core && s == "crate");
    let module_by_name = paths.iter().any(|p| p.len() > 1 && p[0] == "sanitize");
    paths
        .iter()
        .filter(|p| match p.as_slice() {
            [r, m, f] if root(r) && m == "sanitize" => GLOBAL_API.contains(&f.as_str()),
            [m, f] if m == "sanitize" => GLOBAL_API.contains(&f.as_str()),
            [r, m] if root(r) && m == "sanitize" => !module_by_name,
            _ => false,
        })
        .count()
}

/// `crate/src/file` to its count, for every file with one.
fn found() -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        let krate = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files = Vec::new();
        sources(&src, "", &mut files);
        for (rel, text) in files {
            // The sanitizer's own module defines the global.
            let own = krate == "cohost-core" && rel.starts_with("sanitize");
            if own || is_test_file(&rel) {
                continue;
            }
            let n = uses(&text, krate == "cohost-core");
            if n > 0 {
                out.insert(format!("{krate}/src/{rel}"), n);
            }
        }
    }
    out
}

#[test]
fn only_listed_files_reach_the_process_wide_sanitizer() {
    let allowed: BTreeMap<&str, usize> = ALLOWED.iter().copied().collect();
    let found = found();
    let mut wrong = Vec::new();
    for (file, n) in &found {
        match allowed.get(file.as_str()) {
            None => wrong.push(format!(
                "{file}: {n} use(s) of the process-wide sanitizer; take the sanitizer as a value (its host's, its state's) instead"
            )),
            Some(max) if n > max => wrong.push(format!(
                "{file}: {n} uses of the process-wide sanitizer, {max} allowed"
            )),
            Some(max) if n < max => {
                println!("{file}: {n} uses now, {max} listed: lower its number in ALLOWED");
            }
            Some(_) => {}
        }
    }
    for (file, _) in ALLOWED.iter().filter(|(f, _)| !found.contains_key(*f)) {
        println!("{file} no longer reaches the process-wide sanitizer: take it out of ALLOWED");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The count reads what the rule means: a qualified call, an imported
/// function, the module's functions by name; not the module's pure helpers,
/// a method on a value, or test code.
#[test]
fn the_count_reads_calls_and_imports_not_helpers_or_values() {
    let src = r#"
        use cohost_core::sanitize::{self, inert_line, Sanitizer};
        fn a(s: &Sanitizer, x: &str) -> String {
            let _ = inert_line(x);
            let _ = s.sanitize(x);
            let _ = sanitize::global();
            cohost_core::sanitize::sanitize_json(&mut serde_json::Value::Null);
            cohost_core::sanitize::strip_controls(x).into_owned()
        }
        #[cfg(test)]
        mod tests {
            fn t() { let _ = cohost_core::sanitize::global(); }
        }
    "#;
    assert_eq!(uses(src, false), 2);
    let imported =
        "use cohost_core::{sanitize, ErrorCode};\nfn f(x: &str) -> String { sanitize(x) }";
    assert_eq!(uses(imported, false), 1);
    let core = "fn f() { let _ = crate::sanitize::shared(); }";
    assert_eq!(uses(core, true), 1);
    assert_eq!(uses(core, false), 0);
}
