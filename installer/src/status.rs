//! `handover status`, installer part: per agent and scope, whether our hooks are installed, up
//! to date, duplicated; the Codex feature flag, project trust and hook trust; Gemini CLI's
//! folder trust; Qwen Code's settings; and what to do.
//! Read-only and cheap: no process is started (hook trust is read from the config; the hashes
//! are only verified by `install --trust`, which asks Codex itself).
//!
//! This module gathers the facts, once, into a [`Report`]; `render` turns them into the screen
//! lines ([`Report::lines`]) and the problems with their fixes ([`Report::problems`]), and
//! `handover status --json` serialises them (its "agents" field; the helpers for fields whose
//! JSON shape differs are in `json`), so the three cannot disagree.

mod json;
mod render;

use crate::codex_config::{self, FeatureFlags};
use crate::codex_trust::TrustStatus;
use crate::files::{
    claude_settings_path, codex_hooks_path, droid_settings_path, qwen_settings_path, read_opt,
    Homes, Scope, Targets,
};
use crate::gemini::{self, FolderTrust};
use crate::hooks_doc::{self, Found, Mention};
use crate::json_layout;
use crate::locate::{at_run_time, is_executable, HookPaths};
use handover_base::hook_exe::{command_for, portable_command, HookExe};
use handover_base::Agent;
use json::{
    by_scope, count, display_path, display_paths, exe_names, folder_trust, instructions_map,
    live_by_scope, ok_only, ok_value, on_off, own_commands, plugin_ids,
};
use serde::Serialize;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// What this machine has, for judging the hooks a file names: where the executables are now
/// (None: not located, so "up to date" is not checked against paths), and what the portable
/// command will find at run time (PATH, then `cargo_home`/bin).
#[derive(Clone, Copy, Debug)]
pub struct Machine<'a> {
    pub expected: Option<&'a HookPaths>,
    pub path_var: Option<&'a OsStr>,
    pub cargo_home: &'a Path,
}

impl Machine<'_> {
    /// The executable `o` runs on this machine, or None when it would find none (the hook then
    /// does nothing here).
    fn runs(&self, o: &Found) -> Option<PathBuf> {
        if o.portable {
            at_run_time(o.exe, self.path_var, self.cargo_home)
        } else {
            let p = PathBuf::from(&o.program);
            (p.is_absolute() && is_executable(&p)).then_some(p)
        }
    }
}

/// Everything `handover status` knows about the installation, per agent.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub claude: ClaudeStatus,
    pub codex: CodexStatus,
    pub gemini: GeminiStatus,
    pub qwen: QwenStatus,
    pub copilot: CopilotStatus,
    pub droid: DroidStatus,
    /// Whether AGENTS.md / CLAUDE.md / GEMINI.md hold the handover section (serialised as name → bool).
    #[serde(serialize_with = "instructions_map")]
    pub instructions: Vec<InstructionsFile>,
    /// Why Gemini CLI's context file could not be found (the others are listed then).
    #[serde(skip)]
    pub instructions_error: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClaudeStatus {
    /// Project, local and user settings, serialised under their scope names.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
    /// Plugin hook files under `~/.claude/plugins` that also run our executables.
    #[serde(serialize_with = "display_paths")]
    pub plugins: Vec<PathBuf>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CodexStatus {
    /// Project and user hooks.json, serialised under their scope names.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
    /// The user's config.toml, or why it cannot be read (then nothing of it is serialised).
    #[serde(flatten, serialize_with = "ok_only")]
    pub config: Result<CodexConfigStatus, String>,
    /// What Codex itself reported (`--check-trust`), when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_trust: Option<LiveTrust>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GeminiStatus {
    /// Project and user settings.json, serialised under their scope names.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
    /// Whether Gemini CLI trusts the repository (it runs no hooks in an untrusted folder), or
    /// why that could not be read (then it is not serialised).
    #[serde(
        skip_serializing_if = "Result::is_err",
        serialize_with = "folder_trust"
    )]
    pub folder_trust: Result<FolderTrust, String>,
    /// What the user must do for Gemini CLI to run the hooks, when it will not yet.
    #[serde(skip)]
    pub trust_problem: Option<String>,
}

