//! The command-line interface: every clap type lives in this file; each subcommand's work is in
//! its own module with one `run` function.

use clap::{Args, Parser, Subcommand};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod ack;
mod boot;
mod demo;
mod done;
mod exit;
mod install;
mod log;
mod mcp;
pub mod output;
mod parse;
pub mod search;
mod show;
mod status;
mod travel;
mod watchdog;
mod write;

#[derive(Parser, Debug)]
#[command(
    name = "handover",
    version,
    about = "Hand unfinished work from one AI coding-agent session to the next, safely.",
    after_help = "Start with `handover demo`. Files: handover.md (for people), .handover/ (state, journal, archive)."
)]
pub struct Cli {
    /// Work on the repository containing this directory (default: the current directory).
    #[arg(short = 'C', long = "dir", global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Print nothing on stdout (errors still go to stderr; the exit code tells the rest, see
    /// docs/cli.md).
    #[arg(short = 'q', long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
// Built once per process and matched immediately: boxing would only add noise.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Record the state of unfinished work (JSON, handover.md, or flags).
    Write(WriteArgs),
    /// Read the handoff, verify it against the repository, report (what a new session runs).
    Boot(BootArgs),
    /// Health check in one screen: handoff, verdict, privacy guard, agent wiring.
    Status(StatusArgs),
    /// The task is finished: archive the handoff so no later session resumes it.
    Done(DoneArgs),
    /// Record that this session received the handoff (agents run this in their first reply).
    Ack(AckArgs),
    /// Publish the current handoff (and the branch's newest session record) to a git remote,
    /// as a commit on refs/handover/<branch>: never your branch, index or working tree.
    Push(PushArgs),
    /// Fetch the handoffs pushed to a git remote (refs/handover-remote/<remote>/*).
    Pull(PullArgs),
    /// Make a plain `git fetch` / `git pull` bring the remote's handoffs too (shows the
    /// config change first); `--off` undoes it.
    Share(ShareArgs),
    /// The repository's history, newest first: handoffs written and finished, sessions
    /// recorded, pushes, pulls, handoffs fetched from other machines.
    Log(LogArgs),
    /// One past handoff (its Markdown form, with the verdict then and now) or session record
    /// in full, by its id from `handover log` or as -N (the N-th newest).
    Show(ShowArgs),
    /// Search every handoff (current, archived, fetched) and session record of this
    /// repository: all the words, or "a phrase"; best hits first.
    Search(SearchArgs),
    /// A two-minute tour in a temporary repository; needs no agent.
    Demo(DemoArgs),
    // "Wire the hooks into <every client> for this repository (once; safe to repeat)": the
    // clients named from the registry, so a new one is named without an edit here.
    #[command(about = install_about())]
    Install(InstallArgs),
    /// Take out exactly what `handover install` put in.
    Uninstall(UninstallArgs),
    /// Serve handover's tools to an agent over MCP (stdin/stdout): what a client's MCP
    /// configuration runs.
    Mcp(McpArgs),
    /// Codex: trust the hooks of the handover plugin (after `codex plugin add handover@...`):
    /// exactly those, at their current hashes, through `codex app-server` (your consent).
    TrustPlugin(TrustPluginArgs),
    /// Print a completion script for your shell, e.g. `handover completions bash >
    /// ~/.local/share/bash-completion/completions/handover`.
    Completions(CompletionsArgs),
}

/// Which settings files install and uninstall act on. The help of each value names every
/// client's file from the client registry, so a new client is named without an edit here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScopeArg {
    #[default]
    Project,
    Local,
    User,
}

impl From<ScopeArg> for handover_clients::Scope {
    fn from(s: ScopeArg) -> handover_clients::Scope {
        match s {
            ScopeArg::Project => handover_clients::Scope::Project,
            ScopeArg::Local => handover_clients::Scope::Local,
            ScopeArg::User => handover_clients::Scope::User,
        }
    }
}

