//! How full the context is, read from the END of the client's transcript: the cost depends on
//! the size of the last lines, never on the size of the file.
//!
//! Claude Code (JSONL): the usage of the last main-chain assistant line (input + cache
//! creation + cache read tokens). A `compact_boundary` system line or an `isCompactSummary`
//! user line after it means that usage is stale: the context was just compacted.
//! Codex (rollout JSONL): the last `event_msg` / `token_count` with non-null `info`:
//! `last_token_usage.total_tokens` and `model_context_window`. A `compacted` line after it
//! means the same as Claude's boundary. Codex 0.169.0 writes a top-level `token_usage_record`
//! line (the response's usage) BEFORE it runs PostToolUse, and the `token_count` line only
//! afterwards: the newest usage comes from that record, the window from the newest
//! `token_count` before it. Both formats are internal to their clients: unknown or broken
//! lines are skipped.
//!
//! Claude Code 2.1.330 appends a turn's lines 10-50 ms AFTER it starts the hooks for that turn
//! (docs/compatibility.md): read at PostToolUse or Stop, the newest usage on disk may be the
//! previous response's. The reader never waits for it (context_watch/measure.rs says why).

use serde_json::Value;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Tail windows tried in turn; a single line longer than the last one is not looked into.
const WINDOWS: [u64; 3] = [256 * 1024, 2 * 1024 * 1024, 8 * 1024 * 1024];

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

/// None when the file cannot be read or holds no usage record in its last 8 MiB.
pub fn read(path: &Path) -> Option<Fullness> {
    read_with(path, scan)
}

/// `read` with another client's line reader (Gemini CLI's, see gemini.rs): the same growing
/// tail windows, `scan(tail, at_file_start)` deciding.
pub fn read_with(path: &Path, scan: fn(&[u8], bool) -> Option<Fullness>) -> Option<Fullness> {
    let mut file = open_regular(path)?;
    let len = file.metadata().ok()?.len();
    let mut buf = Vec::new();
    for window in WINDOWS {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start)).ok()?;
        buf.clear();
        file.by_ref().take(len - start).read_to_end(&mut buf).ok()?;
        if let Some(found) = scan(&buf, start == 0) {
            return Some(found);
        }
        if start == 0 {
            return None;
        }
    }
    None
}

/// Looks at the complete lines of `tail` from the last to the first. Unless `at_file_start`,
/// the first line may be the cut-off end of a longer one and is skipped.
pub fn scan(tail: &[u8], at_file_start: bool) -> Option<Fullness> {
    let mut lines: Vec<&[u8]> = tail.split(|&b| b == b'\n').collect();
    if !at_file_start && !lines.is_empty() {
        lines.remove(0);
    }
    // The newest usage; if it states neither window nor model (Codex's token_usage_record),
    // keep looking back for the newest line that states the window.
    let mut newest: Option<Usage> = None;
    for fullness in lines.into_iter().rev().filter_map(classify) {
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

/// The transcript, when it is a regular file, through the read gate: opened non-blocking and
/// checked on the descriptor, so a FIFO (or a device) never blocks the hook until the watchdog
/// ends it and its answer is lost.
fn open_regular(path: &Path) -> Option<File> {
    use handover_base::read_gate::{self, Links};
    read_gate::open(path, Links::Follow).ok()?
}

/// The meaning of one line, if it is a usage record or a compaction marker. Cheap substring
/// checks first: most lines (tool output, prompts) are neither and are never parsed.
fn classify(line: &[u8]) -> Option<Fullness> {
    const MARKERS: [&[u8]; 4] = [
        b"\"usage\"",
        b"token_count",
        b"compact",
        b"isCompactSummary",
    ];
    if !MARKERS.iter().any(|m| contains(line, m)) {
        return None;
    }
    let v: Value = serde_json::from_slice(line).ok()?;
    let kind = v.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        // Claude Code
        "assistant" => claude_usage(&v).map(Fullness::Measured),
        "system" if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") => {
            Some(Fullness::JustCompacted)
        }
        "user" if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) => {
            Some(Fullness::JustCompacted)
        }
        // Codex
        "event_msg" => codex_usage(v.get("payload")?).map(Fullness::Measured),
        "compacted" => Some(Fullness::JustCompacted),
        "token_usage_record" => {
            let used = v
                .pointer("/payload/usage/total_tokens")
                .and_then(Value::as_u64)?;
            Some(Fullness::Measured(Usage {
                used_tokens: used,
                window: None,
                model: None,
            }))
        }
        _ => None,
    }
}

fn claude_usage(v: &Value) -> Option<Usage> {
    if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let message = v.get("message")?;
    let model = message.get("model").and_then(Value::as_str);
    // Claude Code writes local notices as "<synthetic>" assistant lines with zero usage.
    if model == Some("<synthetic>") {
        return None;
    }
    let usage = message.get("usage")?;
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let used = n("input_tokens") + n("cache_creation_input_tokens") + n("cache_read_input_tokens");
    if used == 0 {
        return None;
    }
    Some(Usage {
        used_tokens: used,
        window: None,
        model: model.map(str::to_string),
    })
}

