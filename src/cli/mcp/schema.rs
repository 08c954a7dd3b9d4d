//! `handover_save`'s input schema, made from docs/handover.schema.json (the one description of
//! a handoff's fields, as docs/format.md explains them): the fields a writer gives, without
//! those the tool fills in, each `$ref` written out in place (not every client follows
//! references), and `goal` required.

use rmcp::model::JsonObject;
use serde_json::{json, Map, Value};

/// The stored document's schema; its tool-filled properties say so first in their
/// description ("Tool-filled. …").
const HANDOFF_SCHEMA: &str = include_str!("../../../docs/handover.schema.json");

/// The properties a writer does not give.
fn tool_filled(property: &Value) -> bool {
    property
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.starts_with("Tool-filled"))
}

pub fn save_input() -> JsonObject {
    let document: Value = serde_json::from_str(HANDOFF_SCHEMA).unwrap_or_default();
    let defs = document.get("$defs").cloned().unwrap_or_default();
    let properties: Map<String, Value> = document
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(_, p)| !tool_filled(p))
        .map(|(name, p)| (name.clone(), inlined(p, &defs)))
        .collect();
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), json!(["goal"]));
    schema
}

/// `value` with every `{"$ref": "#/$defs/NAME", …}` replaced by the definition, the other
/// keys (a description) kept beside it.
fn inlined(value: &Value, defs: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            if let Some(def) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name))
            {
                if let Value::Object(def) = inlined(def, defs) {
                    out.extend(def);
                }
            }
            for (k, v) in map {
                if k != "$ref" {
                    out.insert(k.clone(), inlined(v, defs));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inlined(v, defs)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_the_writers_fields_without_references() {
        let schema = Value::Object(save_input());
        let properties = schema["properties"].as_object().unwrap();
        for filled in [
            "id",
            "created_at",
            "git",
            "files_changed",
            "checksum",
            "markdown_sha256",
        ] {
            assert!(!properties.contains_key(filled), "{filled} is the tool's");
        }
        for given in [
            "goal",
            "status",
            "decisions",
            "evidence",
            "environment",
            "kind",
            "plan",
        ] {
            assert!(properties.contains_key(given), "{given} missing");
        }
        assert!(!schema.to_string().contains("$ref"), "{schema}");
        assert_eq!(schema["properties"]["blockers"]["items"]["type"], "string");
        assert_eq!(schema["required"], json!(["goal"]));
    }
}
