//! Computing every edit of an install or uninstall before touching anything, showing it as a
//! diff (`--dry-run`), checking every target (`preflight`) and applying it all or nothing
//! (`transaction`; backups by `keep` and `backup`).
//!
//! All files are read and every edit is computed first; one unparseable file, read-only file or
//! unwritable directory stops the whole run before anything is written.

use crate::backup::Backups;
use crate::codex_config;
use crate::diff;
use crate::error::EditError;
use crate::gemini;
use crate::hooks_doc::{self, Wanted};
use crate::instructions;
use crate::json_layout::{self, Layout};
use crate::keep::{keep_links, mark_backups, note_old_backups, restore_users_bytes};
use crate::locate::HookPaths;
use crate::preflight::{self, Access};
use crate::report::{any_effective, Change};
use crate::transaction::{self, Applied};
use handover_base::hook_exe::{command_for, HookExe};
use handover_base::Agent;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `.claude/settings.json`, `.codex/hooks.json` in the repository (shared, committed).
    Project,
    /// `.claude/settings.local.json` (private). Codex and Gemini CLI have no local layer:
    /// project is used.
    Local,
    /// `~/.claude/settings.json`, `$CODEX_HOME/hooks.json`.
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Targets {
    pub claude: bool,
    pub codex: bool,
    pub gemini: bool,
}

/// Home directories, injected so tests never touch the real `~`.
#[derive(Clone, Debug, PartialEq)]
pub struct Homes {
    /// `~` (Claude Code's user settings live in `~/.claude/`).
    pub home: PathBuf,
    /// `$CODEX_HOME`, default `~/.codex`.
    pub codex_home: PathBuf,
    /// Gemini CLI's user directory: `$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`.
    pub gemini_home: PathBuf,
    /// Where backups go (outside every repository): `$XDG_STATE_HOME/handover/backups`, default
    /// `~/.local/state/handover/backups` (see backup.rs).
    pub backups: PathBuf,
}

