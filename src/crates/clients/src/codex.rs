//! OpenAI Codex (checked against 0.171.0; its payloads were captured from 0.169.0, see
//! docs/compatibility.md).
//!
//! - Events: the same names as Claude Code; turn-scoped events carry `turn_id`. Hook `timeout`
//!   in seconds; SessionEnd at most 3 (a larger value is clamped, with a warning at every
//!   start).
//! - Output: Claude Code's forms; it rejects keys it does not expect (no `systemMessage` with
//!   a block).
//! - Hooks in `<repo>/.codex/hooks.json` (no local layer) and `$CODEX_HOME/hooks.json`
//!   (`$CODEX_HOME` defaults to `~/.codex`). A hook runs only once trusted: its hash recorded
//!   in the user's config.toml under `[hooks.state."<hooks.json>:<event_snake>:<group>:<handler>"]`
//!   ([`trust_key`]); the installer records it through `codex app-server`.
//! - Transcript (rollout JSONL, `$CODEX_HOME/sessions/.../rollout-*.jsonl`): `event_msg` /
//!   `item_completed` items `UserMessage`, `AgentMessage`, `CommandExecution` (`command` argv,
//!   `exit_code`), `FileChange` (`changes` by path); a `custom_tool_call` or `function_call`
//!   named `apply_patch` names its files in the patch; a top-level `compacted` line marks a
//!   compaction. Usage: `event_msg` / `token_count` with non-null `info`
//!   (`last_token_usage.total_tokens`, `model_context_window`); 0.169.0 writes a top-level
//!   `token_usage_record` (the response's usage) BEFORE it runs PostToolUse and the
//!   `token_count` only afterwards: the newest usage comes from the record, the window from
//!   the newest `token_count` before it.
//! - Compaction point: `model_auto_compact_token_limit` from the user's config.toml, a
//!   project's `.codex/config.toml`, or the `[profiles.<name>]` the `profile` key selects; the
//!   lowest counts; unset, about 90 % of the window. A profile chosen with `--profile` is not
//!   visible to a hook.
//! - Instruction file `AGENTS.md`; plugin in `plugin/codex`.

use crate::transcript::{self, at, items_of, relative, request, str_of, Fact, Fullness, Usage};
use crate::{
    Agent, Behaviour, Client, EventNames, Filing, Home, HookEvent, HookFiles, HookInput, LineMarks,
    ModelWindow, MovedBy, Quirks, SettingsLayers, ShellSign, Timeout, Trust,
};
use handover_base::hook_exe::TIMEOUT_SECS;
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub static CLIENT: Client = Client {
    agent: Agent::Codex,
    name: "codex",
    aliases: &[],
    display_name: "Codex",
    executable: "codex",
    fresh_session: "`/new` in Codex",
    // Claude Code's names, without PostToolUseFailure (0.169.0 has none).
    events: EventNames::common_without(&[HookEvent::ToolFailure]),
    timeout: Timeout {
        every: TIMEOUT_SECS,
        except: &[(HookEvent::SessionEnd, SESSION_END_TIMEOUT_SECS)],
    },
    shell_name: None,
    shell_session_id_var: Some("CODEX_THREAD_ID"),
    project_dir_var: None,
    quirks: Quirks::NONE,
    model_windows: &[
        window("gpt-5", 272_000),
        window("gpt-4.1", 1_047_576),
        window("gpt-4o", 128_000),
        window("o3", 200_000),
        window("o4-mini", 200_000),
        window("codex-mini", 200_000),
    ],
    large_variant: None,
    // `$CODEX_HOME/sessions/<yyyy>/<mm>/<dd>/rollout-*.jsonl`.
    transcripts: "sessions",
    transcript_lines: LineMarks::Text(&["item_completed", "apply_patch", "\"compacted\""]),
    // Codex 0.169.0 files rollouts by date, not by project; the rollout's first line, its
    // `session_meta`, names the session's working directory (`payload.cwd`).
    transcript_filing: Filing::ByHeader {
        kind: "session_meta",
        dir_at: "/payload/cwd",
    },
    // Interactive Codex runs no hook at `/exit` or Ctrl-C: its background `app-server`
    // reports the thread's SessionEnd about a minute after it is left (the record then gets
    // its end). `codex exec` reports its end at once.
    late_end: Some("Codex reports the end of an interactive session about a minute after it is quit or left; a killed one never reports it"),
    transcript_flush_delay: None,
    home: Home {
        dir: ".codex",
        moved_by: Some(MovedBy::Dir(HOME_VAR)),
    },
    hook_files: HookFiles {
        project: ".codex/hooks.json",
        local: None,
        user: "hooks.json",
        also_read: &[],
    },
    instruction_file: "AGENTS.md",
    instruction_files_read: &[],
    trust: Trust::PerHook,
    plugin_dir: Some("plugin/codex"),
    behaviour: &Codex,
};

