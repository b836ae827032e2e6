//! The field-messages drift guard: for every tool and every input field, a wrong-typed or
//! out-of-range value is refused in the owner's words, naming the field, never in serde's;
//! and the native JSON values a real MCP client sends (numbers, booleans) always pass input
//! validation. One guard over the whole surface, walking each tool's own input schema.

use std::sync::Arc;

use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_core::registry::{Services, capabilities};
use discord_manager_store::Store;
use discord_manager_vocabulary::ErrorKind;
use serde_json::{Map, Value, json};

/// Words that only serde (or SQLite) would use.
const FOREIGN_WORDING: &[&str] = &[
    "invalid type",
    "expected",
    "unknown variant",
    "missing field",
    "invalid value",
    "SQLITE",
    "sqlite",
];

fn services() -> (tempfile::TempDir, Services) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(&folder.path().join("drift.sqlite3")).unwrap();
    let context = OwnerContext::with_unset_settings(
        Some("1000000000000000001".parse().unwrap()),
        GuildScope::every_guild(),
        Source::Mcp,
    );
    (
        folder,
        Services {
            store: Arc::new(store),
            context,
            sender: None,
        },
    )
}

fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .filter(|k| *k != "null")
            .collect(),
        _ => Vec::new(),
    }
}

/// Values of the wrong shape for a field of this schema.
fn wrong_values(schema: &Value) -> Vec<Value> {
    let mut values = vec![json!({"nested": true}), json!([1, 2])];
    match types(schema).first().copied() {
        Some("integer") => {
            values.extend([json!("5"), json!(true), json!(1.5)]);
            if let Some(min) = schema.get("minimum").and_then(Value::as_i64) {
                values.push(json!(min - 1));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_i64) {
                values.push(json!(max + 1));
            }
        }
        Some("boolean") => values.extend([json!("true"), json!(1)]),
        Some("string") => {
            values.extend([json!(5), json!(true)]);
            if schema.get("format").is_some() {
                values.push(json!("yesterday"));
            }
            if takes_an_id(schema) || takes_a_link(schema) {
                values.extend([json!("12ab"), json!(1189078123456789012_u64)]);
            }
            if takes_a_link(schema) {
                values.extend([
                    json!("http://discord.com/channels/1/2/3"),
                    json!("https://discordapp.com/channels/1/2/3"),
                    json!("https://discord.com/channels/1/2/3?x"),
                    json!("https://discord.com/channels/1/2/3/4"),
                ]);
            }
            if schema.get("enum").is_some() {
                values.push(json!("none of these"));
            }
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
                values.push(json!("x".repeat(max as usize + 1)));
            }
        }
        other => panic!("no wrong values known for a field of type {other:?}; extend the guard"),
    }
    values
}

/// Whether a field takes a Discord id alone (its format says so).
fn takes_an_id(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str)
        == Some(discord_manager_vocabulary::snowflake::ID_FORMAT)
}

/// Whether a field takes a channel's or a message's id or a Discord link to it.
fn takes_a_link(schema: &Value) -> bool {
    schema
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| format.ends_with("-id-or-link"))
}

/// A value of the right shape, native JSON, that input validation must accept.
/// A cursor each paging tool accepts: they carry different numbers, so a new tool with a
/// cursor fails here until it is listed.
fn right_cursor(tool: &str) -> Value {
    match tool {
        // channels_list: (channel, thread).
        "messages_catch_up" | "schedules_list" | "channels_list" => json!("0_0"),
        // attachments_get: (attachment, offset into its text).
        "attachments_get" => json!("0_0"),
        // Due ones first: (0, due, bookmarked) or (1, 0, bookmarked).
        "bookmarks_list" => json!("1_0_0"),
        // (section and lookback, since or -1, through, and the first key left out).
        "activity_briefing" => json!("107_-1_0_0_0_0"),
        "messages_search" | "mentions_list" | "mentions_awaiting_reply" => {
            json!("0")
        }
        other => panic!("{other} takes a cursor: add the shape it accepts to right_cursor"),
    }
}

fn right_value_for(tool: &str, schema: &Value) -> Value {
    if schema.get("format").and_then(Value::as_str) == Some("page-cursor") {
        return right_cursor(tool);
    }
    right_value(schema)
}

fn right_value(schema: &Value) -> Value {
    match types(schema).first().copied() {
        Some("integer") => json!(schema.get("minimum").and_then(Value::as_i64).unwrap_or(1)),
        Some("boolean") => json!(true),
        Some("string") if takes_an_id(schema) || takes_a_link(schema) => {
            json!("1189078123456789012")
        }
        Some("string") if schema.get("format").is_some() => json!("2026-11-29T18:54:18Z"),
        Some("string") if schema.get("enum").is_some() => schema["enum"][0].clone(),
        _ => json!("text"),
    }
}

fn minimal_valid_arguments(schema: &Map<String, Value>) -> Map<String, Value> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    properties
        .iter()
        .filter(|(name, _)| required.contains(&name.as_str()))
        .map(|(name, field)| (name.clone(), right_value(field)))
        .collect()
}

