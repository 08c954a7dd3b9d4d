//! `handover push`, `handover pull`, `handover share`: handoffs that travel through the
//! repository's own git remote (the work is `handover_core::travel`).

use super::output::{stdout, warn, JSON_VERSION};
use super::{plural, PullArgs, PushArgs, ShareArgs};
use handover_base::shell::shell_quote;
use handover_core::travel::changes::Going;
use handover_core::travel::{self, PushError};
use handover_handoff::config;
use handover_handoff::sanitize::{one_line, quote, quote_within};
use handover_handoff::store::Store;
use handover_verify as verify;
use serde_json::{json, Value};
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

pub fn push(args: &PushArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    // The setting decides when neither switch is given; a config file that does not parse is
    // an error only when the setting is asked for.
    let with_changes = if args.with_changes {
        true
    } else if args.without_changes {
        false
    } else {
        config::load(store.root())?.travel_with_changes
    };
    let options = travel::PushOptions {
        remote: args.remote.as_deref(),
        force: args.force,
        with_changes,
    };
    let json = args.json;
    // What goes is shown before it leaves (on stdout; with --json, in the object).
    let mut show = |files: &[Going]| {
        if json || files.is_empty() {
            return;
        }
        let total: u64 = files.iter().map(|f| f.size).sum();
        let _ = writeln!(
            stdout(),
            "The uncommitted work that goes with the handoff ({}, {total} bytes):",
            plural(files.len(), "file")
        );
        for f in files {
            let _ = writeln!(
                stdout(),
                "  {} {} ({} bytes)",
                f.change.as_str(),
                quote(&f.path),
                f.size
            );
        }
    };
    match travel::push(&store, &options, &mut show) {
        Ok(p) if json => {
            let value = json!({
                "version": JSON_VERSION,
                "pushed": true,
                "remote": p.remote,
                "branch": p.branch,
                "ref": travel::names::published_ref(&p.branch),
                "commit": p.commit,
                "with_record": p.with_record,
                "replaced": p.replaced,
                "head_not_on_remote": p.head_not_on_remote,
                "redacted_fields": p.redactions.iter().map(|r| r.field.as_str()).collect::<Vec<_>>(),
                "changes": p.changes,
                "stayed": p.stayed,
            });
            writeln!(stdout(), "{}", serde_json::to_string_pretty(&value)?)?;
            Ok(ExitCode::SUCCESS)
        }
        Ok(p) => {
            writeln!(
                stdout(),
                "Pushed the handoff for branch {} to {} (ref {}, commit {}){}.",
                quote(&p.branch),
                quote(&p.remote),
                quote(&travel::names::published_ref(&p.branch)),
                short(&p.commit),
                if p.with_record {
                    ", with the branch's newest session record"
                } else {
                    ""
                }
            )?;
            match &p.changes {
                Some(files) if files.is_empty() => writeln!(
                    stdout(),
                    "There was no uncommitted work to carry: the handoff's commit is the whole state."
                )?,
                Some(files) => writeln!(
                    stdout(),
                    "The uncommitted work went with it ({}): on the other machine, `handover pull --adopt --apply` puts it into the working tree.",
                    plural(files.len(), "file")
                )?,
                None => {}
            }
            if !p.stayed.is_empty() {
                writeln!(stdout(), "{}", stays_here(&p.stayed))?;
            }
            if let Some(head) = &p.head_not_on_remote {
                writeln!(
                    stdout(),
                    "Note: the handoff was written at commit {}, which branch {} of {} does not have yet: push the code too (`git push {} {}`), or the other machine cannot check the handoff against it.",
                    short(head),
                    quote(&p.branch),
                    quote(&p.remote),
                    shell_quote(&p.remote),
                    shell_quote(&p.branch)
                )?;
            }
            if let Some(old) = &p.replaced {
                writeln!(
                    stdout(),
                    "It replaced the remote handoff {} (kept as its parent in the ref's history).",
                    short(old)
                )?;
            }
            if !p.redactions.is_empty() {
                let mut fields: Vec<&str> = p.redactions.iter().map(|r| r.field.as_str()).collect();
                fields.dedup();
                writeln!(
                    stdout(),
                    "Redacted {} secret(s) at push time that the local handoff still held, in: {}.",
                    p.redactions.len(),
                    fields.join(", ")
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ PushError::Conflict { .. }) => {
            warn(format_args!("handover: {e}"));
            Ok(ExitCode::from(1))
        }
        Err(PushError::Failed(e)) => Err(e),
    }
}

/// "3 uncommitted files stay on this machine (a, b, …): commit and push them, or use
/// --with-changes".
fn stays_here(files: &[Going]) -> String {
    const SHOWN: usize = 5;
    let mut names: Vec<String> = files.iter().take(SHOWN).map(|f| quote(&f.path)).collect();
    if files.len() > SHOWN {
        names.push("…".into());
    }
    format!(
        "{} uncommitted {} on this machine ({}): commit and push {}, or use --with-changes.",
        files.len(),
        if files.len() == 1 {
            "file stays"
        } else {
            "files stay"
        },
        names.join(", "),
        if files.len() == 1 { "it" } else { "them" }
    )
}

pub fn pull(args: &PullArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let pulled = travel::pull(&store, args.remote.as_deref(), args.adopt, args.apply)?;
    if args.json {
        let fetched = match &pulled.fetched {
            None => Value::Null,
            Some(Err(problem)) => json!({"usable": false, "problem": one_line(problem)}),
            Some(Ok(f)) => {
                let here = travel::fetched::as_checked_here(store.root(), f);
                let v = verify::verify(store.root(), &here);
                json!({
                    "usable": true,
                    "id": f.handoff.id,
                    "commit": f.commit,
                    "machine": f.origin.machine,
                    "pushed_at": f.origin.pushed_at,
                    "goal": f.handoff.content.goal,
                    "verdict": v.verdict.as_str(),
                    "reasons": v.reasons,
                    "changes": f.changes.as_ref().map(|m| &m.files),
                })
            }
        };
        let value = json!({
            "version": JSON_VERSION,
            "remote": pulled.remote,
            "branch": pulled.branch,
            "fetched": fetched,
            "adopted": pulled.adopted.is_some(),
            "archived": pulled.adopted.as_ref().and_then(|a| a.archived.as_ref()).map(|p| p.display().to_string()),
            "applied": pulled.applied.as_ref().map(|a| &a.files),
        });
        writeln!(stdout(), "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(branch) = pulled.branch.as_deref() else {
        writeln!(
            stdout(),
            "Fetched the handoffs of {}. HEAD is detached: handoffs are per branch, so check out a branch to use one.",
            quote(&pulled.remote)
        )?;
        return Ok(ExitCode::SUCCESS);
    };
    let remote = quote(&pulled.remote);
    let branch = quote(branch);
    match &pulled.fetched {
        None => writeln!(
            stdout(),
            "Fetched the handoffs of {remote}; it has none for branch {branch}."
        )?,
        Some(Err(problem)) => writeln!(
            stdout(),
            "Fetched the handoffs of {remote}; the one for branch {branch} cannot be used: {}.",
            one_line(problem)
        )?,
        Some(Ok(f)) => {
            let here = travel::fetched::as_checked_here(store.root(), f);
            let v = verify::verify(store.root(), &here);
            writeln!(
                stdout(),
                "Fetched the handoff for branch {branch} ({}). Verdict against this checkout: {}.",
                f.label(),
                v.verdict.as_str()
            )?;
            writeln!(
                stdout(),
                "Goal (data from the remote): {}",
                quote_within(&f.handoff.content.goal, 200)
            )?;
            if let Some(applied) = &pulled.applied {
                writeln!(
                    stdout(),
                    "Applied the uncommitted work that travelled with it ({}; the index is untouched):",
                    plural(applied.files.len(), "file")
                )?;
                for file in &applied.files {
                    let note = if applied.already.contains(&file.path) {
                        ", already so here"
                    } else {
                        ""
                    };
                    writeln!(
                        stdout(),
                        "  {} {}{note}",
                        file.change.as_str(),
                        quote(&file.path)
                    )?;
                }
            } else if let Some(m) = &f.changes {
                writeln!(
                    stdout(),
                    "Its uncommitted work travelled with it ({}): `handover pull --adopt --apply` puts it into this working tree.",
                    plural(m.files.len(), "file")
                )?;
                // The remote's list (the files applied are read from the commits, and listed
                // again then).
                const SHOWN: usize = 20;
                for file in m.files.iter().take(SHOWN) {
                    writeln!(
                        stdout(),
                        "  {} {} ({} bytes)",
                        file.change.as_str(),
                        quote(&file.path),
                        file.size
                    )?;
                }
                if m.files.len() > SHOWN {
                    writeln!(stdout(), "  … and {} more", m.files.len() - SHOWN)?;
                }
            }
            match &pulled.adopted {
                Some(saved) => {
                    writeln!(stdout(), "Adopted: it is now this working tree's handoff (handover.md, .handover/state.json).")?;
                    if let Some(a) = &saved.archived {
                        writeln!(stdout(), "The previous local handoff was archived to {}.", a.display())?;
                    }
                }
                None => writeln!(
                stdout(),
                    "A new session here gets it when there is no local handoff or it is newer; `handover boot` shows it, `handover pull --adopt` makes it local."
                )?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn share(args: &ShareArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let plan = travel::share_plan(store.root(), args.remote.as_deref(), args.off)?;
    if args.json {
        // No question on a JSON stream: the change is made with --yes only.
        let apply = args.yes && !plan.unchanged;
        if apply {
            travel::share_apply(store.root(), &plan)?;
        }
        let value = json!({
            "version": JSON_VERSION,
            "remote": plan.remote,
            "refspec": plan.refspec,
            "add": plan.add,
            "unchanged": plan.unchanged,
            "applied": apply,
        });
        writeln!(stdout(), "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::from(if plan.unchanged || apply { 0 } else { 1 }));
    }
    if plan.unchanged {
        writeln!(
            stdout(),
            "Nothing to change: `git fetch {}` {} handoffs already.",
            shell_quote(&plan.remote),
            if plan.add {
                "fetches"
            } else {
                "does not fetch"
            }
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(stdout(), "{}", plan.diff())?;
    if !args.yes {
        let off = if args.off { " --off" } else { "" };
        if !std::io::stdin().is_terminal() {
            warn(format_args!("handover: nothing changed: confirm with `handover share{off} --yes` to apply this change."));
            return Ok(ExitCode::from(1));
        }
        // The change and the question would go to a silenced stdout: a prompt nobody sees.
        if super::output::is_quiet() {
            warn(format_args!("handover: nothing changed: --quiet hides the change and the question; run `handover share{off}` without --quiet to see and confirm it, or add --yes to apply it."));
            return Ok(ExitCode::from(1));
        }
        write!(stdout(), "Apply this change? [y/N] ")?;
        stdout().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            writeln!(stdout(), "Nothing changed.")?;
            return Ok(ExitCode::from(1));
        }
    }
    travel::share_apply(store.root(), &plan)?;
    if plan.add {
        writeln!(
                stdout(),
            "Done: `git fetch {}` and `git pull` now also bring the handoffs pushed to {}; `handover share --off` undoes it.",
            shell_quote(&plan.remote),
            quote(&plan.remote)
        )?;
    } else {
        writeln!(
            stdout(),
            "Done: `git fetch {}` no longer brings handoffs.",
            shell_quote(&plan.remote)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
