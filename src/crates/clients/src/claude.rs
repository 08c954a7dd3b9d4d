//! Claude Code (checked against 2.1.332; its payloads were captured from 2.1.330, see
//! docs/compatibility.md).
//!
//! - Events: SessionStart (`startup`, `resume`, `clear`, `compact`), PreCompact, PostCompact,
//!   SessionEnd, UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop. Hook `timeout` in
//!   seconds.
//! - Output: `hookSpecificOutput.additionalContext` on SessionStart, UserPromptSubmit and
//!   PostToolUse; `{"decision": "block", "reason"}` on Stop; PreCompact's plain stdout is
//!   appended to the summarizer's instructions.
//! - Transcript (`~/.claude/projects/<cwd>/<session>.jsonl`, one JSON line per message):
//!   user lines carry the requests (`message.content` as a string or `text` items) and the
//!   tool results (`tool_result` items with `tool_use_id` and `is_error`); assistant lines
//!   carry text, `tool_use` items (`Write`, `Edit`, `MultiEdit`, `NotebookEdit` with
//!   `file_path`/`notebook_path`; `Bash` with `command`) and the request's `message.usage`
//!   (input + cache creation + cache read tokens fill the context). A `system` line of subtype
//!   `compact_boundary` (and the `isCompactSummary` user line after it) marks a compaction.
//!   Sidechains (subagents), meta lines and `<synthetic>` notices are not the session's own.
//!   Claude Code 2.1.330 appends a turn's lines 10-50 ms AFTER it starts that turn's hooks: at
//!   PostToolUse or Stop the newest usage on disk may be the previous response's.
//! - Compacts at about 95 % of the window: nothing to move the reminders below.
//! - Settings layers `.claude/settings.json` (project), `.claude/settings.local.json` (local,
//!   private), `~/.claude/settings.json` (user); every hook in them runs, no trust step.
//! - Instruction file `CLAUDE.md`; plugin in `plugin/claude` (`$CLAUDE_PLUGIN_ROOT`).

