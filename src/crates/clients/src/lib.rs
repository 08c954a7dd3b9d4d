//! One home for each client. Everything handover knows about one AI coding client — the
//! events it fires and which of our hooks each runs, the hook input it sends, the output it
//! accepts per event, its transcript format, where it compacts, its config files and hook
//! entries, how it records trust, its plugin layout — lives in ONE module per client
//! ([`claude`], [`codex`], [`gemini`], [`qwen`], [`copilot`], [`droid`], [`opencode`],
//! [`kilo`]): a
//! declaration of data
//! (`pub static CLIENT: Client`) and a small [`Behaviour`] for what data cannot say. The
//! registry below lists them once; [`Agent`], [`ALL`] and [`of`] are made from it.
//! The hooks, the session record, the installer and the CLI ask [`of`] / [`ALL`] instead of
//! matching on the agent.
//!
//! Neutral types the modules speak in: [`HookEvent`] (our view of an event, whatever the
//! client calls it), [`HookInput`] (the hook's stdin, every field optional), [`Response`]
//! (what a hook answers, encoded by the client), [`transcript::Fact`] and
//! [`transcript::Fullness`] (what a transcript line says), [`Scope`] and [`UserDirs`] (where
//! config files live).
//!
//! Generic machinery stays where it is: byte-exact JSON/TOML editing, transactions and backups
//! in the installer; reading files through the read gate, session state and rendering in the
//! hooks and the core. They ask the client module for the knowledge.
//!
//! Adding a client: docs/design.md, "Adding a client".

pub mod agent_name;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod droid;
pub mod event;
pub mod gemini;
pub mod input;
pub mod kilo;
pub mod opencode;
pub mod output;
pub mod places;
pub mod qwen;
mod settings;
/// A temporary folder with a file or folder in it, the unit tests' set-up shared with the other
/// crates.
#[cfg(test)]
#[path = "../../../../tests/support/src/temp_files.rs"]
pub mod temp_files;
pub mod transcript;

pub use agent_name::AgentName;
pub use event::{HookEvent, StartSource};
use handover_base::HookExe;
pub use input::HookInput;
pub use output::Response;
pub use places::{Scope, UserDirs};

use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use transcript::{Fact, Fullness};

/// Everything handover knows about one client, as data: one `pub static CLIENT` in each client
/// module, reached through [`of`] and [`ALL`]. What really differs between clients beyond data
/// (reading their payloads, shells and transcripts, their compaction rules, their own output
/// form) is its [`Behaviour`].
///
/// Every value is the client's own rule, checked against the pinned version named in the
/// module's doc comment (docs/compatibility.md).
pub struct Client {
    // ---- Who ----
    /// The agent this declaration describes.
    pub agent: Agent,
    /// Its `--agent` name, which the installer writes and the hook executables read back, and
    /// which records and session state keep (`claude`, `codex`, ...).
    pub name: &'static str,
    /// Other spellings `--agent` accepts (`claude-code`; `_` for `-` is accepted too).
    pub aliases: &'static [&'static str],
    /// The name users know it by, for messages and `handover status` ("Claude Code").
    pub display_name: &'static str,
    /// The name of the program users start it with (`claude`, `codex`, ...): found on PATH, it
    /// is one of the signs that this machine uses the client (the installer's `detect`).
    pub executable: &'static str,
    /// How a user starts a fresh session in its terminal UI, as the save-progress instruction
    /// names it ("`/clear` in Claude Code").
    pub fresh_session: &'static str,

    // ---- Events: which of our hooks runs on which of its events ----
    /// The client's name for each of our events it has (none of our hooks is registered for
    /// an event it lacks).
    pub events: EventNames,
    /// The `timeout` written in a hook entry of ours, in the client's own unit.
    pub timeout: Timeout,

    // ---- Shell commands ----
    /// The variable it sets to name itself for the shell commands its agent runs (the model's
    /// `handover ack` or `write`), and the value that counts: [`Client::runs_this_shell`]. None
    /// for a client that names itself nowhere there (its [`Behaviour::runs_this_shell`] may
    /// still know a sign).
    pub shell_name: Option<ShellName>,
    /// The variable holding the session id the client sets for its shell commands (the same
    /// id its hooks get), when it sets one.
    pub shell_session_id_var: Option<&'static str>,
    /// The variable naming the project directory in the environment it gives its hooks
    /// (Claude Code's `CLAUDE_PROJECT_DIR`): see [`project_dir`].
    pub project_dir_var: Option<&'static str>,

    // ---- Where it differs around its hooks ----
    /// What it does that most clients do not (`Quirks::NONE`: none of it).
    pub quirks: Quirks,

    // ---- Context windows ----
    /// The context windows of the models this client's vendor names, by name prefix, for a
    /// transcript that does not state its window. First match wins, so longer prefixes come
    /// first. Windows are the smaller, conservative figure where a model comes in two sizes:
    /// a reminder that comes early is a nuisance, one that comes after compaction is useless.
    /// The hooks' lookup (`handover_hooks::window`) asks every client in [`ALL`]'s order.
    pub model_windows: &'static [ModelWindow],
    /// A larger variant of its models that the model name marks (Claude Code's `[1m]`), and
    /// whose window a usage beyond the table's means.
    pub large_variant: Option<LargeVariant>,

    // ---- Transcript ----
    /// The directory under its user directory that holds every session's transcript
    /// (`projects`, `sessions`, ...): [`Client::transcript_dir`].
    pub transcripts: &'static str,
    /// What marks the transcript lines that can say something (most lines are snapshots, tool
    /// output and usage records, never parsed for the record): [`Client::transcript_facts`].
    pub transcript_lines: LineMarks,
    /// How it files its transcripts, which tells the project a session ran in:
    /// [`Client::transcript_in_project`].
    pub transcript_filing: Filing,
    /// Why a session of this client may have no end recorded yet although it was quit
    /// normally, in a few words for the record's "how it ended" (its own words, never a
    /// record's). None: an end is reported at quit, so a missing one means killed or still open.
    pub late_end: Option<&'static str>,
    /// How long after an event the client writes it to its transcript, when it buffers: at
    /// the session's end the record waits, bounded, for that flush, since no hook runs after it.
    pub transcript_flush_delay: Option<std::time::Duration>,

    // ---- Files ----
    /// Its user directory and the variable that moves it: [`Client::user_dir`].
    pub home: Home,
    /// Where its hook entries are: [`Client::hooks_file`], [`Client::hook_layers`].
    pub hook_files: HookFiles,
    /// The instruction file it reads from a repository's root by default (`CLAUDE.md`, ...).
    pub instruction_file: &'static str,
    /// Every instruction file it reads from a repository's root and shows its agent whole,
    /// when that is more than [`Client::instruction_file`]: the installer then leaves its own
    /// file out when the section reaches it through another one. Empty: only its own.
    pub instruction_files_read: &'static [&'static str],

    // ---- Trust and plugin ----
    /// How the client decides whether to run the hooks it finds.
    pub trust: Trust,
    /// Where its handover plugin lives in this repository (`plugin/<dir>`), if it has one.
    pub plugin_dir: Option<&'static str>,

    /// What it does that data cannot say.
    pub behaviour: &'static dyn Behaviour,
}

