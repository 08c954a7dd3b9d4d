//! Computing every edit of an install or uninstall before touching anything, showing it as a
//! diff (`--dry-run`), checking every target (`preflight`) and applying it all or nothing
//! (`transaction`; backups by `keep` and `backup`).
//!
//! All files are read and every edit is computed first; one unparseable file, read-only file or
//! unwritable directory stops the whole run before anything is written.

pub mod detect;
pub mod flow;
pub mod instruction_files;
pub mod keep;

use crate::apply::backup::Backups;
use crate::apply::preflight::{self, Access};
use crate::apply::transaction::{self, Applied};
use crate::edit::diff;
pub use crate::edit::file_edit::{FileEdit, FileKind};
use crate::edit::hooks_doc::{self, Wanted};
use crate::edit::instructions;
use crate::error::EditError;
use crate::files::{confine_for, display_path, hooks_path, read_opt, Homes, Targets};
use crate::locate::HookPaths;
use crate::plan::keep::{keep_links, mark_backups, note_old_backups, restore_users_bytes};
pub use crate::wiring::InstallOptions;
use crate::wiring::{self, mcp, Install, Place, Planned, Uninstall};
use handover_base::hook_exe::{command_for, HookExe};
use handover_clients::Agent;
use handover_clients::Scope;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Plan {
    pub edits: Vec<FileEdit>,
    pub backups: Backups,
    /// The clients whose trust record the edits add the repository to (install, `--trust`).
    pub trusted: Targets,
    /// Things the user should know (a scope that does not exist for an agent, a disabled
    /// feature flag, ...). Problems that keep hooks from running are also in `problems`.
    pub notes: Vec<String>,
    pub problems: Vec<String>,
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

/// The planned edit of `agent`'s hooks file (its wiring's editor): install `want`, or
/// uninstall with None.
fn hooks_file_edit(
    agent: Agent,
    path: PathBuf,
    want: Option<&[Wanted]>,
    confine: Option<PathBuf>,
) -> Result<FileEdit, EditError> {
    let before = read_opt(&path)?;
    // Uninstall: the MCP server's entry (and Claude Code's approval of it) out first, so that
    // a file left with nothing else goes as the hooks' rules say (wiring/mcp.rs).
    let (base, mut changes) = match (&before, want) {
        (Some(text), None) => {
            let (rest, changes) = mcp::strip_reporting(&path, false, text);
            (Some(rest), changes)
        }
        _ => (before.clone(), Vec::new()),
    };
    let (after, hook_changes) = wiring::of(agent).edit_hooks(&path, base.as_deref(), want)?;
    changes.splice(0..0, hook_changes);
    Ok(FileEdit::new(
        path,
        FileKind::Hooks(agent),
        before,
        after,
        changes,
        confine,
    ))
}

impl Plan {
    fn new(homes: &Homes) -> Plan {
        Plan {
            edits: Vec::new(),
            backups: Backups::new(&homes.backups),
            trusted: Targets::default(),
            notes: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// A client's own edits, notes and problems, after its hooks file's.
    fn add(&mut self, agent: Agent, planned: Planned) {
        if planned.trusts {
            self.trusted = Targets::of(self.trusted.iter().chain([agent]));
        }
        self.edits.extend(planned.edits);
        self.notes.extend(planned.notes);
        self.problems.extend(planned.problems);
    }
}

/// A client without a local layer writes its project file for `--scope local`: said once.
fn no_local_scope_note(agent: Agent, at: Place<'_>) -> Option<String> {
    if at.scope != Scope::Local {
        return None;
    }
    let project = hooks_path(agent, Scope::Project, at.repo, at.homes);
    (hooks_path(agent, Scope::Local, at.repo, at.homes) == project).then(|| {
        format!(
            "{} has no local scope; its hooks go to the project's {}.",
            handover_clients::of(agent).display_name,
            display_path(at.repo, &project)
        )
    })
}

pub fn plan_install(repo: &Path, homes: &Homes, opts: &InstallOptions) -> Result<Plan, EditError> {
    let mut plan = Plan::new(homes);
    let at = Place {
        repo,
        homes,
        scope: opts.scope,
    };
    for agent in opts.targets.iter() {
        plan.notes.extend(no_local_scope_note(agent, at));
        let want = opts.wanted(agent);
        let path = hooks_path(agent, opts.scope, repo, homes);
        let edit = hooks_file_edit(agent, path, Some(&want), confine_for(opts.scope, repo))?;
        let own = wiring::of(agent).plan_install(Install {
            at,
            opts,
            hooks: &edit,
            want: &want,
        });
        plan.edits.push(edit);
        plan.add(agent, own?);
    }
    // `--mcp`: after every client's own edits, as its MCP file may be one of them.
    if let Some(cmd) = &opts.mcp {
        for agent in opts.targets.iter() {
            mcp::plan_install(
                &mut plan.edits,
                &mut plan.notes,
                agent,
                opts.scope,
                repo,
                homes,
                cmd,
            )?;
        }
    }
    if opts.scope == Scope::Project {
        let (mut files, note) =
            crate::plan::instruction_files::instruction_targets(repo, homes, opts.targets)?;
        instruction_files::drop_files_seen_elsewhere(repo, homes, opts.targets, &mut files)?;
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
            "{} are shared project files: the {} scope leaves them alone (install with --scope project to add the handover section).",
            instruction_files::default_names().join(" / "),
            opts.scope.as_str()
        ));
    }
    mark_backups(&mut plan.edits, &plan.backups);
    let old = note_old_backups(&plan.edits, &plan.backups);
    plan.notes.extend(old);
    Ok(plan)
}

/// `untrust`: the clients whose trust record install added the repository to (manifest.rs).
pub fn plan_uninstall(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
    scope: Scope,
    untrust: Targets,
) -> Result<Plan, EditError> {
    let mut plan = Plan::new(homes);
    let at = Place { repo, homes, scope };
    for agent in targets.iter() {
        let path = hooks_path(agent, scope, repo, homes);
        let edit = hooks_file_edit(agent, path, None, confine_for(scope, repo))?;
        let own = wiring::of(agent).plan_uninstall(Uninstall {
            at,
            hooks: &edit,
            untrust: untrust.contains(agent),
        });
        plan.edits.push(edit);
        plan.add(agent, own?);
    }
    for agent in targets.iter() {
        mcp::plan_uninstall(&mut plan.edits, agent, scope, repo, homes)?;
    }
    if scope == Scope::Project {
        let files = instruction_files::uninstall_targets(repo, homes, targets)?;
        let staying = installed_besides(targets, repo, homes);
        let mut kept = Vec::new();
        for path in files {
            let readers = instruction_files::readers(repo, homes, staying, &path)?;
            if !readers.is_empty() {
                if read_opt(&path)?.is_some_and(|text| instructions::is_present(&text)) {
                    kept.push((display_path(repo, &path), readers));
                }
                continue;
            }
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
        plan.notes.extend(kept_sections_note(&kept));
    }
    restore_users_bytes(&mut plan.edits, &plan.backups);
    crate::plan::keep::delete_emptied_user_files(&mut plan.edits, &plan.backups);
    mark_backups(&mut plan.edits, &plan.backups);
    keep_links(&mut plan.edits);
    Ok(plan)
}

/// The clients other than `targets` whose hooks stay in the project scope (ours, or the
/// user's own command running ours). A hooks file that cannot be read or parsed counts as
/// installed: keeping a section is the safe mistake.
pub fn installed_besides(targets: Targets, repo: &Path, homes: &Homes) -> Targets {
    Targets::of(Agent::ALL.into_iter().filter(|a| {
        !targets.contains(*a)
            && crate::plan::detect::wired(*a, &hooks_path(*a, Scope::Project, repo, homes))
    }))
}

/// One line naming each instruction file whose section uninstall left for the clients that
/// stay installed and read it.
fn kept_sections_note(kept: &[(String, Vec<Agent>)]) -> Option<String> {
    if kept.is_empty() {
        return None;
    }
    let each: Vec<String> = kept
        .iter()
        .map(|(file, readers)| {
            let names: Vec<&str> = readers
                .iter()
                .map(|a| handover_clients::of(*a).display_name)
                .collect();
            format!("{file} (read by {})", names.join(", "))
        })
        .collect();
    let many = kept.len() > 1 || kept.iter().any(|(_, readers)| readers.len() > 1);
    let who = if many {
        "those clients stay"
    } else {
        "that client stays"
    };
    Some(format!(
        "kept the handover section in {}: {who} installed in this project.",
        each.join(" and ")
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_scope_note_is_made_for_each_client_without_a_local_file() {
        let homes = Homes::under(Path::new("/home/u"));
        let repo = Path::new("/repo");
        let at = |scope| Place {
            repo,
            homes: &homes,
            scope,
        };
        let notes: Vec<(Agent, Option<String>)> = Agent::ALL
            .into_iter()
            .map(|a| (a, no_local_scope_note(a, at(Scope::Local))))
            .collect();
        // The words each client's note had when it was written out by hand.
        let expected = [
            (Agent::Claude, None),
            (Agent::Codex, Some("Codex has no local scope; its hooks go to the project's .codex/hooks.json.")),
            (Agent::Gemini, Some("Gemini CLI has no local scope; its hooks go to the project's .gemini/settings.json.")),
            (Agent::Qwen, Some("Qwen Code has no local scope; its hooks go to the project's .qwen/settings.json.")),
            (Agent::Copilot, Some("GitHub Copilot CLI has no local scope; its hooks go to the project's .github/hooks/handover.json.")),
            (Agent::Droid, Some("Factory Droid has no local scope; its hooks go to the project's .factory/settings.json.")),
            (Agent::OpenCode, Some("OpenCode has no local scope; its hooks go to the project's .opencode/plugin/handover.js.")),
            (Agent::Kilo, Some("Kilo Code has no local scope; its hooks go to the project's .kilo/plugin/handover.js.")),
        ]
        .map(|(a, n)| (a, n.map(String::from)));
        assert_eq!(notes, expected);
        for scope in [Scope::Project, Scope::User] {
            assert!(Agent::ALL
                .into_iter()
                .all(|a| no_local_scope_note(a, at(scope)).is_none()));
        }
    }

    #[test]
    fn targets_are_a_set_listed_in_registry_order() {
        let t = Targets::of([Agent::Droid, Agent::Claude, Agent::Droid]);
        assert_eq!(t.iter().collect::<Vec<_>>(), [Agent::Claude, Agent::Droid]);
        assert!(t.contains(Agent::Droid) && !t.contains(Agent::Codex));
        assert_eq!(t.without(Agent::Droid), Targets::of([Agent::Claude]));
        assert!(Targets::default().is_empty());
        assert_eq!(Targets::all().iter().collect::<Vec<_>>(), Agent::ALL);
    }
}
