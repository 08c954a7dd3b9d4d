//! Canonical JSON for checksums: compact, object keys sorted recursively by their UTF-8 bytes.
//! Written out by hand on purpose: serde_json's map order depends on whether some other crate
//! in the build enabled its `preserve_order` feature, and a checksum must not.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::{self, Write};

/// `sha256:<hex>` over the canonical form of `doc` with its top-level `checksum` key removed.
/// Works on the raw JSON so that fields this version does not know (written by a newer one)
/// are covered too. The form is streamed into the hash as it is made: no copy of the
/// document, no string per value (reading a large archive checks thousands of these).
pub fn checksum_of_value(doc: &Value) -> String {
    let mut hash = Hashing(Sha256::new());
    match doc {
        Value::Object(map) => write_object(map, Some("checksum"), &mut hash),
        other => write_value(other, &mut hash),
    }
    let digest = hash.0.finalize();
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        use std::fmt::Write as _;
        // Writing to a String cannot fail.
        let _ = write!(out, "{byte:02x}");
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

/// A hash fed as an `io::Write`, so serde_json writes escaped scalars straight into it.
struct Hashing(Sha256);

impl Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The canonical form of `value` into `out` (a hash or a buffer: neither fails to write).
fn write_value(value: &Value, out: &mut impl Write) {
    match value {
        Value::Array(items) => {
            put(out, b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    put(out, b",");
                }
                write_value(item, out);
            }
            put(out, b"]");
        }
        Value::Object(map) => write_object(map, None, out),
        // Null, booleans, numbers and strings have exactly one compact form in serde_json.
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

/// An object with its keys sorted by their UTF-8 bytes, `skip` (a key) left out.
fn write_object(map: &Map<String, Value>, skip: Option<&str>, out: &mut impl Write) {
    // serde_json's usual map already iterates in this order; with `preserve_order` it keeps
    // the input's, and only then are the keys sorted here.
    let in_order = map
        .keys()
        .zip(map.keys().skip(1))
        .all(|(a, b)| a.as_bytes() <= b.as_bytes());
    if in_order {
        write_entries(map.iter(), skip, out);
    } else {
        let mut sorted: Vec<(&String, &Value)> = map.iter().collect();
        sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        write_entries(sorted.into_iter(), skip, out);
    }
}

fn write_entries<'a>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    skip: Option<&str>,
    out: &mut impl Write,
) {
    put(out, b"{");
    let mut first = true;
    for (key, item) in entries {
        if skip == Some(key.as_str()) {
            continue;
        }
        if !first {
            put(out, b",");
        }
        first = false;
        let _ = serde_json::to_writer(&mut *out, key.as_str());
        put(out, b":");
        write_value(item, out);
    }
    put(out, b"}");
}

fn put(out: &mut impl Write, bytes: &[u8]) {
    let _ = out.write_all(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The canonical form of `value`, appended to `out`.
    fn write_canonical(value: &Value, out: &mut String) {
        let mut bytes = Vec::new();
        write_value(value, &mut bytes);
        out.push_str(std::str::from_utf8(&bytes).unwrap());
    }

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

    /// The form as it was made before it was streamed (a copy of the document, a string per
    /// value): the streamed one must hash exactly these bytes, or every stored checksum breaks.
    fn copied_form(value: &Value, out: &mut String) {
        match value {
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    copied_form(item, out);
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
                    out.push_str(&serde_json::to_string(&Value::String(key.clone())).unwrap());
                    out.push(':');
                    copied_form(item, out);
                }
                out.push('}');
            }
            scalar => out.push_str(&serde_json::to_string(scalar).unwrap()),
        }
    }

    fn copied_checksum(doc: &Value) -> String {
        let mut form = String::new();
        match doc {
            Value::Object(map) => {
                let mut without = map.clone();
                without.remove("checksum");
                copied_form(&Value::Object(without), &mut form);
            }
            other => copied_form(other, &mut form),
        }
        let digest = Sha256::digest(form.as_bytes());
        format!(
            "sha256:{}",
            digest
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        )
    }

    #[test]
    fn the_streamed_form_hashes_the_same_bytes_as_the_copied_one() {
        let mut docs = vec![
            json!({}),
            json!([]),
            json!(null),
            json!("top-level string \u{1b}[31m"),
            json!(-0.0),
            json!({"checksum": "sha256:x", "a": {"checksum": "inner stays"}, "b": [1, 2]}),
            json!({"checksum": 7}),
            json!({"é": 1, "e": 2, "z": 3, "\u{10348}": 4, "\u{ff}": 5, "": 6, "A": 7}),
            json!({"n": [0, -1, 1.5, 1e300, -2.5e-300, u64::MAX, i64::MIN, 0.1]}),
            json!({"s": "quote \" backslash \\ tab \t nl \n nul \u{0} del \u{7f} \u{2028} 😀"}),
            json!({"deep": [[[{"b": {}, "a": []}]]], "t": true, "f": false, "x": null}),
        ];
        // Real handoffs of varied content, sealed by the code that writes them.
        for n in 0..40u32 {
            let mut h = crate::model::Handoff {
                id: format!("id-{n}"),
                created_at: format!("2026-11-{:02}T00:00:00Z", 1 + n % 28),
                agent: (n % 3 == 0).then(|| format!("agent «{n}»")),
                ..Default::default()
            };
            h.content.goal = "goal ".repeat(n as usize) + &"é\n\"".repeat((n % 5) as usize);
            h.content.warnings = (0..n % 4).map(|i| format!("warning {i} \u{1f}")).collect();
            let mut v = serde_json::to_value(&h).unwrap();
            if n % 2 == 0 {
                // A field a newer version added: covered too.
                v["zz_future"] = json!({"k": [n, format!("{n}")], "checksum": "nested"});
            }
            docs.push(v);
        }
        for doc in &docs {
            assert_eq!(checksum_of_value(doc), copied_checksum(doc), "{doc}");
            let mut streamed = String::new();
            write_canonical(doc, &mut streamed);
            let mut copied = String::new();
            copied_form(doc, &mut copied);
            assert_eq!(streamed, copied);
        }
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
