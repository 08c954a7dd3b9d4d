//! The whole install / uninstall run: plan, dry-run diff or apply, Codex trust, and the report
//! printed to the user. The CLI (src/cli/install.rs) only gathers arguments and environment.

use crate::codex_config;
use crate::codex_trust::{self, TrustOutcome, TrustRequest, TrustStatus};
use crate::files::{self, Homes, Scope, Targets};
use crate::locate::is_executable;
use crate::plan::{self, FileEdit, FileKind, InstallOptions, Plan};
use crate::preflight::{self, Access};
use crate::report::ChangeKind;
use crate::wiring::{self, Place};
use handover_base::Agent;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct InstallRequest {
    pub repo: PathBuf,
    pub homes: Homes,
    pub options: InstallOptions,
    pub dry_run: bool,
    /// `--codex-bin`, else `codex` found on PATH by the caller (None: not available).
    pub codex_bin: Option<PathBuf>,
    /// Bound on the whole `codex app-server` conversation.
    pub trust_timeout: Duration,
    /// Files the caller writes after a successful install (the `.gitignore` guard): checked
    /// with the rest before the first write.
    pub also_writes: Vec<PathBuf>,
}

#[derive(Clone, Debug)]
pub struct UninstallRequest {
    pub repo: PathBuf,
    pub homes: Homes,
    pub targets: Targets,
    pub scope: Scope,
    pub dry_run: bool,
}

/// How the run ended: `ok` false means exit non-zero. An error (`Err`) means nothing was written:
/// every file is checked before the first write and the writes are all or nothing. A failed
/// trust step (after the files were written) leaves the file edits in place and says so.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub ok: bool,
    pub wrote: Vec<PathBuf>,
    pub backups: Vec<PathBuf>,
    pub problems: Vec<String>,
}

fn print_edits(repo: &Path, plan: &Plan, out: &mut dyn Write) {
    for e in &plan.edits {
        let summary = summarize(e);
        let _ = writeln!(out, "{}: {summary}", files::display_path(repo, &e.path));
        for c in e.changes.iter().filter(|c| c.kind != ChangeKind::Unchanged) {
            let _ = writeln!(out, "  {c}");
        }
    }
    for n in &plan.notes {
        let _ = writeln!(out, "note: {n}");
    }
}

fn summarize(e: &FileEdit) -> String {
    if !e.changed() {
        return if e.before.is_none() {
            "nothing to do (no file)".into()
        } else {
            "unchanged".into()
        };
    }
    let count = |k| e.changes.iter().filter(|c| c.kind == k).count();
    let mut parts = Vec::new();
    for k in [ChangeKind::Added, ChangeKind::Updated, ChangeKind::Removed] {
        let n = count(k);
        if n > 0 {
            parts.push(format!("{n} {}", k.as_str()));
        }
    }
    let verb = match (&e.before, &e.after) {
        (None, Some(_)) => "created",
        (Some(_), None) => "deleted",
        _ => "changed",
    };
    format!("{verb} ({})", parts.join(", "))
}

/// Lists the planned edits with their diffs (dry run), or applies them all or nothing and
/// then lists what was done: the report never names a file that was not written.
fn show_or_apply(
    repo: &Path,
    plan: &Plan,
    dry_run: bool,
    out: &mut dyn Write,
    outcome: &mut Outcome,
) -> Result<(), crate::EditError> {
    if dry_run {
        print_edits(repo, plan, out);
        let _ = write!(out, "{}", plan.diff(repo));
        let _ = writeln!(out, "dry run: nothing was written.");
        return Ok(());
    }
    let applied = plan.apply(&backup_stamp())?;
    print_edits(repo, plan, out);
    for b in &applied.backups {
        let _ = writeln!(out, "backup: {}", b.display());
    }
    outcome.wrote = applied.wrote;
    outcome.backups = applied.backups;
    Ok(())
}

/// Backups are named by the UTC time of the run (`20261122T021500Z`).
fn backup_stamp() -> String {
    handover_base::clock::format_compact(handover_base::clock::unix_now().0)
}

/// `--trust` needs Codex: checked before anything is written, so a missing `codex` costs nothing.
fn check_trust_prerequisites(req: &InstallRequest) -> Result<(), crate::EditError> {
    if !(req.options.trust && req.options.targets.contains(Agent::Codex)) {
        return Ok(());
    }
    if req.codex_bin.as_deref().is_some_and(is_executable) {
        return Ok(());
    }
    let what = match &req.codex_bin {
        Some(b) => format!("{} is not an executable file", b.display()),
        None => "`codex` is not on PATH".to_string(),
    };
    Err(crate::EditError::new(
        req.codex_bin.clone().unwrap_or_else(|| PathBuf::from("codex")),
        format!(
            "--trust needs Codex, and {what}; nothing was written. Install Codex (or pass --codex-bin PATH), or run without --trust and follow the steps it prints"
        ),
    ))
}

