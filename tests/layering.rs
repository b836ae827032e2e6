//! The layering of ARCHITECTURE.md, held against the source: which top-level module may name
//! which, which modules alone may name serenity, rmcp, comfy-table, clap, rusqlite and
//! reqwest, that no two files of a crate name each other, directly or around a cycle, and that
//! no crate imports another's modules under local names (every path names its real crate).
//!
//! Between crates the compiler holds the layering: a crate can only name the crates it
//! depends on, and `the_crate_graph_is_the_layering` holds each crate's dependencies to the
//! table below. Within a crate (the store's modules, the core's, the application's), the
//! checks here hold it.
//!
//! Every file is parsed (syn) and every path it writes is resolved to the top-level module or
//! the external crate it starts from: `use` trees, paths in types and expressions, and paths
//! inside macro invocations, read from their tokens; `super::` and `self::` are resolved from
//! the file's own module path. Test code (`#[cfg(test)]` items, `tests.rs` files, the core's
//! test fixtures and the playback crate's test world) is left out: tests may reach across
//! layers to build their worlds.
//!
//! A re-export cannot fool this. A module may only name the modules below it, and the modules
//! below a layer may not name the forbidden crates either, which the transitive check asserts:
//! `business` could only reach serenity through a module that names it, and no module that
//! `business` may reach is allowed to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

use crate::source_tree;

/// The top-level modules and what each may name. A module missing here fails the test: a new
/// one takes its place in the layering deliberately.
const LAYERS: &[(&str, &[&str])] = &[
    ("error", &[]),
    // Instants; behind the `sqlite` feature, how each is bound and read (microseconds as an
    // INTEGER), a stored value that is not one reading as an owner-worded error.
    ("instant", &["error"]),
    ("words", &[]),
    ("backoff", &[]),
    // Files and bytes: the attachment cache names nothing of the workspace; attachments_get
    // (business) reads it and the seed keeps its demo files in it.
    ("attachments", &[]),
    // Search by meaning: the bundled encoder, compact vectors, the scan and rank fusion; it
    // knows no SQL and no Discord, only the error type it answers with and the ids it filters
    // by. The encoder is its own code (multilingual-e5-small, `meaning::e5`); its only
    // outside crates are flate2 for the vendored weights, serde_json and sha2.
    ("meaning", &["error", "snowflake"]),
    // Discord's ids, a type per kind; behind the `sqlite` feature, how each is bound and read,
    // a stored value that is not an id reading as an owner-worded error.
    ("snowflake", &["instant", "error"]),
    // Discord's permission arithmetic over a guild's roles and a channel's overwrites.
    ("permissions", &["words", "snowflake"]),
    (
        "store",
        &["instant", "error", "snowflake", "words", "permissions"],
    ),
    // The port to Discord: the trait the core sends through, the plain types it carries (an
    // emoji among them) and the recorder of Discord's answers an adapter is built with; it
    // names no store.
    ("sender", &["snowflake", "error"]),
    ("config", &["error", "snowflake", "words"]),
    // The primitives of a result's page and text: a capability renders its own result beside
    // its function, so the business layer stands on them.
    ("answer", &["instant"]),
    (
        "business",
        &[
            "answer",
            "attachments",
            "meaning",
            "sender",
            "store",
            "config",
            "permissions",
            "backoff",
            "snowflake",
            "words",
            "instant",
            "error",
        ],
    ),
    // The playback crate, Discord's side played back: Discord's message and user objects, plain
    // JSON naming nothing of the workspace, and the demo's stand-in Discord, which stands on
    // the port (never on the core, whose tests play through it). Its test world (`world`) is
    // test code.
    ("payload", &[]),
    (
        "demo",
        &[
            "payload",
            "sender",
            "store",
            "snowflake",
            "instant",
            "error",
        ],
    ),
    (
        "registry",
        &["answer", "business", "sender", "store", "instant", "error"],
    ),
    (
        "ingest",
        &[
            "store",
            "sender",
            "permissions",
            "snowflake",
            "instant",
            "error",
            "words",
        ],
    ),
    (
        "discord",
        &[
            "attachments",
            "ingest",
            "business",
            "registry",
            "sender",
            "store",
            "config",
            "permissions",
            "backoff",
            "snowflake",
            "instant",
            "error",
        ],
    ),
    // The application: the program, which hands a command line to its surface; the two
    // surfaces, which never name each other; and the machine commands, over everything below.
    ("program", APPLICATION),
    ("cli", APPLICATION),
    ("mcp", APPLICATION),
    ("seed", APPLICATION),
    // The benchmark's generator, a crate beside the application (a dev-dependency of it).
    (
        "synthetic",
        &[
            "business",
            "config",
            "payload",
            "ingest",
            "meaning",
            "store",
            "snowflake",
            "instant",
            "error",
        ],
    ),
];

