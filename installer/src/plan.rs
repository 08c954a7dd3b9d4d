//! Computing every edit of an install or uninstall before touching anything, showing it as a
//! diff (`--dry-run`), and applying it (backup on first modification, atomic writes).
//!
//! All files are read and every edit is computed first; one unparseable file stops the whole
//! run before anything is written.

use crate::codex_config;
use crate::diff;
use crate::error::EditError;
use crate::hooks_doc::{self, Wanted};
use crate::instructions;
use crate::json_layout::{self, Layout};
use crate::locate::HookPaths;
use crate::report::{any_effective, Change};
use handover_base::hook_exe::{command_for, HookExe};
use handover_base::Agent;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `.claude/settings.json`, `.codex/hooks.json` in the repository (shared, committed).
    Project,
    /// `.claude/settings.local.json` (private). Codex has no local layer: project is used.
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
}

/// Home directories, injected so tests never touch the real `~`.
#[derive(Clone, Debug, PartialEq)]
pub struct Homes {
    /// `~` (Claude Code's user settings live in `~/.claude/`).
    pub home: PathBuf,
    /// `$CODEX_HOME`, default `~/.codex`.
    pub codex_home: PathBuf,
}

impl Homes {
    /// From the environment: `$HOME` (via `dirs`) and `$CODEX_HOME`.
    pub fn from_env() -> Option<Homes> {
        let home = dirs::home_dir()?;
        let codex_home = std::env::var_os("CODEX_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"));
        Some(Homes { home, codex_home })
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
    /// Back up `before` on first modification: false when the file holds nothing of the
    /// user's (we created it and only our content is in it), so there is nothing to keep.
    pub backup: bool,
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
    /// afterwards through `codex app-server`, see codex_trust).
    pub trust: bool,
    pub hooks: HookPaths,
}

#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub edits: Vec<FileEdit>,
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
    hooks_doc::wanted(&commands(hooks, watch, agent))
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

fn display_name(repo: &Path, path: &Path) -> String {
    path.strip_prefix(repo)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

pub fn plan_install(repo: &Path, homes: &Homes, opts: &InstallOptions) -> Result<Plan, EditError> {
    let mut plan = Plan::default();
    if opts.targets.claude {
        let path = claude_settings_path(opts.scope, repo, homes);
        let before = read_opt(&path)?;
        let want = hooks_doc::wanted(&commands(&opts.hooks, opts.watch, Agent::Claude));
        let (after, changes) = edit_hooks_json(&path, before.as_deref(), Some(&want))?;
        plan.edits.push(FileEdit {
            path,
            kind: FileKind::ClaudeSettings,
            before,
            after,
            changes,
            backup: true,
        });
    }
    if opts.targets.codex {
        if opts.scope == Scope::Local {
            plan.notes.push(
                "Codex has no local scope; its hooks go to the project's .codex/hooks.json.".into(),
            );
        }
        let path = codex_hooks_path(opts.scope, repo, homes);
        let before = read_opt(&path)?;
        let want = hooks_doc::wanted(&commands(&opts.hooks, opts.watch, Agent::Codex));
        let (after, changes) = edit_hooks_json(&path, before.as_deref(), Some(&want))?;
        plan.edits.push(FileEdit {
            path,
            kind: FileKind::CodexHooks,
            before,
            after,
            changes,
            backup: true,
        });

        let cfg_path = homes.codex_config();
        let cfg_before = read_opt(&cfg_path)?;
        let mut doc = codex_config::parse(&cfg_path, cfg_before.as_deref().unwrap_or(""))?;
        let mut changes = Vec::new();
        let flags = codex_config::feature_flags(&doc);
        if let Some(problem) = flags.problem(&cfg_path) {
            if opts.enable_codex_hooks {
                changes.extend(codex_config::enable_hooks(&mut doc));
            } else {
                plan.problems.push(problem);
            }
        }
        if opts.trust && opts.scope != Scope::User {
            changes.push(codex_config::trust_project(&mut doc, repo, &cfg_path)?);
        }
        let after = if any_effective(&changes) {
            Some(doc.to_string())
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
            });
        }
    }
    if opts.scope == Scope::Project {
        for path in instruction_files(repo, opts.targets) {
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
            });
        }
    } else {
        plan.notes.push(format!(
            "AGENTS.md / CLAUDE.md are shared project files: the {} scope leaves them alone (install with --scope project to add the handover section).",
            opts.scope.as_str()
        ));
    }
    mark_backups(&mut plan);
    Ok(plan)
}

/// A file holding only our content (we created it) needs no backup: nothing of the user's
/// would be lost. Everything else is backed up on its first modification.
fn mark_backups(plan: &mut Plan) {
    for e in &mut plan.edits {
        let Some(before) = e.before.as_deref() else {
            continue;
        };
        e.backup = match e.kind {
            FileKind::ClaudeSettings | FileKind::CodexHooks => {
                !matches!(edit_hooks_json(&e.path, Some(before), None), Ok((None, _)))
            }
            FileKind::Instructions => instructions::uninstall(before, "").0.is_some(),
            FileKind::CodexConfig => true,
        };
    }
}