use crate::transcript::{self, at, flag, str_of, Fact, Fullness, Tools, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookFiles, HookInput, LargeVariant,
    LineMarks, ModelWindow, MovedBy, Quirks, ShellName, Timeout, Trust,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::path::Path;

pub static CLIENT: Client = Client {
    agent: Agent::Claude,
    name: "claude",
    aliases: &["claude-code"],
    display_name: "Claude Code",
    executable: "claude",
    fresh_session: "`/clear` in Claude Code",
    // The common names, PostToolUseFailure too (2.1.330 runs it under `-p`, captured): a
    // failing command reaches the record from the hook input, before the transcript's line for
    // it, which Claude Code may write after the turn's Stop.
    events: EventNames::common_without(&[]),
    timeout: Timeout::every(TIMEOUT_SECS),
    // Claude Code sets `CLAUDECODE=1` and `CLAUDE_CODE_SESSION_ID` for the commands it runs
    // (read from the 2.1.330 binary); any value of `CLAUDECODE` counts.
    shell_name: Some(ShellName::Set("CLAUDECODE")),
    shell_session_id_var: Some("CLAUDE_CODE_SESSION_ID"),
    project_dir_var: Some("CLAUDE_PROJECT_DIR"),
    quirks: Quirks {
        pre_compact_reads_stdout: true,
        dedups_identical_commands: true,
        ..Quirks::NONE
    },
    model_windows: &[
        // Claude Code 2.1.330 reports a 1,000,000-token window for its default model,
        // `claude-opus-5-5` (the `modelUsage` of `claude -p --output-format json`).
        ModelWindow {
            prefix: "claude-opus-5",
            window: 1_000_000,
            source: "Claude Code 2.1.330 reports it for its default model `claude-opus-5-5`",
        },
        ModelWindow {
            prefix: "claude-",
            window: 200_000,
            source: "",
        },
    ],
    // Claude Code marks its 1M-token variants with a `[1m]` suffix on the model name.
    large_variant: Some(LargeVariant {
        suffix: "[1m]",
        window: 1_000_000,
    }),
    // `~/.claude/projects/<project folder>/<session>.jsonl`.
    transcripts: "projects",
    transcript_lines: LineMarks::Fields(&[
        ("type", "user"),
        ("type", "assistant"),
        ("subtype", "compact_boundary"),
    ]),
    transcript_filing: Filing::ByProjectFolder,
    late_end: None,
    transcript_flush_delay: None,
    // `$CLAUDE_CONFIG_DIR` when it is an absolute path, else `~/.claude`. Claude Code takes a
    // relative value from its own working directory, which is not ours to guess.
    home: Home {
        dir: ".claude",
        moved_by: Some(MovedBy::AbsoluteDir(HOME_VAR)),
    },
    hook_files: HookFiles {
        project: ".claude/settings.json",
        local: Some(".claude/settings.local.json"),
        user: "settings.json",
        also_read: &[],
    },
    instruction_file: "CLAUDE.md",
    instruction_files_read: &[],
    trust: Trust::RunsAll,
    plugin_dir: Some("plugin/claude"),
    behaviour: &Claude,
};

pub struct Claude;

/// Moves Claude Code's user directory (settings, transcripts) away from `~/.claude`.
pub const HOME_VAR: &str = "CLAUDE_CONFIG_DIR";

/// Claude Code 2.1.330 cuts a project's folder name at this many characters and appends a
/// hash of the whole path.
const FOLDER_NAME_MAX: usize = 200;

/// Whether `folder` is the one Claude Code 2.1.330 files the sessions started in `project`
/// under: the path with every character but an ASCII letter or digit made `-`; a name longer
/// than [`FOLDER_NAME_MAX`] is cut there and gets `-` and a base-36 hash of the path, which is
/// matched by its form only (the hash is Claude Code's own).
fn project_folder_matches(folder: &str, project: &Path) -> bool {
    let Some(name) = crate::places::dashed(project) else {
        return false;
    };
    if name.len() <= FOLDER_NAME_MAX {
        return folder == name;
    }
    folder
        .strip_prefix(&name[..FOLDER_NAME_MAX])
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|hash| {
            !hash.is_empty()
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        })
}

impl Behaviour for Claude {
    /// PostToolUseFailure of `Bash`: the command and the "Exit code N" its error text starts
    /// with, under the call's id (`tool_use_id`), so the transcript's own line for it counts once.
    fn failed_command(&self, input: &HookInput) -> Option<Fact> {
        transcript::failed_shell_command(input, TOOLS.shell, exit_code_of)
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    fn fullness_of_line(&self, line: &[u8]) -> Option<Fullness> {
        fullness_of_line(line)
    }

    /// The folder is named after the session's working directory (`project_folder_matches`).
    fn is_project_folder(&self, _dir: &Path, folder: &str, project: &Path) -> bool {
        project_folder_matches(folder, project)
    }
}

/// The facts of one parsed transcript line.
fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    if flag(v, "isSidechain") || flag(v, "isMeta") || flag(v, "isCompactSummary") {
        return;
    }
    let kind = str_of(v, "type").unwrap_or("");
    if !matches!(kind, "user" | "assistant" | "system") {
        return;
    }
    if kind == "system" {
        if str_of(v, "subtype") == Some("compact_boundary") {
            at(v, out);
            out.push(Fact::Compacted);
        }
        return;
    }
    let Some(message) = v.get("message") else {
        return;
    };
    if kind == "assistant" && str_of(message, "model") == Some("<synthetic>") {
        return;
    }
    at(v, out);
    let content = message.get("content");
    if kind == "user" {
        transcript::user_content(content, out, |id, failed, item| {
            // Once per call: PostToolUseFailure may have brought this end first.
            let exit_code = if failed {
                exit_code_of(&result_text(item))
            } else {
                Some(0)
            };
            Fact::call_end(
                id,
                Fact::CommandResult {
                    id: id.to_string(),
                    failed,
                    exit_code,
                },
            )
        });
    } else {
        transcript::assistant_content(content, &TOOLS, root, out);
    }
}

