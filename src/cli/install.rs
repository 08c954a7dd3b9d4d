//! `handover install` / `handover uninstall`, and the installer part of `handover status`.
//! A thin adapter: arguments and environment (HOME, CODEX_HOME, PATH, the running binary's
//! directory) in, the installer library (handover_installer::plan::flow) does the work, plus the
//! core's guard (the exclude block that keeps handoff files private).

use handover_base::HookExe;
use handover_clients::Agent;
use handover_clients::{Client, Scope, Trust};
use handover_installer::apply::manifest;
use handover_installer::locate::at_run_time;
use handover_installer::plan::detect::{detect, Detected, Sign};
use handover_installer::plan::flow::{self, InstallRequest, UninstallRequest};
use handover_installer::wiring::codex::app_server::find_codex;
use handover_installer::{locate, Homes, InstallOptions, Targets};

use super::{InstallArgs, Selection, TrustPluginArgs, UninstallArgs};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use handover_installer::status::Report;
use serde::Serialize;

/// The clients named (`--claude`, `--codex`, ...), or every client when none is (or `--all`):
/// what uninstall acts on.
fn targets(s: &Selection) -> Targets {
    if s.clients.0.is_empty() {
        Targets::all()
    } else {
        Targets::of(s.clients.0.iter().copied())
    }
}

/// The clients an install is for: the ones named, every one (`--all`), or, with neither, the
/// ones this machine uses and the ones already wired here (handover_installer::plan::detect).
enum Chosen {
    Named(Targets),
    Detected(Detected),
}

impl Chosen {
    fn of(s: &Selection, repo: &Path, env: &Environment) -> Chosen {
        if s.all || !s.clients.0.is_empty() {
            return Chosen::Named(targets(s));
        }
        Chosen::Detected(detect(
            repo,
            &env.homes,
            s.scope.into(),
            env.path_var.as_deref(),
        ))
    }

    fn targets(&self) -> Targets {
        match self {
            Chosen::Named(t) => *t,
            Chosen::Detected(d) => d.targets(),
        }
    }

    /// The clients left out, for `--json`.
    fn left_out(&self) -> Vec<&'static str> {
        let chosen = self.targets();
        Agent::ALL
            .into_iter()
            .filter(|a| !chosen.contains(*a))
            .map(|a| a.as_str())
            .collect()
    }
}

/// How a sign that chose a client is shown: `~/.claude`, `/usr/bin/codex on PATH`,
/// `.factory/settings.json has handover's hooks`.
fn shown_sign(sign: &Sign, repo: &Path, homes: &Homes) -> String {
    let tilde = |p: &Path| match p.strip_prefix(&homes.home) {
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => p.display().to_string(),
    };
    match sign {
        Sign::UserDir(d) => tilde(d),
        Sign::OnPath(p) => format!("{} on PATH", tilde(p)),
        Sign::Wired(f) => format!(
            "{} has handover's hooks",
            handover_installer::files::display_path(repo, f)
        ),
    }
}

/// The one line a bare install ends with: the clients it chose and why, the others and how to
/// add them.
fn detected_line(d: &Detected, repo: &Path, homes: &Homes) -> Option<String> {
    let others: Vec<Agent> = d.others().iter().collect();
    if others.is_empty() {
        return None;
    }
    let chosen: Vec<String> = d
        .chosen
        .iter()
        .map(|(a, sign)| {
            format!(
                "{} ({})",
                handover_clients::of(*a).display_name,
                shown_sign(sign, repo, homes)
            )
        })
        .collect();
    let names: Vec<&str> = others
        .iter()
        .map(|a| handover_clients::of(*a).display_name)
        .collect();
    let flags: Vec<String> = others.iter().map(|a| format!("--{}", a.as_str())).collect();
    Some(format!(
        "clients: {}; left out, not found on this machine: {}. Add {} to wire one too, or --all for every client",
        and_list(&chosen, "and"),
        and_list(&names, "and"),
        and_list(&flags, "or"),
    ))
}