/// What differs between clients beyond their data: reading their payloads, shell environments
/// and transcripts, their compaction rules, their own output form. One implementation per
/// client module (a zero-sized struct each); the defaults are the Claude Code convention most
/// clients copied, and a client that differs overrides them.
pub trait Behaviour: Sync {
    // ---- Hook input and shells: telling the client apart ----

    /// The payload carries a mark only this client sends (Codex's `turn_id`, an event name of
    /// its own). Asked first, for every client, before [`Behaviour::owns_transcript`].
    fn marks_payload(&self, _input: &HookInput) -> bool {
        false
    }

    /// `transcript_path` is where this client keeps its transcripts.
    fn owns_transcript(&self, _path: &str) -> bool {
        false
    }

    /// Whether `env` (a variable's value by name) is the environment this client gives the
    /// shell commands its agent runs, by settings that do not name it as such
    /// ([`ShellSign::Indirect`]); None when nothing in it points at this client. A variable that
    /// names the client is its declaration's [`Client::shell_name`] instead.
    fn runs_this_shell(&self, _env: &dyn Fn(&str) -> Option<OsString>) -> Option<ShellSign> {
        None
    }

    /// It also runs the hook entries written for `other` (GitHub Copilot CLI runs Claude
    /// Code's `.claude/settings.json`), and the hook's environment (`env`) and input show it is
    /// the one running this hook now. Such an entry stays silent: the client's own entry answers.
    fn runs_entries_of(
        &self,
        _other: Agent,
        _input: &HookInput,
        _env: &dyn Fn(&str) -> Option<OsString>,
    ) -> bool {
        false
    }

    // ---- Hook output ----

    /// Its own form of `response`, when it is not the common one ([`output::encode`], Claude
    /// Code's form): see [`Client::encode`].
    fn own_output(&self, _response: &Response) -> Option<Vec<u8>> {
        None
    }

    // ---- SessionStart ----

    /// What a SessionStart opens, as the hooks name it (`startup`, `resume`, `clear`,
    /// `compact`, ...): the payload's `source`, unless the client's word for it says otherwise.
    fn session_start_source(&self, input: &HookInput) -> StartSource {
        StartSource::parse(input.source.as_deref().unwrap_or("startup"))
    }

    /// A SessionStart from `source` may answer for a session that sends no request after it:
    /// its delivery is journaled only once the session's next prompt, tool result or Stop shows
    /// a request went out (the context itself is still given at once).
    fn journals_start_at_a_request(&self, _source: &StartSource) -> bool {
        false
    }

    /// It drops the `additionalContext` of a SessionStart from `source` (the startup context
    /// then waits for the first prompt).
    fn drops_session_start_context(&self, _source: &StartSource) -> bool {
        false
    }

    // ---- Transcript ----

    /// The facts of one transcript line, parsed, that its [`Client::transcript_lines`] mark
    /// (none for most lines): requests, edits, commands and their ends, the agent's messages,
    /// compactions. Read through [`Client::transcript_facts`], the session record's only reader.
    fn line_facts(&self, line: &Value, root: Option<&Path>, out: &mut Vec<Fact>);

    /// What one transcript line says about how full the context is, if it is a usage record or
    /// a compaction marker: the default [`Behaviour::transcript_fullness`] takes the newest.
    fn fullness_of_line(&self, _line: &[u8]) -> Option<Fullness> {
        None
    }

    /// How full the context is, from the tail of the transcript (`at_file_start`: `tail` is
    /// the whole file, else its first line may be cut and is skipped). The context watch's
    /// only reader. By default the newest line [`Behaviour::fullness_of_line`] reads
    /// ([`transcript::newest_usage`]).
    fn transcript_fullness(&self, tail: &[u8], at_file_start: bool) -> Option<Fullness> {
        transcript::newest_usage(tail, at_file_start, |line| self.fullness_of_line(line))
    }

    /// Whether `folder` (directly under [`Client::transcript_dir`] `dir`, links resolved) is
    /// the one the client files the sessions started in `project` (links resolved) under: asked
    /// for a client whose [`Client::transcript_filing`] is [`Filing::ByProjectFolder`].
    fn is_project_folder(&self, _dir: &Path, _folder: &str, _project: &Path) -> bool {
        false
    }

    /// The transcript of the session `input` is about, when the input does not name it (GitHub
    /// Copilot CLI names it on two events only); None when it cannot be known.
    fn transcript_of(&self, _input: &HookInput, _dirs: &UserDirs) -> Option<PathBuf> {
        None
    }

    /// The failing command a tool-failure hook input reports ([`HookEvent::ToolFailure`]), as
    /// the session record takes it; None for another tool, or a client without such an event.
    fn failed_command(&self, _input: &HookInput) -> Option<Fact> {
        None
    }

    /// The file [`Behaviour::transcript_fullness`] reads for the session whose transcript is
    /// `transcript`: the transcript itself, unless the client keeps its usage elsewhere.
    fn usage_file(&self, transcript: &Path) -> PathBuf {
        transcript.to_path_buf()
    }

