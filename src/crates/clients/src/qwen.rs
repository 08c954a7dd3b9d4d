//! Qwen Code (checked against 0.24.4, see docs/compatibility.md; fixtures in
//! tests/fixtures/clients/qwen-0.24.4/).
//!
//! - Claude Code's hook format and event names, in `.qwen/settings.json` (project; there is no
//!   local layer) and `~/.qwen/settings.json` (user; `$QWEN_HOME` replaces `~/.qwen`). Every hook
//!   in them runs: no trust step. It never runs the hooks in `.claude/settings.json`. Hook
//!   `timeout` in seconds. On its first run it stamps a settings file that has no
//!   `"$version"` with its own (4): install writes it ([`SETTINGS_VERSION`]).
//! - Events: SessionStart (`startup`, `resume`, `clear`, `compact` — after every compaction, in
//!   the same session), PreCompact / PostCompact (`auto`, `manual`), UserPromptSubmit before
//!   EVERY model request of a turn, PostToolUse (a failing tool fires PostToolUseFailure
//!   instead), Stop (with `context_usage`, `context_limit`, `input_tokens`), SessionEnd only in
//!   the terminal UI (never under `-p`).
//! - Output: `hookSpecificOutput.additionalContext`. SessionStart's goes into the system prompt
//!   as a `<qwen:session-start-context>` block that the next SessionStart's replaces (so the
//!   startup context stays in front of the model for the whole session, and the context of
//!   SessionStart `compact` is in the very first request after a compaction); UserPromptSubmit's
//!   becomes a user text, PostToolUse's is appended to the tool result; `{"decision": "block",
//!   "reason"}` on Stop sends the reason back as a user text. PreCompact: the
//!   `additionalContext` (NOT plain stdout) is appended to the summarizer's instructions, cut at
//!   4,000 characters.
//! - Transcript (`~/.qwen/projects/<cwd with / as ->/chats/<session>.jsonl`): lines of `type`
//!   `user` (`message.parts` texts; `provenance: real_user` for what the user typed),
//!   `assistant` (`message.parts` with `text` and `functionCall {id, name, args}`,
//!   `usageMetadata.promptTokenCount` and `contextWindowSize`), `tool_result`
//!   (`toolCallResult {callId, status}` and the `functionResponse`, whose `output` or `error`
//!   ends a shell command's text with `Exit Code: N`) and `system` (`subtype`
//!   `chat_compression` after a compaction; telemetry and attribution otherwise).
//! - Compacts by itself from `context.autoCompactThreshold` of the window (default 0.85), but
//!   never later than the window minus 33,000 tokens (its summary reserve and buffer).
//! - Instruction files: it reads both `QWEN.md` and `AGENTS.md` by default (`context.fileName`
//!   changes that); ours is `AGENTS.md`, shared with Codex, so an install adds no file of its
//!   own. No plugin.