/// A bare install on a machine where no client was found and none is wired here: refused
/// (exit 2, nothing written) with what was looked for and the switches. Wiring all six would
/// commit files for tools nobody here uses; wiring none would look like success.
fn nothing_found(homes: &Homes) -> String {
    let dirs: Vec<String> = handover_clients::ALL
        .iter()
        .filter_map(|c| c.user_dir(&homes.dirs))
        .map(|d| match d.strip_prefix(&homes.home) {
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => d.display().to_string(),
        })
        .collect();
    let programs: Vec<&str> = handover_clients::ALL.iter().map(|c| c.executable).collect();
    let flags: Vec<String> = Agent::ALL
        .into_iter()
        .map(|a| format!("--{}", a.as_str()))
        .collect();
    format!(
        "no AI coding client found on this machine (none of {} exists, none of {} is on PATH) and none is wired here yet, so install would wire nothing; name the clients to wire ({}), or use --all for every one. Nothing was written",
        and_list(&dirs, "or"),
        and_list(&programs, "or"),
        and_list(&flags, "or"),
    )
}

/// Everything install reads from the process environment, gathered in one place so tests can
/// pass their own.
pub struct Environment {
    pub homes: Homes,
    /// PATH, for the hook executables and `codex`.
    pub path_var: Option<std::ffi::OsString>,
    /// Directory of the running `handover` binary.
    pub exe_dir: Option<PathBuf>,
    pub cwd: PathBuf,
}

impl Environment {
    pub fn from_process() -> anyhow::Result<Environment> {
        let homes = Homes::from_env().ok_or_else(|| {
            anyhow::anyhow!("cannot find your home directory; set HOME and run again")
        })?;
        Ok(Environment {
            homes,
            path_var: std::env::var_os("PATH"),
            exe_dir: std::env::current_exe()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf)),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        })
    }
}

/// The guard (core), injected so the adapter can be tested on its own.
pub type Guard<'a> = &'a dyn Fn(&Path) -> anyhow::Result<(handover_core::guard::GuardStatus, bool)>;

pub fn run_install(args: &InstallArgs, repo_root: &Path) -> anyhow::Result<ExitCode> {
    let env = Environment::from_process()?;
    run_install_with(
        args,
        repo_root,
        &env,
        &mut super::output::stdout(),
        &handover_core::guard::ensure,
    )
}

pub fn run_uninstall(args: &UninstallArgs, repo_root: &Path) -> anyhow::Result<ExitCode> {
    let env = Environment::from_process()?;
    run_uninstall_with(args, repo_root, &env, &mut super::output::stdout())
}