/// An edit tool names its file; `Bash` its command (its result comes in a later user line).
const TOOLS: Tools = Tools {
    edits: &[
        ("Write", "file_path"),
        ("Edit", "file_path"),
        ("MultiEdit", "file_path"),
        ("NotebookEdit", "notebook_path"),
    ],
    shell: "Bash",
};

/// The text of a tool result: a string, or the `text` of its items.
fn result_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::String(s)) => s.chars().take(200).collect(),
        Some(Value::Array(parts)) => parts
            .iter()
            .find_map(|p| str_of(p, "text"))
            .unwrap_or("")
            .chars()
            .take(200)
            .collect(),
        _ => String::new(),
    }
}

/// Claude Code starts a failed command's result with `Exit code N`.
fn exit_code_of(text: &str) -> Option<i64> {
    transcript::leading_number(text.trim_start().strip_prefix("Exit code ")?)
}

/// The meaning of one line for the context watch, if it is a usage record or a compaction
/// marker. Cheap substring checks first: most lines are neither and are never parsed.
fn fullness_of_line(line: &[u8]) -> Option<Fullness> {
    let v = transcript::parse_marked(line, &["\"usage\"", "compact", "isCompactSummary"])?;
    match str_of(&v, "type").unwrap_or("") {
        "assistant" => usage(&v).map(Fullness::Measured),
        "system" if str_of(&v, "subtype") == Some("compact_boundary") => {
            Some(Fullness::JustCompacted)
        }
        "user" if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) => {
            Some(Fullness::JustCompacted)
        }
        _ => None,
    }
}

