//! `handover status`, installer part: per agent and scope, whether our hooks are installed, up
//! to date, duplicated; the Codex feature flag, project trust and hook trust; Gemini CLI's
//! folder trust; Qwen Code's settings; and what to do.
//! Read-only and cheap: no process is started (hook trust is read from the config; the hashes
//! are only verified by `install --trust`, which asks Codex itself).
//!
//! The facts are gathered once into a [`Report`]: `handover status --json` serialises it (its
//! "agents" field), the screen lines are rendered from it ([`Report::lines`]) and the problems
//! derived from it ([`Report::problems`]), so the three cannot disagree.

use crate::codex_config::{self, FeatureFlags};
use crate::codex_trust::TrustStatus;
use crate::files::{
    claude_settings_path, codex_hooks_path, qwen_settings_path, read_opt, Homes, Scope, Targets,
};
use crate::gemini::{self, FolderTrust};
use crate::hooks_doc::{self, Found, Mention};
use crate::json_layout;
use crate::locate::{at_run_time, is_executable, HookPaths};
use handover_base::hook_exe::{command_for, portable_command, HookExe};
use handover_base::Agent;
use serde::{Serialize, Serializer};
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

    /// `claude project`, `codex user`: how lines and problems name this file.
    fn name(&self) -> String {
        format!("{} {}", self.agent.as_str(), self.scope.as_str())
    }

    fn lines(&self, out: &mut Vec<String>) {
        let name = self.name();
        let f = &self.file;
        if f.error.is_some() {
            out.push(format!("{name}: cannot read {}", f.path.display()));
            return;
        }
        if f.is_empty() {
            out.push(format!("{name}: not installed ({})", f.path.display()));
            return;
        }
        let state = match (self.installed, self.up_to_date) {
            (false, _) => "partly installed",
            (true, Some(true)) => "installed, up to date",
            (true, Some(false)) => "installed, out of date",
            (true, None) => "installed (hook executables not found: up to date not checked)",
        };
        out.push(format!(
            "{name}: {state} ({} handlers in {})",
            f.ours.len(),
            f.path.display()
        ));
        for o in f.ours.iter().filter(|o| !o.prefix.trim().is_empty()) {
            out.push(format!(
                "{name}: {} on {} runs with a prefix of yours: `{}`",
                o.exe.file_name(),
                o.event,
                o.prefix.trim()
            ));
        }
        for m in &f.mentions {
            out.push(format!(
                "{name}: your own command runs {} on {} (left as it is, not checked): {}",
                m.exe.file_name(),
                m.event,
                m.command
            ));
        }
    }

    fn problems(&self, out: &mut Vec<String>) {
        let name = self.name();
        let f = &self.file;
        if let Some(err) = &f.error {
            out.push(err.clone());
            return;
        }
        if f.is_empty() {
            return;
        }
        let fix = format!(
            "run `handover install --{} --scope {}`",
            self.agent.as_str(),
            self.scope.as_str()
        );
        let twice = f.run_twice();
        for (exe, event, n) in &twice {
            out.push(format!(
                "{name}: {} is registered {n} times on {event} in {} and runs that often; {fix} to keep one (a command of your own that runs it is left alone: remove that one by hand)",
                exe.file_name(),
                f.path.display()
            ));
        }
        if !self.missing_executables.is_empty() {
            let names: Vec<&str> = self
                .missing_executables
                .iter()
                .map(|e| e.file_name())
                .collect();
            out.push(format!(
                "{name}: the hooks in {} run {}, which {} not installed on this machine, so they do nothing here; install handover (`cargo install --locked --path <handover checkout>` puts them in ~/.cargo/bin), then run `handover status` again",
                f.path.display(),
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" }
            ));
        }
        if !self.installed {
            out.push(format!(
                "{name}: some handover hooks are missing from {}; {fix}",
                f.path.display()
            ));
        } else if self.up_to_date == Some(false) && twice.is_empty() {
            out.push(format!(
                "{name}: hooks in {} run another path or timeout than this install; {fix}",
                f.path.display()
            ));
        }
    }
}

