//! Applying a capability's input type to the JSON a caller sent: the one place input is
//! validated, for the CLI and the MCP server alike.
//!
//! The input struct is the only schema. Its JSON Schema (schemars, from the same struct and
//! its doc comments) is generated once, when the registry is built, and is what MCP clients
//! see; every call is checked against that very schema first, so every refusal names the
//! field and says what is wanted in the owner's words, and only then does serde build the
//! struct. A channel's or a message's field also takes a Discord link, refused here when it
//! is not a good one and resolved to its id against the store by [`resolve_links`].

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::{self, Instant};
use discord_manager_vocabulary::snowflake::ID_FORMAT;
use discord_manager_vocabulary::snowflake::link::{CHANNEL_ID_OR_LINK, MESSAGE_ID_OR_LINK};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::model::{MESSAGE_OR_INSTANT, PAGE_CURSOR};

mod links;

pub use links::resolve_links;

/// Every string `format` the input check holds a field to. The check reads a field's format,
/// never its `pattern` (kept for the client's own validator): an input schema's `pattern`
/// comes with one of these, or the check would not hold it
/// (`tool_schemas::every_pattern_comes_with_a_format_the_input_check_holds`).
pub const CHECKED_FORMATS: [&str; 6] = [
    ID_FORMAT,
    CHANNEL_ID_OR_LINK,
    MESSAGE_ID_OR_LINK,
    MESSAGE_OR_INSTANT,
    "date-time",
    PAGE_CURSOR,
];

/// The input schema of `I`, with every subschema inlined so each property stands alone.
pub fn input_schema<I: JsonSchema>() -> Schema {
    SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<I>()
}

/// Checks `value` against a capability's input schema (the one the registry holds and
/// MCP clients see) and returns the fields to build the input from: a null optional field is
/// dropped so its default applies, and a whole number written as `5.0` becomes `5`.
pub fn check_input(schema: &Map<String, Value>, value: Value) -> Result<Map<String, Value>> {
    let object = match value {
        Value::Object(object) => object,
        Value::Null => Map::new(),
        _ => {
            return Err(Error::input(
                "The input must be a JSON object of named fields",
            ));
        }
    };
    check_object(schema, &object)?;
    let properties = schema.get("properties").and_then(Value::as_object);
    Ok(object
        .into_iter()
        // Null means "not given" for an optional field: drop it so the default applies.
        .filter(|(_, value)| !value.is_null())
        // A client may write a whole number as 5.0; serde would refuse it for an integer.
        .map(|(name, value)| {
            let integer = properties
                .and_then(|properties| properties.get(&name))
                .is_some_and(|property| types(property).first() == Some(&"integer"));
            match value.as_f64() {
                Some(number) if integer && value.is_f64() => (name, Value::from(number as i64)),
                _ => (name, value),
            }
        })
        .collect())
}

/// Builds the input type from fields [`check_input`] accepted.
pub fn build_input<I: DeserializeOwned>(fields: Map<String, Value>) -> Result<I> {
    serde_json::from_value(Value::Object(fields))
        .map_err(|_| Error::input("The input does not match what this accepts"))
}

fn check_object(schema: &Map<String, Value>, object: &Map<String, Value>) -> Result<()> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for name in object.keys() {
        if !properties.contains_key(name) {
            let accepted: Vec<&str> = properties.keys().map(String::as_str).collect();
            return Err(Error::input(if accepted.is_empty() {
                format!("Unknown field `{name}`: this takes no fields")
            } else {
                format!(
                    "Unknown field `{name}`; the fields are: {}",
                    accepted.join(", ")
                )
            }));
        }
    }
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if object.get(name).is_none_or(Value::is_null) {
            let wanted = properties.get(name).map(expected).unwrap_or_default();
            return Err(Error::input(format!("`{name}` is required: {wanted}")));
        }
    }
    for (name, value) in object {
        if value.is_null() && !required.into_iter().flatten().any(|field| field == name) {
            continue;
        }
        let property = &properties[name];
        let format = property.get("format").and_then(Value::as_str);
        if let (Some(format), Some(text)) = (format, value.as_str())
            && let Some(refusal) = links::refusal(name, format, text).or_else(|| {
                (format == MESSAGE_OR_INSTANT)
                    .then(|| links::anchor_refusal(name, text, &expected(property)))
                    .flatten()
            })
        {
            return Err(refusal);
        }
        if !fits(property, value) {
            let takes_an_instant = matches!(
                property.get("format").and_then(Value::as_str),
                Some("date-time" | MESSAGE_OR_INSTANT)
            );
            if let Some(text) = value
                .as_str()
                .filter(|text| takes_an_instant && Instant::is_out_of_range(text))
            {
                return Err(Error::input(format!(
                    "`{name}` must be an instant {}; got {}",
                    instant::RANGE,
                    shown(&Value::from(text))
                )));
            }
            return Err(Error::input(format!(
                "`{name}` must be {}; got {}",
                expected(property),
                shown(value)
            )));
        }
    }
    Ok(())
}

/// The schema's types, without `null` (a null optional field is handled as absent).
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many
            .iter()
            .filter_map(Value::as_str)
            .filter(|kind| *kind != "null")
            .collect(),
        _ => Vec::new(),
    }
}

