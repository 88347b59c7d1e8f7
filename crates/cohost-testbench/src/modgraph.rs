//! The file-level import graph of one crate and its cycles (issue 31).
//!
//! An equivalent of `cargo modules dependencies --acyclic` that needs no
//! extra build: for one crate's `src/` directory, [`CrateGraph`] follows the
//! `mod` declarations from every crate root (`lib.rs`, `main.rs`,
//! `bin/*.rs`, `bin/*/main.rs`; `#[path]` and inline `mod m { .. }`
//! included) to the module files, then adds the edge "file A uses file B"
//! for every path in A that names a module of the crate:
//!
//! - `use crate::a::b::Item`, `use super::x`, `use self::x`, `use child::x`,
//!   brace lists (`use crate::{a::b, c}`) and globs;
//! - paths in code: `crate::a::f()`, `super::x::Y`, `$crate::a::m!`,
//!   `child::f()` (a child module of the current one).
//!
//! A path goes to the deepest module that exists (`crate::a::b::Item` is
//! `a/b.rs` when that module exists, else `a.rs` or `a/mod.rs`); inline
//! modules belong to the file they are written in. A parent's `mod child;`
//! and `pub use child::X` (any `pub(..)` re-export of something below the
//! file's own module) are how a crate builds its API and are not edges; a
//! parent's plain `use child::X` or `child::f()`, and a child's
//! `use super::X`, are.
//!
//! Test code is left out: items under `#[cfg(test)]` (modules, functions,
//! `use` lines), and files named `tests.rs` or `*_tests.rs` or under a
//! `tests/` folder. Comments and string literals never count: the scanner
//! works on tokens, not on lines.
//!
//! [`CrateGraph::cycles`] lists the strongly connected components (Tarjan)
//! with more than one file, each as a closed walk through all its files,
//! `a.rs -> b.rs -> a.rs`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::io;
use std::path::Path;

/// The files of one crate's module tree and which file uses which.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateGraph {
    /// Every non-test module file, relative to `src/` with `/` separators,
    /// sorted.
    pub files: Vec<String>,
    /// `(from, to)`: `files[from]` uses something of `files[to]`.
    pub edges: BTreeSet<(usize, usize)>,
}

/// One import cycle: a strongly connected component of more than one file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cycle {
    /// The files in the component, sorted.
    pub files: Vec<String>,
    /// A closed walk through every file of the component along real edges,
    /// from the first file back to it.
    pub walk: Vec<String>,
    /// Every edge between two files of the component, sorted: what to cut.
    pub edges: Vec<(String, String)>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.walk.join(" -> "))
    }
}

impl Cycle {
    /// The set of files a walk written as `a.rs -> b.rs -> a.rs` passes
    /// through: what identifies a cycle in an allow-list, whatever order
    /// the walk took.
    pub fn files_of_walk(walk: &str) -> BTreeSet<String> {
        walk.split("->")
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty())
            .collect()
    }
}

impl CrateGraph {
    /// Reads every `.rs` file under `src` and builds the graph.
    pub fn scan(src: &Path) -> io::Result<Self> {
        let mut sources = BTreeMap::new();
        read_tree(src, src, &mut sources)?;
        Ok(Self::from_sources(&sources))
    }

    /// Builds the graph from in-memory sources: path relative to `src/`
    /// (`/` separators, e.g. `lib.rs`, `a/mod.rs`) to contents.
    pub fn from_sources(sources: &BTreeMap<String, String>) -> Self {
        Builder::new(sources).build()
    }

    /// The edges by file name, sorted.
    pub fn named_edges(&self) -> Vec<(&str, &str)> {
        self.edges
            .iter()
            .map(|&(a, b)| (self.files[a].as_str(), self.files[b].as_str()))
            .collect()
    }

