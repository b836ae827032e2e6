//! No id is a bare `String` across a function boundary, held against the source: a function's
//! parameter or a struct's (or enum variant's) field whose name is `id`/`ids` or ends in
//! `_id`/`_ids` is one of the vocabulary's id types (`ChannelId`, `MessageId`, `GuildId`,
//! `UserId`, …; `discord_manager_vocabulary::snowflake`, or serenity's in the Discord crate),
//! never `String`, `&str`, `Option<String>`, `Vec<String>`, `&[String]`, `u64`, `Option<u64>`,
//! `&[u64]` or the like.
//!
//! The scan covers every `.rs` file under each crate's `src` and the binary's `src`, parsed with
//! syn. Test code (`#[cfg(test)]` items, `tests.rs` files, `tests` folders, the test fixtures,
//! the playback crate's test world and the store's testing helpers) is left out: a test builds
//! its ids however reads best. A local `let` or a closure's parameter is not a boundary and is
//! not judged.
//!
//! What is named like an id but is not a Discord id is listed in `NOT_DISCORD_IDS` with the
//! reason; a listed entry that no longer matches anything fails the test too, so the list only
//! holds what is true.

use std::path::Path;

use syn::visit::Visit;

use crate::source_tree;

/// Names that read like ids but hold something else, by file: (file, name, why).
const NOT_DISCORD_IDS: &[(&str, &str, &str)] = &[
    (
        "crates/store/src/store/coverage.rs",
        "session_id",
        "the gateway's session id (opaque text Discord hands out to resume a session)",
    ),
    (
        "src/mcp/wire/scan.rs",
        "id",
        "a JSON-RPC request's id, as the client wrote it (raw wire text)",
    ),
    // Numbers where arithmetic on Discord's id space is the point, not a reference to one
    // channel or message: a position ids are compared with, a window's bound, a poll's answer.
    (
        "crates/store/src/store/coverage.rs",
        "after_message_id",
        "a position in Discord's id space: messages with a higher id are after it",
    ),
    (
        "crates/store/src/store/coverage.rs",
        "channel_id",
        "ChannelBeginning::of: the channel's id minus one is the beginning's position",
    ),
    (
        "crates/store/src/store/coverage.rs",
        "last_message_id",
        "ChannelBeginning::of: the newest message's id is the beginning's position",
    ),
    (
        "crates/vocabulary/src/snowflake.rs",
        "id",
        "minted_at and days_before: the arithmetic of a snowflake's timestamp bits",
    ),
    (
        "crates/discord/src/import.rs",
        "page_ids",
        "a fetched page's ids compared with the import window's bounds, as numbers",
    ),
    (
        "crates/store/src/store/extras.rs",
        "answer_id",
        "a poll answer's id: a small number Discord counts from 1, not a snowflake",
    ),
    (
        "crates/core/src/business/kernel/message_extras.rs",
        "answer_id",
        "a poll answer's id: a small number Discord counts from 1, not a snowflake",
    ),
    // Discord's message and user objects as the demo and the test world play them: raw wire
    // payloads, built from whatever text the caller holds, parsed by the real recorders.
    (
        "crates/playback/src/payload.rs",
        "id",
        "a Discord payload's id field, written as the wire carries it",
    ),
    (
        "crates/playback/src/payload.rs",
        "channel_id",
        "a Discord payload's channel_id field, written as the wire carries it",
    ),
    (
        "crates/playback/src/payload.rs",
        "guild_id",
        "a Discord payload's guild_id field, written as the wire carries it",
    ),
    (
        "crates/playback/src/payload.rs",
        "message_id",
        "a reply's message_reference in a Discord payload, written as the wire carries it",
    ),
];

/// The types an id may not be (bare text or a bare number), written without spaces or lifetimes.
const BARE: &[&str] = &[
    "String",
    "&str",
    "&String",
    "Option<String>",
    "Option<&str>",
    "Option<Vec<String>>",
    "Vec<String>",
    "Vec<&str>",
    "&[String]",
    "&[&str]",
    "u64",
    "&u64",
    "Option<u64>",
    "Vec<u64>",
    "&[u64]",
];

