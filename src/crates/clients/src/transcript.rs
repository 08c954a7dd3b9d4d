//! What a transcript line says, in words that belong to no client: [`Fact`]s for the session
//! record, [`Fullness`] for the context watch. Each client module reads its own format into
//! these ([`crate::Behaviour::line_facts`], [`crate::Behaviour::transcript_fullness`]); the
//! incremental file reading (core's record extraction) and the tail windows (the hooks'
//! transcript reader) are generic and live with their callers.
//!
//! Every format is internal to its client: unknown, broken and partial lines are skipped.

use serde_json::Value;
use std::path::Path;

/// The [`Fact::Once`] id a command call's end is recorded under, whether a tool-failure hook
/// or the transcript brings it first (Qwen Code): the call then waits for no other end.
pub fn command_end_id(call_id: &str) -> String {
    format!("end:{call_id}")
}

/// A tool-failure hook's input for the client's shell tool `shell_tool` as a fact: the command
/// and the exit code the client's error text gives (`exit_code_of`, each client words it its
/// own way), under [`command_end_id`] of the call's id, so the transcript's own line for the
/// same call (read later) does not count it twice. None for any other tool, or without an id
/// or a command.
pub fn failed_shell_command(
    input: &crate::HookInput,
    shell_tool: &str,
    exit_code_of: fn(&str) -> Option<i64>,
) -> Option<Fact> {
    if input.tool_name.as_deref() != Some(shell_tool) {
        return None;
    }
    let id = input.tool_call_id.as_deref()?;
    let command = input.tool_command.clone()?;
    let exit_code = input.tool_error.as_deref().and_then(exit_code_of);
    Some(Fact::call_end(id, Fact::CommandRan { command, exit_code }))
}

/// One fact read from a transcript line.
#[derive(Clone, Debug, PartialEq)]
pub enum Fact {
    /// Any dated line: the first is the start, the last the latest activity.
    At(String),
    Request(String),
    Edited(String),
    /// A command call whose result comes later (Claude Code).
    CommandCalled {
        id: String,
        command: String,
    },
    /// The result of a call (Claude Code); `failed` from the client's error flag.
    CommandResult {
        id: String,
        failed: bool,
        exit_code: Option<i64>,
    },
    /// A command with its result (Codex).
    CommandRan {
        command: String,
        exit_code: Option<i64>,
    },
    AgentMessage(String),
    Compacted,
    /// A fact the client may write more than once under the same id: applied the first time.
    Once {
        id: String,
        fact: Box<Fact>,
    },
}

impl Fact {
    /// The end of the call `call_id` (its result, or the command it ran), under
    /// [`command_end_id`] of the call: recorded once, whichever of a tool-failure hook and the
    /// transcript brings it first.
    pub fn call_end(call_id: &str, end: Fact) -> Fact {
        Fact::Once {
            id: command_end_id(call_id),
            fact: Box::new(end),
        }
    }

    /// Facts of work on the repository (as opposed to conversation).
    pub fn is_work(&self) -> bool {
        match self {
            Fact::Edited(_) | Fact::CommandRan { .. } | Fact::CommandResult { .. } => true,
            Fact::Once { fact, .. } => fact.is_work(),
            _ => false,
        }
    }

    /// A command ran (or was called): it may have changed files the transcript does not name.
    pub fn is_command(&self) -> bool {
        match self {
            Fact::CommandCalled { .. } | Fact::CommandRan { .. } | Fact::CommandResult { .. } => {
                true
            }
            Fact::Once { fact, .. } => fact.is_command(),
            _ => false,
        }
    }
}

/// The tokens in use at the last model request, as the transcript states them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Tokens in the context at the last model request.
    pub used_tokens: u64,
    /// The window the transcript states (Codex), if any.
    pub window: Option<u64>,
    /// The model the transcript names (Claude Code), if any.
    pub model: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fullness {
    Measured(Usage),
    /// The context was compacted after the last usage record: nearly empty, no figure yet.
    JustCompacted,
}

/// The lines of `tail`, newest first; unless `at_file_start`, the first line may be the
/// cut-off end of a longer one and is dropped.
pub fn lines_newest_first(tail: &[u8], at_file_start: bool) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = tail.split(|&b| b == b'\n').collect();
    if !at_file_start && !lines.is_empty() {
        lines.remove(0);
    }
    lines.reverse();
    lines
}

/// The newest usage in `tail` by `classify` (one line's meaning): a compaction after it means
/// [`Fullness::JustCompacted`]. A usage that states neither window nor model (Codex's
/// `token_usage_record`) borrows the window of the newest older line that states one.
pub fn newest_usage(
    tail: &[u8],
    at_file_start: bool,
    classify: impl Fn(&[u8]) -> Option<Fullness>,
) -> Option<Fullness> {
    let mut newest: Option<Usage> = None;
    for fullness in lines_newest_first(tail, at_file_start)
        .into_iter()
        .filter_map(classify)
    {
        match (fullness, newest.as_mut()) {
            (Fullness::JustCompacted, None) => return Some(Fullness::JustCompacted),
            (Fullness::JustCompacted, Some(_)) => {}
            (Fullness::Measured(u), None) if u.window.is_some() || u.model.is_some() => {
                return Some(Fullness::Measured(u))
            }
            (Fullness::Measured(u), None) => newest = Some(u),
            (Fullness::Measured(older), Some(n)) => {
                if older.window.is_some() {
                    n.window = older.window;
                    break;
                }
            }
        }
    }
    newest.map(Fullness::Measured)
}