/// Qwen Code runs every hook in its settings (no trust step), so its files are all there is.
#[derive(Clone, Debug, Serialize)]
pub struct QwenStatus {
    /// Project and user settings.json, serialised under their scope names.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CopilotStatus {
    /// Project and user hooks files, serialised under their scope names.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
    /// The `trustedFolders` entry that covers the repository (GitHub Copilot CLI loads no
    /// repository hooks in a folder the user has not trusted), or why it could not be read
    /// (then it is not serialised).
    #[serde(
        skip_serializing_if = "Result::is_err",
        rename = "trusted_folder",
        serialize_with = "ok_value"
    )]
    pub folder: Result<Option<String>, String>,
    /// What the user must do for Copilot CLI to run the repository's hooks.
    #[serde(skip)]
    pub trust_problem: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct DroidStatus {
    /// Project and user `.factory/settings.json`, serialised under their scope names. Droid
    /// has no trust step for them.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
}

/// One settings or hooks file of an agent, at one scope.
#[derive(Clone, Debug, Serialize)]
pub struct ScopeStatus {
    #[serde(skip)]
    pub agent: Agent,
    #[serde(skip)]
    pub scope: Scope,
    #[serde(flatten)]
    pub file: HooksFile,
    /// Every required hook is there (ours or the user's own command running ours).
    pub installed: bool,
    /// The context watch is there on all its events.
    pub watch: bool,
    /// Exactly what this install would leave; None when the hook executables were not found.
    pub up_to_date: Option<bool>,
    /// Our executables that the hooks in this file run but that do not exist on this machine
    /// (a path that is not there, or the portable command finding none): those hooks do
    /// nothing here.
    #[serde(serialize_with = "exe_names")]
    pub missing_executables: Vec<HookExe>,
    /// Codex only, when the file holds hooks of ours and config.toml could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_trust: Option<RecordedTrust>,
}

/// A hooks file as read: our handlers and the user's commands that run ours.
#[derive(Clone, Debug, Serialize)]
pub struct HooksFile {
    #[serde(rename = "file", serialize_with = "display_path")]
    pub path: PathBuf,
    pub exists: bool,
    /// Why it could not be read or parsed.
    pub error: Option<String>,
    #[serde(rename = "handlers", serialize_with = "count")]
    pub ours: Vec<Found>,
    /// The user's own commands that run one of ours (not edited by install).
    #[serde(rename = "own_commands", serialize_with = "own_commands")]
    pub mentions: Vec<Mention>,
}

/// Hook trust as recorded in config.toml (`[hooks.state]`), without checking the hashes.
#[derive(Clone, Debug, Serialize)]
pub struct RecordedTrust {
    /// How many of our handlers have a trust entry.
    pub recorded: usize,
    pub of: usize,
    /// Always false here: only Codex can check the hashes (`--check-trust`, `install --trust`).
    pub hash_checked: bool,
}

/// The parts of Codex's user config.toml that decide whether our hooks run.
#[derive(Clone, Debug, Serialize)]
pub struct CodexConfigStatus {
    #[serde(skip)]
    pub file: PathBuf,
    /// The project directory `project_trust` is about.
    #[serde(skip)]
    pub project: PathBuf,
    /// Enabled handover plugins (`<plugin>@<marketplace>`), and whether any of their hooks has
    /// a trust entry; serialised as the ids.
    #[serde(serialize_with = "plugin_ids")]
    pub plugins: Vec<(String, bool)>,
    /// `[features]` as set; serialised as `"on"` or `"off"`.
    #[serde(rename = "hooks_feature", serialize_with = "on_off")]
    pub flags: FeatureFlags,
    /// The project's `trust_level`, if any.
    pub project_trust: Option<String>,
    /// Profiles that turn hooks off (shown when hooks of ours are installed).
    #[serde(skip)]
    pub profile_notes: Vec<String>,
}

