//! GitHub Copilot CLI (checked against 1.0.102, see docs/compatibility.md).
//!
//! - Hooks in `.github/hooks/*.json` (project; we write `handover.json`) and
//!   `$COPILOT_HOME/hooks/*.json` (user, default `~/.copilot/hooks/`): `{"version": 1, "hooks":
//!   {"sessionStart": [{"type": "command", "bash": "...", "timeoutSec": 10}], ...}}` — a flat
//!   list of handlers per event, no matcher groups. Events sessionStart (`source` `new` under
//!   `-p`, `startup`, `resume`), userPromptSubmitted, postToolUse, agentStop, preCompact
//!   (`trigger` `auto` | `manual`), sessionEnd (`reason` `complete` under `-p`, `user_exit`,
//!   `error`, ...). No postCompact, and no sessionStart after a compaction.
//! - Payloads are camelCase (`sessionId`, `cwd`, `transcriptPath` on agentStop and preCompact
//!   only) and carry NO event name: the hook entry names its event (`--event <name>`).
//! - Output: only a top-level `additionalContext` is read (a `hookSpecificOutput` is ignored).
//!   sessionStart's becomes a user message of its own, userPromptSubmitted's a
//!   `<system_reminder>` in the prompt, postToolUse's is appended to the tool's result.
//!   agentStop takes `{"decision": "block", "reason"}` (the reason becomes the next prompt; the
//!   input's `stop_hook_active` is true on the stop that follows; at most 8 blocks in a row).
//!   preCompact's output is not used.
//! - It ALSO runs the hooks of `.claude/settings.json` (Claude Code's events and payload
//!   names, `hookSpecificOutput` ignored, a Stop block honoured): the hook's environment has
//!   `COPILOT_CLI=1` ([`runs_the_hook`]) and the payload names no Claude Code transcript
//!   ([`claude_form_of_its_own`]). Our Claude Code entries stay silent there, so each moment is
//!   answered once, by the Copilot entry. A Claude Code session started from a Copilot shell
//!   inherits `COPILOT_CLI=1`, but its payloads name its transcript: its entries answer.
//! - Compacts in the background from 80 % of the model's prompt limit
//!   (`backgroundCompactionThreshold` 0.80; it blocks at 95 %). Prompt limits are Copilot's
//!   own, lower than the model's window: 168,000 tokens for `claude-sonnet-4.5` in 1.0.102.
//! - Transcript `$COPILOT_HOME/session-state/<sessionId>/events.jsonl`, one event per line
//!   `{"type", "data", "id", "timestamp", "parentId"}`, flushed at most 100 ms after each event
//!   (`COPILOT_SESSIONFS_FLUSH_DEBOUNCE_MS`): `session.usage_record` (`data.usage.inputTokens`
//!   and cache tokens, `model`), `session.compaction_start` / `session.compaction_complete`
//!   (`tokenLimit`, `success`), `user.message` (`content`), `assistant.message` (`content`,
//!   `toolRequests`), `tool.execution_start` (`toolCallId`, `toolName`, `arguments`),
//!   `tool.execution_complete` (`shellExecution.exitCode`, `success`), `hook.start` /
//!   `hook.end`.
//! - Hooks load only in a folder the user trusted: `trustedFolders` (a list of paths) in
//!   `$COPILOT_HOME/config.json`, a JSON file Copilot writes with `//` comment lines above it.
//!   User-level hooks run everywhere.
//! - Instructions: it reads `.github/copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md` and
//!   `GEMINI.md` ([`INSTRUCTION_FILES`]) and shows each one's whole text; our section goes into
//!   `AGENTS.md` unless another of them has it. No plugin of ours.

