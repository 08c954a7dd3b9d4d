//! The whole install / uninstall run: plan, dry-run diff or apply, Codex trust, and the report
//! printed to the user. The CLI (src/cli/install.rs) only gathers arguments and environment.
//! Codex's own step, trusting our hooks through its app-server after the files are written,
//! is in wiring/codex/trust.rs.

pub use crate::report::Outcome;
use crate::wiring::codex::trust::{self, TrustStep};
pub use crate::wiring::codex::trust::{trust_plugin, PluginTrustRequest};

use crate::apply::manifest;
use crate::apply::preflight::{self, Access};
use crate::files::{self, Homes, Targets};
use crate::plan::{self, FileEdit, InstallOptions, Plan};
use crate::report::ChangeKind;
use crate::wiring::{self, Place};
use handover_clients::Scope;
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

impl InstallRequest {
    /// What Codex's own step after the files (wiring/codex/trust.rs) needs of this run.
    fn codex_step(&self) -> TrustStep<'_> {
        TrustStep {
            repo: &self.repo,
            homes: &self.homes,
            options: &self.options,
            codex_bin: self.codex_bin.as_deref(),
            dry_run: self.dry_run,
            timeout: self.trust_timeout,
        }
    }
}

#[derive(Clone, Debug)]
pub struct UninstallRequest {
    pub repo: PathBuf,
    pub homes: Homes,
    pub targets: Targets,
    pub scope: Scope,
    pub dry_run: bool,
}

/// Each file's summary and changes; `planned`: a dry run's, in the conditional ("would
/// create").
fn print_edits(repo: &Path, plan: &Plan, planned: bool, out: &mut dyn Write) {
    for e in &plan.edits {
        let summary = summarize(e, planned);
        let _ = writeln!(out, "{}: {summary}", files::display_path(repo, &e.path));
        for c in e.changes.iter().filter(|c| c.kind != ChangeKind::Unchanged) {
            let _ = writeln!(out, "  {c}");
        }
    }
    for n in &plan.notes {
        let _ = writeln!(out, "note: {n}");
    }
}

fn summarize(e: &FileEdit, planned: bool) -> String {
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
    let verb = match (&e.before, &e.after, planned) {
        (None, Some(_), false) => "created",
        (None, Some(_), true) => "would create",
        (Some(_), None, false) => "deleted",
        (Some(_), None, true) => "would delete",
        (_, _, false) => "changed",
        (_, _, true) => "would change",
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
        print_edits(repo, plan, true, out);
        let _ = write!(out, "{}", plan.diff(repo));
        let _ = writeln!(out, "dry run: nothing was written.");
        return Ok(());
    }
    let applied = plan.apply(&crate::apply::backup::stamp())?;
    print_edits(repo, plan, false, out);
    for b in &applied.backups {
        let _ = writeln!(out, "backup: {}", b.display());
    }
    outcome.wrote = applied.wrote;
    outcome.backups = applied.backups;
    outcome.dirs = applied.created_dirs;
    Ok(())
}

/// Checks every file the run will touch before the first write: the plan's files, the Codex
/// config the trust step has Codex rewrite, and the caller's own (`also_writes`).
fn preflight(req: &InstallRequest, plan: &Plan) -> Result<(), crate::EditError> {
    plan.preflight()?;
    trust::preflight(&req.codex_step())?;
    for p in &req.also_writes {
        preflight::check_file(p, Access::Write, Some(&req.repo))?;
    }
    Ok(())
}

pub fn install(req: &InstallRequest, out: &mut dyn Write) -> Result<Outcome, crate::EditError> {
    trust::check_trust_prerequisites(&req.codex_step())?;
    let plan = plan::plan_install(&req.repo, &req.homes, &req.options)?;
    preflight(req, &plan)?;
    let mut outcome = Outcome {
        ok: true,
        problems: plan.problems.clone(),
        ..Default::default()
    };
    show_or_apply(&req.repo, &plan, req.dry_run, out, &mut outcome)?;
    if !req.dry_run {
        record_install(req, &plan, &outcome, out);
    }
    trust::trust_step(
        &req.codex_step(),
        &plan.edits,
        &plan.backups,
        &mut outcome,
        out,
    );
    for p in &outcome.problems {
        let _ = writeln!(out, "problem: {p}");
    }
    Ok(outcome)
}

