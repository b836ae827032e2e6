//! An MCP client that connects sees exactly the registered capabilities as tools, in the registry's
//! order, the same set whose surfaces are reviewed in `tests/snapshots/`, each described for the
//! caller, with an input schema that refuses unknown fields and a declared output schema, and
//! annotated as each capability's declared `Effect` says: those that only read are read-only,
//! those that act on Discord are open-world, and destructive, so a client asks the owner first,
//! are those whose effect cannot be undone (deleting the bot's message) and those that hide
//! something from the owner (dismissing a mention, marking channels read). The names and the
//! lists are the registry's, so a new capability needs nothing here.

use discord_manager_core::registry::{Effect, capabilities};
use serde_json::Value;

use crate::support::Store;

pub async fn spec() {
    let store = Store::without_owner();
    let mcp = store.mcp().await;

    let tools = mcp.tools().await;

    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    let registered: Vec<&str> = capabilities().iter().map(|capability| capability.name).collect();
    assert!(registered.len() > 20, "the registry lists the capabilities");
    assert_eq!(names, registered);
    let snapshots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut reviewed: Vec<String> = std::fs::read_dir(&snapshots)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", snapshots.display()))
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|file| {
            file.strip_prefix("tool_schemas__")?
                .strip_suffix(".snap")
                .map(str::to_string)
        })
        .collect();
    reviewed.sort();
    let mut listed: Vec<String> = names.iter().map(|name| name.to_string()).collect();
    listed.sort();
    assert_eq!(listed, reviewed, "every listed tool, and only those, has a reviewed snapshot");
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or_default();
        assert!(
            description.len() > 40,
            "{} tells the caller what it gets: {description:?}",
            tool.name
        );
        assert_eq!(
            tool.input_schema.get("type"),
            Some(&Value::from("object")),
            "{}'s input schema is an object",
            tool.name
        );
        assert_eq!(
            tool.input_schema.get("additionalProperties"),
            Some(&Value::Bool(false)),
            "{}'s input schema refuses unknown fields",
            tool.name
        );
        let output = tool
            .output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("{} declares an output schema", tool.name));
        assert_eq!(
            output.get("type"),
            Some(&Value::from("object")),
            "{}'s output schema is an object",
            tool.name
        );
    }
    let hinted = |hint: fn(&rmcp::model::ToolAnnotations) -> Option<bool>| -> Vec<&str> {
        tools
            .iter()
            .filter(|tool| tool.annotations.as_ref().and_then(hint) == Some(true))
            .map(|tool| tool.name.as_ref())
            .collect()
    };
    let declared = |effect: fn(Effect) -> bool| -> Vec<&str> {
        capabilities()
            .iter()
            .filter(|capability| effect(capability.effect))
            .map(|capability| capability.name)
            .collect()
    };
    assert_eq!(
        hinted(|annotations| annotations.open_world_hint),
        declared(Effect::open_world),
        "what acts on Discord is open-world"
    );
    assert_eq!(
        hinted(|annotations| annotations.destructive_hint),
        declared(Effect::destructive),
        "a deletion cannot be undone, and what is hidden from the owner is gone to them"
    );
    assert_eq!(
        hinted(|annotations| annotations.read_only_hint),
        declared(Effect::read_only),
        "what only reads the store is read-only"
    );
    // Each list is a real choice: some tools are in it and some are not.
    for (hint, count) in [
        ("open-world", declared(Effect::open_world).len()),
        ("destructive", declared(Effect::destructive).len()),
        ("read-only", declared(Effect::read_only).len()),
    ] {
        assert!(
            count > 0 && count < names.len(),
            "{count} of {} tools are {hint}",
            names.len()
        );
    }
    mcp.stop().await;
}