const fn window(prefix: &'static str, window: u64) -> ModelWindow {
    ModelWindow {
        prefix,
        window,
        source: "",
    }
}

pub struct Codex;

/// The variable that moves Codex's user directory.
pub const HOME_VAR: &str = "CODEX_HOME";

/// Where Codex compacts when no limit is configured: about 90 % of the window.
pub const DEFAULT_COMPACT_PERCENT: u8 = 90;

/// The most Codex 0.169.0 allows a SessionEnd hook: it clamps a larger `timeout` to this and
/// prints a warning at every start ("clamping SessionEnd hook timeout to 3s"). Our SessionEnd
/// work (the session record) takes milliseconds.
pub const SESSION_END_TIMEOUT_SECS: u64 = 3;

/// Config files are small; a huge one is not read.
const CONFIG_MAX_BYTES: u64 = 1 << 20;

const LIMIT_KEY: &str = "model_auto_compact_token_limit";

impl Behaviour for Codex {
    /// Codex marks turn-scoped events with `turn_id`; Claude Code never does.
    fn marks_payload(&self, input: &HookInput) -> bool {
        input.has_turn_id
    }

    /// Its transcripts are `rollout-*.jsonl` files under its home.
    fn owns_transcript(&self, path: &str) -> bool {
        let name = path.rsplit(['/', '\\']).next().unwrap_or("");
        name.starts_with("rollout-") || path.contains("/.codex/")
    }

    /// Codex sets `CODEX_THREAD_ID` for its shell commands (and `CODEX_SANDBOX*` inside its
    /// sandbox; names read from the Codex 0.169 binary); none names Codex as a flag would, so
    /// the sign is indirect. Other `CODEX_*` variables (`CODEX_HOME`, `CODEX_API_KEY`) are a
    /// person's own configuration and say nothing about who runs this. Its hooks' session id
    /// is the thread's.
    fn runs_this_shell(&self, env: &dyn Fn(&str) -> Option<OsString>) -> Option<ShellSign> {
        const CODEX_RUNS_THIS: [&str; 3] = [
            "CODEX_THREAD_ID",
            "CODEX_SANDBOX",
            "CODEX_SANDBOX_NETWORK_DISABLED",
        ];
        CODEX_RUNS_THIS
            .iter()
            .any(|k| env(k).is_some_and(|v| !v.is_empty()))
            .then_some(ShellSign::Indirect)
    }

    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
        facts(line, root, out);
    }

    fn fullness_of_line(&self, line: &[u8]) -> Option<Fullness> {
        fullness_of_line(line)
    }

    fn compaction_percent(&self, at: SettingsLayers, window: u64) -> Option<u8> {
        Some(compact_percent(auto_compact_limit(at), window))
    }

    /// Only a file some of whose hooks were trusted runs anything.
    fn runs_hooks_of(&self, hooks_file: &Path, user_dir: Option<&Path>) -> bool {
        let config = user_dir
            .and_then(|u| read_small(&config_file(u)))
            .unwrap_or_default();
        trusts_any_hook_of(&config, hooks_file)
    }
}

// ---- Trust ----

/// The user's config.toml, where Codex records trust (and reads its features and limits).
pub fn config_file(user_dir: &Path) -> PathBuf {
    user_dir.join("config.toml")
}

/// Codex's trust key for the handler at (`event`, `group`, `handler`) of `hooks_json`:
/// `<hooks.json path>:<event_snake>:<group>:<handler>`.
pub fn trust_key(hooks_json: &Path, event: &str, group: usize, handler: usize) -> String {
    format!(
        "{}:{}:{group}:{handler}",
        hooks_json.display(),
        snake_event(event)
    )
}

