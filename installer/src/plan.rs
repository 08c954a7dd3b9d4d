//! Computing every edit of an install or uninstall before touching anything, showing it as a
//! diff (`--dry-run`), checking every target (`preflight`) and applying it all or nothing
//! (`transaction`; backups by `keep` and `backup`).
//!
//! All files are read and every edit is computed first; one unparseable file, read-only file or
//! unwritable directory stops the whole run before anything is written.

use crate::backup::Backups;
use crate::codex_config;
use crate::copilot;
use crate::diff;
use crate::error::EditError;
pub use crate::file_edit::{FileEdit, FileKind};
use crate::files::{
    claude_settings_path, codex_hooks_path, confine_for, display_path, hooks_path,
    qwen_settings_path, read_opt, Homes, Scope, Targets,
};
use crate::gemini;
use crate::hooks_doc::{self, Wanted};
use crate::hooks_file::edit_hooks_json;
use crate::instructions;
use crate::json_layout;
use crate::keep::{keep_links, mark_backups, note_old_backups, restore_users_bytes};
use crate::locate::HookPaths;
use crate::preflight::{self, Access};
use crate::report::{any_effective, Change};
use crate::transaction::{self, Applied};
use handover_base::hook_exe::{command_for, portable_command, HookExe};
use handover_base::Agent;
use std::path::{Path, PathBuf};

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
    /// Where the hook executables are on this machine.
    pub hooks: HookPaths,
    /// Write the portable command (hook_exe::portable_command: the same on every machine, the
    /// executable found at run time) instead of `hooks`' absolute paths.
    pub portable: bool,
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

/// The handlers an install wants for one agent.
pub fn wanted(opts: &InstallOptions, agent: Agent) -> Vec<Wanted> {
    hooks_doc::wanted_by(agent, &commands(opts, agent))
}

/// The handlers an install with the executables at `hooks`' absolute paths wants.
pub fn wanted_for(hooks: &HookPaths, watch: bool, agent: Agent) -> Vec<Wanted> {
    let at_paths = |e: HookExe| (e, command_for(hooks.get(e), agent));
    let commands: Vec<_> = HookExe::ALL
        .into_iter()
        .filter(|e| watch || *e != HookExe::ContextWatch)
        .map(at_paths)
        .collect();
    hooks_doc::wanted_by(agent, &commands)
}

fn commands(opts: &InstallOptions, agent: Agent) -> Vec<(HookExe, String)> {
    HookExe::ALL
        .into_iter()
        .filter(|e| opts.watch || *e != HookExe::ContextWatch)
        .map(|e| {
            let command = if opts.portable {
                portable_command(e, agent)
            } else {
                command_for(opts.hooks.get(e), agent)
            };
            (e, command)
        })
        .collect()
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
    Ok(FileEdit::new(path, kind, before, after, changes, confine))
}

/// The planned edit of Codex's config.toml, when there are changes: `doc` rendered in the
/// file's line endings, or the file as it was when no change alters it.
fn codex_config_edit(
    path: PathBuf,
    before: Option<String>,
    doc: &toml_edit::DocumentMut,
    changes: Vec<Change>,
) -> Option<FileEdit> {
    if changes.is_empty() {
        return None;
    }
    let after = if any_effective(&changes) {
        Some(codex_config::render(doc, before.as_deref().unwrap_or("")))
    } else {
        before.clone()
    };
    Some(FileEdit::new(
        path,
        FileKind::CodexConfig,
        before,
        after,
        changes,
        None,
    ))
}

