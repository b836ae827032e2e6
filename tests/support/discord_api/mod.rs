//! Discord's official OpenAPI description of its HTTP API, held against what the fake Discord
//! is asked and what it answers, so a fake that drifts from Discord fails the tests instead
//! of letting a wrong product pass.
//!
//! `openapi.json` beside this file is vendored from `discord/discord-api-spec`
//! (`specs/openapi.json`, the commit in its `x-vendored-from`): the operations the product
//! calls, with every component they reference. `vendor.py` writes it; a new request the
//! product makes is one more path there.
//!
//! The checks, each violation naming where it is:
//! - a request is an operation Discord has (method and path template), its path parameters
//!   and query parameters are declared and of their schema's shape, and its JSON body fits the
//!   operation's request body (none where it takes none);
//! - an answer fits the response the operation declares for its status (`200`, `2XX`, `4XX`
//!   …); a `204` has no body.
//!
//! The schemas are JSON Schema (OpenAPI 3.1). Checked: `$ref`, `type` (with `null`), `enum`,
//! `const`, `properties`, `required`, `additionalProperties`, `items`, `minItems`/`maxItems`,
//! `minLength`/`maxLength`, `minimum`/`maximum`, `allOf`, and `oneOf`/`anyOf` as "fits one of
//! them" (Discord's alternatives overlap: a guild sticker is also a valid standard sticker).
//! `pattern` is checked for the one pattern the vendored part uses (a snowflake's digits);
//! another panics until it is taught. `format` is not checked. An answer's object may not
//! carry a field its schema does not declare: the product must not come to rely on a field
//! Discord never sends.

#![allow(dead_code)]

use std::sync::LazyLock;

use serde_json::{Map, Value};

static SPEC: LazyLock<Value> = LazyLock::new(|| {
    let mut spec =
        serde_json::from_str(include_str!("openapi.json")).expect("the vendored spec is JSON");
    for amendment in DOCUMENTED_BEYOND_THE_SPEC {
        amend(&mut spec, amendment);
    }
    spec
});

/// A value Discord's developer documentation gives that its OpenAPI description does not yet
/// have: one alternative added to a `oneOf`, with the page that documents it.
struct Amendment {
    /// The schema, under `components.schemas`.
    schema: &'static str,
    /// The `oneOf` alternative added.
    alternative: &'static str,
    documented_at: &'static str,
}

/// What the fake may say beyond the vendored spec, each documented by Discord. An amendment
/// the spec has come to hold itself fails the tests (it is then taken off this list), and so
/// does one whose schema the spec no longer has: the list cannot outlive its reason.
const DOCUMENTED_BEYOND_THE_SPEC: &[Amendment] = &[Amendment {
    // A forward's `message_reference` is of type FORWARD, and its message carries
    // `message_snapshots`; the spec lists DEFAULT only.
    schema: "MessageReferenceType",
    alternative: r#"{"title": "FORWARD", "description": "Reference used to point to a message at a point in time", "const": 1}"#,
    documented_at: "https://discord.com/developers/docs/resources/message#message-reference-types",
}];

fn amend(spec: &mut Value, amendment: &Amendment) {
    let alternative: Value =
        serde_json::from_str(amendment.alternative).expect("an amendment is JSON");
    let alternatives = spec["components"]["schemas"][amendment.schema]["oneOf"]
        .as_array_mut()
        .unwrap_or_else(|| {
            panic!(
                "the amendment of {} ({}) names a schema with no oneOf: take it off the list",
                amendment.schema, amendment.documented_at
            )
        });
    assert!(
        !alternatives
            .iter()
            .any(|known| known["const"] == alternative["const"]),
        "the vendored spec now has {}'s {} itself: take the amendment off the list",
        amendment.schema,
        alternative["title"]
    );
    alternatives.push(alternative);
}

/// The API's version prefix the product calls.
pub const PREFIX: &str = "/api/v10";

/// One operation of the spec: its path template and its method's item.
pub struct Operation {
    pub template: &'static str,
    pub method: String,
    item: &'static Value,
    path_item: &'static Value,
}