    /// When the newest compaction recorded in the tail of the transcript happened (ms since
    /// the epoch), for a client that runs no hook when it compacts by itself
    /// ([`Quirks::compacts_silently`]): the context watch brings the handoff back at the next
    /// event after it. None for the others, whose PostCompact or SessionStart `compact` does that.
    fn compacted_at_ms(&self, _tail: &[u8], _at_file_start: bool) -> Option<u64> {
        None
    }

    // ---- Compaction point ----

    /// Whether the client compacts before its next request with `used` of `window` tokens in
    /// its context, by its own settings; Err says why not, for the debug log.
    fn compaction_due(&self, _used: u64, _window: u64, _at: SettingsLayers) -> Result<(), String> {
        Ok(())
    }

    /// The number of tokens a reading of `model` is measured against when the client's own
    /// settings say where it compacts, in tokens rather than as a share of a window; it then
    /// stands for what the transcript would state. `user_dir` as for
    /// [`Behaviour::compaction_percent`]. None: no such setting.
    fn compaction_window(&self, _user_dir: Option<&Path>, _model: Option<&str>) -> Option<u64> {
        None
    }

    /// Where the client compacts by itself, as a whole percent of `window`, when that comes
    /// early enough to move our reminders below it; None (the default) when it compacts only
    /// near the end, or where the usage it reports is already measured against its compaction
    /// point (nothing to move).
    fn compaction_percent(&self, _at: SettingsLayers, _window: u64) -> Option<u8> {
        None
    }

    // ---- Trust ----

    /// Whether the client runs the hooks in `hooks_file` (one of [`Client::hook_layers`]),
    /// by its trust records under `user_dir`; a hook never fails over them (unreadable counts as
    /// not trusted where trust is needed).
    fn runs_hooks_of(&self, _hooks_file: &Path, _user_dir: Option<&Path>) -> bool {
        true
    }
}

/// The settings layers that can move where a client compacts: the repository root (its project
/// settings) and the client's own user directory ([`Client::user_dir`]); either may be unknown.
/// A hook never fails over a settings file: unreadable ones count as unset.
#[derive(Clone, Copy, Debug, Default)]
pub struct SettingsLayers<'a> {
    pub project: Option<&'a Path>,
    pub user_dir: Option<&'a Path>,
}

/// A client's names for our events: [`Client::event_name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventNames {
    /// Our events by the client's names.
    pub names: &'static [(HookEvent, &'static str)],
    /// Events among `names` that it does not have.
    pub lacks: &'static [HookEvent],
}

impl EventNames {
    /// The common names ([`HookEvent::COMMON_NAMES`]), without the events it lacks.
    pub const fn common_without(lacks: &'static [HookEvent]) -> EventNames {
        EventNames {
            names: &HookEvent::COMMON_NAMES,
            lacks,
        }
    }

    /// Names of its own, one for each event it has.
    pub const fn own(names: &'static [(HookEvent, &'static str)]) -> EventNames {
        EventNames { names, lacks: &[] }
    }
}

/// How a client's hooks behave where clients differ: [`Client::quirks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quirks {
    /// Its compaction hook appends the hook's plain stdout to the summarizer's instructions
    /// (Claude Code's PreCompact). Elsewhere PreCompact stays silent.
    pub pre_compact_reads_stdout: bool,
    /// It shows any Stop block to the user as a failed request: the context watch never
    /// blocks its Stop and asks once more with the next prompt instead.
    pub stop_block_looks_like_failure: bool,
    /// Its PreCompact fires before every model request, not only before a compaction: only
    /// one where [`Behaviour::compaction_due`] says so is a compaction.
    pub pre_compact_every_request: bool,
    /// Its automatic compaction runs no hook at all: the watch looks for
    /// [`Behaviour::compacted_at_ms`] at every event that can carry context. False elsewhere,
    /// which spares the others that read.
    pub compacts_silently: bool,
    /// It sets no session id for its shell commands itself, but applies the `export` lines a
    /// SessionStart hook writes to the file named by the payload's `CLAUDE_ENV_FILE` to the
    /// environment of the commands that follow: our SessionStart writes
    /// [`Client::shell_session_id_var`] there, so `handover write` finds its own record.
    pub takes_session_id_from_hook: bool,
    /// It runs a command found in several of its hook layers once when the commands are
    /// identical, so ours in two scopes only run twice when they differ.
    pub dedups_identical_commands: bool,
}

impl Quirks {
    /// None of them.
    pub const NONE: Quirks = Quirks {
        pre_compact_reads_stdout: false,
        stop_block_looks_like_failure: false,
        pre_compact_every_request: false,
        compacts_silently: false,
        takes_session_id_from_hook: false,
        dedups_identical_commands: false,
    };
}

/// See [`Client::timeout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeout {
    /// For every event, in the client's unit (seconds, or milliseconds for Gemini CLI)...
    pub every: u64,
    /// ...but these.
    pub except: &'static [(HookEvent, u64)],
}

impl Timeout {
    /// The same for every event.
    pub const fn every(timeout: u64) -> Timeout {
        Timeout {
            every: timeout,
            except: &[],
        }
    }
}

/// A client's user directory: `~/<dir>`, unless a variable moves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Home {
    /// Its name in the home directory (`.claude`).
    pub dir: &'static str,
    /// The environment variable that moves it, and how.
    pub moved_by: Option<MovedBy>,
}

/// How a variable moves a client's user directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovedBy {
    /// The variable names the user directory itself (`CODEX_HOME`).
    Dir(&'static str),
    /// The same, only when its value is an absolute path (a client that takes a relative value
    /// from its own working directory, which is not ours to guess).
    AbsoluteDir(&'static str),
    /// The variable stands for the home directory the user directory is in.
    Home(&'static str),
}

/// Where a client's hook entries are. Paths are `/`-separated, each part joined on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookFiles {
    /// The project file, under the repository's root.
    pub project: &'static str,
    /// The local (uncommitted) file under the repository's root, where the client has that
    /// layer; without it, the project file serves [`Scope::Local`].
    pub local: Option<&'static str>,
    /// The user file, under its user directory.
    pub user: &'static str,
    /// Other files it runs hooks from beside each project and user file (in the same
    /// directory), most specific first; we never write them.
    pub also_read: &'static [&'static str],
}