/// The Codex trust keys an edit of `hooks_json` moves or removes: (old key, new key or None).
fn trust_moves(
    hooks_json: &Path,
    before: Option<&str>,
    edit: impl FnOnce(&mut crate::json_doc::Value) -> Result<Vec<Change>, EditError>,
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

/// Codex's config.toml in an install: the hooks feature turned back on (only with
/// `--enable-codex-hooks`, else reported), the project trusted (`--trust`), and the trust
/// entries of handlers the hooks.json edit `moved` kept in step.
fn plan_codex_config_install(
    plan: &mut Plan,
    repo: &Path,
    homes: &Homes,
    opts: &InstallOptions,
    moved: &[(String, Option<String>)],
) -> Result<(), EditError> {
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
    changes.extend(codex_config::move_trust_entries(&mut doc, moved));
    plan.edits
        .extend(codex_config_edit(cfg_path, cfg_before, &doc, changes));
    Ok(())
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
    let want = wanted(opts, Agent::Gemini);
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
        plan.edits.push(FileEdit::new(
            path,
            FileKind::GeminiTrust,
            before,
            after,
            vec![change],
            None,
        ));
    } else if let Some(problem) = gemini::trust_problem(repo, homes, &trust, opts.scope) {
        plan.problems.push(problem);
    }
    Ok(())
}

/// GitHub Copilot CLI's part of an install: its own hooks file (`.github/hooks/handover.json`,
/// or `~/.copilot/hooks/` for the user scope), and for a repository folder trust (written
/// with `--trust`, else a problem saying what to do: Copilot loads no repository hooks in a
/// folder the user has not trusted; user hooks run everywhere).
fn plan_copilot(
    repo: &Path,
    homes: &Homes,
    opts: &InstallOptions,
    plan: &mut Plan,
) -> Result<(), EditError> {
    if opts.scope == Scope::Local {
        plan.notes.push(
            "GitHub Copilot CLI has no local scope; its hooks go to the project's .github/hooks/handover.json."
                .into(),
        );
    }
    let want = wanted(opts, Agent::Copilot);
    let path = crate::files::copilot_hooks_path(opts.scope, repo, homes);
    let before = read_opt(&path)?;
    let (after, changes) = copilot::edit_hooks(&path, before.as_deref(), Some(&want))?;
    plan.edits.push(FileEdit::new(
        path,
        FileKind::CopilotHooks,
        before,
        after,
        changes,
        confine_for(opts.scope, repo),
    ));
    if opts.scope == Scope::User {
        return Ok(());
    }
    let config = copilot::config_path(&homes.user_dir(handover_clients::of(Agent::Copilot)));
    let before = read_opt(&config)?;
    if copilot::trusted_by(&config, before.as_deref().unwrap_or(""), repo)?.is_some() {
        return Ok(());
    }
    if opts.trust {
        let (after, change) = copilot::trust_repo(&config, before.as_deref(), repo)?;
        plan.edits.push(FileEdit::new(
            config,
            FileKind::CopilotTrust,
            before,
            after,
            vec![change],
            None,
        ));
    } else {
        plan.problems.push(copilot::trust_problem(repo, &config));
    }
    Ok(())
}