/// The whole number `text` starts with (its digits and `-`), as a client's words for a
/// command's end give its exit code.
pub(crate) fn leading_number(text: &str) -> Option<i64> {
    let digits: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits.parse().ok()
}

/// Whether `hay` holds `needle`: the cheap test before a line is parsed at all.
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// A line as JSON, when it is UTF-8, holds one of `markers` (most lines are snapshots, tool
/// output and usage records: the substring test spares parsing them) and parses.
pub fn parse_marked(line: &[u8], markers: &[&str]) -> Option<Value> {
    // A line that is not UTF-8 is not valid JSON either.
    let text = std::str::from_utf8(line).ok()?;
    if !markers.iter().any(|m| text.contains(m)) {
        return None;
    }
    serde_json::from_str::<Value>(text).ok()
}

/// A line as JSON, when it is UTF-8, holds one of `fields` as `"key":"value"` (the clients
/// write compact JSON; spaces around the colon are accepted too) and parses: the cheap test
/// before a line is parsed at all, with each marker written once.
pub fn parse_with_field(line: &[u8], fields: &[(&str, &str)]) -> Option<Value> {
    let text = std::str::from_utf8(line).ok()?;
    if !fields
        .iter()
        .any(|(key, value)| has_field(text, key, value))
    {
        return None;
    }
    serde_json::from_str::<Value>(text).ok()
}

/// `text` holds `"key"`, optional spaces, `:`, optional spaces, `"value"` (a substring test:
/// the parse after it decides).
fn has_field(text: &str, key: &str, value: &str) -> bool {
    let quoted = |s: &str, at: usize, len: usize| {
        at > 0 && s.as_bytes()[at - 1] == b'"' && s.as_bytes().get(at + len) == Some(&b'"')
    };
    text.match_indices(key).any(|(at, _)| {
        if !quoted(text, at, key.len()) {
            return false;
        }
        let rest = text[at + key.len() + 1..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else {
            return false;
        };
        let rest = rest.trim_start();
        rest.strip_prefix('"')
            .and_then(|r| r.strip_prefix(value))
            .is_some_and(|r| r.starts_with('"'))
    })
}

pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The elements of the array at `key`; none when it is missing or not an array.
pub(crate) fn items_of<'a>(v: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    v.get(key).and_then(Value::as_array).into_iter().flatten()
}

pub(crate) fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// The line's `timestamp`, as a fact.
pub(crate) fn at(v: &Value, out: &mut Vec<Fact>) {
    if let Some(t) = str_of(v, "timestamp") {
        out.push(Fact::At(t.to_string()));
    }
}

/// A user text that the user typed, not one the client wrapped around a slash command, a
/// local command's output or a reminder.
pub(crate) fn request(text: &str, out: &mut Vec<Fact>) {
    const CLIENT_WRAPPERS: [&str; 6] = [
        "<command-",
        "<local-command-",
        "<system-reminder>",
        "<bash-",
        "<user-prompt-submit-hook>",
        "[Request interrupted",
    ];
    let t = text.trim_start();
    if t.is_empty() || CLIENT_WRAPPERS.iter().any(|w| t.starts_with(w)) {
        return;
    }
    out.push(Fact::Request(text.to_string()));
}

/// The tools of a client's transcript that the session record counts: those that edit a file,
/// each with the key of its input that names the file, and the one that runs a shell command.
pub(crate) struct Tools {
    pub edits: &'static [(&'static str, &'static str)],
    pub shell: &'static str,
}

impl Tools {
    /// One tool call: an edit tool names its file; the shell tool its command, under the call's
    /// `id` (its end comes in a later line). Any other tool says nothing.
    pub(crate) fn call(
        &self,
        name: &str,
        id: Option<&str>,
        input: &Value,
        root: Option<&Path>,
        out: &mut Vec<Fact>,
    ) {
        if name == self.shell {
            if let (Some(id), Some(command)) = (id, str_of(input, "command")) {
                out.push(Fact::CommandCalled {
                    id: id.to_string(),
                    command: command.to_string(),
                });
            }
        } else if let Some((_, key)) = self.edits.iter().find(|(tool, _)| *tool == name) {
            if let Some(p) = str_of(input, key) {
                out.push(Fact::Edited(relative(p, root)));
            }
        }
    }
}

