//! A snapshot of every tool as an MCP client sees it (name, description, input and output
//! schema) and of its CLI command, so that any change to the surface shows up in review.
//! After an intended change: `INSTA_UPDATE=always cargo test --test gates -- tool_schemas::`,
//! then read the diff of `tests/snapshots/`.

use serde_json::json;

#[test]
fn every_tool_matches_its_snapshot() {
    let tools = discord_manager::mcp::tools();
    for capability in discord_manager_core::registry::capabilities() {
        let tool = tools
            .iter()
            .find(|tool| tool.name == capability.name)
            .unwrap();
        let surface = json!({
            "name": tool.name,
            "cli": capability.command.join(" "),
            "positional": capability.positional,
            "wraps": capability.wraps,
            "title": tool.title,
            "annotations": tool.annotations,
            "description": tool.description,
            "inputSchema": tool.input_schema.as_ref(),
            "outputSchema": tool.output_schema.as_deref(),
        });
        // Named as when this file was a test binary of its own, not by its module path.
        insta::with_settings!({prepend_module_to_snapshot => false}, {
            insta::assert_json_snapshot!(format!("tool_schemas__{}", capability.name), surface);
        });
    }
}

#[test]
fn every_field_and_tool_is_described_for_the_caller() {
    for capability in discord_manager_core::registry::capabilities() {
        assert!(
            capability.description.len() > 60,
            "{}: describe what the caller gets",
            capability.name
        );
        let properties = capability
            .input_schema
            .get("properties")
            .and_then(|p| p.as_object());
        for (field, schema) in properties.into_iter().flatten() {
            let description = schema
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("");
            assert!(
                description.len() > 10,
                "{}.{field} has no description",
                capability.name
            );
            // github-mcp-server's rule: a caller never has to guess what leaving a field out
            // means, nor which numbers are accepted.
            let required = capability
                .input_schema
                .get("required")
                .and_then(|r| r.as_array())
                .is_some_and(|required| required.iter().any(|name| name == field.as_str()));
            assert!(
                required || description.contains("Default"),
                "{}.{field} is optional: say what leaving it out means (\"Default: …\")",
                capability.name
            );
            let (minimum, maximum) = (schema.get("minimum"), schema.get("maximum"));
            if let (Some(minimum), Some(maximum)) = (minimum, maximum) {
                assert!(
                    description.contains(&format!("from {minimum} to {maximum}")),
                    "{}.{field} accepts {minimum} to {maximum}: say so (\"from {minimum} to {maximum}\")",
                    capability.name
                );
            }
        }
    }
}

