//! OpenCode (checked against 1.18.33, see docs/compatibility.md; fixtures in
//! tests/fixtures/clients/opencode-1.18.33/).
//!
//! - No hook files: OpenCode runs JavaScript plugins, every module in `.opencode/plugin/` of the
//!   project and in `~/.config/opencode/plugin/` of the user. Ours is one small plain-JS module
//!   with no imports ([`PLUGIN_FILE`], written by the installer from `plugin_template.js`
//!   beside this file) that carries our hook entries in the shared `hooks` shape and runs the
//!   hook executables from OpenCode's plugin hooks. It only gates and passes payloads; every
//!   decision stays in the executables. Every plugin in those folders runs: no trust step.
//! - Its moments, as the plugin names them with Claude Code's event names: SessionStart on the
//!   session's first request of the agent (`experimental.chat.system.transform`; not the
//!   title generator's or the summarizer's requests, which run the same transform), PreCompact
//!   in `experimental.session.compacting` (its text joins the summarizer's instructions),
//!   PostCompact on the first agent request after `session.compacted`, UserPromptSubmit on
//!   `chat.message`, PostToolUse on `tool.execute.after`, Stop on `session.idle`, SessionEnd on
//!   `session.deleted` and when OpenCode disposes the plugin at exit. No tool-failure event.
//! - Output: the executables print plain text ([`Behaviour::own_output`]); the plugin keeps each
//!   session's texts and adds them to the system prompt of every later agent request (a
//!   transform's change is not stored in the session), until a compaction empties the list.
//!   Nothing blocks: a Stop's text is sent with the next request.
//! - Transcript: OpenCode keeps its sessions in a database; the plugin writes the payloads the
//!   record and the context watch need to `~/.config/opencode/handover-sessions/<session>.jsonl`
//!   ([`CLIENT`]'s `transcripts`), one line each: `session` (the directory), `user` (a prompt's
//!   text), `tool` (`tool`, `callID`, `args`, the shell's `exit`), `usage` (an agent reply's
//!   `tokens` and the model's `limit`), `text` (the agent's text), `compacted`. Each line has
//!   `timestamp`.
//! - Compacts by itself when a reply's tokens reach the model's usable input: `limit.input`
//!   less `compaction.reserved` (default: the smaller of 20,000 and the output limit), else
//!   `limit.context` less the output limit (capped at 32,000), unless `compaction.auto` is false
//!   ([`usable_tokens`]). The usage line's window is that point: our reminders come below it.
//! - Instruction file: `AGENTS.md`. Shell commands: the plugin sets [`SESSION_VAR`] for them
//!   (`shell.env`).

