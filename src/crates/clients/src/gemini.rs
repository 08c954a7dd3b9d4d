//! Gemini CLI (checked against 0.61.0, see docs/compatibility.md).
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
//! - Events: SessionStart, PreCompress (our PreCompact), BeforeAgent / AfterTool / AfterAgent
//!   (our prompt, tool and stop); no PostCompact. Hook `timeout` in milliseconds. Its terminal
//!   UI shows any Stop block as "This request failed", `systemMessage` or not: the context
//!   watch asks again with the next prompt instead of blocking. It drops a SessionStart's
//!   `additionalContext` after `/clear` and on `--resume`.
//! - Transcript facts: `type` `user` (`content` text items are requests) or `gemini`
//!   (`content` its text, `toolCalls` with `id`, `name`, `args`, `status` and `result`). A
//!   reply is written again when its tool calls complete, so each completed call is applied
//!   once, by its id. `run_shell_command` gives the command (`args.command`) and its end
//!   (`Exit Code: N` in the result when it failed, else the call's `status`); `write_file` and
//!   `replace` name a file (`args.file_path`). `$set` `messages` rewrites repeat history
//!   already read and are skipped.
//! - Hooks in `<repo>/.gemini/settings.json` (no local layer) and `~/.gemini/settings.json`
//!   (`~` is `$GEMINI_CLI_HOME` when set). Folder trust: it runs NO hooks in a folder it does
//!   not trust, recorded in `~/.gemini/trustedFolders.json`.
//! - Instruction file: `context.fileName` (default `GEMINI.md`). No plugin.

