//! An MCP client that connects sees exactly the six capabilities of the registry as tools, in
//! the registry's order, each described for the caller, with an input schema that refuses
//! unknown fields and a declared output schema.

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
            "messages_catch_up",
            "mentions_list",
            "bookmarks_add",
            "bookmarks_list",
            "bookmarks_resolve",
        ]
    );
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
    mcp.stop().await;
}
