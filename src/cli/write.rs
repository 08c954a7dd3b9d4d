//! `handover write`: gathers the content from --from (JSON or Markdown) and the quick flags,
//! then hands it to `handover_core::write`.

use super::output::{stdout, warn};
use super::WriteArgs;
use anyhow::{bail, Context as _};
use handover_core::write::{self, Refusal, Request};
use handover_handoff::model::{Content, Decision, Handoff};
use handover_handoff::store::Store;
use handover_handoff::validate::Findings;
use handover_handoff::{config, json_form, markdown};
use handover_record::writer::Writer;
use serde_json::Value;
use std::io::Read;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub const AFTER_HELP: &str = "\
Input forms:
  handover write --from state.json         JSON (keys in docs/format.md; only `goal` is required)
  echo '{\"goal\": \"...\"}' | handover write --from -
  handover write --from handover.md        the Markdown form, e.g. after editing handover.md
  handover write --goal \"...\" --next \"...\" --decision \"use X :: because Y\"

Without --from, flags update the current handoff (lists grow, single values are replaced);
a different --goal, or --fresh, starts a new one. Secrets are redacted before anything is written.
JSON keys: goal, narrative, spec_ref, status {completed, in_progress, pending}, decisions
[{what, why, alternatives, reversible, deferred}], assumptions [{assumption, why, impact_if_wrong}],
blockers, warnings, important_files [{path, why}], evidence {commands_run, measurements, artifacts},
environment {..}, next_action, priorities [{task, urgency: first|primary|after_primary|if_time_permits}],
stop_conditions, kind (standard|heavy), plan {work_items, key_interfaces, dependencies, test_strategy}.";

pub fn run(args: &WriteArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let config = config::load(store.root())?;
    let input = match &args.from {
        Some(path) => Some(read_input(path)?),
        None => None,
    };
    // Flag mistakes are reported before waiting for the lock.
    apply_flags(&mut Content::default(), args)?;
    let (result, previous_goal) = perform(args, &store, &config, input);
    match result {
        Ok(outcome) => {
            if args.json {
                writeln!(
                    stdout(),
                    "{}",
                    serde_json::to_string_pretty(&summary_json(&outcome))?
                )?;
            } else {
                print_outcome(&mut stdout(), &outcome, &store, previous_goal.as_deref())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(Refusal::Invalid(findings, redactions)) => {
            for line in refusal_lines(&findings, redactions.len()) {
                warn(format_args!("{line}"));
            }
            Ok(ExitCode::from(1))
        }
        Err(Refusal::Failed(e)) => Err(e.context("the handoff was not written")),
    }
}

/// The MCP server's `handover_save`: the JSON input form (`json_form`, as `write --from -`
/// reads it), written by the same path with the same redaction. Ok: what `write` prints;
/// Err: why nothing was written, a field error naming the field and the fix.
pub fn from_json(dir: &Path, text: &str) -> anyhow::Result<String> {
    let store = Store::discover(dir);
    // The cap of `--from`: an MCP message may be far larger (16 MiB).
    if text.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large("the handoff"));
    }
    let config = config::load(store.root())?;
    let content = json_form::parse(text)?;
    let args = WriteArgs::default();
    let (result, previous_goal) = perform(&args, &store, &config, Some(content));
    match result {
        Ok(outcome) => {
            let mut text = Vec::new();
            print_outcome(&mut text, &outcome, &store, previous_goal.as_deref())?;
            Ok(String::from_utf8_lossy(&text).trim_end().to_string())
        }
        Err(Refusal::Invalid(findings, redactions)) => {
            bail!("{}", refusal_lines(&findings, redactions.len()).join("\n"))
        }
        Err(Refusal::Failed(e)) => Err(e.context("the handoff was not written")),
    }
}

/// One write: `input` (the --from content, if any) with the flags applied, under the store's
/// lock. Also returns the goal of the handoff it replaced (the build sees it under the lock).
fn perform(
    args: &WriteArgs,
    store: &Store,
    config: &config::Config,
    input: Option<Content>,
) -> (Result<write::Outcome, Refusal>, Option<String>) {
    // What the flags make of the content, built under the lock from the current handoff.
    let from_input = input.is_some();
    let previous_goal = std::cell::RefCell::new(None::<String>);
    let build = |current: Option<&Handoff>, given: Content| {
        *previous_goal.borrow_mut() = current.map(|h| h.content.goal.clone());
        let mut content = base_content(args, from_input, current, given);
        apply_flags(&mut content, args)?;
        Ok(content)
    };
    // Who writes it, and the record of their session (found by the session id given, else the
    // one the client set for its shell; the handoff itself names only a session id the caller
    // gave).
    let writer = Writer::identify(args.agent.as_deref(), args.session.as_deref());
    let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
    let recorded = writer.record(store, now_ms);
    let request = Request {
        content: input.unwrap_or_default(),
        agent: writer.agent.map(|a| a.to_string()),
        session_id: writer.session_id,
        shared: args.shared,
        recorded,
    };
    let result = write::update(store, request, config, build);
    (result, previous_goal.into_inner())
}