use crate::transcript::{at, items_of, relative, request, str_of, Fact, Fullness, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookEvent, HookFiles, HookInput, LineMarks,
    ModelWindow, MovedBy, Quirks, Response, SettingsLayers, ShellName, StartSource, Timeout, Trust,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub static CLIENT: Client = Client {
    agent: Agent::Gemini,
    name: "gemini",
    aliases: &["gemini-cli"],
    display_name: "Gemini CLI",
    executable: "gemini",
    fresh_session: "`/clear` in Gemini CLI",
    // PreCompress is its only compaction event (advisory, and fired before every model
    // request); AfterAgent is its Stop; SessionEnd has Claude Code's name (reason `exit` at
    // `/quit`, Ctrl-C and the end of `-p`, `clear` at `/clear`, in 0.61.0). No PostCompact, no
    // tool failure event.
    events: EventNames::own(&[
        (HookEvent::SessionStart, "SessionStart"),
        (HookEvent::PreCompact, "PreCompress"),
        (HookEvent::SessionEnd, "SessionEnd"),
        (HookEvent::Prompt, "BeforeAgent"),
        (HookEvent::Tool, "AfterTool"),
        (HookEvent::Stop, "AfterAgent"),
    ]),
    timeout: Timeout::every(TIMEOUT_MS),
    // Gemini CLI sets `GEMINI_CLI=1` for the commands it runs; no session id.
    shell_name: Some(ShellName::Is("GEMINI_CLI", "1")),
    shell_session_id_var: None,
    project_dir_var: None,
    quirks: Quirks {
        stop_block_looks_like_failure: true,
        pre_compact_every_request: true,
        ..Quirks::NONE
    },
    // Its terminal UI follows every AfterAgent block (and `continue: false`) with "This
    // request failed. Press F12 for diagnostics…" unless the user set `ui.errorVerbosity` to
    // `full`; a `systemMessage` only changes the warning line above it (0.61.0's
    // `handleAgentExecutionBlockedEvent`). No AfterAgent answer continues the turn without it.
    // Gemini CLI 0.61.0's own table (`tokenLimit` in its core): Gemma 4 models 256,000, every
    // other model 1,048,576; it compresses at a fraction of this.
    model_windows: &[
        ModelWindow {
            prefix: "gemma-4",
            window: 256_000,
            source: "Gemini CLI 0.61.0's own `tokenLimit`",
        },
        ModelWindow {
            prefix: "gemini-",
            window: 1_048_576,
            source: "Gemini CLI 0.61.0's own `tokenLimit`, for every Gemini model",
        },
    ],
    large_variant: None,
    // `~/.gemini/tmp/<project>/chats/session-*.jsonl`.
    transcripts: "tmp",
    transcript_lines: LineMarks::Fields(&[("type", "user"), ("type", "gemini")]),
    transcript_filing: Filing::ByProjectFolder,
    late_end: None,
    transcript_flush_delay: None,
    home: Home {
        dir: ".gemini",
        moved_by: Some(MovedBy::Home(HOME_VAR)),
    },
    hook_files: HookFiles {
        project: ".gemini/settings.json",
        local: None,
        user: "settings.json",
        also_read: &[],
    },
    instruction_file: DEFAULT_CONTEXT_FILE,
    instruction_files_read: &[],
    trust: Trust::Folder,
    plugin_dir: None,
    behaviour: &Gemini,
};

pub struct Gemini;

/// The variable that moves Gemini CLI's home (its user directory is `<it>/.gemini`).
pub const HOME_VAR: &str = "GEMINI_CLI_HOME";

/// The file in a project's `tmp/<slug>/` directory naming the working directory its sessions
/// ran in.
const PROJECT_ROOT_FILE: &str = ".project_root";

/// Gemini CLI's `DEFAULT_COMPRESSION_TOKEN_THRESHOLD`.
pub const DEFAULT_COMPRESSION_THRESHOLD: f64 = 0.5;

/// Our hooks' bound in Gemini CLI's unit: its hook `timeout` is in milliseconds.
pub const TIMEOUT_MS: u64 = TIMEOUT_SECS * 1000;

/// The context file Gemini CLI reads when `context.fileName` is not set.
pub const DEFAULT_CONTEXT_FILE: &str = "GEMINI.md";

/// Events only Gemini CLI sends.
const OWN_EVENTS: [&str; 7] = [
    "BeforeAgent",
    "AfterAgent",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "BeforeModel",
    "AfterModel",
];

impl Behaviour for Gemini {
    fn marks_payload(&self, input: &HookInput) -> bool {
        input
            .hook_event_name
            .as_deref()
            .is_some_and(|e| OWN_EVENTS.contains(&e))
    }

    fn owns_transcript(&self, path: &str) -> bool {
        path.contains("/.gemini/tmp/")
    }

    /// A block's notice goes out as `systemMessage`.
    fn own_output(&self, response: &Response) -> Option<Vec<u8>> {
        Some(crate::output::encode(&CLIENT, response, true))
    }

    /// It compresses when the last prompt's tokens reach its threshold × the window.
    fn compaction_due(&self, used: u64, window: u64, at: SettingsLayers) -> Result<(), String> {
        let threshold = compression_threshold(at);
        if will_compress(used, window, threshold) {
            Ok(())
        } else {
            Err(format!(
                "no compression due: {used} of {window} tokens, compresses at {threshold}"
            ))
        }
    }

    /// Gemini CLI 0.61.0 only shows a `systemMessage` after `/clear`, and an interactive
    /// `--resume` replaces the context with the loaded history. A hook cannot tell an
    /// interactive resume from a headless one, so every resume goes the same way.
    fn drops_session_start_context(&self, source: &StartSource) -> bool {
        matches!(source, StartSource::Clear | StartSource::Resume)
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    fn transcript_fullness(&self, tail: &[u8], at_file_start: bool) -> Option<Fullness> {
        scan(tail, at_file_start)
    }

    fn compaction_percent(&self, at: SettingsLayers, _window: u64) -> Option<u8> {
        Some(compress_percent(compression_threshold(at)))
    }

    /// Gemini CLI 0.61.0 files a session under `tmp/<slug>/chats/`, one slug per working
    /// directory, and writes that directory into `tmp/<slug>/.project_root` (its own check
    /// that a slug is the project's).
    fn is_project_folder(&self, dir: &Path, folder: &str, project: &Path) -> bool {
        use handover_base::read_gate::{self, Links};
        let marker = read_gate::read_to_string(
            &dir.join(folder).join(PROJECT_ROOT_FILE),
            Links::Refuse,
            4096,
        );
        matches!(marker, Ok(Some(root)) if Path::new(root.trim()) == project)
    }
}

/// Where Gemini CLI records folder trust.
pub fn trusted_folders_file(user_dir: &Path) -> PathBuf {
    user_dir.join("trustedFolders.json")
}

/// Looks at the complete lines of `tail` from the last to the first (see transcript::scan for
/// the cut first line). A history rewrite after the newest usage means a compression, unless a
/// header line comes before it (a resumed session: its history is the same as before).
fn scan(tail: &[u8], at_file_start: bool) -> Option<Fullness> {
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

/// `model.compressionThreshold` (a fraction in (0, 1]) from the project's settings, else the
/// user's, else the default. Unreadable files and odd values count as unset: a hook never
/// fails over a settings file. (A threshold Gemini CLI fetches from its server is not known
/// here; docs/hooks.md says so.)
pub fn compression_threshold(at: SettingsLayers) -> f64 {
    crate::settings::fraction(at, ".gemini", "/model/compressionThreshold")
        .unwrap_or(DEFAULT_COMPRESSION_THRESHOLD)
}

/// The compression point as a whole percent of the window.
pub fn compress_percent(threshold: f64) -> u8 {
    crate::whole_percent(threshold, 1.0)
}

/// Whether Gemini CLI compresses before its next request: it does when the last prompt's tokens
/// reach `threshold` × the window.
pub fn will_compress(used: u64, window: u64, threshold: f64) -> bool {
    used as f64 >= threshold * window as f64
}

// ---- Transcript facts ----

fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    // `$set` lines (history rewrites, metadata) and header lines have no `type`.
    match str_of(v, "type") {
        Some("user") => {
            at(v, out);
            for item in items_of(v, "content") {
                if let Some(text) = str_of(item, "text") {
                    user_text(text, out);
                }
            }
            if let Some(text) = str_of(v, "content") {
                user_text(text, out);
            }
        }
        Some("gemini") => {
            at(v, out);
            for call in items_of(v, "toolCalls") {
                tool_call(call, root, out);
            }
            if let Some(text) = str_of(v, "content").filter(|t| !t.trim().is_empty()) {
                out.push(Fact::AgentMessage(text.to_string()));
            }
        }
        _ => {}
    }
}

/// A user text the user typed, not one Gemini CLI or a hook put there.
fn user_text(text: &str, out: &mut Vec<Fact>) {
    const CLIENT_WRAPPERS: [&str; 2] = ["<session_context>", "<hook_context>"];
    if CLIENT_WRAPPERS
        .iter()
        .any(|w| text.trim_start().starts_with(w))
    {
        return;
    }
    request(text, out);
}

/// One completed tool call of a Gemini reply, applied once by its id.
fn tool_call(call: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let status = str_of(call, "status").unwrap_or("");
    let (Some(id), true) = (
        str_of(call, "id"),
        matches!(status, "success" | "error" | "cancelled"),
    ) else {
        // Not finished yet: it is read when the reply is written again.
        return;
    };
    let args = call.get("args").unwrap_or(&Value::Null);
    let fact = match str_of(call, "name").unwrap_or("") {
        "run_shell_command" => {
            let Some(command) = str_of(args, "command") else {
                return;
            };
            // An error or cancellation without a code (a signal, a refusal) stays `unknown`.
            let exit_code = exit_code(call).or((status == "success").then_some(0));
            Fact::CommandRan {
                command: command.to_string(),
                exit_code,
            }
        }
        "write_file" | "replace" => {
            let Some(path) = str_of(args, "file_path") else {
                return;
            };
            Fact::Edited(relative(path, root))
        }
        _ => return,
    };
    out.push(Fact::Once {
        id: id.to_string(),
        fact: Box::new(fact),
    });
}

/// Gemini CLI's shell tool ends a failed command's output with a line `Exit Code: N`.
fn exit_code(call: &Value) -> Option<i64> {
    let outputs = items_of(call, "result")
        .filter_map(|r| r.pointer("/functionResponse/response/output"))
        .filter_map(Value::as_str);
    for output in outputs {
        for line in output.lines() {
            if let Some(code) = line.trim().strip_prefix("Exit Code: ") {
                if let Ok(code) = code.trim().parse::<i64>() {
                    return Some(code);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_belongs_to_the_project_its_slugs_marker_names() {
        let (tmp, chats) = crate::temp_files::temp_folder(".gemini/tmp/project/chats");
        let dir = tmp.path().join(".gemini/tmp");
        let t = chats.join("session-1.jsonl");
        let of = |project: &str| CLIENT.transcript_in_project(&dir, &t, Path::new(project));
        // No marker: no one's.
        assert!(!of("/tmp/FIXTURE/project"));
        std::fs::write(dir.join("project/.project_root"), "/tmp/FIXTURE/project\n").unwrap();
        assert!(of("/tmp/FIXTURE/project"));
        assert!(!of("/tmp/other/project"));
        assert!(!CLIENT.transcript_in_project(
            &dir,
            &dir.join("x.jsonl"),
            Path::new("/tmp/FIXTURE/project")
        ));
    }

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
        crate::transcript::measured(used, None, Some("gemini-2.5-pro"))
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
        let t = include_str!("../../../../tests/fixtures/clients/gemini-0.61.0/transcript.jsonl");
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
        let threshold = || {
            compression_threshold(SettingsLayers {
                project: Some(dir.path()),
                user_dir: None,
            })
        };
        assert_eq!(threshold(), DEFAULT_COMPRESSION_THRESHOLD);
        std::fs::write(
            gem.join("settings.json"),
            r#"{"model": {"compressionThreshold": 0.3}}"#,
        )
        .unwrap();
        assert_eq!(threshold(), 0.3);
        for bad in [
            r#"{"model": {"compressionThreshold": 7}}"#,
            r#"{"model": {"compressionThreshold": "x"}}"#,
            "// c\n{}",
        ] {
            std::fs::write(gem.join("settings.json"), bad).unwrap();
            assert_eq!(threshold(), DEFAULT_COMPRESSION_THRESHOLD, "{bad}");
        }
    }
}