fn codex_usage(payload: &Value) -> Option<Usage> {
    if payload.get("type").and_then(Value::as_str) != Some("token_count") {
        return None;
    }
    // `info` is null before the first model response: not a record, keep looking back.
    let info = payload.get("info").filter(|i| i.is_object())?;
    let used = info
        .get("last_token_usage")
        .and_then(|u| u.get("total_tokens"))
        .and_then(Value::as_u64)?;
    Some(Usage {
        used_tokens: used,
        window: info
            .get("model_context_window")
            .and_then(Value::as_u64)
            .filter(|w| *w > 0),
        model: None,
    })
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn claude_assistant(input: u64, cache_read: u64, sidechain: bool) -> String {
        format!(
            r#"{{"type":"assistant","isSidechain":{sidechain},"message":{{"model":"claude-sonnet-4-5","usage":{{"input_tokens":{input},"cache_creation_input_tokens":10,"cache_read_input_tokens":{cache_read},"output_tokens":99}}}}}}"#
        )
    }

    fn measured(used: u64, window: Option<u64>, model: Option<&str>) -> Option<Fullness> {
        Some(Fullness::Measured(Usage {
            used_tokens: used,
            window,
            model: model.map(str::to_string),
        }))
    }

    #[test]
    fn claude_last_main_chain_assistant_wins() {
        let t = [
            claude_assistant(100, 1000, false),
            r#"{"type":"user","message":{"content":"hi"}}"#.to_string(),
            claude_assistant(5, 50_000, false),
            claude_assistant(9, 900_000, true),
            r#"{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":0}}}"#
                .to_string(),
        ]
        .join("\n");
        assert_eq!(
            scan(t.as_bytes(), true),
            measured(50_015, None, Some("claude-sonnet-4-5"))
        );
    }

    #[test]
    fn claude_boundary_after_usage_means_just_compacted() {
        let t = [
            claude_assistant(100, 150_000, false),
            r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}"#
                .to_string(),
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}"#
                .to_string(),
        ]
        .join("\n");
        assert_eq!(scan(t.as_bytes(), true), Some(Fullness::JustCompacted));
        let after = format!("{t}\n{}\n", claude_assistant(100, 2000, false));
        assert_eq!(
            scan(after.as_bytes(), true),
            measured(2110, None, Some("claude-sonnet-4-5"))
        );
    }

    #[test]
    fn codex_token_count_with_null_info_is_skipped() {
        let t = r#"{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":999999},"last_token_usage":{"total_tokens":180000},"model_context_window":272000}}}
{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"assistant"}}
{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":null}}"#;
        assert_eq!(
            scan(t.as_bytes(), true),
            measured(180_000, Some(272_000), None)
        );
        let compacted = format!(
            "{t}\n{}",
            r#"{"timestamp":"x","type":"compacted","payload":{"message":"s"}}"#
        );
        assert_eq!(
            scan(compacted.as_bytes(), true),
            Some(Fullness::JustCompacted)
        );
    }

    #[test]
    fn partial_and_garbage_lines_are_skipped() {
        let t = format!(
            "{}\nnot json at all \"usage\"\n{{\"type\":\"assistant\",\"message\":{{\"usage\":{{\"input_tok",
            claude_assistant(1, 2, false)
        );
        assert_eq!(
            scan(t.as_bytes(), true),
            measured(13, None, Some("claude-sonnet-4-5"))
        );
        // Mid-file window: the first (cut) line is not trusted even if it parses.
        let cut = format!("{}\n{{\"type\":\"user\"}}\n", claude_assistant(1, 2, false));
        assert_eq!(scan(cut.as_bytes(), false), None);
        assert_eq!(scan(b"", true), None);
    }

    #[test]
    fn reads_from_the_tail_and_widens_past_a_long_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut f = File::create(&path).unwrap();
        writeln!(f, "{}", claude_assistant(7, 70_000, false)).unwrap();
        // A tool result longer than the first window, after the usage line.
        let big = "y".repeat(600 * 1024);
        writeln!(f, r#"{{"type":"user","message":{{"content":"{big}"}}}}"#).unwrap();
        drop(f);
        assert_eq!(
            read(&path),
            measured(70_017, None, Some("claude-sonnet-4-5"))
        );
        assert_eq!(read(&dir.path().join("missing.jsonl")), None);
    }

    #[test]
    fn codex_usage_record_is_newer_than_token_count_and_borrows_its_window() {
        let count = |used: u64| {
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"last_token_usage":{{"total_tokens":{used}}},"model_context_window":258400}}}}}}"#
            )
        };
        let record = |used: u64| {
            format!(
                r#"{{"type":"token_usage_record","payload":{{"usage":{{"input_tokens":{used},"total_tokens":{used}}}}}}}"#
            )
        };
        let tail = format!("{}\n{}\n", count(1000), record(200_000));
        assert_eq!(
            scan(tail.as_bytes(), true),
            measured(200_000, Some(258_400), None)
        );
        // Without any token_count in reach, the usage still counts; the window comes from
        // elsewhere (model table or config).
        let tail = format!("{}\n", record(5000));
        assert_eq!(scan(tail.as_bytes(), true), measured(5000, None, None));
        // A compaction after the record: the figure is stale.
        let tail = format!(
            "{}\n{}\n{{\"type\":\"compacted\",\"payload\":{{}}}}\n",
            count(1000),
            record(200_000)
        );
        assert_eq!(scan(tail.as_bytes(), true), Some(Fullness::JustCompacted));
    }
}