/// The operation `method path` (the path after [`PREFIX`], without the query) is, if Discord
/// has it. A literal segment is preferred over a parameter (`/users/@me` before
/// `/users/{user_id}`).
pub fn operation(method: &str, path: &str) -> Option<Operation> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let method = method.to_ascii_lowercase();
    let paths = SPEC["paths"].as_object().expect("paths");
    let mut best: Option<(usize, Operation)> = None;
    for (template, path_item) in paths {
        let parts: Vec<&str> = template.trim_matches('/').split('/').collect();
        if parts.len() != segments.len() {
            continue;
        }
        let mut literals = 0;
        let fits = parts.iter().zip(&segments).all(|(part, segment)| {
            if part.starts_with('{') {
                !segment.is_empty()
            } else {
                literals += 1;
                part == segment
            }
        });
        let Some(item) = path_item.get(&method) else {
            continue;
        };
        if fits && best.as_ref().is_none_or(|(most, _)| literals > *most) {
            best = Some((
                literals,
                Operation {
                    template: template.as_str(),
                    method: method.clone(),
                    item,
                    path_item,
                },
            ));
        }
    }
    best.map(|(_, operation)| operation)
}

/// Everything wrong with a request the product sent, by Discord's spec.
pub fn check_request(
    method: &str,
    path: &str,
    query: &[(String, String)],
    body: Option<&Value>,
) -> Vec<String> {
    let Some(route) = path.strip_prefix(PREFIX) else {
        return vec![format!("{method} {path}: not under {PREFIX}")];
    };
    let Some(operation) = operation(method, route) else {
        return vec![format!("{method} {path}: Discord has no such operation")];
    };
    let at = format!("{method} {}", operation.template);
    let mut found = Vec::new();
    let parameters = operation.parameters();
    let template: Vec<&str> = operation.template.trim_matches('/').split('/').collect();
    for (part, segment) in template.iter().zip(route.trim_matches('/').split('/')) {
        let Some(name) = part
            .strip_prefix('{')
            .and_then(|part| part.strip_suffix('}'))
        else {
            continue;
        };
        match parameters
            .iter()
            .find(|p| p["in"] == "path" && p["name"] == name)
        {
            Some(parameter) => check_text(
                &parameter["schema"],
                segment,
                &format!("{at} {name}"),
                &mut found,
            ),
            None => found.push(format!("{at}: the path parameter {name} is not declared")),
        }
    }
    for (name, value) in query {
        match parameters
            .iter()
            .find(|p| p["in"] == "query" && p["name"] == name.as_str())
        {
            Some(parameter) => check_text(
                &parameter["schema"],
                value,
                &format!("{at} ?{name}"),
                &mut found,
            ),
            None => found.push(format!("{at}: Discord takes no query parameter `{name}`")),
        }
    }
    let declared = operation.item.get("requestBody").map(|body| resolve(body));
    match (declared, body) {
        (None, Some(body)) if !body.is_null() => {
            found.push(format!("{at}: takes no body, but was sent {body}"))
        }
        (Some(declared), None) if declared["required"] == true => {
            found.push(format!("{at}: needs a body and was sent none"))
        }
        (Some(declared), Some(body)) => match declared["content"].get("application/json") {
            Some(content) => check(
                &content["schema"],
                body,
                &format!("{at} body"),
                false,
                &mut found,
            ),
            None => found.push(format!("{at}: its body is not JSON in Discord's spec")),
        },
        _ => {}
    }
    found
}