/// What this install added to the repository beyond its entries (the folders it created, the
/// clients it trusted the repository for), added to the repository's record (manifest.rs) for
/// uninstall. Only for the repository scopes: the user scope changes nothing of the
/// repository's. A record that cannot be written is said; the install itself stands.
fn record_install(req: &InstallRequest, plan: &Plan, outcome: &Outcome, out: &mut dyn Write) {
    if req.options.scope == Scope::User {
        return;
    }
    // The repository's, and the user folders created for a trust record (`~/.gemini`).
    let dirs: Vec<PathBuf> = outcome.dirs.clone();
    if dirs.is_empty() && plan.trusted.is_empty() {
        return;
    }
    let mut record = manifest::load(&req.homes, &req.repo);
    record.add(&dirs, plan.trusted, None);
    if let Err(e) = manifest::save(&req.homes, &req.repo, &record) {
        let _ = writeln!(
            out,
            "note: cannot record what install added ({}: {e}); uninstall will leave the folders and trust entries it created",
            manifest::path(&req.homes, &req.repo).display()
        );
    }
}

pub fn uninstall(req: &UninstallRequest, out: &mut dyn Write) -> Result<Outcome, crate::EditError> {
    // What install recorded it added (manifest.rs): the repository scopes only.
    let mut record = if req.scope == Scope::User {
        manifest::Manifest::default()
    } else {
        manifest::load(&req.homes, &req.repo)
    };
    let untrust = Targets::of(record.trusted().iter().filter(|a| req.targets.contains(*a)));
    let plan = plan::plan_uninstall(&req.repo, &req.homes, req.targets, req.scope, untrust)?;
    plan.preflight()?;
    let mut outcome = Outcome {
        ok: true,
        ..Default::default()
    };
    show_or_apply(&req.repo, &plan, req.dry_run, out, &mut outcome)?;
    outcome.dirs.clear();
    if req.dry_run {
        let dirs: Vec<String> = record
            .dirs
            .iter()
            .filter(|d| d.is_dir() && d.starts_with(&req.repo))
            .map(|d| format!("{}/", files::display_path(&req.repo, d)))
            .collect();
        if !dirs.is_empty() {
            let _ = writeln!(
                out,
                "note: the folders install created ({}) go too, each when nothing else is left in it",
                dirs.join(", ")
            );
        }
    } else {
        record.forget_trust(untrust);
        let staying = plan::installed_besides(req.targets, &req.repo, &req.homes);
        remove_created_dirs(req, &mut record, staying.is_empty(), &mut outcome, out);
        if let Err(e) = manifest::save(&req.homes, &req.repo, &record) {
            let _ = writeln!(
                out,
                "note: cannot update the record of this install ({}: {e})",
                manifest::path(&req.homes, &req.repo).display()
            );
        }
    }
    for note in trust_left_in_place(req, untrust) {
        let _ = writeln!(out, "note: {note}");
    }
    Ok(outcome)
}

/// The folders install created (record.dirs), innermost first, removed when nothing is left in
/// them; the ones left are said when no client stays installed (then what is in them is not
/// handover's). Folders that are gone leave the record.
fn remove_created_dirs(
    req: &UninstallRequest,
    record: &mut manifest::Manifest,
    nothing_stays: bool,
    outcome: &mut Outcome,
    out: &mut dyn Write,
) {
    let mut left = Vec::new();
    for dir in record.dirs.clone().iter().rev() {
        if !dir.is_dir() {
            continue;
        }
        let in_repo = dir.starts_with(&req.repo);
        match std::fs::remove_dir(dir) {
            Ok(()) => {
                let _ = writeln!(
                    out,
                    "{}/: removed (install created it; nothing else is in it)",
                    files::display_path(&req.repo, dir)
                );
                outcome.dirs.push(dir.clone());
            }
            // A user folder still in use (another repository's trust, the client's own files)
            // is simply not ours to mention.
            Err(_) if in_repo => left.push(format!("{}/", files::display_path(&req.repo, dir))),
            Err(_) => {}
        }
    }
    record.dirs.retain(|d| d.is_dir());
    if nothing_stays && !left.is_empty() {
        let _ = writeln!(
            out,
            "note: left {}: install created it, and it now holds files handover did not write",
            left.join(", ")
        );
    }
}

/// The trust entries uninstall leaves (they may predate handover, and other tools rely on
/// them): named only when they are there. Not for the clients whose entry install recorded
/// (`untrust`): uninstall took that out, or said why not.
fn trust_left_in_place(req: &UninstallRequest, untrust: Targets) -> Vec<String> {
    let at = Place {
        repo: &req.repo,
        homes: &req.homes,
        scope: req.scope,
    };
    req.targets
        .iter()
        .filter(|a| !untrust.contains(*a))
        .flat_map(|agent| wiring::of(agent).left_in_place(at))
        .collect()
}