/// Within the application, what a module may still never name: the two surfaces never name
/// each other, nor the program that hands a command line to one of them.
const NEVER_NAMED: &[(&str, &[&str])] =
    &[("cli", &["mcp", "program"]), ("mcp", &["cli", "program"])];

const APPLICATION: &[&str] = &[
    "answer",
    "attachments",
    "backoff",
    "business",
    "cli",
    "config",
    "demo",
    "discord",
    "error",
    "ingest",
    "instant",
    "mcp",
    "payload",
    "permissions",
    "program",
    "registry",
    "seed",
    "sender",
    "snowflake",
    "store",
    "words",
];

/// External crates only some modules may name, and which.
const CONFINED_CRATES: &[(&str, &[&str])] = &[
    ("serenity", &["ingest", "discord"]),
    ("reqwest", &["discord"]),
    ("rmcp", &["mcp"]),
    ("comfy_table", &["cli"]),
    ("clap", &["cli", "program"]),
    ("clap_complete", &["cli"]),
    ("rusqlite", &["store", "error", "snowflake", "instant"]),
];

/// What each top-level module names (other modules, confined crates), each with a file
/// where it does.
type Uses = BTreeMap<String, BTreeMap<String, String>>;

/// One crate of the workspace: its source folder and its library's name. A crate that is one
/// layer (`layer`) keeps that layer's submodules at its root; the others hold several
/// top-level modules, each a layer of its own.
struct Crate {
    src: &'static str,
    library: &'static str,
    layer: Option<&'static str>,
}

const CRATES: &[Crate] = &[
    Crate {
        src: "crates/vocabulary/src",
        library: "discord_manager_vocabulary",
        layer: None,
    },
    Crate {
        src: "crates/store/src",
        library: "discord_manager_store",
        layer: Some("store"),
    },
    Crate {
        src: "crates/ingest/src",
        library: "discord_manager_ingest",
        layer: Some("ingest"),
    },
    Crate {
        src: "crates/sender/src",
        library: "discord_manager_sender",
        layer: Some("sender"),
    },
    Crate {
        src: "crates/playback/src",
        library: "discord_manager_playback",
        layer: None,
    },
    Crate {
        src: "crates/core/src",
        library: "discord_manager_core",
        layer: None,
    },
    Crate {
        src: "crates/discord/src",
        library: "discord_manager_discord",
        layer: Some("discord"),
    },
    Crate {
        src: "crates/synthetic/src",
        library: "discord_manager_synthetic",
        layer: Some("synthetic"),
    },
    Crate {
        src: "crates/attachments/src",
        library: "discord_manager_attachments",
        layer: Some("attachments"),
    },
    Crate {
        src: "crates/meaning/src",
        library: "discord_manager_meaning",
        layer: Some("meaning"),
    },
    Crate {
        src: "src",
        library: "discord_manager",
        layer: None,
    },
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn source_files(krate: &Crate) -> Vec<PathBuf> {
    source_tree::rust_files(&root().join(krate.src))
}

/// `crates/core/src/business/mentions/list.rs` → `["business", "mentions", "list"]`; `mod.rs`
/// names its folder; in a one-layer crate, `crates/ingest/src/feed.rs` → `["ingest", "feed"]`
/// and its `lib.rs` is `["ingest"]`.
fn module_path(krate: &Crate, file: &Path) -> Vec<String> {
    let relative = file
        .strip_prefix(root().join(krate.src))
        .unwrap()
        .with_extension("");
    let mut path: Vec<String> = krate.layer.iter().map(|layer| layer.to_string()).collect();
    path.extend(
        relative
            .iter()
            .map(|part| part.to_string_lossy().to_string()),
    );
    let folder_module = ["mod"].as_slice();
    let crate_root = if krate.layer.is_some() {
        ["lib"].as_slice()
    } else {
        [].as_slice()
    };
    if path.last().is_some_and(|last| {
        folder_module.contains(&last.as_str()) || crate_root.contains(&last.as_str())
    }) {
        path.pop();
    }
    path
}

/// Collects what one file names, skipping test items.
struct Collector<'a> {
    module: &'a [String],
    /// The layer of a one-layer crate, which `crate::…` then names: no crate imports another's
    /// modules under local names (held by the test
    /// `no_crate_imports_another_crates_modules_as_if_they_were_its_own`).
    layer: Option<&'a str>,
    top_modules: &'a BTreeSet<String>,
    found: Vec<String>,
    /// The crate's own modules (one a file), for the file-level check; empty when only the
    /// top-level modules are judged.
    files: &'a BTreeSet<Vec<String>>,
    /// The modules of this crate the file names, each as the longest module path a written
    /// path starts with.
    named_files: BTreeSet<Vec<String>>,
}