/// Whether a parameter or field named `name` is an id by its name.
fn named_like_an_id(name: &str) -> bool {
    let name = name.trim_start_matches("r#");
    ["id", "ids"].contains(&name) || name.ends_with("_id") || name.ends_with("_ids")
}

/// A type written without spaces, lifetimes or leading path (`& 'a str` is `&str`,
/// `std::string::String` is `String`); a type of another shape is `_`.
fn written(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Reference(reference) => {
            let mutable = if reference.mutability.is_some() {
                "mut "
            } else {
                ""
            };
            format!("&{mutable}{}", written(&reference.elem))
        }
        syn::Type::Slice(slice) => format!("[{}]", written(&slice.elem)),
        syn::Type::Paren(inner) => written(&inner.elem),
        syn::Type::Group(inner) => written(&inner.elem),
        syn::Type::Path(path) => {
            let Some(last) = path.path.segments.last() else {
                return "_".to_string();
            };
            let mut text = last.ident.to_string();
            if let syn::PathArguments::AngleBracketed(arguments) = &last.arguments {
                let types: Vec<String> = arguments
                    .args
                    .iter()
                    .filter_map(|argument| match argument {
                        syn::GenericArgument::Type(ty) => Some(written(ty)),
                        _ => None,
                    })
                    .collect();
                text.push('<');
                text.push_str(&types.join(","));
                text.push('>');
            }
            text
        }
        _ => "_".to_string(),
    }
}

/// Whether `attributes` hold a `cfg` naming `test` (`#[cfg(test)]`, `#[cfg(any(test, …))]`).
/// One parameter or field typed as a bare string.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Offender {
    file: String,
    line: usize,
    name: String,
    ty: String,
}

struct Finder<'a> {
    file: &'a str,
    found: Vec<Offender>,
}

impl Finder<'_> {
    fn judge(&mut self, name: &str, ty: &syn::Type, line: usize) {
        let ty = written(ty);
        if named_like_an_id(name) && BARE.contains(&ty.as_str()) {
            self.found.push(Offender {
                file: self.file.to_string(),
                line,
                name: name.trim_start_matches("r#").to_string(),
                ty,
            });
        }
    }

    fn signature(&mut self, signature: &syn::Signature) {
        for input in &signature.inputs {
            if let syn::FnArg::Typed(typed) = input
                && let syn::Pat::Ident(pattern) = &*typed.pat
            {
                let line = pattern.ident.span().start().line;
                self.judge(&pattern.ident.to_string(), &typed.ty, line);
            }
        }
    }

    fn fields(&mut self, fields: &syn::Fields) {
        for field in fields {
            if let Some(name) = &field.ident {
                self.judge(&name.to_string(), &field.ty, name.span().start().line);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !source_tree::is_test_code(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }
    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !source_tree::is_test_code(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !source_tree::is_test_code(&item.attrs) {
            self.signature(&item.sig);
            syn::visit::visit_item_fn(self, item);
        }
    }
    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !source_tree::is_test_code(&item.attrs) {
            self.signature(&item.sig);
            syn::visit::visit_impl_item_fn(self, item);
        }
    }
    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if !source_tree::is_test_code(&item.attrs) {
            self.signature(&item.sig);
            syn::visit::visit_trait_item_fn(self, item);
        }
    }
    fn visit_foreign_item_fn(&mut self, item: &'ast syn::ForeignItemFn) {
        self.signature(&item.sig);
    }
    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        if !source_tree::is_test_code(&item.attrs) {
            self.fields(&item.fields);
            syn::visit::visit_item_struct(self, item);
        }
    }
    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        if !source_tree::is_test_code(&item.attrs) {
            for variant in &item.variants {
                self.fields(&variant.fields);
            }
            syn::visit::visit_item_enum(self, item);
        }
    }
}

/// Files that are test code by their place: left out whole.
fn is_test_file(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    name == "tests.rs"
        || name == "test_fixtures.rs"
        || relative == "crates/playback/src/world.rs"
        || relative.contains("/tests/")
        || relative.contains("/recording_tests/")
        || relative == "crates/store/src/store/testing.rs"
}