impl ScopeArg {
    /// "the files in the repository (shared)", ...: every client's hooks file for this scope.
    fn help(self) -> String {
        use handover_clients::{Scope, ALL};
        use std::path::Path;
        let user_dirs = handover_clients::UserDirs::under(Path::new("~"));
        let file = |c: &handover_clients::Client, scope: Scope| {
            let user_dir = c.user_dir(&user_dirs).unwrap_or_default();
            c.hooks_file(scope, Path::new(""), &user_dir)
                .display()
                .to_string()
        };
        let has_local =
            |c: &handover_clients::Client| file(c, Scope::Local) != file(c, Scope::Project);
        match self {
            ScopeArg::Project => {
                let files: Vec<String> = ALL.iter().map(|c| file(c, Scope::Project)).collect();
                format!("{} in the repository (shared)", listed(&files, "and"))
            }
            ScopeArg::Local => {
                let files: Vec<String> = ALL
                    .iter()
                    .filter(|c| has_local(c))
                    .map(|c| file(c, Scope::Local))
                    .collect();
                let without: Vec<String> = ALL
                    .iter()
                    .filter(|c| !has_local(c))
                    .map(|c| c.display_name.to_string())
                    .collect();
                format!(
                    "{} (private; {} have none and use project)",
                    listed(&files, "and"),
                    listed(&without, "and")
                )
            }
            ScopeArg::User => {
                let files: Vec<String> = ALL.iter().map(|c| file(c, Scope::User)).collect();
                let vars: Vec<String> = ALL
                    .iter()
                    .filter_map(|c| c.home_var())
                    .map(str::to_string)
                    .collect();
                format!(
                    "{} (every repository; {} move them)",
                    listed(&files, "and"),
                    listed(&vars, "and")
                )
            }
        }
    }
}

impl clap::ValueEnum for ScopeArg {
    fn value_variants<'a>() -> &'a [Self] {
        &[ScopeArg::Project, ScopeArg::Local, ScopeArg::User]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(
            clap::builder::PossibleValue::new(handover_clients::Scope::from(*self).as_str())
                .help(self.help()),
        )
    }
}

