//! A JSON document that keeps its keys in file order and its numbers as written, for editing
//! users' files.
//!
//! Objects are lists of (key, value) in the order read; a key given twice keeps its first place
//! and its last value, as serde_json's `preserve_order` map does. Numbers keep their text
//! (`12345678901234567890123` stays that, not `1.2345678901234568e+22`; `-0` stays `-0`):
//! an edit of one hook must not rewrite a user's other values. Parsing and writing go through
//! serde_json's own reader and writer (this type only implements `Deserialize` and
//! `Serialize`, through serde_json's `RawValue`, so it reads only from serde_json), so errors,
//! string escapes and the pretty layout are serde_json's.
//!
//! Why not serde_json's `preserve_order` feature: cargo unifies features across a build, so it
//! would turn every `serde_json::Map` in the workspace (the core's, the hook executables')
//! into an IndexMap. tests/project/architecture.rs checks that the hook executables stay free of it.

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use std::fmt;

/// A JSON number exactly as written in the file (or as we write a new one).
#[derive(Clone, Debug, PartialEq)]
pub struct Number(String);

impl Number {
    pub fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Number {
        Number(n.to_string())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON object in key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    pub fn new() -> Map {
        Map::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`: an existing key keeps its place, a new one goes last. Returns the old value.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`; the other keys keep their order.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.position(key).map(|i| self.entries.remove(i).1)
    }

    /// The value of `key`, added last as `default()` when it is missing.
    pub fn get_or_insert_with(&mut self, key: &str, default: impl FnOnce() -> Value) -> &mut Value {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.entries.push((key.to_string(), default()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }
}

impl Value {
    /// An object with these entries, in this order.
    pub fn object<K: Into<String>>(entries: impl IntoIterator<Item = (K, Value)>) -> Value {
        let mut map = Map::new();
        for (k, v) in entries {
            map.insert(k.into(), v);
        }
        Value::Object(map)
    }

    /// The value of `key` when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.as_object_mut()?.get_mut(key)
    }

    /// The value at a JSON Pointer (RFC 6901, as `serde_json::Value::pointer`): `/a/0/b`.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut at = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Value::Object(m) => m.get(&token)?,
                Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

/// Compact JSON, keys in order.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => match RawValue::from_string(n.0.clone()) {
                Ok(raw) => raw.serialize(s),
                Err(e) => Err(serde::ser::Error::custom(e)),
            },
            Value::String(t) => s.serialize_str(t),
            Value::Array(a) => s.collect_seq(a),
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    /// Reads the whole value as serde_json's raw text first (serde_json checks the syntax and
    /// reports where it is wrong), then takes it apart level by level, keeping number literals.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        from_raw(raw.get()).map_err(de::Error::custom)
    }
}

fn from_raw(text: &str) -> Result<Value, serde_json::Error> {
    let text = text.trim();
    match text.as_bytes().first() {
        Some(b'{') => {
            let entries: RawEntries = serde_json::from_str(text)?;
            let mut map = Map::new();
            for (k, v) in entries.0 {
                map.insert(k, from_raw(v.get())?);
            }
            Ok(Value::Object(map))
        }
        Some(b'[') => {
            let items: Vec<Box<RawValue>> = serde_json::from_str(text)?;
            items
                .iter()
                .map(|v| from_raw(v.get()))
                .collect::<Result<_, _>>()
                .map(Value::Array)
        }
        Some(b'-' | b'0'..=b'9') => Ok(Value::Number(Number(text.to_string()))),
        _ => Ok(match serde_json::from_str::<serde_json::Value>(text)? {
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::String(s) => Value::String(s),
            _ => Value::Null,
        }),
    }
}

/// An object's entries in file order, each value still raw text.
struct RawEntries(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for RawEntries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawEntries, D::Error> {
        d.deserialize_map(EntriesVisitor)
    }
}

struct EntriesVisitor;

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = RawEntries;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<RawEntries, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = access.next_entry::<String, Box<RawValue>>()? {
            out.push((k, v));
        }
        Ok(RawEntries(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_takes_a_repeated_key_in_its_first_place() {
        let v: Value =
            serde_json::from_str(r#"{"z": 1, "a": {"y": [1, -2, 3.5, null]}, "z": true}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"z":true,"a":{"y":[1,-2,3.5,null]}}"#);
        // The same string escapes as serde_json's own Value writes.
        let text = r#"{"a":"\u0001é\"\\"}"#;
        let ours: Value = serde_json::from_str(text).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours.to_string(), theirs.to_string());
    }

    /// Numbers round-trip as written, whatever serde_json's own Value would make of them.
    #[test]
    fn numbers_keep_their_text() {
        let text = r#"{"b":[0.1,18446744073709551615,-9223372036854775808,1.0,1e300,-0,12345678901234567890123,1E-7,100000000000000000000000000000000000001]}"#;
        let ours: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours.to_string(), text);
        let pretty = serde_json::to_string_pretty(&ours).unwrap();
        let back: Value = serde_json::from_str(&pretty).unwrap();
        assert_eq!(back, ours);
        assert_eq!(ours.pointer("/b/1").and_then(Value::as_u64), Some(u64::MAX));
        assert_eq!(ours.pointer("/b/3").and_then(Value::as_u64), None);
    }

    #[test]
    fn syntax_errors_are_serde_jsons_with_their_position() {
        let e = serde_json::from_str::<Value>("{\n  \"a\": [1,\n  oops]\n}").unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 3), "{e}");
    }

    #[test]
    fn edits_keep_the_other_keys_in_place() {
        let mut m = Map::new();
        for k in ["c", "a", "b"] {
            m.insert(k.into(), Value::from(k));
        }
        m.insert("a".into(), Value::from(1));
        m.remove("c");
        m.get_or_insert_with("d", || Value::Null);
        let v = Value::Object(m);
        assert_eq!(v.to_string(), r#"{"a":1,"b":"b","d":null}"#);
        let nested: Value = serde_json::from_str(r#"{"x": [{"a/b": 7}]}"#).unwrap();
        assert_eq!(nested.pointer("/x/0/a~1b").and_then(Value::as_u64), Some(7));
        assert_eq!(nested.pointer("/x/1"), None);
        assert_eq!(v.pointer(""), Some(&v));
    }
}