use crate::transcript::{self, at, relative, request, str_of, Fact, Fullness, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookEvent, HookFiles, LineMarks, Quirks,
    Response, ShellName, Timeout, Trust,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::path::Path;

pub static CLIENT: Client = Client {
    agent: Agent::OpenCode,
    name: "opencode",
    aliases: &["opencode-ai", "open-code"],
    display_name: "OpenCode",
    executable: "opencode",
    fresh_session: "`/new` in OpenCode",
    // The plugin fires every moment but a tool failure (a failing tool is a PostToolUse).
    events: EventNames::common_without(&[HookEvent::ToolFailure]),
    // Seconds: the plugin stops an executable that runs longer.
    timeout: Timeout::every(TIMEOUT_SECS),
    // The plugin names the session for the shell commands (`shell.env`).
    shell_name: Some(ShellName::NotEmpty(SESSION_VAR)),
    shell_session_id_var: Some(SESSION_VAR),
    project_dir_var: None,
    quirks: Quirks {
        // The plugin adds PreCompact's text to the summarizer's instructions.
        pre_compact_reads_stdout: true,
        // Nothing can block `session.idle`: the plugin sends a Stop's text with the next request.
        stop_block_looks_like_failure: true,
        ..Quirks::NONE
    },
    model_windows: &[],
    large_variant: None,
    transcripts: TRANSCRIPTS,
    transcript_lines: LineMarks::Fields(&[
        ("type", "user"),
        ("type", "tool"),
        ("type", "text"),
        ("type", "compacted"),
    ]),
    // The plugin files a session by its id; its first line names the session's directory.
    transcript_filing: Filing::ByHeader {
        kind: "session",
        dir_at: "/directory",
    },
    late_end: Some("OpenCode reports no end for a session that is quit while it keeps it"),
    transcript_flush_delay: None,
    home: Home {
        dir: ".config/opencode",
        moved_by: None,
    },
    hook_files: HookFiles {
        project: ".opencode/plugin/handover.js",
        local: None,
        user: PLUGIN_FILE,
        also_read: &[],
    },
    instruction_file: "AGENTS.md",
    instruction_files_read: &[],
    trust: Trust::RunsAll,
    plugin_dir: None,
    behaviour: &OPENCODE,
};

/// OpenCode's behaviour, and that of a fork that runs its plugin (Kilo Code): they differ only
/// in the user directory the plugin keeps its session files in, which the installer writes into
/// the plugin from the client's declaration (`home.dir`, as the variable it sets for the shell
/// commands, `shell_session_id_var`).
pub struct OpenCode {
    /// The last folder of the client's user directory (`opencode` for `~/.config/opencode`).
    pub home_folder: &'static str,
}

static OPENCODE: OpenCode = OpenCode {
    home_folder: "opencode",
};

/// Our plugin under the user directory (`~/.config/opencode`); the project's is
/// `.opencode/<this>`.
pub const PLUGIN_FILE: &str = "plugin/handover.js";

/// The folder under the user directory the plugin writes each session's payloads to.
pub const TRANSCRIPTS: &str = "handover-sessions";

/// The variable the plugin sets for the shell commands of a session (`shell.env`): the
/// session's id, as its hooks get it.
pub const SESSION_VAR: &str = "HANDOVER_OPENCODE_SESSION_ID";

/// The plugin's source, with `__HOOKS__` where the installer puts our hook entries, and
/// `__HOME__` and `__SESSION_VAR__` where it puts the client's user directory (under the home)
/// and its [`Client::shell_session_id_var`].
pub const PLUGIN_TEMPLATE: &str = include_str!("opencode/plugin_template.js");

/// What OpenCode 1.18.33 keeps for the summary when `compaction.reserved` is unset, at most.
const DEFAULT_RESERVE: u64 = 20_000;
/// OpenCode's cap on a reply's tokens (`OUTPUT_TOKEN_MAX`).
const OUTPUT_TOKEN_MAX: u64 = 32_000;

impl Behaviour for OpenCode {
    /// `~/.config/opencode/handover-sessions/<session>.jsonl`.
    fn owns_transcript(&self, path: &str) -> bool {
        path.contains(&format!("/{}/{TRANSCRIPTS}/", self.home_folder))
    }

    /// Plain text for every answer: the plugin adds it to the system prompt (or, at
    /// PreCompact, to the summarizer's instructions).
    fn own_output(&self, response: &Response) -> Option<Vec<u8>> {
        let text = match response {
            Response::Silent => return Some(Vec::new()),
            Response::Context { text, .. } | Response::Plain(text) => text,
            Response::Block { reason, .. } => reason,
        };
        Some(format!("{text}\n").into_bytes())
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    /// The usage line's window is already OpenCode's own compaction point: no
    /// `compaction_percent` to move our reminders below it.
    fn fullness_of_line(&self, line: &[u8]) -> Option<Fullness> {
        fullness_of_line(line)
    }
}

/// The facts of one line the plugin wrote.
fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    at(v, out);
    match str_of(v, "type") {
        Some("user") => {
            if let Some(text) = str_of(v, "text") {
                request(text, out);
            }
        }
        Some("text") => {
            if let Some(text) = str_of(v, "text").filter(|t| !t.trim().is_empty()) {
                out.push(Fact::AgentMessage(text.to_string()));
            }
        }
        Some("tool") => tool(v, root, out),
        Some("compacted") => out.push(Fact::Compacted),
        _ => {}
    }
}

/// An edit tool names its file (`args.filePath`); the shell tool its command and exit code.
fn tool(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let args = v.get("args").unwrap_or(&Value::Null);
    match str_of(v, "tool").unwrap_or("") {
        "write" | "edit" | "multiedit" => {
            if let Some(p) = str_of(args, "filePath") {
                out.push(Fact::Edited(relative(p, root)));
            }
        }
        "bash" => {
            let Some(command) = str_of(args, "command") else {
                return;
            };
            let ran = Fact::CommandRan {
                command: command.to_string(),
                exit_code: v.get("exit").and_then(Value::as_i64),
            };
            match str_of(v, "callID") {
                Some(id) => out.push(Fact::call_end(id, ran)),
                None => out.push(ran),
            }
        }
        _ => {}
    }
}

/// A `usage` line's tokens against OpenCode's compaction point for the model, or a compaction.
/// Cheap substring checks first.
fn fullness_of_line(line: &[u8]) -> Option<Fullness> {
    let v = transcript::parse_marked(line, &["\"usage\"", "\"compacted\""])?;
    match str_of(&v, "type")? {
        "compacted" => Some(Fullness::JustCompacted),
        "usage" => {
            let tokens = v.get("tokens")?;
            let n = |p: &str| tokens.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            let used = match n("/total") {
                0 => n("/input") + n("/output") + n("/cache/read") + n("/cache/write"),
                total => total,
            };
            (used > 0).then(|| {
                Fullness::Measured(Usage {
                    used_tokens: used,
                    window: v.get("limit").and_then(usable_tokens),
                    model: str_of(&v, "model").map(str::to_string),
                })
            })
        }
        _ => None,
    }
}

/// OpenCode's compaction point for a model whose `limit` is `{context, input, output}`: the
/// tokens a reply may report before it compacts (its `isOverflow`, with `compaction.reserved`
/// unset). None for an unknown or zero context (it never compacts then).
pub fn usable_tokens(limit: &Value) -> Option<u64> {
    let n = |k: &str| limit.get(k).and_then(Value::as_u64).unwrap_or(0);
    let context = n("context");
    if context == 0 {
        return None;
    }
    let output = match n("output").min(OUTPUT_TOKEN_MAX) {
        0 => OUTPUT_TOKEN_MAX,
        o => o,
    };
    let usable = match n("input") {
        0 => context.saturating_sub(output),
        input => input.saturating_sub(DEFAULT_RESERVE.min(output)),
    };
    (usable > 0).then_some(usable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HookInput, Scope, UserDirs};
    use std::path::PathBuf;

    static CAPTURED: crate::Captured = crate::Captured(&CLIENT, "opencode-1.18.33");

    #[test]
    fn the_compaction_point_is_opencodes_overflow_rule() {
        let limit = |v: &str| serde_json::from_str::<Value>(v).unwrap();
        // context less the output limit
        assert_eq!(
            usable_tokens(&limit(r#"{"context":8000,"output":1000}"#)),
            Some(7_000)
        );
        // the output limit is capped at 32,000, and a missing one counts as 32,000
        assert_eq!(
            usable_tokens(&limit(r#"{"context":200000,"output":64000}"#)),
            Some(168_000)
        );
        assert_eq!(
            usable_tokens(&limit(r#"{"context":200000}"#)),
            Some(168_000)
        );
        // an input limit less the reserve (at most 20,000)
        assert_eq!(
            usable_tokens(&limit(
                r#"{"context":400000,"input":272000,"output":128000}"#
            )),
            Some(252_000)
        );
        assert_eq!(
            usable_tokens(&limit(r#"{"context":9000,"input":8000,"output":1000}"#)),
            Some(7_000)
        );
        assert_eq!(usable_tokens(&limit(r#"{"context":0,"output":10}"#)), None);
        assert_eq!(usable_tokens(&Value::Null), None);
    }

    #[test]
    fn the_record_reads_prompts_edits_commands_and_the_agents_text() {
        let facts = CAPTURED.facts("transcript-tools.jsonl");
        let ran = |id: &str, command: &str, exit_code| Fact::Once {
            id: format!("end:{id}"),
            fact: Box::new(Fact::CommandRan {
                command: command.into(),
                exit_code: Some(exit_code),
            }),
        };
        assert_eq!(
            crate::without_times(&facts),
            [
                // `opencode run` quotes its message.
                Fact::Request("\"write the notes and run the tests\"".into()),
                ran(
                    "call_1795942603669977282",
                    "printf 'written by the shell\\n' > notes.txt",
                    0
                ),
                Fact::Edited("src/parse.py".into()),
                ran("call_1795942607112752623", "sh run_tests.sh", 1),
                Fact::AgentMessage("The tests still fail.".into()),
                // Not the summarizer's text: the plugin leaves it out.
                Fact::Compacted,
                Fact::AgentMessage("Resumed after the compaction.".into()),
            ]
        );
        assert!(matches!(facts.first(), Some(Fact::At(t)) if t.starts_with("2026-11-29T")));
    }

    #[test]
    fn fullness_is_the_newest_usage_against_the_compaction_point() {
        let whole = CAPTURED.bytes("transcript-tools.jsonl");
        // After the compaction: its first reply's 1,010 tokens.
        assert_eq!(
            OPENCODE.transcript_fullness(&whole, true),
            crate::transcript::measured(1_010, Some(7_000), Some("m"))
        );
        let text = String::from_utf8_lossy(&whole).into_owned();
        let after = |needle: &str| {
            let i = text.find(needle).unwrap_or(0);
            i + text[i..].find('\n').unwrap_or(0) + 1
        };
        // Cut right after the compaction line: just compacted.
        assert_eq!(
            OPENCODE.transcript_fullness(&text.as_bytes()[..after("\"compacted\"")], true),
            Some(Fullness::JustCompacted)
        );
        // Cut before it: the 7,510 tokens that reached the compaction point (7,000 of 8,000).
        let before = text.find("{\"type\":\"compacted\"").unwrap_or(0);
        assert_eq!(
            OPENCODE.transcript_fullness(&text.as_bytes()[..before], true),
            crate::transcript::measured(7_510, Some(7_000), Some("m"))
        );
    }

    #[test]
    fn captured_payloads_name_the_event_and_the_transcript() {
        for (name, event) in [
            ("session_start-startup.json", HookEvent::SessionStart),
            ("session_start-compact.json", HookEvent::SessionStart),
            ("post_compact.json", HookEvent::PostCompact),
            ("pre_compact.json", HookEvent::PreCompact),
            ("post_tool_use.json", HookEvent::Tool),
            ("stop.json", HookEvent::Stop),
            ("session_end-exit.json", HookEvent::SessionEnd),
        ] {
            let input = HookInput::parse(&CAPTURED.bytes(name));
            assert_eq!(
                CLIENT.hook_event(input.hook_event_name.as_deref().unwrap_or("")),
                Some(event),
                "{name}"
            );
            assert_eq!(crate::detect(&input), Agent::OpenCode, "{name}");
        }
        let compact = HookInput::parse(&CAPTURED.bytes("session_start-compact.json"));
        assert_eq!(
            CLIENT.behaviour.session_start_source(&compact),
            crate::StartSource::Compact
        );
    }

    #[test]
    fn its_transcripts_are_the_plugins() {
        let input = HookInput::parse(
            br#"{"session_id":"ses_1","transcript_path":"/h/.config/opencode/handover-sessions/ses_1.jsonl"}"#,
        );
        assert_eq!(crate::detect(&input), Agent::OpenCode);
        assert!(!OPENCODE.owns_transcript("/home/u/.claude/projects/-r/s.jsonl"));
        let dirs = UserDirs::under(Path::new("/h"));
        assert_eq!(
            CLIENT.transcript_dir(&dirs),
            Some(PathBuf::from("/h/.config/opencode/handover-sessions"))
        );
    }

    #[test]
    fn a_transcript_belongs_to_the_directory_its_first_line_names() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = dir.path().canonicalize().unwrap_or_default();
        let t = project.join("ses_1.jsonl");
        let line = format!(
            "{{\"type\":\"session\",\"directory\":{}}}\n",
            serde_json::Value::from(project.to_string_lossy().into_owned())
        );
        std::fs::write(&t, line).unwrap_or_default();
        assert!(CLIENT.transcript_in_project(&project, &t, &project));
        assert!(!CLIENT.transcript_in_project(&project, &t, Path::new("/elsewhere")));
    }

    #[test]
    fn homes_and_plugin_files() {
        let dirs = UserDirs::under(Path::new("/h"));
        assert_eq!(
            CLIENT.user_dir(&dirs),
            Some(PathBuf::from("/h/.config/opencode"))
        );
        let repo = Path::new("/r");
        assert_eq!(
            CLIENT.hooks_file(Scope::Project, repo, Path::new("/h/.config/opencode")),
            PathBuf::from("/r/.opencode/plugin/handover.js")
        );
        assert_eq!(
            CLIENT.hooks_file(Scope::User, repo, Path::new("/h/.config/opencode")),
            PathBuf::from("/h/.config/opencode/plugin/handover.js")
        );
    }

    #[test]
    fn the_template_has_one_place_for_the_hooks_and_no_import() {
        assert_eq!(PLUGIN_TEMPLATE.matches("__HOOKS__").count(), 1);
        // And one for each place that differs between the clients that run it.
        assert_eq!(PLUGIN_TEMPLATE.matches("__HOME__").count(), 1);
        assert_eq!(PLUGIN_TEMPLATE.matches("__SESSION_VAR__").count(), 1);
        // No package to install: only the runtime's own `node:` modules.
        assert!(!PLUGIN_TEMPLATE.contains("import "));
        for (i, _) in PLUGIN_TEMPLATE.match_indices("require(") {
            assert!(PLUGIN_TEMPLATE[i..].starts_with("require(\"node:"));
        }
    }
}
