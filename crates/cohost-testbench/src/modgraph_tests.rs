use super::*;

fn graph(files: &[(&str, &str)]) -> CrateGraph {
    let sources = files
        .iter()
        .map(|(p, s)| (p.to_string(), s.to_string()))
        .collect();
    CrateGraph::from_sources(&sources)
}

fn edges(g: &CrateGraph) -> Vec<(String, String)> {
    g.named_edges()
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn e(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

fn walks(g: &CrateGraph) -> Vec<String> {
    g.cycles().iter().map(|c| c.to_string()).collect()
}

#[test]
fn a_two_file_cycle_is_found() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A;\n"),
        ("b.rs", "pub struct B;\nfn f() { let _ = crate::a::A; }\n"),
    ]);
    assert_eq!(g.files, ["a.rs", "b.rs", "lib.rs"]);
    assert_eq!(edges(&g), [e("a.rs", "b.rs"), e("b.rs", "a.rs")]);
    assert_eq!(walks(&g), ["a.rs -> b.rs -> a.rs"]);
    assert_eq!(g.cycles()[0].files, ["a.rs", "b.rs"]);
}

#[test]
fn no_cycle_without_a_way_back() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a.rs", "use crate::b::B;\n"),
        ("b.rs", "use crate::c::C;\n"),
        ("c.rs", "pub struct C;\n"),
    ]);
    assert_eq!(edges(&g), [e("a.rs", "b.rs"), e("b.rs", "c.rs")]);
    assert!(g.cycles().is_empty());
}

#[test]
fn a_parent_reexport_or_mod_line_is_not_an_edge() {
    let g = graph(&[
        (
            "lib.rs",
            "mod a;\npub use a::A;\npub(crate) use self::a::inner::I;\n",
        ),
        (
            "a/mod.rs",
            "pub mod inner;\npub use inner::I;\npub struct A;\n",
        ),
        ("a/inner.rs", "use super::A;\npub struct I;\n"),
    ]);
    // Only the child's `use super::A` is left.
    assert_eq!(edges(&g), [e("a/inner.rs", "a/mod.rs")]);
    assert!(g.cycles().is_empty());
}

#[test]
fn a_parent_using_its_child_and_the_child_its_parent_is_a_cycle() {
    let g = graph(&[
        ("lib.rs", "mod a;\n"),
        (
            "a/mod.rs",
            "mod inner;\nfn f() -> inner::I { inner::I }\npub struct A;\n",
        ),
        ("a/inner.rs", "use super::A;\npub struct I;\n"),
    ]);
    assert_eq!(walks(&g), ["a/inner.rs -> a/mod.rs -> a/inner.rs"]);
    // A re-export of something outside the file's own subtree is real.
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "pub use crate::b::B;\npub struct A;\n"),
        ("b.rs", "use crate::a::A;\npub struct B;\n"),
    ]);
    assert_eq!(walks(&g), ["a.rs -> b.rs -> a.rs"]);
}

#[test]
fn comments_and_strings_are_ignored() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a.rs",
            r###"
// use crate::b::B;
/* crate::b::f(); /* nested */ crate::b::g(); */
/// See [`crate::b::B`].
const S: &str = "use crate::b::B;";
const R: &str = r#"crate::b::f() "quoted" "#;
const C: char = '"';
const L: &'static str = "\" crate::b::f()";
fn f<'a>(x: &'a str) -> &'a str { x }
"###,
        ),
        ("b.rs", "use crate::a::S;\n"),
    ]);
    assert_eq!(edges(&g), [e("b.rs", "a.rs")]);
    assert!(g.cycles().is_empty());
}

#[test]
fn brace_lists_and_globs_are_followed() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("a.rs", "use crate::{b, c::C};\n"),
        ("b/mod.rs", "mod d;\nuse self::{d::{self as dd}};\n"),
        ("b/d.rs", "use super::super::{c::*};\n"),
        ("c.rs", "pub struct C;\n"),
    ]);
    assert_eq!(
        edges(&g),
        [
            e("a.rs", "b/mod.rs"),
            e("a.rs", "c.rs"),
            e("b/d.rs", "c.rs"),
            e("b/mod.rs", "b/d.rs"),
        ]
    );
}

#[test]
fn a_path_goes_to_the_deepest_module_that_exists() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod z;\n"),
        ("a.rs", "pub mod b;\npub fn f() {}\n"),
        ("a/b.rs", "pub struct Item;\n"),
        (
            "z.rs",
            "fn g() { crate::a::b::Item; crate::a::f(); crate::a::Nope::x(); }\n",
        ),
    ]);
    assert_eq!(edges(&g), [e("z.rs", "a.rs"), e("z.rs", "a/b.rs")]);
}