/// The same hook from two layers runs twice (Claude dedups only identical commands).
fn several_scopes_problem(agent: Agent, scopes: &[ScopeStatus]) -> Option<String> {
    let with_ours: Vec<_> = scopes.iter().filter(|s| !s.file.ours.is_empty()).collect();
    if with_ours.len() < 2 {
        return None;
    }
    let identical = agent == Agent::Claude && {
        let cmds = |s: &ScopeStatus| {
            let mut c: Vec<_> = s
                .file
                .ours
                .iter()
                .map(|o| (o.event.clone(), o.command.clone()))
                .collect();
            c.sort();
            c
        };
        with_ours.windows(2).all(|w| cmds(w[0]) == cmds(w[1]))
    };
    if identical {
        return None;
    }
    let names: Vec<_> = with_ours.iter().map(|s| s.scope.as_str()).collect();
    Some(format!(
        "{}: handover hooks are installed in several scopes ({}) and will run more than once; remove the extra ones with `handover uninstall --{} --scope <scope>`",
        agent.as_str(),
        names.join(", "),
        agent.as_str()
    ))
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
    let all = Targets {
        claude: true,
        codex: true,
        gemini: true,
        qwen: true,
        copilot: true,
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

impl CopilotStatus {
    fn lines(&self, out: &mut Vec<String>) {
        for s in &self.scopes {
            s.lines(out);
        }
        if let Ok(folder) = &self.folder {
            out.push(match folder {
                Some(f) => format!("copilot: folder trusted ({f})"),
                None => "copilot: folder not trusted".to_string(),
            });
        }
    }

    /// Copilot CLI loads no repository hooks in a folder the user has not trusted: said when
    /// ours are installed in the repository.
    fn problems(&self, out: &mut Vec<String>) {
        for s in &self.scopes {
            s.problems(out);
        }
        out.extend(several_scopes_problem(Agent::Copilot, &self.scopes));
        let in_repo = self
            .scopes
            .iter()
            .any(|s| s.scope == Scope::Project && !s.file.ours.is_empty());
        match &self.folder {
            Err(e) => out.push(e.clone()),
            Ok(None) if in_repo => out.push(self.trust_problem.clone()),
            Ok(_) => {}
        }
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

impl GeminiStatus {
    fn lines(&self, out: &mut Vec<String>) {
        for s in &self.scopes {
            s.lines(out);
        }
        if let Ok(trust) = &self.folder_trust {
            out.push(format!("gemini: folder trust {}", trust.as_str()));
        }
    }

    /// Gemini CLI runs no hooks in a folder it does not trust: said when ours are installed.
    fn problems(&self, out: &mut Vec<String>) {
        for s in &self.scopes {
            s.problems(out);
        }
        out.extend(several_scopes_problem(Agent::Gemini, &self.scopes));
        match &self.folder_trust {
            Err(e) => out.push(e.clone()),
            Ok(_) if self.scopes.iter().any(|s| !s.file.ours.is_empty()) => {
                out.extend(self.trust_problem.iter().cloned());
            }
            Ok(_) => {}
        }
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

    fn lines(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let any_installed = scopes.iter().any(|s| !s.file.ours.is_empty());
        if self.flags.disabled() {
            out.push("codex: hooks feature OFF".into());
        }
        if any_installed {
            out.extend(self.profile_notes.iter().cloned());
        }
        for (id, _) in &self.plugins {
            out.push(format!("codex plugin: {id} enabled"));
        }
        for s in scopes {
            let Some(t) = &s.hook_trust else { continue };
            if s.scope == Scope::Project && !self.project_trusted() {
                out.push(format!(
                    "codex: project {} is not trusted",
                    self.project.display()
                ));
            }
            out.push(format!(
                "codex {}: hook trust recorded for {} of {} handlers (hashes not checked here)",
                s.scope.as_str(),
                t.recorded,
                t.of
            ));
        }
    }

    fn problems(&self, scopes: &[ScopeStatus], out: &mut Vec<String>) {
        let any_installed = scopes.iter().any(|s| !s.file.ours.is_empty());
        if let Some(p) = self.flags.problem(&self.file).filter(|_| any_installed) {
            out.push(p);
        }
        for (id, trusted) in &self.plugins {
            if !trusted {
                out.push(format!(
                    "codex: the plugin {id} is installed but none of its hooks is trusted, and Codex skips untrusted hooks silently; run `handover trust-plugin` (or approve them in Codex)"
                ));
            }
            if any_installed {
                out.push(format!(
                    "codex: handover is installed twice, as the plugin {id} and in hooks.json; each event is still answered once (the plugin's hooks defer to the settings ones), but keep one: `codex plugin remove {id}`, or `handover uninstall --codex --scope <scope>`"
                ));
            }
        }
        for s in scopes {
            let Some(t) = &s.hook_trust else { continue };
            if s.scope == Scope::Project && !self.project_trusted() {
                out.push(format!(
                    "codex: the project is not trusted, so Codex ignores .codex/hooks.json; run `handover install --codex --trust` or add [projects.\"{}\"] trust_level = \"trusted\" to {}",
                    self.project.display(),
                    self.file.display()
                ));
            }
            if t.recorded < t.of {
                out.push(format!(
                    "codex {}: {} of our hooks have no trust entry, and Codex skips untrusted hooks silently; run `handover install --codex --scope {} --trust`",
                    s.scope.as_str(),
                    t.of - t.recorded,
                    s.scope.as_str()
                ));
            }
        }
    }
}

impl LiveTrust {
    fn lines(&self, out: &mut Vec<String>) {
        if !self.checked {
            out.push("codex hook trust: not checked (`codex` not on PATH)".into());
            return;
        }
        for s in &self.scopes {
            match &s.hooks {
                Ok(hooks) => out.push(format!(
                    "codex {}: Codex reports {} of {} of our hooks trusted",
                    s.scope.as_str(),
                    trusted(hooks),
                    hooks.len()
                )),
                Err(e) => out.push(format!(
                    "codex {} hook trust: not checked ({e})",
                    s.scope.as_str()
                )),
            }
        }
    }

    fn problems(&self, out: &mut Vec<String>) {
        for s in &self.scopes {
            let Ok(hooks) = &s.hooks else { continue };
            let trusted = trusted(hooks);
            if hooks.is_empty() || trusted < hooks.len() {
                out.push(format!(
                    "codex {}: Codex will not run {} of our hooks (untrusted, modified, or the project/feature is off); run `handover install --codex --scope {} --trust`",
                    s.scope.as_str(),
                    if hooks.is_empty() { "any".to_string() } else { (hooks.len() - trusted).to_string() },
                    s.scope.as_str()
                ));
            }
        }
    }
}

fn trusted(hooks: &[ListedHook]) -> usize {
    hooks
        .iter()
        .filter(|h| h.trust == TrustStatus::Trusted)
        .count()
}

impl Report {
    /// The screen lines, in the order `handover status` prints them.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in self.claude.scopes.iter().chain(&self.codex.scopes) {
            s.lines(&mut out);
        }
        if let Ok(cfg) = &self.codex.config {
            cfg.lines(&self.codex.scopes, &mut out);
        }
        self.gemini.lines(&mut out);
        for s in &self.qwen.scopes {
            s.lines(&mut out);
        }
        self.copilot.lines(&mut out);
        for i in &self.instructions {
            out.push(format!(
                "{}: handover section {}",
                i.name,
                if i.present { "present" } else { "absent" }
            ));
        }
        if let Some(live) = &self.codex.live_trust {
            live.lines(&mut out);
        }
        out
    }

    /// Whether any agent runs our hooks at all: a settings scope with them installed, or a
    /// handover plugin.
    pub fn wired_anywhere(&self) -> bool {
        let installed = |scopes: &[ScopeStatus]| scopes.iter().any(|s| s.installed);
        installed(&self.claude.scopes)
            || installed(&self.codex.scopes)
            || installed(&self.gemini.scopes)
            || installed(&self.qwen.scopes)
            || installed(&self.copilot.scopes)
            || !self.claude.plugins.is_empty()
            || self
                .codex
                .config
                .as_ref()
                .is_ok_and(|c| !c.plugins.is_empty())
    }

    /// What needs fixing, each with how to fix it.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in &self.claude.scopes {
            s.problems(&mut out);
        }
        out.extend(several_scopes_problem(Agent::Claude, &self.claude.scopes));
        // The plugin's hooks stay silent where settings run ours (hooks/src/plugin.rs), so
        // nothing runs twice; still, two installs are one too many to keep up to date.
        let with_ours: Vec<&str> = self
            .claude
            .scopes
            .iter()
            .filter(|s| !s.file.ours.is_empty())
            .map(|s| s.scope.as_str())
            .collect();
        if !with_ours.is_empty() {
            for p in &self.claude.plugins {
                out.push(format!(
                    "claude: handover is installed twice, as a plugin ({}) and in settings ({}); each event is still answered once (the plugin's hooks defer to the settings ones), but keep one: `/plugin uninstall handover` in Claude Code, or `handover uninstall --claude --scope <scope>`",
                    p.display(),
                    with_ours.join(", ")
                ));
            }
        }
        for s in &self.codex.scopes {
            s.problems(&mut out);
        }
        out.extend(several_scopes_problem(Agent::Codex, &self.codex.scopes));
        match &self.codex.config {
            Ok(cfg) => cfg.problems(&self.codex.scopes, &mut out),
            Err(e) => out.push(e.clone()),
        }
        self.gemini.problems(&mut out);
        for s in &self.qwen.scopes {
            s.problems(&mut out);
        }
        out.extend(several_scopes_problem(Agent::Qwen, &self.qwen.scopes));
        self.copilot.problems(&mut out);
        out.extend(self.instructions_error.iter().cloned());
        if let Some(live) = &self.codex.live_trust {
            live.problems(&mut out);
        }
        out
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

// Serialisation helpers: the JSON keeps the shape `handover status --json` always had.

fn by_scope<S: Serializer>(scopes: &[ScopeStatus], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(scopes.iter().map(|x| (x.scope.as_str(), x)))
}

fn live_by_scope<S: Serializer>(scopes: &[LiveScope], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(
        scopes
            .iter()
            .filter_map(|x| Some((x.scope.as_str(), x.hooks.as_ref().ok()?))),
    )
}

fn instructions_map<S: Serializer>(files: &[InstructionsFile], s: S) -> Result<S::Ok, S::Error> {
    s.collect_map(files.iter().map(|f| (&f.name, f.present)))
}

/// The `Ok` value itself (an `Err` is skipped before this is called).
fn ok_value<S: Serializer, T: Serialize, E>(r: &Result<T, E>, s: S) -> Result<S::Ok, S::Error> {
    match r {
        Ok(v) => v.serialize(s),
        Err(_) => s.serialize_none(),
    }
}

fn ok_only<S: Serializer, T: Serialize, E>(r: &Result<T, E>, s: S) -> Result<S::Ok, S::Error> {
    r.as_ref().ok().serialize(s)
}

fn folder_trust<S: Serializer>(t: &Result<FolderTrust, String>, s: S) -> Result<S::Ok, S::Error> {
    t.as_ref().ok().map(FolderTrust::as_str).serialize(s)
}

fn on_off<S: Serializer>(flags: &FeatureFlags, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if flags.disabled() { "off" } else { "on" })
}

fn plugin_ids<S: Serializer>(plugins: &[(String, bool)], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(plugins.iter().map(|(id, _)| id))
}

fn display_path<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&p.display())
}

fn display_paths<S: Serializer>(ps: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(ps.iter().map(|p| p.display().to_string()))
}

fn exe_names<S: Serializer>(v: &[HookExe], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|e| e.file_name()))
}

fn count<S: Serializer, T>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(v.len() as u64)
}

fn own_commands<S: Serializer>(ms: &[Mention], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct OwnCommand<'a> {
        event: &'a str,
        command: &'a str,
    }
    s.collect_seq(ms.iter().map(|m| OwnCommand {
        event: &m.event,
        command: &m.command,
    }))
}