/// Why the content was refused, one line each: the errors (each names its field and the fix),
/// the warnings, and how many secrets would have been redacted.
fn refusal_lines(findings: &Findings, redactions: usize) -> Vec<String> {
    let mut lines =
        vec!["handover: the handoff was not written (nothing changed on disk):".to_string()];
    lines.extend(findings.errors.iter().map(|e| format!("  error: {e}")));
    lines.extend(findings.warnings.iter().map(|w| format!("  warning: {w}")));
    if redactions > 0 {
        lines.push(format!(
            "  ({redactions} secret(s) would have been redacted.)"
        ));
    }
    lines
}

/// What the flags apply to: the --from input; else an empty handoff with --fresh or a new goal;
/// else the current handoff (read under the store's lock, so concurrent updates add up).
fn base_content(
    args: &WriteArgs,
    from_input: bool,
    current: Option<&Handoff>,
    given: Content,
) -> Content {
    if from_input || args.fresh {
        return given;
    }
    match current {
        Some(h) if args.goal.as_deref().is_none_or(|g| g == h.content.goal) => h.content.clone(),
        _ => Content::default(),
    }
}

/// Inputs larger than this are refused unread: a handoff is a few KB of pointers (the stored
/// form has the same limit), and `--from /dev/zero` must not read until memory runs out.
const MAX_INPUT_BYTES: u64 = handover_handoff::store::MAX_STATE_BYTES;

fn read_input(path: &Path) -> anyhow::Result<Content> {
    let (name, bytes) = if path == Path::new("-") {
        let bytes = read_capped(std::io::stdin().lock(), "standard input")?;
        ("standard input".to_string(), bytes)
    } else {
        let name = path.display().to_string();
        // The read gate: a FIFO or device is refused without blocking, and no more than the
        // cap is read (the user named the file, so a link is followed to a regular file).
        let gated = handover_base::read_gate::read(
            path,
            handover_base::read_gate::Links::Follow,
            MAX_INPUT_BYTES,
        );
        let bytes = match gated {
            Ok(Some(bytes)) => bytes,
            Ok(None) => bail!(
                "cannot read {name}: no such file; check the path (use `--from -` for standard input)"
            ),
            Err(e) => match handover_base::read_gate::rejection(&e) {
                Some(r) if r.what.starts_with("larger") => return Err(too_large(&name)),
                Some(_) => bail!("{e}: name a regular file (or `--from -` for standard input)"),
                None => {
                    return Err(e).with_context(|| {
                        format!("cannot read {name}: check the path (use `--from -` for standard input)")
                    })
                }
            },
        };
        (name, bytes)
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name} is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    // A byte order mark is invisible in editors; it is not part of the text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let markdown_named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    if !markdown_named && json_form::looks_like_json(text) {
        json_form::parse(text).with_context(|| format!("{name} (read as JSON)"))
    } else {
        markdown::parse(text).with_context(|| format!("{name} (read as the Markdown form)"))
    }
}

fn read_capped(reader: impl Read, name: &str) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {name}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large(name));
    }
    Ok(bytes)
}

/// Input over [`MAX_INPUT_BYTES`], named.
fn too_large(name: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{name} is larger than {} MiB, not read: a handoff is a few KB of pointers, not contents",
        MAX_INPUT_BYTES / (1024 * 1024)
    )
}

fn apply_flags(c: &mut Content, a: &WriteArgs) -> anyhow::Result<()> {
    if let Some(g) = &a.goal {
        c.goal = g.clone();
    }
    if let Some(n) = &a.next_action {
        c.next_action = Some(n.clone());
    }
    if let Some(s) = &a.spec_ref {
        c.spec_ref = Some(s.clone());
    }
    if let Some(n) = &a.narrative {
        c.narrative = Some(n.clone());
    }
    // An item completed now is no longer in progress or pending.
    for item in &a.completed {
        c.status.in_progress.retain(|i| i != item);
        c.status.pending.retain(|i| i != item);
    }
    extend_unique(&mut c.status.completed, &a.completed);
    extend_unique(&mut c.status.in_progress, &a.in_progress);
    extend_unique(&mut c.status.pending, &a.pending);
    extend_unique(&mut c.blockers, &a.blocker);
    extend_unique(&mut c.warnings, &a.warning);
    extend_unique(&mut c.stop_conditions, &a.stop_if);
    extend_unique(&mut c.evidence.commands_run, &a.ran);
    extend_unique(&mut c.evidence.artifacts, &a.artifact);
    for d in &a.decision {
        let Some((what, why)) = d
            .split_once("::")
            .filter(|(what, _)| !what.trim().is_empty())
        else {
            bail!("--decision {d:?}: write it as \"what :: why\", both parts filled in (the reason is what the next session needs)");
        };
        c.decisions.push(Decision {
            what: what.trim().to_string(),
            why: why.trim().to_string(),
            ..Decision::default()
        });
    }
    Ok(())
}