fn number(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn fits(schema: &Value, value: &Value) -> bool {
    let kinds = types(schema);
    let Some(kind) = kinds.first() else {
        return true;
    };
    match (*kind, value) {
        ("integer", Value::Number(number_value)) => {
            let whole = number_value.as_i64().map(|n| n as f64).or_else(|| {
                number_value
                    .as_f64()
                    .filter(|n| n.fract() == 0.0 && n.abs() < 9.0e15)
            });
            whole.is_some_and(|n| {
                number(schema, "minimum").is_none_or(|min| n >= min)
                    && number(schema, "maximum").is_none_or(|max| n <= max)
            })
        }
        ("number", Value::Number(number_value)) => number_value.as_f64().is_some_and(|n| {
            number(schema, "minimum").is_none_or(|min| n >= min)
                && number(schema, "maximum").is_none_or(|max| n <= max)
        }),
        ("boolean", Value::Bool(_)) => true,
        ("string", Value::String(text)) => {
            if let Some(fits) = schema
                .get("format")
                .and_then(Value::as_str)
                .and_then(|format| links::fits(format, text))
            {
                return fits;
            }
            if schema.get("format").and_then(Value::as_str) == Some(MESSAGE_OR_INSTANT) {
                return discord_manager_vocabulary::snowflake::is_discord_id(text)
                    || Instant::parse(text).is_some()
                    || links::is_message_link(text);
            }
            if schema.get("format").and_then(Value::as_str) == Some("date-time") {
                return Instant::parse(text).is_some();
            }
            if schema.get("format").and_then(Value::as_str) == Some(PAGE_CURSOR) {
                return crate::business::kernel::model::PageCursor::parse(text).is_some();
            }
            if schema.get("format").and_then(Value::as_str) == Some(ID_FORMAT) {
                return discord_manager_vocabulary::snowflake::is_discord_id(text);
            }
            if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
                return allowed.iter().any(|option| option.as_str() == Some(text));
            }
            let length = text.chars().count() as f64;
            number(schema, "minLength").is_none_or(|min| length >= min)
                && number(schema, "maxLength").is_none_or(|max| length <= max)
        }
        _ => false,
    }
}

/// What a field wants, in the owner's words, from its schema.
pub fn expected(schema: &Value) -> String {
    let kinds = types(schema);
    match kinds.first().copied() {
        Some("integer") => match (number(schema, "minimum"), number(schema, "maximum")) {
            (Some(min), Some(max)) => format!("a whole number from {min} to {max}"),
            (Some(min), None) => format!("a whole number of at least {min}"),
            (None, Some(max)) => format!("a whole number of at most {max}"),
            (None, None) => "a whole number".to_string(),
        },
        Some("number") => "a number".to_string(),
        Some("boolean") => "true or false".to_string(),
        Some("string") => {
            if let Some(wanted) = schema
                .get("format")
                .and_then(Value::as_str)
                .and_then(links::expected)
            {
                wanted.to_string()
            } else if schema.get("format").and_then(Value::as_str) == Some(MESSAGE_OR_INSTANT) {
                format!(
                    "a message id (a string of digits) or a Discord link to the message \
                     (https://discord.com/channels/<server>/<channel>/<message>), or {}",
                    instant::EXPECTED
                )
            } else if schema.get("format").and_then(Value::as_str) == Some("date-time") {
                instant::EXPECTED.to_string()
            } else if schema.get("format").and_then(Value::as_str) == Some(PAGE_CURSOR) {
                "the `nextCursor` of an earlier answer, passed back unchanged".to_string()
            } else if schema.get("format").and_then(Value::as_str) == Some(ID_FORMAT) {
                "a Discord id: a string of digits such as \"1189078123456789012\"".to_string()
            } else if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
                let options: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
                format!("one of: {}", options.join(", "))
            } else {
                match (number(schema, "minLength"), number(schema, "maxLength")) {
                    (Some(min), Some(max)) => format!("text of {min} to {max} characters"),
                    (None, Some(max)) => format!("text of at most {max} characters"),
                    (Some(min), None) => format!("text of at least {min} characters"),
                    (None, None) => "text".to_string(),
                }
            }
        }
        _ => "a value of the documented shape".to_string(),
    }
}

/// A short rendering of what the caller sent, for the error message.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 40 {
        text
    } else {
        match value {
            Value::String(text) => format!("text of {} characters", text.chars().count()),
            _ => format!("{}…", text.chars().take(40).collect::<String>()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::business::messages::catch_up::CatchUp;

    /// What a call does with `value`: checked against `I`'s schema, then built.
    fn parse_input<I: JsonSchema + DeserializeOwned>(value: Value) -> Result<I> {
        let Value::Object(schema) = input_schema::<I>().to_value() else {
            unreachable!("an input schema is an object");
        };
        build_input(check_input(&schema, value)?)
    }

    #[test]
    fn refuses_an_instant_past_year_9999_naming_the_field_and_the_range() {
        let error = parse_input::<CatchUp>(serde_json::json!({
            "since": "9999-12-31T23:59:59-23:59"
        }))
        .unwrap_err();
        assert_eq!(
            error.kind(),
            discord_manager_vocabulary::error::ErrorKind::Input
        );
        assert_eq!(
            error.message(),
            "`since` must be an instant from 0000-01-01T00:00:00Z to \
             9999-12-31T23:59:59.999999Z (in UTC, after the offset is applied); \
             got \"9999-12-31T23:59:59-23:59\""
        );
        // The last instant of the range itself is accepted.
        let input = parse_input::<CatchUp>(serde_json::json!({
            "since": "9999-12-31T23:59:59.999999Z"
        }))
        .unwrap();
        assert_eq!(
            input.since,
            Some(discord_manager_vocabulary::instant::LATEST)
        );
    }
}
