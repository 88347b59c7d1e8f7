//! The book (`docs/book`) and the README have no broken link: every page
//! the summary names exists, every page is in the summary, and every
//! relative link or image points at a file inside the book (the only files
//! `mdbook build` publishes) and, with a `#fragment`, at a heading of that
//! page. Links to other sites are not followed (CI has no internet).

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn book_src() -> PathBuf {
    repo().join("docs/book/src")
}

/// A page's text with mdBook's `{{#include FILE}}` lines replaced by the
/// file, as mdBook renders it.
fn page_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| {
            match line
                .trim()
                .strip_prefix("{{#include ")
                .and_then(|l| l.strip_suffix("}}"))
            {
                Some(inc) => {
                    let target = path.parent().unwrap().join(inc.trim());
                    std::fs::read_to_string(&target).unwrap_or_else(|e| {
                        panic!("{}: include {}: {e}", path.display(), target.display())
                    })
                }
                None => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// mdBook's heading id: the heading's text, lower-cased, whitespace to `-`,
/// anything but letters, digits, `_` and `-` dropped; a repeated id gets
/// `-1`, `-2`, ...
fn heading_id(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The heading ids and the link targets of one Markdown text.
fn scan(text: &str) -> (BTreeSet<String>, Vec<String>) {
    let mut ids = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut links = Vec::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let id = heading_id(&heading.take().unwrap_or_default());
                let n = seen.entry(id.clone()).or_insert(0);
                ids.insert(if *n == 0 { id } else { format!("{id}-{n}") });
                *n += 1;
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push(dest_url.to_string());
            }
            _ => {}
        }
    }
    (ids, links)
}

fn external(link: &str) -> bool {
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|p| link.starts_with(p))
}

/// `a/./b/../c` without touching the file system (the target may be missing).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Every broken link of `file` (its text `text`), each as one line;
/// `root` is the folder links must stay in.
fn broken_links(file: &Path, text: &str, root: &Path) -> Vec<String> {
    let (own_ids, links) = scan(text);
    let mut broken = Vec::new();
    for link in links.iter().filter(|l| !external(l)) {
        let (path, fragment) = link.split_once('#').unwrap_or((link, ""));
        let target = if path.is_empty() {
            file.to_path_buf()
        } else {
            normal(&file.parent().unwrap().join(path))
        };
        if !target.starts_with(root) {
            broken.push(format!(
                "{}: {link}: outside {}",
                file.display(),
                root.display()
            ));
        } else if !target.exists() {
            broken.push(format!("{}: {link}: no such file", file.display()));
        } else if !fragment.is_empty() {
            let ids = if target == file {
                own_ids.clone()
            } else if target.extension().is_some_and(|e| e == "md") {
                scan(&page_text(&target)).0
            } else {
                broken.push(format!(
                    "{}: {link}: a fragment of a file that is not a page",
                    file.display()
                ));
                continue;
            };
            if !ids.contains(fragment) {
                broken.push(format!(
                    "{}: {link}: no heading with id {fragment:?}",
                    file.display()
                ));
            }
        }
    }
    broken
}

fn pages() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![book_src()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(normal(&path));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_page_is_in_the_summary_and_every_summary_entry_exists() {
    let summary = normal(&book_src().join("SUMMARY.md"));
    let (_, links) = scan(&page_text(&summary));
    let listed: BTreeSet<PathBuf> = links.iter().map(|l| normal(&book_src().join(l))).collect();
    for page in &listed {
        assert!(
            page.exists(),
            "SUMMARY.md names {} which does not exist",
            page.display()
        );
    }
    let orphans: Vec<_> = pages()
        .into_iter()
        .filter(|p| p != &summary && !listed.contains(p))
        .collect();
    assert!(
        orphans.is_empty(),
        "pages not in SUMMARY.md (mdBook would not publish them): {orphans:?}"
    );
}

#[test]
fn no_page_of_the_book_has_a_broken_link() {
    let root = normal(&book_src());
    let broken: Vec<String> = pages()
        .iter()
        .flat_map(|p| broken_links(p, &page_text(p), &root))
        .collect();
    assert!(
        broken.is_empty(),
        "broken links in the book:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_readme_has_no_broken_link() {
    let readme = normal(&repo().join("README.md"));
    let root = normal(&repo());
    let broken = broken_links(&readme, &page_text(&readme), &root);
    assert!(
        broken.is_empty(),
        "broken links in README.md:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_checker_finds_what_it_must() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = normal(tmp.path());
    let page = dir.join("a.md");
    std::fs::write(dir.join("b.md"), "# Other page\n\n## Its `part` two\n").unwrap();
    let text = "# Title\n\n## Same\n\n## Same\n\n[ok](#same-1) [ok](b.md#its-part-two) [ok](https://x.invalid/y)\n\
                [bad](#nope) [bad](c.md) [bad](b.md#title) [bad](../outside.md) ![bad](missing.png)\n";
    std::fs::write(&page, text).unwrap();
    let broken = broken_links(&page, text, &dir);
    assert_eq!(broken.len(), 5, "{broken:#?}");
    for (needle, why) in [
        ("#nope", "no heading"),
        ("c.md", "no such file"),
        ("b.md#title", "no heading"),
        ("../outside.md", "outside"),
        ("missing.png", "no such file"),
    ] {
        assert!(
            broken.iter().any(|b| b.contains(needle) && b.contains(why)),
            "{needle}: {broken:#?}"
        );
    }
}

#[test]
fn heading_ids_are_mdbooks() {
    assert_eq!(
        heading_id("The agent's OS sandbox (--sandbox)"),
        "the-agents-os-sandbox---sandbox"
    );
    assert_eq!(heading_id("Exit codes"), "exit-codes");
    let (ids, _) = scan("# A\n\n# A\n\n## `cohost run` flags\n");
    assert_eq!(
        ids,
        ["a", "a-1", "cohost-run-flags"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}