/// What install and uninstall act on, and whether they only show it.
#[derive(Args, Debug, Clone, Default)]
pub struct Selection {
    /// `--claude`, `--codex`, ...: one switch per client. None named: install wires the
    /// clients this machine uses (handover_installer::plan::detect), uninstall every client.
    #[command(flatten)]
    pub clients: ClientFlags,
    /// Every client (without a client switch, install wires only the clients found on this
    /// machine and those already wired here; uninstall takes out every client).
    #[arg(long)]
    pub all: bool,
    /// Which settings files.
    #[arg(long, value_enum, default_value_t = ScopeArg::Project)]
    pub scope: ScopeArg,
    /// Show the diff of every file it would change, change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Wire handover's hooks into the clients this machine uses (or the ones named, or `--all`).
#[derive(Args, Debug, Clone, Default)]
pub struct InstallArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Leave out handover-context-watch (the context-fullness reminders).
    #[arg(long)]
    pub no_watch: bool,
    /// Codex: mark this project trusted and trust exactly handover's hooks; Gemini CLI, GitHub
    /// Copilot CLI and Factory Droid: add this folder to their trusted folders (your consent).
    #[arg(long)]
    pub trust: bool,
    /// Codex: turn `[features] hooks = false` back on in your config.toml.
    #[arg(long)]
    pub enable_codex_hooks: bool,
    /// Where the hook executables are (default: next to this `handover`, then PATH).
    #[arg(long, value_name = "DIR")]
    pub hooks_dir: Option<PathBuf>,
    /// The `codex` executable for --trust (default: `codex` on PATH).
    #[arg(long, value_name = "PATH", requires = "trust")]
    pub codex_bin: Option<PathBuf>,
    /// Also register `handover mcp` (the MCP server for agents) in each client's MCP
    /// configuration (docs/install.md).
    #[arg(long)]
    pub mcp: bool,
    /// Print the result as one JSON object instead of the report (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone, Default)]
pub struct TrustPluginArgs {
    /// The `codex` executable (default: `codex` on PATH).
    #[arg(long, value_name = "PATH")]
    pub codex_bin: Option<PathBuf>,
}

/// Take out exactly what `handover install` put in.
#[derive(Args, Debug, Clone, Default)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub selection: Selection,
    /// Print the result as one JSON object instead of the report (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

/// One `--<agent>` switch per client, made from the client registry (`--claude`: "Claude
/// Code"), so a new client gets its switch without an edit here. Holds the clients named, in
/// registry order. `--all` (in [`Selection`]) excludes them.
#[derive(Debug, Clone, Default)]
pub struct ClientFlags(pub Vec<handover_clients::Agent>);

impl clap::FromArgMatches for ClientFlags {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let named = handover_clients::ALL
            .into_iter()
            .map(|c| c.agent)
            .filter(|a| m.get_flag(a.as_str()))
            .collect();
        Ok(ClientFlags(named))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = ClientFlags::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for ClientFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        handover_clients::ALL.into_iter().fold(cmd, |cmd, c| {
            cmd.arg(
                clap::Arg::new(c.agent.as_str())
                    .long(c.agent.as_str())
                    .action(clap::ArgAction::SetTrue)
                    .conflicts_with("all")
                    .help(c.display_name),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        ClientFlags::augment_args(cmd)
    }
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug, Default)]
#[command(after_help = write::AFTER_HELP)]
pub struct WriteArgs {
    /// Read the handoff from FILE: JSON (docs/format.md), or the Markdown form (a `.md` file,
    /// e.g. an edited handover.md). `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Start from an empty handoff instead of updating the current one (`--from` always does).
    #[arg(long, conflicts_with = "from")]
    pub fresh: bool,
    /// The goal of the task (a new goal starts a fresh handoff).
    #[arg(long)]
    pub goal: Option<String>,
    /// The next action proposed to the next session.
    #[arg(long = "next", value_name = "ACTION")]
    pub next_action: Option<String>,
    /// Add a completed item (repeatable).
    #[arg(long, value_name = "ITEM")]
    pub completed: Vec<String>,
    /// Add an in-progress item (repeatable).
    #[arg(long = "in-progress", value_name = "ITEM")]
    pub in_progress: Vec<String>,
    /// Add a pending item (repeatable).
    #[arg(long, value_name = "ITEM")]
    pub pending: Vec<String>,
    /// Add a decision as "what :: why" (repeatable).
    #[arg(long, value_name = "WHAT :: WHY")]
    pub decision: Vec<String>,
    /// Add a blocker (repeatable).
    #[arg(long, value_name = "TEXT")]
    pub blocker: Vec<String>,
    /// Add a warning (repeatable).
    #[arg(long, value_name = "TEXT")]
    pub warning: Vec<String>,
    /// Add a stop condition: when the next session must stop and ask (repeatable).
    #[arg(long = "stop-if", value_name = "CONDITION")]
    pub stop_if: Vec<String>,
    /// Add a command that was run, as evidence (repeatable).
    #[arg(long = "ran", value_name = "COMMAND")]
    pub ran: Vec<String>,
    /// Add an artifact path, as evidence (repeatable).
    #[arg(long, value_name = "PATH")]
    pub artifact: Vec<String>,
    /// The spec this work follows (path or URL): the source of truth.
    #[arg(long = "spec", value_name = "REF")]
    pub spec_ref: Option<String>,
    /// 3-5 sentences on where things stand.
    #[arg(long)]
    pub narrative: Option<String>,
    // Which agent writes; the help names the supported agents from `Agent::ALL`, so a new
    // client is named there without an edit.
    #[arg(long, help = agent_help())]
    pub agent: Option<String>,
    /// The writing session's id (default: $HANDOVER_SESSION_ID, else the client's own session variable).
    #[arg(long)]
    pub session: Option<String>,
    /// Do not keep handover's files out of git (no info/exclude block; for teams that commit handoffs).
    #[arg(long)]
    pub shared: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `install`'s one-line help: every client, by the name users know it by.
fn install_about() -> String {
    format!(
        "Wire the hooks for this repository into the clients this machine uses, of {} (once; safe to repeat)",
        every_client("and")
    )
}

/// Every supported client by the name users know it by, as a list closed by `last_word`
/// ("Claude Code, Codex, … and Factory Droid"): texts that speak of all clients follow the
/// registry instead of naming them.
pub(crate) fn every_client(last_word: &str) -> String {
    let names: Vec<&str> = handover_clients::ALL
        .iter()
        .map(|c| c.display_name)
        .collect();
    listed(&names, last_word)
}

/// `n` and `word`, in the plural unless `n` is 1 ("1 file", "3 files").
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `items` as "a, b {last_word} c".
fn listed(items: &[impl AsRef<str>], last_word: &str) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("{} {last_word} {last}", rest.join(", "))
        }
        Some((last, _)) => (*last).to_string(),
        None => String::new(),
    }
}

/// `write --agent`'s help: the agents handover supports, by the names the hooks use.
fn agent_help() -> String {
    let names: Vec<&str> = handover_clients::Agent::ALL
        .iter()
        .map(|a| a.as_str())
        .collect();
    format!(
        "Which agent writes: {} (or any other name; default: detected from the environment)",
        names.join(", ")
    )
}

