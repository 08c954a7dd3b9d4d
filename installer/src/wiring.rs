//! What install, uninstall and status do for one client beyond the generic steps, in one
//! registry: every step that differs between clients asks [`of`] instead of matching on the
//! agent.
//!
//! The generic steps, for every client: its hooks file (path from the client module, the
//! shared `hooks` shape edited by hooks_doc), the "no local scope" note, the instruction file
//! the client module names, and status per scope. A client whose only file is its hooks file in
//! the shared shape needs nothing here: [`Plain`] is its wiring. A client with
//! unusual files has a [`Wiring`] implementation in `wiring/<client>.rs`, or `wiring/<client>/`
//! with its editors beside it (Codex: config.toml in codex/config.rs, hook trust through
//! codex/app_server.rs and its step after the files are written in codex/trust.rs, which
//! flow calls, its status in codex/status.rs; Gemini CLI: its configurable context file in
//! gemini/files.rs; GitHub Copilot CLI: its own hooks shape in copilot/files.rs; Qwen Code:
//! its settings version, qwen.rs; OpenCode: its plugin, which carries the entries, opencode.rs,
//! which Kilo Code runs too;
//! Claude Code: the plugin copies status reports), and one line
//! in [`of`]. Gemini CLI, GitHub Copilot CLI and Factory Droid declare their trusted folders
//! ([`trusted_folders::TrustedFolders`], one editor for the three).
//!
//! What a client reports to `status` is its own shape, in its folder, and one variant of
//! [`Facts`] here; it draws its lines and problems itself ([`facts::OwnFacts`]). The generic
//! shapes (a hooks file per scope, the report) are in facts.rs, which knows no client.

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod droid;
pub mod facts;
pub mod gemini;
pub mod mcp;
mod opencode;
mod qwen;
pub mod trusted_folders;

use crate::edit::file_edit::FileEdit;
use crate::edit::hooks_doc::{self, Found, Mention, Wanted};
use crate::edit::hooks_file::HooksEdit;
use crate::edit::json_doc::Value;
use crate::error::EditError;
use crate::files::{Homes, Targets};
use crate::locate::HookPaths;
use crate::wiring::facts::{OwnFacts, ScopeStatus};
use crate::wiring::trusted_folders::TrustedFolders;
use handover_base::hook_exe::{command_for, portable_command, HookExe};
use handover_clients::Agent;
use handover_clients::Scope;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What an install is asked to do (`plan::InstallOptions`): here, below the plan, because a
/// client's wiring reads it.
#[derive(Clone, Debug)]
pub struct InstallOptions {
    pub targets: Targets,
    pub scope: Scope,
    /// Register handover-context-watch (false with `--no-watch`).
    pub watch: bool,
    /// `--enable-codex-hooks`: turn `[features] hooks = false` back on.
    pub enable_codex_hooks: bool,
    /// `--trust`: mark the project trusted in the user config (the hooks themselves are trusted
    /// afterwards through `codex app-server`, see codex/app_server.rs); for Gemini CLI, GitHub
    /// Copilot CLI and Factory Droid, add the repository to their trusted folders.
    pub trust: bool,
    /// Where the hook executables are on this machine.
    pub hooks: HookPaths,
    /// Write the portable command (hook_exe::portable_command: the same on every machine, the
    /// executable found at run time) instead of `hooks`' absolute paths.
    pub portable: bool,
    /// `--mcp`: register `handover mcp`, run by this command, in each client's MCP
    /// configuration (wiring/mcp.rs).
    pub mcp: Option<crate::edit::mcp_entry::McpCommand>,
}

impl InstallOptions {
    /// The handlers an install wants for one agent.
    pub fn wanted(&self, agent: Agent) -> Vec<Wanted> {
        let commands: Vec<(HookExe, String)> = HookExe::ALL
            .into_iter()
            .filter(|e| self.watch || *e != HookExe::ContextWatch)
            .map(|e| {
                let command = if self.portable {
                    portable_command(e, agent)
                } else {
                    command_for(self.hooks.get(e), agent)
                };
                (e, command)
            })
            .collect();
        hooks_doc::wanted_by(agent, &commands)
    }
}

/// What a client's own steps add to a plan: edits (after its hooks file's), notes, problems.
#[derive(Debug, Default)]
pub struct Planned {
    pub edits: Vec<FileEdit>,
    pub notes: Vec<String>,
    pub problems: Vec<String>,
    /// The edits add the repository to the client's trust record (`--trust`): install records
    /// it (manifest.rs), so that uninstall takes exactly that out again.
    pub trusts: bool,
}

/// Where an install, uninstall or status works: the repository, the homes, the scope.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    pub repo: &'a Path,
    pub homes: &'a Homes,
    pub scope: Scope,
}

/// One client's install as the generic steps planned it, for its own steps after them.
#[derive(Clone, Copy)]
pub struct Install<'a> {
    pub at: Place<'a>,
    pub opts: &'a InstallOptions,
    /// The hooks file's planned edit.
    pub hooks: &'a FileEdit,
    /// The handlers that edit installs.
    pub want: &'a [Wanted],
}

/// One client's uninstall as the generic steps planned it, for its own steps after them.
#[derive(Clone, Copy)]
pub struct Uninstall<'a> {
    pub at: Place<'a>,
    /// The hooks file's planned edit.
    pub hooks: &'a FileEdit,
    /// Install added the repository to the client's trust record (manifest.rs): take that
    /// entry out.
    pub untrust: bool,
}

