//! Where tests live, held against the source.
//!
//! - A production file reads on its own: the tests written inside it (its `#[cfg(test)]` items
//!   with their bodies there) take at most [`INLINE_TEST_LINES`] lines in all; more go to a
//!   sibling `tests.rs` (`gateway.rs` declares `#[cfg(test)] mod tests;`, and its tests are in
//!   `gateway/tests.rs`).
//! - Every file of `tests/` is a module of the one gates binary (`tests/gates.rs`): with
//!   `autotests = false` a file left undeclared there would never be built nor run.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use syn::spanned::Spanned;

use crate::source_tree;

/// The most lines of tests a production file may hold inside itself.
const INLINE_TEST_LINES: usize = 200;

/// Files that are test code by their place (a test module's own file, the test worlds behind
/// their features), left out whole: what they hold is tests, not a production file's.
fn is_test_file(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    name == "tests.rs"
        || name == "test_fixtures.rs"
        || name == "testing.rs"
        || relative == "crates/playback/src/world.rs"
        || relative.contains("/tests/")
        || relative.contains("/recording_tests/")
}

/// The lines of the test items written inside `source`: every item compiled only for tests
/// whose body is in this file (a `mod tests;` declared here has its body elsewhere), looking
/// into the file's inline modules too.
fn inline_test_lines(source: &str) -> usize {
    fn lines_in(items: &[syn::Item]) -> usize {
        items
            .iter()
            .map(|item| {
                let attributes: &[syn::Attribute] = match item {
                    syn::Item::Const(item) => &item.attrs,
                    syn::Item::Enum(item) => &item.attrs,
                    syn::Item::Fn(item) => &item.attrs,
                    syn::Item::Impl(item) => &item.attrs,
                    syn::Item::Mod(item) => &item.attrs,
                    syn::Item::Static(item) => &item.attrs,
                    syn::Item::Struct(item) => &item.attrs,
                    syn::Item::Trait(item) => &item.attrs,
                    syn::Item::Type(item) => &item.attrs,
                    syn::Item::Use(item) => &item.attrs,
                    syn::Item::Macro(item) => &item.attrs,
                    _ => &[],
                };
                match item {
                    syn::Item::Mod(module) if module.content.is_none() => 0,
                    _ if source_tree::is_test_code(attributes) => {
                        let span = item.span();
                        span.end().line - span.start().line + 1
                    }
                    syn::Item::Mod(syn::ItemMod {
                        content: Some((_, inner)),
                        ..
                    }) => lines_in(inner),
                    _ => 0,
                }
            })
            .sum()
    }
    let parsed = syn::parse_file(source).unwrap_or_else(|error| panic!("{error}"));
    lines_in(&parsed.items)
}

#[test]
fn no_production_file_holds_more_than_200_lines_of_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        folders.push(entry.unwrap().path().join("src"));
    }
    let mut measured = 0;
    let mut over = Vec::new();
    for folder in folders {
        for file in source_tree::rust_files(&folder) {
            let relative = file
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if is_test_file(&relative) {
                continue;
            }
            measured += 1;
            let lines = inline_test_lines(&std::fs::read_to_string(&file).unwrap());
            if lines > INLINE_TEST_LINES {
                over.push(format!("{relative}: {lines} lines of tests"));
            }
        }
    }
    assert!(
        measured > 100,
        "the gate reads the workspace's source: {measured} files"
    );
    assert!(
        over.is_empty(),
        "these production files hold more than {INLINE_TEST_LINES} lines of tests: move their \
         tests to a sibling `tests.rs` (`#[cfg(test)] mod tests;`):\n{}",
        over.join("\n")
    );
}

/// A production function, then a test module of `module` lines in all.
fn file_with_a_test_module(module: usize) -> String {
    let mut source =
        String::from("pub fn answer() -> u32 {\n    42\n}\n\n#[cfg(test)]\nmod tests {\n");
    for n in 0..module - 3 {
        writeln!(source, "    const LINE_{n}: u32 = {n};").unwrap();
    }
    source + "}\n"
}

#[test]
fn the_count_takes_every_line_of_an_inline_test_module_and_nothing_else() {
    // 200 lines of tests pass the gate, 201 do not: the count is exact at the boundary.
    assert_eq!(inline_test_lines(&file_with_a_test_module(200)), 200);
    assert_eq!(inline_test_lines(&file_with_a_test_module(201)), 201);
    // A test module whose body is its own file, `not(test)`, and production code count nothing.
    let elsewhere = "#[cfg(test)]\nmod tests;\n\n#[cfg(not(test))]\nfn real() {\n}\n";
    assert_eq!(inline_test_lines(elsewhere), 0);
    // A test helper and a test module inside a production module are both counted.
    let nested = "mod inner {\n    #[cfg(test)]\n    fn helper() {\n    }\n\n    \
                  #[cfg(all(test, unix))]\n    mod tests {\n    }\n}\n";
    assert_eq!(inline_test_lines(nested), 3 + 3);
}

#[test]
fn every_file_of_tests_is_a_module_of_the_gates_binary() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let files: BTreeSet<String> = std::fs::read_dir(&tests)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().ok()?;
            name.strip_suffix(".rs")
                .filter(|module| *module != "gates")
                .map(str::to_string)
        })
        .collect();
    let gates = syn::parse_file(&std::fs::read_to_string(tests.join("gates.rs")).unwrap())
        .expect("tests/gates.rs parses");
    let declared: BTreeSet<String> = gates
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(module) if module.content.is_none() => Some(module.ident.to_string()),
            _ => None,
        })
        .filter(|module| module != "source_tree")
        .collect();
    assert!(
        files.contains("layering"),
        "the gate reads tests/: {files:?}"
    );
    assert_eq!(
        files, declared,
        "each file of tests/ is declared in tests/gates.rs (`mod <file>;`), and nothing else is"
    );
}