pub fn run_trust_plugin(args: &TrustPluginArgs) -> anyhow::Result<ExitCode> {
    let env = Environment::from_process()?;
    let codex_bin = args
        .codex_bin
        .clone()
        .or_else(|| find_codex(env.path_var.as_deref()))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "trust-plugin needs Codex: `codex` is not on PATH; install it or pass --codex-bin PATH"
            )
        })?;
    let req = flow::PluginTrustRequest {
        homes: env.homes.clone(),
        codex_bin,
        cwd: env.cwd.clone(),
        timeout: Duration::from_secs(60),
    };
    let outcome = flow::trust_plugin(&req, &mut super::output::stdout());
    Ok(if outcome.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The Codex project key must match how Codex names the directory: the real path.
fn real_root(repo_root: &Path) -> PathBuf {
    std::fs::canonicalize(repo_root).unwrap_or_else(|_| repo_root.to_path_buf())
}

pub fn run_install_with(
    args: &InstallArgs,
    repo_root: &Path,
    env: &Environment,
    out: &mut dyn Write,
    guard: Guard<'_>,
) -> anyhow::Result<ExitCode> {
    let repo = real_root(repo_root);
    let chosen = Chosen::of(&args.selection, &repo, env);
    let refusal = match &chosen {
        Chosen::Detected(d) if d.chosen.is_empty() => Some(nothing_found(&env.homes)),
        _ => option_without_its_client(args, &chosen),
    };
    if let Some(problem) = refusal {
        super::output::warn(format_args!("error: {problem}"));
        // Bad usage, like clap's own refusals (docs/cli.md).
        return Ok(ExitCode::from(2));
    }
    let scope: Scope = args.selection.scope.into();
    let hooks = match &args.hooks_dir {
        // An explicit directory must hold the executables itself (no quiet fall-back to PATH),
        // and its absolute paths are written: never a per-user path into a shared file.
        Some(dir) => {
            let dir = absolute(dir, &env.cwd);
            refuse_per_user_path_in_shared_files(scope, &dir, &env.homes)?;
            locate(Some(&dir), None, &env.cwd).map_err(anyhow::Error::msg)?
        }
        None => locate(env.exe_dir.as_deref(), env.path_var.as_deref(), &env.cwd)
            .map_err(anyhow::Error::msg)?,
    };
    let portable = args.hooks_dir.is_none();
    let codex_bin = args
        .codex_bin
        .clone()
        .or_else(|| find_codex(env.path_var.as_deref()));
    let req = InstallRequest {
        repo: repo.clone(),
        homes: env.homes.clone(),
        options: InstallOptions {
            targets: chosen.targets(),
            scope,
            watch: !args.no_watch,
            enable_codex_hooks: args.enable_codex_hooks,
            trust: args.trust,
            hooks: hooks.clone(),
            portable,
            mcp: mcp_command(args, &env.cwd)?,
        },
        dry_run: args.selection.dry_run,
        codex_bin,
        trust_timeout: Duration::from_secs(60),
        also_writes: gitignore_to_write(&repo),
    };
    // With --json the human report is not printed: the JSON object says it all.
    let mut human = Vec::new();
    let text: &mut dyn Write = if args.json { &mut human } else { out };
    let warnings = place_warnings(&repo, &env.homes, scope);
    for w in &warnings {
        writeln!(text, "warning: {w}")?;
    }
    let mut outcome = flow::install(&req, text)?;
    let wired = wired_executables(&req.options, env);
    for line in &wired.lines {
        writeln!(text, "{line}")?;
    }
    if let Some(problem) = &wired.problem {
        writeln!(text, "problem: {problem}")?;
        outcome.problems.push(problem.clone());
    }
    let mut gitignore_added = false;
    if args.selection.dry_run {
        if let Some(diff) = gitignore_dry_run(&repo) {
            writeln!(
                text,
                "{}: would add the handover block (handover.md and .handover/ stay private; no tracked file changes)",
                handover_core::guard::label(&repo)
            )?;
            write!(text, "{diff}")?;
        }
    } else {
        let guard_file = handover_core::guard::file(&repo);
        let before = std::fs::read(&guard_file).ok();
        let (status, changed) = guard(&repo)?;
        gitignore_added = changed;
        if changed && scope != Scope::User {
            record_guard_change(&repo, &env.homes, &guard_file, before, text)?;
        }
        if changed {
            writeln!(
                text,
                "{}: added the handover block (handover.md and .handover/ stay private; no tracked file changes)",
                handover_core::guard::label(&repo)
            )?;
        }
        for t in &status.tracked {
            let problem = format!("git already tracks {t}; handover keeps it private only if you run `git rm --cached {t}`");
            writeln!(text, "problem: {problem}")?;
            outcome.problems.push(problem);
        }
    }
    if let Some(note) = trust_without_a_trust_client(args, &chosen) {
        writeln!(text, "note: {note}")?;
    }
    if !args.selection.dry_run && scope == Scope::Project {
        if let Some(hint) = commit_hint(&uncommitted(&repo, &outcome.wrote)) {
            writeln!(text, "{hint}")?;
        }
    }
    if let Chosen::Detected(d) = &chosen {
        if let Some(line) = detected_line(d, &repo, &env.homes) {
            writeln!(text, "{line}")?;
        }
    }
    if args.json {
        let clients: Vec<&str> = chosen.targets().iter().map(|a| a.as_str()).collect();
        let json = serde_json::json!({
            "version": super::output::JSON_VERSION,
            "ok": outcome.ok,
            "dry_run": args.selection.dry_run,
            "clients": clients,
            "left_out": chosen.left_out(),
            "portable": portable,
            "executables": wired.executables,
            "wrote": paths(&outcome.wrote),
            "backups": paths(&outcome.backups),
            "gitignore_added": gitignore_added,
            "warnings": warnings,
            "problems": outcome.problems,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    }
    Ok(exit_code(&outcome))
}

/// The clients that run hooks only where they are trusted (Codex's hook trust, the trusted
/// folders of Gemini CLI, GitHub Copilot CLI and Factory Droid); the others have no trust to
/// record.
fn with_trust() -> Vec<&'static Client> {
    handover_clients::ALL
        .into_iter()
        .filter(|c| c.trust != Trust::RunsAll)
        .collect()
}

/// `--trust` on a bare install whose clients keep no trust record (only Claude Code found):
/// not refused, since the user named no client, but said.
fn trust_without_a_trust_client(args: &InstallArgs, chosen: &Chosen) -> Option<String> {
    let t = chosen.targets();
    let none = !with_trust().iter().any(|c| t.contains(c.agent));
    (args.trust && none && matches!(chosen, Chosen::Detected(_))).then(|| {
        let names: Vec<&str> = t
            .iter()
            .map(|a| handover_clients::of(a).display_name)
            .collect();
        let (verb, it) = if names.len() == 1 {
            ("runs", "it finds")
        } else {
            ("run", "they find")
        };
        format!(
            "--trust had nothing to do: {} {verb} the hooks {it} without a trust record",
            and_list(&names, "and")
        )
    })
}

/// An option for one client given while that client is not selected (`--claude --trust`):
/// it would do nothing, so it is refused before anything is read or written. A bare install's
/// `--trust` is not refused (see [`trust_without_a_trust_client`]).
fn option_without_its_client(args: &InstallArgs, chosen: &Chosen) -> Option<String> {
    let t = chosen.targets();
    let codex_only = [
        ("--enable-codex-hooks", args.enable_codex_hooks),
        ("--codex-bin", args.codex_bin.is_some()),
    ];
    if !t.contains(Agent::Codex) {
        if let Some((flag, _)) = codex_only.iter().find(|(_, given)| *given) {
            let why = match chosen {
                Chosen::Named(_) => "",
                Chosen::Detected(_) => " (not found on this machine)",
            };
            return Some(format!(
                "{flag} is for Codex, which this install leaves out{why}: add --codex, or leave {flag} out"
            ));
        }
    }
    let with_trust = with_trust();
    let named = matches!(chosen, Chosen::Named(_));
    if named && args.trust && !with_trust.iter().any(|c| t.contains(c.agent)) {
        let names: Vec<&str> = with_trust.iter().map(|c| c.display_name).collect();
        let flags: Vec<String> = with_trust
            .iter()
            .map(|c| format!("--{}", c.agent.as_str()))
            .collect();
        return Some(format!(
            "--trust is for {} (the clients that run hooks only where they are trusted), and this install leaves them out: add {}, or leave --trust out",
            and_list(&names, "and"),
            and_list(&flags, "or"),
        ));
    }
    None
}

/// `a, b and c` (or `a, b or c`).
fn and_list<S: AsRef<str>>(items: &[S], word: &str) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.as_ref().to_string(),
        Some((last, rest)) => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} {word} {}", rest.join(", "), last.as_ref())
        }
    }
}

