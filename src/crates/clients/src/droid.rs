//! Factory Droid (checked against 0.225.2, `@factory/cli-linux-x64`; see docs/compatibility.md).
//!
//! - Events (Claude Code's names): SessionStart (`startup`, `resume`, ...), UserPromptSubmit,
//!   PreToolUse, PostToolUse, Stop, SubagentStop, PreCompact, SessionEnd, Notification; no
//!   PostCompact. Hook `timeout` in seconds (default 60).
//! - Output: Claude Code's. `hookSpecificOutput.additionalContext` of SessionStart and of
//!   PostToolUse each becomes a `user` message of its own (SessionStart's right after the system
//!   prompt, PostToolUse's after the tool result); `{"decision": "block", "reason"}` on Stop
//!   sends the reason back as a user message and the next Stop has `stop_hook_active`.
//!   PreCompact's output is not read (only its exit code: 2 blocks a compaction).
//! - `droid exec` (headless) fires no UserPromptSubmit, and PostToolUse only for tool calls that
//!   succeed: a failing command reaches the session record from the transcript alone.
//! - Compaction: when the last request's input tokens pass its compaction limit
//!   (`compactionTokenLimit` in `~/.factory/settings.json`, per model
//!   `compactionTokenLimitPerModel`; for a custom model 250,000 unless set), or when the
//!   provider refuses a request past a smaller window (a custom model's `maxContextLimit`,
//!   which Droid never compares with its limit: [`compaction_point`]) Droid summarizes the
//!   history right after the tool calls' PostToolUse. That automatic path runs NO hook (only a
//!   manual `/compact` runs PreCompact), and no SessionStart follows: the transcript's
//!   `compaction_state` line is the only sign ([`Behaviour::compacted_at_ms`]); the handoff comes
//!   back at the next tool result.
//! - Transcript `~/.factory/sessions/<cwd with / as ->/<session>.jsonl`: `{"type": "message",
//!   "timestamp", "message": {"role", "content": [...]}}` lines with Claude-style content items
//!   (`tool_use` `Execute` with `command`, `Create` / `Edit` / `ApplyPatch` with `file_path`;
//!   `tool_result` with `is_error` and "[Process exited with code N]"); hook runs are messages
//!   with `hookEventName`; a `compaction_state` line per compaction. It records NO usage: the
//!   last request's is `lastCallTokenUsage` in `<session>.settings.json` beside it, written
//!   before PostToolUse runs ([`Behaviour::usage_file`]).
//! - Hooks in `<repo>/.factory/settings.json` (project) and `~/.factory/settings.json` (user),
//!   also `hooks.json` files beside them (which win per event); it does not read `.claude/`.
//!   No trust step for `droid exec`; the terminal UI asks once per folder and runs no hook
//!   before (from its code: `isTrustGateActive`, active only in the terminal UI). The answer is
//!   `"trustedFolders": {"<folder>": {"trustedAt": ...}}` in the user settings, and covers the
//!   folders below it (`handover install --trust` writes it: installer/src/wiring/droid.rs).
//! - Hook commands get `FACTORY_PROJECT_DIR`, `DROID_PROJECT_DIR` and also
//!   `CLAUDE_PROJECT_DIR`, plus every input field as a variable (`session_id`, ...).
//! - Instruction file: it reads `AGENTS.md` (and `CLAUDE.md`); ours goes to `AGENTS.md`.

