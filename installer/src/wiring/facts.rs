//! What `handover status` knows about the installation, as data: per client its hooks file at
//! each scope and the facts only it has (`wiring::Facts`: each client's own shape, in its
//! folder, drawn through [`OwnFacts`]), and the instruction files. status.rs gathers them,
//! status/render.rs draws the generic part, each client's wiring its own, and
//! `handover status --json` serialises them (the helpers for fields whose JSON shape differs
//! are in `json`), so the three cannot disagree. Nothing here knows a client.

pub(crate) mod json;

use crate::edit::hooks_doc::{Found, Mention};
use crate::wiring::Facts;
use handover_base::hook_exe::HookExe;
use handover_clients::Agent;
use handover_clients::Scope;
use json::{by_scope, count, display_path, exe_names, instructions_map, own_commands};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::path::PathBuf;

/// Everything `handover status` knows about the installation: one entry per client, in
/// `handover_clients::ALL` order.
#[derive(Clone, Debug)]
pub struct Report {
    pub agents: Vec<AgentStatus>,
    /// Whether AGENTS.md / CLAUDE.md / GEMINI.md hold the handover section (serialised as name → bool).
    pub instructions: Vec<InstructionsFile>,
    /// Why Gemini CLI's context file could not be found (the others are listed then).
    pub instructions_error: Option<String>,
}

/// Serialised as `{"<agent>": {...}, ..., "instructions": {...}}`.
impl Serialize for Report {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Instructions<'a>(&'a [InstructionsFile]);
        impl Serialize for Instructions<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                instructions_map(self.0, s)
            }
        }
        let mut map = s.serialize_map(Some(self.agents.len() + 1))?;
        for a in &self.agents {
            map.serialize_entry(a.agent.as_str(), a)?;
        }
        map.serialize_entry("instructions", &Instructions(&self.instructions))?;
        map.end()
    }
}

/// One client: its hooks file at each scope it has, and its own facts.
#[derive(Clone, Debug, Serialize)]
pub struct AgentStatus {
    #[serde(skip)]
    pub agent: Agent,
    /// Serialised under their scope names.
    #[serde(flatten, serialize_with = "by_scope")]
    pub scopes: Vec<ScopeStatus>,
    #[serde(flatten)]
    pub facts: Option<Facts>,
    /// Where `handover install --mcp` registered the MCP server (wiring/mcp.rs), by scope;
    /// left out of `--json` when it is nowhere.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "json::mcp_by_scope"
    )]
    pub mcp: Vec<(Scope, McpStatus)>,
}

/// The MCP server of `install --mcp` as `handover status` reports it (wiring/mcp.rs finds it):
/// registered in a client's file at one scope, and (Claude Code's project scope) approved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McpStatus {
    #[serde(serialize_with = "display_path")]
    pub file: PathBuf,
    pub command: String,
    pub args: Vec<String>,
    /// Claude Code's project scope: `enabledMcpjsonServers` names it (None elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
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

#[derive(Clone, Debug)]
pub struct InstructionsFile {
    pub name: String,
    /// The handover section is in it.
    pub present: bool,
}

// ---- Each client's own lines and problems ----

/// What a client says of its own facts in `handover status`: implemented beside its wiring,
/// reached through [`Facts::own`].
pub trait OwnFacts {
    /// Lines after its files'.
    fn lines(&self, _scopes: &[ScopeStatus], _out: &mut Vec<String>) {}
    /// Lines after the instruction files: what the client itself was asked.
    fn late_lines(&self, _out: &mut Vec<String>) {}
    /// Problems after its files'.
    fn problems(&self, _scopes: &[ScopeStatus], _out: &mut Vec<String>) {}
    /// Problems after the instruction files.
    fn late_problems(&self, _out: &mut Vec<String>) {}
    /// A handover plugin of the client's own runs our hooks.
    fn has_plugin(&self) -> bool {
        false
    }
}

impl HooksFile {
    pub(crate) fn is_empty(&self) -> bool {
        self.ours.is_empty() && self.mentions.is_empty()
    }

    pub(crate) fn has(&self, exe: HookExe, event: &str) -> bool {
        self.runs(exe, event) > 0
    }

    /// How many commands run `exe` on `event` (ours and the user's own): more than one runs it
    /// twice.
    pub(crate) fn runs(&self, exe: HookExe, event: &str) -> usize {
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
    pub(crate) fn run_twice(&self) -> Vec<(HookExe, &str, usize)> {
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
