//! `handover write`: gathers the content from --from (JSON or Markdown) and the quick flags,
//! then hands it to `handover_core::write`.

use super::output::{stdout, warn};
use super::WriteArgs;
use anyhow::{bail, Context as _};
use handover_core::model::{Content, Decision, Handoff};
use handover_core::store::Store;
use handover_core::write::{self, Refusal, Request};
use handover_core::{config, markdown};
use serde_json::Value;
use std::io::Read;
use std::io::Write as _;
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

/// Fields the tool fills in: accepted in input (e.g. a state.json fed back) but replaced.
const TOOL_FIELDS: &[&str] = &[
    "schema_version",
    "id",
    "created_at",
    "agent",
    "session_id",
    "git",
    "files_changed",
    "files_changed_omitted",
    "files_changed_base",
    "checksum",
];

pub fn run(args: &WriteArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let config = config::load(store.root())?;
    let input = match &args.from {
        Some(path) => Some(read_input(path)?),
        None => None,
    };
    // Flag mistakes are reported before waiting for the lock.
    apply_flags(&mut Content::default(), args)?;
    let agent = super::detect_agent(args.agent.as_deref());
    let session_id = super::detect_session(args.session.as_deref());
    let recorded = writing_session_record(&store, agent.as_ref(), session_id.as_deref());
    let request = Request {
        content: input.clone().unwrap_or_default(),
        agent: agent.map(|a| a.to_string()),
        session_id,
        shared: args.shared,
        recorded,
    };
    // The goal of the handoff this write replaces (the build sees it under the lock).
    let previous_goal = std::cell::RefCell::new(None::<String>);
    let build = |current: Option<&Handoff>, given: Content| {
        *previous_goal.borrow_mut() = current.map(|h| h.content.goal.clone());
        let mut content = base_content(args, input.is_some(), current, given);
        apply_flags(&mut content, args)?;
        Ok(content)
    };
    match write::update(&store, request, &config, build) {
        Ok(outcome) => {
            if args.json {
                writeln!(
                    stdout(),
                    "{}",
                    serde_json::to_string_pretty(&summary_json(&outcome))?
                )?;
            } else {
                print_outcome(&outcome, &store, previous_goal.borrow().as_deref())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(Refusal::Invalid(findings, redactions)) => {
            warn(format_args!(
                "handover: the handoff was not written (nothing changed on disk):"
            ));
            for e in &findings.errors {
                warn(format_args!("  error: {e}"));
            }
            for w in &findings.warnings {
                warn(format_args!("  warning: {w}"));
            }
            if !redactions.is_empty() {
                warn(format_args!(
                    "  ({} secret(s) would have been redacted.)",
                    redactions.len()
                ));
            }
            Ok(ExitCode::from(1))
        }
        Err(Refusal::Failed(e)) => Err(e.context("the handoff was not written")),
    }
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
const MAX_INPUT_BYTES: u64 = handover_core::store::MAX_STATE_BYTES;

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
                Some(r) if r.what.starts_with("larger") => bail!(
                    "{name} is larger than {} MiB, not read: a handoff is a few KB of pointers, not contents",
                    MAX_INPUT_BYTES / (1024 * 1024)
                ),
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
    if !markdown_named && looks_like_json(text) {
        parse_json(text).with_context(|| format!("{name} (read as JSON)"))
    } else {
        markdown::parse(text).with_context(|| format!("{name} (read as the Markdown form)"))
    }
}

/// JSON of any shape (an object, but also `null`, an array, a number): those get a JSON error
/// ("expected a JSON object"), not a confusing Markdown one.
fn looks_like_json(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with(['{', '[', '"']) || serde_json::from_str::<Value>(t).is_ok()
}

fn read_capped(reader: impl Read, name: &str) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {name}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        bail!(
            "{name} is larger than {} MiB, not read: a handoff is a few KB of pointers, not contents",
            MAX_INPUT_BYTES / (1024 * 1024)
        );
    }
    Ok(bytes)
}

/// JSON input: lenient where people naturally differ (numbers and booleans in `environment` and
/// `evidence.measurements` become text), strict where a typo would silently lose a field.
pub fn parse_json(text: &str) -> anyhow::Result<Content> {
    let mut value: Value = serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "not valid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    let Some(obj) = value.as_object_mut() else {
        bail!("expected a JSON object such as {{\"goal\": \"...\"}}");
    };
    for key in TOOL_FIELDS {
        obj.remove(*key);
    }
    stringify_scalars(obj.get_mut("environment"));
    if let Some(ev) = obj.get_mut("evidence").and_then(Value::as_object_mut) {
        stringify_scalars(ev.get_mut("measurements"));
    }
    let content: Content = serde_json::from_value(value.clone()).map_err(|e| {
        let at = failing_path(&value, &mut Vec::new())
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        anyhow::anyhow!("{at}{e} (see docs/format.md or `handover write --help`)")
    })?;
    let parsed = serde_json::to_value(&content)?;
    let mut unknown = Vec::new();
    unknown_keys(&value, &parsed, "", &mut unknown);
    if !unknown.is_empty() {
        bail!(
            "unknown field(s): {} — check the spelling against docs/format.md (`handover write --help` lists the keys)",
            unknown.join(", ")
        );
    }
    Ok(content)
}