impl Collector<'_> {
    /// The module or crate a path starting with `segments` names, if it is one we judge.
    fn resolve(&self, segments: &[String]) -> Option<String> {
        let first = segments.first()?;
        if let Some(krate) = CRATES.iter().find(|krate| krate.library == first) {
            if let Some(layer) = krate.layer {
                return Some(layer.to_string());
            }
            return self.top_level(&segments[1..]);
        }
        let from_root = match first.as_str() {
            "crate" => {
                if let Some(layer) = self.layer {
                    segments.get(1)?;
                    return Some(layer.to_string());
                }
                &segments[1..]
            }
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
        self.top_level(from_root)
    }

    /// The top-level module a path from a crate's root names.
    fn top_level(&self, from_root: &[String]) -> Option<String> {
        let name = from_root.first()?;
        // What a crate root re-exports (`crate::Error`) is the error module's.
        if name == "Error" || name == "ErrorKind" {
            return Some("error".to_string());
        }
        self.top_modules.contains(name).then(|| name.clone())
    }

    fn record(&mut self, segments: Vec<String>) {
        if let Some(name) = self.resolve(&segments) {
            self.found.push(name);
        }
        if let Some(file) = self.file_named(&segments) {
            self.named_files.insert(file);
        }
    }

    /// The module file of this crate that a path starting with `segments` names: the path
    /// made absolute (`crate::`, `super::`, `self::`, or a child module of this one written
    /// bare), then cut to the longest prefix that is a file's module.
    fn file_named(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let mut absolute: Vec<String> = match first.as_str() {
            "crate" => self.layer.iter().map(|layer| layer.to_string()).collect(),
            "super" | "self" => {
                let supers = segments.iter().take_while(|s| *s == "super").count();
                self.module[..self.module.len().saturating_sub(supers)].to_vec()
            }
            _ => {
                let mut child = self.module.to_vec();
                child.push(first.clone());
                if !self.files.contains(&child) {
                    return None;
                }
                self.module.to_vec()
            }
        };
        absolute.extend(
            segments
                .iter()
                .skip_while(|s| *s == "crate" || *s == "super" || *s == "self")
                .cloned(),
        );
        (1..=absolute.len())
            .rev()
            .map(|length| absolute[..length].to_vec())
            .find(|prefix| self.files.contains(prefix))
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
        if !source_tree::is_test_code(attributes) {
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

/// Modules that are tests, or the roots the layering does not judge (a crate's `lib.rs` only
/// declares modules and re-exports the crates below it).
fn outside_the_layering(name: &str) -> bool {
    ["lib", "main", "test_fixtures", "world"].contains(&name) || name.ends_with("tests")
}

/// Every top-level module of the workspace: those of the crates that hold several, and each
/// one-layer crate's layer.
fn top_modules() -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for krate in CRATES {
        if let Some(layer) = krate.layer {
            modules.insert(layer.to_string());
            continue;
        }
        for entry in std::fs::read_dir(root().join(krate.src)).unwrap() {
            let path = entry.unwrap().path();
            modules.insert(path.file_stem().unwrap().to_string_lossy().to_string());
        }
    }
    modules.retain(|name| !outside_the_layering(name));
    modules
}

fn uses() -> Uses {
    let top_modules = top_modules();
    let mut uses = Uses::new();
    for krate in CRATES {
        for file in source_files(krate) {
            let module = module_path(krate, &file);
            let test_file = module.last().is_some_and(|name| name == "tests");
            if module.is_empty() || outside_the_layering(&module[0]) || test_file {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let parsed = syn::parse_file(&text).unwrap();
            let mut collector = Collector {
                module: &module,
                layer: krate.layer,
                top_modules: &top_modules,
                found: Vec::new(),
                files: &BTreeSet::new(),
                named_files: BTreeSet::new(),
            };
            collector.visit_file(&parsed);
            let relative = file.strip_prefix(root()).unwrap();
            let entry = uses.entry(module[0].clone()).or_default();
            for name in collector.found {
                if name != module[0] {
                    entry
                        .entry(name)
                        .or_insert_with(|| relative.display().to_string());
                }
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

/// Whether `module` may name `name`: below it in the layering, and not one it may never name.
fn may_name(module: &str, name: &str) -> bool {
    let never = NEVER_NAMED
        .iter()
        .find(|(owner, _)| *owner == module)
        .is_some_and(|(_, never)| never.contains(&name));
    !never && allowed(module).unwrap_or(&[]).contains(&name)
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
        for (name, place) in named {
            let confined = CONFINED_CRATES.iter().any(|(krate, _)| *krate == name);
            if !confined && !may_name(&module, &name) {
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
            // to itself (only the store writes SQL, held by the direct check). Likewise a layer
            // that stands on the recorders (the benchmark's generator) reaches serenity's types
            // through them; the direct check holds that it never names serenity itself.
            let on_the_recorders = *krate == "serenity" && reachable(module).contains("ingest");
            if owners.contains(module) || krate.starts_with("rusqlite") || on_the_recorders {
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
        layer: None,
        top_modules: &top_modules,
        found: Vec::new(),
        files: &BTreeSet::new(),
        named_files: BTreeSet::new(),
    };
    collector.visit_file(&syn::parse_file(source).unwrap());
    let names: BTreeSet<String> = collector.found.into_iter().collect();
    let expected: BTreeSet<String> = ["cli", "ingest", "serenity", "comfy_table", "store", "rmcp"]
        .iter()
        .map(|name| name.to_string())
        .collect();
    assert_eq!(names, expected);
}

/// Which module files of one crate each of its files names (its test code left out), by
/// module path; a file's own submodules and the modules it sits in are not counted, since a
/// module and its parts are one place.
fn file_graph(krate: &Crate) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let top_modules = top_modules();
    let judged: Vec<(PathBuf, Vec<String>)> = source_files(krate)
        .into_iter()
        .map(|file| {
            let module = module_path(krate, &file);
            (file, module)
        })
        .filter(|(_, module)| {
            !module.is_empty()
                && !outside_the_layering(&module[0])
                && module.last().is_none_or(|name| name != "tests")
        })
        .collect();
    let files: BTreeSet<Vec<String>> = judged.iter().map(|(_, module)| module.clone()).collect();
    let mut graph = BTreeMap::new();
    for (file, module) in &judged {
        let parsed = syn::parse_file(&std::fs::read_to_string(file).unwrap()).unwrap();
        let mut collector = Collector {
            module,
            layer: krate.layer,
            top_modules: &top_modules,
            found: Vec::new(),
            files: &files,
            named_files: BTreeSet::new(),
        };
        collector.visit_file(&parsed);
        let named: BTreeSet<Vec<String>> = collector
            .named_files
            .into_iter()
            .filter(|other| !other.starts_with(module) && !module.starts_with(other))
            .collect();
        graph.insert(module.clone(), named);
    }
    graph
}

/// The cycles of a file graph, each as the files around it from its smallest, once each.
fn cycles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        // Depth-first from `start`, through files after it only, back to it.
        let mut pending = vec![vec![start.clone()]];
        while let Some(path) = pending.pop() {
            let last = path.last().unwrap();
            for next in graph.get(last).into_iter().flatten() {
                if next == start {
                    found.insert(path.iter().map(|module| module.join("::")).collect());
                } else if next > start && !path.contains(next) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    pending.push(longer);
                }
            }
        }
    }
    found
}

#[test]
fn no_file_of_a_crate_names_a_file_that_names_it_back() {
    let mut problems = Vec::new();
    for krate in CRATES {
        for cycle in cycles(&file_graph(krate)) {
            problems.push(format!("{}: {} → back", krate.src, cycle.join(" → ")));
        }
    }
    assert!(
        problems.is_empty(),
        "files that name each other:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_file_check_resolves_relative_paths_and_finds_a_cycle_between_two_files() {
    let module = vec!["business".to_string(), "actions".to_string()];
    let files: BTreeSet<Vec<String>> = [
        vec!["business"],
        vec!["business", "actions"],
        vec!["business", "messages"],
        vec!["business", "actions", "checks"],
    ]
    .into_iter()
    .map(|path| path.into_iter().map(str::to_string).collect())
    .collect();
    let source = r#"
        use super::messages::SEND_POLICY;
        fn f() { checks::target(); crate::business::OwnerContext::default(); }
    "#;
    let mut collector = Collector {
        module: &module,
        layer: None,
        top_modules: &BTreeSet::new(),
        found: Vec::new(),
        files: &files,
        named_files: BTreeSet::new(),
    };
    collector.visit_file(&syn::parse_file(source).unwrap());
    let owned = |path: &[&str]| path.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        collector.named_files,
        BTreeSet::from([
            owned(&["business"]),
            owned(&["business", "messages"]),
            owned(&["business", "actions", "checks"]),
        ])
    );
    let graph = BTreeMap::from([
        (owned(&["a"]), BTreeSet::from([owned(&["b"])])),
        (owned(&["b"]), BTreeSet::from([owned(&["c"])])),
        (owned(&["c"]), BTreeSet::from([owned(&["a"])])),
        (owned(&["d"]), BTreeSet::from([owned(&["a"])])),
    ]);
    assert_eq!(
        cycles(&graph),
        BTreeSet::from([vec!["a".to_string(), "b".to_string(), "c".to_string()]])
    );
}

/// Each crate's own dependencies (its `[dependencies]`, not the optional ones): the workspace
/// crates below it and the confined crates it alone may name. The compiler holds the rest: a
/// crate cannot name what it does not depend on.
const CRATE_GRAPH: &[(&str, &[&str])] = &[
    // The vocabulary's one optional dependency (rusqlite, its `sqlite` feature) is the
    // store's; held below.
    ("crates/vocabulary", &[]),
    ("crates/store", &["discord-manager-vocabulary", "rusqlite"]),
    ("crates/attachments", &[]),
    ("crates/meaning", &["discord-manager-vocabulary"]),
    (
        "crates/ingest",
        &[
            "discord-manager-vocabulary",
            "discord-manager-store",
            "discord-manager-sender",
            "serenity",
        ],
    ),
    ("crates/sender", &["discord-manager-vocabulary"]),
    (
        "crates/playback",
        &[
            "discord-manager-vocabulary",
            "discord-manager-store",
            "discord-manager-sender",
        ],
    ),
    (
        "crates/core",
        &[
            "discord-manager-vocabulary",
            "discord-manager-store",
            "discord-manager-sender",
            "discord-manager-attachments",
            "discord-manager-meaning",
        ],
    ),
    (
        "crates/discord",
        &[
            "discord-manager-vocabulary",
            "discord-manager-store",
            "discord-manager-ingest",
            "discord-manager-sender",
            "discord-manager-core",
            "discord-manager-attachments",
            "serenity",
            "reqwest",
        ],
    ),
    (
        "crates/synthetic",
        &[
            "discord-manager-vocabulary",
            "discord-manager-store",
            "discord-manager-ingest",
            "discord-manager-core",
            "discord-manager-playback",
            "discord-manager-meaning",
        ],
    ),
    (
        ".",
        &[
            "discord-manager-vocabulary",
            "discord-manager-store",
            "discord-manager-ingest",
            "discord-manager-sender",
            "discord-manager-playback",
            "discord-manager-core",
            "discord-manager-discord",
            "discord-manager-attachments",
            "rmcp",
            "clap",
            "clap_complete",
            "comfy-table",
        ],
    ),
];

/// The dependencies a manifest's `[dependencies]` table lists: each name, and whether it is
/// optional. (A line parser: the manifests here write one dependency per line.)
fn dependencies(manifest: &str) -> Vec<(String, bool)> {
    let mut listed = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let key = line.split('=').next().unwrap().trim();
        let name = key.strip_suffix(".workspace").unwrap_or(key);
        listed.push((name.to_string(), line.contains("optional = true")));
    }
    listed
}

#[test]
fn every_crate_of_the_workspace_is_held_by_this_file() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = manifest
        .lines()
        .find_map(|line| line.strip_prefix("members = "))
        .expect("the workspace lists its members");
    let members: BTreeSet<&str> = members
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|member| member.trim().trim_matches('"'))
        .collect();
    let graphed: BTreeSet<&str> = CRATE_GRAPH
        .iter()
        .map(|(folder, _)| *folder)
        .filter(|folder| *folder != ".")
        .collect();
    let layered: BTreeSet<&str> = CRATES
        .iter()
        .filter_map(|krate| krate.src.strip_suffix("/src"))
        .collect();
    assert_eq!(
        graphed, members,
        "every member has its place in CRATE_GRAPH"
    );
    assert_eq!(layered, members, "every member's modules are in CRATES");
}

#[test]
fn the_crate_graph_is_the_layering() {
    let workspace_or_confined = |name: &str| {
        name.starts_with("discord-manager-")
            || CONFINED_CRATES
                .iter()
                .any(|(krate, _)| krate.replace('_', "-") == name.replace('_', "-"))
    };
    let mut problems = Vec::new();
    for (folder, allowed) in CRATE_GRAPH {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        for (name, optional) in dependencies(&manifest) {
            if !optional && workspace_or_confined(&name) && !allowed.contains(&name.as_str()) {
                problems.push(format!("{folder} depends on {name}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The optional dependencies are the test world's, which no build but a test asks for: the
    // playback crate's behind its `world` feature, the core's (the playback crate itself, for
    // the owner context it gives the world) behind `fixtures`. The application, the Discord
    // crate and the generator enable either only as dev-dependencies.
    let optional_of = |folder: &str| -> BTreeSet<String> {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        dependencies(&manifest)
            .into_iter()
            .filter_map(|(name, optional)| optional.then_some(name))
            .collect()
    };
    let names = |names: &[&str]| -> BTreeSet<String> {
        names.iter().map(|name| name.to_string()).collect()
    };
    assert_eq!(
        optional_of("crates/core"),
        names(&["discord-manager-playback"])
    );
    assert_eq!(
        optional_of("crates/playback"),
        names(&["discord-manager-ingest", "serenity", "tempfile", "tokio"])
    );
    for folder in [".", "crates/discord", "crates/synthetic"] {
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).unwrap();
        let normal = manifest
            .split("[dev-dependencies]")
            .next()
            .unwrap()
            .split("[dependencies]")
            .nth(1)
            .unwrap();
        assert!(
            !normal.contains("fixtures") && !normal.contains("\"world\""),
            "{folder} builds the test world outside its tests"
        );
    }
}

/// The workspace crates a normal build of the crate in `folder` compiles: its `[dependencies]`
/// that are not optional (a test world's are enabled only by dev-dependencies), theirs, and so
/// on, each by its package name (`discord-manager-<folder name>`).
fn normal_dependencies(folder: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut pending = vec![folder.to_string()];
    while let Some(folder) = pending.pop() {
        let manifest = std::fs::read_to_string(root().join(&folder).join("Cargo.toml")).unwrap();
        for (name, optional) in dependencies(&manifest) {
            let Some(member) = name.strip_prefix("discord-manager-") else {
                continue;
            };
            if !optional && seen.insert(name.clone()) {
                pending.push(format!("crates/{member}"));
            }
        }
    }
    seen
}

#[test]
fn the_demo_is_not_in_the_products_graph() {
    // The demo's stand-in Discord (the playback crate) is the seed's: the Discord crate's
    // sender records Discord's answers through the port's `AnswerRecorder` (the ingest crate's
    // `StoreRecorder`), as the demo is handed it, so no crate of the product builds on the
    // demo. The application names it once, itself, for `seed`; its tests and the Discord
    // crate's play Discord through it as dev-dependencies.
    let playback = "discord-manager-playback";
    assert!(
        !normal_dependencies("crates/discord").contains(playback),
        "the Discord crate builds on the demo: {:?}",
        normal_dependencies("crates/discord")
    );
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let direct: Vec<String> = dependencies(&manifest)
        .into_iter()
        .filter(|(name, optional)| !optional && name.starts_with("discord-manager-"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        direct.iter().any(|name| name == playback),
        "the application's seed plays the demo: it names the playback crate itself"
    );
    for name in direct.iter().filter(|name| *name != playback) {
        let folder = format!("crates/{}", name.strip_prefix("discord-manager-").unwrap());
        assert!(
            !normal_dependencies(&folder).contains(playback),
            "the application reaches the demo through {name}, not only through its seed"
        );
    }
}

/// Each `use` of a file, with whether it is `pub` and the paths it brings in: each as its
/// segments (`self` left out, a glob as `*`) and the local name it is renamed to, if any.
type Imports = Vec<(bool, Vec<(Vec<String>, Option<String>)>)>;

struct ImportCollector {
    imports: Imports,
}

impl ImportCollector {
    fn paths(
        tree: &syn::UseTree,
        prefix: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        let with = |prefix: &[String], name: &syn::Ident| {
            let mut segments = prefix.to_vec();
            if name != "self" {
                segments.push(name.to_string());
            }
            segments
        };
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                Self::paths(&path.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(name) => out.push((with(prefix, &name.ident), None)),
            syn::UseTree::Rename(rename) => {
                out.push((with(prefix, &rename.ident), Some(rename.rename.to_string())))
            }
            syn::UseTree::Glob(_) => {
                let mut segments = prefix.clone();
                segments.push("*".to_string());
                out.push((segments, None));
            }
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    Self::paths(tree, prefix, out);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for ImportCollector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        Self::paths(&item.tree, &mut Vec::new(), &mut paths);
        let public = !matches!(item.vis, syn::Visibility::Inherited);
        self.imports.push((public, paths));
    }
}

/// The modules of each workspace crate as paths from its root (`["business", "kernel"]`),
/// counting a module its root flattens (`mod store; pub use store::*;`) at the root too.
fn crate_modules() -> BTreeMap<&'static str, BTreeSet<Vec<String>>> {
    CRATES
        .iter()
        .map(|krate| {
            let src = root().join(krate.src);
            let mut modules = BTreeSet::new();
            for file in source_files(krate) {
                let relative = file.strip_prefix(&src).unwrap().with_extension("");
                let mut path: Vec<String> = relative
                    .iter()
                    .map(|part| part.to_string_lossy().to_string())
                    .collect();
                let is_root = path.len() == 1 && (path[0] == "lib" || path[0] == "main");
                if is_root || path.last().is_some_and(|last| last == "mod") {
                    path.pop();
                }
                modules.insert(path);
            }
            let lib = syn::parse_file(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
            let mut root_imports = ImportCollector {
                imports: Vec::new(),
            };
            root_imports.visit_file(&lib.unwrap());
            let flattened: Vec<String> = root_imports
                .imports
                .iter()
                .filter(|(public, _)| *public)
                .flat_map(|(_, paths)| paths)
                .filter_map(|(path, _)| match path.as_slice() {
                    [module, glob] if glob == "*" => Some(module.clone()),
                    _ => None,
                })
                .collect();
            for module in flattened {
                let inside: Vec<Vec<String>> = modules
                    .iter()
                    .filter(|path| path.len() > 1 && path[0] == module)
                    .map(|path| path[1..].to_vec())
                    .collect();
                modules.extend(inside);
            }
            (krate.library, modules)
        })
        .collect()
}

/// What in `source` (a file of the crate `library`; `crate_root` if it is its lib.rs or
/// main.rs) hides a crate boundary: another workspace crate renamed (`use discord_manager_x
/// as x`) anywhere, or, at a crate root, another crate's module brought in (`use
/// discord_manager_x::{module, …}`, `pub` or not), so `crate::module::…` would read as local.
fn hidden_boundaries(
    source: &str,
    library: &str,
    crate_root: bool,
    modules: &BTreeMap<&str, BTreeSet<Vec<String>>>,
) -> Vec<String> {
    let mut collector = ImportCollector {
        imports: Vec::new(),
    };
    collector.visit_file(&syn::parse_file(source).unwrap());
    let mut problems = Vec::new();
    for (_, paths) in collector.imports {
        for (path, rename) in paths {
            let Some((krate, inside)) = path.split_first() else {
                continue;
            };
            let Some(known) = modules.get(krate.as_str()) else {
                continue;
            };
            if krate == library {
                continue;
            }
            let written = path.join("::");
            if inside.is_empty() {
                if let Some(local) = rename {
                    problems.push(format!("`{written}` renamed `{local}`"));
                }
            } else if crate_root && known.contains(&inside.to_vec()) {
                problems.push(format!("`{written}`, a module, at the crate root"));
            }
        }
    }
    problems
}

#[test]
fn no_crate_imports_another_crates_modules_as_if_they_were_its_own() {
    let modules = crate_modules();
    let mut problems = Vec::new();
    for krate in CRATES {
        let src = root().join(krate.src);
        for file in source_files(krate) {
            let crate_root = file == src.join("lib.rs") || file == src.join("main.rs");
            let source = std::fs::read_to_string(&file).unwrap();
            for problem in hidden_boundaries(&source, krate.library, crate_root, &modules) {
                let relative = file.strip_prefix(root()).unwrap();
                problems.push(format!("{}: {problem}", relative.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "name the crate itself (`discord_manager_store::Store`), not a local alias:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_import_check_sees_an_alias_and_lets_a_plain_import_be() {
    let modules = crate_modules();
    let at_root = |source: &str| hidden_boundaries(source, "discord_manager_core", true, &modules);
    // A crate root may import another crate's items, and name its own modules.
    assert_eq!(
        at_root("use discord_manager_store::{Store, Writer}; use crate::business;"),
        Vec::<String>::new()
    );
    assert_eq!(
        at_root(
            "use discord_manager_vocabulary::{error, instant::Instant};
             pub use discord_manager_store::testing;
             #[cfg(test)] use discord_manager_ingest as ingest;"
        ),
        [
            "`discord_manager_vocabulary::error`, a module, at the crate root",
            "`discord_manager_store::testing`, a module, at the crate root",
            "`discord_manager_ingest` renamed `ingest`",
        ]
    );
    // Any other file may import a module of another crate under its own name, never rename
    // the crate.
    let in_a_file =
        |source: &str| hidden_boundaries(source, "discord_manager_core", false, &modules);
    assert_eq!(
        in_a_file("use discord_manager_vocabulary::instant; use discord_manager_store::{self};"),
        Vec::<String>::new()
    );
    assert_eq!(
        in_a_file("mod tests { use discord_manager_store::{self as store}; }"),
        ["`discord_manager_store` renamed `store`"]
    );
}

/// Collects the `static` items of a file, at any depth (inside functions too), outside test
/// code.
#[derive(Default)]
struct Statics {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for Statics {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if let syn::Item::Static(item) = item
            && !source_tree::is_test_code(&item.attrs)
        {
            self.names.push(item.ident.to_string());
        }
        let test_only = match item {
            syn::Item::Mod(item) => source_tree::is_test_code(&item.attrs),
            syn::Item::Fn(item) => source_tree::is_test_code(&item.attrs),
            syn::Item::Impl(item) => source_tree::is_test_code(&item.attrs),
            _ => false,
        };
        if !test_only {
            syn::visit::visit_item(self, item);
        }
    }
}

/// The `static` items of `source` outside test code.
fn statics_in(source: &str) -> Vec<String> {
    let mut statics = Statics::default();
    statics.visit_file(&syn::parse_file(source).unwrap());
    statics.names
}

#[test]
fn the_business_layer_holds_no_process_wide_state() {
    // What a call shares with other calls (the meaning index, the turns of attachment work,
    // the places of waiting calls) belongs to the owner context its server built; a static
    // would be shared by every server, store and test of the process.
    let business = root().join("crates/core/src/business");
    let mut found = Vec::new();
    for file in source_tree::rust_files(&business) {
        if file.file_name().is_some_and(|name| name == "tests.rs")
            || file.components().any(|part| part.as_os_str() == "tests")
        {
            continue;
        }
        for name in statics_in(&std::fs::read_to_string(&file).unwrap()) {
            found.push(format!("{} ({name})", file.display()));
        }
    }
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn the_state_check_finds_a_static_inside_a_function_and_leaves_test_code_alone() {
    let source = "
        static TOP: u8 = 0;
        fn nonce() { static SEQUENCE: AtomicU64 = AtomicU64::new(0); }
        #[cfg(test)]
        mod tests { static FIXTURE: u8 = 0; }
        #[cfg(test)]
        fn helper() { static HELD: u8 = 0; }
        fn borrowed() -> &'static str { \"\" }
    ";
    assert_eq!(statics_in(source), ["TOP", "SEQUENCE"]);
}