#[derive(Args, Debug)]
pub struct BootArgs {
    /// Print one JSON object (at least `verdict` and `reasons`; docs/cli.md).
    #[arg(long)]
    pub json: bool,
    /// Exit with the verdict: 0 fresh, 3 drifted, 4 stale, 5 unverified, 6 no handoff,
    /// 7 damaged, 8 refused (docs/cli.md).
    #[arg(long)]
    pub check: bool,
    /// Print the short startup context a hook would inject instead of the full report (text
    /// only: the JSON report has every fact it is made of).
    #[arg(long, conflicts_with = "json")]
    pub startup: bool,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// Print one JSON object (docs/cli.md).
    #[arg(long)]
    pub json: bool,
    /// Exit with 3 when anything is listed under "To fix" (for CI and shell prompts).
    #[arg(long)]
    pub check: bool,
    /// Also ask Codex itself (`codex app-server`, about a second) whether our hooks are trusted.
    #[arg(long)]
    pub check_trust: bool,
}

#[derive(Args, Debug)]
pub struct AckArgs {
    /// The acknowledging session's id (default: $HANDOVER_SESSION_ID when set).
    #[arg(long)]
    pub session: Option<String>,
    /// Print the result as JSON (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct DoneArgs {
    /// Print the result as JSON (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct PushArgs {
    /// The remote (default: the branch's upstream remote, else `origin`).
    pub remote: Option<String>,
    /// Replace the remote handoff even when this push does not build on it (another machine
    /// pushed since this clone last pulled). The replaced one stays in the ref's history.
    #[arg(long)]
    pub force: bool,
    /// Also carry the uncommitted work (tracked changes and the untracked files the handoff
    /// lists, never ignored ones) as a snapshot commit on the handoff's HEAD; files that look
    /// like credentials or hold a secret refuse the push. Default: `[travel] with_changes` in
    /// .handover/config.toml.
    #[arg(long, conflicts_with = "without_changes")]
    pub with_changes: bool,
    /// Leave the uncommitted work on this machine even when `[travel] with_changes = true`.
    #[arg(long)]
    pub without_changes: bool,
    /// Print one JSON object (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct PullArgs {
    /// The remote (default: the branch's upstream remote, else `origin`).
    pub remote: Option<String>,
    /// Make the fetched handoff for the current branch this working tree's handoff (the
    /// local one is archived first).
    #[arg(long)]
    pub adopt: bool,
    /// With --adopt: also put the uncommitted work that travelled with it (`push
    /// --with-changes`) into the working tree, when HEAD is the commit it was made on and none
    /// of its files has a local change here (the index is not touched).
    #[arg(long, requires = "adopt")]
    pub apply: bool,
    /// Print one JSON object (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ShareArgs {
    /// The remote (default: the branch's upstream remote, else `origin`).
    pub remote: Option<String>,
    /// Remove the fetch refspec `handover share` added.
    #[arg(long)]
    pub off: bool,
    /// Apply without asking (for scripts); the change is still printed.
    #[arg(long)]
    pub yes: bool,
    /// Print one JSON object (docs/cli.md); the change is made only with --yes.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct McpArgs {}

#[derive(Args, Debug)]
pub struct LogArgs {
    /// Only this branch (default: the current one).
    #[arg(long, value_name = "BRANCH", conflicts_with = "all")]
    pub branch: Option<String>,
    /// Every branch.
    #[arg(long)]
    pub all: bool,
    /// Only what happened since then: `2 days`, `3h`, `yesterday`, `2026-11-20`, an RFC 3339 time.
    #[arg(long, value_name = "WHEN", value_parser = log::parse_moment)]
    pub since: Option<u64>,
    /// Only what happened until then (the same forms as --since).
    #[arg(long, value_name = "WHEN", value_parser = log::parse_moment)]
    pub until: Option<u64>,
    /// Only what this agent did (its --agent name: claude, codex, ...).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// At most this many lines (the newest).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// One JSON object per line (docs/cli.md).
    #[arg(long)]
    pub json: bool,
    /// The store's size on disk by part (archive, journal, records, sessions, current) instead.
    #[arg(long, conflicts_with_all = ["branch", "all", "since", "until", "agent", "limit"])]
    pub stats: bool,
}

#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ShowArgs {
    /// A handoff's or session record's id from `handover log` (a unique prefix will do), or
    /// -N: the N-th newest handoff or record in `handover log` (-1 is the newest).
    #[arg(value_name = "ID | -N")]
    pub which: String,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// What to find: words (every one must match), "a phrase" (an argument with a space in it
    /// is one), case and accents as docs/cli.md says.
    #[arg(required = true, value_name = "QUERY")]
    pub query: Vec<String>,
    /// Only in this field (repeatable; a unique beginning is enough): goal, decisions,
    /// warnings, blockers, narrative, request, command, evidence, ... (docs/cli.md).
    #[arg(long = "in", value_name = "FIELD")]
    pub fields: Vec<String>,
    /// Show at most N hits.
    #[arg(long, value_name = "N", default_value_t = search::DEFAULT_LIMIT,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub limit: usize,
    /// Print one JSON object per hit (docs/cli.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Keep the temporary repository and print its path, instead of deleting it.
    #[arg(long)]
    pub keep: bool,
}