impl Client {
    /// The client's name for `event`; None when the client has no such event.
    pub fn event_name(&self, event: HookEvent) -> Option<&'static str> {
        if self.events.lacks.contains(&event) {
            return None;
        }
        self.events
            .names
            .iter()
            .find(|(e, _)| *e == event)
            .map(|(_, name)| *name)
    }

    /// Our view of the client's event `name` (the inverse of [`Client::event_name`]).
    pub fn hook_event(&self, name: &str) -> Option<HookEvent> {
        self.events
            .names
            .iter()
            .find(|(e, n)| *n == name && !self.events.lacks.contains(e))
            .map(|(event, _)| *event)
    }

    /// The client's event names `exe` is registered on, in install order.
    pub fn events(&self, exe: HookExe) -> Vec<&'static str> {
        HookEvent::ALL
            .into_iter()
            .filter(|e| e.exe() == exe)
            .filter_map(|e| self.event_name(e))
            .collect()
    }

    /// The `timeout` written in a hook entry of ours on the client's event `event` (its own
    /// name), in the client's own unit.
    pub fn timeout(&self, event: &str) -> u64 {
        let ours = self.hook_event(event);
        self.timeout
            .except
            .iter()
            .find(|(e, _)| Some(*e) == ours)
            .map_or(self.timeout.every, |(_, t)| *t)
    }

    /// The bytes a hook prints for `response`, in exactly the form the client accepts for the
    /// event (some reject unknown keys: only documented fields are ever emitted).
    pub fn encode(&self, response: &Response) -> Vec<u8> {
        self.behaviour
            .own_output(response)
            .unwrap_or_else(|| output::encode(self, response, false))
    }

    /// The environment variable the client moves its user directory with, if it has one:
    /// [`UserDirs`] reads it for [`Client::user_dir`].
    pub fn home_var(&self) -> Option<&'static str> {
        self.home.moved_by.map(|m| match m {
            MovedBy::Dir(var) | MovedBy::AbsoluteDir(var) | MovedBy::Home(var) => var,
        })
    }

    /// The client's own user directory (`~/.claude`, `$CODEX_HOME` else `~/.codex`, ...);
    /// None without a home.
    pub fn user_dir(&self, dirs: &UserDirs) -> Option<PathBuf> {
        let in_home = |home: &Path| home.join(self.home.dir);
        match self.home.moved_by {
            None => dirs.home.as_deref().map(in_home),
            Some(MovedBy::Dir(var)) => dirs.var_else_home(var, self.home.dir),
            Some(MovedBy::AbsoluteDir(var)) => match dirs.var(var).filter(|d| d.is_absolute()) {
                Some(moved) => Some(moved.to_path_buf()),
                None => dirs.home.as_deref().map(in_home),
            },
            Some(MovedBy::Home(var)) => dirs.var(var).or(dirs.home.as_deref()).map(in_home),
        }
    }

    /// The directory the client keeps every session's transcript under (`~/.claude/projects`,
    /// `$CODEX_HOME/sessions`, ...); None without a home. A transcript path that comes from
    /// anywhere but the client's own hook input (a session record, which the repository can
    /// forge) is followed only inside it.
    pub fn transcript_dir(&self, dirs: &UserDirs) -> Option<PathBuf> {
        self.user_dir(dirs).map(|d| d.join(self.transcripts))
    }

    /// Whether `env` (a variable's value by name) is the environment this client gives the
    /// shell commands its agent runs, and how sure that sign is: its [`Client::shell_name`],
    /// else its [`Behaviour::runs_this_shell`]. Only the client's own sign: which client wins
    /// when several match is [`running_the_shell`]'s rule.
    pub fn runs_this_shell(&self, env: &dyn Fn(&str) -> Option<OsString>) -> Option<ShellSign> {
        match self.shell_name {
            Some(name) if name.in_env(env) => Some(ShellSign::Named),
            _ => self.behaviour.runs_this_shell(env),
        }
    }

    /// The facts of one line of its transcript (none for most lines), for the session record:
    /// a line its [`Client::transcript_lines`] mark, parsed, read by [`Behaviour::line_facts`].
    pub fn transcript_facts(&self, line: &[u8], root: Option<&Path>, out: &mut Vec<Fact>) {
        if let Some(v) = self.transcript_lines.parse(line) {
            self.behaviour.line_facts(&v, root, out);
        }
    }

    /// Whether `transcript` (links resolved, inside [`Client::transcript_dir`] `dir`, links
    /// resolved too) belongs to a session started in `project` (links resolved), by how the
    /// client files it ([`Client::transcript_filing`]): the folder it lies in, or the working
    /// directory its first line names. A session record, which the repository can forge, is
    /// followed only to a transcript of its own project.
    pub fn transcript_in_project(&self, dir: &Path, transcript: &Path, project: &Path) -> bool {
        match self.transcript_filing {
            Filing::ByProjectFolder => folder_under(dir, transcript)
                .is_some_and(|folder| self.behaviour.is_project_folder(dir, folder, project)),
            Filing::ByHeader { kind, dir_at } => {
                transcript::header_names_dir(transcript, kind, dir_at, project)
            }
        }
    }

    /// The file holding the hook entries for `scope` (a client without a local layer uses its
    /// project file for [`Scope::Local`]). `user_dir` is [`Client::user_dir`].
    pub fn hooks_file(&self, scope: Scope, repo: &Path, user_dir: &Path) -> PathBuf {
        let files = &self.hook_files;
        match scope {
            Scope::Project => joined(repo, files.project),
            Scope::Local => joined(repo, files.local.unwrap_or(files.project)),
            Scope::User => joined(user_dir, files.user),
        }
    }

    /// Every hooks file the client itself runs hooks from for a session in one of
    /// `project_dirs`, most specific first (the plugin's "never twice" check reads them): each
    /// project directory's file, its local file and the others beside it, then the user's.
    pub fn hook_layers(&self, project_dirs: &[PathBuf], user_dir: Option<&Path>) -> Vec<PathBuf> {
        let beside = |file: PathBuf| -> Vec<PathBuf> {
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            let others = self.hook_files.also_read.iter().map(|f| joined(&dir, f));
            std::iter::once(file).chain(others).collect()
        };
        let mut files = Vec::new();
        for dir in project_dirs {
            files.extend(beside(self.hooks_file(Scope::Project, dir, dir)));
            if self.hook_files.local.is_some() {
                files.push(self.hooks_file(Scope::Local, dir, dir));
            }
        }
        if let Some(user) = user_dir {
            files.extend(beside(self.hooks_file(Scope::User, user, user)));
        }
        files
    }
}

