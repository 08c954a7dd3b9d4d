//! The JSON form of a handoff's content, as people and agents write it (`handover write --from
//! state.json`, a fed-back state.json): lenient where people naturally differ (numbers and
//! booleans in `environment` and `evidence.measurements` become text), strict where a typo
//! would silently lose a field (an unknown key is an error naming it). The Markdown form is
//! [`crate::markdown`].

use crate::model::Content;
use anyhow::bail;
use serde_json::Value;

/// Fields the tool fills in: accepted in input (e.g. a state.json fed back) but replaced.
const TOOL_FIELDS: &[&str] = &[
    "schema_version",
    "id",
    "created_at",
    "agent",
    "session_id",
    "git",
    "files_changed",
    "files_changed_omitted",
    "files_changed_base",
    "checksum",
];

/// JSON of any shape (an object, but also `null`, an array, a number): those get a JSON error
/// ("expected a JSON object"), not a confusing Markdown one.
pub fn looks_like_json(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with(['{', '[', '"']) || serde_json::from_str::<Value>(t).is_ok()
}

/// JSON input: lenient where people naturally differ (numbers and booleans in `environment` and
/// `evidence.measurements` become text), strict where a typo would silently lose a field.
pub fn parse(text: &str) -> anyhow::Result<Content> {
    let mut value: Value = serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "not valid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    let Some(obj) = value.as_object_mut() else {
        bail!("expected a JSON object such as {{\"goal\": \"...\"}}");
    };
    for key in TOOL_FIELDS {
        obj.remove(*key);
    }
    stringify_scalars(obj.get_mut("environment"));
    if let Some(ev) = obj.get_mut("evidence").and_then(Value::as_object_mut) {
        stringify_scalars(ev.get_mut("measurements"));
    }
    let content: Content = serde_json::from_value(value.clone()).map_err(|e| {
        let at = failing_path(&value, &mut Vec::new())
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        anyhow::anyhow!("{at}{e} (see docs/format.md or `handover write --help`)")
    })?;
    let parsed = serde_json::to_value(&content)?;
    let mut unknown = Vec::new();
    unknown_keys(&value, &parsed, "", &mut unknown);
    if !unknown.is_empty() {
        bail!(
            "unknown field(s): {} — check the spelling against docs/format.md (`handover write --help` lists the keys)",
            unknown.join(", ")
        );
    }
    Ok(content)
}

/// Where in `value` the handoff does not deserialize, as a field path (`status.in_progress`,
/// `decisions[1].why`): the deepest part that fails on its own, everything else left out.
/// serde_json's own error names only the expected type.
fn failing_path(value: &Value, at: &mut Vec<Step>) -> Option<String> {
    let children: Vec<(Step, &Value)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| (Step::Key(k.clone()), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (Step::Index(i), v))
            .collect(),
        _ => Vec::new(),
    };
    for (step, child) in children {
        at.push(step);
        if serde_json::from_value::<Content>(alone(at, child.clone())).is_err() {
            // A list or object where something else belongs: the field itself, not its parts.
            let empty = match child {
                Value::Object(_) => Some(Value::Object(Default::default())),
                Value::Array(_) => Some(Value::Array(Vec::new())),
                _ => None,
            };
            let container_wrong =
                empty.is_some_and(|e| serde_json::from_value::<Content>(alone(at, e)).is_err());
            let deeper = if container_wrong {
                None
            } else {
                failing_path(child, at)
            };
            let here = render_path(at);
            at.pop();
            return deeper.or(Some(here));
        }
        at.pop();
    }
    None
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// `leaf` at `path` in an otherwise empty handoff (an index becomes a one-element array).
fn alone(path: &[Step], leaf: Value) -> Value {
    path.iter().rev().fold(leaf, |inner, step| match step {
        Step::Key(k) => Value::Object([(k.clone(), inner)].into_iter().collect()),
        Step::Index(_) => Value::Array(vec![inner]),
    })
}

fn render_path(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

fn stringify_scalars(map: Option<&mut Value>) {
    if let Some(Value::Object(m)) = map {
        for v in m.values_mut() {
            if matches!(v, Value::Number(_) | Value::Bool(_)) {
                *v = Value::String(v.to_string());
            }
        }
    }
}

/// Keys in the input that did not survive deserialization: misspelled or misplaced fields.
fn unknown_keys(input: &Value, parsed: &Value, path: &str, out: &mut Vec<String>) {
    match (input, parsed) {
        (Value::Object(i), Value::Object(p)) => {
            for (k, v) in i {
                let here = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match p.get(k) {
                    Some(pv) => unknown_keys(v, pv, &here, out),
                    None if v.is_null() => {}
                    None => out.push(here),
                }
            }
        }
        (Value::Array(i), Value::Array(p)) => {
            for (n, (iv, pv)) in i.iter().zip(p).enumerate() {
                unknown_keys(iv, pv, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
}