pub fn run() -> anyhow::Result<ExitCode> {
    let cli = match parse::parse() {
        Ok(cli) => cli,
        // A usage error: clap's message on stderr, exit 2 (documented in docs/cli.md).
        Err(e) if e.use_stderr() => {
            let _ = e.print();
            return Ok(ExitCode::from(2));
        }
        // --help and --version: through our stdout, whose failures are typed (clap's own
        // printing would swallow a full disk).
        Err(e) => {
            use std::io::IsTerminal;
            let text = e.render();
            if std::io::stdout().is_terminal() {
                write!(output::stdout(), "{}", text.ansi())?;
            } else {
                write!(output::stdout(), "{text}")?;
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    if cli.quiet {
        output::set_quiet();
    }
    // Only the commands that work on a repository read the directory (`-C`, else the current
    // one): the others run anywhere, even where the current directory is gone.
    let dir = || repository_dir(cli.dir.as_deref());
    match &cli.command {
        Command::Write(a) => write::run(a, &dir()?),
        Command::Boot(a) => {
            watchdog::start("boot");
            boot::run(a, &dir()?)
        }
        Command::Status(a) => {
            watchdog::start("status");
            status::run(a, &dir()?)
        }
        Command::Done(a) => done::run(a, &dir()?),
        Command::Ack(a) => ack::run(a, &dir()?),
        Command::Log(a) => {
            watchdog::start("log");
            log::run(a, &dir()?)
        }
        Command::Show(a) => {
            watchdog::start("show");
            show::run(a, &dir()?)
        }
        Command::Demo(a) => demo::run(a),
        Command::Push(a) => travel::push(a, &dir()?),
        Command::Pull(a) => travel::pull(a, &dir()?),
        Command::Share(a) => travel::share(a, &dir()?),
        Command::Search(a) => {
            watchdog::start("search");
            search::run(a, &dir()?)
        }
        Command::Install(a) => {
            install::run_install(a, handover_handoff::store::Store::discover(&dir()?).root())
        }
        Command::Uninstall(a) => {
            install::run_uninstall(a, handover_handoff::store::Store::discover(&dir()?).root())
        }
        Command::TrustPlugin(a) => install::run_trust_plugin(a),
        Command::Mcp(_) => mcp::run(&dir()?),
        Command::Completions(a) => {
            // Generated into memory first: clap_complete panics when its writer fails.
            let mut script = Vec::new();
            clap_complete::generate(
                a.shell,
                &mut parse::completion_command(),
                "handover",
                &mut script,
            );
            std::io::Write::write_all(&mut output::stdout(), &script)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The directory a repository command works in: `-C`, else the current one, absolute and
/// checked.
fn repository_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir()
            .map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))?,
    };
    let dir = std::path::absolute(&dir).unwrap_or(dir);
    check_dir(&dir)?;
    Ok(dir)
}

/// Refuses a directory handover must not work in, before anything is read or written: one
/// that does not exist (a typo in `-C` must not create a directory tree), and a bare git
/// repository (no working tree: a handoff there would sit inside git's own files).
fn check_dir(dir: &Path) -> anyhow::Result<()> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{} is not a directory: check the path (handover creates no directories)",
            dir.display()
        );
    }
    if handover_handoff::worktree::find_root(dir).is_none() {
        if let Ok(Some(repo)) = handover_git::open(dir) {
            if repo.is_bare() {
                anyhow::bail!(
                    "{} is a bare git repository, which has no working tree to hand over: run handover in a clone or a worktree of it",
                    dir.display()
                );
            }
        }
    }
    Ok(())
}