/// What `codex app-server` reported about our hooks, per scope that has some.
#[derive(Clone, Debug, Serialize)]
pub struct LiveTrust {
    /// Serialised under their scope names; a scope Codex could not be asked about is left out.
    #[serde(flatten, serialize_with = "live_by_scope")]
    pub scopes: Vec<LiveScope>,
    /// False when there was no `codex` to ask.
    pub checked: bool,
}

#[derive(Clone, Debug)]
pub struct LiveScope {
    pub scope: Scope,
    /// Our hooks as Codex lists them, or why it could not be asked.
    pub hooks: Result<Vec<ListedHook>, String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ListedHook {
    pub key: String,
    pub trust: TrustStatus,
}

#[derive(Clone, Debug)]
pub struct InstructionsFile {
    pub name: String,
    /// The handover section is in it.
    pub present: bool,
}

fn read_hooks_file(agent: Agent, path: PathBuf) -> HooksFile {
    let (exists, parsed) = match read_opt(&path) {
        Err(e) => (true, Err(e.to_string())),
        Ok(None) => (false, Ok(None)),
        Ok(Some(text)) => (
            true,
            json_layout::parse(&path, &text)
                .map(Some)
                .map_err(|e| e.to_string()),
        ),
    };
    let ((ours, mentions), error) = match parsed {
        // GitHub Copilot CLI's hooks file has a shape of its own.
        Ok(Some(doc)) if agent == Agent::Copilot => (crate::copilot::find(&doc), None),
        Ok(Some(doc)) => (hooks_doc::find(&doc), None),
        Ok(None) => (Default::default(), None),
        Err(e) => (Default::default(), Some(e)),
    };
    HooksFile {
        path,
        exists,
        error,
        ours,
        mentions,
    }
}

impl HooksFile {
    fn is_empty(&self) -> bool {
        self.ours.is_empty() && self.mentions.is_empty()
    }

    fn has(&self, exe: HookExe, event: &str) -> bool {
        self.runs(exe, event) > 0
    }

    /// How many commands run `exe` on `event` (ours and the user's own): more than one runs it
    /// twice.
    fn runs(&self, exe: HookExe, event: &str) -> usize {
        self.ours
            .iter()
            .filter(|o| o.exe == exe && o.event == event)
            .count()
            + self
                .mentions
                .iter()
                .filter(|m| m.exe == exe && m.event == event)
                .count()
    }

    /// Each executable and event that more than one command runs, with how many, in file order.
    fn run_twice(&self) -> Vec<(HookExe, &str, usize)> {
        let mut seen: Vec<(HookExe, &str, usize)> = Vec::new();
        let all = self
            .ours
            .iter()
            .map(|o| (o.exe, o.event.as_str()))
            .chain(self.mentions.iter().map(|m| (m.exe, m.event.as_str())));
        for (exe, event) in all {
            let n = self.runs(exe, event);
            if n > 1 && !seen.iter().any(|(e, ev, _)| (*e, *ev) == (exe, event)) {
                seen.push((exe, event, n));
            }
        }
        seen
    }
}

/// Plugin hook files under `~/.claude/plugins` that run one of our executables (bounded walk).
fn claude_plugin_copies(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(home.join(".claude").join("plugins"), 0usize)];
    let mut budget = 5_000usize;
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return out;
            }
            let p = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() && depth < 6 {
                stack.push((p, depth + 1));
            } else if ft.is_file() && p.file_name().is_some_and(|n| n == "hooks.json") {
                let f = read_hooks_file(Agent::Claude, p);
                // A plugin for both clients (ours) carries Codex's hooks file beside Claude's;
                // Claude Code runs only the one its manifest names, not the `--agent codex` one.
                let for_claude = |c: &str| !c.contains("--agent") || c.contains("--agent claude");
                if f.ours.iter().any(|o| for_claude(&o.command))
                    || f.mentions.iter().any(|m| for_claude(&m.command))
                {
                    out.push(f.path);
                }
            }
        }
    }
    out
}