/// A user message's `content` in the Messages shape (Claude Code, Factory Droid): a text or a
/// list of items; its texts are requests, and each `tool_result` becomes the fact `result`
/// makes of it (the call's id, whether it failed, the item).
pub(crate) fn user_content(
    content: Option<&Value>,
    out: &mut Vec<Fact>,
    result: impl Fn(&str, bool, &Value) -> Fact,
) {
    if let Some(text) = content.and_then(Value::as_str) {
        request(text, out);
    }
    for item in content.and_then(Value::as_array).into_iter().flatten() {
        match str_of(item, "type") {
            Some("text") => request(str_of(item, "text").unwrap_or(""), out),
            Some("tool_result") => {
                if let Some(id) = str_of(item, "tool_use_id") {
                    out.push(result(id, flag(item, "is_error"), item));
                }
            }
            _ => {}
        }
    }
}

/// An assistant message's `content` in the Messages shape: its `tool_use` items, then its last
/// words (the last text that is not blank).
pub(crate) fn assistant_content(
    content: Option<&Value>,
    tools: &Tools,
    root: Option<&Path>,
    out: &mut Vec<Fact>,
) {
    let mut last_text = None;
    for item in content.and_then(Value::as_array).into_iter().flatten() {
        match str_of(item, "type") {
            Some("text") => last_text = str_of(item, "text").filter(|t| !t.trim().is_empty()),
            Some("tool_use") => tools.call(
                str_of(item, "name").unwrap_or(""),
                str_of(item, "id"),
                item.get("input").unwrap_or(&Value::Null),
                root,
                out,
            ),
            _ => {}
        }
    }
    if let Some(t) = last_text {
        out.push(Fact::AgentMessage(t.to_string()));
    }
}

/// A path inside the repository relative to it; any other path as it was.
pub fn relative(path: &str, root: Option<&Path>) -> String {
    if let Some(root) = root {
        if let Ok(rest) = Path::new(path).strip_prefix(root) {
            if !rest.as_os_str().is_empty() {
                return rest.to_string_lossy().into_owned();
            }
        }
    }
    path.to_string()
}

/// The most read of a transcript's first line ([`first_line`]): Codex's `session_meta` carries
/// its base instructions (about 22 KB in 0.169.0).
pub(crate) const FIRST_LINE_MAX: u64 = 1 << 20;

/// The first line of the transcript at `path` (a link in its last component refused), parsed,
/// when it ends within [`FIRST_LINE_MAX`] bytes: the header a client starts a session's
/// transcript with.
pub(crate) fn first_line(path: &Path) -> Option<Value> {
    use handover_base::read_gate::{self, Links};
    use std::io::{BufRead, BufReader, Read};
    let file = read_gate::open(path, Links::Refuse).ok()??;
    let mut line = Vec::new();
    BufReader::new(file.take(FIRST_LINE_MAX))
        .read_until(b'\n', &mut line)
        .ok()?;
    if !line.ends_with(b"\n") {
        return None;
    }
    serde_json::from_slice(&line).ok()
}

/// The transcript's first line is a `kind` header (its `type`) whose field at `pointer` names
/// `project` (links resolved) as the session's working directory: as written, or once its own
/// links are resolved.
pub(crate) fn header_names_dir(
    transcript: &Path,
    kind: &str,
    pointer: &str,
    project: &Path,
) -> bool {
    let header = first_line(transcript).filter(|v| str_of(v, "type") == Some(kind));
    let named = header
        .as_ref()
        .and_then(|v| v.pointer(pointer))
        .and_then(Value::as_str);
    named.is_some_and(|n| {
        Path::new(n) == project || std::fs::canonicalize(n).is_ok_and(|n| n == project)
    })
}

/// A reading of `used` tokens (against `window`, by `model`), as the clients' tests expect one.
#[cfg(test)]
pub(crate) fn measured(used: u64, window: Option<u64>, model: Option<&str>) -> Option<Fullness> {
    Some(Fullness::Measured(Usage {
        used_tokens: used,
        window,
        model: model.map(str::to_string),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_found_compact_or_spaced_and_only_as_a_whole_key_and_value() {
        let line = br#"{"type": "user","message":{"type":"text"},"subtype" :"compact_boundary"}"#;
        let found = |k, v| parse_with_field(line, &[(k, v)]).is_some();
        assert!(found("type", "user"));
        assert!(found("type", "text"));
        assert!(found("subtype", "compact_boundary"));
        assert!(!found("type", "assistant"));
        assert!(!found("ype", "user"), "part of a key");
        assert!(!found("type", "use"), "part of a value");
        assert!(!found("message", "user"), "a value that is not a string");
        assert!(parse_with_field(b"{\"type\":\"user\"", &[("type", "user")]).is_none());
    }

    #[test]
    fn paths_inside_the_repository_become_relative() {
        assert_eq!(
            relative("/r/src/a.rs", Some(Path::new("/r"))),
            "src/a.rs".to_string()
        );
        assert_eq!(
            relative("/elsewhere/a.rs", Some(Path::new("/r"))),
            "/elsewhere/a.rs"
        );
        assert_eq!(relative("/r", Some(Path::new("/r"))), "/r");
    }
}
