//! `handover push`, `handover pull`, `handover share`: handoffs that travel through the
//! repository's own git remote (the work is `handover_core::travel`).

use super::output::{stdout, warn};
use super::{PullArgs, PushArgs, ShareArgs};
use handover_base::shell::shell_quote;
use handover_core::sanitize::{one_line, quote, quote_within};
use handover_core::store::Store;
use handover_core::travel::{self, PushError};
use handover_core::verify;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

pub fn push(args: &PushArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    match travel::push(&store, args.remote.as_deref(), args.force) {
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

pub fn pull(args: &PullArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let pulled = travel::pull(&store, args.remote.as_deref(), args.adopt)?;
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
            let here = travel::fetched::as_checked_here(store.root(), &f.handoff);
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