    /// Every strongly connected component with more than one file, sorted
    /// by its first file.
    pub fn cycles(&self) -> Vec<Cycle> {
        let n = self.files.len();
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in &self.edges {
            adj[a].push(b);
        }
        let mut cycles: Vec<Cycle> = tarjan(&adj)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|mut members| {
                members.sort_unstable();
                let walk = closed_walk(&adj, &members)
                    .into_iter()
                    .map(|i| self.files[i].clone())
                    .collect();
                let edges = self
                    .edges
                    .iter()
                    .filter(|(a, b)| members.contains(a) && members.contains(b))
                    .map(|&(a, b)| (self.files[a].clone(), self.files[b].clone()))
                    .collect();
                Cycle {
                    files: members.iter().map(|&i| self.files[i].clone()).collect(),
                    walk,
                    edges,
                }
            })
            .collect();
        cycles.sort();
        cycles
    }
}

fn read_tree(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            read_tree(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.insert(rel.join("/"), std::fs::read_to_string(&path)?);
        }
    }
    Ok(())
}

/// Every path the non-test code of one file names, as segments: each leaf
/// of a `use` tree (`use a::{b, c::d}` is `a::b` and `a::c::d`) and each
/// path in code (`a::f()`). What a check of who reaches an item reads (the
/// process-wide sanitizer, issue 31), with test code left out as for the
/// graph.
pub fn named_paths(src: &str) -> Vec<Vec<String>> {
    scan_file(src)
        .refs
        .into_iter()
        .map(|r| r.segments)
        .collect()
}

/// True for files only tests compile: `tests.rs`, `*_tests.rs`, or
/// anything under a `tests/` folder.
pub fn is_test_file(rel: &str) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    name == "tests.rs" || name.ends_with("_tests.rs") || parts.contains(&"tests")
}

// ---------------------------------------------------------------------------
// Tokens.

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// An identifier or keyword (`r#x` is `x`; `$crate` keeps its `$`).
    Ident(String),
    /// A string literal's raw text (only `#[path = ".."]` reads it).
    Str(String),
    /// A number, char or lifetime: never part of a module path.
    Lit,
    /// `::`, or any other single punctuation character.
    Punct(&'static str),
}

fn is_ident_start(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphabetic() || b >= 0x80
}

fn is_ident_char(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80
}