/// The bare-string ids of one file's source (`relative` names it in the report).
fn offenders_in(relative: &str, source: &str) -> Vec<Offender> {
    let parsed = syn::parse_file(source).unwrap_or_else(|error| panic!("{relative}: {error}"));
    let mut finder = Finder {
        file: relative,
        found: Vec::new(),
    };
    finder.visit_file(&parsed);
    finder.found
}

/// Every bare-string id of the workspace's non-test source, in file order.
fn workspace_offenders() -> Vec<Offender> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        folders.push(entry.unwrap().path().join("src"));
    }
    let mut files = Vec::new();
    for folder in folders {
        if folder.is_dir() {
            files.extend(source_tree::rust_files(&folder));
        }
    }
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if is_test_file(&relative) {
            continue;
        }
        let source = std::fs::read_to_string(&file).unwrap();
        found.extend(offenders_in(&relative, &source));
    }
    found
}

#[test]
fn no_id_is_a_bare_string_across_a_function_boundary() {
    let found = workspace_offenders();
    let offending: Vec<String> = found
        .iter()
        .filter(|offender| {
            !NOT_DISCORD_IDS
                .iter()
                .any(|(file, name, _)| *file == offender.file && *name == offender.name)
        })
        .map(|offender| {
            format!(
                "{}:{} `{}: {}`",
                offender.file, offender.line, offender.name, offender.ty
            )
        })
        .collect();
    assert!(
        offending.is_empty(),
        "ids typed as bare strings; use an id type of discord_manager_vocabulary::snowflake \
         (ChannelId, MessageId, GuildId, UserId, RoleId, …), or list a name that is not a \
         Discord id in NOT_DISCORD_IDS with the reason:\n{}",
        offending.join("\n")
    );
    let stale: Vec<&str> = NOT_DISCORD_IDS
        .iter()
        .filter(|(file, name, _)| {
            !found
                .iter()
                .any(|offender| offender.file == *file && offender.name == *name)
        })
        .map(|(file, _, _)| *file)
        .collect();
    assert!(
        stale.is_empty(),
        "listed in NOT_DISCORD_IDS but no longer a bare string there: take them off: {stale:?}"
    );
}

#[test]
fn the_guard_names_each_bare_string_or_number_id_with_its_line_and_leaves_tests_and_typed_ids_alone()
 {
    let source = "\
struct Row {
    channel_id: String,
    message_id: MessageId,
    name: String,
    parent_id: Option<u64>,
}
enum Event {
    Deleted { message_ids: Vec<String> },
}
trait Lookup {
    fn of(&self, id: &str) -> u64;
}
impl Row {
    fn find<'a>(guild_id: Option<&'a str>, role_ids: &[String], title: &str) {
        let local_id: String = String::new();
        let each = |user_id: &str| user_id.len();
    }
}
#[cfg(test)]
mod tests {
    fn helper(channel_id: &str) {}
}
#[cfg(all(test, unix))]
fn unix_helper(channel_id: &str) {}
#[cfg(not(test))]
fn outside_tests(channel_id: &str) {}
#[cfg(any(test, feature = \"fixtures\"))]
fn with_a_feature(user_id: &str) {}
";
    let found: Vec<(usize, String, String)> = offenders_in("example.rs", source)
        .into_iter()
        .map(|offender| (offender.line, offender.name, offender.ty))
        .collect();
    assert_eq!(
        found,
        vec![
            (2, "channel_id".to_string(), "String".to_string()),
            (5, "parent_id".to_string(), "Option<u64>".to_string()),
            (8, "message_ids".to_string(), "Vec<String>".to_string()),
            (11, "id".to_string(), "&str".to_string()),
            (14, "guild_id".to_string(), "Option<&str>".to_string()),
            (14, "role_ids".to_string(), "&[String]".to_string()),
            (26, "channel_id".to_string(), "&str".to_string()),
            (28, "user_id".to_string(), "&str".to_string()),
        ]
    );
}
