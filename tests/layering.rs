//! The layering of ARCHITECTURE.md, held against the source: which top-level module may name
//! which, and which modules alone may name serenity, rmcp, comfy-table, clap, rusqlite and
//! reqwest.
//!
//! Every file is parsed (syn) and every path it writes is resolved to the top-level module or
//! the external crate it starts from: `use` trees, paths in types and expressions, and paths
//! inside macro invocations, read from their tokens; `super::` and `self::` are resolved from
//! the file's own module path. Test code (`#[cfg(test)]` items, `tests.rs` files and the test
//! fixtures) is left out: tests may reach across layers to build their worlds.
//!
//! A re-export cannot fool this. A module may only name the modules below it, and the modules
//! below a layer may not name the forbidden crates either, which the transitive check asserts:
//! `business` could only reach serenity through a module that names it, and no module that
//! `business` may reach is allowed to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The top-level modules and what each may name. A module missing here fails the test: a new
/// one takes its place in the layering deliberately.
const LAYERS: &[(&str, &[&str])] = &[
    ("instant", &[]),
    ("error", &[]),
    ("vocabulary", &[]),
    ("backoff", &[]),
    ("snowflake", &["instant"]),
    ("store", &["instant", "error", "snowflake", "vocabulary"]),
    ("config", &["error", "snowflake"]),
    ("permissions", &["store"]),
    (
        "business",
        &[
            "store",
            "config",
            "permissions",
            "backoff",
            "snowflake",
            "vocabulary",
            "instant",
            "error",
        ],
    ),
    ("answer", &["business", "snowflake", "instant", "error"]),
    (
        "registry",
        &["answer", "business", "store", "instant", "error"],
    ),
    (
        "ingest",
        &[
            "store",
            "permissions",
            "snowflake",
            "instant",
            "error",
            "vocabulary",
        ],
    ),
    (
        "discord",
        &[
            "ingest",
            "business",
            "registry",
            "store",
            "config",
            "permissions",
            "backoff",
            "snowflake",
            "instant",
            "error",
        ],
    ),
    // The application: the surfaces and the machine commands, over everything below.
    ("cli", APPLICATION),
    ("mcp", APPLICATION),
    ("seed", APPLICATION),
    ("synthetic", APPLICATION),
];

const APPLICATION: &[&str] = &[
    "answer",
    "backoff",
    "business",
    "cli",
    "config",
    "discord",
    "error",
    "ingest",
    "instant",
    "mcp",
    "permissions",
    "registry",
    "seed",
    "snowflake",
    "store",
    "synthetic",
    "vocabulary",
];

/// External crates only some modules may name, and which.
const CONFINED_CRATES: &[(&str, &[&str])] = &[
    ("serenity", &["ingest", "discord"]),
    ("reqwest", &["discord"]),
    ("rmcp", &["mcp"]),
    ("comfy_table", &["cli"]),
    ("clap", &["cli"]),
    ("clap_complete", &["cli"]),
    ("rusqlite", &["store", "error"]),
    ("rusqlite_migration", &["store"]),
];

/// What each top-level module names (other modules, confined crates), each with a file
/// where it does.
type Uses = BTreeMap<String, BTreeMap<String, String>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn source_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![src()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `src/business/mentions.rs` → `["business", "mentions"]`; `mod.rs` names its folder.
fn module_path(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src()).unwrap().with_extension("");
    let mut path: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().to_string())
        .collect();
    if path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    path
}

fn is_test_code(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("cfg")
            && attribute.meta.require_list().is_ok_and(|list| {
                list.tokens
                    .to_string()
                    .split_whitespace()
                    .any(|t| t == "test")
            })
    })
}

/// Collects what one file names, skipping test items.
struct Collector<'a> {
    module: &'a [String],
    top_modules: &'a BTreeSet<String>,
    found: Vec<String>,
}

impl Collector<'_> {
    /// The module or crate a path starting with `segments` names, if it is one we judge.
    fn resolve(&self, segments: &[String]) -> Option<String> {
        let first = segments.first()?;
        let from_root = match first.as_str() {
            "crate" => &segments[1..],
            "super" | "self" => {
                let supers = segments.iter().take_while(|s| *s == "super").count();
                let depth = self.module.len().saturating_sub(supers);
                if depth > 0 {
                    return Some(self.module[0].clone());
                }
                &segments[supers..]
            }
            _ => {
                if CONFINED_CRATES.iter().any(|(name, _)| name == first) {
                    return Some(first.clone());
                }
                return None;
            }
        };
        let name = from_root.first()?;
        // What the crate root re-exports (`crate::Error`) is the error module's.
        if name == "Error" || name == "ErrorKind" {
            return Some("error".to_string());
        }
        self.top_modules.contains(name).then(|| name.clone())
    }

    fn record(&mut self, segments: Vec<String>) {
        if let Some(name) = self.resolve(&segments) {
            self.found.push(name);
        }
    }

    /// Paths inside a macro's tokens (`a :: b` runs of identifiers in their printed form):
    /// a macro's input is not parsed as Rust until it is expanded.
    fn tokens(&mut self, printed: &str) {
        // Tokens print with spaces around `::`.
        let joined = printed.replace(" :: ", "::");
        for word in joined.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            let segments: Vec<String> = word
                .split("::")
                .filter(|segment| !segment.is_empty())
                .map(str::to_string)
                .collect();
            if segments.len() > 1 {
                self.record(segments);
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                let mut segments = prefix.clone();
                segments.push(name.ident.to_string());
                self.record(segments);
            }
            syn::UseTree::Rename(rename) => {
                let mut segments = prefix.clone();
                segments.push(rename.ident.to_string());
                self.record(segments);
            }
            syn::UseTree::Glob(_) => {
                let mut segments = prefix.clone();
                segments.push("*".to_string());
                self.record(segments);
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attributes = match item {
            syn::Item::Mod(item) => &item.attrs,
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            syn::Item::Struct(item) => &item.attrs,
            syn::Item::Enum(item) => &item.attrs,
            syn::Item::Const(item) => &item.attrs,
            syn::Item::Static(item) => &item.attrs,
            syn::Item::Trait(item) => &item.attrs,
            syn::Item::Macro(item) => &item.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !is_test_code(attributes) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(&mac.tokens.to_string());
        syn::visit::visit_macro(self, mac);
    }
}

fn top_modules() -> BTreeSet<String> {
    std::fs::read_dir(src())
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            path.file_stem().unwrap().to_string_lossy().to_string()
        })
        .filter(|name| !["lib", "main", "test_fixtures"].contains(&name.as_str()))
        .collect()
}