/// `base` with the `/`-separated `path` joined part by part.
fn joined(base: &Path, path: &str) -> PathBuf {
    path.split('/')
        .fold(base.to_path_buf(), |p, part| p.join(part))
}

/// See [`Client::transcript_lines`]: the cheap substring test before a line is parsed at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineMarks {
    /// A line worth parsing holds one of these `"key":"value"` fields
    /// ([`transcript::parse_with_field`]).
    Fields(&'static [(&'static str, &'static str)]),
    /// A line worth parsing holds one of these substrings ([`transcript::parse_marked`]).
    Text(&'static [&'static str]),
}

impl LineMarks {
    /// `line` as JSON, when it bears a mark and parses.
    pub fn parse(self, line: &[u8]) -> Option<Value> {
        match self {
            LineMarks::Fields(fields) => transcript::parse_with_field(line, fields),
            LineMarks::Text(markers) => transcript::parse_marked(line, markers),
        }
    }
}

/// How a client files its transcripts under [`Client::transcript_dir`]: see
/// [`Client::transcript_in_project`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filing {
    /// In one folder per project (Claude Code, Gemini CLI, Qwen Code, Droid): the client's
    /// [`Behaviour::is_project_folder`] knows which project a folder is.
    ByProjectFolder,
    /// By date or session id (Codex, Copilot CLI, OpenCode's plugin): the transcript's first
    /// line, a header whose `type` is `kind`, names the session's working directory at the JSON
    /// pointer `dir_at`.
    ByHeader {
        kind: &'static str,
        dir_at: &'static str,
    },
}

/// One row of [`Client::model_windows`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelWindow {
    /// The model name starts with this (compared in lower case).
    pub prefix: &'static str,
    /// Tokens.
    pub window: u64,
    /// Where the figure comes from when that is worth saying (docs/hooks.md shows it); empty
    /// otherwise.
    pub source: &'static str,
}

/// See [`Client::large_variant`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LargeVariant {
    /// The model name ends with this (compared in lower case).
    pub suffix: &'static str,
    /// Tokens.
    pub window: u64,
}

/// How a client decides to run the hooks in its files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// It runs every hook in its settings layers (Claude Code).
    RunsAll,
    /// Each hook runs only once its hash is recorded in the user's config (Codex:
    /// [`codex::trust_key`]); recorded through the client's own app-server.
    PerHook,
    /// Hooks run only in a folder the user trusted (Gemini CLI's `trustedFolders.json`,
    /// Copilot CLI's `trustedFolders` in its `config.json`; Factory Droid's `trustedFolders` in
    /// its user `settings.json`, in its terminal UI only).
    Folder,
}

/// See [`Client::shell_name`]: a variable a client sets to name itself, and the values that do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellName {
    /// The variable is set, to any value (even empty).
    Set(&'static str),
    /// The variable is set and not empty.
    NotEmpty(&'static str),
    /// The variable holds exactly this value.
    Is(&'static str, &'static str),
}

impl ShellName {
    /// `env` names the client.
    fn in_env(self, env: &dyn Fn(&str) -> Option<OsString>) -> bool {
        match self {
            ShellName::Set(var) => env(var).is_some(),
            ShellName::NotEmpty(var) => env(var).is_some_and(|v| !v.is_empty()),
            ShellName::Is(var, value) => env(var).is_some_and(|v| v == value),
        }
    }
}

/// How a shell command's environment points at the client running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellSign {
    /// A variable the client sets to name itself (`CLAUDECODE`, `GEMINI_CLI=1`, ...).
    Named,
    /// Settings that only this client gives its commands but that do not name it as such
    /// (Codex's thread id and sandbox variables, Droid's shell executor settings).
    Indirect,
}

/// The one list of clients: each line names the [`Agent`] variant and the module whose
/// `CLIENT` declares it. `Agent`, `Agent::ALL`, `Agent::DEFAULT`, [`ALL`] and [`of`] are all
/// made from it, in the order `handover install` and `status` list the clients; the line marked
/// `default` is the client whose conventions the others copied.
macro_rules! registry {
    (default $dv:ident => $dm:ident, $($variant:ident => $module:ident),+ $(,)?) => {
        registry!(@ $dv, $dv => $dm, $($variant => $module),+);
    };
    (@ $default:ident, $($variant:ident => $module:ident),+) => {
        /// A client handover works with: its `--agent` name (what the installer writes and the
        /// hook executables read back, what records and session state keep) is its
        /// declaration's `name`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Agent {
            $($variant),+
        }

        impl Agent {
            pub const ALL: [Agent; COUNT] = [$(Agent::$variant),+];

            /// The client a hook input that carries no client's mark is taken for, and whose
            /// output form a hook uses when it cannot tell the client.
            pub const DEFAULT: Agent = Agent::$default;
        }

        const COUNT: usize = [$(Agent::$variant),+].len();

        /// Every client, in the order `handover install` and `status` list them.
        pub static ALL: [&Client; COUNT] = [$(&$module::CLIENT),+];

        /// The declaration of `agent`.
        pub fn of(agent: Agent) -> &'static Client {
            match agent {
                $(Agent::$variant => &$module::CLIENT),+
            }
        }
    };
}

registry! {
    default Claude => claude,
    Codex => codex,
    Gemini => gemini,
    Qwen => qwen,
    Copilot => copilot,
    Droid => droid,
    OpenCode => opencode,
    Kilo => kilo,
}