use crate::transcript::{self, at, request, str_of, Fact, Fullness, Tools, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookEvent, HookFiles, HookInput, LineMarks,
    MovedBy, Quirks, Response, SettingsLayers, ShellName, Timeout, Trust,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::path::Path;

pub static CLIENT: Client = Client {
    agent: Agent::Qwen,
    name: "qwen",
    aliases: &["qwen-code"],
    display_name: "Qwen Code",
    executable: "qwen",
    fresh_session: "`/clear` in Qwen Code",
    // Claude Code's names for every moment, and PostToolUseFailure: a failing tool fires it
    // INSTEAD of PostToolUse, before the failure is in the transcript (written through a queue).
    events: EventNames::common_without(&[]),
    // Seconds (Qwen Code reads 1,000 and more as legacy milliseconds; ours is far below).
    timeout: Timeout::every(TIMEOUT_SECS),
    // Qwen Code 0.24.4 sets `QWEN_CODE=1` and `QWEN_CODE_SESSION_ID` (the hooks'
    // `session_id`) for its shell commands.
    shell_name: Some(ShellName::Is("QWEN_CODE", "1")),
    shell_session_id_var: Some("QWEN_CODE_SESSION_ID"),
    project_dir_var: None,
    quirks: Quirks {
        pre_compact_reads_stdout: true,
        ..Quirks::NONE
    },
    // Its PreCompact appends the hook's context to the summarizer's instructions.
    model_windows: &[],
    large_variant: None,
    // `~/.qwen/projects/<cwd>/chats/<session>.jsonl`.
    transcripts: "projects",
    transcript_lines: LineMarks::Fields(&[
        ("type", "user"),
        ("type", "assistant"),
        ("type", "tool_result"),
        ("subtype", "chat_compression"),
    ]),
    transcript_filing: Filing::ByProjectFolder,
    late_end: None,
    transcript_flush_delay: None,
    home: Home {
        dir: ".qwen",
        moved_by: Some(MovedBy::Dir(HOME_VAR)),
    },
    hook_files: HookFiles {
        project: ".qwen/settings.json",
        local: None,
        user: "settings.json",
        also_read: &[],
    },
    instruction_file: INSTRUCTION_FILE,
    instruction_files_read: &[],
    trust: Trust::RunsAll,
    plugin_dir: None,
    behaviour: &Qwen,
};

pub struct Qwen;

/// The variable that replaces Qwen Code's user directory (`~/.qwen`) as a whole.
pub const HOME_VAR: &str = "QWEN_HOME";

/// Qwen Code's default `context.autoCompactThreshold`.
pub const DEFAULT_AUTO_COMPACT_THRESHOLD: f64 = 0.85;

/// What Qwen Code keeps free below the window whatever the threshold: the summary's reserve
/// (20,000) and its auto-compaction buffer (13,000).
pub const WINDOW_RESERVE: u64 = 33_000;

/// The settings version Qwen Code 0.24.4 writes into a settings file that has none
/// (`SETTINGS_VERSION`, key `$version`): on its first run it adds `"$version": 4` to the
/// project's `.qwen/settings.json`, so an install that leaves it out sees its committed file
/// changed by the client. The installer writes it itself (installer/src/wiring/qwen.rs).
pub const SETTINGS_VERSION_KEY: &str = "$version";
pub const SETTINGS_VERSION: u64 = 4;

/// The instruction file ours goes in: Qwen Code 0.24.4 reads `QWEN.md` and `AGENTS.md` by
/// default (its `memory-constants`), and `AGENTS.md` is the one Codex reads too.
pub const INSTRUCTION_FILE: &str = "AGENTS.md";

impl Behaviour for Qwen {
    // Its payloads are Claude Code's (no mark of its own): only the transcript's place tells
    // them apart.
    /// `~/.qwen/projects/<project>/chats/<id>.jsonl` (or the same under `$QWEN_HOME`).
    fn owns_transcript(&self, path: &str) -> bool {
        path.contains("/.qwen/projects/")
            || (path.contains("/projects/") && path.contains("/chats/"))
    }

    /// PreCompact's text goes out as `additionalContext`: Qwen Code ignores plain stdout there.
    fn own_output(&self, response: &Response) -> Option<Vec<u8>> {
        let Response::Plain(text) = response else {
            return None;
        };
        Some(crate::output::encode(
            &CLIENT,
            &Response::Context {
                event: HookEvent::PreCompact,
                text: text.clone(),
            },
            false,
        ))
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    fn fullness_of_line(&self, line: &[u8]) -> Option<Fullness> {
        fullness_of_line(line)
    }

    /// PostToolUseFailure of the shell tool: the command and the `Exit Code: N` of its error
    /// text, under the call's id, so the transcript's own line for it (read later) does not
    /// count it twice ([`transcript::command_end_id`]).
    fn failed_command(&self, input: &HookInput) -> Option<Fact> {
        transcript::failed_shell_command(input, TOOLS.shell, exit_code_of)
    }

    fn compaction_percent(&self, at: SettingsLayers, window: u64) -> Option<u8> {
        Some(compaction_point_percent(auto_compact_threshold(at), window))
    }

    /// Qwen Code 0.24.4 names the folder after the session's working directory, every
    /// character but an ASCII letter or digit made `-` (its `sanitizeCwd`).
    fn is_project_folder(&self, _dir: &Path, folder: &str, project: &Path) -> bool {
        Some(folder) == crate::places::dashed(project).as_deref()
    }
}

// ---- Compaction point ----

/// `context.autoCompactThreshold` (a fraction in (0, 1]) from the project's settings, else the
/// user's, else the default. Unreadable files and odd values count as unset: a hook never fails
/// over a settings file.
pub fn auto_compact_threshold(at: SettingsLayers) -> f64 {
    crate::settings::fraction(at, ".qwen", "/context/autoCompactThreshold")
        .unwrap_or(DEFAULT_AUTO_COMPACT_THRESHOLD)
}

/// Where Qwen Code compacts, as a whole percent of `window`: `threshold` × the window, but never
/// above the window less [`WINDOW_RESERVE`] (on a small window that comes first).
pub fn compaction_point_percent(threshold: f64, window: u64) -> u8 {
    let proportional = threshold * window as f64;
    let ceiling = window.saturating_sub(WINDOW_RESERVE) as f64;
    let point = if ceiling > 0.0 {
        proportional.min(ceiling)
    } else {
        proportional
    };
    if window == 0 {
        return crate::whole_percent(threshold, 1.0);
    }
    crate::whole_percent(point, window as f64)
}

// ---- Transcript: the context watch ----

/// An assistant line's usage (with the window Qwen Code states beside it), or a compaction.
/// Cheap substring checks first: prompts, tool output and telemetry are never parsed.
fn fullness_of_line(line: &[u8]) -> Option<Fullness> {
    let v = transcript::parse_marked(line, &["\"usageMetadata\"", "chat_compression"])?;
    match str_of(&v, "type")? {
        "assistant" => {
            let used = v
                .pointer("/usageMetadata/promptTokenCount")
                .and_then(Value::as_u64)
                .filter(|n| *n > 0)?;
            Some(Fullness::Measured(Usage {
                used_tokens: used,
                window: v
                    .get("contextWindowSize")
                    .and_then(Value::as_u64)
                    .filter(|w| *w > 0),
                model: str_of(&v, "model").map(str::to_string),
            }))
        }
        "system" if str_of(&v, "subtype") == Some("chat_compression") => {
            Some(Fullness::JustCompacted)
        }
        _ => None,
    }
}

// ---- Transcript: the session record ----

fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let parts = v
        .pointer("/message/parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    match str_of(v, "type") {
        Some("user") => {
            // What the user typed; a Stop block's reason or a hook's text comes back otherwise.
            if str_of(v, "provenance").is_some_and(|p| p != "real_user") {
                return;
            }
            at(v, out);
            for text in parts.iter().filter_map(|p| str_of(p, "text")) {
                user_text(text, out);
            }
        }
        Some("assistant") => {
            at(v, out);
            let mut last_text = None;
            for part in parts {
                if let Some(call) = part.get("functionCall") {
                    TOOLS.call(
                        str_of(call, "name").unwrap_or(""),
                        str_of(call, "id"),
                        call.get("args").unwrap_or(&Value::Null),
                        root,
                        out,
                    );
                } else if part.get("thought").and_then(Value::as_bool) != Some(true) {
                    if let Some(t) = str_of(part, "text").filter(|t| !t.trim().is_empty()) {
                        last_text = Some(t);
                    }
                }
            }
            if let Some(t) = last_text {
                out.push(Fact::AgentMessage(t.to_string()));
            }
        }
        Some("tool_result") => {
            at(v, out);
            for response in parts.iter().filter_map(|p| p.get("functionResponse")) {
                shell_result(v, response, out);
            }
        }
        Some("system") if str_of(v, "subtype") == Some("chat_compression") => {
            at(v, out);
            out.push(Fact::Compacted);
        }
        _ => {}
    }
}

/// A user text the user typed, not one Qwen Code wrapped around a hook's context.
fn user_text(text: &str, out: &mut Vec<Fact>) {
    if text.trim_start().starts_with("<qwen:") {
        return;
    }
    request(text, out);
}

/// An edit tool names its file; the shell tool its command (its end comes in a `tool_result`).
const TOOLS: Tools = Tools {
    edits: &[
        ("write_file", "file_path"),
        ("edit", "file_path"),
        ("notebook_edit", "notebook_path"),
    ],
    shell: "run_shell_command",
};

/// The end of a shell command: the line's `toolCallResult.status`, and the `Exit Code: N` its
/// output (or error) text ends with.
fn shell_result(line: &Value, response: &Value, out: &mut Vec<Fact>) {
    if str_of(response, "name") != Some(TOOLS.shell) {
        return;
    }
    let Some(id) =
        str_of(response, "id").or_else(|| line.pointer("/toolCallResult/callId")?.as_str())
    else {
        return;
    };
    let status = line
        .pointer("/toolCallResult/status")
        .and_then(Value::as_str);
    let text = ["/response/error", "/response/output"]
        .into_iter()
        .find_map(|p| response.pointer(p).and_then(Value::as_str))
        .unwrap_or("");
    let failed = status == Some("error") || response.pointer("/response/error").is_some();
    let exit_code = exit_code_of(text).or((!failed).then_some(0));
    out.push(Fact::call_end(
        id,
        Fact::CommandResult {
            id: id.to_string(),
            failed,
            exit_code,
        },
    ));
}

/// Qwen Code's shell tool reports `Exit Code: N` on a line of its own.
fn exit_code_of(text: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Exit Code: "))
        .and_then(|c| c.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scope, UserDirs};
    use std::path::PathBuf;

    static CAPTURED: crate::Captured = crate::Captured(&CLIENT, "qwen-0.24.4");

    #[test]
    fn the_record_reads_edits_shell_commands_and_their_ends() {
        let facts = CAPTURED.facts("transcript-tools.jsonl");
        // Each call's end recorded once: PostToolUseFailure may bring it first.
        assert_eq!(
            crate::without_times(&facts),
            crate::tools_session(["call_fake_3", "call_fake_4"], crate::ended_once)
        );
        assert!(matches!(facts.first(), Some(Fact::At(t)) if t.starts_with("2026-11-25T")));
    }

    /// PostToolUseFailure brings the failing command before the transcript does; its end is
    /// recorded once, whichever comes first.
    #[test]
    fn a_failing_shell_call_from_its_hook_and_from_the_transcript_counts_once() {
        let input = HookInput::parse(&CAPTURED.bytes("post_tool_use_failure.json"));
        assert_eq!(
            crate::qwen::CLIENT.hook_event(input.hook_event_name.as_deref().unwrap_or("")),
            Some(HookEvent::ToolFailure)
        );
        let from_hook = Qwen.failed_command(&input);
        assert_eq!(
            from_hook,
            Some(Fact::Once {
                id: "end:call_fake_4".into(),
                fact: Box::new(Fact::CommandRan {
                    command: "sh run_tests.sh".into(),
                    exit_code: Some(1)
                })
            })
        );
        let from_transcript = CAPTURED.facts("transcript-tools.jsonl");
        assert!(from_transcript
            .iter()
            .any(|f| matches!(f, Fact::Once { id, .. } if id == "end:call_fake_4")));
        // Another tool's failure is not a command.
        let mut edit = input.clone();
        edit.tool_name = Some("edit".into());
        assert_eq!(Qwen.failed_command(&edit), None);
        assert_eq!(crate::claude::Claude.failed_command(&input), None);
    }

    #[test]
    fn a_compaction_is_a_fact_and_resets_the_context_watch() {
        let facts = CAPTURED.facts("transcript.jsonl");
        assert_eq!(facts.iter().filter(|f| **f == Fact::Compacted).count(), 1);
        let requests: Vec<&Fact> = facts
            .iter()
            .filter(|f| matches!(f, Fact::Request(_)))
            .collect();
        assert_eq!(
            requests,
            [
                &Fact::Request("run the greeting command".into()),
                &Fact::Request("anything left?".into()),
                &Fact::Request("one more big step".into()),
            ]
        );

        // The whole transcript ends after the compaction with a 5,000-token answer.
        let whole = CAPTURED.bytes("transcript.jsonl");
        assert_eq!(
            Qwen.transcript_fullness(&whole, true),
            crate::transcript::measured(5_000, Some(1_000_000), Some("qwen3-coder-plus"))
        );
        // Cut right after the compaction line: just compacted.
        let text = String::from_utf8_lossy(&whole).into_owned();
        let end = text
            .find("chat_compression")
            .and_then(|i| text[i..].find('\n').map(|j| i + j + 1))
            .unwrap_or(text.len());
        assert_eq!(
            Qwen.transcript_fullness(&text.as_bytes()[..end], true),
            Some(Fullness::JustCompacted)
        );
        // Cut just before it: the 900,000-token answer that caused it.
        let before = text[..end].rfind("{\"uuid\"").unwrap_or(0);
        assert!(matches!(
            Qwen.transcript_fullness(&text.as_bytes()[..before], true),
            Some(Fullness::Measured(Usage {
                used_tokens: 900_000,
                ..
            }))
        ));
    }

    #[test]
    fn the_compaction_point_follows_the_settings_and_the_reserve() {
        assert_eq!(compaction_point_percent(0.85, 1_000_000), 85);
        // 128,000 tokens: 85 % would leave less than the 33,000 reserve: 95,000 is 74 %.
        assert_eq!(compaction_point_percent(0.85, 128_000), 74);
        assert_eq!(compaction_point_percent(0.5, 1_000_000), 50);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = dir.path().join("repo");
        let user = dir.path().join("home/.qwen");
        std::fs::create_dir_all(project.join(".qwen")).unwrap_or_default();
        std::fs::create_dir_all(&user).unwrap_or_default();
        let at = crate::layers(&project, &user);
        assert_eq!(auto_compact_threshold(at), DEFAULT_AUTO_COMPACT_THRESHOLD);
        assert_eq!(Qwen.compaction_percent(at, 1_000_000), Some(85));
        // Each step writes one layer's setting: the project's wins; a value out of range counts
        // as unset.
        for (file, threshold, want, percent) in [
            (user.join("settings.json"), "0.6", 0.6, 60),
            (project.join(".qwen/settings.json"), "0.7", 0.7, 70),
            (project.join(".qwen/settings.json"), "7", 0.6, 60),
        ] {
            let text = format!(r#"{{"context": {{"autoCompactThreshold": {threshold}}}}}"#);
            std::fs::write(&file, text).unwrap_or_default();
            assert_eq!(auto_compact_threshold(at), want, "{threshold}");
            let got = Qwen.compaction_percent(at, 1_000_000);
            assert_eq!(got, Some(percent), "{threshold}");
        }
    }

    #[test]
    fn captured_payloads_are_recognised_by_their_transcript() {
        for name in [
            "session_start-startup.json",
            "session_start-compact.json",
            "stop.json",
            "pre_compact-auto.json",
            "user_prompt_submit.json",
        ] {
            let input = HookInput::parse(&CAPTURED.bytes(name));
            let path = input.transcript_path.clone().unwrap_or_default();
            assert!(Qwen.owns_transcript(&path), "{name}: {path}");
            assert_eq!(crate::detect(&input), Agent::Qwen, "{name}");
        }
        assert!(!Qwen.owns_transcript("/home/u/.claude/projects/-r/s.jsonl"));
        assert!(!Qwen.owns_transcript("/home/u/.gemini/tmp/r/chats/session-1.jsonl"));
    }

    #[test]
    fn its_instruction_file_is_the_one_codex_reads() {
        // The installer writes one AGENTS.md section for both (installer/src/edit/instructions.rs).
        assert_eq!(
            crate::qwen::CLIENT.instruction_file,
            crate::codex::CLIENT.instruction_file
        );
    }

    #[test]
    fn homes_and_hook_files() {
        let dirs = UserDirs::under(Path::new("/h"));
        assert_eq!(
            crate::qwen::CLIENT.user_dir(&dirs),
            Some(PathBuf::from("/h/.qwen"))
        );
        let moved = UserDirs::from_lookup(|n| match n {
            "HOME" => Some("/h".into()),
            HOME_VAR => Some("/q".into()),
            _ => None,
        });
        assert_eq!(
            crate::qwen::CLIENT.user_dir(&moved),
            Some(PathBuf::from("/q"))
        );
        let repo = Path::new("/r");
        assert_eq!(
            crate::qwen::CLIENT.hooks_file(Scope::Local, repo, Path::new("/h/.qwen")),
            PathBuf::from("/r/.qwen/settings.json")
        );
        assert_eq!(
            crate::qwen::CLIENT.hooks_file(Scope::User, repo, Path::new("/h/.qwen")),
            PathBuf::from("/h/.qwen/settings.json")
        );
    }
}