/// Everything wrong with the fake's answer `status`, `body` to `method path`, by Discord's
/// spec. An operation Discord does not have is the request's violation, not the answer's.
pub fn check_response(method: &str, path: &str, status: u16, body: &Value) -> Vec<String> {
    let Some(operation) = path
        .strip_prefix(PREFIX)
        .and_then(|route| operation(method, route))
    else {
        return Vec::new();
    };
    let at = format!("{method} {} answered {status}", operation.template);
    let responses = &operation.item["responses"];
    let class = format!("{}XX", status / 100);
    let Some(declared) = responses
        .get(status.to_string())
        .or_else(|| responses.get(&class))
        .or_else(|| responses.get("default"))
    else {
        // Discord's spec declares no server errors: a 5xx is whatever a failing Discord sends.
        return if status >= 500 {
            Vec::new()
        } else {
            vec![format!("{at}: Discord declares no such answer")]
        };
    };
    let declared = resolve(declared);
    let mut found = Vec::new();
    match declared
        .get("content")
        .and_then(|content| content.get("application/json"))
    {
        Some(content) => check(&content["schema"], body, &at, true, &mut found),
        None if status == 204 || body.is_null() => {}
        None => found.push(format!(
            "{at}: Discord answers no body here, the fake sent {body}"
        )),
    }
    found
}

impl Operation {
    /// The path item's parameters and the operation's own.
    fn parameters(&self) -> Vec<&'static Value> {
        [
            self.path_item.get("parameters"),
            self.item.get("parameters"),
        ]
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .map(resolve)
        .collect()
    }
}

/// A `$ref` followed to what it names, however many times.
fn resolve(mut node: &'static Value) -> &'static Value {
    while let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        let mut target = &*SPEC;
        for part in reference.trim_start_matches("#/").split('/') {
            target = target
                .get(part)
                .unwrap_or_else(|| panic!("{reference} names nothing in the vendored spec"));
        }
        node = target;
    }
    node
}

/// A path or query parameter's text against its schema: a number must parse, a boolean be
/// `true` or `false`, a string fit.
fn check_text(schema: &'static Value, text: &str, at: &str, found: &mut Vec<String>) {
    let schema = resolve(schema);
    let value = match types(schema).first().copied() {
        Some("integer") => match text.parse::<i64>() {
            Ok(number) => Value::from(number),
            Err(_) => {
                found.push(format!("{at}: {text:?} is not an integer"));
                return;
            }
        },
        Some("boolean") => match text {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            _ => {
                found.push(format!("{at}: {text:?} is not a boolean"));
                return;
            }
        },
        _ => Value::String(text.to_string()),
    };
    check(schema, &value, at, false, found);
}

fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn fits_type(kind: &str, value: &Value) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        other => panic!("the vendored spec has a type {other:?} the checker does not know"),
    }
}