#[tokio::test]
async fn every_field_refuses_wrong_values_in_the_owners_words() {
    let (_folder, services) = services();
    let mut checked = 0;
    for capability in capabilities() {
        let properties = capability
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (field, schema) in &properties {
            for wrong in wrong_values(schema) {
                let mut arguments = minimal_valid_arguments(&capability.input_schema);
                arguments.insert(field.clone(), wrong.clone());
                let error = match capability.call(Value::Object(arguments), &services).await {
                    Ok(_) => panic!("{}.{field} accepted {wrong}", capability.name),
                    Err(error) => error,
                };
                assert_eq!(
                    error.kind(),
                    ErrorKind::Input,
                    "{}.{field} = {wrong}: {}",
                    capability.name,
                    error.message()
                );
                assert!(
                    error.message().starts_with(&format!("`{field}` must be ")),
                    "{}.{field} = {wrong}: {:?} does not name the field and what is wanted",
                    capability.name,
                    error.message()
                );
                for foreign in FOREIGN_WORDING {
                    assert!(
                        !error.message().contains(foreign),
                        "{}: {:?}",
                        capability.name,
                        error.message()
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 30, "the guard checked only {checked} values");
}

#[tokio::test]
async fn native_json_numbers_and_booleans_pass_input_validation() {
    let (_folder, services) = services();
    for capability in capabilities() {
        let properties = capability
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (field, schema) in &properties {
            let mut arguments = minimal_valid_arguments(&capability.input_schema);
            arguments.insert(field.clone(), right_value_for(capability.name, schema));
            if let Err(error) = capability.call(Value::Object(arguments), &services).await {
                assert_ne!(
                    error.kind(),
                    ErrorKind::Input,
                    "{}.{field}: {}",
                    capability.name,
                    error.message()
                );
            }
        }
    }
}

#[tokio::test]
async fn unknown_and_missing_fields_are_named() {
    let (_folder, services) = services();
    for capability in capabilities() {
        let mut arguments = minimal_valid_arguments(&capability.input_schema);
        arguments.insert("bogus".into(), json!(1));
        let error = match capability.call(Value::Object(arguments), &services).await {
            Ok(_) => panic!("{} accepted an unknown field", capability.name),
            Err(error) => error,
        };
        assert!(
            error.message().starts_with("Unknown field `bogus`"),
            "{}: {}",
            capability.name,
            error.message()
        );
        let required = capability
            .input_schema
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for field in required.iter().filter_map(Value::as_str) {
            let mut arguments = minimal_valid_arguments(&capability.input_schema);
            arguments.remove(field);
            let error = match capability.call(Value::Object(arguments), &services).await {
                Ok(_) => panic!("{} accepted a missing {field}", capability.name),
                Err(error) => error,
            };
            assert!(
                error
                    .message()
                    .starts_with(&format!("`{field}` is required: ")),
                "{}",
                error.message()
            );
        }
    }
}

#[tokio::test]
async fn the_exact_wording_of_a_few_refusals() {
    let (_folder, services) = services();
    let call = |tool: &str, arguments: Value| {
        let capability = discord_manager_core::registry::find(tool).unwrap();
        let services = &services;
        async move {
            capability
                .call(arguments, services)
                .await
                .err()
                .map(|e| e.message().to_string())
        }
    };
    assert_eq!(
        call("messages_catch_up", json!({"limit": 0}))
            .await
            .as_deref(),
        Some("`limit` must be a whole number from 1 to 500; got 0")
    );
    assert_eq!(
        call("messages_catch_up", json!({"since": "yesterday"}))
            .await
            .as_deref(),
        Some("`since` must be an ISO-8601 instant such as 2026-11-29T18:54:18Z; got \"yesterday\"")
    );
    assert_eq!(
        call("bookmarks_resolve", json!({"messageId": 42}))
            .await
            .as_deref(),
        Some(
            "`messageId` must be a message id (a string of digits such as \"1189078123456789012\") \
             or a Discord link to the message (https://discord.com/channels/<server>/<channel>/\
             <message>); got 42"
        )
    );
    assert_eq!(
        call(
            "bookmarks_resolve",
            json!({"messageId": "https://discordapp.com/channels/1/2/3"})
        )
        .await
        .as_deref(),
        Some(
            "`messageId` must be a message id (a string of digits such as \"1189078123456789012\") \
             or a Discord link to the message (https://discord.com/channels/<server>/<channel>/\
             <message>); discordapp.com is Discord's old address; copy the link again from \
             Discord, or write discord.com in its place"
        )
    );
    assert_eq!(
        call("bookmarks_list", json!({"x": 1})).await.as_deref(),
        Some("Unknown field `x`; the fields are: cursor, limit")
    );
    assert_eq!(
        call("messages_catch_up", json!({"cursor": "page 2"}))
            .await
            .as_deref(),
        Some(
            "`cursor` must be the `nextCursor` of an earlier answer, passed back unchanged; got \"page 2\""
        )
    );
    assert_eq!(
        call("messages_catch_up", json!({"cursor": "5"}))
            .await
            .as_deref(),
        Some("`cursor` is not one messages_catch_up returned: pass its `nextCursor` unchanged")
    );
    assert_eq!(
        call(
            "messages_catch_up",
            json!({"cursor": "0_0", "since": "2026-11-29T18:54:18Z"})
        )
        .await
        .as_deref(),
        Some("Give `since` or `cursor`, not both: a cursor carries the window it was made for")
    );
    // A whole number written as 5.0 is still a whole number; null means "not given".
    assert_eq!(
        call("mentions_list", json!({"limit": 5.0, "since": null})).await,
        None
    );
}