pub fn plan_install(repo: &Path, homes: &Homes, opts: &InstallOptions) -> Result<Plan, EditError> {
    let mut plan = Plan::new(homes);
    let confine = confine_for(opts.scope, repo);
    if opts.targets.claude {
        let path = claude_settings_path(opts.scope, repo, homes);
        let want = wanted(opts, Agent::Claude);
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
        let want = wanted(opts, Agent::Codex);
        let edit = hooks_file_edit(FileKind::CodexHooks, path.clone(), Some(&want), confine)?;
        let moved = trust_moves(&path, edit.before.as_deref(), |doc| {
            hooks_doc::install(doc, &want, &path)
        })?;
        plan.edits.push(edit);
        plan_codex_config_install(&mut plan, repo, homes, opts, &moved)?;
    }
    if opts.targets.gemini {
        plan_gemini(repo, homes, opts, &mut plan)?;
    }
    if opts.targets.qwen {
        if opts.scope == Scope::Local {
            plan.notes.push(
                "Qwen Code has no local scope; its hooks go to the project's .qwen/settings.json."
                    .into(),
            );
        }
        let path = qwen_settings_path(opts.scope, repo, homes);
        let want = wanted(opts, Agent::Qwen);
        plan.edits.push(hooks_file_edit(
            FileKind::QwenSettings,
            path,
            Some(&want),
            confine_for(opts.scope, repo),
        )?);
    }
    if opts.targets.copilot {
        plan_copilot(repo, homes, opts, &mut plan)?;
    }
    if opts.targets.droid {
        if opts.scope == Scope::Local {
            plan.notes.push(
                "Factory Droid has no local scope; its hooks go to the project's .factory/settings.json."
                    .into(),
            );
        }
        let want = wanted(opts, Agent::Droid);
        plan.edits.push(hooks_file_edit(
            FileKind::DroidSettings,
            hooks_path(Agent::Droid, opts.scope, repo, homes),
            Some(&want),
            confine_for(opts.scope, repo),
        )?);
    }
    if opts.scope == Scope::Project {
        let (mut files, note) =
            crate::instructions::instruction_targets(repo, homes, opts.targets)?;
        if opts.targets.copilot {
            let without = Targets {
                copilot: false,
                ..opts.targets
            };
            let (others, _) = crate::instructions::instruction_targets(repo, homes, without)?;
            crate::copilot::drop_redundant_agents_md(repo, &others, &mut files);
        }
        plan.notes.extend(note);
        for path in files {
            let before = read_opt(&path)?;
            if let Some(text) = &before {
                instructions::check(&path, text)?;
            }
            let (after, change) = instructions::install(before.as_deref(), "handover section");
            plan.edits.push(FileEdit::new(
                path,
                FileKind::Instructions,
                before,
                Some(after),
                vec![change],
                Some(repo.to_path_buf()),
            ));
        }
    } else {
        plan.notes.push(format!(
            "AGENTS.md / CLAUDE.md / GEMINI.md are shared project files: the {} scope leaves them alone (install with --scope project to add the handover section).",
            opts.scope.as_str()
        ));
    }
    mark_backups(&mut plan.edits, &plan.backups);
    let old = note_old_backups(&plan.edits, &plan.backups);
    plan.notes.extend(old);
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
            let mut changes = codex_config::move_trust_entries(&mut doc, &moved);
            // The feature flags `--enable-codex-hooks` turned on go back to what they were.
            changes.extend(codex_config::restore_hooks(&mut doc));
            plan.edits
                .extend(codex_config_edit(cfg_path, Some(cfg_before), &doc, changes));
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
    if targets.qwen {
        let path = qwen_settings_path(scope, repo, homes);
        plan.edits.push(hooks_file_edit(
            FileKind::QwenSettings,
            path,
            None,
            confine_for(scope, repo),
        )?);
    }
    if targets.copilot {
        let path = crate::files::copilot_hooks_path(scope, repo, homes);
        let before = read_opt(&path)?;
        let (after, changes) = copilot::edit_hooks(&path, before.as_deref(), None)?;
        plan.edits.push(FileEdit::new(
            path,
            FileKind::CopilotHooks,
            before,
            after,
            changes,
            confine_for(scope, repo),
        ));
    }
    if targets.droid {
        plan.edits.push(hooks_file_edit(
            FileKind::DroidSettings,
            hooks_path(Agent::Droid, scope, repo, homes),
            None,
            confine_for(scope, repo),
        )?);
    }
    if scope == Scope::Project {
        let (files, _) = crate::instructions::instruction_targets(repo, homes, targets)?;
        for path in files {
            if let Some(before) = read_opt(&path)? {
                instructions::check(&path, &before)?;
                let (after, change) = instructions::uninstall(&before, "handover section");
                plan.edits.push(FileEdit::new(
                    path,
                    FileKind::Instructions,
                    Some(before),
                    after,
                    vec![change],
                    Some(repo.to_path_buf()),
                ));
            }
        }
    }
    restore_users_bytes(&mut plan.edits, &plan.backups);
    mark_backups(&mut plan.edits, &plan.backups);
    keep_links(&mut plan.edits);
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
                    &display_path(repo, &e.path),
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