impl Homes {
    /// From the environment: `$HOME` (via `dirs`), `$CODEX_HOME`, `$GEMINI_CLI_HOME`, the
    /// state directory.
    pub fn from_env() -> Option<Homes> {
        let home = dirs::home_dir()?;
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let codex_home = var("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
        let gemini_home = var("GEMINI_CLI_HOME")
            .unwrap_or_else(|| home.clone())
            .join(".gemini");
        let state = dirs::state_dir()
            .or_else(dirs::data_local_dir)
            .unwrap_or_else(|| home.join(".local").join("state"));
        Some(Homes {
            backups: state.join("handover").join("backups"),
            home,
            codex_home,
            gemini_home,
        })
    }

    /// `home` with the default Codex and Gemini homes and backups directory under it (tests,
    /// sandboxes).
    pub fn under(home: &Path) -> Homes {
        Homes {
            home: home.to_path_buf(),
            codex_home: home.join(".codex"),
            gemini_home: home.join(".gemini"),
            backups: home.join(".local/state/handover/backups"),
        }
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_home.join("config.toml")
    }
}

pub fn claude_settings_path(scope: Scope, repo: &Path, homes: &Homes) -> PathBuf {
    match scope {
        Scope::Project => repo.join(".claude").join("settings.json"),
        Scope::Local => repo.join(".claude").join("settings.local.json"),
        Scope::User => homes.home.join(".claude").join("settings.json"),
    }
}

pub fn codex_hooks_path(scope: Scope, repo: &Path, homes: &Homes) -> PathBuf {
    match scope {
        Scope::Project | Scope::Local => repo.join(".codex").join("hooks.json"),
        Scope::User => homes.codex_home.join("hooks.json"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    ClaudeSettings,
    CodexHooks,
    CodexConfig,
    GeminiSettings,
    GeminiTrust,
    Instructions,
}

/// One file's planned edit. `None` = the file does not exist / is to be deleted.
#[derive(Clone, Debug, PartialEq)]
pub struct FileEdit {
    pub path: PathBuf,
    pub kind: FileKind,
    pub before: Option<String>,
    pub after: Option<String>,
    pub changes: Vec<Change>,
    /// Back up `before` when applying: false when the file holds nothing of the user's (we
    /// created it and only our content is in it), or its newest backup already holds the
    /// user's part of it as it is now.
    pub backup: bool,
    /// The repository root when the file belongs inside the repository: it must not resolve
    /// (through a symlink) to anywhere else.
    pub confine: Option<PathBuf>,
}

impl FileEdit {
    pub fn changed(&self) -> bool {
        self.before != self.after
    }
}

#[derive(Clone, Debug)]
pub struct InstallOptions {
    pub targets: Targets,
    pub scope: Scope,
    /// Register handover-context-watch (false with `--no-watch`).
    pub watch: bool,
    /// `--enable-codex-hooks`: turn `[features] hooks = false` back on.
    pub enable_codex_hooks: bool,
    /// `--trust`: mark the project trusted in the user config (the hooks themselves are trusted
    /// afterwards through `codex app-server`, see codex_trust); for Gemini CLI, add the
    /// repository to `~/.gemini/trustedFolders.json`.
    pub trust: bool,
    pub hooks: HookPaths,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub edits: Vec<FileEdit>,
    pub backups: Backups,
    /// Things the user should know (a scope that does not exist for an agent, a disabled
    /// feature flag, ...). Problems that keep hooks from running are also in `problems`.
    pub notes: Vec<String>,
    pub problems: Vec<String>,
}

/// Reads a file that may not exist. Not UTF-8 or unreadable: an error naming it.
pub fn read_opt(path: &Path) -> Result<Option<String>, EditError> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| {
            EditError::new(
                path,
                format!(
                    "not UTF-8 text (byte {}); fix the file, then run again",
                    e.utf8_error().valid_up_to()
                ),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EditError::new(path, format!("cannot read: {e}"))),
    }
}

enum JsonOp<'a> {
    Install(&'a [Wanted]),
    Uninstall,
}

/// One hooks JSON file (Claude settings or Codex hooks.json): text in, text out.
/// Unchanged content comes back byte-identical; changed content keeps the file's layout.
pub fn edit_hooks_json(
    path: &Path,
    before: Option<&str>,
    want: Option<&[Wanted]>,
) -> Result<(Option<String>, Vec<Change>), EditError> {
    let op = match want {
        Some(w) => JsonOp::Install(w),
        None => JsonOp::Uninstall,
    };
    let Some(text) = before else {
        return match op {
            JsonOp::Uninstall => Ok((None, Vec::new())),
            JsonOp::Install(w) => {
                let mut doc = serde_json::Value::Object(Default::default());
                let changes = hooks_doc::install(&mut doc, w, path)?;
                Ok((Some(json_layout::render(&doc, &Layout::default())), changes))
            }
        };
    };
    let mut doc = json_layout::parse(path, text)?;
    let changes = match op {
        JsonOp::Install(w) => hooks_doc::install(&mut doc, w, path)?,
        JsonOp::Uninstall => hooks_doc::uninstall(&mut doc, path)?,
    };
    if !any_effective(&changes) {
        return Ok((Some(text.to_string()), changes));
    }
    let emptied = matches!(op, JsonOp::Uninstall) && doc.as_object().is_some_and(|m| m.is_empty());
    if emptied {
        // Nothing but our hooks was in it: the file goes, as it was before install created it.
        return Ok((None, changes));
    }
    Ok((
        Some(json_layout::render(&doc, &Layout::detect(text))),
        changes,
    ))
}

/// The handlers an install wants for one agent.
pub fn wanted_for(hooks: &HookPaths, watch: bool, agent: Agent) -> Vec<Wanted> {
    hooks_doc::wanted_by(agent, &commands(hooks, watch, agent))
}

fn commands(hooks: &HookPaths, watch: bool, agent: Agent) -> Vec<(HookExe, String)> {
    HookExe::ALL
        .into_iter()
        .filter(|e| watch || *e != HookExe::ContextWatch)
        .map(|e| (e, command_for(hooks.get(e), agent)))
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The planned edit of one client's hooks file (Claude settings, Codex hooks.json; any client
/// whose file holds the shared `hooks` shape): install `want`, or uninstall with None.
fn hooks_file_edit(
    kind: FileKind,
    path: PathBuf,
    want: Option<&[Wanted]>,
    confine: Option<PathBuf>,
) -> Result<FileEdit, EditError> {
    let before = read_opt(&path)?;
    let (after, changes) =
        edit_hooks_json(&path, before.as_deref(), want).map_err(|e| match kind {
            FileKind::GeminiSettings => gemini::comment_hint(e, before.as_deref().unwrap_or("")),
            _ => e,
        })?;
    Ok(FileEdit {
        path,
        kind,
        before,
        after,
        changes,
        backup: true,
        confine,
    })
}

/// The Codex trust keys an edit of `hooks_json` moves or removes: (old key, new key or None).
fn trust_moves(
    hooks_json: &Path,
    before: Option<&str>,
    edit: impl FnOnce(&mut serde_json::Value) -> Result<Vec<Change>, EditError>,
) -> Result<Vec<(String, Option<String>)>, EditError> {
    let Some(text) = before else {
        return Ok(Vec::new());
    };
    let doc = json_layout::parse(hooks_json, text)?;
    Ok(hooks_doc::moves(&doc, edit)?
        .into_iter()
        .map(|(old, new)| {
            (
                hooks_doc::trust_key_at(hooks_json, &old),
                new.map(|n| hooks_doc::trust_key_at(hooks_json, &n)),
            )
        })
        .collect())
}

/// The instructions files to edit for these targets (AGENTS.md for Codex, CLAUDE.md for Claude;
/// only AGENTS.md when CLAUDE.md is a link to it).
pub fn instruction_files(repo: &Path, targets: Targets) -> Vec<PathBuf> {
    let agents = repo.join("AGENTS.md");
    let claude = repo.join("CLAUDE.md");
    let linked = same_file(&agents, &claude);
    let mut out = Vec::new();
    if targets.codex || (targets.claude && linked) {
        out.push(agents);
    }
    if targets.claude && !linked {
        out.push(claude);
    }
    out
}

/// The instructions files for these targets, with Gemini CLI's context file added when it is
/// not one of them already; plus a note when its configured name was not usable.
pub fn instruction_targets(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
) -> Result<(Vec<PathBuf>, Option<String>), EditError> {
    let mut files = instruction_files(repo, targets);
    let mut note = None;
    if targets.gemini {
        let (file, problem) = gemini::context_file(repo, homes)?;
        note = problem;
        if !files.iter().any(|f| *f == file || same_file(f, &file)) {
            files.push(file);
        }
    }
    Ok((files, note))
}

/// Gemini CLI's part of an install: the hooks in its settings, and folder trust (written with
/// `--trust`, else a problem saying what to do: Gemini runs no hooks in an untrusted folder).
fn plan_gemini(
    repo: &Path,
    homes: &Homes,
    opts: &InstallOptions,
    plan: &mut Plan,
) -> Result<(), EditError> {
    if opts.scope == Scope::Local {
        plan.notes.push(
            "Gemini CLI has no local scope; its hooks go to the project's .gemini/settings.json."
                .into(),
        );
    }
    let want = wanted_for(&opts.hooks, opts.watch, Agent::Gemini);
    let path = gemini::settings_path(opts.scope, repo, homes);
    plan.edits.push(hooks_file_edit(
        FileKind::GeminiSettings,
        path,
        Some(&want),
        confine_for(opts.scope, repo),
    )?);
    let trust = gemini::folder_trust(repo, homes)?;
    if trust.runs_hooks() {
        return Ok(());
    }
    if opts.trust && matches!(trust, gemini::FolderTrust::Unknown) {
        let path = gemini::trusted_folders_path(homes);
        let before = read_opt(&path)?;
        let (after, change) = gemini::trust_repo(&path, before.as_deref(), repo)?;
        plan.edits.push(FileEdit {
            path,
            kind: FileKind::GeminiTrust,
            before,
            after,
            changes: vec![change],
            backup: true,
            confine: None,
        });
    } else if let Some(problem) = gemini::trust_problem(repo, homes, &trust) {
        plan.problems.push(problem);
    }
    Ok(())
}

fn display_name(repo: &Path, path: &Path) -> String {
    path.strip_prefix(repo)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

impl Plan {
    fn new(homes: &Homes) -> Plan {
        Plan {
            edits: Vec::new(),
            backups: Backups::new(&homes.backups),
            notes: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// Where the file lives: inside the repository (project and local scopes, AGENTS.md) or not.
fn confine_for(scope: Scope, repo: &Path) -> Option<PathBuf> {
    (scope != Scope::User).then(|| repo.to_path_buf())
}

pub fn plan_install(repo: &Path, homes: &Homes, opts: &InstallOptions) -> Result<Plan, EditError> {
    let mut plan = Plan::new(homes);
    let confine = confine_for(opts.scope, repo);
    if opts.targets.claude {
        let path = claude_settings_path(opts.scope, repo, homes);
        let want = wanted_for(&opts.hooks, opts.watch, Agent::Claude);
        plan.edits.push(hooks_file_edit(
            FileKind::ClaudeSettings,
            path,
            Some(&want),
            confine.clone(),
        )?);
    }
    if opts.targets.codex {
        if opts.scope == Scope::Local {
            plan.notes.push(
                "Codex has no local scope; its hooks go to the project's .codex/hooks.json.".into(),
            );
        }
        let path = codex_hooks_path(opts.scope, repo, homes);
        let want = wanted_for(&opts.hooks, opts.watch, Agent::Codex);
        let edit = hooks_file_edit(FileKind::CodexHooks, path.clone(), Some(&want), confine)?;
        let moved = trust_moves(&path, edit.before.as_deref(), |doc| {
            hooks_doc::install(doc, &want, &path)
        })?;
        plan.edits.push(edit);

        let cfg_path = homes.codex_config();
        let cfg_before = read_opt(&cfg_path)?;
        let mut doc = codex_config::parse(&cfg_path, cfg_before.as_deref().unwrap_or(""))?;
        let mut changes = Vec::new();
        let flags = codex_config::feature_flags(&doc);
        if let Some(problem) = flags.problem(&cfg_path) {
            if opts.enable_codex_hooks && flags.legacy_profile.is_none() {
                changes.extend(codex_config::enable_hooks(&mut doc));
            } else {
                plan.problems.push(problem);
            }
        }
        plan.notes
            .extend(codex_config::profile_notes(&doc, &homes.codex_home));
        if opts.trust && opts.scope != Scope::User {
            changes.push(codex_config::trust_project(&mut doc, repo, &cfg_path)?);
        }
        changes.extend(codex_config::move_trust_entries(&mut doc, &moved));
        let after = if any_effective(&changes) {
            Some(codex_config::render(
                &doc,
                cfg_before.as_deref().unwrap_or(""),
            ))
        } else {
            cfg_before.clone()
        };
        if !changes.is_empty() {
            plan.edits.push(FileEdit {
                path: cfg_path,
                kind: FileKind::CodexConfig,
                before: cfg_before,
                after,
                changes,
                backup: true,
                confine: None,
            });
        }
    }
    if opts.targets.gemini {
        plan_gemini(repo, homes, opts, &mut plan)?;
    }
    if opts.scope == Scope::Project {
        let (files, note) = instruction_targets(repo, homes, opts.targets)?;
        plan.notes.extend(note);
        for path in files {
            let before = read_opt(&path)?;
            if let Some(text) = &before {
                instructions::check(&path, text)?;
            }
            let (after, change) = instructions::install(before.as_deref(), "handover section");
            plan.edits.push(FileEdit {
                path,
                kind: FileKind::Instructions,
                before,
                after: Some(after),
                changes: vec![change],
                backup: true,
                confine: Some(repo.to_path_buf()),
            });
        }
    } else {
        plan.notes.push(format!(
            "AGENTS.md / CLAUDE.md / GEMINI.md are shared project files: the {} scope leaves them alone (install with --scope project to add the handover section).",
            opts.scope.as_str()
        ));
    }
    mark_backups(&mut plan);
    note_old_backups(&mut plan);
    Ok(plan)
}

pub fn plan_uninstall(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
    scope: Scope,
) -> Result<Plan, EditError> {
    let mut plan = Plan::new(homes);
    let confine = confine_for(scope, repo);
    if targets.claude {
        let path = claude_settings_path(scope, repo, homes);
        plan.edits.push(hooks_file_edit(
            FileKind::ClaudeSettings,
            path,
            None,
            confine.clone(),
        )?);
    }
    if targets.codex {
        let path = codex_hooks_path(scope, repo, homes);
        let edit = hooks_file_edit(FileKind::CodexHooks, path.clone(), None, confine)?;
        let moved = trust_moves(&path, edit.before.as_deref(), |doc| {
            hooks_doc::uninstall(doc, &path)
        })?;
        plan.edits.push(edit);
        // Forget the trust Codex recorded for our handlers, and move the trust of the user's
        // handlers that moved up (keys are positional: see docs).
        let cfg_path = homes.codex_config();
        if let Some(cfg_before) = read_opt(&cfg_path)? {
            let mut doc = codex_config::parse(&cfg_path, &cfg_before)?;
            let changes = codex_config::move_trust_entries(&mut doc, &moved);
            if !changes.is_empty() {
                let after = Some(codex_config::render(&doc, &cfg_before));
                plan.edits.push(FileEdit {
                    path: cfg_path,
                    kind: FileKind::CodexConfig,
                    before: Some(cfg_before),
                    after,
                    changes,
                    backup: true,
                    confine: None,
                });
            }
        }
    }
    if targets.gemini {
        let path = gemini::settings_path(scope, repo, homes);
        plan.edits.push(hooks_file_edit(
            FileKind::GeminiSettings,
            path,
            None,
            confine_for(scope, repo),
        )?);
    }
    if scope == Scope::Project {
        let (files, _) = instruction_targets(repo, homes, targets)?;
        for path in files {
            if let Some(before) = read_opt(&path)? {
                instructions::check(&path, &before)?;
                let (after, change) = instructions::uninstall(&before, "handover section");
                plan.edits.push(FileEdit {
                    path,
                    kind: FileKind::Instructions,
                    before: Some(before),
                    after,
                    changes: vec![change],
                    backup: true,
                    confine: Some(repo.to_path_buf()),
                });
            }
        }
    }
    restore_users_bytes(&mut plan);
    mark_backups(&mut plan);
    keep_links(&mut plan);
    Ok(plan)
}

impl Plan {
    /// Per changed file, a unified diff (paths shown relative to `repo` when inside it).
    pub fn diff(&self, repo: &Path) -> String {
        self.edits
            .iter()
            .filter(|e| e.changed())
            .map(|e| {
                diff::unified(
                    &display_name(repo, &e.path),
                    e.before.as_deref(),
                    e.after.as_deref(),
                )
            })
            .collect()
    }

    /// Checks every file this plan would write (and its backup) before the first write:
    /// inside the repository where it belongs, not read-only, in a writable directory.
    pub fn preflight(&self) -> Result<(), EditError> {
        for e in self.edits.iter().filter(|e| e.changed()) {
            let access = match e.after {
                Some(_) => Access::Write,
                None => Access::Delete,
            };
            preflight::check_file(&e.path, access, e.confine.as_deref())?;
            if e.before.is_some() && e.backup {
                preflight::check_dir(&self.backups.dir_for(&e.path), &e.path)?;
            }
        }
        Ok(())
    }

    /// Applies every changed edit, all or nothing (see transaction.rs).
    pub fn apply(&self, stamp: &str) -> Result<Applied, EditError> {
        transaction::apply(&self.edits, &self.backups, stamp)
    }
}