/// Rust source to tokens, dropping comments and whitespace. Strings
/// (plain, raw, byte, C), chars and lifetimes are single tokens, so
/// nothing inside them looks like a path.
fn tokenize(src: &str) -> Vec<Tok> {
    const PUNCT: &[&str] = &[
        "{", "}", "(", ")", "[", "]", ";", ",", ".", "#", "!", "=", "<", ">", "*", "&", "|", "+",
        "-", "/", "%", "^", "@", "?", "~", ":", "$",
    ];
    let s = src.as_bytes();
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'/' && at(i + 1) == b'/' {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && at(i + 1) == b'*' {
            let mut depth = 0usize;
            while i < s.len() {
                if s[i] == b'/' && at(i + 1) == b'*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == b'*' && at(i + 1) == b'/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some((len, hashes)) = raw_string_start(s, i) {
            // r"..", r#".."#, br"..", cr#".."#
            let body = i + len;
            let mut j = body;
            let text_end;
            loop {
                if j >= s.len() {
                    text_end = s.len();
                    break;
                }
                if s[j] == b'"' && (1..=hashes).all(|k| at(j + k) == b'#') {
                    text_end = j;
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push(Tok::Str(
                String::from_utf8_lossy(&s[body..text_end]).into_owned(),
            ));
            i = j;
        } else if c == b'"' || ((c == b'b' || c == b'c') && at(i + 1) == b'"') {
            let body = if c == b'"' { i + 1 } else { i + 2 };
            let mut j = body;
            while j < s.len() && s[j] != b'"' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(s.len());
            out.push(Tok::Str(
                String::from_utf8_lossy(&s[body..end]).into_owned(),
            ));
            i = end + 1;
        } else if c == b'b' && at(i + 1) == b'\'' {
            i = char_literal_end(s, i + 1);
            out.push(Tok::Lit);
        } else if c == b'\'' {
            // A char literal ('x', '\n', 'é') or a lifetime ('a, 'static).
            let next = at(i + 1);
            let width = utf8_width(next);
            if next == b'\\' || at(i + 1 + width) == b'\'' {
                i = char_literal_end(s, i);
            } else {
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
            }
            out.push(Tok::Lit);
        } else if c == b'r' && at(i + 1) == b'#' && is_ident_start(at(i + 2)) {
            let start = i + 2;
            i = start;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Tok::Ident(
                String::from_utf8_lossy(&s[start..i]).into_owned(),
            ));
        } else if is_ident_start(c) || (c == b'$' && is_ident_start(at(i + 1))) {
            let start = i;
            i += 1;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Tok::Ident(
                String::from_utf8_lossy(&s[start..i]).into_owned(),
            ));
        } else if c.is_ascii_digit() {
            while i < s.len()
                && (is_ident_char(s[i]) || (s[i] == b'.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
            out.push(Tok::Lit);
        } else if c == b':' && at(i + 1) == b':' {
            out.push(Tok::Punct("::"));
            i += 2;
        } else {
            let p = PUNCT
                .iter()
                .find(|p| p.as_bytes()[0] == c)
                .copied()
                .unwrap_or("?");
            out.push(Tok::Punct(p));
            i += 1;
        }
    }
    out
}

/// At `i`, a raw string's opening (`r"`, `br#"`, `cr##"`): the length of
/// the opening and the number of `#`.
fn raw_string_start(s: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if matches!(s.get(j), Some(b'b' | b'c')) {
        j += 1;
    }
    if s.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while s.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    (s.get(j) == Some(&b'"')).then_some((j + 1 - i, hashes))
}

/// Past the closing quote of the char literal opening at `i` (a `'`).
fn char_literal_end(s: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < s.len() && s[j] != b'\'' && s[j] != b'\n' {
        j += if s[j] == b'\\' { 2 } else { 1 };
    }
    j + 1
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

// ---------------------------------------------------------------------------
// One file: its `mod` declarations and the paths it names.

/// A `mod` declaration, relative to the file's own module.
#[derive(Debug)]
struct ModDecl {
    /// Inline modules enclosing the declaration (empty: top of the file).
    within: Vec<String>,
    name: String,
    /// `mod name { .. }` rather than `mod name;`.
    inline: bool,
    /// The `#[path = ".."]` value.
    path: Option<String>,
}

/// A path naming something, maybe in this crate.
#[derive(Debug)]
struct PathRef {
    within: Vec<String>,
    segments: Vec<String>,
    /// Written in a `pub use` / `pub(..) use`.
    reexport: bool,
}

#[derive(Debug, Default)]
struct FileScan {
    mods: Vec<ModDecl>,
    refs: Vec<PathRef>,
}

fn is_punct(t: Option<&Tok>, p: &str) -> bool {
    matches!(t, Some(Tok::Punct(q)) if *q == p)
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

fn scan_file(src: &str) -> FileScan {
    let toks = tokenize(src);
    let mut out = FileScan::default();
    // Inline modules we are in, with the brace depth inside each.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut test_attr = false;
    let mut path_attr: Option<String> = None;
    let mut i = 0;
    while i < toks.len() {
        let within = || inline.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        match &toks[i] {
            Tok::Punct("#") => {
                let inner = is_punct(toks.get(i + 1), "!");
                let open = if inner { i + 2 } else { i + 1 };
                if !is_punct(toks.get(open), "[") {
                    i += 1;
                    continue;
                }
                let close = group_end(&toks, open);
                let attr = &toks[open + 1..close.saturating_sub(1).max(open + 1)];
                if is_cfg_test(attr) {
                    if inner && inline.is_empty() && depth == 0 {
                        // #![cfg(test)]: the whole file is test code.
                        return FileScan::default();
                    }
                    test_attr |= !inner;
                }
                if let (Some("path"), true, Some(Tok::Str(p))) =
                    (ident(attr.first()), is_punct(attr.get(1), "="), attr.get(2))
                {
                    path_attr = Some(p.clone());
                }
                i = close;
                continue;
            }
            _ if test_attr => {
                i = skip_item(&toks, i);
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let Some(name) = ident(toks.get(i + 1)) {
                    let name = name.to_string();
                    if is_punct(toks.get(i + 2), "{") {
                        out.mods.push(ModDecl {
                            within: within(),
                            name: name.clone(),
                            inline: true,
                            path: path_attr.take(),
                        });
                        depth += 1;
                        inline.push((name, depth));
                        i += 3;
                    } else {
                        out.mods.push(ModDecl {
                            within: within(),
                            name,
                            inline: false,
                            path: path_attr.take(),
                        });
                        i += 2;
                    }
                } else {
                    i += 1;
                }
            }
            Tok::Ident(kw)
                if kw == "use"
                    && matches!(
                        toks.get(i + 1),
                        Some(Tok::Ident(_) | Tok::Punct("::" | "{"))
                    ) =>
            {
                let reexport = is_visibility_before(&toks, i);
                let mut trees = Vec::new();
                let mut j = i + 1;
                use_tree(&toks, &mut j, &[], &mut trees);
                for segments in trees {
                    out.refs.push(PathRef {
                        within: within(),
                        segments,
                        reexport,
                    });
                }
                while j < toks.len() && !is_punct(toks.get(j), ";") {
                    j += 1;
                }
                i = j + 1;
            }
            Tok::Ident(first)
                if is_punct(toks.get(i + 1), "::")
                    && !is_punct(i.checked_sub(1).and_then(|p| toks.get(p)), "::")
                    && !is_punct(i.checked_sub(1).and_then(|p| toks.get(p)), ".")
                    && !is_visibility_in(&toks, i) =>
            {
                let mut segments = vec![first.clone()];
                let mut j = i + 1;
                while is_punct(toks.get(j), "::") {
                    match ident(toks.get(j + 1)) {
                        Some(s) => {
                            segments.push(s.to_string());
                            j += 2;
                        }
                        None => break,
                    }
                }
                out.refs.push(PathRef {
                    within: within(),
                    segments,
                    reexport: false,
                });
                i = j;
            }
            Tok::Punct("{") => {
                depth += 1;
                i += 1;
            }
            Tok::Punct("}") => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
        test_attr = false;
        path_attr = None;
    }
    out
}

/// `cfg(test)`, `cfg(all(test, ..))`: a `cfg` naming `test`, without `not`.
fn is_cfg_test(attr: &[Tok]) -> bool {
    ident(attr.first()) == Some("cfg")
        && attr.iter().any(|t| ident(Some(t)) == Some("test"))
        && !attr.iter().any(|t| ident(Some(t)) == Some("not"))
}

/// Past the bracket group opening at `open` (`(`, `[` or `{`).
fn group_end(toks: &[Tok], open: usize) -> usize {
    let mut depth = 0usize;
    let mut j = open;
    while j < toks.len() {
        match toks[j] {
            Tok::Punct("(" | "[" | "{") => depth += 1,
            Tok::Punct(")" | "]" | "}") => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    toks.len()
}

/// Past the item (or field, or statement) starting at `i`, which a
/// `#[cfg(test)]` left out: up to its `;` or the end of its body, or up to
/// (not past) a closing bracket of the enclosing group.
fn skip_item(toks: &[Tok], i: usize) -> usize {
    let mut j = i;
    if ident(toks.get(j)) == Some("pub") {
        j += 1;
        if is_punct(toks.get(j), "(") {
            j = group_end(toks, j);
        }
    }
    let kind = ident(toks.get(j)).unwrap_or_default();
    let next = ident(toks.get(j + 1)).unwrap_or_default();
    let semi_only = matches!(kind, "use" | "static" | "type" | "let")
        || (kind == "const" && !matches!(next, "fn" | "unsafe" | "async" | "extern"))
        || (kind == "extern" && next == "crate");
    const ITEMS: &[&str] = &[
        "use",
        "static",
        "type",
        "let",
        "const",
        "extern",
        "fn",
        "async",
        "unsafe",
        "impl",
        "struct",
        "enum",
        "union",
        "trait",
        "mod",
        "macro_rules",
    ];
    let comma_ends = !ITEMS.contains(&kind);
    let mut depth = 0usize;
    while j < toks.len() {
        match toks[j] {
            Tok::Punct("(" | "[" | "{") => depth += 1,
            Tok::Punct(")" | "]" | "}") => {
                if depth == 0 {
                    return j;
                }
                depth -= 1;
                if depth == 0 && !semi_only && matches!(toks[j], Tok::Punct("}")) {
                    return j + 1;
                }
            }
            Tok::Punct(";") if depth == 0 => return j + 1,
            Tok::Punct(",") if depth == 0 && comma_ends => return j + 1,
            _ => {}
        }
        j += 1;
    }
    toks.len()
}

/// The `use` at `i` has a visibility: `pub use`, `pub(crate) use`.
fn is_visibility_before(toks: &[Tok], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1) else {
        return false;
    };
    if ident(toks.get(prev)) == Some("pub") {
        return true;
    }
    if !is_punct(toks.get(prev), ")") {
        return false;
    }
    // Back to the `(` of `pub(..)`.
    let mut j = prev;
    while j > 0 && !is_punct(toks.get(j), "(") {
        j -= 1;
    }
    j > 0 && ident(toks.get(j - 1)) == Some("pub")
}

/// The path at `i` is the `crate::x` of `pub(in crate::x)`.
fn is_visibility_in(toks: &[Tok], i: usize) -> bool {
    i >= 3
        && ident(toks.get(i - 1)) == Some("in")
        && is_punct(toks.get(i - 2), "(")
        && ident(toks.get(i - 3)) == Some("pub")
}

/// One use tree at `*i` (after `use`, or inside braces), its leaves as
/// full paths appended to `out`.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut segments = prefix.to_vec();
    if is_punct(toks.get(*i), "::") {
        // `use ::name`: another crate, never this one.
        if prefix.is_empty() {
            segments.push("::".to_string());
        }
        *i += 1;
    }
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(name)) => {
                // `{self, ..}` is the prefix itself.
                if !(name == "self" && !prefix.is_empty() && segments.len() == prefix.len()) {
                    segments.push(name.clone());
                }
                *i += 1;
                if is_punct(toks.get(*i), "::") {
                    *i += 1;
                    continue;
                }
                if ident(toks.get(*i)) == Some("as") {
                    *i += 2;
                }
                out.push(segments);
                return;
            }
            Some(Tok::Punct("*")) => {
                *i += 1;
                out.push(segments);
                return;
            }
            Some(Tok::Punct("{")) => {
                *i += 1;
                while *i < toks.len() && !is_punct(toks.get(*i), "}") {
                    let before = *i;
                    use_tree(toks, i, &segments, out);
                    // Past the comma, or past a token no tree starts with.
                    if is_punct(toks.get(*i), ",") || *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => {
                if segments.len() > prefix.len() {
                    out.push(segments);
                }
                return;
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The module tree and the graph.

#[derive(Debug)]
struct Module {
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// The file the module is written in.
    file: String,
    /// Where its `mod x;` children live (`x.rs` / `x/mod.rs` in there).
    child_dir: String,
    /// The module of the file itself (differs for inline modules).
    file_module: usize,
}

struct Builder<'a> {
    sources: &'a BTreeMap<String, String>,
    scans: BTreeMap<String, FileScan>,
    modules: Vec<Module>,
    /// Every (module, file) pair reached from a crate root: a file's
    /// paths are read in the module it is declared as.
    visits: Vec<(usize, String)>,
}

fn parent_dir(rel: &str) -> String {
    rel.rsplit_once('/')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default()
}

fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// Where a file module's `mod x;` children live: its own folder for
/// `mod.rs`, `lib.rs`, `main.rs` (and a crate root), else `a/b.rs` ->
/// `a/b/`.
fn child_dir_of(file: &str, is_root: bool) -> String {
    let dir = parent_dir(file);
    let name = file.rsplit('/').next().unwrap_or(file);
    if is_root || name == "mod.rs" {
        dir
    } else {
        join(&dir, name.trim_end_matches(".rs"))
    }
}

impl<'a> Builder<'a> {
    fn new(sources: &'a BTreeMap<String, String>) -> Self {
        Self {
            sources,
            scans: BTreeMap::new(),
            modules: Vec::new(),
            visits: Vec::new(),
        }
    }

    fn roots(&self) -> Vec<String> {
        self.sources
            .keys()
            .filter(|f| {
                let parts: Vec<&str> = f.split('/').collect();
                matches!(
                    parts.as_slice(),
                    ["lib.rs"] | ["main.rs"] | ["bin", _, "main.rs"]
                ) || (parts.len() == 2 && parts[0] == "bin")
            })
            .cloned()
            .collect()
    }

    fn new_module(&mut self, parent: Option<usize>, file: &str, child_dir: String) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            parent,
            children: BTreeMap::new(),
            file: file.to_string(),
            child_dir,
            file_module: id,
        });
        id
    }

    fn build(mut self) -> CrateGraph {
        for root in self.roots() {
            let top = self.new_module(None, &root, child_dir_of(&root, true));
            let mut queue = VecDeque::from([(top, root)]);
            while let Some((module, file)) = queue.pop_front() {
                self.visits.push((module, file.clone()));
                let scan = self
                    .scans
                    .entry(file.clone())
                    .or_insert_with(|| scan_file(&self.sources[&file]));
                let decls: Vec<(Vec<String>, String, bool, Option<String>)> = scan
                    .mods
                    .iter()
                    .map(|d| (d.within.clone(), d.name.clone(), d.inline, d.path.clone()))
                    .collect();
                for (within, name, inline, path) in decls {
                    let Some(parent) = self.descend(module, &within) else {
                        continue;
                    };
                    if inline {
                        let dir = join(&self.modules[parent].child_dir, &name);
                        let id = self.new_module(Some(parent), &file, dir);
                        self.modules[id].file_module = module;
                        self.modules[parent].children.insert(name, id);
                        continue;
                    }
                    let base = &self.modules[parent].child_dir;
                    let candidates = match &path {
                        // Outside inline modules `#[path]` is relative to
                        // the file's folder, inside them to the module's.
                        Some(p) if within.is_empty() => vec![join(&parent_dir(&file), p)],
                        Some(p) => vec![join(base, p)],
                        None => vec![
                            join(base, &format!("{name}.rs")),
                            join(base, &format!("{name}/mod.rs")),
                        ],
                    };
                    let Some(child) = candidates
                        .into_iter()
                        .find(|c| self.sources.contains_key(c))
                    else {
                        continue;
                    };
                    if is_test_file(&child) {
                        continue;
                    }
                    let id = self.new_module(Some(parent), &child, child_dir_of(&child, false));
                    self.modules[parent].children.insert(name, id);
                    queue.push_back((id, child));
                }
            }
        }
        self.graph()
    }

    /// The inline module `within` below `module`.
    fn descend(&self, module: usize, within: &[String]) -> Option<usize> {
        within.iter().try_fold(module, |m, name| {
            self.modules[m].children.get(name).copied()
        })
    }

    fn is_below(&self, mut m: usize, ancestor: usize) -> bool {
        while let Some(p) = self.modules[m].parent {
            if p == ancestor {
                return true;
            }
            m = p;
        }
        false
    }

    /// The deepest module `segments` names from `ctx`, if it is this crate's.
    fn resolve(&self, ctx: usize, segments: &[String]) -> Option<usize> {
        let first = segments.first()?;
        let (mut m, rest) = match first.as_str() {
            "crate" | "$crate" => {
                let mut root = ctx;
                while let Some(p) = self.modules[root].parent {
                    root = p;
                }
                (root, &segments[1..])
            }
            "self" => (ctx, &segments[1..]),
            "super" => (self.modules[ctx].parent?, &segments[1..]),
            name if self.modules[ctx].children.contains_key(name) => (ctx, segments),
            _ => return None,
        };
        for s in rest {
            if s == "super" {
                m = self.modules[m].parent?;
            } else if let Some(&c) = self.modules[m].children.get(s) {
                m = c;
            } else {
                break;
            }
        }
        Some(m)
    }

    fn graph(&self) -> CrateGraph {
        let files: Vec<String> = self
            .visits
            .iter()
            .map(|(_, f)| f.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let index: BTreeMap<&str, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.as_str(), i))
            .collect();
        let mut edges = BTreeSet::new();
        for (module, file) in &self.visits {
            let Some(scan) = self.scans.get(file) else {
                continue;
            };
            for r in &scan.refs {
                let Some(ctx) = self.descend(*module, &r.within) else {
                    continue;
                };
                let Some(target) = self.resolve(ctx, &r.segments) else {
                    continue;
                };
                let to = &self.modules[target].file;
                if to == file {
                    continue;
                }
                // A re-export of something below the file: the crate's API.
                if r.reexport && self.is_below(target, self.modules[ctx].file_module) {
                    continue;
                }
                if let (Some(&a), Some(&b)) = (index.get(file.as_str()), index.get(to.as_str())) {
                    edges.insert((a, b));
                }
            }
        }
        CrateGraph { files, edges }
    }
}

// ---------------------------------------------------------------------------
// Strongly connected components.

/// Tarjan's algorithm: every strongly connected component of `adj`.
fn tarjan(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.adj[v].len() {
            let w = s.adj[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = adj.len();
    let mut s = State {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// A closed walk from `members[0]` through every member (sorted, one
/// strongly connected component) and back: each time the nearest file not
/// yet passed (breadth first, neighbours in order).
fn closed_walk(adj: &[Vec<usize>], members: &[usize]) -> Vec<usize> {
    let inside: BTreeSet<usize> = members.iter().copied().collect();
    let Some(&start) = members.first() else {
        return Vec::new();
    };
    let shortest = |from: usize, goal: &dyn Fn(usize) -> bool| -> Vec<usize> {
        let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(v) = queue.pop_front() {
            let mut next: Vec<usize> = adj[v]
                .iter()
                .copied()
                .filter(|w| inside.contains(w))
                .collect();
            next.sort_unstable();
            for w in next {
                if w == from || prev.contains_key(&w) {
                    if w == from && goal(w) {
                        return vec![from];
                    }
                    continue;
                }
                prev.insert(w, v);
                if goal(w) {
                    let mut path = vec![w];
                    let mut x = w;
                    while let Some(&p) = prev.get(&x) {
                        if p == from {
                            break;
                        }
                        path.push(p);
                        x = p;
                    }
                    path.reverse();
                    return path;
                }
                queue.push_back(w);
            }
        }
        Vec::new()
    };
    let mut walk = vec![start];
    let mut seen: BTreeSet<usize> = BTreeSet::from([start]);
    let mut at = start;
    while seen.len() < inside.len() {
        let step = shortest(at, &|w| !seen.contains(&w));
        let Some(&last) = step.last() else {
            break;
        };
        seen.extend(step.iter().copied());
        walk.extend(step);
        at = last;
    }
    walk.extend(shortest(at, &|w| w == start));
    walk
}

#[cfg(test)]
#[path = "modgraph_tests.rs"]
mod tests;