impl Agent {
    /// Its `--agent` name (`claude`, `codex`, ...).
    pub fn as_str(self) -> &'static str {
        of(self).name
    }

    /// The `--agent` value, leniently: case and spacing ignored, a declaration's aliases
    /// (`claude-code`, `gemini-cli`, ...) accepted with `-` or `_`.
    pub fn from_name(name: &str) -> Option<Agent> {
        let wanted = name.trim().to_ascii_lowercase().replace('_', "-");
        ALL.iter()
            .find(|c| c.name == wanted || c.aliases.contains(&wanted.as_str()))
            .map(|c| c.agent)
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `part` of `whole` as a whole percent, rounded down, from 1 to 100: a compaction point as
/// [`Behaviour::compaction_percent`] gives it.
pub(crate) fn whole_percent(part: f64, whole: f64) -> u8 {
    (part * 100.0 / whole).floor().clamp(1.0, 100.0) as u8
}

/// The client that really runs a hook entry written for `agent`, when that is another client
/// (see [`Behaviour::runs_entries_of`]); `input` is the hook's input, `env` its environment.
pub fn guest_of(
    agent: Agent,
    input: &HookInput,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Option<Agent> {
    ALL.iter()
        .find(|c| c.agent != agent && c.behaviour.runs_entries_of(agent, input, env))
        .map(|c| c.agent)
}

/// The client running the shell command whose environment is `env`, if any says so. A
/// variable that names a client wins over an indirect sign, and among equal signs [`ALL`]'s
/// order decides: Claude Code, Gemini CLI, Qwen Code, Copilot CLI by name, then Codex, then
/// Factory Droid. A client started from another one's shell inherits the outer one's
/// variables, so several may match; this is the precedence `handover write` and `ack` have
/// always used (a client's own name beats inherited sandbox or shell settings).
pub fn running_the_shell(env: &dyn Fn(&str) -> Option<OsString>) -> Option<Agent> {
    let signs: Vec<(Agent, ShellSign)> = ALL
        .iter()
        .filter_map(|c| c.runs_this_shell(env).map(|sign| (c.agent, sign)))
        .collect();
    [ShellSign::Named, ShellSign::Indirect]
        .into_iter()
        .find_map(|wanted| signs.iter().find(|(_, sign)| *sign == wanted))
        .map(|(agent, _)| *agent)
}

/// The project directory a hook's environment (`env`) names through a client's
/// [`Client::project_dir_var`], the first set in [`ALL`]'s order. Every client's variable is
/// read, whichever client runs the hook: one that runs another client's entries (GitHub Copilot
/// CLI) may set the other's.
pub fn project_dir(env: &dyn Fn(&str) -> Option<OsString>) -> Option<String> {
    ALL.iter()
        .filter_map(|c| c.project_dir_var)
        .find_map(|var| env(var).and_then(|v| v.into_string().ok()))
}

/// The client that sent `input` when no `--agent` says: a payload mark first, then where the
/// transcript is; else [`Agent::DEFAULT`] (Claude Code, which marks neither).
pub fn detect(input: &HookInput) -> Agent {
    if let Some(c) = ALL.iter().find(|c| c.behaviour.marks_payload(input)) {
        return c.agent;
    }
    if let Some(path) = input.transcript_path.as_deref() {
        if let Some(c) = ALL.iter().find(|c| c.behaviour.owns_transcript(path)) {
            return c.agent;
        }
    }
    Agent::DEFAULT
}

/// The first directory of `transcript` under `dir`, when the transcript lies in one (not
/// directly in `dir`): the folder a client files one project's sessions in.
pub(crate) fn folder_under<'a>(dir: &Path, transcript: &'a Path) -> Option<&'a str> {
    let mut parts = transcript.strip_prefix(dir).ok()?.components();
    let folder = parts.next()?.as_os_str().to_str()?;
    parts.next()?;
    Some(folder)
}

/// The captured file `name` (`<client>-<version>/<file>` under tests/fixtures/clients); empty
/// when it is missing.
#[cfg(test)]
pub(crate) fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/clients");
    std::fs::read(dir.join(name)).unwrap_or_default()
}

/// One client version's captured files (`<client>-<version>` under tests/fixtures/clients), as
/// that client's tests read them.
#[cfg(test)]
pub(crate) struct Captured(pub &'static Client, pub &'static str);

#[cfg(test)]
impl Captured {
    /// The captured file `name`; empty when it is missing.
    pub(crate) fn bytes(&self, name: &str) -> Vec<u8> {
        fixture(&format!("{}/{name}", self.1))
    }

    /// The facts the client reads in the captured transcript `name` ([`facts_in`]).
    pub(crate) fn facts(&self, name: &str) -> Vec<Fact> {
        facts_in(self.0, &self.bytes(name))
    }
}

/// A command call the transcript names, as the tests expect it.
#[cfg(test)]
pub(crate) fn called(id: &str, command: &str) -> Fact {
    Fact::CommandCalled {
        id: id.into(),
        command: command.into(),
    }
}

/// The result of the call `id`, as the tests expect it.
#[cfg(test)]
pub(crate) fn ended(id: &str, failed: bool, exit_code: Option<i64>) -> Fact {
    Fact::CommandResult {
        id: id.into(),
        failed,
        exit_code,
    }
}

/// The result of the call `id` recorded once, under `end:<id>` (a tool-failure hook may bring
/// it first), as the tests expect it.
#[cfg(test)]
pub(crate) fn ended_once(id: &str, failed: bool, exit_code: Option<i64>) -> Fact {
    Fact::Once {
        id: format!("end:{id}"),
        fact: Box::new(ended(id, failed, exit_code)),
    }
}

/// `facts` without their times ([`Fact::At`]): the work and the conversation, in order.
#[cfg(test)]
pub(crate) fn without_times(facts: &[Fact]) -> Vec<Fact> {
    facts
        .iter()
        .filter(|f| !matches!(f, Fact::At(_)))
        .cloned()
        .collect()
}