fn uses() -> Uses {
    let top_modules = top_modules();
    let mut uses = Uses::new();
    for file in source_files() {
        let module = module_path(&file);
        let test_file = module.last().is_some_and(|name| name == "tests");
        let outside =
            module.is_empty() || ["lib", "main", "test_fixtures"].contains(&module[0].as_str());
        if outside || test_file {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let parsed = syn::parse_file(&text).unwrap();
        let mut collector = Collector {
            module: &module,
            top_modules: &top_modules,
            found: Vec::new(),
        };
        collector.visit_file(&parsed);
        let relative = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let entry = uses.entry(module[0].clone()).or_default();
        for name in collector.found {
            if name != module[0] {
                entry
                    .entry(name)
                    .or_insert_with(|| relative.display().to_string());
            }
        }
    }
    uses
}

fn allowed(module: &str) -> Option<&'static [&'static str]> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, allowed)| *allowed)
}

#[test]
fn every_top_level_module_has_its_place_in_the_layering() {
    let missing: Vec<String> = top_modules()
        .into_iter()
        .filter(|module| allowed(module).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "modules without a layer in tests/layering.rs: {missing:?}"
    );
}

#[test]
fn each_module_names_only_the_modules_below_it() {
    let mut problems = Vec::new();
    for (module, named) in uses() {
        let allowed = allowed(&module).unwrap_or(&[]);
        for (name, place) in named {
            let confined = CONFINED_CRATES.iter().any(|(krate, _)| *krate == name);
            if !confined && !allowed.contains(&name.as_str()) {
                problems.push(format!("{module} names {name} ({place})"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn serenity_rmcp_tables_clap_sqlite_and_http_are_named_only_where_they_belong() {
    let mut problems = Vec::new();
    for (module, named) in uses() {
        for (krate, owners) in CONFINED_CRATES {
            if let Some(place) = named.get(*krate)
                && !owners.contains(&module.as_str())
            {
                problems.push(format!("{module} names {krate} ({place})"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What `module` can reach through the modules it may name, itself included.
fn reachable(module: &str) -> BTreeSet<&'static str> {
    let mut seen = BTreeSet::new();
    let mut pending: Vec<&str> = allowed(module).unwrap_or(&[]).to_vec();
    while let Some(next) = pending.pop() {
        if seen.insert(next) {
            pending.extend(allowed(next).unwrap_or(&[]).iter().copied());
        }
    }
    seen
}

#[test]
fn no_layer_can_reach_a_crate_it_may_not_name_through_the_layers_below_it() {
    // The rules above hold per module; this holds them through every re-export: a crate named
    // by a module below would reach the layers above it.
    for (module, _) in LAYERS {
        if allowed(module) == Some(APPLICATION) {
            continue;
        }
        assert!(
            !reachable(module).contains(module),
            "{module} can reach itself: the layering has a cycle"
        );
        for (krate, owners) in CONFINED_CRATES {
            // SQLite is the bottom layer's: every layer stands on the store, which keeps it
            // to itself (only the store writes SQL, held by the direct check).
            if owners.contains(module) || krate.starts_with("rusqlite") {
                continue;
            }
            for below in reachable(module) {
                assert!(
                    !owners.contains(&below),
                    "{module} may name {below}, which may name {krate}"
                );
            }
        }
    }
}

#[test]
fn the_collector_sees_paths_in_uses_types_expressions_and_macros() {
    // The checks above are only as good as what is collected: a forbidden path written any way
    // at all must be seen.
    let module = vec!["business".to_string(), "model".to_string()];
    let top_modules: BTreeSet<String> = ["business", "cli", "ingest", "store"]
        .iter()
        .map(|name| name.to_string())
        .collect();
    let source = r#"
        use crate::cli::render::Render;
        use super::super::ingest;
        fn f(x: serenity::model::id::UserId) -> comfy_table::Table {
            let _ = crate::store::Store::open;
            format!("{}", rmcp::model::Tool::default());
            todo!()
        }
        #[cfg(test)]
        mod tests { use crate::registry::Services; }
    "#;
    let mut collector = Collector {
        module: &module,
        top_modules: &top_modules,
        found: Vec::new(),
    };
    collector.visit_file(&syn::parse_file(source).unwrap());
    let names: BTreeSet<String> = collector.found.into_iter().collect();
    let expected: BTreeSet<String> = ["cli", "ingest", "serenity", "comfy_table", "store", "rmcp"]
        .iter()
        .map(|name| name.to_string())
        .collect();
    assert_eq!(names, expected);
}