impl ScopeStatus {
    /// Reads one scope's file. `expected` = where the hook executables are now (None: not
    /// located, so "up to date" is not checked).
    fn read(agent: Agent, scope: Scope, path: PathBuf, machine: Machine<'_>) -> Self {
        let expected = machine.expected;
        let client = handover_clients::of(agent);
        let file = read_hooks_file(agent, path);
        // Copilot's commands name their event (copilot::command_with_event).
        let with_event = |core: String, event: &str| {
            if agent == Agent::Copilot {
                crate::copilot::command_with_event(&core, event)
            } else {
                core
            }
        };
        let installed = file.error.is_none()
            && [HookExe::SessionStart, HookExe::PreCompact]
                .into_iter()
                .all(|e| client.events(e).iter().all(|ev| file.has(e, ev)));
        let watch = client
            .events(HookExe::ContextWatch)
            .iter()
            .all(|ev| file.has(HookExe::ContextWatch, ev));
        let twice = file.ours.iter().any(|o| file.runs(o.exe, &o.event) > 1);
        // Up to date = exactly what this install would leave: our commands at the current paths
        // (a prefix of the user's kept), our timeout, each hook once.
        // The portable command is up to date wherever the executables are.
        let all_portable = file.ours.iter().all(|o| {
            o.command
                == format!(
                    "{}{}",
                    o.prefix,
                    with_event(portable_command(o.exe, agent), &o.event)
                )
        });
        let up_to_date = if all_portable && !file.ours.is_empty() {
            Some(
                !twice
                    && file
                        .ours
                        .iter()
                        .all(|o| o.timeout == Some(client.timeout(&o.event))),
            )
        } else {
            expected.map(|h| {
                !file.ours.is_empty()
                    && !twice
                    && file.ours.iter().all(|o| {
                        o.command
                            == format!(
                                "{}{}",
                                o.prefix,
                                with_event(command_for(h.get(o.exe), agent), &o.event)
                            )
                            && o.timeout == Some(client.timeout(&o.event))
                    })
            })
        };
        let mut missing_executables: Vec<HookExe> = Vec::new();
        for o in &file.ours {
            if machine.runs(o).is_none() && !missing_executables.contains(&o.exe) {
                missing_executables.push(o.exe);
            }
        }
        ScopeStatus {
            agent,
            scope,
            file,
            installed,
            watch,
            up_to_date,
            missing_executables,
            hook_trust: None,
        }
    }
}

fn read_scopes(
    agent: Agent,
    scopes: &[Scope],
    path: fn(Scope, &Path, &Homes) -> PathBuf,
    repo: &Path,
    homes: &Homes,
    machine: Machine<'_>,
) -> Vec<ScopeStatus> {
    scopes
        .iter()
        .map(|&scope| ScopeStatus::read(agent, scope, path(scope, repo, homes), machine))
        .collect()
}