/// The facts of the tool session the clients' `transcript-tools` captures ran (the fake model
/// server's script), times left out: the request, three edits, a shell command that writes a
/// file and the failing test run (the calls `ids`, each with its end as `end` makes it), and
/// the last message.
#[cfg(test)]
pub(crate) fn tools_session(ids: [&str; 2], end: fn(&str, bool, Option<i64>) -> Fact) -> Vec<Fact> {
    vec![
        Fact::Request("make the parser strip whitespace and run the tests".into()),
        Fact::Edited("src/parse.py".into()),
        Fact::Edited("run_tests.sh".into()),
        Fact::Edited("src/parse.py".into()),
        called(ids[0], "printf 'written by the shell\\n' > notes.txt"),
        end(ids[0], false, Some(0)),
        called(ids[1], "sh run_tests.sh"),
        end(ids[1], true, Some(1)),
        Fact::AgentMessage("Parser edited; the test suite still fails on test_parse.".into()),
    ]
}

/// Both settings layers known: the project's root and the client's user directory.
#[cfg(test)]
pub(crate) fn layers<'a>(project: &'a Path, user_dir: &'a Path) -> SettingsLayers<'a> {
    SettingsLayers {
        project: Some(project),
        user_dir: Some(user_dir),
    }
}

/// The facts `client` reads from every line of `transcript`, for a session in the project the
/// captures ran in (`/tmp/FIXTURE/project`), as the session record reads them.
#[cfg(test)]
pub(crate) fn facts_in(client: &Client, transcript: &[u8]) -> Vec<Fact> {
    let mut out = Vec::new();
    for line in transcript.split(|b| *b == b'\n') {
        client.transcript_facts(line, Some(Path::new("/tmp/FIXTURE/project")), &mut out);
    }
    out
}

/// A copy of the captured file `name` (`<client>-<version>/<file>` under
/// tests/fixtures/clients) in a temporary directory, and its text.
#[cfg(test)]
pub(crate) fn fixture_copy(name: &str) -> (tempfile::TempDir, PathBuf, String) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../tests/fixtures/clients")
            .join(name),
    )
    .unwrap();
    let file_name = name.rsplit('/').next().unwrap_or(name);
    let (tmp, path) = temp_files::temp_file(file_name, &text);
    (tmp, path, text)
}

/// For a client whose transcript names its project in its first line
/// (`transcript::header_names_dir`): the captured `fixture` ran in `/tmp/FIXTURE/project`, so it
/// belongs there and not to `other`; without that line (gone, or one that never ends) it is no
/// one's.
#[cfg(test)]
pub(crate) fn assert_first_line_names_the_project(client: &Client, fixture: &str, other: &str) {
    let (tmp, t, text) = fixture_copy(fixture);
    let of = |project: &str| client.transcript_in_project(tmp.path(), &t, Path::new(project));
    assert!(of("/tmp/FIXTURE/project"));
    assert!(!of(other));
    std::fs::write(&t, &text[text.find('\n').unwrap() + 1..]).unwrap();
    assert!(!of("/tmp/FIXTURE/project"));
    std::fs::write(&t, text.lines().next().unwrap()).unwrap();
    assert!(!of("/tmp/FIXTURE/project"));
}