/// Where in `value` the handoff does not deserialize, as a field path (`status.in_progress`,
/// `decisions[1].why`): the deepest part that fails on its own, everything else left out.
/// serde_json's own error names only the expected type.
fn failing_path(value: &Value, at: &mut Vec<Step>) -> Option<String> {
    let children: Vec<(Step, &Value)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| (Step::Key(k.clone()), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (Step::Index(i), v))
            .collect(),
        _ => Vec::new(),
    };
    for (step, child) in children {
        at.push(step);
        if serde_json::from_value::<Content>(alone(at, child.clone())).is_err() {
            // A list or object where something else belongs: the field itself, not its parts.
            let empty = match child {
                Value::Object(_) => Some(Value::Object(Default::default())),
                Value::Array(_) => Some(Value::Array(Vec::new())),
                _ => None,
            };
            let container_wrong =
                empty.is_some_and(|e| serde_json::from_value::<Content>(alone(at, e)).is_err());
            let deeper = if container_wrong {
                None
            } else {
                failing_path(child, at)
            };
            let here = render_path(at);
            at.pop();
            return deeper.or(Some(here));
        }
        at.pop();
    }
    None
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// `leaf` at `path` in an otherwise empty handoff (an index becomes a one-element array).
fn alone(path: &[Step], leaf: Value) -> Value {
    path.iter().rev().fold(leaf, |inner, step| match step {
        Step::Key(k) => Value::Object([(k.clone(), inner)].into_iter().collect()),
        Step::Index(_) => Value::Array(vec![inner]),
    })
}

fn render_path(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

fn stringify_scalars(map: Option<&mut Value>) {
    if let Some(Value::Object(m)) = map {
        for v in m.values_mut() {
            if matches!(v, Value::Number(_) | Value::Bool(_)) {
                *v = Value::String(v.to_string());
            }
        }
    }
}

/// Keys in the input that did not survive deserialization: misspelled or misplaced fields.
fn unknown_keys(input: &Value, parsed: &Value, path: &str, out: &mut Vec<String>) {
    match (input, parsed) {
        (Value::Object(i), Value::Object(p)) => {
            for (k, v) in i {
                let here = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match p.get(k) {
                    Some(pv) => unknown_keys(v, pv, &here, out),
                    None if v.is_null() => {}
                    None => out.push(here),
                }
            }
        }
        (Value::Array(i), Value::Array(p)) => {
            for (n, (iv, pv)) in i.iter().zip(p).enumerate() {
                unknown_keys(iv, pv, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
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
    o: &write::Outcome,
    store: &Store,
    previous_goal: Option<&str>,
) -> std::io::Result<()> {
    let h = &o.handoff;
    writeln!(
        stdout(),
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
            writeln!(
                stdout(),
                "The goal changed: the handoff for {} was archived to {} (the journal keeps the history).",
                handover_core::sanitize::quote(before),
                archived.display()
            )?;
        }
    }
    if let Some(g) = &h.git {
        writeln!(
            stdout(),
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
            stdout(),
            "Not in a git repository: the next session cannot verify this handoff against git."
        )?;
    }
    if !o.filled_from_record.is_empty() {
        writeln!(
                stdout(),
            "Filled {} from this session's record (marked \"{}\"): facts the hooks recorded from the transcript.",
            o.filled_from_record.join(" and "),
            handover_core::record::fill::MARK
        )?;
    }
    if !o.redactions.is_empty() {
        let places: Vec<String> = o
            .redactions
            .iter()
            .map(|r| format!("{} ({})", r.field, r.kind))
            .collect();
        writeln!(
            stdout(),
            "Redacted {} secret(s): {}.",
            o.redactions.len(),
            places.join(", ")
        )?;
    }
    if let Some(kept) = &o.kept_markdown {
        writeln!(
                stdout(),
            "handover.md held words no handoff recorded (hand edits, or a file of yours): kept a copy at {} (`handover write --from {}` records them).",
            kept.display(),
            kept.display()
        )?;
    }
    for w in &o.findings.warnings {
        writeln!(stdout(), "warning: {w}")?;
    }
    if let Some((guard, changed)) = &o.guard {
        if *changed {
            writeln!(
                stdout(),
                "Added handover.md and .handover/ to {} (handoffs are private, no tracked file changes; --shared skips this).",
                handover_core::guard::label(store.root())
            )?;
        }
        if !guard.tracked.is_empty() {
            writeln!(
                stdout(),
                "warning: git already tracks {}; they stay tracked (run `git rm --cached` on them to make them private).",
                guard.tracked.join(", ")
            )?;
        }
    }
    Ok(())
}

/// The record of the session writing this handoff, identified for sure: by the session id
/// given (`--session`, `HANDOVER_SESSION_ID`) or set by the client for the commands it runs
/// (`super::client_session_id`). Without one there is no record: the newest record may be
/// another agent's. The record must be this working tree's own (record::provenance), of the
/// same agent when the agent is known, and of a session that has not ended; files it edited
/// that no longer exist are left out.
fn writing_session_record(
    store: &Store,
    agent: Option<&handover_clients::AgentName>,
    session_id: Option<&str>,
) -> Option<handover_core::record::SessionRecord> {
    let sid = session_id
        .map(str::to_string)
        .or_else(|| super::client_session_id(agent))?;
    let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
    let mut record = handover_core::record::files::load_own(store, &sid, now_ms)?;
    let ended = record
        .ended
        .as_ref()
        .is_some_and(|e| e.how == "session_end");
    let other_agent = agent
        .is_some_and(|a| record.agent != handover_core::record::untrusted(a.as_str(), 20).as_str());
    if ended || other_agent {
        return None;
    }
    let root = store.root();
    record.files_edited.retain(|f| still_exists(root, f));
    Some(record)
}

/// A repository-relative path that names something in the working tree now (looked at without
/// following a link). Absolute paths and `..` are never looked at.
fn still_exists(root: &Path, rel: &str) -> bool {
    let path = Path::new(rel);
    !path.is_absolute()
        && !path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        && std::fs::symlink_metadata(root.join(path)).is_ok()
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