/// Gathers the report. `expected` = where the hook executables are now (None: not located, so
/// "up to date" is not checked); `path_var` = the PATH the clients run the hooks with.
pub fn status(
    repo: &Path,
    homes: &Homes,
    expected: Option<&HookPaths>,
    path_var: Option<&OsStr>,
) -> Report {
    let machine = Machine {
        expected,
        path_var,
        cargo_home: &homes.cargo_home,
    };
    let claude = ClaudeStatus {
        scopes: read_scopes(
            Agent::Claude,
            &[Scope::Project, Scope::Local, Scope::User],
            claude_settings_path,
            repo,
            homes,
            machine,
        ),
        plugins: claude_plugin_copies(&homes.home),
    };
    let mut codex = CodexStatus {
        scopes: read_scopes(
            Agent::Codex,
            &[Scope::Project, Scope::User],
            codex_hooks_path,
            repo,
            homes,
            machine,
        ),
        config: Err(String::new()),
        live_trust: None,
    };
    codex.config = codex_config_status(repo, homes, &mut codex.scopes);
    let gemini = gemini_status(repo, homes, machine);
    let qwen = QwenStatus {
        scopes: read_scopes(
            Agent::Qwen,
            &[Scope::Project, Scope::User],
            qwen_settings_path,
            repo,
            homes,
            machine,
        ),
    };
    let copilot = copilot_status(repo, homes, machine);
    let droid = DroidStatus {
        scopes: read_scopes(
            Agent::Droid,
            &[Scope::Project, Scope::User],
            droid_settings_path,
            repo,
            homes,
            machine,
        ),
    };
    let all = Targets {
        claude: true,
        codex: true,
        gemini: true,
        qwen: true,
        copilot: true,
        droid: true,
    };
    let (files, instructions_error) =
        match crate::instructions::instruction_targets(repo, homes, all) {
            Ok((files, _)) => (files, None),
            Err(e) => {
                let without_gemini = Targets {
                    gemini: false,
                    ..all
                };
                let files = crate::instructions::instruction_targets(repo, homes, without_gemini)
                    .map(|(f, _)| f)
                    .unwrap_or_default();
                (files, Some(e.to_string()))
            }
        };
    let instructions = files
        .into_iter()
        .map(|path| InstructionsFile {
            present: read_opt(&path)
                .ok()
                .flatten()
                .is_some_and(|t| crate::instructions::is_present(&t)),
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })
        .collect();
    Report {
        claude,
        codex,
        gemini,
        qwen,
        copilot,
        droid,
        instructions,
        instructions_error,
    }
}

fn copilot_status(repo: &Path, homes: &Homes, machine: Machine<'_>) -> CopilotStatus {
    let config = crate::copilot::config_path(&homes.user_dir(handover_clients::of(Agent::Copilot)));
    let folder = read_opt(&config)
        .and_then(|t| crate::copilot::trusted_by(&config, t.as_deref().unwrap_or(""), repo))
        .map_err(|e| e.to_string());
    CopilotStatus {
        scopes: read_scopes(
            Agent::Copilot,
            &[Scope::Project, Scope::User],
            crate::files::copilot_hooks_path,
            repo,
            homes,
            machine,
        ),
        folder,
        trust_problem: crate::copilot::trust_problem(repo, &config),
    }
}

fn gemini_status(repo: &Path, homes: &Homes, machine: Machine<'_>) -> GeminiStatus {
    let folder_trust = gemini::folder_trust(repo, homes).map_err(|e| e.to_string());
    let scopes = read_scopes(
        Agent::Gemini,
        &[Scope::Project, Scope::User],
        gemini::settings_path,
        repo,
        homes,
        machine,
    );
    // The fix names the user scope only when our hooks are nowhere else.
    let ours_in = |scope: Scope| {
        scopes
            .iter()
            .any(|s| s.scope == scope && !s.file.ours.is_empty())
    };
    let scope = if ours_in(Scope::User) && !ours_in(Scope::Project) {
        Scope::User
    } else {
        Scope::Project
    };
    GeminiStatus {
        trust_problem: folder_trust
            .as_ref()
            .ok()
            .and_then(|t| gemini::trust_problem(repo, homes, t, scope)),
        scopes,
        folder_trust,
    }
}

