//! Keeping a JSON file's look: indentation width, line endings, trailing newline, key order.
//!
//! The document is parsed into a `json_doc::Value`, which keeps key order;
//! it is written back pretty-printed with the indentation the file already used. A file already
//! in that canonical form (what Claude Code itself writes) comes back byte for byte; anything else
//! (a compact one-liner, aligned arrays) comes back semantically equal.

use crate::edit::json_doc::{Map, Value};
use crate::error::EditError;
use serde::Serialize;
use std::path::Path;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// One level of indentation: spaces or a tab, as the file used.
    pub indent: String,
    pub crlf: bool,
    pub trailing_newline: bool,
    /// A UTF-8 byte order mark at the start (kept if the file had one).
    pub bom: bool,
}

impl Default for Layout {
    /// What a new file gets: two spaces (Claude Code's own style), LF, trailing newline.
    fn default() -> Self {
        Layout {
            indent: "  ".into(),
            crlf: false,
            trailing_newline: true,
            bom: false,
        }
    }
}

impl Layout {
    pub fn detect(text: &str) -> Layout {
        let bom = text.starts_with('\u{feff}');
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim().is_empty() {
            return Layout {
                bom,
                ..Layout::default()
            };
        }
        let crlf = text.contains("\r\n");
        let trailing_newline = text.ends_with('\n');
        // The first indented line gives one level (the top object's keys sit at depth 1).
        let indent = text
            .lines()
            .skip(1)
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| !l.trim().is_empty())
            .find_map(|l| {
                let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                (!ws.is_empty()).then_some(ws)
            })
            .unwrap_or_else(|| "  ".into());
        Layout {
            indent,
            crlf,
            trailing_newline,
            bom,
        }
    }
}

/// Parses a JSON document, naming the file and position on failure.
pub fn parse(file: &Path, text: &str) -> Result<Value, EditError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.trim().is_empty() {
        // An empty file is treated as an empty object: nothing in it can be damaged.
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(body).map_err(|e| {
        EditError::at(
            file,
            e.line(),
            e.column(),
            format!("not valid JSON ({e}); fix or remove the file, then run the command again"),
        )
    })
}

/// The top-level object of a parsed document (every JSON file we edit has one), or an error
/// naming the file that asks the user to fix it by hand.
pub fn top_object<'a>(file: &Path, doc: &'a mut Value) -> Result<&'a mut Map, EditError> {
    doc.as_object_mut().ok_or_else(|| {
        EditError::new(
            file,
            "the top level is not a JSON object; fix the file by hand, then run the command again",
        )
    })
}

/// Serializes `value` with the given layout.
pub fn render(value: &Value, layout: &Layout) -> String {
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(layout.indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    // Serializing a Value into memory cannot fail.
    let _ = value.serialize(&mut ser);
    let mut text = String::from_utf8(out).unwrap_or_default();
    if layout.trailing_newline {
        text.push('\n');
    }
    if layout.crlf {
        text = text.replace('\n', "\r\n");
    }
    if layout.bom {
        text.insert(0, '\u{feff}');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_that_is_not_an_object_is_refused_naming_the_file() {
        let file = Path::new("/r/.gemini/settings.json");
        let mut list = parse(file, "[1, 2]").unwrap();
        let err = top_object(file, &mut list).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/r/.gemini/settings.json: the top level is not a JSON object; fix the file by hand, then run the command again"
        );
        let mut object = parse(file, "{\"a\": 1}").unwrap();
        assert_eq!(top_object(file, &mut object).unwrap().len(), 1);
    }

    #[test]
    fn canonical_text_round_trips_byte_for_byte() {
        for text in [
            "{\n  \"a\": 1,\n  \"b\": [\n    true\n  ]\n}\n",
            "{\n    \"z\": {},\n    \"a\": []\n}",
            "{\r\n\t\"b\": \"x\",\r\n\t\"a\": null\r\n}\r\n",
        ] {
            let layout = Layout::detect(text);
            let v = parse(Path::new("t.json"), text).unwrap();
            assert_eq!(render(&v, &layout), text);
        }
    }

    #[test]
    fn detects_each_property() {
        let l = Layout::detect("{\r\n    \"a\": 1\r\n}");
        assert_eq!(
            l,
            Layout {
                indent: "    ".into(),
                crlf: true,
                trailing_newline: false,
                bom: false,
            }
        );
        assert_eq!(Layout::detect("{\"a\":1}\n").indent, "  ");
        assert_eq!(Layout::detect(""), Layout::default());
        let with_bom = "\u{feff}{\n  \"a\": 1\n}\n";
        let v = parse(Path::new("b"), with_bom).unwrap();
        assert_eq!(render(&v, &Layout::detect(with_bom)), with_bom);
    }

    #[test]
    fn parse_error_names_file_and_position() {
        let e = parse(Path::new("/x/settings.json"), "{\n  \"a\": 1,\n  oops\n}\n").unwrap_err();
        assert_eq!(e.position, Some((3, 3)));
        assert!(
            e.to_string()
                .starts_with("/x/settings.json:3:3: not valid JSON"),
            "{e}"
        );
    }
}