pub fn plan_uninstall(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
    scope: Scope,
) -> Result<Plan, EditError> {
    let mut plan = Plan::default();
    if targets.claude {
        let path = claude_settings_path(scope, repo, homes);
        let before = read_opt(&path)?;
        let (after, changes) = edit_hooks_json(&path, before.as_deref(), None)?;
        plan.edits.push(FileEdit {
            path,
            kind: FileKind::ClaudeSettings,
            before,
            after,
            changes,
            backup: true,
        });
    }
    if targets.codex {
        let path = codex_hooks_path(scope, repo, homes);
        let before = read_opt(&path)?;
        let mut trust_keys = Vec::new();
        if let Some(text) = &before {
            let doc = json_layout::parse(&path, text)?;
            trust_keys = hooks_doc::find_ours(&doc)
                .iter()
                .map(|f| hooks_doc::codex_trust_key(&path, f))
                .collect();
        }
        let (after, changes) = edit_hooks_json(&path, before.as_deref(), None)?;
        plan.edits.push(FileEdit {
            path,
            kind: FileKind::CodexHooks,
            before,
            after,
            changes,
            backup: true,
        });
        // Forget the trust Codex recorded for our handlers (keys are positional: see docs).
        let cfg_path = homes.codex_config();
        if let Some(cfg_before) = read_opt(&cfg_path)? {
            let mut doc = codex_config::parse(&cfg_path, &cfg_before)?;
            let changes = codex_config::remove_trust_entries(&mut doc, &trust_keys);
            if !changes.is_empty() {
                let after = Some(doc.to_string());
                plan.edits.push(FileEdit {
                    path: cfg_path,
                    kind: FileKind::CodexConfig,
                    before: Some(cfg_before),
                    after,
                    changes,
                    backup: true,
                });
            }
        }
    }
    if scope == Scope::Project {
        for path in instruction_files(repo, targets) {
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
                });
            }
        }
    }
    mark_backups(&mut plan);
    keep_links(&mut plan);
    Ok(plan)
}

/// A file that would be deleted but is a symlink (into a dotfiles checkout, say) is emptied
/// instead: deleting the link would leave our content in the file it points to.
fn keep_links(plan: &mut Plan) {
    for e in &mut plan.edits {
        let is_link = fs::symlink_metadata(&e.path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        if e.after.is_none() && e.before.is_some() && is_link {
            e.after = Some(match e.kind {
                FileKind::Instructions => String::new(),
                _ => json_layout::render(
                    &serde_json::json!({}),
                    &Layout::detect(e.before.as_deref().unwrap_or("")),
                ),
            });
        }
    }
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

    /// Applies every changed edit. Returns the backups made.
    pub fn apply(&self, stamp: &str) -> Result<Vec<PathBuf>, EditError> {
        let mut backups = Vec::new();
        for e in self.edits.iter().filter(|e| e.changed()) {
            if e.before.is_some() && e.backup {
                if let Some(b) = backup_once(&e.path, stamp)
                    .map_err(|err| EditError::new(&e.path, format!("cannot back up: {err}")))?
                {
                    backups.push(b);
                }
            }
            match &e.after {
                Some(text) => {
                    let target = handover_base::atomic::real_target(&e.path);
                    if let Some(dir) = target.parent() {
                        fs::create_dir_all(dir).map_err(|err| {
                            EditError::new(dir, format!("cannot create directory: {err}"))
                        })?;
                    }
                    handover_base::atomic::write_atomic(&e.path, text.as_bytes())
                        .map_err(|err| EditError::new(&e.path, format!("cannot write: {err}")))?;
                }
                None => {
                    fs::remove_file(&e.path)
                        .map_err(|err| EditError::new(&e.path, format!("cannot remove: {err}")))?;
                    // `.claude/` or `.codex/` left empty by that goes too (remove_dir fails otherwise).
                    if let Some(dir) = e.path.parent() {
                        if matches!(
                            dir.file_name().and_then(|n| n.to_str()),
                            Some(".claude" | ".codex")
                        ) {
                            let _ = fs::remove_dir(dir);
                        }
                    }
                }
            }
        }
        Ok(backups)
    }
}

/// `<file>.handover-backup-<stamp>`, only if the file has no backup of ours yet: the first
/// backup holds the user's original, later ones would only hold our own edits.
pub fn backup_once(path: &Path, stamp: &str) -> io::Result<Option<PathBuf>> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Ok(None);
    };
    let prefix = format!("{name}.handover-backup-");
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if let Ok(entries) = fs::read_dir(&dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                return Ok(None);
            }
        }
    }
    let backup = dir.join(format!("{prefix}{stamp}"));
    fs::copy(path, &backup)?;
    Ok(Some(backup))
}