fn extend_unique(list: &mut Vec<String>, items: &[String]) {
    for i in items {
        if !list.contains(i) {
            list.push(i.clone());
        }
    }
}

fn print_outcome(
    out: &mut dyn Write,
    o: &write::Outcome,
    store: &Store,
    previous_goal: Option<&str>,
) -> std::io::Result<()> {
    let h = &o.handoff;
    writeln!(
        out,
        "Wrote handoff {} ({}, ~{} of {} tokens): handover.md and .handover/state.json in {}",
        h.id,
        h.content.kind.as_str(),
        o.findings.estimated_tokens,
        o.findings.budget_tokens,
        store.root().display()
    )?;
    // Every write archives the version it replaces; a new goal is worth saying: the previous
    // task's handoff is no longer the current one.
    if let (Some(archived), Some(before)) = (&o.archived, previous_goal) {
        if before != o.handoff.content.goal {
            writeln!(out,
                "The goal changed: the handoff for {} was archived to {} (the journal keeps the history).",
                handover_handoff::sanitize::quote(before),
                archived.display()
            )?;
        }
    }
    if let Some(g) = &h.git {
        writeln!(
            out,
            "Recorded branch {} at {}; {} file(s) changed since {}.",
            g.branch.as_deref().unwrap_or("(detached)"),
            g.head.as_deref().map(short).unwrap_or("(no commits)"),
            h.files_changed.len() + h.files_changed_omitted,
            h.files_changed_base
                .as_deref()
                .map(short)
                .unwrap_or("the start")
        )?;
    } else {
        writeln!(
            out,
            "Not in a git repository: the next session cannot verify this handoff against git."
        )?;
    }
    if !o.filled_from_record.is_empty() {
        writeln!(out,
            "Filled {} from this session's record (marked \"{}\"): facts the hooks recorded from the transcript.",
            o.filled_from_record.join(" and "),
            handover_record::fill::MARK
        )?;
    }
    if !o.redactions.is_empty() {
        let places: Vec<String> = o
            .redactions
            .iter()
            .map(|r| format!("{} ({})", r.field, r.kind))
            .collect();
        writeln!(
            out,
            "Redacted {} secret(s): {}.",
            o.redactions.len(),
            places.join(", ")
        )?;
    }
    if let Some(kept) = &o.kept_markdown {
        writeln!(out,
            "handover.md held words no handoff recorded (hand edits, or a file of yours): kept a copy at {} (`handover write --from {}` records them).",
            kept.display(),
            kept.display()
        )?;
    }
    for w in &o.findings.warnings {
        writeln!(out, "warning: {w}")?;
    }
    if let Some((guard, changed)) = &o.guard {
        if *changed {
            writeln!(out,
                "Added handover.md and .handover/ to {} (handoffs are private, no tracked file changes; --shared skips this).",
                handover_core::guard::label(store.root())
            )?;
        }
        if !guard.tracked.is_empty() {
            writeln!(out,
                "warning: git already tracks {}; they stay tracked (run `git rm --cached` on them to make them private).",
                guard.tracked.join(", ")
            )?;
        }
    }
    Ok(())
}

fn summary_json(o: &write::Outcome) -> Value {
    serde_json::json!({
        "version": super::output::JSON_VERSION,
        "id": o.handoff.id,
        "estimated_tokens": o.findings.estimated_tokens,
        "budget_tokens": o.findings.budget_tokens,
        "warnings": o.findings.warnings,
        "redactions": o.redactions.iter().map(|r| serde_json::json!({"field": r.field, "kind": r.kind})).collect::<Vec<_>>(),
        "gitignore_changed": o.guard.as_ref().map(|g| g.1),
        "tracked_handoff_files": o.guard.as_ref().map(|g| g.0.tracked.clone()).unwrap_or_default(),
        // Lossy: JSON strings are UTF-8, paths need not be.
        "archived": o.archived.as_ref().map(|p| p.to_string_lossy()),
        "kept_markdown": o.kept_markdown.as_ref().map(|p| p.to_string_lossy()),
        "filled_from_record": o.filled_from_record,
    })
}

/// The first seven characters (by character: an id read from a file may hold any).
pub fn short(id: &str) -> &str {
    id.char_indices().nth(7).map_or(id, |(end, _)| &id[..end])
}