/// Checks every file the run will touch before the first write: the plan's files, the Codex
/// config the trust step has Codex rewrite, and the caller's own (`also_writes`).
fn preflight(req: &InstallRequest, plan: &Plan) -> Result<(), crate::EditError> {
    plan.preflight()?;
    if req.options.trust && req.options.targets.contains(Agent::Codex) {
        preflight::check_file(&req.homes.codex_config(), Access::Write, None)?;
    }
    for p in &req.also_writes {
        preflight::check_file(p, Access::Write, Some(&req.repo))?;
    }
    Ok(())
}

pub fn install(req: &InstallRequest, out: &mut dyn Write) -> Result<Outcome, crate::EditError> {
    check_trust_prerequisites(req)?;
    let plan = plan::plan_install(&req.repo, &req.homes, &req.options)?;
    preflight(req, &plan)?;
    let mut outcome = Outcome {
        ok: true,
        problems: plan.problems.clone(),
        ..Default::default()
    };
    show_or_apply(&req.repo, &plan, req.dry_run, out, &mut outcome)?;
    if req.options.targets.contains(Agent::Codex) {
        codex_trust_step(req, &plan, &mut outcome, out);
    }
    for p in &outcome.problems {
        let _ = writeln!(out, "problem: {p}");
    }
    Ok(outcome)
}

fn codex_trust_step(req: &InstallRequest, plan: &Plan, outcome: &mut Outcome, out: &mut dyn Write) {
    let hooks_json = files::hooks_path(Agent::Codex, req.options.scope, &req.repo, &req.homes);
    let cfg = req.homes.codex_config();
    let project = (req.options.scope != Scope::User).then_some(req.repo.as_path());
    let manual_steps = |out: &mut dyn Write| {
        let _ = write!(
            out,
            "{}",
            codex_trust::manual_steps(&cfg, project, &hooks_json)
        );
    };
    if !req.options.trust {
        manual_steps(out);
        return;
    }
    // check_trust_prerequisites made sure it is there.
    let Some(bin) = &req.codex_bin else {
        return;
    };
    if req.dry_run {
        let _ = writeln!(
            out,
            "would trust our hooks in {} through `{} app-server`.",
            hooks_json.display(),
            bin.display()
        );
        return;
    }
    let cfg_text = files::read_opt(&cfg).ok().flatten();
    // A config.toml this run created holds nothing of the user's: nothing to back up.
    let created_now = plan
        .edits
        .iter()
        .any(|e| e.path == cfg && e.before.is_none() && e.after.is_some())
        && !req.dry_run;
    if let Some(text) = cfg_text.as_ref().filter(|_| !created_now) {
        if !back_up_codex_config(&plan.backups, &cfg, text, outcome, out) {
            return;
        }
    }
    let tr = TrustRequest {
        codex_bin: bin.clone(),
        codex_home: req.homes.codex_home.clone(),
        home: req.homes.home.clone(),
        project: req.repo.clone(),
        hooks_json: hooks_json.clone(),
        commands: plan::wanted(&req.options, Agent::Codex)
            .into_iter()
            .map(|w| w.command)
            .collect(),
        timeout: req.trust_timeout,
    };
    let trusted = codex_trust::trust_our_hooks(&tr);
    if let Some(text) = &cfg_text {
        keep_line_endings(&cfg, text, out);
    }
    match trusted {
        Ok(t) => report_trust(&t, outcome, out),
        Err(e) => {
            outcome.ok = false;
            outcome
                .problems
                .push(format!("codex hook trust failed: {e}"));
            manual_steps(out);
        }
    }
}

/// Codex rewrites config.toml itself for hooks.state: the user's version is backed up first
/// (unless its newest backup already holds it). False when that failed: then nothing is trusted.
fn back_up_codex_config(
    backups: &crate::backup::Backups,
    cfg: &Path,
    text: &str,
    outcome: &mut Outcome,
    out: &mut dyn Write,
) -> bool {
    if crate::keep::backup_is_current(backups, FileKind::CodexConfig, cfg, text) {
        return true;
    }
    match backups.make(cfg, &backup_stamp(), text.as_bytes()) {
        Ok(b) => {
            let _ = writeln!(out, "backup: {}", b.display());
            outcome.backups.push(b);
            true
        }
        Err(e) => {
            outcome.ok = false;
            outcome.problems.push(format!(
                "{}: cannot back up ({e}); the hooks were not trusted",
                cfg.display()
            ));
            false
        }
    }
}

