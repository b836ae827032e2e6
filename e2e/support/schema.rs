//! Checks a tool's structured result against the output schema it declared in `tools/list`:
//! types (`type`, with `null` for optional fields), `required`, `properties`, `items`,
//! `$ref` into `$defs`, `anyOf`/`oneOf` (the value fits one alternative), and integer bounds. Stricter than JSON Schema in one way, on purpose:
//! a field the schema does not declare is a violation, because the output schema is the only
//! documentation a client gets of what it may read.

use serde_json::{Map, Value};

/// Every way `value` departs from `schema`, each naming the JSON path; empty when it fits.
pub fn violations(schema: &Map<String, Value>, value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    check(
        schema,
        &Value::Object(schema.clone()),
        value,
        "$",
        &mut found,
    );
    found
}

fn resolve<'a>(root: &'a Map<String, Value>, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference
                .strip_prefix("#/$defs/")
                .unwrap_or_else(|| panic!("unsupported $ref {reference}"));
            root.get("$defs")
                .and_then(|defs| defs.get(name))
                .unwrap_or_else(|| panic!("$ref {reference} names no definition"))
        }
        None => schema,
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check(
    root: &Map<String, Value>,
    schema: &Value,
    value: &Value,
    path: &str,
    found: &mut Vec<String>,
) {
    // A `$ref` beside other keywords applies both (an internally tagged enum's variant is its
    // struct and its tag): their properties and required fields are merged.
    let merged;
    let schema = match schema.get("$ref") {
        Some(_) if schema.get("properties").is_some() => {
            let mut target = resolve(root, schema).clone();
            for key in ["properties", "required"] {
                let extra = schema.get(key).cloned();
                match (target.get_mut(key), extra) {
                    (Some(Value::Object(mine)), Some(Value::Object(theirs))) => mine.extend(theirs),
                    (Some(Value::Array(mine)), Some(Value::Array(theirs))) => mine.extend(theirs),
                    (None, Some(theirs)) => {
                        target[key] = theirs;
                    }
                    _ => {}
                }
            }
            merged = target;
            &merged
        }
        _ => resolve(root, schema),
    };
    let alternatives = ["anyOf", "oneOf"]
        .iter()
        .find_map(|key| schema.get(*key).and_then(Value::as_array));
    if let Some(alternatives) = alternatives {
        // The value fits when one alternative has no violation; otherwise the closest
        // alternative's violations are reported.
        let mut closest: Option<Vec<String>> = None;
        for alternative in alternatives {
            let mut these = Vec::new();
            check(root, alternative, value, path, &mut these);
            if these.is_empty() {
                return;
            }
            if closest.as_ref().is_none_or(|best| these.len() < best.len()) {
                closest = Some(these);
            }
        }
        found.extend(closest.unwrap_or_default());
        return;
    }
    let allowed: Vec<&str> = match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let actual = type_of(value);
    let fits = allowed.is_empty()
        || allowed.contains(&actual)
        || (actual == "integer" && allowed.contains(&"number"));
    if !fits {
        found.push(format!("{path} is {actual}, the schema says {allowed:?}"));
        return;
    }
    match value {
        Value::Object(object) => {
            let empty = Map::new();
            let properties = schema
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            for name in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !object.contains_key(name) {
                    found.push(format!("{path}.{name} is required but missing"));
                }
            }
            for (name, field) in object {
                match properties.get(name) {
                    Some(property) => {
                        check(root, property, field, &format!("{path}.{name}"), found)
                    }
                    None => found.push(format!("{path}.{name} is not declared in the schema")),
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    check(root, item_schema, item, &format!("{path}[{index}]"), found);
                }
            }
        }
        Value::Number(number) => {
            let number = number.as_f64().unwrap_or(f64::NAN);
            if let Some(minimum) = schema.get("minimum").and_then(Value::as_f64)
                && number < minimum
            {
                found.push(format!("{path} is {number}, below the minimum {minimum}"));
            }
            if let Some(maximum) = schema.get("maximum").and_then(Value::as_f64)
                && number > maximum
            {
                found.push(format!("{path} is {number}, above the maximum {maximum}"));
            }
        }
        _ => {}
    }
}
