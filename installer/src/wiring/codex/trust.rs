//! Codex's step of an install, after the files: trusting exactly our hooks through `codex
//! app-server` (`--trust`; else the manual steps are printed), with config.toml backed up first
//! and its line endings kept; and `handover trust-plugin`, the same for the plugin's hooks.

use super::app_server::{self, TrustOutcome, TrustRequest, TrustStatus};
use super::config;
use crate::apply::backup::{self, Backups};
use crate::apply::preflight::{self, Access};
use crate::edit::file_edit::FileEdit;
use crate::files::{self, Homes};
use crate::locate::is_executable;
use crate::report::Outcome;
use crate::wiring::InstallOptions;
use handover_clients::Agent;
use handover_clients::Scope;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What Codex's step needs of an install run.
#[derive(Clone, Copy, Debug)]
pub struct TrustStep<'a> {
    pub repo: &'a Path,
    pub homes: &'a Homes,
    pub options: &'a InstallOptions,
    /// `--codex-bin`, else `codex` found on PATH by the caller (None: not available).
    pub codex_bin: Option<&'a Path>,
    pub dry_run: bool,
    /// Bound on the whole `codex app-server` conversation.
    pub timeout: Duration,
}

/// The config.toml Codex rewrites when it trusts our hooks: checked before the first write.
pub fn preflight(req: &TrustStep) -> Result<(), crate::EditError> {
    if req.options.trust && req.options.targets.contains(Agent::Codex) {
        preflight::check_file(&config::config_path(req.homes), Access::Write, None)?;
    }
    Ok(())
}

/// `--trust` needs Codex: checked before anything is written, so a missing `codex` costs nothing.
pub fn check_trust_prerequisites(req: &TrustStep) -> Result<(), crate::EditError> {
    if !(req.options.trust && req.options.targets.contains(Agent::Codex)) {
        return Ok(());
    }
    if req.codex_bin.is_some_and(is_executable) {
        return Ok(());
    }
    let what = match req.codex_bin {
        Some(b) => format!("{} is not an executable file", b.display()),
        None => "`codex` is not on PATH".to_string(),
    };
    Err(crate::EditError::new(
        req.codex_bin
            .map_or_else(|| PathBuf::from("codex"), Path::to_path_buf),
        format!(
            "--trust needs Codex, and {what}; nothing was written. Install Codex (or pass --codex-bin PATH), or run without --trust and follow the steps it prints"
        ),
    ))
}

/// Codex in the install: trust our hooks (`--trust`), or print how to.
///
/// `edits` and `backups` are the run's plan: a config.toml it created holds nothing of the
/// user's to back up.
pub fn trust_step(
    req: &TrustStep,
    edits: &[FileEdit],
    backups: &Backups,
    outcome: &mut Outcome,
    out: &mut dyn Write,
) {
    if !req.options.targets.contains(Agent::Codex) {
        return;
    }
    let hooks_json = files::hooks_path(Agent::Codex, req.options.scope, req.repo, req.homes);
    let cfg = config::config_path(req.homes);
    let project = (req.options.scope != Scope::User).then_some(req.repo);
    let manual_steps = |out: &mut dyn Write| {
        let _ = write!(
            out,
            "{}",
            app_server::manual_steps(&cfg, project, &hooks_json)
        );
    };
    if !req.options.trust {
        manual_steps(out);
        return;
    }
    // check_trust_prerequisites made sure it is there.
    let Some(bin) = req.codex_bin else {
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
    let created_now = edits
        .iter()
        .any(|e| e.path == cfg && e.before.is_none() && e.after.is_some())
        && !req.dry_run;
    if let Some(text) = cfg_text.as_ref().filter(|_| !created_now) {
        if !back_up_codex_config(backups, &cfg, text, outcome, out) {
            return;
        }
    }
    let tr = TrustRequest {
        codex_bin: bin.to_path_buf(),
        codex_home: req.homes.user_dir(&handover_clients::codex::CLIENT),
        home: req.homes.home.clone(),
        project: req.repo.to_path_buf(),
        hooks_json: hooks_json.clone(),
        commands: req
            .options
            .wanted(Agent::Codex)
            .into_iter()
            .map(|w| w.command)
            .collect(),
        timeout: req.timeout,
    };
    let trusted = app_server::trust_our_hooks(&tr);
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
    backups: &Backups,
    cfg: &Path,
    text: &str,
    outcome: &mut Outcome,
    out: &mut dyn Write,
) -> bool {
    if backups.hold(cfg, text, |t| config::user_part(cfg, t)) {
        return true;
    }
    match backups.make(cfg, &backup::stamp(), text.as_bytes()) {
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
/// (app_server::plugin_hooks), the config backed up first as for `install --trust`. Running
/// the command is the user's consent, as `--trust` is.
pub fn trust_plugin(req: &PluginTrustRequest, out: &mut dyn Write) -> Outcome {
    let mut outcome = Outcome {
        ok: true,
        ..Default::default()
    };
    let cfg = config::config_path(&req.homes);
    let backups = Backups::new(&req.homes.backups);
    let cfg_text = files::read_opt(&cfg).ok().flatten();
    if let Some(text) = &cfg_text {
        if !back_up_codex_config(&backups, &cfg, text, &mut outcome, out) {
            return outcome;
        }
    }
    let tr = TrustRequest {
        codex_bin: req.codex_bin.clone(),
        codex_home: req.homes.user_dir(&handover_clients::codex::CLIENT),
        home: req.homes.home.clone(),
        project: req.cwd.clone(),
        hooks_json: PathBuf::new(),
        commands: Vec::new(),
        timeout: req.timeout,
    };
    let trusted = app_server::trust_plugin_hooks(&tr);
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
    let fixed = config::in_endings_of(before, now.clone());
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