/// What the trust step did, hook by hook. Not all of ours trusted afterwards: a problem, and
/// the run exits non-zero.
fn report_trust(t: &TrustOutcome, outcome: &mut Outcome, out: &mut dyn Write) {
    for h in &t.newly_trusted {
        let _ = writeln!(out, "trusted: {} = {}", h.key, h.current_hash);
    }
    for h in &t.already_trusted {
        let _ = writeln!(out, "already trusted: {}", h.key);
    }
    for h in &t.not_ours_to_trust {
        let _ = writeln!(
            out,
            "not trusted by handover: {} runs `{}`, which is not exactly what install wrote; approve it in Codex yourself if you want it to run",
            h.key, h.command
        );
    }
    if t.all_trusted() {
        let _ = writeln!(
            out,
            "codex: verified with hooks/list: all {} of our hooks are trusted.",
            t.after.len()
        );
    } else {
        outcome.ok = false;
        let bad: Vec<_> = t
            .after
            .iter()
            .filter(|h| h.trust_status != TrustStatus::Trusted)
            .map(|h| format!("{} ({})", h.key, h.trust_status))
            .collect();
        outcome.problems.push(format!(
            "codex still reports these hooks as not trusted: {}",
            bad.join(", ")
        ));
    }
}

#[derive(Clone, Debug)]
pub struct PluginTrustRequest {
    pub homes: Homes,
    pub codex_bin: PathBuf,
    /// The directory `codex app-server` runs in (plugin hooks are the same in every project).
    pub cwd: PathBuf,
    pub timeout: Duration,
}

/// `handover trust-plugin`: trusts exactly the handover plugin's Codex hooks
/// (codex_trust::plugin_hooks), the config backed up first as for `install --trust`. Running
/// the command is the user's consent, as `--trust` is.
pub fn trust_plugin(req: &PluginTrustRequest, out: &mut dyn Write) -> Outcome {
    let mut outcome = Outcome {
        ok: true,
        ..Default::default()
    };
    let cfg = req.homes.codex_config();
    let backups = crate::backup::Backups::new(&req.homes.backups);
    let cfg_text = files::read_opt(&cfg).ok().flatten();
    if let Some(text) = &cfg_text {
        if !back_up_codex_config(&backups, &cfg, text, &mut outcome, out) {
            return outcome;
        }
    }
    let tr = TrustRequest {
        codex_bin: req.codex_bin.clone(),
        codex_home: req.homes.codex_home.clone(),
        home: req.homes.home.clone(),
        project: req.cwd.clone(),
        hooks_json: PathBuf::new(),
        commands: Vec::new(),
        timeout: req.timeout,
    };
    let trusted = codex_trust::trust_plugin_hooks(&tr);
    if let Some(text) = &cfg_text {
        keep_line_endings(&cfg, text, out);
    }
    match trusted {
        Ok(t) => report_trust(&t, &mut outcome, out),
        Err(e) => {
            outcome.ok = false;
            outcome
                .problems
                .push(format!("codex plugin hook trust failed: {e}"));
        }
    }
    for p in &outcome.problems {
        let _ = writeln!(out, "problem: {p}");
    }
    outcome
}

/// Codex writes config.toml back with LF: a CRLF file gets its CRLF back.
fn keep_line_endings(cfg: &Path, before: &str, out: &mut dyn Write) {
    let Ok(Some(now)) = files::read_opt(cfg) else {
        return;
    };
    let fixed = codex_config::in_endings_of(before, now.clone());
    if fixed != now {
        match handover_base::atomic::write_atomic(cfg, fixed.as_bytes()) {
            Ok(()) => {}
            Err(e) => {
                let _ = writeln!(
                    out,
                    "note: Codex rewrote {} with LF line endings and they could not be put back to CRLF ({e})",
                    cfg.display()
                );
            }
        }
    }
}

pub fn uninstall(req: &UninstallRequest, out: &mut dyn Write) -> Result<Outcome, crate::EditError> {
    let plan = plan::plan_uninstall(&req.repo, &req.homes, req.targets, req.scope)?;
    plan.preflight()?;
    let mut outcome = Outcome {
        ok: true,
        ..Default::default()
    };
    show_or_apply(&req.repo, &plan, req.dry_run, out, &mut outcome)?;
    for note in trust_left_in_place(req) {
        let _ = writeln!(out, "note: {note}");
    }
    Ok(outcome)
}

/// The trust entries uninstall leaves (they may predate handover, and other tools rely on
/// them): named only when they are there.
fn trust_left_in_place(req: &UninstallRequest) -> Vec<String> {
    let at = Place {
        repo: &req.repo,
        homes: &req.homes,
        scope: req.scope,
    };
    req.targets
        .iter()
        .flat_map(|agent| wiring::of(agent).left_in_place(at))
        .collect()
}
