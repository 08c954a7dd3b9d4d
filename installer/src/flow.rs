//! The whole install / uninstall run: plan, dry-run diff or apply, Codex trust, and the report
//! printed to the user. The CLI (src/cli/install.rs) only gathers arguments and environment.

use crate::codex_trust::{self, TrustRequest};
use crate::plan::{self, FileEdit, Homes, InstallOptions, Plan, Scope, Targets};
use crate::report::ChangeKind;
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
}

#[derive(Clone, Debug)]
pub struct UninstallRequest {
    pub repo: PathBuf,
    pub homes: Homes,
    pub targets: Targets,
    pub scope: Scope,
    pub dry_run: bool,
}

/// How the run ended: `ok` false means exit non-zero (nothing is written when an edit could not
/// be computed; a failed trust step leaves the file edits in place and says so).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub ok: bool,
    pub wrote: Vec<PathBuf>,
    pub backups: Vec<PathBuf>,
    pub problems: Vec<String>,
}

fn name(repo: &Path, p: &Path) -> String {
    p.strip_prefix(repo)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| p.display().to_string())
}

fn print_edits(repo: &Path, plan: &Plan, out: &mut dyn Write) {
    for e in &plan.edits {
        let summary = summarize(e);
        let _ = writeln!(out, "{}: {summary}", name(repo, &e.path));
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
    for (k, label) in [
        (ChangeKind::Added, "added"),
        (ChangeKind::Updated, "updated"),
        (ChangeKind::Removed, "removed"),
    ] {
        let n = count(k);
        if n > 0 {
            parts.push(format!("{n} {label}"));
        }
    }
    let verb = match (&e.before, &e.after) {
        (None, Some(_)) => "created",
        (Some(_), None) => "deleted",
        _ => "changed",
    };
    format!("{verb} ({})", parts.join(", "))
}

fn apply(plan: &Plan, out: &mut dyn Write, outcome: &mut Outcome) -> Result<(), crate::EditError> {
    let stamp = handover_base::clock::format_compact(handover_base::clock::unix_now().0);
    outcome.backups = plan.apply(&stamp)?;
    outcome.wrote = plan
        .edits
        .iter()
        .filter(|e| e.changed())
        .map(|e| e.path.clone())
        .collect();
    for b in &outcome.backups {
        let _ = writeln!(out, "backup: {}", b.display());
    }
    Ok(())
}

/// Lists the planned edits; then prints their diffs (dry run) or applies them.
fn show_or_apply(
    repo: &Path,
    plan: &Plan,
    dry_run: bool,
    out: &mut dyn Write,
    outcome: &mut Outcome,
) -> Result<(), crate::EditError> {
    print_edits(repo, plan, out);
    if dry_run {
        let _ = write!(out, "{}", plan.diff(repo));
        let _ = writeln!(out, "dry run: nothing was written.");
        Ok(())
    } else {
        apply(plan, out, outcome)
    }
}

pub fn install(req: &InstallRequest, out: &mut dyn Write) -> Result<Outcome, crate::EditError> {
    let plan = plan::plan_install(&req.repo, &req.homes, &req.options)?;
    let mut outcome = Outcome {
        ok: true,
        problems: plan.problems.clone(),
        ..Default::default()
    };
    show_or_apply(&req.repo, &plan, req.dry_run, out, &mut outcome)?;
    if req.options.targets.codex {
        codex_trust_step(req, &mut outcome, out);
    }
    for p in &outcome.problems {
        let _ = writeln!(out, "problem: {p}");
    }
    Ok(outcome)
}

fn codex_trust_step(req: &InstallRequest, outcome: &mut Outcome, out: &mut dyn Write) {
    let hooks_json = plan::codex_hooks_path(req.options.scope, &req.repo, &req.homes);
    let cfg = req.homes.codex_config();
    let project = (req.options.scope != Scope::User).then_some(req.repo.as_path());
    if !req.options.trust {
        let _ = write!(
            out,
            "{}",
            codex_trust::manual_steps(&cfg, project, &hooks_json)
        );
        return;
    }
    let Some(bin) = &req.codex_bin else {
        outcome.ok = false;
        outcome.problems.push(
            "--trust needs `codex` on PATH (or --codex-bin PATH); the hooks were not trusted."
                .into(),
        );
        let _ = write!(
            out,
            "{}",
            codex_trust::manual_steps(&cfg, project, &hooks_json)
        );
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
    // Codex rewrites config.toml itself for hooks.state: keep the user's original first.
    if cfg.exists() {
        let stamp = handover_base::clock::format_compact(handover_base::clock::unix_now().0);
        if let Ok(Some(b)) = plan::backup_once(&cfg, &stamp) {
            let _ = writeln!(out, "backup: {}", b.display());
            outcome.backups.push(b);
        }
    }
    let tr = TrustRequest {
        codex_bin: bin.clone(),
        codex_home: req.homes.codex_home.clone(),
        home: req.homes.home.clone(),
        project: req.repo.clone(),
        hooks_json: hooks_json.clone(),
        timeout: req.trust_timeout,
    };
    match codex_trust::trust_our_hooks(&tr) {
        Ok(t) => {
            for h in &t.newly_trusted {
                let _ = writeln!(out, "trusted: {} = {}", h.key, h.current_hash);
            }
            for h in &t.already_trusted {
                let _ = writeln!(out, "already trusted: {}", h.key);
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
                    .filter(|h| h.trust_status != "trusted")
                    .map(|h| format!("{} ({})", h.key, h.trust_status))
                    .collect();
                outcome.problems.push(format!(
                    "codex still reports these hooks as not trusted: {}",
                    bad.join(", ")
                ));
            }
        }
        Err(e) => {
            outcome.ok = false;
            outcome
                .problems
                .push(format!("codex hook trust failed: {e}"));
            let _ = write!(
                out,
                "{}",
                codex_trust::manual_steps(&cfg, project, &hooks_json)
            );
        }
    }
}

pub fn uninstall(req: &UninstallRequest, out: &mut dyn Write) -> Result<Outcome, crate::EditError> {
    let plan = plan::plan_uninstall(&req.repo, &req.homes, req.targets, req.scope)?;
    let mut outcome = Outcome {
        ok: true,
        ..Default::default()
    };
    show_or_apply(&req.repo, &plan, req.dry_run, out, &mut outcome)?;
    if req.targets.codex && req.scope == Scope::Project {
        let _ = writeln!(
            out,
            "note: the project's trust_level in {} is left as it is (it may predate handover); remove it by hand if you want.",
            req.homes.codex_config().display()
        );
    }
    Ok(outcome)
}