/// `SessionStart` → `session_start`: the event part of a trust key.
pub fn snake_event(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether the config text records trust for any hook of `hooks_json`: a file none of whose
/// hooks was ever trusted runs nothing. TOML escapes `"` and `\` in quoted keys; such paths
/// are not matched (the caller then assumes untrusted).
pub fn trusts_any_hook_of(config: &str, hooks_json: &Path) -> bool {
    let prefix = format!("{}:", hooks_json.display());
    config.contains(&format!("\"{prefix}")) || config.contains(&format!("'{prefix}"))
}

// ---- Compaction point ----

/// The lowest `model_auto_compact_token_limit` of the project's and the user's config (None:
/// none set, or unreadable: a hook never fails over a config file).
pub fn auto_compact_limit(at: SettingsLayers) -> Option<u64> {
    let files = [
        at.project.map(|p| p.join(".codex").join("config.toml")),
        at.user_dir.map(config_file),
    ];
    files
        .into_iter()
        .flatten()
        .filter_map(|f| read_small(&f))
        .filter_map(|text| limit_in(&text))
        .min()
}

/// Codex's compaction point as a whole percent of `window`: the configured limit when there is
/// one (never above the default), else the default.
pub fn compact_percent(limit: Option<u64>, window: u64) -> u8 {
    let configured = limit
        .filter(|_| window > 0)
        .map(|l| crate::whole_percent(l as f64, window as f64));
    configured
        .unwrap_or(DEFAULT_COMPACT_PERCENT)
        .min(DEFAULT_COMPACT_PERCENT)
}

/// A config file through the read gate: a project's `.codex/config.toml` comes with the clone,
/// so a link to a device or a FIFO there must never be read or waited on.
fn read_small(file: &Path) -> Option<String> {
    use handover_base::read_gate::{self, Links};
    read_gate::read_to_string(file, Links::Follow, CONFIG_MAX_BYTES).ok()?
}

/// The limit a config file sets: top level, or in the profile its `profile` key selects; the
/// lower of the two. Text that does not mention the key is not parsed at all.
pub fn limit_in(text: &str) -> Option<u64> {
    if !text.contains(LIMIT_KEY) {
        return None;
    }
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    let positive = |item: Option<&toml_edit::Item>| {
        item.and_then(toml_edit::Item::as_integer)
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n > 0)
    };
    let top = positive(doc.get(LIMIT_KEY));
    let profile = doc
        .get("profile")
        .and_then(toml_edit::Item::as_str)
        .and_then(|name| doc.get("profiles")?.get(name)?.get(LIMIT_KEY))
        .and_then(|item| positive(Some(item)));
    top.into_iter().chain(profile).min()
}

// ---- Transcript ----

