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

/// What a tool answers a prompt rendered without a store.
const CANNED: &str = "(the tool's answer)\n";

/// A tool's answer that is only its text, [`CANNED`].
struct Canned;

impl discord_manager_core::answer::Outcome for Canned {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    fn render(&self) -> discord_manager_core::answer::page::Page {
        discord_manager_core::answer::page::Page::new()
    }
    fn to_text(&self) -> String {
        CANNED.to_string()
    }
    fn image(&self) -> Option<&discord_manager_core::answer::Image> {
        None
    }
    fn file(&self) -> Option<&Path> {
        None
    }
}

/// Whether `text` names `tool` as a word of its own (`messages_send`, not `messages_sends`).
fn names_tool(text: &str, tool: &str) -> bool {
    let part_of_a_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(tool).any(|(at, _)| {
        !text[..at].ends_with(part_of_a_name)
            && !text[at + tool.len()..].starts_with(part_of_a_name)
    })
}

/// The prompts carry no capability of their own: `prompts/list` is the table of
/// `src/mcp/prompts.rs`, every tool a prompt reads with or names is a registered tool, a prompt
/// reads the store only with the tools it declares, and its own words name exactly the tools
/// it declares.
#[test]
fn every_prompt_is_listed_and_names_only_listed_tools() {
    use discord_manager::mcp::prompts::{PROMPTS, listed};

    let tools: BTreeSet<String> = discord_manager::mcp::tools()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    let shown = listed();
    assert_eq!(
        shown.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        PROMPTS.iter().map(|p| p.name).collect::<Vec<_>>(),
        "prompts/list lists exactly the table, in its order"
    );
    let mut names = BTreeSet::new();
    for (prompt, listed) in PROMPTS.iter().zip(&shown) {
        assert!(names.insert(prompt.name), "{} is listed twice", prompt.name);
        assert_eq!(listed.title.as_deref(), Some(prompt.title));
        assert_eq!(listed.description.as_deref(), Some(prompt.description));
        let arguments: Vec<(&str, Option<&str>, Option<bool>)> = listed
            .arguments
            .iter()
            .flatten()
            .map(|a| (a.name.as_str(), a.description.as_deref(), a.required))
            .collect();
        let declared: Vec<(&str, Option<&str>, Option<bool>)> = prompt
            .arguments
            .iter()
            .map(|a| (a.name, Some(a.description), Some(a.required)))
            .collect();
        assert_eq!(arguments, declared, "{}'s arguments", prompt.name);
        let declared_tools: BTreeSet<&str> = prompt
            .reads
            .iter()
            .chain(prompt.suggests)
            .copied()
            .collect();
        for tool in &declared_tools {
            assert!(
                tools.contains(*tool),
                "{} names `{tool}`, which is not a registered tool",
                prompt.name
            );
        }

        // Rendered over canned answers: it reads with what it declares, and says the rest.
        let mut given = serde_json::Map::new();
        for argument in prompt.arguments {
            let value = match argument.name {
                "channel" => "1400000000000000001",
                _ => "1500000000000000004",
            };
            given.insert(argument.name.to_string(), value.into());
        }
        let given = prompt.given(Some(given)).unwrap();
        let mut read = BTreeSet::new();
        let text = prompt
            .render(&given, &mut |capability, _| {
                read.insert(capability.name);
                Ok(Box::new(Canned))
            })
            .unwrap_or_else(|error| panic!("{} did not render: {}", prompt.name, error.message));
        assert_eq!(
            read,
            prompt.reads.iter().copied().collect::<BTreeSet<_>>(),
            "{} reads with exactly the tools it declares in `reads`",
            prompt.name
        );
        assert!(
            text.contains(CANNED),
            "{} shows the tool's answer",
            prompt.name
        );
        let own_words = text.replace(CANNED, "");
        let named: BTreeSet<&str> = tools
            .iter()
            .map(String::as_str)
            .filter(|tool| names_tool(&own_words, tool))
            .collect();
        assert_eq!(
            named, declared_tools,
            "{}'s words name exactly the tools it declares",
            prompt.name
        );
    }
}