/// Every way `value` departs from `schema`, each naming `at`. `answer`: an object may carry
/// no field its schema does not declare.
pub fn check(
    schema: &'static Value,
    value: &Value,
    at: &str,
    answer: bool,
    found: &mut Vec<String>,
) {
    let schema = resolve(schema);
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        // Each part checks its own fields; which fields exist at all is the parts' together.
        for part in all {
            check(part, value, at, false, found);
        }
        if answer && let Value::Object(fields) = value {
            let declared = declared_fields(schema);
            for name in fields.keys() {
                if !declared.contains(&name.as_str()) {
                    found.push(format!("{at}: Discord's schema has no field `{name}`"));
                }
            }
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            let mut closest: Option<Vec<String>> = None;
            // The alternative of the value's own type says best what is wrong with it.
            let mut ordered: Vec<&'static Value> = alternatives.iter().collect();
            ordered.sort_by_key(|alternative| {
                let kinds = types(resolve(alternative));
                !(kinds.is_empty() || kinds.iter().any(|kind| fits_type(kind, value)))
            });
            for alternative in ordered {
                let mut own = Vec::new();
                check(alternative, value, at, answer, &mut own);
                if own.is_empty() {
                    closest = None;
                    break;
                }
                if closest.is_none() {
                    closest = Some(own);
                }
            }
            if let Some(closest) = closest {
                found.push(format!(
                    "{at}: fits none of its {} alternatives; the closest:",
                    alternatives.len()
                ));
                found.extend(closest);
            }
        }
    }
    let kinds = types(schema);
    if !kinds.is_empty() && !kinds.iter().any(|kind| fits_type(kind, value)) {
        found.push(format!(
            "{at}: {} is not {}",
            short(value),
            kinds.join(" or ")
        ));
        return;
    }
    if let Some(words) = schema.get("enum").and_then(Value::as_array)
        && !words.contains(value)
    {
        found.push(format!(
            "{at}: {} is none of {}",
            short(value),
            Value::Array(words.clone())
        ));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        found.push(format!("{at}: {} is not {constant}", short(value)));
    }
    match value {
        Value::Object(fields) => check_object(schema, fields, at, answer, found),
        Value::Array(items) => {
            let count = items.len() as u64;
            if schema
                .get("minItems")
                .and_then(Value::as_u64)
                .is_some_and(|min| count < min)
            {
                found.push(format!(
                    "{at}: {count} items, fewer than {}",
                    schema["minItems"]
                ));
            }
            if schema
                .get("maxItems")
                .and_then(Value::as_u64)
                .is_some_and(|max| count > max)
            {
                found.push(format!(
                    "{at}: {count} items, more than {}",
                    schema["maxItems"]
                ));
            }
            if let Some(item) = schema.get("items") {
                for (index, value) in items.iter().enumerate() {
                    check(item, value, &format!("{at}[{index}]"), answer, found);
                }
            }
        }
        Value::String(text) => {
            let length = text.chars().count() as u64;
            if schema
                .get("minLength")
                .and_then(Value::as_u64)
                .is_some_and(|min| length < min)
            {
                found.push(format!(
                    "{at}: {text:?} is shorter than {}",
                    schema["minLength"]
                ));
            }
            if schema
                .get("maxLength")
                .and_then(Value::as_u64)
                .is_some_and(|max| length > max)
            {
                found.push(format!(
                    "{at}: {} is longer than {}",
                    short(value),
                    schema["maxLength"]
                ));
            }
            match schema.get("pattern").and_then(Value::as_str) {
                None => {}
                Some("^(0|[1-9][0-9]*)$") => {
                    let digits = text == "0"
                        || (!text.is_empty()
                            && !text.starts_with('0')
                            && text.chars().all(|c| c.is_ascii_digit()));
                    if !digits {
                        found.push(format!("{at}: {text:?} is not a snowflake (digits)"));
                    }
                }
                Some(other) => panic!("teach the checker the pattern {other}"),
            }
        }
        Value::Number(number) => {
            let number = number.as_f64().unwrap_or(f64::NAN);
            if schema
                .get("minimum")
                .and_then(Value::as_f64)
                .is_some_and(|min| number < min)
            {
                found.push(format!("{at}: {number} is below {}", schema["minimum"]));
            }
            if schema
                .get("maximum")
                .and_then(Value::as_f64)
                .is_some_and(|max| number > max)
            {
                found.push(format!("{at}: {number} is above {}", schema["maximum"]));
            }
        }
        _ => {}
    }
}

/// The fields an object of `schema` may have: its own properties and its parts'.
fn declared_fields(schema: &'static Value) -> Vec<&'static str> {
    let schema = resolve(schema);
    let mut names: Vec<&'static str> = schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys().map(String::as_str))
        .collect();
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        names.extend(declared_fields(part));
    }
    names
}

fn check_object(
    schema: &'static Value,
    fields: &Map<String, Value>,
    at: &str,
    answer: bool,
    found: &mut Vec<String>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(name) = name.as_str()
            && !fields.contains_key(name)
        {
            found.push(format!("{at}: the required field `{name}` is missing"));
        }
    }
    for (name, value) in fields {
        match properties.and_then(|properties| properties.get(name)) {
            Some(property) => check(property, value, &format!("{at}.{name}"), answer, found),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    found.push(format!("{at}: Discord's schema has no field `{name}`"))
                }
                Some(extra @ Value::Object(_)) => {
                    check(extra, value, &format!("{at}.{name}"), answer, found)
                }
                // An answer's object lists every field Discord sends; a schema of alternatives
                // (or none) leaves its fields to them.
                _ if answer && properties.is_some() => {
                    found.push(format!("{at}: Discord's schema has no field `{name}`"))
                }
                _ => {}
            },
        }
    }
}

/// A value short enough to quote in a violation.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}