fn fullness_of_line(line: &[u8]) -> Option<Fullness> {
    let v = transcript::parse_marked(line, &["\"usage\"", "token_count", "compact"])?;
    match str_of(&v, "type").unwrap_or("") {
        "event_msg" => usage(v.get("payload")?).map(Fullness::Measured),
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

fn usage(payload: &Value) -> Option<Usage> {
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

fn facts(v: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    let kind = str_of(v, "type").unwrap_or("");
    let payload = v.get("payload").unwrap_or(&Value::Null);
    match kind {
        "compacted" => {
            at(v, out);
            out.push(Fact::Compacted);
        }
        "response_item" => {
            let name = str_of(payload, "name");
            if name != Some("apply_patch") {
                return;
            }
            let patch = match str_of(payload, "type") {
                Some("custom_tool_call") => str_of(payload, "input").map(str::to_string),
                Some("function_call") => str_of(payload, "arguments")
                    .and_then(|a| serde_json::from_str::<Value>(a).ok())
                    .and_then(|a| {
                        str_of(&a, "input")
                            .or_else(|| str_of(&a, "patch"))
                            .map(str::to_string)
                    }),
                _ => None,
            };
            if let Some(p) = patch {
                at(v, out);
                for path in patch_paths(&p) {
                    out.push(Fact::Edited(relative(&path, root)));
                }
            }
        }
        "event_msg" if str_of(payload, "type") == Some("item_completed") => {
            let Some(item) = payload.get("item") else {
                return;
            };
            at(v, out);
            item_facts(item, root, out);
        }
        _ => {}
    }
}

/// The facts of a completed item.
fn item_facts(item: &Value, root: Option<&Path>, out: &mut Vec<Fact>) {
    match str_of(item, "type").unwrap_or("") {
        "UserMessage" => {
            let text = texts(item);
            request(&text, out);
        }
        "AgentMessage" => {
            let text = texts(item);
            if !text.trim().is_empty() {
                out.push(Fact::AgentMessage(text));
            }
        }
        "CommandExecution" => {
            if let Some(cmd) = command_of(item.get("command")) {
                let exit_code = item.get("exit_code").and_then(Value::as_i64);
                if let Some(p) = apply_patch_heredoc(&cmd) {
                    for path in patch_paths(&p) {
                        out.push(Fact::Edited(relative(&path, root)));
                    }
                }
                out.push(Fact::CommandRan {
                    command: cmd,
                    exit_code,
                });
            }
        }
        "FileChange" => {
            for path in file_change_paths(item) {
                out.push(Fact::Edited(relative(&path, root)));
            }
        }
        _ => {}
    }
}

/// The texts of an item's `content`, joined.
fn texts(item: &Value) -> String {
    items_of(item, "content")
        .filter_map(|c| str_of(c, "text"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The command line: the script of `bash -lc <script>`, else the argv joined by spaces.
fn command_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(argv) => {
            let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            let is_shell = argv.first().is_some_and(|p| {
                let name = p.rsplit('/').next().unwrap_or(p);
                matches!(name, "bash" | "sh" | "zsh" | "dash")
            });
            if is_shell && argv.len() == 3 && matches!(argv[1], "-lc" | "-c") {
                Some(argv[2].to_string())
            } else if argv.is_empty() {
                None
            } else {
                Some(argv.join(" "))
            }
        }
        _ => None,
    }
}

/// Codex's `FileChange` item: `changes` is a map or a list keyed by path.
fn file_change_paths(item: &Value) -> Vec<String> {
    match item.get("changes") {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|c| str_of(c, "path").map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// `apply_patch <<'EOF' ... EOF` run through the shell.
fn apply_patch_heredoc(cmd: &str) -> Option<String> {
    let t = cmd.trim_start();
    if !t.starts_with("apply_patch") {
        return None;
    }
    t.contains("*** Begin Patch").then(|| t.to_string())
}

/// The files a patch in Codex's format touches.
pub fn patch_paths(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|l| HEADERS.iter().find_map(|h| l.strip_prefix(h)))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The captured rollout ran in `/tmp/FIXTURE/project`: its `session_meta` says so.
    #[test]
    fn a_rollout_belongs_to_the_project_its_session_meta_names() {
        crate::assert_first_line_names_the_project(
            &CLIENT,
            "codex-0.169.0/rollout.jsonl",
            "/tmp/FIXTURE/other",
        );
    }

    fn measured(used: u64, window: Option<u64>) -> Option<Fullness> {
        crate::transcript::measured(used, window, None)
    }

    #[test]
    fn token_count_with_null_info_is_skipped() {
        let t = r#"{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":999999},"last_token_usage":{"total_tokens":180000},"model_context_window":272000}}}
{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"assistant"}}
{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":null}}"#;
        assert_eq!(
            Codex.transcript_fullness(t.as_bytes(), true),
            measured(180_000, Some(272_000))
        );
        let compacted = format!(
            "{t}\n{}",
            r#"{"timestamp":"x","type":"compacted","payload":{"message":"s"}}"#
        );
        assert_eq!(
            Codex.transcript_fullness(compacted.as_bytes(), true),
            Some(Fullness::JustCompacted)
        );
    }

    #[test]
    fn the_usage_record_is_newer_than_token_count_and_borrows_its_window() {
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
            Codex.transcript_fullness(tail.as_bytes(), true),
            measured(200_000, Some(258_400))
        );
        let tail = format!("{}\n", record(5000));
        assert_eq!(
            Codex.transcript_fullness(tail.as_bytes(), true),
            measured(5000, None)
        );
        let tail = format!(
            "{}\n{}\n{{\"type\":\"compacted\",\"payload\":{{}}}}\n",
            count(1000),
            record(200_000)
        );
        assert_eq!(
            Codex.transcript_fullness(tail.as_bytes(), true),
            Some(Fullness::JustCompacted)
        );
    }

    #[test]
    fn limit_from_top_level_or_the_selected_profile_lowest_wins() {
        assert_eq!(limit_in("model = \"gpt-5.5\"\n"), None);
        assert_eq!(
            limit_in("model_auto_compact_token_limit = 60000\n"),
            Some(60_000)
        );
        let profiles = "profile = \"fast\"\nmodel_auto_compact_token_limit = 90000\n\n[profiles.fast]\nmodel_auto_compact_token_limit = 50000\n\n[profiles.slow]\nmodel_auto_compact_token_limit = 10000\n";
        assert_eq!(
            limit_in(profiles),
            Some(50_000),
            "the selected profile only"
        );
        let unselected = "[profiles.fast]\nmodel_auto_compact_token_limit = 50000\n";
        assert_eq!(limit_in(unselected), None);
        for bad in [
            "model_auto_compact_token_limit = \"60000\"\n",
            "model_auto_compact_token_limit = -5\n",
            "model_auto_compact_token_limit = 0\n",
            "model_auto_compact_token_limit = \n",
        ] {
            assert_eq!(limit_in(bad), None, "{bad}");
        }
    }

    #[test]
    fn compaction_point_as_a_percent_never_above_the_default() {
        assert_eq!(compact_percent(Some(60_000), 100_000), 60);
        assert_eq!(compact_percent(Some(55_999), 100_000), 55);
        assert_eq!(compact_percent(None, 258_400), DEFAULT_COMPACT_PERCENT);
        assert_eq!(
            compact_percent(Some(500_000), 258_400),
            DEFAULT_COMPACT_PERCENT
        );
        assert_eq!(compact_percent(Some(10), 1_000_000), 1);
        assert_eq!(compact_percent(Some(60_000), 0), DEFAULT_COMPACT_PERCENT);
    }

    #[test]
    fn the_project_layer_and_the_user_layer_lowest_wins() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        let user = dir.path().join("codex");
        std::fs::create_dir_all(project.join(".codex")).unwrap();
        std::fs::create_dir_all(&user).unwrap();
        // Each layer written in turn; the lowest limit of the two counts.
        for (file, limit) in [
            (project.join(".codex/config.toml"), 70_000),
            (user.join("config.toml"), 50_000),
        ] {
            std::fs::write(&file, format!("model_auto_compact_token_limit = {limit}\n")).unwrap();
            assert_eq!(
                auto_compact_limit(crate::layers(&project, &user)),
                Some(limit),
                "{}",
                file.display()
            );
        }
        assert_eq!(
            Codex.compaction_percent(crate::layers(&project, &user), 100_000),
            Some(50)
        );
    }

    #[test]
    fn trust_keys_and_what_counts_as_trusted() {
        let hooks = Path::new("/r/.codex/hooks.json");
        assert_eq!(
            trust_key(hooks, "SessionStart", 0, 1),
            "/r/.codex/hooks.json:session_start:0:1"
        );
        assert_eq!(snake_event("UserPromptSubmit"), "user_prompt_submit");
        let config = format!(
            "[hooks.state.\"{}\"]\ntrusted_hash = \"sha256:x\"\n",
            trust_key(hooks, "Stop", 0, 0)
        );
        assert!(trusts_any_hook_of(&config, hooks));
        assert!(!trusts_any_hook_of(
            &config,
            Path::new("/other/.codex/hooks.json")
        ));
    }

    #[test]
    fn patch_paths_name_every_file_and_shell_commands_read_plainly() {
        let p = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-y\n+z\n*** Delete File: d\n*** End Patch";
        assert_eq!(patch_paths(p), ["a.txt", "src/b.rs", "src/c.rs", "d"]);
        assert_eq!(
            command_of(Some(&serde_json::json!(["/bin/bash", "-lc", "cargo test"]))),
            Some("cargo test".into())
        );
        assert_eq!(
            command_of(Some(&serde_json::json!(["git", "status"]))),
            Some("git status".into())
        );
    }

    #[test]
    fn its_shell_shows_in_its_thread_or_sandbox_variables_not_in_a_persons_settings() {
        use crate::env_of;
        for var in [
            "CODEX_THREAD_ID",
            "CODEX_SANDBOX",
            "CODEX_SANDBOX_NETWORK_DISABLED",
        ] {
            assert_eq!(
                Codex.runs_this_shell(&env_of(&[(var, "1")])),
                Some(ShellSign::Indirect),
                "{var}"
            );
            assert_eq!(
                Codex.runs_this_shell(&env_of(&[(var, "")])),
                None,
                "{var} empty"
            );
        }
        let own = env_of(&[("CODEX_HOME", "/home/u/.codex"), ("CODEX_API_KEY", "k")]);
        assert_eq!(Codex.runs_this_shell(&own), None);
        assert_eq!(
            crate::codex::CLIENT.shell_session_id_var,
            Some("CODEX_THREAD_ID")
        );
    }
}