/// One client's installer steps that are not the generic ones. Every method has the plain
/// client's answer as its default.
pub trait Wiring: Sync {
    /// Edits the client's hooks file `path` (its text `before`, None when absent): install
    /// `want`, or take ours out with None. Default: the shared `hooks` shape.
    fn edit_hooks(&self, path: &Path, before: Option<&str>, want: Option<&[Wanted]>) -> HooksEdit {
        crate::edit::hooks_file::edit_hooks_json(path, before, want)
    }

    /// The hooks document in the client's hooks file `text` (at `path`), as status reads it.
    /// Default: the file itself, parsed.
    fn read_hooks_doc(&self, path: &Path, text: &str) -> Result<Value, EditError> {
        crate::edit::json_layout::parse(path, text)
    }

    /// Our handlers and the user's commands that run ours, in the parsed hooks file.
    fn find_ours(&self, doc: &Value) -> (Vec<Found>, Vec<Mention>) {
        hooks_doc::find(doc)
    }

    /// The command written on the client's `event` for our `command` (some clients need the
    /// event named in it).
    fn command_on(&self, command: String, _event: &str) -> String {
        command
    }

    /// Install's edits beyond the hooks file, planned after it: config flags, trust.
    fn plan_install(&self, _install: Install<'_>) -> Result<Planned, EditError> {
        Ok(Planned::default())
    }

    /// The client's record of the folders it trusts to run hooks in, when it keeps one: the
    /// default uninstall step and what uninstall leaves in place read it.
    fn trusted_folders(&self) -> Option<&'static TrustedFolders> {
        None
    }

    /// Uninstall's edits beyond the hooks file.
    fn plan_uninstall(&self, uninstall: Uninstall<'_>) -> Result<Planned, EditError> {
        let Uninstall { at, untrust, .. } = uninstall;
        match self.trusted_folders() {
            Some(folders) => folders.plan_untrust(at.homes, at.repo, untrust),
            None => Ok(Planned::default()),
        }
    }

    /// The user's part of the client's own configuration file (`FileKind::Config`), for
    /// comparing two versions: everything but ours, in a canonical form; None when it does not
    /// parse, or the client has no such file.
    fn config_user_part(&self, _path: &Path, _text: &str) -> Option<String> {
        None
    }

    /// The instruction file the client reads, when its user can configure which one it is
    /// (then with a note when the configured name was not usable); None: the client module's
    /// fixed [`handover_clients::Client::instruction_file`].
    fn configured_instruction_file(
        &self,
        _repo: &Path,
        _homes: &Homes,
    ) -> Option<Result<(PathBuf, Option<String>), EditError>> {
        None
    }

    /// What uninstall leaves in place on purpose and says so (trust entries that may predate
    /// handover).
    fn left_in_place(&self, at: Place<'_>) -> Vec<String> {
        self.trusted_folders()
            .map(|folders| folders.left_in_place(at))
            .unwrap_or_default()
    }

    /// Where the client reads its MCP servers at `at.scope`, for `install --mcp` (mcp.rs); None
    /// where it has no file install can write.
    fn mcp_file(&self, _at: Place<'_>) -> Option<mcp::McpFile> {
        None
    }

    /// Why `install --mcp` registered nothing at `scope` when [`Wiring::mcp_file`] has no file
    /// there: said to the user, after the client's name.
    fn no_mcp_file_because(&self, _scope: Scope) -> &'static str {
        "is not registered by install --mcp yet: add `handover mcp` to its MCP servers by hand (docs/install.md, \"--mcp\")"
    }

    /// The client's facts beyond its hooks files, for `handover status` (`scopes` are its
    /// files, read; a client may add to them, as Codex adds the recorded hook trust).
    fn status_facts(&self, _at: Place<'_>, _scopes: &mut [ScopeStatus]) -> Option<Facts> {
        None
    }
}

/// What a client has beyond its hooks files, for `handover status` (`--json` serialises it
/// untagged, in the agent's entry): each client's own shape, filled and drawn beside its
/// wiring.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Facts {
    Claude(claude::ClaudeFacts),
    Codex(codex::status::CodexFacts),
    Gemini(gemini::GeminiFacts),
    Copilot(copilot::CopilotFacts),
    Droid(droid::DroidFacts),
}

impl Facts {
    /// The client's own facts, to draw.
    pub fn own(&self) -> &dyn OwnFacts {
        match self {
            Facts::Claude(f) => f,
            Facts::Codex(f) => f,
            Facts::Gemini(f) => f,
            Facts::Copilot(f) => f,
            Facts::Droid(f) => f,
        }
    }
}

/// A client whose only file is its hooks file in the shared shape.
pub struct Plain;

impl Wiring for Plain {}

/// The installer steps for `agent`.
pub fn of(agent: Agent) -> &'static dyn Wiring {
    match agent {
        Agent::Claude => &claude::ClaudeWiring,
        Agent::Codex => &codex::CodexWiring,
        Agent::Gemini => &gemini::GeminiWiring,
        Agent::Copilot => &copilot::CopilotWiring,
        Agent::Droid => &droid::DroidWiring,
        Agent::Qwen => &qwen::QwenWiring,
        Agent::OpenCode => &OPENCODE,
        Agent::Kilo => &KILO,
    }
}

/// OpenCode's plugin, and the same plugin with Kilo Code's places (its fork runs it unchanged).
static OPENCODE: opencode::OpenCodeWiring =
    opencode::OpenCodeWiring::of(&handover_clients::opencode::CLIENT);
static KILO: opencode::OpenCodeWiring =
    opencode::OpenCodeWiring::of(&handover_clients::kilo::CLIENT);