use crate::transcript::{self, at, items_of, relative, request, str_of, Fact, Fullness, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookEvent, HookFiles, HookInput, LineMarks,
    MovedBy, Quirks, Response, SettingsLayers, ShellName, Timeout, Trust, UserDirs,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub static CLIENT: Client = Client {
    agent: Agent::Copilot,
    name: "copilot",
    aliases: &["copilot-cli"],
    display_name: "GitHub Copilot CLI",
    executable: "copilot",
    fresh_session: "`/clear` in GitHub Copilot CLI",
    // No postCompact: the handoff comes back through the next prompt or tool result after a
    // preCompact (the hooks arm that).
    events: EventNames::own(&[
        (HookEvent::SessionStart, "sessionStart"),
        (HookEvent::PreCompact, "preCompact"),
        (HookEvent::SessionEnd, "sessionEnd"),
        (HookEvent::Prompt, "userPromptSubmitted"),
        (HookEvent::Tool, "postToolUse"),
        (HookEvent::Stop, "agentStop"),
    ]),
    // `timeoutSec`, in seconds.
    timeout: Timeout::every(TIMEOUT_SECS),
    // GitHub Copilot CLI 1.0.102 sets `COPILOT_CLI=1` for its shell commands (and its hooks:
    // [`HOOK_ENV_MARK`]), and `COPILOT_AGENT_SESSION_ID` (its hooks' `sessionId`).
    shell_name: Some(ShellName::Is(HOOK_ENV_MARK, "1")),
    shell_session_id_var: Some("COPILOT_AGENT_SESSION_ID"),
    project_dir_var: None,
    quirks: Quirks::NONE,
    model_windows: &[],
    large_variant: None,
    // `$COPILOT_HOME/session-state/<session>/events.jsonl`.
    transcripts: "session-state",
    transcript_lines: LineMarks::Text(&[
        "\"user.message\"",
        "\"assistant.message\"",
        "\"tool.execution_start\"",
        "\"tool.execution_complete\"",
        "\"session.compaction_complete\"",
    ]),
    // Copilot CLI 1.0.102 files sessions by id, not by project; the first event,
    // `session.start`, names the session's working directory (`data.context.cwd`).
    transcript_filing: Filing::ByHeader {
        kind: "session.start",
        dir_at: "/data/context/cwd",
    },
    late_end: None,
    // `COPILOT_SESSIONFS_FLUSH_DEBOUNCE_MS`, default 100: events are written once none came
    // for that long.
    transcript_flush_delay: Some(std::time::Duration::from_millis(FLUSH_DEBOUNCE_MS)),
    home: Home {
        dir: ".copilot",
        moved_by: Some(MovedBy::Dir(HOME_VAR)),
    },
    // A file of ours in the hooks directory (`HOOKS_FILE_NAME`): Copilot reads every `*.json`
    // there.
    hook_files: HookFiles {
        project: ".github/hooks/handover.json",
        local: None,
        user: "hooks/handover.json",
        also_read: &[],
    },
    instruction_file: "AGENTS.md",
    instruction_files_read: &INSTRUCTION_FILES,
    trust: Trust::Folder,
    plugin_dir: None,
    behaviour: &Copilot,
};

pub struct Copilot;

/// The variable that moves Copilot CLI's user directory (default `~/.copilot`).
pub const HOME_VAR: &str = "COPILOT_HOME";

/// Set to `1` in the environment of every hook Copilot CLI runs, its own and Claude Code's.
pub const HOOK_ENV_MARK: &str = "COPILOT_CLI";

/// The file our project hooks live in, under `.github/hooks/`.
pub const HOOKS_FILE_NAME: &str = "handover.json";

/// Copilot CLI 1.0.102's default `COPILOT_SESSIONFS_FLUSH_DEBOUNCE_MS`.
pub const FLUSH_DEBOUNCE_MS: u64 = 100;

/// Where Copilot compacts by itself, in percent of the prompt limit
/// (`backgroundCompactionThreshold`).
pub const COMPACTION_PERCENT: u8 = 80;

impl Behaviour for Copilot {
    /// Its payloads name the session `sessionId`; no other client does.
    fn marks_payload(&self, input: &HookInput) -> bool {
        input.camel_case
    }

    fn owns_transcript(&self, path: &str) -> bool {
        path.contains("/.copilot/session-state/")
    }

    fn own_output(&self, response: &Response) -> Option<Vec<u8>> {
        Some(encode(response))
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    fn transcript_fullness(&self, tail: &[u8], at_file_start: bool) -> Option<Fullness> {
        scan(tail, at_file_start)
    }

    fn compaction_percent(&self, _: SettingsLayers, _: u64) -> Option<u8> {
        Some(COMPACTION_PERCENT)
    }

    fn transcript_of(&self, input: &HookInput, dirs: &UserDirs) -> Option<PathBuf> {
        transcript_path(&CLIENT.user_dir(dirs)?, input.session_id.as_deref()?)
    }

    /// It runs `.claude/settings.json` too, with `COPILOT_CLI=1` in the hook's environment and
    /// a payload that is not Claude Code's ([`claude_form_of_its_own`]).
    fn runs_entries_of(
        &self,
        other: Agent,
        input: &HookInput,
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> bool {
        other == Agent::Claude && runs_the_hook(env) && claude_form_of_its_own(input)
    }
}

/// Whether a hook process was started by Copilot CLI (from its environment, through
/// `lookup`): then a Claude Code entry of ours is Copilot running `.claude/settings.json`, and
/// stays silent — the Copilot entry answers.
pub fn runs_the_hook(lookup: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    lookup(HOOK_ENV_MARK).is_some_and(|v| v == "1")
}

/// A Claude Code form payload is Copilot's own, not Claude Code's: Claude Code names its
/// transcript (`~/.claude/projects/...`) in every hook input, while Copilot CLI 1.0.102 names
/// one only at Stop, and there it is its own `session-state/<id>/events.jsonl`. The
/// environment alone cannot tell: `COPILOT_CLI=1` is inherited by everything started from a
/// Copilot shell, a Claude Code session among them, whose own entries must still answer.
pub fn claude_form_of_its_own(input: &HookInput) -> bool {
    input
        .transcript_path
        .as_deref()
        .is_none_or(|path| Copilot.owns_transcript(path))
}

/// The transcript of session `session_id`: `<user_dir>/session-state/<id>/events.jsonl`. Only
/// agentStop and preCompact name it in their input; the other events are found here. None for
/// an id that is not one plain name (it must not lead anywhere else).
pub fn transcript_path(user_dir: &Path, session_id: &str) -> Option<PathBuf> {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    plain.then(|| {
        user_dir
            .join("session-state")
            .join(session_id)
            .join("events.jsonl")
    })
}

/// The instruction files Copilot CLI 1.0.102 reads from a repository (and the directory it
/// starts in), as seen in its requests: each one's whole text goes to its agent, only
/// byte-identical files once; `.claude/CLAUDE.md` and `.gemini/GEMINI.md` are not read.
pub const INSTRUCTION_FILES: [&str; 4] = [
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".github/copilot-instructions.md",
];

/// Where Copilot records folder trust.
pub fn config_file(user_dir: &Path) -> PathBuf {
    user_dir.join("config.json")
}

/// Copilot's form: a top-level `additionalContext` (its only context field) and the stop block.
/// Nothing else is printed: preCompact's output is not used.
fn encode(response: &Response) -> Vec<u8> {
    use crate::output::quote;
    let line = match response {
        Response::Silent | Response::Plain(_) => return Vec::new(),
        Response::Context { text, .. } => format!("{{\"additionalContext\":{}}}", quote(text)),
        Response::Block { reason, .. } => {
            format!("{{\"decision\":\"block\",\"reason\":{}}}", quote(reason))
        }
    };
    format!("{line}\n").into_bytes()
}

/// Copilot CLI 1.0.102's prompt limit for a model of its catalog, when the transcript has not
/// stated it yet (it does at a compaction): lower than the model's own window.
pub fn prompt_limit(model: &str) -> Option<u64> {
    model.starts_with("claude-").then_some(168_000)
}

// ---- Context watch ----

enum Line {
    Usage(Usage),
    Compacted,
    /// The prompt limit Copilot states: `tokenLimit` at a compaction, or
    /// `toolTelemetry.metrics.context_token_limit` after each tool call.
    Limit(u64),
}

/// Cheap substring checks first: prompts and tool output are never parsed.
fn classify(line: &[u8]) -> Option<Line> {
    const MARKERS: [&[u8]; 3] = [
        b"session.usage_record",
        b"session.compaction_complete",
        b"okenLimit",
    ];
    const LIMIT: [&[u8]; 2] = [b"\"tokenLimit\"", b"\"context_token_limit\""];
    if !MARKERS.iter().any(|m| transcript::contains(line, m))
        && !LIMIT.iter().any(|m| transcript::contains(line, m))
    {
        return None;
    }
    let v: Value = serde_json::from_slice(line).ok()?;
    let data = v.get("data")?;
    match str_of(&v, "type")? {
        "session.usage_record" => {
            let usage = data.get("usage")?;
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            let used = n("inputTokens") + n("cacheReadTokens") + n("cacheWriteTokens");
            (used > 0).then(|| {
                Line::Usage(Usage {
                    used_tokens: used,
                    window: None,
                    model: str_of(usage, "model").map(str::to_string),
                })
            })
        }
        "session.compaction_complete" if transcript::flag(data, "success") => Some(Line::Compacted),
        _ => data
            .get("tokenLimit")
            .or_else(|| data.pointer("/toolTelemetry/metrics/context_token_limit"))
            .and_then(Value::as_f64)
            .filter(|l| *l >= 1.0)
            .map(|l| Line::Limit(l as u64)),
    }
}

/// The newest usage; a completed compaction after it means just compacted (Copilot keeps
/// answering while it compacts in the background, so usages come between its start and end).
/// The window is the prompt limit Copilot stated nearest to that usage, else its limit for the
/// model ([`prompt_limit`]).
fn scan(tail: &[u8], at_file_start: bool) -> Option<Fullness> {
    let mut newest: Option<Usage> = None;
    let mut compacted_after = false;
    let mut limit_after = None;
    for line in transcript::lines_newest_first(tail, at_file_start) {
        match (classify(line), newest.as_mut()) {
            (Some(Line::Compacted), None) => compacted_after = true,
            (Some(Line::Limit(l)), None) => limit_after = limit_after.or(Some(l)),
            (Some(Line::Usage(_)), None) if compacted_after => {
                return Some(Fullness::JustCompacted)
            }
            (Some(Line::Usage(u)), None) => {
                let found = newest.insert(u);
                found.window = limit_after;
                if limit_after.is_some() {
                    break;
                }
            }
            (Some(Line::Limit(l)), Some(n)) => {
                n.window = Some(l);
                break;
            }
            _ => {}
        }
    }
    let mut usage = newest?;
    if usage.window.is_none() {
        usage.window = usage.model.as_deref().and_then(prompt_limit);
    }
    Some(Fullness::Measured(usage))
}

// ---- Session record ----

fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let Some(data) = v.get("data") else {
        return;
    };
    // An event of a sub-agent names it: not the session's own work.
    if data.get("agentId").is_some_and(|a| !a.is_null()) {
        return;
    }
    match str_of(v, "type") {
        Some("user.message") => {
            at(v, out);
            if let Some(text) = str_of(data, "content") {
                request(text, out);
            }
        }
        Some("assistant.message") => {
            at(v, out);
            if let Some(text) = str_of(data, "content").filter(|t| !t.trim().is_empty()) {
                out.push(Fact::AgentMessage(text.to_string()));
            }
        }
        Some("tool.execution_start") => {
            at(v, out);
            let args = data.get("arguments").unwrap_or(&Value::Null);
            if str_of(data, "toolName") == Some("bash") {
                if let (Some(id), Some(cmd)) = (str_of(data, "toolCallId"), str_of(args, "command"))
                {
                    out.push(Fact::CommandCalled {
                        id: id.to_string(),
                        command: cmd.to_string(),
                    });
                }
            }
        }
        Some("tool.execution_complete") => {
            at(v, out);
            completed(data, root, out);
        }
        Some("session.compaction_complete") if transcript::flag(data, "success") => {
            at(v, out);
            out.push(Fact::Compacted);
        }
        _ => {}
    }
}

/// A finished tool call: the files it edited (`fileEdits`, whatever the tool: `create`,
/// `edit`, ...), and a shell command's end (`shellExecution.exitCode`; `success` stays true
/// for a command that failed).
fn completed(data: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    for edit in items_of(data, "fileEdits") {
        if let Some(p) = str_of(edit, "path") {
            out.push(Fact::Edited(relative(p, root)));
        }
    }
    let exit = data
        .pointer("/shellExecution/exitCode")
        .and_then(Value::as_i64);
    if let (Some(id), Some(exit)) = (str_of(data, "toolCallId"), exit) {
        out.push(Fact::CommandResult {
            id: id.to_string(),
            failed: exit != 0,
            exit_code: Some(exit),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scope, UserDirs};
    use std::path::PathBuf;

    /// The captured session ran in `/tmp/FIXTURE/project`: its `session.start` says so.
    #[test]
    fn events_belong_to_the_project_their_session_start_names() {
        crate::assert_first_line_names_the_project(
            &CLIENT,
            "copilot-1.0.102/events.jsonl",
            "/tmp/FIXTURE/project/sub",
        );
    }

    const EVENTS: &str =
        include_str!("../../../../tests/fixtures/clients/copilot-1.0.102/events.jsonl");
    const EVENTS_TOOLS: &str =
        include_str!("../../../../tests/fixtures/clients/copilot-1.0.102/events-tools.jsonl");

    /// The first `n` lines of the session-1 transcript, as the hook would find the file then.
    fn first_lines(n: usize) -> String {
        EVENTS.lines().take(n).map(|l| format!("{l}\n")).collect()
    }

    fn measured(used: u64, window: u64) -> Option<Fullness> {
        crate::transcript::measured(used, Some(window), Some("claude-sonnet-4.5"))
    }

    #[test]
    fn fullness_follows_the_captured_session_through_its_compaction() {
        let at = |n: usize| Copilot.transcript_fullness(first_lines(n).as_bytes(), true);
        // Before any tool ran: no limit stated yet, Copilot's limit for the model.
        assert_eq!(at(9), measured(5_000, 168_000));
        // After the first tool call: the limit its telemetry stated.
        assert_eq!(at(19), measured(6_000, 168_000));
        // The resumed run with a 40,000 prompt limit: 33,000 used, the compaction starting.
        assert_eq!(at(46), measured(33_000, 40_000));
        // Compaction complete, no usage since: nothing to measure yet.
        assert_eq!(at(57), Some(Fullness::JustCompacted));
        // The whole file: the usage after the compaction.
        assert_eq!(
            Copilot.transcript_fullness(EVENTS.as_bytes(), true),
            measured(5_200, 40_000)
        );
        // A tail that starts mid-line drops that line and still finds the newest usage.
        let tail = &EVENTS.as_bytes()[EVENTS.len() - 9_000..];
        assert_eq!(
            Copilot.transcript_fullness(tail, false),
            measured(5_200, 40_000)
        );
        assert_eq!(Copilot.transcript_fullness(b"", true), None);
    }

    #[test]
    fn facts_of_the_captured_tool_session() {
        let out = crate::facts_in(&CLIENT, EVENTS_TOOLS.as_bytes());
        assert_eq!(
            crate::without_times(&out),
            crate::tools_session(["toolu_fake_3", "toolu_fake_4"], crate::ended)
        );
        assert!(matches!(out.first(), Some(Fact::At(_))));
        // The compaction of session 1 is a fact too.
        let mut s1 = Vec::new();
        for line in EVENTS.lines() {
            CLIENT.transcript_facts(line.as_bytes(), None, &mut s1);
        }
        assert_eq!(s1.iter().filter(|f| **f == Fact::Compacted).count(), 1);
    }

    #[test]
    fn its_payloads_are_told_apart_and_its_claude_format_ones_are_not() {
        use crate::detect;
        for file in [
            "session_start-new.json",
            "user_prompt_submitted.json",
            "post_tool_use.json",
            "agent_stop.json",
            "pre_compact-auto.json",
            "session_end-complete.json",
        ] {
            let bytes = crate::fixture(&format!("copilot-1.0.102/{file}"));
            assert_eq!(detect(&HookInput::parse(&bytes)), Agent::Copilot, "{file}");
        }
        let claude_form = include_bytes!(
            "../../../../tests/fixtures/clients/copilot-1.0.102/claude_format-session_start.json"
        );
        assert_eq!(detect(&HookInput::parse(claude_form)), Agent::Claude);
        assert!(Copilot.owns_transcript("/h/.copilot/session-state/abc/events.jsonl"));
    }

    #[test]
    fn a_hook_started_by_copilot_knows_it() {
        let env = |set: Option<&'static str>| {
            move |name: &str| {
                (name == HOOK_ENV_MARK)
                    .then(|| set.map(Into::into))
                    .flatten()
            }
        };
        assert!(runs_the_hook(&env(Some("1"))));
        assert!(!runs_the_hook(&env(None)));
        assert!(!runs_the_hook(&env(Some("0"))));
        // Its runs of Claude Code's entries are told apart; nothing else is.
        let fixture = |name: &str| HookInput::parse(&crate::fixture(name));
        let its_claude_form = [
            "copilot-1.0.102/claude_format-session_start.json",
            "copilot-1.0.102/claude_format-user_prompt_submit.json",
            "copilot-1.0.102/claude_format-post_tool_use.json",
            "copilot-1.0.102/claude_format-stop.json",
        ];
        for name in its_claude_form {
            let input = fixture(name);
            assert!(input.hook_event_name.is_some(), "{name}: fixture read");
            assert_eq!(
                crate::guest_of(Agent::Claude, &input, &env(Some("1"))),
                Some(Agent::Copilot),
                "{name}"
            );
            assert_eq!(crate::guest_of(Agent::Claude, &input, &env(None)), None);
            assert_eq!(crate::guest_of(Agent::Codex, &input, &env(Some("1"))), None);
            assert_eq!(
                crate::guest_of(Agent::Copilot, &input, &env(Some("1"))),
                None
            );
        }
        // Claude Code started from a Copilot shell inherits COPILOT_CLI=1; its own payloads
        // name its transcript, and its entries answer.
        for name in [
            "claude-2.1.330/session_start-startup.json",
            "claude-2.1.330/user_prompt_submit.json",
            "claude-2.1.330/post_tool_use.json",
            "claude-2.1.330/stop.json",
            "claude-2.1.330/pre_compact-auto.json",
            "claude-2.1.330/session_end-other.json",
        ] {
            let input = fixture(name);
            assert!(input.transcript_path.is_some(), "{name}: fixture read");
            assert_eq!(
                crate::guest_of(Agent::Claude, &input, &env(Some("1"))),
                None,
                "{name}"
            );
        }
    }

    #[test]
    fn the_transcript_of_a_session_is_found_by_its_plain_id_only() {
        let user = Path::new("/home/u/.copilot");
        assert_eq!(
            transcript_path(user, "56a6ce40-714d-4cdf-96d0-5be2fcea3078"),
            Some(PathBuf::from(
                "/home/u/.copilot/session-state/56a6ce40-714d-4cdf-96d0-5be2fcea3078/events.jsonl"
            ))
        );
        for bad in ["", "..", "../../etc", "a/b", "x\0y", &"a".repeat(200)] {
            assert_eq!(transcript_path(user, bad), None, "{bad}");
        }
    }

    #[test]
    fn files_live_under_github_hooks_and_its_home() {
        let repo = Path::new("/r");
        let dirs = UserDirs::under(Path::new("/home/u"));
        let user = crate::copilot::CLIENT.user_dir(&dirs).unwrap_or_default();
        assert_eq!(user, Path::new("/home/u/.copilot"));
        let moved = CLIENT
            .user_dir(&dirs.clone().with_var(HOME_VAR, Path::new("/elsewhere")))
            .unwrap_or_default();
        assert_eq!(moved, Path::new("/elsewhere"));
        let input = HookInput {
            session_id: Some("abc-1".into()),
            ..HookInput::default()
        };
        assert_eq!(
            Copilot.transcript_of(&input, &dirs),
            Some(PathBuf::from(
                "/home/u/.copilot/session-state/abc-1/events.jsonl"
            ))
        );
        assert_eq!(
            crate::copilot::CLIENT.hooks_file(Scope::Project, repo, &user),
            Path::new("/r/.github/hooks/handover.json")
        );
        assert_eq!(
            crate::copilot::CLIENT.hooks_file(Scope::User, repo, &user),
            Path::new("/home/u/.copilot/hooks/handover.json")
        );
        assert_eq!(
            config_file(&user),
            Path::new("/home/u/.copilot/config.json")
        );
        assert_eq!(
            Copilot.compaction_percent(SettingsLayers::default(), 168_000),
            Some(80)
        );
        assert_eq!(
            crate::copilot::CLIENT.event_name(HookEvent::PostCompact),
            None
        );
    }
}
