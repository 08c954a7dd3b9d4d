//! What is particular to Gemini CLI (checked against 0.61.0, see docs/compatibility.md):
//!
//! - Its transcript (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`): a header line
//!   (`sessionId`, `startTime`, `kind`), `{"$set": {...}}` updates, and one line per message,
//!   written again whole when it changes. A model reply is `{"type": "gemini", "tokens":
//!   {"input": N, ...}, "model": "..."}`; `tokens.input` is the request's `promptTokenCount`,
//!   the figure Gemini CLI itself compares with its compression point. A compression rewrites the
//!   history as `{"$set": {"sessionId"}}` then `{"$set": {"messages": [...]}}` with no header
//!   line; a resumed session writes the same two lines after a new header line.
//! - Its own compression point: `model.compressionThreshold` (a fraction of the window, from the
//!   project's `.gemini/settings.json`, else the user's), default 0.5 — far below where Claude
//!   Code and Codex compact. The context watch's thresholds are moved below it
//!   (context_watch/thresholds.rs).
//! - PreCompress fires before EVERY model request (trigger `auto`), whether or not anything is
//!   compressed: only one where the last usage reaches the compression point (or a `manual`
//!   one) is a compaction.

use crate::transcript::{self, Fullness, Usage};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Gemini CLI's `DEFAULT_COMPRESSION_TOKEN_THRESHOLD`.
pub const DEFAULT_COMPRESSION_THRESHOLD: f64 = 0.5;

/// How fullness reads from the tail of a Gemini CLI transcript (None: no usage yet).
pub fn read_transcript(path: &Path) -> Option<Fullness> {
    transcript::read_with(path, scan)
}

/// Looks at the complete lines of `tail` from the last to the first (see transcript::scan for
/// the cut first line). A history rewrite after the newest usage means a compression, unless a
/// header line comes before it (a resumed session: its history is the same as before).
pub fn scan(tail: &[u8], at_file_start: bool) -> Option<Fullness> {
    let mut lines: Vec<&[u8]> = tail.split(|&b| b == b'\n').collect();
    if !at_file_start && !lines.is_empty() {
        lines.remove(0);
    }
    let mut rewritten = false;
    for line in lines.into_iter().rev() {
        match classify(line) {
            Some(Line::Usage(_)) if rewritten => return Some(Fullness::JustCompacted),
            Some(Line::Usage(u)) => return Some(Fullness::Measured(u)),
            Some(Line::HistoryRewrite) => rewritten = true,
            Some(Line::Header) => rewritten = false,
            None => {}
        }
    }
    None
}

enum Line {
    Usage(Usage),
    HistoryRewrite,
    Header,
}

/// Cheap substring checks first: tool output and prompts are never parsed.
fn classify(line: &[u8]) -> Option<Line> {
    let has = |needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    if !(has(b"\"tokens\"") || has(b"\"$set\"") || has(b"\"startTime\"")) {
        return None;
    }
    let v: Value = serde_json::from_slice(line).ok()?;
    if let Some(set) = v.get("$set") {
        return set.get("messages").map(|_| Line::HistoryRewrite);
    }
    if v.get("type").and_then(Value::as_str) == Some("gemini") {
        let used = v.pointer("/tokens/input").and_then(Value::as_u64)?;
        if used == 0 {
            return None;
        }
        return Some(Line::Usage(Usage {
            used_tokens: used,
            window: None,
            model: v.get("model").and_then(Value::as_str).map(str::to_string),
        }));
    }
    (v.get("sessionId").is_some() && v.get("startTime").is_some()).then_some(Line::Header)
}

/// Gemini CLI's user directory: `$GEMINI_CLI_HOME/.gemini`, else `$HOME/.gemini`.
fn user_dir() -> Option<PathBuf> {
    let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
    var("GEMINI_CLI_HOME")
        .or_else(|| var("HOME"))
        .map(|h| PathBuf::from(h).join(".gemini"))
}

/// `model.compressionThreshold` (a fraction in (0, 1]) from the project's settings, else the
/// user's, else the default. Unreadable files and odd values count as unset: a hook never
/// fails over a settings file. (A threshold Gemini CLI fetches from its server is not known
/// here; docs/hooks.md says so.)
pub fn compression_threshold(project: Option<&Path>) -> f64 {
    let files = [
        project.map(|p| p.join(".gemini").join("settings.json")),
        user_dir().map(|d| d.join("settings.json")),
    ];
    files
        .into_iter()
        .flatten()
        .find_map(|f| threshold_in(&f))
        .unwrap_or(DEFAULT_COMPRESSION_THRESHOLD)
}

/// Settings files are small; a huge one is not read.
const SETTINGS_MAX_BYTES: u64 = 1 << 20;

fn threshold_in(file: &Path) -> Option<f64> {
    // Through the read gate: a committed `.gemini/settings.json → /dev/zero` is not a regular
    // file and is never read; nothing larger than the cap is.
    use handover_base::read_gate::{self, Links};
    let text = read_gate::read_to_string(file, Links::Follow, SETTINGS_MAX_BYTES).ok()??;
    let v: Value = serde_json::from_str(&text).ok()?;
    v.pointer("/model/compressionThreshold")
        .and_then(Value::as_f64)
        .filter(|t| *t > 0.0 && *t <= 1.0)
}

