//! The parity test: the registry against the source.
//!
//! Every public function of the business and ingestion layers is wrapped by exactly one
//! capability xor exempt with a reason; every capability has both a CLI command and an MCP
//! tool; names are unique; nothing names a function that does not exist. The layering is held
//! by `tests/layering.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use discord_manager_core::registry::{capabilities, exemptions::EXEMPTIONS};

use crate::source_tree;

fn source_files(folder: &str) -> Vec<PathBuf> {
    source_tree::rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(folder))
}

/// `business::bookmarks::add::add_bookmark` for every top-level `pub fn` (not `pub(crate)`) of the
/// business and ingestion layers, outside `#[cfg(test)]` modules. Each layer is a folder and
/// the module path it stands for: the business layer is the core crate's `business` module,
/// the ingestion layer the whole ingest crate.
fn public_functions() -> BTreeSet<String> {
    let mut functions = BTreeSet::new();
    for (folder, layer) in [
        ("crates/core/src/business", "business"),
        ("crates/ingest/src", "ingest"),
    ] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        for file in source_files(folder) {
            let parsed = syn::parse_file(&std::fs::read_to_string(&file).unwrap()).unwrap();
            // The module's whole path: `business/schedules/job.rs` is
            // `business::schedules::job`; a folder's `mod.rs`, and the crate's `lib.rs`, stand
            // for their folder.
            let relative = file.strip_prefix(&root).unwrap().with_extension("");
            let mut parts = vec![layer];
            parts.extend(relative.iter().map(|p| p.to_str().unwrap()));
            if matches!(parts.last(), Some(&"mod") | Some(&"lib")) {
                parts.pop();
            }
            let prefix = parts.join("::");
            for item in parsed.items {
                if let syn::Item::Fn(function) = item
                    && matches!(function.vis, syn::Visibility::Public(_))
                {
                    functions.insert(format!("{prefix}::{}", function.sig.ident));
                }
            }
        }
    }
    functions
}

#[test]
fn every_public_function_is_wrapped_by_exactly_one_capability_xor_exempt() {
    let functions = public_functions();
    let mut wrapped: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for capability in capabilities() {
        wrapped
            .entry(capability.wraps)
            .or_default()
            .push(capability.name);
    }
    let exempt: BTreeSet<&str> = EXEMPTIONS
        .iter()
        .map(|exemption| exemption.function)
        .collect();
    let mut problems = Vec::new();
    for function in &functions {
        match (
            wrapped.get(function.as_str()),
            exempt.contains(function.as_str()),
        ) {
            (None, false) => problems.push(format!("{function} is neither wrapped nor exempt")),
            (Some(tools), true) => {
                problems.push(format!("{function} is wrapped by {tools:?} and exempt"))
            }
            (Some(tools), false) if tools.len() > 1 => problems.push(format!(
                "{function} is wrapped by more than one capability: {tools:?}"
            )),
            _ => {}
        }
    }
    for (function, tools) in &wrapped {
        if !functions.contains(*function) {
            problems.push(format!(
                "{tools:?} wraps {function}, which is not a public function"
            ));
        }
    }
    for exemption in EXEMPTIONS {
        if !functions.contains(exemption.function) {
            problems.push(format!(
                "the exemption of {} names no public function",
                exemption.function
            ));
        }
        if exemption.reason.trim().len() < 20 {
            problems.push(format!(
                "the exemption of {} needs a real reason",
                exemption.function
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn names_and_commands_are_unique() {
    let mut names = BTreeSet::new();
    let mut commands = BTreeSet::new();
    for capability in capabilities() {
        assert!(
            names.insert(capability.name),
            "tool {} is registered twice",
            capability.name
        );
        assert!(
            commands.insert(capability.command),
            "command {:?} is registered twice",
            capability.command
        );
        // A capability is one module, named by its tool: `bookmarks_add` is
        // `business::bookmarks::add`, `mentions_awaiting_reply` is
        // `business::mentions::awaiting_reply`, and its function is there, not forwarded to.
        let (toolset, verb) = capability.name.split_once('_').unwrap();
        let home = format!("business::{toolset}::{verb}");
        let function = capability.wraps.strip_prefix(&format!("{home}::"));
        assert!(
            function.is_some_and(|function| !function.contains("::")),
            "{} should wrap a function of {home}, not {}",
            capability.name,
            capability.wraps
        );
    }
}

#[test]
fn every_capability_has_a_cli_command_and_an_mcp_tool() {
    let tree = discord_manager::cli::command_tree();
    let tools: BTreeSet<String> = discord_manager::mcp::tools()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    for capability in capabilities() {
        let mut command = &tree;
        for word in capability.command {
            command = command.find_subcommand(word).unwrap_or_else(|| {
                panic!(
                    "{} has no CLI command {:?}",
                    capability.name, capability.command
                )
            });
        }
        let options: BTreeSet<String> = command
            .get_arguments()
            .filter_map(|arg| arg.get_long())
            .map(str::to_string)
            .collect();
        let fields = capability
            .input_schema
            .get("properties")
            .and_then(|properties| properties.as_object())
            .map_or(0, |properties| properties.len());
        assert_eq!(
            options
                .iter()
                .filter(|option| !["json", "db"].contains(&option.as_str()))
                // A result that holds a file also takes `--out FILE`, on the CLI only.
                .filter(|option| {
                    !(option.as_str() == "out"
                        && discord_manager::cli::WRITES_OUT.contains(&capability.name))
                })
                .count(),
            fields,
            "{}: one CLI option per input field (and `--out` where the result is a file)",
            capability.name
        );
        assert!(
            tools.contains(capability.name),
            "{} is not an MCP tool",
            capability.name
        );
    }
    assert_eq!(
        tools.len(),
        capabilities().len(),
        "the MCP server lists exactly the registry"
    );
}