/// A per-repository install somewhere that is probably not what was meant: outside any git
/// repository (no privacy guard, nothing for the next session to verify against), or in
/// the home directory itself (the clients would then load these hooks in every project below
/// it, on top of that project's own).
fn place_warnings(repo: &Path, homes: &Homes, scope: Scope) -> Vec<String> {
    if scope == Scope::User {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    if handover_handoff::worktree::find_root(repo).is_none() {
        warnings.push(format!(
            "{} is not in a git repository: handoffs here cannot be verified against git and git is not told to ignore them; run `handover install` inside the repository (or `git init` first)",
            repo.display()
        ));
    }
    if std::fs::canonicalize(&homes.home).is_ok_and(|home| home == repo) {
        warnings.push(format!(
            "{} is your home directory, where a project's .claude/settings.json and .gemini/settings.json are your user settings: these hooks would run in every project; to mean that, use `handover install --scope user`, else run `handover install` inside a repository",
            repo.display()
        ));
    }
    warnings
}

fn paths(list: &[PathBuf]) -> Vec<String> {
    list.iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

/// The guard's change the real run makes, as a diff (`--dry-run` shows every change).
fn gitignore_dry_run(repo: &Path) -> Option<String> {
    if gitignore_to_write(repo).is_empty() {
        return None;
    }
    let path = handover_core::guard::file(repo);
    let before = handover_core::guard::read_gitignore(&path).ok().flatten();
    let after = handover_core::guard::with_block(before.as_deref().unwrap_or_default()).ok()?;
    let before = before.map(|b| String::from_utf8_lossy(&b).into_owned());
    let after = String::from_utf8_lossy(&after).into_owned();
    Some(handover_installer::edit::diff::unified(
        &handover_core::guard::label(repo),
        before.as_deref(),
        Some(&after),
    ))
}

/// What the clients run for `--mcp`: like the hooks, the portable launcher that finds
/// `handover` at run time, or with `--hooks-dir` the `handover` in that directory.
fn mcp_command(
    args: &InstallArgs,
    cwd: &Path,
) -> anyhow::Result<Option<handover_installer::edit::mcp_entry::McpCommand>> {
    use handover_installer::edit::mcp_entry::McpCommand;
    if !args.mcp {
        return Ok(None);
    }
    let Some(dir) = &args.hooks_dir else {
        return Ok(Some(McpCommand::portable()));
    };
    let handover = absolute(dir, cwd).join("handover");
    if !handover_installer::locate::is_executable(&handover) {
        anyhow::bail!(
            "--mcp with --hooks-dir {}: no `handover` executable there for the clients to run as their MCP server; nothing was written. Install it beside the hook executables (`cargo install --locked --path <handover checkout> --root <dir>`), or leave out --hooks-dir",
            dir.display()
        );
    }
    Ok(Some(McpCommand::at(&handover)))
}

fn absolute(dir: &Path, cwd: &Path) -> PathBuf {
    if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        cwd.join(dir)
    }
}

/// `--hooks-dir` under the home directory in the project scope would commit one person's path
/// into files the whole team shares (every teammate's hooks would then run a program that does
/// not exist on their machine).
fn refuse_per_user_path_in_shared_files(
    scope: Scope,
    dir: &Path,
    homes: &Homes,
) -> anyhow::Result<()> {
    if scope != Scope::Project {
        return Ok(());
    }
    let home = std::fs::canonicalize(&homes.home).unwrap_or_else(|_| homes.home.clone());
    let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if real.starts_with(&home) || dir.starts_with(&homes.home) {
        anyhow::bail!(
            "--hooks-dir {}: a directory in your home would be written into the project's shared settings files, where it does not exist on a teammate's machine; nothing was written. Leave out --hooks-dir (the hooks then find the executables at run time, on PATH or in ~/.cargo/bin), or install for yourself only with --scope local or --scope user",
            dir.display()
        );
    }
    Ok(())
}

/// Which executables the hooks will run on this machine.
struct Wired {
    /// Executable name → the path it runs here (None: none found).
    executables: std::collections::BTreeMap<&'static str, Option<String>>,
    lines: Vec<String>,
    /// The portable command would find none of them here.
    problem: Option<String>,
}

/// Says which executables the hooks will run on this machine: the absolute paths written, or,
/// for the portable command, where it finds each one at run time (a problem when it finds
/// none: then the hooks do nothing here).
fn wired_executables(opts: &InstallOptions, env: &Environment) -> Wired {
    let mut wired = Wired {
        executables: Default::default(),
        lines: Vec::new(),
        problem: None,
    };
    let cargo_bin = env.homes.cargo_home.join("bin");
    let mut missing = Vec::new();
    for exe in HookExe::ALL {
        let found = if opts.portable {
            at_run_time(exe, env.path_var.as_deref(), &env.homes.cargo_home)
        } else {
            Some(opts.hooks.get(exe).to_path_buf())
        };
        match &found {
            Some(p) if opts.portable => wired.lines.push(format!(
                "hooks run {} (found at run time: PATH, then {})",
                p.display(),
                cargo_bin.display()
            )),
            Some(p) => wired.lines.push(format!("hooks run {}", p.display())),
            None => missing.push(exe.file_name()),
        }
        wired.executables.insert(
            exe.file_name(),
            found.map(|p| p.to_string_lossy().into_owned()),
        );
    }
    if !missing.is_empty() {
        wired.problem = Some(format!(
            "the hooks find their executables at run time on PATH or in {}, and on this machine {} is in neither (found here: {}); until it is, the hooks do nothing. Install with `cargo install --locked --path <handover checkout>` (it puts them in {}), or add their directory to PATH",
            cargo_bin.display(),
            missing.join(", "),
            opts.hooks
                .get(HookExe::SessionStart)
                .parent()
                .map(|d| d.display().to_string())
                .unwrap_or_default(),
            cargo_bin.display(),
        ));
    }
    wired
}

/// Non-zero when something the user asked for was not done (see `flow::Outcome`).
fn exit_code(outcome: &flow::Outcome) -> ExitCode {
    if outcome.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The exclude file the guard will write after the install (in a git repository, when git
/// does not ignore the handoff files yet): checked with the installer's files before the first
/// write.
fn gitignore_to_write(repo: &Path) -> Vec<PathBuf> {
    let in_git = handover_handoff::worktree::find_root(repo).is_some();
    if in_git && !handover_core::guard::status(repo).present {
        vec![handover_core::guard::file(repo)]
    } else {
        Vec::new()
    }
}

pub fn run_uninstall_with(
    args: &UninstallArgs,
    repo_root: &Path,
    env: &Environment,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let req = UninstallRequest {
        repo: real_root(repo_root),
        homes: env.homes.clone(),
        targets: targets(&args.selection),
        scope: args.selection.scope.into(),
        dry_run: args.selection.dry_run,
    };
    let mut human = Vec::new();
    let text: &mut dyn Write = if args.json { &mut human } else { out };
    let outcome = flow::uninstall(&req, text)?;
    let guard_undone = if req.scope == Scope::User {
        None
    } else {
        undo_guard_change(&req, text)?
    };
    if args.json {
        let json = serde_json::json!({
            "version": super::output::JSON_VERSION,
            "ok": outcome.ok,
            "dry_run": args.selection.dry_run,
            "wrote": paths(&outcome.wrote),
            "backups": paths(&outcome.backups),
            "dirs_removed": paths(&outcome.dirs),
            "guard": guard_undone,
            "problems": outcome.problems,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
    }
    Ok(exit_code(&outcome))
}

/// Adds the guard's change (its file before this install, and now) to the repository's
/// install record (handover_installer::apply::manifest), for uninstall. A file that is not UTF-8 is
/// not recorded (uninstall then leaves its block, as it says).
fn record_guard_change(
    repo: &Path,
    homes: &Homes,
    file: &Path,
    before: Option<Vec<u8>>,
    text: &mut dyn Write,
) -> anyhow::Result<()> {
    // None: the file did not exist; not UTF-8 before or after: not recorded.
    let before = match before.map(String::from_utf8) {
        None => None,
        Some(Ok(text)) => Some(text),
        Some(Err(_)) => return Ok(()),
    };
    let Some(after) = std::fs::read(file)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
    else {
        return Ok(());
    };
    let change = manifest::GuardChange {
        path: file.to_path_buf(),
        before,
        after,
    };
    let mut record = manifest::load(homes, repo);
    record.add(&[], Targets::default(), Some(change));
    if let Err(e) = manifest::save(homes, repo, &record) {
        writeln!(
            text,
            "note: cannot record the change to {} ({}: {e}); uninstall will leave the handover block",
            file.display(),
            manifest::path(homes, repo).display()
        )?;
    }
    Ok(())
}

/// Uninstall's part of the guard: the change install recorded (manifest.rs) undone, byte for
/// byte when the file is as install left it, else only the block install added; left when the
/// block was changed since, when a client stays installed in the repository, or when handoff
/// files are here (git would show them otherwise). Says which, and returns it for `--json`.
fn undo_guard_change(
    req: &UninstallRequest,
    text: &mut dyn Write,
) -> anyhow::Result<Option<&'static str>> {
    use manifest::GuardUndo;
    let mut record = manifest::load(&req.homes, &req.repo);
    let Some(change) = record.guard.clone() else {
        return Ok(None);
    };
    let shown = handover_installer::files::display_path(&req.repo, &change.path);
    let would = if req.dry_run { "would be " } else { "" };
    if !handover_installer::plan::installed_besides(req.targets, &req.repo, &req.homes).is_empty() {
        // A partial uninstall: the clients that stay still write handoffs here.
        return Ok(None);
    }
    let handoff_files: Vec<&str> = ["handover.md", ".handover"]
        .into_iter()
        .filter(|f| req.repo.join(f).exists())
        .collect();
    if !handoff_files.is_empty() {
        writeln!(
            text,
            "note: {shown}: the handover block install added is kept: {} {} here and git would show {} otherwise; once you delete {}, remove the block by hand",
            and_list(&handoff_files, "and"),
            if handoff_files.len() == 1 { "is" } else { "are" },
            if handoff_files.len() == 1 { "it" } else { "them" },
            if handoff_files.len() == 1 { "it" } else { "them" },
        )?;
        return Ok(Some("kept"));
    }
    let now = std::fs::read(&change.path)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    let undo = manifest::undo_guard(&change, now.as_deref());
    let (line, done) = match &undo {
        GuardUndo::Restore(_) => (
            format!("{shown}: {would}restored as it was before install"),
            "restored",
        ),
        GuardUndo::Delete => (
            format!("{shown}: {would}removed (install created it, and nothing else was added to it since)"),
            "removed",
        ),
        GuardUndo::TakeOut(_) => (
            format!("{shown}: {would}changed (the handover block install added taken out; your other changes since are kept)"),
            "block removed",
        ),
        GuardUndo::Changed => (
            format!("note: {shown}: left as it is: the handover block install added was changed since (or the file is gone); remove what is left of it by hand if you want"),
            "left",
        ),
    };
    writeln!(text, "{line}")?;
    if req.dry_run {
        return Ok(Some(done));
    }
    let written = match undo {
        GuardUndo::Restore(bytes) | GuardUndo::TakeOut(bytes) => {
            handover_base::atomic::write_atomic(&change.path, bytes.as_bytes())
        }
        GuardUndo::Delete => std::fs::remove_file(&change.path),
        GuardUndo::Changed => Ok(()),
    };
    written.map_err(|e| anyhow::anyhow!("cannot write {}: {e}", change.path.display()))?;
    record.guard = None;
    manifest::save(&req.homes, &req.repo, &record).map_err(|e| {
        anyhow::anyhow!(
            "cannot update {}: {e}",
            manifest::path(&req.homes, &req.repo).display()
        )
    })?;
    Ok(Some(done))
}

/// Of `files` (in the repository at `root`), the ones git sees as new or changed, as paths
/// relative to the repository, in order: install's files waiting to be committed. Ignored
/// files and anything git cannot tell are left out.
pub fn uncommitted(root: &Path, files: &[PathBuf]) -> Vec<String> {
    let Ok(Some(repo)) = handover_git::open(root) else {
        return Vec::new();
    };
    let Some(top) = repo.workdir().and_then(|w| std::fs::canonicalize(w).ok()) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for file in files {
        let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
        let Ok(rel) = real.strip_prefix(&top) else {
            continue;
        };
        let pending = repo
            .status_file(rel)
            .is_ok_and(|st| !st.is_empty() && !st.contains(git2::Status::IGNORED));
        let shown = rel.to_string_lossy().into_owned();
        if pending && !out.contains(&shown) {
            out.push(shown);
        }
    }
    out
}

/// Install's last word in a repository: commit what it wrote. Until then the hooks reach no one
/// who clones it, and a handoff counts these files among the session's uncommitted changes.
fn commit_hint(files: &[String]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    Some(format!(
        "next: commit these files (git add {} && git commit -m \"Wire handover\"): the hooks then reach everyone who clones the repository, and handoffs stop listing them among a session's changes",
        files.join(" ")
    ))
}

/// The installer part of `handover status` (its "agents" field), or why it could not be checked.
#[derive(Serialize)]
#[serde(untagged)]
pub enum AgentsStatus {
    Checked(Box<Report>),
    NotChecked { error: String },
}

impl AgentsStatus {
    /// The repository's files that hold handover's wiring: project hooks files with our hooks,
    /// the project MCP files `install --mcp` registered the server in, instruction files with
    /// the section (for "not committed yet").
    pub fn wiring_files(&self, root: &Path) -> Vec<PathBuf> {
        let AgentsStatus::Checked(r) = self else {
            return Vec::new();
        };
        let hooks = r
            .agents
            .iter()
            .flat_map(|a| &a.scopes)
            .filter(|s| s.scope == Scope::Project && !s.file.ours.is_empty())
            .map(|s| s.file.path.clone());
        let mcp = r
            .agents
            .iter()
            .flat_map(|a| &a.mcp)
            .filter(|(scope, _)| *scope == Scope::Project)
            .map(|(_, m)| m.file.clone());
        let sections = r
            .instructions
            .iter()
            .filter(|i| i.present)
            .map(|i| root.join(&i.name));
        let mut files: Vec<PathBuf> = hooks.chain(mcp).chain(sections).collect();
        // Gemini CLI's and Qwen Code's MCP file is their hooks file.
        let mut seen = std::collections::HashSet::new();
        files.retain(|f| seen.insert(f.clone()));
        files
    }

    pub fn lines(&self) -> Vec<String> {
        match self {
            AgentsStatus::Checked(r) => r.lines(),
            AgentsStatus::NotChecked { error } => vec![format!("hooks: not checked ({error})")],
        }
    }

    pub fn problems(&self) -> Vec<String> {
        match self {
            AgentsStatus::Checked(r) => r.problems(),
            AgentsStatus::NotChecked { error } => vec![error.clone()],
        }
    }
}

/// The installer part of `handover status`: per agent and scope, installed / up to date /
/// duplicated, Codex feature flag, project and hook trust, and what to do about each problem.
pub fn status_section(repo_root: &Path) -> AgentsStatus {
    match Environment::from_process() {
        Ok(env) => AgentsStatus::Checked(Box::new(status_section_with(repo_root, &env))),
        Err(e) => AgentsStatus::NotChecked {
            error: e.to_string(),
        },
    }
}

pub fn status_section_with(repo_root: &Path, env: &Environment) -> Report {
    let expected = locate(env.exe_dir.as_deref(), env.path_var.as_deref(), &env.cwd).ok();
    handover_installer::status::status(
        &real_root(repo_root),
        &env.homes,
        expected.as_ref(),
        env.path_var.as_deref(),
    )
}

/// `status_section` plus asking Codex itself whether our hooks are trusted (`codex app-server`,
/// about a second, bounded to 15 s): `handover status --check-trust`.
pub fn status_section_live(repo_root: &Path) -> AgentsStatus {
    let env = match Environment::from_process() {
        Ok(env) => env,
        Err(_) => return status_section(repo_root),
    };
    let mut report = status_section_with(repo_root, &env);
    let codex = find_codex(env.path_var.as_deref());
    report.check_live_codex_trust(
        &real_root(repo_root),
        &env.homes,
        codex.as_deref(),
        Duration::from_secs(15),
    );
    AgentsStatus::Checked(Box::new(report))
}

#[cfg(test)]
mod tests;