/// The compression point as a whole percent of the window.
pub fn compress_percent(threshold: f64) -> u8 {
    (threshold * 100.0).floor().clamp(1.0, 100.0) as u8
}

/// Whether Gemini CLI compresses before its next request: it does when the last prompt's tokens
/// reach `threshold` × the window.
pub fn will_compress(used: u64, window: u64, threshold: f64) -> bool {
    used as f64 >= threshold * window as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(input: u64) -> String {
        format!(
            r#"{{"id":"a","type":"gemini","content":"","tokens":{{"input":{input},"output":10,"cached":0,"thoughts":0,"tool":0,"total":{}}},"model":"gemini-2.5-pro"}}"#,
            input + 10
        )
    }
    const HEADER: &str =
        r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#;
    const SET_MESSAGES: &str =
        r#"{"$set":{"messages":[{"type":"user","content":[{"text":"x"}]}]}}"#;
    const SET_SESSION: &str = r#"{"$set":{"sessionId":"s"}}"#;
    const SET_UPDATED: &str = r#"{"$set":{"lastUpdated":"t"}}"#;

    fn measured(used: u64) -> Option<Fullness> {
        Some(Fullness::Measured(Usage {
            used_tokens: used,
            window: None,
            model: Some("gemini-2.5-pro".into()),
        }))
    }

    #[test]
    fn the_newest_reply_counts() {
        let t = [
            HEADER,
            SET_MESSAGES,
            &reply(5000),
            SET_UPDATED,
            &reply(6000),
            SET_UPDATED,
        ]
        .join("\n");
        assert_eq!(scan(t.as_bytes(), true), measured(6000));
        assert_eq!(scan(b"", true), None);
        assert_eq!(
            scan([HEADER, SET_MESSAGES].join("\n").as_bytes(), true),
            None
        );
    }

    #[test]
    fn a_rewrite_after_the_reply_is_a_compression_but_not_after_a_header() {
        let compressed = [&reply(600_000) as &str, SET_SESSION, SET_MESSAGES].join("\n");
        assert_eq!(
            scan(compressed.as_bytes(), true),
            Some(Fullness::JustCompacted)
        );
        let resumed = [
            &reply(7000) as &str,
            HEADER,
            SET_MESSAGES,
            SET_SESSION,
            SET_MESSAGES,
        ]
        .join("\n");
        assert_eq!(scan(resumed.as_bytes(), true), measured(7000));
        let after = format!("{compressed}\n{}", reply(5000));
        assert_eq!(scan(after.as_bytes(), true), measured(5000));
    }

    #[test]
    fn the_captured_transcript_reads_as_just_compressed_then_the_last_reply() {
        let t = include_str!("../../tests/fixtures/clients/gemini-0.61.0/transcript.jsonl");
        assert_eq!(scan(t.as_bytes(), true), measured(5000));
        // Cut after the compression's rewrite (line 30): compressed, nothing measured since.
        let upto: String = t.lines().take(30).collect::<Vec<_>>().join("\n");
        assert_eq!(scan(upto.as_bytes(), true), Some(Fullness::JustCompacted));
        // Cut after the resumed session's rewrite (line 15): the reply before it still counts.
        let resumed: String = t.lines().take(15).collect::<Vec<_>>().join("\n");
        assert_eq!(scan(resumed.as_bytes(), true), measured(6000));
    }

    #[test]
    fn broken_lines_and_zero_usage_are_skipped() {
        let t = format!(
            "{}\n{{\"type\":\"gemini\",\"tokens\":{{\"input\":0}}}}\nnot json \"tokens\"\n{{\"type\":\"gemini\",\"tok",
            reply(42)
        );
        assert_eq!(scan(t.as_bytes(), true), measured(42));
    }

    #[test]
    fn the_compression_point_in_percent_and_tokens() {
        assert_eq!(compress_percent(0.5), 50);
        assert_eq!(compress_percent(0.999), 99);
        assert!(will_compress(524_288, 1_048_576, 0.5));
        assert!(!will_compress(524_287, 1_048_576, 0.5));
    }

    #[test]
    fn compression_threshold_from_project_settings_else_default() {
        let dir = tempfile::tempdir().unwrap();
        let gem = dir.path().join(".gemini");
        std::fs::create_dir(&gem).unwrap();
        assert!(threshold_in(&gem.join("settings.json")).is_none());
        std::fs::write(
            gem.join("settings.json"),
            r#"{"model": {"compressionThreshold": 0.3}}"#,
        )
        .unwrap();
        assert_eq!(threshold_in(&gem.join("settings.json")), Some(0.3));
        for bad in [
            r#"{"model": {"compressionThreshold": 7}}"#,
            r#"{"model": {"compressionThreshold": "x"}}"#,
            "// c\n{}",
        ] {
            std::fs::write(gem.join("settings.json"), bad).unwrap();
            assert_eq!(threshold_in(&gem.join("settings.json")), None, "{bad}");
        }
    }
}
