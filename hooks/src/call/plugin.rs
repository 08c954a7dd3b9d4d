//! Never twice: a hook run by the handover plugin (`--via plugin`) stays silent when the agent's
//! own settings also run the same executable on the same event, so a user with both the plugin
//! and `handover install` gets each answer once. The settings copy is the one that answers: it
//! is the more specific choice (a repository, or a user, asked for it).
//!
//! Decided at run time from the files the client itself reads, because either install can come
//! or go at any moment. Which files those are, and whether the client runs a file's hooks at
//! all, is the client module's knowledge (`Client::hook_layers`, `Behaviour::runs_hooks_of`):
//! Claude Code runs every hook in its settings layers (project, local, user); Codex runs a
//! `hooks.json` hook only once it was trusted, so a layer whose hooks were never trusted does
//! not count (otherwise the plugin would defer to a hook that never answers).

use handover_base::hook_command::our_exe;
use handover_clients::Agent;
use handover_clients::UserDirs;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Larger settings files are not ours to parse in a hook's time budget: then the plugin answers.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// `--via plugin` or `--via=plugin` among the arguments (unknown ones ignored, like `--agent`).
pub fn via_plugin<I: IntoIterator<Item = String>>(args: I) -> bool {
    crate::call::agent::flag_values(args, "--via")
        .iter()
        .any(|v| v == "plugin")
}

/// Where the client's own hook layers are, for one call.
#[derive(Clone, Debug, Default)]
pub struct Layers {
    /// The directory the client runs in: `$CLAUDE_PROJECT_DIR` for Claude Code (it reads project
    /// settings from there), the session's cwd for Codex.
    pub project_dirs: Vec<PathBuf>,
    /// Where each client's user directory is (handover_clients::Client::user_dir).
    pub dirs: UserDirs,
}

impl Layers {
    /// From the process environment and the hook's input.
    pub fn from_env(input_cwd: Option<&str>, store_root: Option<&Path>) -> Layers {
        let mut project_dirs: Vec<PathBuf> = Vec::new();
        let candidates = [
            handover_clients::project_dir(&|var| std::env::var_os(var)).map(PathBuf::from),
            input_cwd.map(PathBuf::from),
            store_root.map(Path::to_path_buf),
        ];
        for dir in candidates.into_iter().flatten() {
            if dir.is_absolute() && !project_dirs.contains(&dir) {
                project_dirs.push(dir);
            }
        }
        Layers {
            project_dirs,
            dirs: UserDirs::from_env(),
        }
    }

    /// True when a hook layer of `agent` that the client runs also runs `exe` (our
    /// executable's file name) on `event`, with a command that is not the plugin's own. A
    /// client without a handover plugin has nothing to defer to.
    pub fn settings_also_run(&self, agent: Agent, exe: &str, event: &str) -> bool {
        let client = handover_clients::of(agent);
        if client.plugin_dir.is_none() {
            return false;
        }
        let user_dir = client.user_dir(&self.dirs);
        client
            .hook_layers(&self.project_dirs, user_dir.as_deref())
            .iter()
            .any(|f| client.behaviour.runs_hooks_of(f, user_dir.as_deref()) && runs(f, exe, event))
    }
}

/// Through the read gate: a regular file only (a committed link to `/dev/zero` or a FIFO is
/// not read), at most the cap.
fn read_small(path: &Path) -> Option<String> {
    use handover_base::read_gate::{self, Links};
    read_gate::read_to_string(path, Links::Follow, MAX_SETTINGS_BYTES).ok()?
}

