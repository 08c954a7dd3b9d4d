//! Canonical JSON for checksums: compact, object keys sorted recursively by their UTF-8 bytes.
//! Written out by hand on purpose: serde_json's map order depends on whether some other crate
//! in the build enabled its `preserve_order` feature, and a checksum must not.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:<hex>` over the canonical form of `doc` with its top-level `checksum` key removed.
/// Works on the raw JSON so that fields this version does not know (written by a newer one)
/// are covered too.
pub fn checksum_of_value(doc: &Value) -> String {
    let mut canonical = String::new();
    match doc {
        Value::Object(map) => {
            let mut without = map.clone();
            without.remove("checksum");
            write_canonical(&Value::Object(without), &mut canonical);
        }
        other => write_canonical(other, &mut canonical),
    }
    let digest = Sha256::digest(canonical.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The `checksum` field of `doc` matches its content.
pub fn checksum_matches(doc: &Value) -> bool {
    match doc.get("checksum").and_then(Value::as_str) {
        Some(recorded) if !recorded.is_empty() => recorded == checksum_of_value(doc),
        _ => false,
    }
}

pub fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_scalar(&Value::String(key.clone()), out);
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        scalar => write_scalar(scalar, out),
    }
}

/// Null, booleans, numbers and strings have exactly one compact form in serde_json.
fn write_scalar(value: &Value, out: &mut String) {
    // Serializing a scalar Value cannot fail.
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canonical(v: &Value) -> String {
        let mut s = String::new();
        write_canonical(v, &mut s);
        s
    }

    #[test]
    fn sorts_keys_recursively_and_is_compact() {
        let v = json!({"b": 1, "a": {"z": [true, null, {"y": "q", "x": 1.5}], "c": "é\n\"x\""}});
        assert_eq!(
            canonical(&v),
            r#"{"a":{"c":"é\n\"x\"","z":[true,null,{"x":1.5,"y":"q"}]},"b":1}"#
        );
    }

    #[test]
    fn key_order_in_the_input_does_not_matter() {
        let a: Value = serde_json::from_str(
            r#"{"goal":"g","id":"1","status":{"pending":[],"completed":["x"]}}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{"status":{"completed":["x"],"pending":[]},"id":"1","goal":"g"}"#,
        )
        .unwrap();
        assert_eq!(checksum_of_value(&a), checksum_of_value(&b));
    }

    #[test]
    fn checksum_field_is_excluded_and_checked() {
        let mut v = json!({"goal": "g", "checksum": ""});
        let sum = checksum_of_value(&v);
        assert!(sum.starts_with("sha256:") && sum.len() == 7 + 64, "{sum}");
        assert!(!checksum_matches(&v), "an empty checksum never matches");
        v["checksum"] = Value::String(sum.clone());
        assert_eq!(
            checksum_of_value(&v),
            sum,
            "the checksum field itself is not hashed"
        );
        assert!(checksum_matches(&v));
        v["goal"] = Value::String("h".into());
        assert!(!checksum_matches(&v));
    }

    #[test]
    fn known_digest() {
        // sha256 of the two bytes `{}`.
        assert_eq!(
            checksum_of_value(&json!({"checksum": "x"})),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
