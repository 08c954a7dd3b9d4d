//! `handover status`, installer part: per agent and scope, whether our hooks are installed, up
//! to date, duplicated; each client's own facts (from its wiring); and what to do.
//! Read-only and cheap: no process is started (a client that can be asked itself is asked only
//! on request, by its wiring).
//!
//! This module gathers the facts (wiring/facts.rs), once, into a [`Report`], iterating the
//! clients: every client's hooks files by the generic rules, its own facts from its wiring
//! (`Wiring::status_facts`, with their lines and problems beside it). `render` turns them into
//! the screen lines ([`Report::lines`]) and the problems with their fixes
//! ([`Report::problems`]), and `handover status --json` serialises them (its "agents" field), so
//! the three cannot disagree.

mod render;

use crate::edit::hooks_doc::Found;
use crate::files::{hooks_path, read_opt, Homes, Targets};
use crate::locate::{at_run_time, is_executable, HookPaths};
pub use crate::wiring::facts::{AgentStatus, HooksFile, InstructionsFile, Report, ScopeStatus};
pub use crate::wiring::Facts;
use crate::wiring::{self, Place};
use handover_base::hook_exe::{command_for, portable_command, HookExe};
use handover_clients::Agent;
use handover_clients::Scope;
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

fn read_hooks_file(agent: Agent, path: PathBuf) -> HooksFile {
    let (exists, parsed) = match read_opt(&path) {
        Err(e) => (true, Err(e.to_string())),
        Ok(None) => (false, Ok(None)),
        Ok(Some(text)) => (
            true,
            wiring::of(agent)
                .read_hooks_doc(&path, &text)
                .map(Some)
                .map_err(|e| e.to_string()),
        ),
    };
    let ((ours, mentions), error) = match parsed {
        Ok(Some(doc)) => (wiring::of(agent).find_ours(&doc), None),
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

impl ScopeStatus {
    /// Reads one scope's file. `expected` = where the hook executables are now (None: not
    /// located, so "up to date" is not checked).
    fn read(agent: Agent, scope: Scope, path: PathBuf, machine: Machine<'_>) -> Self {
        let expected = machine.expected;
        let client = handover_clients::of(agent);
        let file = read_hooks_file(agent, path);
        // As the client's commands are written (Copilot's name their event).
        let with_event = |core: String, event: &str| wiring::of(agent).command_on(core, event);
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

/// The scopes `agent` has a file of its own at: project, local (only where it is not the
/// project's file) and user.
fn scopes_of(agent: Agent, repo: &Path, homes: &Homes) -> Vec<Scope> {
    let local = hooks_path(agent, Scope::Local, repo, homes);
    let project = hooks_path(agent, Scope::Project, repo, homes);
    [Scope::Project, Scope::Local, Scope::User]
        .into_iter()
        .filter(|s| *s != Scope::Local || local != project)
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
    let at = Place {
        repo,
        homes,
        scope: Scope::Project,
    };
    let agents = Agent::ALL
        .into_iter()
        .map(|agent| {
            let mut scopes: Vec<ScopeStatus> = scopes_of(agent, repo, homes)
                .into_iter()
                .map(|scope| {
                    let path = hooks_path(agent, scope, repo, homes);
                    ScopeStatus::read(agent, scope, path, machine)
                })
                .collect();
            let facts = wiring::of(agent).status_facts(at, &mut scopes);
            AgentStatus {
                agent,
                scopes,
                facts,
                mcp: wiring::mcp::status(agent, repo, homes),
            }
        })
        .collect();
    let all = Targets::all();
    let (files, instructions_error) =
        match crate::plan::instruction_files::instruction_targets(repo, homes, all) {
            Ok((files, _)) => (files, None),
            Err(e) => {
                // The clients whose configured file could be found.
                let readable = Targets::of(Agent::ALL.into_iter().filter(|a| {
                    wiring::of(*a)
                        .configured_instruction_file(repo, homes)
                        .is_none_or(|r| r.is_ok())
                }));
                let files =
                    crate::plan::instruction_files::instruction_targets(repo, homes, readable)
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
                .is_some_and(|t| crate::edit::instructions::is_present(&t)),
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })
        .collect();
    Report {
        agents,
        instructions,
        instructions_error,
    }
}

impl Report {
    /// The entry of `agent`.
    pub fn agent(&self, agent: Agent) -> Option<&AgentStatus> {
        self.agents.iter().find(|a| a.agent == agent)
    }

    /// Whether any agent runs our hooks at all: a settings scope with them installed, or a
    /// handover plugin.
    pub fn wired_anywhere(&self) -> bool {
        self.agents.iter().any(|a| {
            a.scopes.iter().any(|s| s.installed)
                || a.facts.as_ref().is_some_and(|f| f.own().has_plugin())
        })
    }
}