use crate::transcript::{self, at, str_of, Fact, Fullness, Tools, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookEvent, HookFiles, HookInput, LineMarks,
    Quirks, ShellSign, StartSource, Timeout, Trust,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub static CLIENT: Client = Client {
    agent: Agent::Droid,
    name: "droid",
    aliases: &["factory-droid"],
    display_name: "Factory Droid",
    executable: "droid",
    fresh_session: "`/new` in Factory Droid",
    // Claude Code's names, without PostCompact and PostToolUseFailure (Droid has neither).
    events: EventNames::common_without(&[HookEvent::PostCompact, HookEvent::ToolFailure]),
    timeout: Timeout::every(TIMEOUT_SECS),
    // Droid gives its commands no session id, but its SessionStart applies `export NAME=value`
    // lines written to the payload's `CLAUDE_ENV_FILE` to the environment of the session's
    // later commands (0.225.2: `applySessionStartHookResults`; a later SessionStart, of `/new`
    // or `/compress`, sets it again): our SessionStart writes the session id there.
    shell_name: None,
    shell_session_id_var: Some("HANDOVER_DROID_SESSION_ID"),
    project_dir_var: None,
    quirks: Quirks {
        compacts_silently: true,
        takes_session_id_from_hook: true,
        ..Quirks::NONE
    },
    model_windows: &[],
    large_variant: None,
    // `~/.factory/sessions/<cwd>/<session>.jsonl`.
    transcripts: "sessions",
    transcript_lines: LineMarks::Fields(&[("type", "message"), ("type", "compaction_state")]),
    transcript_filing: Filing::ByProjectFolder,
    late_end: None,
    transcript_flush_delay: None,
    home: Home {
        dir: ".factory",
        moved_by: None,
    },
    // Each settings directory's `hooks.json` (or its older `hooks/hooks.json`) beside its
    // `settings.json`: Droid reads both.
    hook_files: HookFiles {
        project: ".factory/settings.json",
        local: None,
        user: "settings.json",
        also_read: &["hooks.json", "hooks/hooks.json"],
    },
    instruction_file: "AGENTS.md",
    // Its terminal UI's folder trust; `droid exec` runs every hook.
    trust: Trust::Folder,
    instruction_files_read: &[],
    plugin_dir: None,
    behaviour: &Droid,
};

pub struct Droid;

/// Droid's name for the folder of the sessions started in `project`: `/tmp/my.repo` is
/// `-tmp-my.repo`. None for a path that is not UTF-8.
fn project_key(project: &Path) -> Option<String> {
    let path = project
        .to_str()?
        .trim_end_matches('/')
        .trim_start_matches('/');
    let mut key = String::from("-");
    let mut slash = false;
    for c in path.chars() {
        if c == '/' {
            if !slash {
                key.push('-');
            }
            slash = true;
        } else {
            key.push(c);
            slash = false;
        }
    }
    Some(key)
}

/// Droid's compaction limit for a model whose own limit is not known here (its default for a
/// custom model): the context watch measures against it, as Droid does.
pub const DEFAULT_COMPACTION_LIMIT: u64 = 250_000;

impl Behaviour for Droid {
    // Droid names its transcripts (`owns_transcript`); its payloads carry nothing Claude Code's
    // lack (no `marks_payload`).
    fn owns_transcript(&self, path: &str) -> bool {
        path.contains("/.factory/sessions/")
    }

    /// Droid names itself nowhere in its shell commands' environment; its shell executor's
    /// own settings give it away ([`runs_the_shell_command`]). Its session id comes from our
    /// own SessionStart ([`Quirks::takes_session_id_from_hook`]).
    fn runs_this_shell(&self, env: &dyn Fn(&str) -> Option<OsString>) -> Option<ShellSign> {
        runs_the_shell_command(env).then_some(ShellSign::Indirect)
    }

    /// Droid 0.225.2 loads the session `/new` creates in the terminal UI as it loads a resumed
    /// one, so its SessionStart says `resume` (source `pendingSessionStartSource ?? "resume"`),
    /// with a new session id and no `message_id`: a session with no message yet, which
    /// resumes nothing. It opens as a `startup`. A true resume (`--fork`, or a session picked
    /// to continue) and the old session reopened by `/compress` name their last message.
    fn session_start_source(&self, input: &HookInput) -> StartSource {
        match StartSource::parse(input.source.as_deref().unwrap_or("startup")) {
            StartSource::Resume if !input.has_message_id => StartSource::Startup,
            source => source,
        }
    }

    /// `/compress` first reopens the old session with SessionStart `resume` (and its last
    /// `message_id`, like a true resume) only to summarize it: that context reaches no
    /// conversation request, and the next hook of that session is PreCompact. A true resume's
    /// next prompt (terminal UI) or tool result and Stop (`droid exec`) confirm it.
    fn journals_start_at_a_request(&self, source: &StartSource) -> bool {
        *source == StartSource::Resume
    }

    fn usage_file(&self, transcript: &Path) -> PathBuf {
        transcript.with_extension("settings.json")
    }

    fn compacted_at_ms(&self, tail: &[u8], at_file_start: bool) -> Option<u64> {
        transcript::lines_newest_first(tail, at_file_start)
            .into_iter()
            .filter(|l| transcript::contains(l, b"\"compaction_state\""))
            .find_map(|l| {
                let v: Value = serde_json::from_slice(l).ok()?;
                (str_of(&v, "type") == Some("compaction_state"))
                    .then(|| handover_base::clock::parse_rfc3339_ms(str_of(&v, "timestamp")?))?
            })
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    /// `tail` is the session's `<id>.settings.json` ([`Behaviour::usage_file`]), read whole.
    fn transcript_fullness(&self, tail: &[u8], at_file_start: bool) -> Option<Fullness> {
        if !at_file_start {
            return None;
        }
        let v: Value = serde_json::from_slice(tail).ok()?;
        let last = v.get("lastCallTokenUsage")?;
        let n = |k: &str| last.get(k).and_then(Value::as_u64).unwrap_or(0);
        // The prompt's size: uncached input plus what came from the cache (Anthropic counts
        // them apart; OpenAI-style providers report cached tokens inside the input).
        let used = n("inputTokens") + n("cacheReadTokens");
        (used > 0).then(|| {
            Fullness::Measured(Usage {
                used_tokens: used,
                window: Some(DEFAULT_COMPACTION_LIMIT),
                model: str_of(&v, "model").map(str::to_string),
            })
        })
    }

    /// Where Droid compacts for the model in use ([`compaction_point`]): a token limit, not a
    /// share of a window. The watch measures against that limit, so there is no earlier point
    /// to move to (no `compaction_percent`).
    fn compaction_window(&self, user_dir: Option<&Path>, model: Option<&str>) -> Option<u64> {
        compaction_point(user_dir?, model)
    }

    /// Droid 0.225.2 names the folder `-` and the session's working directory (links
    /// resolved) with its slashes made `-`, every other character kept.
    fn is_project_folder(&self, _dir: &Path, folder: &str, project: &Path) -> bool {
        Some(folder) == project_key(project).as_deref()
    }
}

/// Where Droid compacts a request for `model`, in input tokens; None when its settings cannot
/// be read (the transcript's reading then says [`DEFAULT_COMPACTION_LIMIT`]). Droid 0.225.2 (`getCompactionTokenLimitForModel`, and its retry on a context-length error):
/// - its limit is `compactionTokenLimitPerModel[<model id>]`, else `compactionTokenLimit`,
///   else 250,000 for a custom model;
/// - a custom model's declared window (`maxContextLimit`) is never compared with it: a request
///   past that window is sent, the provider refuses it ("context_length_exceeded"), and only
///   then does Droid compact and retry. Seen with the real client: a model declared with
///   200,000 sent a request at 210,000 input tokens uncompacted, and compacted on the refusal.
///   So that window is where the compaction comes, when it is the smaller.
///
/// Its settings may hold comments (Droid reads JSONC): such a file counts as unset here.
pub fn compaction_point(user_dir: &Path, model: Option<&str>) -> Option<u64> {
    let v = crate::settings::read(&user_dir.join("settings.json"))?;
    let positive = |x: Option<&Value>| x.and_then(Value::as_u64).filter(|l| *l > 0);
    let per_model = model.and_then(|m| positive(v.get("compactionTokenLimitPerModel")?.get(m)));
    let limit = per_model
        .or_else(|| positive(v.get("compactionTokenLimit")))
        .unwrap_or(DEFAULT_COMPACTION_LIMIT);
    let window = model.and_then(|m| declared_window(&v, m));
    Some(window.map_or(limit, |w| w.min(limit)))
}

/// The `maxContextLimit` of the custom model Droid names `id`: Droid names the custom models
/// of its settings `custom:<displayName (else model), spaces made ->-<n>`, `n` counting the
/// models of the same name before it (0.225.2).
fn declared_window(settings: &Value, id: &str) -> Option<u64> {
    let models = settings.get("customModels")?.as_array()?;
    let mut seen: Vec<String> = Vec::new();
    for m in models {
        let name = str_of(m, "displayName")
            .or_else(|| str_of(m, "model"))
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("-");
        let n = seen.iter().filter(|s| **s == name).count();
        if format!("custom:{name}-{n}") == id {
            return m
                .get("maxContextLimit")
                .and_then(Value::as_u64)
                .filter(|l| *l > 0);
        }
        seen.push(name);
    }
    None
}

// ---- Transcript facts ----

fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    match str_of(v, "type") {
        Some("compaction_state") => {
            at(v, out);
            out.push(Fact::Compacted);
        }
        Some("message") => {
            let Some(message) = v.get("message") else {
                return;
            };
            // Hook runs are recorded as messages of their own; they are not the session's.
            if message.get("hookEventName").is_some() {
                return;
            }
            at(v, out);
            let content = message.get("content");
            match str_of(message, "role") {
                Some("user") => user(content, out),
                Some("assistant") => transcript::assistant_content(content, &TOOLS, root, out),
                _ => {}
            }
        }
        _ => {}
    }
}

fn user(content: Option<&Value>, out: &mut Vec<Fact>) {
    transcript::user_content(content, out, |id, failed, item| Fact::CommandResult {
        id: id.to_string(),
        failed,
        exit_code: if failed {
            exit_code_of(str_of(item, "content").unwrap_or(""))
        } else {
            Some(0)
        },
    });
}

/// `Execute` runs a command (its result comes in a later user line); `Create`, `Edit` and
/// `ApplyPatch` name the file they change.
const TOOLS: Tools = Tools {
    edits: &[
        ("Create", "file_path"),
        ("Edit", "file_path"),
        ("MultiEdit", "file_path"),
        ("ApplyPatch", "file_path"),
    ],
    shell: "Execute",
};

/// Droid ends a command's result with "[Process exited with code N]" (a failure also starts
/// with "Error: Command failed (exit code: N)").
fn exit_code_of(text: &str) -> Option<i64> {
    const ENDS: [&str; 2] = ["[Process exited with code ", "(exit code: "];
    ENDS.iter().find_map(|m| {
        text.rfind(m)
            .and_then(|i| transcript::leading_number(&text[i + m.len()..]))
    })
}

/// Whether `env` is the environment Droid gives the commands its shell tool runs (the model's
/// `handover ack` or `write`). Droid 0.225.2 sets no variable there that names it — unlike its
/// hooks, which get `FACTORY_PROJECT_DIR` — in `droid exec` and in the terminal UI alike (seen
/// with `env` run through its `Execute` tool; the terminal UI's command runner adds a few
/// `FACTORY_*` settings, `droid exec` none). What its shell executor does give every command,
/// from the 0.225.2 binary: `~/.factory/bin` on PATH (put first unless it is there already) and
/// a fixed set of variables that keep git from prompting. Both together are the sign: a
/// person's shell with Droid's bin directory on PATH lacks the git set, and another tool that
/// sets a similar git set does not put `.factory/bin` on PATH.
pub fn runs_the_shell_command(env: &dyn Fn(&str) -> Option<OsString>) -> bool {
    /// The variables Droid 0.225.2 sets for every shell command, with its values.
    const SHELL_MARKS: [(&str, &str); 4] = [
        ("GIT_EDITOR", "true"),
        ("GIT_SEQUENCE_EDITOR", "true"),
        ("GCM_INTERACTIVE", "never"),
        ("GIT_TERMINAL_PROMPT", "0"),
    ];
    let marked = SHELL_MARKS
        .iter()
        .all(|(name, value)| env(name).is_some_and(|v| v == *value));
    marked
        && env("PATH").is_some_and(|path| {
            std::env::split_paths(&path).any(|dir| dir.ends_with(".factory/bin"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scope, SettingsLayers, UserDirs};
    use std::path::PathBuf;

    #[test]
    fn the_project_key_keeps_all_but_slashes() {
        assert_eq!(
            project_key(Path::new("/a//b c.d/")).as_deref(),
            Some("-a-b c.d")
        );
    }

    /// The environment of a command run by Droid 0.225.2's `Execute` tool (`env` captured in the
    /// terminal UI; `droid exec` gives the same minus the `FACTORY_*` settings), and changes of it.
    fn droid_shell(overrides: &[(&str, Option<&str>)]) -> impl Fn(&str) -> Option<OsString> {
        let mut vars: Vec<(String, Option<String>)> = [
            ("PATH", "/home/u/.factory/bin:/usr/local/bin:/usr/bin:/bin"),
            ("HOME", "/home/u"),
            ("GIT_EDITOR", "true"),
            ("GIT_SEQUENCE_EDITOR", "true"),
            ("GIT_TERMINAL_PROMPT", "0"),
            ("GCM_INTERACTIVE", "never"),
            ("GIT_ASKPASS", ""),
            ("SSH_ASKPASS", ""),
            ("SUDO_ASKPASS", ""),
            ("PYTHONUNBUFFERED", "1"),
            ("FORCE_COLOR", "0"),
            ("FACTORY_UPSTREAM_CLIENT_TYPE", "cli"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), Some(v.to_string())))
        .collect();
        for (k, v) in overrides {
            vars.retain(|(name, _)| name != k);
            vars.push((k.to_string(), v.map(String::from)));
        }
        move |name: &str| {
            vars.iter()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| v.clone().map(OsString::from))
        }
    }

    #[test]
    fn droids_shell_commands_are_recognised_and_a_persons_shell_is_not() {
        assert!(runs_the_shell_command(&droid_shell(&[])));
        // Droid's bin directory anywhere on PATH (it does not add it twice).
        assert!(runs_the_shell_command(&droid_shell(&[(
            "PATH",
            Some("/usr/bin:/home/u/.factory/bin/")
        )])));
        // A person's shell with Droid's bin directory on PATH: no git set.
        for unset in [
            "GIT_EDITOR",
            "GIT_SEQUENCE_EDITOR",
            "GCM_INTERACTIVE",
            "GIT_TERMINAL_PROMPT",
        ] {
            assert!(
                !runs_the_shell_command(&droid_shell(&[(unset, None)])),
                "recognised without {unset}"
            );
        }
        assert!(!runs_the_shell_command(&droid_shell(&[(
            "GIT_EDITOR",
            Some("vim")
        )])));
        // The git set without Droid's bin directory (another tool's runner).
        assert!(!runs_the_shell_command(&droid_shell(&[(
            "PATH",
            Some("/usr/local/bin:/usr/bin:/bin:/home/u/.factory/binaries")
        )])));
        assert!(!runs_the_shell_command(&droid_shell(&[("PATH", None)])));
    }

    fn facts_of(transcript: &str) -> Vec<Fact> {
        crate::facts_in(&CLIENT, transcript.as_bytes())
    }

    #[test]
    fn the_real_transcript_gives_edits_commands_and_the_failure() {
        let t =
            include_str!("../../../../tests/fixtures/clients/droid-0.225.2/transcript-tools.jsonl");
        assert_eq!(
            crate::without_times(&facts_of(t)),
            vec![
                Fact::Request("make the parser strip whitespace and run the tests".into()),
                Fact::Edited("src/parse.py".into()),
                Fact::Edited("run_tests.sh".into()),
                crate::ended("call_fake_1", false, Some(0)),
                crate::ended("call_fake_1_1", false, Some(0)),
                Fact::Edited("src/parse.py".into()),
                crate::ended("call_fake_2", false, Some(0)),
                crate::called(
                    "call_fake_3",
                    "printf 'written by the shell\\n' > notes.txt"
                ),
                crate::ended("call_fake_3", false, Some(0)),
                crate::called("call_fake_4", "sh run_tests.sh"),
                crate::ended("call_fake_4", true, Some(1)),
                Fact::AgentMessage(
                    "Parser edited; the test suite still fails on test_parse.".into()
                ),
            ]
        );
        // Every line carries its time; hook runs are not the session's own lines.
        assert!(facts_of(t).iter().any(|f| matches!(f, Fact::At(_))));
    }

    #[test]
    fn a_compaction_is_a_fact_and_its_time_is_read_from_the_tail() {
        let t = include_str!("../../../../tests/fixtures/clients/droid-0.225.2/transcript.jsonl");
        assert_eq!(
            facts_of(t)
                .iter()
                .filter(|f| **f == Fact::Compacted)
                .count(),
            1
        );
        let at = handover_base::clock::parse_rfc3339_ms("2026-11-25T16:53:52.065Z");
        assert!(at.is_some());
        assert_eq!(Droid.compacted_at_ms(t.as_bytes(), true), at);
        // A tail that starts inside the compaction line (cut) does not see it.
        let cut = &t[t.find("\"type\":\"compaction_state\"").unwrap_or(0)..];
        assert_eq!(Droid.compacted_at_ms(cut.as_bytes(), false), None);
        let before: String = t
            .lines()
            .take_while(|l| !l.contains("compaction_state"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(Droid.compacted_at_ms(before.as_bytes(), true), None);
        assert!(crate::droid::CLIENT.quirks.compacts_silently);
    }

    #[test]
    fn fullness_comes_from_the_session_settings_beside_the_transcript() {
        let transcript = Path::new("/h/.factory/sessions/-r/0fbaec2f.jsonl");
        assert_eq!(
            Droid.usage_file(transcript),
            PathBuf::from("/h/.factory/sessions/-r/0fbaec2f.settings.json")
        );
        let settings =
            include_str!("../../../../tests/fixtures/clients/droid-0.225.2/session-settings.json");
        assert_eq!(
            Droid.transcript_fullness(settings.as_bytes(), true),
            crate::transcript::measured(
                3_500,
                Some(DEFAULT_COMPACTION_LIMIT),
                Some("custom:Fake-0")
            )
        );
        let cached = r#"{"model":"claude-opus-5","lastCallTokenUsage":{"inputTokens":12,"outputTokens":5,"cacheReadTokens":90000}}"#;
        assert!(matches!(
            Droid.transcript_fullness(cached.as_bytes(), true),
            Some(Fullness::Measured(Usage {
                used_tokens: 90_012,
                ..
            }))
        ));
        // Nothing measured yet, a cut read, or not JSON at all: no figure.
        for text in [r#"{"model":"x"}"#, "{\"lastCall", ""] {
            assert_eq!(
                Droid.transcript_fullness(text.as_bytes(), true),
                None,
                "{text}"
            );
        }
        assert_eq!(Droid.transcript_fullness(settings.as_bytes(), false), None);
    }

    #[test]
    fn a_compaction_limit_in_the_settings_is_the_window_measured_against() {
        let dir = tempfile::tempdir().unwrap();
        let at = |model: Option<&str>| Droid.compaction_window(Some(dir.path()), model);
        assert_eq!(at(None), None, "no settings file");
        let write = |text: &str| std::fs::write(dir.path().join("settings.json"), text).unwrap();
        write(r#"{"customModels": []}"#);
        assert_eq!(at(None), Some(DEFAULT_COMPACTION_LIMIT));
        write(r#"{"customModels": [], "compactionTokenLimit": 20000}"#);
        assert_eq!(at(None), Some(20_000));
        write(r#"{"compactionTokenLimit": 400000}"#);
        assert_eq!(at(None), Some(400_000));
        // Droid reads comments; a file with them counts as unset here, never an error.
        write("{\n  // mine\n  \"compactionTokenLimit\": 20000\n}");
        assert_eq!(at(None), None);
        assert_eq!(Droid.compaction_window(None, None), None);
        assert_eq!(
            Droid.compaction_percent(
                SettingsLayers {
                    project: None,
                    user_dir: Some(dir.path())
                },
                1
            ),
            None
        );
    }

    #[test]
    fn the_limit_for_the_model_in_use_wins_over_the_general_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"compactionTokenLimit": 200000, "compactionTokenLimitPerModel": {"custom:Fake-0": 50000}}"#,
        )
        .unwrap();
        let at = |model| compaction_point(dir.path(), model);
        assert_eq!(at(Some("custom:Fake-0")), Some(50_000));
        assert_eq!(at(Some("custom:Other-0")), Some(200_000));
        assert_eq!(at(None), Some(200_000));
    }

    /// Droid never compares a custom model's `maxContextLimit` with its limit: it sends the
    /// request, the provider refuses it, and it compacts then. The declared window is where the
    /// compaction comes when it is the smaller (a model declared with 200,000: 130,000 tokens
    /// used is 65 % of it, where it was 52 % of the default limit and no reminder).
    #[test]
    fn a_custom_models_declared_window_below_the_limit_is_the_point() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"customModels": [
                {"model": "a", "displayName": "Fake", "maxContextLimit": 100000},
                {"model": "b", "displayName": "Fake", "maxContextLimit": 200000},
                {"model": "my big model", "maxContextLimit": 1000000},
                {"model": "c", "displayName": "  Two  words ", "maxContextLimit": 64000}
            ]}"#,
        )
        .unwrap();
        let at = |model| Droid.compaction_window(Some(dir.path()), Some(model));
        assert_eq!(at("custom:Fake-0"), Some(100_000));
        assert_eq!(at("custom:Fake-1"), Some(200_000));
        // A window above Droid's limit: Droid compacts at its limit first.
        assert_eq!(at("custom:my-big-model-0"), Some(DEFAULT_COMPACTION_LIMIT));
        assert_eq!(at("custom:Two-words-0"), Some(64_000));
        assert_eq!(at("custom:Unknown-0"), Some(DEFAULT_COMPACTION_LIMIT));
    }

    #[test]
    fn new_opens_as_a_startup_and_a_true_resume_stays_one() {
        let source = |raw: &[u8]| Droid.session_start_source(&HookInput::parse(raw));
        for (name, want) in [
            ("session_start-startup.json", StartSource::Startup),
            ("session_start-new.json", StartSource::Startup),
            ("session_start-resume.json", StartSource::Resume),
            ("session_start-compress-reopen.json", StartSource::Resume),
        ] {
            let raw = crate::fixture(&format!("droid-0.225.2/{name}"));
            assert!(!raw.is_empty(), "{name} is missing");
            assert_eq!(source(&raw), want, "{name}");
        }
        assert_eq!(source(br#"{"source":"compact"}"#), StartSource::Compact);
        assert_eq!(source(b"{}"), StartSource::Startup);
        // Other clients keep the payload's word.
        let claude = HookInput::parse(br#"{"source":"resume"}"#);
        assert_eq!(
            crate::claude::Claude.session_start_source(&claude),
            StartSource::Resume
        );
    }

    #[test]
    fn files_events_and_detection() {
        let repo = Path::new("/r");
        let user = Path::new("/h/.factory");
        assert_eq!(
            crate::droid::CLIENT.hooks_file(Scope::Project, repo, user),
            PathBuf::from("/r/.factory/settings.json")
        );
        assert_eq!(
            crate::droid::CLIENT.hooks_file(Scope::Local, repo, user),
            PathBuf::from("/r/.factory/settings.json")
        );
        assert_eq!(
            crate::droid::CLIENT.hooks_file(Scope::User, repo, user),
            PathBuf::from("/h/.factory/settings.json")
        );
        assert_eq!(
            crate::droid::CLIENT.hook_layers(&[repo.to_path_buf()], Some(user)),
            [
                "/r/.factory/settings.json",
                "/r/.factory/hooks.json",
                "/r/.factory/hooks/hooks.json",
                "/h/.factory/settings.json",
                "/h/.factory/hooks.json",
                "/h/.factory/hooks/hooks.json",
            ]
            .map(PathBuf::from)
        );
        assert_eq!(
            crate::droid::CLIENT.user_dir(&UserDirs::under(Path::new("/h"))),
            Some(PathBuf::from("/h/.factory"))
        );
        assert_eq!(
            crate::droid::CLIENT.event_name(HookEvent::PostCompact),
            None
        );
        assert_eq!(
            crate::droid::CLIENT.event_name(HookEvent::Tool),
            Some("PostToolUse")
        );
        assert_eq!(crate::droid::CLIENT.timeout("Stop"), TIMEOUT_SECS);
        let payload =
            include_bytes!("../../../../tests/fixtures/clients/droid-0.225.2/post_tool_use.json");
        assert_eq!(crate::detect(&HookInput::parse(payload)), Agent::Droid);
        assert_eq!(
            exit_code_of("Error: Command failed (exit code: 3)\nx"),
            Some(3)
        );
        assert_eq!(exit_code_of("no code"), None);
    }

    #[test]
    fn its_shell_is_an_indirect_sign_from_its_executor_settings() {
        assert_eq!(
            Droid.runs_this_shell(&droid_shell(&[])),
            Some(ShellSign::Indirect)
        );
        assert_eq!(Droid.runs_this_shell(&droid_shell(&[("PATH", None)])), None);
        assert_eq!(
            crate::droid::CLIENT.shell_session_id_var,
            Some("HANDOVER_DROID_SESSION_ID")
        );
        assert!(crate::droid::CLIENT.quirks.takes_session_id_from_hook);
    }
}
