//! What `handover status` knows about the installation, as data: per client its hooks file at
//! each scope and the facts only it has ([`Facts`], one variant per client that has some),
//! and the instruction files. status.rs gathers them, status/render.rs draws the generic part,
//! each client's wiring draws its own facts (their `lines` and `problems` are in the client's
//! folder or file under wiring/; [`Facts`] only dispatches), and `handover status --json`
//! serialises them (the helpers for fields whose JSON shape differs are in `json`), so the
//! three cannot disagree. The shapes are here, below the client modules that fill them.

mod json;

use crate::edit::hooks_doc::{Found, Mention};
use crate::files::Scope;
use handover_base::hook_exe::HookExe;
use handover_clients::Agent;
use json::{
    by_scope, count, display_path, display_paths, exe_names, folder_trust, instructions_map,
    live_by_scope, ok_only, ok_value, on_off, own_commands, plugin_ids,
};
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
}

/// What a client has beyond its hooks files (wiring.rs gathers it).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Facts {
    Claude(ClaudeFacts),
    Codex(CodexFacts),
    Gemini(GeminiFacts),
    Copilot(CopilotFacts),
    Droid(DroidFacts),
}

#[derive(Clone, Debug, Serialize)]
pub struct ClaudeFacts {
    /// Plugin hook files under `~/.claude/plugins` that also run our executables.
    #[serde(serialize_with = "display_paths")]
    pub plugins: Vec<PathBuf>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CodexFacts {
    /// The user's config.toml, or why it cannot be read (then nothing of it is serialised).
    #[serde(flatten, serialize_with = "ok_only")]
    pub config: Result<CodexConfigStatus, String>,
    /// What Codex itself reported (`--check-trust`), when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_trust: Option<LiveTrust>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GeminiFacts {
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

#[derive(Clone, Debug, Serialize)]
pub struct CopilotFacts {
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
pub struct DroidFacts {
    /// The `trustedFolders` entry of the user settings that covers the repository (Factory
    /// Droid's terminal UI runs no hook in a folder the user has not trusted; it asks first),
    /// or why it could not be read (then it is not serialised).
    #[serde(
        skip_serializing_if = "Result::is_err",
        rename = "trusted_folder",
        serialize_with = "ok_value"
    )]
    pub folder: Result<Option<String>, String>,
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

impl CodexConfigStatus {
    pub(crate) fn project_trusted(&self) -> bool {
        self.project_trust.as_deref() == Some("trusted")
    }
}

// ---- What a client's own files or server say, as values ----
//
// Only the shapes are here, so that these facts sit below the client modules that produce
// them; their readers and spellings (`impl` blocks) are in each client's home under wiring/.

/// One feature setting as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flag {
    Bool(bool),
    /// Not a boolean (`hooks = "false"`): Codex 0.169.0 rejects the whole config.toml for it
    /// ("invalid type: string, expected a boolean") and runs with defaults, so no project and
    /// no hook is trusted. The text is the value as written.
    Invalid(String),
}

/// What the user set for the hooks feature, if anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureFlags {
    /// `[features] hooks = ...`
    pub hooks: Option<Flag>,
    /// `[features] codex_hooks = ...` (deprecated name).
    pub codex_hooks: Option<Flag>,
    /// A top-level `profile = "..."`: Codex 0.169.0 refuses it ("legacy `profile` config is no
    /// longer supported") and ignores the whole file.
    pub legacy_profile: Option<String>,
}

/// What Codex says about one hook: `trustStatus` in `hooks/list` (Codex 0.169.0). Read
/// leniently: a value this version does not know is kept as [`TrustStatus::Other`], never an
/// error, and never counts as trusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrustStatus {
    /// Trusted with the hash it has now: Codex runs it.
    Trusted,
    /// Never approved: Codex skips it.
    Untrusted,
    /// Approved once, changed since (the recorded hash no longer matches): Codex skips it.
    Modified,
    /// Set by managed (administrator) configuration.
    Managed,
    /// Anything else, as Codex wrote it (empty when the field was missing).
    Other(String),
}

/// How Gemini CLI will treat the repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FolderTrust {
    /// `security.folderTrust.enabled` is false in the user's settings: every folder is trusted.
    Off,
    /// A rule trusts it (the rule's path).
    Trusted(String),
    /// A rule distrusts it (the rule's path).
    Distrusted(String),
    /// No rule: Gemini CLI asks in an interactive session and runs no hooks until trusted.
    Unknown,
}
