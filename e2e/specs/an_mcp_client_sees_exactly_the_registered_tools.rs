//! An MCP client that connects sees exactly the registered capabilities as tools, in the registry's
//! order, the same set whose surfaces are reviewed in `tests/snapshots/`, each described for the
//! caller, with an input schema that refuses unknown fields and a declared output schema, and
//! annotated: those that only read are read-only, the six that act on Discord are open-world,
//! and destructive, so a client asks the owner first, are the one whose effect cannot be undone
//! (deleting the bot's message) and the two that hide something from the owner (dismissing a
//! mention, marking channels read).

use serde_json::Value;

use crate::support::Store;

pub async fn spec() {
    let store = Store::without_owner();
    let mcp = store.mcp().await;

    let tools = mcp.tools().await;

    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "channels_list",
            "channels_mark_read",
            "messages_catch_up",
            "messages_history",
            "messages_search",
            "attachments_get",
            "messages_send",
            "messages_edit",
            "messages_delete",
            "reactions_add",
            "reactions_remove",
            "activity_briefing",
            "mentions_list",
            "mentions_awaiting_reply",
            "mentions_dismiss",
            "activity_wait",
            "activity_digest",
            "bookmarks_add",
            "bookmarks_list",
            "bookmarks_resolve",
            "store_status",
            "schedules_add",
            "schedules_list",
            "schedules_cancel",
        ]
    );
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
    assert_eq!(
        hinted(|annotations| annotations.open_world_hint),
        [
            "messages_send",
            "messages_edit",
            "messages_delete",
            "reactions_add",
            "reactions_remove",
            "schedules_add"
        ]
    );
    assert_eq!(
        hinted(|annotations| annotations.destructive_hint),
        ["channels_mark_read", "messages_delete", "mentions_dismiss"],
        "a deletion cannot be undone, and what is hidden from the owner is gone to them"
    );
    assert_eq!(
        hinted(|annotations| annotations.read_only_hint),
        [
            "channels_list",
            "messages_catch_up",
            "messages_history",
            "messages_search",
            "attachments_get",
            "activity_briefing",
            "mentions_list",
            "mentions_awaiting_reply",
            "activity_wait",
            "activity_digest",
            "bookmarks_list",
            "store_status",
            "schedules_list",
        ]
    );
    mcp.stop().await;
}