/// Whether the hooks document at `path` runs `exe` on `event` outside the plugin: a command that
/// is exactly ours by the installer's own rule (handover_base::hook_command), so a command that
/// merely names our executable (`true # handover-session-start`, the plugin's launcher) never
/// silences the plugin.
fn runs(path: &Path, exe: &str, event: &str) -> bool {
    let Some(text) = read_small(path) else {
        return false;
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    let groups = doc
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array);
    groups.into_iter().flatten().any(|group| {
        group
            .get("hooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| h.get("command").and_then(Value::as_str))
            .any(|c| our_exe(c).is_some_and(|e| e.file_name() == exe))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::agent::args_of;

    #[test]
    fn via_plugin_in_both_forms_and_nothing_else() {
        assert!(via_plugin(args_of(&[
            "--agent", "claude", "--via", "plugin"
        ])));
        assert!(via_plugin(args_of(&["--via=plugin", "x"])));
        assert!(!via_plugin(args_of(&["--via"])));
        assert!(!via_plugin(args_of(&["--via", "settings"])));
        assert!(!via_plugin(args_of(&["plugin"])));
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const SETTINGS: &str = r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"'/a b/handover-session-start' --agent claude"}]}]}}"#;
    const PLUGIN_ONLY: &str = r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"sh \"/p/run-hook.sh\" handover-session-start --agent claude --via plugin"}]}]}}"#;
    /// The hook the tests ask about: its executable and its event.
    const START: (&str, &str) = ("handover-session-start", "SessionStart");

    /// The layers of one project folder, with the user's folders `dirs`.
    fn layers(project: &Path, dirs: UserDirs) -> Layers {
        Layers {
            project_dirs: vec![project.to_path_buf()],
            dirs,
        }
    }

    #[test]
    fn claude_defers_to_any_settings_layer_that_runs_the_same_hook() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let home = tmp.path().join("home");
        let layers = layers(&project, UserDirs::under(&home));
        let (exe, ev) = START;
        assert!(!layers.settings_also_run(Agent::Claude, exe, ev));
        write(&project.join(".claude/settings.json"), PLUGIN_ONLY);
        assert!(!layers.settings_also_run(Agent::Claude, exe, ev));
        // A command that only names our executable is not ours: it does not silence the plugin.
        for not_ours in [
            "true # handover-session-start",
            "echo handover-session-start",
            "/x/handover-session-start --agent claude; true",
        ] {
            write(
                &project.join(".claude/settings.json"),
                &format!(
                    r#"{{"hooks":{{"SessionStart":[{{"hooks":[{{"type":"command","command":{}}}]}}]}}}}"#,
                    serde_json::Value::from(not_ours)
                ),
            );
            assert!(
                !layers.settings_also_run(Agent::Claude, exe, ev),
                "{not_ours}"
            );
        }
        // The portable command install writes is ours.
        write(
            &project.join(".claude/settings.json"),
            &format!(
                r#"{{"hooks":{{"SessionStart":[{{"hooks":[{{"type":"command","command":{}}}]}}]}}}}"#,
                serde_json::Value::from(handover_base::hook_exe::portable_command(
                    handover_base::HookExe::SessionStart,
                    Agent::Claude
                ))
            ),
        );
        assert!(layers.settings_also_run(Agent::Claude, exe, ev));
        write(&project.join(".claude/settings.json"), PLUGIN_ONLY);
        write(&home.join(".claude/settings.json"), SETTINGS);
        assert!(layers.settings_also_run(Agent::Claude, exe, ev));
        assert!(!layers.settings_also_run(Agent::Claude, exe, "Stop"));
        assert!(!layers.settings_also_run(Agent::Claude, "handover-pre-compact", ev));
        std::fs::remove_file(home.join(".claude/settings.json")).unwrap();
        write(&project.join(".claude/settings.local.json"), SETTINGS);
        assert!(layers.settings_also_run(Agent::Claude, exe, ev));
        // Codex never reads Claude's files.
        assert!(!layers.settings_also_run(Agent::Codex, exe, ev));
    }

    #[test]
    fn codex_defers_only_to_a_hooks_file_it_trusted() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let codex_home = tmp.path().join("codex");
        let layers = layers(
            &project,
            UserDirs::default().with_var("CODEX_HOME", &codex_home),
        );
        let (exe, ev) = START;
        let hooks = project.join(".codex/hooks.json");
        write(&hooks, SETTINGS);
        assert!(!layers.settings_also_run(Agent::Codex, exe, ev));
        write(
            &codex_home.join("config.toml"),
            &format!(
                "[hooks.state.\"{}:session_start:0:0\"]\ntrusted_hash = \"sha256:x\"\n",
                hooks.display()
            ),
        );
        assert!(layers.settings_also_run(Agent::Codex, exe, ev));
        assert!(!layers.settings_also_run(Agent::Codex, exe, "Stop"));
    }

    #[test]
    fn unreadable_or_malformed_settings_never_silence_the_plugin() {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        write(&project.join(".claude/settings.json"), "{ not json");
        std::fs::create_dir_all(project.join(".claude/settings.local.json")).unwrap();
        let layers = layers(&project, UserDirs::default());
        let (exe, ev) = START;
        assert!(!layers.settings_also_run(Agent::Claude, exe, ev));
        assert!(!layers.settings_also_run(Agent::Codex, exe, ev));
    }
}
