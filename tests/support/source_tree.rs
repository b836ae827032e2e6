//! The workspace's Rust source as the source guards read it (`tests/layering.rs`,
//! `tests/parity.rs`, `tests/typed_ids.rs`, `tests/output_style.rs`, `tests/test_placement.rs`):
//! every `.rs` file under a folder, and whether an item is compiled only for tests.
//!
//! Declared once, by `tests/gates.rs`; a gate reads it as `crate::source_tree`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;

/// Every `.rs` file under `folder`, at any depth, sorted.
pub fn rust_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Whether an item with these attributes is compiled only for tests: a `#[cfg(…)]` whose
/// predicate needs `test` (`test`, or `all(…)` with `test` among its terms). `any(test, …)`
/// and `not(test)` are also compiled outside tests, so they are not test code.
pub fn is_test_code(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute
                .parse_args::<syn::Meta>()
                .is_ok_and(|predicate| needs_test(&predicate))
    })
}

fn needs_test(predicate: &syn::Meta) -> bool {
    match predicate {
        syn::Meta::Path(path) => path.is_ident("test"),
        syn::Meta::List(list) if list.path.is_ident("all") => list
            .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
            .is_ok_and(|terms| terms.iter().any(needs_test)),
        _ => false,
    }
}