/// What an MCP client may auto-approve: exactly the tools that only read, and nothing that
/// posts is ever presented as closed-world or read-only.
#[test]
fn annotations_follow_each_capabilitys_declared_effect() {
    use discord_manager_core::registry::Effect;
    let tools = discord_manager::mcp::tools();
    let mut read_only: Vec<&str> = Vec::new();
    let mut open_world: Vec<&str> = Vec::new();
    for tool in &tools {
        let annotations = tool
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no annotations", tool.name));
        for (hint, value) in [
            ("readOnlyHint", annotations.read_only_hint),
            ("destructiveHint", annotations.destructive_hint),
            ("idempotentHint", annotations.idempotent_hint),
            ("openWorldHint", annotations.open_world_hint),
        ] {
            assert!(
                value.is_some(),
                "{}: {hint} is left to the default",
                tool.name
            );
        }
        assert!(annotations.title.as_deref().is_some_and(|t| !t.is_empty()));
        if annotations.read_only_hint == Some(true) {
            read_only.push(&tool.name);
        }
        if annotations.open_world_hint == Some(true) {
            open_world.push(&tool.name);
        }
    }
    assert_eq!(
        open_world,
        [
            "messages_send",
            "messages_edit",
            "messages_delete",
            "reactions_add",
            "reactions_remove",
            "schedules_add"
        ]
    );
    assert_eq!(read_only.len(), 13, "{read_only:?}");
    // The security model tells the owner how many a client may auto-approve.
    let security =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/security.md"))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    let counted = format!("the {} that only read", read_only.len());
    assert!(
        security.contains(&counted),
        "docs/security.md does not say {counted:?}"
    );
    let writers: Vec<&str> = discord_manager_core::registry::capabilities()
        .iter()
        .filter(|capability| capability.effect == Effect::WritesStore)
        .map(|capability| capability.name)
        .collect();
    assert_eq!(
        writers,
        ["bookmarks_add", "bookmarks_resolve", "schedules_cancel"]
    );
    let hiders: Vec<&str> = discord_manager_core::registry::capabilities()
        .iter()
        .filter(|capability| capability.effect == Effect::HidesFromOwner)
        .map(|capability| capability.name)
        .collect();
    assert_eq!(hiders, ["channels_mark_read", "mentions_dismiss"]);
    let destructive: Vec<&str> = tools
        .iter()
        .filter(|tool| tool.annotations.as_ref().unwrap().destructive_hint == Some(true))
        .map(|tool| tool.name.as_ref())
        .collect();
    assert_eq!(
        destructive,
        ["channels_mark_read", "messages_delete", "mentions_dismiss"]
    );
    // Only the wait runs on the runtime without the call's own context: a post that asks the
    // owner must never take that path, or it would lose the form. The async others are
    // exactly those that act on Discord (which may ask the owner first); every other
    // capability is a synchronous function, called on its thread.
    use discord_manager_core::registry::Runs;
    let capabilities = discord_manager_core::registry::capabilities();
    let waiting: Vec<&str> = capabilities
        .iter()
        .filter(|capability| capability.runs() == Runs::OnTheRuntime)
        .map(|capability| capability.name)
        .collect();
    assert_eq!(waiting, ["activity_wait"]);
    for capability in capabilities
        .iter()
        .filter(|c| c.runs() != Runs::OnTheRuntime)
    {
        let on_discord = matches!(
            capability.effect,
            Effect::ActsOnDiscord | Effect::ChangesOnDiscord | Effect::DeletesOnDiscord
        );
        let expected = if on_discord {
            Runs::PolledOnAThread
        } else {
            Runs::Now
        };
        assert_eq!(capability.runs(), expected, "{}", capability.name);
    }
}

/// The input check reads a string field's `format`, never its `pattern` (which is for the
/// client's own validator): every `pattern` in an input schema comes with a format the check
/// holds, so no field is left to a convention about what a pattern means. Deliberately not
/// a general JSON Schema validator: the schemas use a small subset, and a crate's messages
/// would be worded again for the owner anyway.
#[test]
fn every_pattern_comes_with_a_format_the_input_check_holds() {
    use discord_manager_core::business::kernel::input::CHECKED_FORMATS;
    fn walk(schema: &serde_json::Value, at: &str, found: &mut Vec<String>) {
        match schema {
            serde_json::Value::Object(object) => {
                if object.contains_key("pattern") {
                    let format = object.get("format").and_then(|f| f.as_str());
                    if !format.is_some_and(|format| CHECKED_FORMATS.contains(&format)) {
                        found.push(format!("{at} (format {format:?})"));
                    }
                }
                for (key, value) in object {
                    walk(value, &format!("{at}.{key}"), found);
                }
            }
            serde_json::Value::Array(items) => {
                for (n, item) in items.iter().enumerate() {
                    walk(item, &format!("{at}[{n}]"), found);
                }
            }
            _ => {}
        }
    }
    let mut unchecked = Vec::new();
    let mut patterns = 0;
    for capability in discord_manager_core::registry::capabilities() {
        let schema = serde_json::Value::Object(capability.input_schema.clone());
        patterns += schema.to_string().matches("\"pattern\"").count();
        walk(&schema, capability.name, &mut unchecked);
    }
    assert!(patterns > 10, "the id fields carry patterns: {patterns}");
    assert_eq!(unchecked, Vec::<String>::new());
}