#[test]
fn test_code_is_left_out() {
    let g = graph(&[
        (
            "lib.rs",
            "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"b_tests.rs\"]\nmod b_more;\n",
        ),
        (
            "a.rs",
            "pub struct A;\n#[cfg(test)]\nuse crate::b::B;\n#[cfg(test)]\nfn helper() { crate::b::f() }\n#[cfg(test)]\nmod t {\n    use crate::b::B;\n}\npub fn after() {}\n",
        ),
        ("b.rs", "use crate::a::A;\n#[cfg(test)]\n#[path = \"x_tests.rs\"]\nmod x;\n"),
        ("tests.rs", "use crate::a::A;\nuse crate::b::B;\n"),
        ("b_tests.rs", "use crate::a::A;\n"),
        ("b/x_tests.rs", "use crate::a::A;\n"),
    ]);
    assert_eq!(g.files, ["a.rs", "b.rs", "lib.rs"]);
    assert_eq!(edges(&g), [e("b.rs", "a.rs")]);
    assert!(is_test_file("tests.rs"));
    assert!(is_test_file("a/b_tests.rs"));
    assert!(is_test_file("tests/x.rs"));
    assert!(!is_test_file("latests.rs"));
}

#[test]
fn a_cfg_test_file_is_left_out() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "#![cfg(test)]\nuse crate::b::B;\n"),
        ("b.rs", "use crate::a::A;\n"),
    ]);
    assert_eq!(edges(&g), [e("b.rs", "a.rs")]);
}

#[test]
fn inline_modules_and_path_attributes_are_followed() {
    let g = graph(&[
        (
            "lib.rs",
            "mod a;\npub mod api {\n    pub use crate::a::A;\n    pub mod deep { pub use crate::a::A; }\n}\n",
        ),
        (
            "a/mod.rs",
            "#[path = \"a_updates.rs\"]\nmod updates;\nmod inl {\n    mod x;\n}\npub struct A;\nfn f() { updates::u(); }\n",
        ),
        ("a/a_updates.rs", "use super::A;\npub fn u() {}\n"),
        ("a/inl/x.rs", "use crate::api::deep;\n"),
    ]);
    assert_eq!(
        g.files,
        ["a/a_updates.rs", "a/inl/x.rs", "a/mod.rs", "lib.rs"]
    );
    assert_eq!(
        edges(&g),
        [
            e("a/a_updates.rs", "a/mod.rs"),
            e("a/inl/x.rs", "lib.rs"),
            e("a/mod.rs", "a/a_updates.rs"),
        ]
    );
}

#[test]
fn method_turbofish_and_other_crates_are_not_paths_here() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a.rs",
            "mod b2;\nfn f(v: Vec<u8>) { let _ = v.iter().b2::<u8>(); std::mem::drop(v); ::b::x(); }\n",
        ),
        ("a/b2.rs", ""),
        ("b.rs", "use crate::a::*;\n"),
    ]);
    assert_eq!(edges(&g), [e("b.rs", "a.rs")]);
}

#[test]
fn binaries_are_their_own_crate_roots() {
    let g = graph(&[
        ("lib.rs", "mod a;\n"),
        ("a.rs", ""),
        ("bin/tool/main.rs", "mod x;\nmod y;\n"),
        ("bin/tool/x.rs", "use crate::y::Y;\n"),
        ("bin/tool/y.rs", "pub struct Y;\nfn f() { super::x::g() }\n"),
    ]);
    assert_eq!(
        walks(&g),
        ["bin/tool/x.rs -> bin/tool/y.rs -> bin/tool/x.rs"]
    );
}

#[test]
fn a_bigger_component_is_walked_through_every_file() {
    // One component of four files: the walk goes to the nearest file not
    // yet passed each time, then the shortest way home.
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
        ("a.rs", "use crate::b::X;\n"),
        ("b.rs", "use crate::c::X;\n"),
        ("c.rs", "use crate::b::X;\nuse crate::d::X;\n"),
        ("d.rs", "use crate::b::X;\nuse crate::a::X;\n"),
    ]);
    let cycles = g.cycles();
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].files, ["a.rs", "b.rs", "c.rs", "d.rs"]);
    assert_eq!(
        cycles[0].to_string(),
        "a.rs -> b.rs -> c.rs -> d.rs -> a.rs"
    );
    assert_eq!(
        Cycle::files_of_walk("x.rs -> y.rs -> x.rs"),
        BTreeSet::from(["x.rs".to_string(), "y.rs".to_string()])
    );
}

#[test]
fn two_components_are_two_cycles() {
    let g = graph(&[
        ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
        ("a.rs", "use crate::b::X;\n"),
        ("b.rs", "use crate::a::X;\nuse crate::c::X;\n"),
        ("c.rs", "use crate::d::X;\n"),
        ("d.rs", "use crate::c::X;\n"),
    ]);
    assert_eq!(walks(&g), ["a.rs -> b.rs -> a.rs", "c.rs -> d.rs -> c.rs"]);
}

#[test]
fn the_scanner_reads_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "use crate::b::B;\npub struct A;\n").unwrap();
    std::fs::write(src.join("b.rs"), "use crate::a::A;\npub struct B;\n").unwrap();
    let g = CrateGraph::scan(src).unwrap();
    assert_eq!(g.files, ["a/mod.rs", "b.rs", "lib.rs"]);
    assert_eq!(walks(&g), ["a/mod.rs -> b.rs -> a/mod.rs"]);
}