/// Reads Codex's config.toml, and records in each scope with hooks of ours how many of them
/// have a trust entry there.
fn codex_config_status(
    repo: &Path,
    homes: &Homes,
    scopes: &mut [ScopeStatus],
) -> Result<CodexConfigStatus, String> {
    let cfg_path = homes.codex_config();
    let doc = read_opt(&cfg_path)
        .and_then(|t| codex_config::parse(&cfg_path, t.as_deref().unwrap_or("")))
        .map_err(|e| e.to_string())?;
    let hashes = codex_config::trusted_hashes(&doc);
    for s in scopes.iter_mut().filter(|s| !s.file.ours.is_empty()) {
        let keys: Vec<String> = s
            .file
            .ours
            .iter()
            .map(|o| hooks_doc::codex_trust_key(&s.file.path, o))
            .collect();
        let recorded = keys
            .iter()
            .filter(|k| hashes.iter().any(|(hk, _)| hk == *k))
            .count();
        s.hook_trust = Some(RecordedTrust {
            recorded,
            of: keys.len(),
            hash_checked: false,
        });
    }
    let plugins = codex_config::handover_plugins(&doc)
        .into_iter()
        .map(|id| {
            let trusted = hashes.iter().any(|(k, _)| k.starts_with(&format!("{id}:")));
            (id, trusted)
        })
        .collect();
    Ok(CodexConfigStatus {
        plugins,
        flags: codex_config::feature_flags(&doc),
        project_trust: codex_config::project_trust(&doc, repo),
        profile_notes: codex_config::profile_notes(&doc, &homes.codex_home),
        file: cfg_path,
        project: repo.to_path_buf(),
    })
}

impl CodexConfigStatus {
    fn project_trusted(&self) -> bool {
        self.project_trust.as_deref() == Some("trusted")
    }
}

impl Report {
    /// Whether any agent runs our hooks at all: a settings scope with them installed, or a
    /// handover plugin.
    pub fn wired_anywhere(&self) -> bool {
        let installed = |scopes: &[ScopeStatus]| scopes.iter().any(|s| s.installed);
        installed(&self.claude.scopes)
            || installed(&self.codex.scopes)
            || installed(&self.gemini.scopes)
            || installed(&self.qwen.scopes)
            || installed(&self.copilot.scopes)
            || installed(&self.droid.scopes)
            || !self.claude.plugins.is_empty()
            || self
                .codex
                .config
                .as_ref()
                .is_ok_and(|c| !c.plugins.is_empty())
    }

    /// Asks Codex itself (`codex app-server`, `hooks/list`, bounded by `timeout`) whether our
    /// hooks are trusted, for each Codex scope with hooks of ours. Costs a process start (about a
    /// second), so it is opt-in; on any failure the report says "not checked" and why.
    pub fn check_live_codex_trust(
        &mut self,
        repo: &Path,
        homes: &Homes,
        codex_bin: Option<&Path>,
        timeout: std::time::Duration,
    ) {
        let Some(bin) = codex_bin else {
            self.codex.live_trust = Some(LiveTrust {
                scopes: Vec::new(),
                checked: false,
            });
            return;
        };
        let mut scopes = Vec::new();
        for s in self.codex.scopes.iter().filter(|s| !s.file.ours.is_empty()) {
            let hooks_json = &s.file.path;
            let req = crate::codex_trust::TrustRequest {
                codex_bin: bin.to_path_buf(),
                codex_home: homes.codex_home.clone(),
                home: homes.home.clone(),
                project: repo.to_path_buf(),
                hooks_json: hooks_json.clone(),
                commands: Vec::new(),
                timeout,
            };
            let hooks = crate::codex_trust::list_hooks(&req).map(|listed| {
                crate::codex_trust::ours(&listed, hooks_json)
                    .into_iter()
                    .map(|h| ListedHook {
                        key: h.key.clone(),
                        trust: h.trust_status.clone(),
                    })
                    .collect()
            });
            scopes.push(LiveScope {
                scope: s.scope,
                hooks,
            });
        }
        self.codex.live_trust = Some(LiveTrust {
            scopes,
            checked: true,
        });
    }
}