fn usage(v: &Value) -> Option<Usage> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HookEvent, UserDirs};
    use std::path::PathBuf;

    #[test]
    fn claude_config_dir_moves_the_user_directory_when_absolute() {
        let home = UserDirs::under(Path::new("/h"));
        assert_eq!(
            crate::claude::CLIENT.user_dir(&home),
            Some(PathBuf::from("/h/.claude"))
        );
        let moved = home
            .clone()
            .with_var(HOME_VAR, Path::new("/elsewhere/claude"));
        assert_eq!(
            crate::claude::CLIENT.user_dir(&moved),
            Some(PathBuf::from("/elsewhere/claude"))
        );
        assert_eq!(
            crate::claude::CLIENT.transcript_dir(&moved),
            Some(PathBuf::from("/elsewhere/claude/projects"))
        );
        let relative = home.with_var(HOME_VAR, Path::new("claude"));
        assert_eq!(
            crate::claude::CLIENT.user_dir(&relative),
            Some(PathBuf::from("/h/.claude"))
        );
    }

    /// A path longer than Claude Code's folder names: cut, then its hash.
    #[test]
    fn a_long_projects_folder_is_cut_and_hashed() {
        let dir = Path::new("/tmp/FIXTURE/home/.claude/projects");
        let long = format!("/{}", "a".repeat(250));
        let cut = format!("-{}", "a".repeat(FOLDER_NAME_MAX - 1));
        for (folder, want) in [
            (format!("{cut}-1x9z"), true),
            (format!("{cut}-"), false),
            (format!("{cut}-AB"), false),
            (format!("{cut}a-1x9z"), false),
        ] {
            let t = dir.join(&folder).join("s.jsonl");
            assert_eq!(
                CLIENT.transcript_in_project(dir, &t, Path::new(&long)),
                want,
                "{folder}"
            );
        }
    }

    fn assistant(input: u64, cache_read: u64, sidechain: bool) -> String {
        format!(
            r#"{{"type":"assistant","isSidechain":{sidechain},"message":{{"model":"claude-sonnet-4-5","usage":{{"input_tokens":{input},"cache_creation_input_tokens":10,"cache_read_input_tokens":{cache_read},"output_tokens":99}}}}}}"#
        )
    }

    fn measured(used: u64) -> Option<Fullness> {
        crate::transcript::measured(used, None, Some("claude-sonnet-4-5"))
    }

    #[test]
    fn the_last_main_chain_assistant_wins() {
        let t = [
            assistant(100, 1000, false),
            r#"{"type":"user","message":{"content":"hi"}}"#.to_string(),
            assistant(5, 50_000, false),
            assistant(9, 900_000, true),
            r#"{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":0}}}"#
                .to_string(),
        ]
        .join("\n");
        assert_eq!(
            Claude.transcript_fullness(t.as_bytes(), true),
            measured(50_015)
        );
    }

    #[test]
    fn a_boundary_after_the_usage_means_just_compacted() {
        let t = [
            assistant(100, 150_000, false),
            r#"{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}"#
                .to_string(),
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}"#
                .to_string(),
        ]
        .join("\n");
        assert_eq!(
            Claude.transcript_fullness(t.as_bytes(), true),
            Some(Fullness::JustCompacted)
        );
        let after = format!("{t}\n{}\n", assistant(100, 2000, false));
        assert_eq!(
            Claude.transcript_fullness(after.as_bytes(), true),
            measured(2110)
        );
    }

    #[test]
    fn partial_and_garbage_lines_are_skipped() {
        let t = format!(
            "{}\nnot json at all \"usage\"\n{{\"type\":\"assistant\",\"message\":{{\"usage\":{{\"input_tok",
            assistant(1, 2, false)
        );
        assert_eq!(Claude.transcript_fullness(t.as_bytes(), true), measured(13));
        let mut out = Vec::new();
        CLIENT.transcript_facts(
            b"{\"type\":\"user\",\"message\":{\"content\":\"cut",
            None,
            &mut out,
        );
        CLIENT.transcript_facts(&[0xff, b'"', b't', b'y'], None, &mut out);
        assert!(out.is_empty());
        assert_eq!(Claude.transcript_fullness(b"", true), None);
    }

    #[test]
    fn requests_edits_and_failed_commands() {
        let mut out = Vec::new();
        let lines = [
            r#"{"type":"user","timestamp":"T1","message":{"content":"fix it"}}"#,
            r#"{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}"#,
            r#"{"type":"assistant","timestamp":"T2","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"cargo test"}},{"type":"tool_use","id":"e1","name":"Edit","input":{"file_path":"/r/src/a.rs"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b1","is_error":true,"content":"Exit code 101\nfailed"}]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"x","name":"Write","input":{"file_path":"/r/side.rs"}}]}}"#,
        ];
        for l in lines {
            CLIENT.transcript_facts(l.as_bytes(), Some(Path::new("/r")), &mut out);
        }
        assert_eq!(
            out,
            vec![
                Fact::At("T1".into()),
                Fact::Request("fix it".into()),
                Fact::At("T2".into()),
                crate::called("b1", "cargo test"),
                Fact::Edited("src/a.rs".into()),
                Fact::AgentMessage("ok".into()),
                crate::ended_once("b1", true, Some(101)),
            ]
        );
        assert_eq!(exit_code_of("Permission denied"), None);
    }

    /// Captured from 2.1.330 under `-p` (a failing `sh run_tests.sh`).
    #[test]
    fn a_failing_bash_call_from_its_hook_is_the_command_and_its_exit_code_once() {
        let raw = include_bytes!(
            "../../../../tests/fixtures/clients/claude-2.1.330/post_tool_use_failure.json"
        );
        let input = HookInput::parse(raw);
        assert_eq!(
            crate::claude::CLIENT.hook_event(input.hook_event_name.as_deref().unwrap_or("")),
            Some(HookEvent::ToolFailure)
        );
        assert_eq!(
            Claude.failed_command(&input),
            Some(Fact::Once {
                id: "end:toolu_fake_4".into(),
                fact: Box::new(Fact::CommandRan {
                    command: "sh run_tests.sh".into(),
                    exit_code: Some(1)
                })
            })
        );
        // Another tool's failure is not a command.
        let mut v: serde_json::Value = serde_json::from_slice(raw).unwrap();
        v["tool_name"] = "Read".into();
        assert_eq!(Claude.failed_command(&HookInput::from_value(&v)), None);
    }
}
