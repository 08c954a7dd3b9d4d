//! `handover-pre-compact`: PreCompact and PostCompact in both clients.
//! PreCompact journals a factual snapshot and, for Claude Code only, prints instructions that
//! Claude Code adds to the summarizer's prompt (Codex accepts no output there). It never
//! blocks a compaction. PostCompact journals Claude Code's summary and arms the one-time
//! re-injection that the context watch delivers if SessionStart `compact` does not.

use crate::call::Call;
use crate::never_fail::Outcome;
use crate::output::Response;
use handover_base::Agent;
use handover_core::model::Handoff;
use handover_core::store::Event;
use handover_core::store::{LoadOutcome, Store};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The diff against the handoff's HEAD walks the working tree; on a huge repository it is
/// given up after this long rather than delay the compaction.
const FILES_CHANGED_LIMIT: Duration = Duration::from_millis(800);
/// Longest summary kept in the journal.
const SUMMARY_MAX_CHARS: usize = 20_000;
/// Without a PreCompact record, a compact delivery this recent counts as this compaction's.
const RECENT_DELIVERY_MS: u64 = 120_000;

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    match call.input.hook_event_name.as_deref() {
        Some("PreCompact") => pre_compact(call),
        Some("PostCompact") => post_compact(call),
        other => Ok(Outcome::silent(format!(
            "not a compaction event: {}",
            other.unwrap_or("none")
        ))),
    }
}

fn pre_compact(call: &Call) -> anyhow::Result<Outcome> {
    let handoff = call.store.as_ref().and_then(|s| match s.load() {
        LoadOutcome::Loaded(l) => Some(l.handoff),
        _ => None,
    });
    let mut notes = Vec::new();
    if let Some(store) = &call.store {
        if let Some(e) = call.journal(Event::PreCompact, snapshot(call, store, handoff.as_ref())) {
            notes.push(e);
        }
        if let Some((file, loaded)) = call.session() {
            if store.dir().is_dir() {
                let mut st = loaded.state;
                st.pre_compact_ms = Some(call.now_ms);
                if let Err(e) = file.save(&st) {
                    notes.push(format!("state not saved: {e}"));
                }
            }
        }
    }
    let response = match call.agent {
        Agent::Claude => Response::Plain(handover_core::context::compaction_instructions(
            handoff.as_ref(),
            &call.command,
        )),
        // Codex accepts no context from PreCompact.
        Agent::Codex => Response::Silent,
    };
    notes.push(format!("handoff={}", handoff.is_some()));
    Ok(Outcome::new(response, notes.join(" ")))
}

/// The facts worth having when a session later wonders what the compaction lost: trigger,
/// branch and HEAD (read without scanning the working tree), the files changed since the
/// handoff when that is quick, the transcript.
fn snapshot(call: &Call, store: &Store, handoff: Option<&Handoff>) -> Value {
    let (branch, head) = head_of(store.root());
    let handoff_head = handoff
        .and_then(|h| h.git.as_ref())
        .and_then(|g| g.head.clone());
    let files_changed = handoff_head
        .as_deref()
        .map(|base| files_changed_within(store.root().to_path_buf(), base.to_string()));
    json!({
        "trigger": call.input.trigger,
        "transcript_path": call.input.transcript_path,
        "git": {"branch": branch, "head": head},
        "handoff_id": handoff.map(|h| h.id.clone()),
        "handoff_head": handoff_head,
        "files_changed_since_handoff": files_changed.unwrap_or(Value::Null),
    })
}

/// Branch and HEAD commit, read from the files under `.git` (libgit2 only for layouts that
/// reader does not handle); Nones when there is no repository or no commit.
fn head_of(root: &Path) -> (Option<String>, Option<String>) {
    let info = handover_core::git::read_head_files(root).or_else(|| {
        let repo = handover_core::git::open(root).ok().flatten()?;
        handover_core::git::head_info(&repo).ok()
    });
    match info {
        Some(i) => (i.branch, i.head),
        None => (None, None),
    }
}

/// `[{"path", "change"}]`, or a string saying why not (too slow, or git failed).
fn files_changed_within(root: PathBuf, base: String) -> Value {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().spawn(move || {
        let result =
            std::panic::catch_unwind(|| handover_core::git::files_changed(&root, Some(&base)));
        let _ = tx.send(result);
    });
    if spawned.is_err() {
        return Value::String("not computed: no thread available".into());
    }
    match rx.recv_timeout(FILES_CHANGED_LIMIT) {
        Ok(Ok(Ok((changes, _)))) => serde_json::to_value(changes).unwrap_or(Value::Null),
        Ok(Ok(Err(e))) => Value::String(format!("not computed: {e}")),
        Ok(Err(_)) => Value::String("not computed: internal error".into()),
        Err(_) => Value::String(format!(
            "not computed: took longer than {} ms",
            FILES_CHANGED_LIMIT.as_millis()
        )),
    }
}

fn post_compact(call: &Call) -> anyhow::Result<Outcome> {
    let Some(store) = &call.store else {
        return Ok(Outcome::silent("no directory"));
    };
    let mut notes = Vec::new();
    // The summary is the client's own text of the conversation: pasted secrets included.
    // Redacted before shortening, so that a cut never leaves half a secret unrecognised.
    let summary = call.input.compact_summary.as_deref().map(|s| {
        let (redacted, _) = handover_core::redact::redact_text(s);
        handover_core::context::shorten(&redacted, SUMMARY_MAX_CHARS)
    });
    if let Some(e) = call.journal(
        Event::PostCompact,
        json!({"trigger": call.input.trigger, "summary": summary}),
    ) {
        notes.push(e);
    }
    if let Some((file, loaded)) = call.session() {
        if store.dir().is_dir() {
            let now = call.now_ms;
            let mut st = loaded.state;
            let delivered_for_this_compaction = match (st.compact_delivered_ms, st.pre_compact_ms) {
                (Some(d), Some(p)) => d >= p,
                (Some(d), None) => now.saturating_sub(d) <= RECENT_DELIVERY_MS,
                (None, _) => false,
            };
            if delivered_for_this_compaction {
                notes.push("SessionStart compact already delivered".into());
            } else {
                st.reinjection_armed_ms = Some(now);
                st.new_epoch(now);
                notes.push("re-injection armed".into());
            }
            if let Err(e) = file.save(&st) {
                notes.push(format!("state not saved: {e}"));
            }
        }
    }
    Ok(Outcome::silent(notes.join(" ")))
}