/// An environment holding exactly `vars`, for the shell-sign tests of every client module.
#[cfg(test)]
pub(crate) fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let vars: Vec<(String, OsString)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Droid shell signature (see droid::runs_the_shell_command).
    const DROID_SHELL: [(&str, &str); 5] = [
        ("GIT_EDITOR", "true"),
        ("GIT_SEQUENCE_EDITOR", "true"),
        ("GCM_INTERACTIVE", "never"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("PATH", "/home/u/.factory/bin:/usr/bin"),
    ];

    #[test]
    fn a_shell_with_one_clients_sign_is_that_client() {
        type Vars = &'static [(&'static str, &'static str)];
        let cases: [(Vars, Option<Agent>); 20] = [
            (&[], None),
            // Claude Code: any value, even empty.
            (&[("CLAUDECODE", "1")], Some(Agent::Claude)),
            (&[("CLAUDECODE", "")], Some(Agent::Claude)),
            // Gemini CLI, Qwen Code, Copilot CLI: `1` only.
            (&[("GEMINI_CLI", "1")], Some(Agent::Gemini)),
            (&[("GEMINI_CLI", "true")], None),
            (&[("QWEN_CODE", "1")], Some(Agent::Qwen)),
            (&[("QWEN_CODE", "")], None),
            (&[("COPILOT_CLI", "1")], Some(Agent::Copilot)),
            (&[("COPILOT_CLI", "0")], None),
            // The plugin's session variable, when not empty.
            (
                &[("HANDOVER_OPENCODE_SESSION_ID", "ses_1")],
                Some(Agent::OpenCode),
            ),
            (&[("HANDOVER_OPENCODE_SESSION_ID", "")], None),
            (&[("HANDOVER_KILO_SESSION_ID", "ses_1")], Some(Agent::Kilo)),
            // A session id alone names no one.
            (&[("CLAUDE_CODE_SESSION_ID", "s")], None),
            (&[("QWEN_CODE_SESSION_ID", "s")], None),
            (&[("COPILOT_AGENT_SESSION_ID", "s")], None),
            // Indirect signs.
            (&[("CODEX_SANDBOX", "seccomp")], Some(Agent::Codex)),
            (&[("CODEX_THREAD_ID", "")], None),
            (&DROID_SHELL, Some(Agent::Droid)),
            (&DROID_SHELL[1..], None),
            (&[("CODEX_HOME", "/x"), ("GEMINI_CLI", "0")], None),
        ];
        for (vars, want) in cases {
            assert_eq!(running_the_shell(&env_of(vars)), want, "{vars:?}");
        }
    }

    #[test]
    fn a_name_beats_an_indirect_sign_and_the_registry_order_breaks_ties() {
        let both = |a: &[(&'static str, &'static str)], b: &[(&'static str, &'static str)]| {
            running_the_shell(&env_of(&[a, b].concat()))
        };
        let codex = [("CODEX_THREAD_ID", "t-1")];
        // Codex comes before Gemini, Qwen and Copilot in ALL, yet their names win.
        assert_eq!(both(&codex, &[("GEMINI_CLI", "1")]), Some(Agent::Gemini));
        assert_eq!(both(&codex, &[("QWEN_CODE", "1")]), Some(Agent::Qwen));
        assert_eq!(both(&codex, &[("COPILOT_CLI", "1")]), Some(Agent::Copilot));
        assert_eq!(
            both(&DROID_SHELL, &[("COPILOT_CLI", "1")]),
            Some(Agent::Copilot)
        );
        // Two names, two indirect signs: ALL's order.
        assert_eq!(
            both(&[("CLAUDECODE", "1")], &[("GEMINI_CLI", "1")]),
            Some(Agent::Claude)
        );
        assert_eq!(
            both(&[("QWEN_CODE", "1")], &[("COPILOT_CLI", "1")]),
            Some(Agent::Qwen)
        );
        assert_eq!(both(&DROID_SHELL, &codex), Some(Agent::Codex));
    }

    #[test]
    fn the_shell_session_id_variables() {
        let vars: Vec<(Agent, Option<&str>)> = ALL
            .iter()
            .map(|c| (c.agent, c.shell_session_id_var))
            .collect();
        assert_eq!(
            vars,
            [
                (Agent::Claude, Some("CLAUDE_CODE_SESSION_ID")),
                (Agent::Codex, Some("CODEX_THREAD_ID")),
                (Agent::Gemini, None),
                (Agent::Qwen, Some("QWEN_CODE_SESSION_ID")),
                (Agent::Copilot, Some("COPILOT_AGENT_SESSION_ID")),
                (Agent::Droid, Some("HANDOVER_DROID_SESSION_ID")),
                (Agent::OpenCode, Some("HANDOVER_OPENCODE_SESSION_ID")),
                (Agent::Kilo, Some("HANDOVER_KILO_SESSION_ID")),
            ]
        );
    }

    #[test]
    fn names_round_trip_and_lenient_forms_are_accepted() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.as_str()), Some(agent));
        }
        assert_eq!(Agent::from_name(" Claude-Code "), Some(Agent::Claude));
        assert_eq!(Agent::from_name("claude_code"), Some(Agent::Claude));
        assert_eq!(Agent::from_name("CODEX"), Some(Agent::Codex));
        assert_eq!(Agent::from_name("gemini-cli"), Some(Agent::Gemini));
        assert_eq!(Agent::from_name("Factory-Droid"), Some(Agent::Droid));
        assert_eq!(Agent::from_name("Copilot-CLI"), Some(Agent::Copilot));
        assert_eq!(Agent::from_name("qwen_code"), Some(Agent::Qwen));
        assert_eq!(Agent::from_name("vim"), None);
        assert_eq!(Agent::from_name("codex-cli"), None);
    }

    #[test]
    fn every_agent_has_its_module_and_the_registry_lists_each_once() {
        for agent in Agent::ALL {
            assert_eq!(of(agent).agent, agent);
        }
        let listed: Vec<Agent> = ALL.iter().map(|c| c.agent).collect();
        assert_eq!(listed, Agent::ALL.to_vec());
    }

    #[test]
    fn timeouts_in_each_clients_unit_within_what_it_accepts() {
        use handover_base::hook_exe::TIMEOUT_SECS;
        assert_eq!(of(Agent::Claude).timeout("SessionEnd"), TIMEOUT_SECS);
        assert_eq!(of(Agent::Codex).timeout("Stop"), TIMEOUT_SECS);
        assert_eq!(of(Agent::Codex).timeout("SessionEnd"), 3);
        assert_eq!(of(Agent::Gemini).timeout("AfterAgent"), TIMEOUT_SECS * 1000);
    }

    /// A client that files transcripts by project folder: the fixture's session ran in
    /// `/tmp/FIXTURE/project`, so its transcript is that project's (the client's own name for
    /// it), not a sibling's nor a subdirectory's; a file directly in the folder of folders
    /// (older Droid sessions) is no project's.
    #[test]
    fn a_transcript_belongs_to_the_project_its_folder_names() {
        /// The client, its folder of project folders, the transcript in it, and other projects
        /// with whether the transcript is theirs.
        type Case = (
            &'static Client,
            &'static str,
            &'static str,
            &'static [(&'static str, bool)],
        );
        let cases: [Case; 3] = [
            (
                &claude::CLIENT,
                "/tmp/FIXTURE/home/.claude/projects",
                "-tmp-FIXTURE-project/56b8a2d7.jsonl",
                &[
                    ("/tmp/FIXTURE/projec", false),
                    ("/tmp/FIXTURE/project/sub", false),
                    ("/tmp/FIXTURE", false),
                ],
            ),
            (
                &droid::CLIENT,
                "/tmp/FIXTURE/home/droid/.factory/sessions",
                "-tmp-FIXTURE-project/8b41cd7f.jsonl",
                &[
                    ("/tmp/FIXTURE/project/", true),
                    ("/tmp/FIXTURE.project", false), // Droid keeps dots.
                    ("/tmp/FIXTURE/other", false),
                ],
            ),
            (
                &qwen::CLIENT,
                "/tmp/FIXTURE/home/qwen/.qwen/projects",
                "-tmp-FIXTURE-project/chats/b816995a.jsonl",
                &[
                    ("/tmp/FIXTURE.project", true), // Qwen Code's own name for both.
                    ("/tmp/FIXTURE/other", false),
                ],
            ),
        ];
        for (client, dir, transcript, others) in cases {
            let dir = Path::new(dir);
            let of =
                |t: &Path, project: &str| client.transcript_in_project(dir, t, Path::new(project));
            let t = dir.join(transcript);
            assert!(of(&t, "/tmp/FIXTURE/project"), "{}", client.name);
            for (project, want) in others {
                assert_eq!(of(&t, project), *want, "{} {project}", client.name);
            }
            let loose = dir.join(Path::new(transcript).file_name().unwrap());
            assert!(!of(&loose, "/tmp/FIXTURE/project"), "{}", client.name);
        }
    }

    #[test]
    fn event_names_round_trip_in_every_client() {
        for client in ALL {
            for event in HookEvent::ALL {
                if let Some(name) = client.event_name(event) {
                    assert_eq!(client.hook_event(name), Some(event), "{name}");
                }
            }
            assert_eq!(client.hook_event("NoSuchEvent"), None);
        }
    }
}
