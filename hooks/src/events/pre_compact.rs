//! `handover-pre-compact`: PreCompact and PostCompact in Claude Code and Codex, PreCompress in
//! Gemini CLI.
//! PreCompact journals a factual snapshot and, for Claude Code only, prints instructions that
//! Claude Code adds to the summarizer's prompt (Codex accepts no output there). It never
//! blocks a compaction, and answers before its save (never_fail::answer_now): the answer needs
//! the handoff alone, and OpenCode's plugin waits for it before the summarizer request.
//! PostCompact journals Claude Code's summary and arms the one-time re-injection that the
//! context watch delivers if SessionStart `compact` does not.
//! Gemini CLI fires PreCompress before every model request and tells hooks nothing after a
//! compression: only a PreCompress that will really compress (handover_clients::gemini) journals the
//! snapshot, and it also arms that re-injection (Gemini has no SessionStart `compact`).

use crate::call::never_fail::Outcome;
use crate::call::scan::Scan;
use crate::call::Call;
use crate::state::delivery::{self, Action};
use handover_clients::{HookEvent, Response, SettingsLayers, UserDirs};
use handover_handoff::model::Handoff;
use handover_handoff::sanitize::redacted;
use handover_handoff::store::Event;
use handover_handoff::store::{LoadOutcome, Store};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// The diff against the handoff's HEAD walks the working tree; on a huge repository it is
/// given up after this long rather than delay the compaction.
const FILES_CHANGED_LIMIT: Duration = Duration::from_millis(800);
/// Longest excerpt of the compaction summary kept in the journal. The journal records that a
/// compaction happened and how it began; the summary itself stays in the client's transcript,
/// and every character journaled is one more that might carry a secret the redactor misses.
const SUMMARY_MAX_CHARS: usize = 2_000;
/// What the delivery state needs to know of this call.
fn facts(call: &Call) -> delivery::Facts {
    delivery::Facts {
        now: call.now_ms,
        store_usable: call.store_usable(),
        ..delivery::Facts::default()
    }
}

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    let name = call.input.hook_event_name.as_deref();
    match name.and_then(|n| call.client().hook_event(n)) {
        Some(HookEvent::PreCompact) if call.client().quirks.pre_compact_every_request => {
            pre_compress(call)
        }
        Some(HookEvent::PreCompact) => pre_compact(call),
        Some(HookEvent::PostCompact) => post_compact(call),
        Some(HookEvent::SessionEnd) => {
            let first_seen = call.session().and_then(|(_, l)| l.first_seen_ms());
            let moment = crate::events::session_record::Moment::End;
            Ok(Outcome::silent(crate::events::session_record::update(
                call, moment, first_seen,
            )))
        }
        _ => Ok(Outcome::silent(format!(
            "not a compaction event: {}",
            name.unwrap_or("none")
        ))),
    }
}

fn pre_compact(call: &Call) -> anyhow::Result<Outcome> {
    // Snapshot: the handoff, and the session's state (read once: the record and the state's
    // update below both work from it).
    let handoff = call.store.as_ref().and_then(|s| match s.load() {
        LoadOutcome::Loaded(l) => Some(l.handoff),
        _ => None,
    });
    let session = call.session();
    let first_seen = session.as_ref().and_then(|(_, l)| l.first_seen_ms());
    // Remember the compaction in the session's state before answering: the hooks that follow
    // it (PostCompact, SessionStart `compact`) build on that step, and come only after the
    // summarizer request the answer goes into.
    let mut state_notes = Vec::new();
    if let Some((file, loaded)) = session.filter(|_| call.store_usable()) {
        let mut st = loaded.state;
        // A client that tells hooks nothing after compacting (no PostCompact, no SessionStart
        // `compact`: GitHub Copilot CLI) gets the handoff back with the next prompt or tool
        // result. A PreCompact that fires before every request runs this only when the client
        // compacts now (`pre_compress`): the context starts over.
        let event = delivery::Event::PreCompact {
            silent_after: call.client().event_name(HookEvent::PostCompact).is_none(),
            every_request: call.client().quirks.pre_compact_every_request,
        };
        if let Action::Compacted { armed: true } = st.step(event, &facts(call)) {
            state_notes.push("re-injection armed".to_string());
        }
        if let Err(e) = file.save(&st) {
            state_notes.push(format!("state not saved: {e}"));
        }
    }
    // The answer: Codex accepts no context from PreCompact; Gemini CLI's PreCompress is
    // advisory. It depends on the handoff alone, so it goes out now and the client waits for
    // none of the save below (never_fail::answer_now).
    let response = if call.client().quirks.pre_compact_reads_stdout {
        Response::Plain(handover_core::context::compaction_instructions(
            handoff.as_ref(),
            call.command(),
        ))
    } else {
        Response::Silent
    };
    crate::call::never_fail::answer_now(call.agent, &response);
    // One working-tree scan for the record's changed files and the journal's files changed
    // since the handoff's HEAD (crate::call::scan), started by whichever asks first.
    let handoff_head = handoff
        .as_ref()
        .and_then(|h| h.git.as_ref())
        .and_then(|g| g.head.clone());
    let scan = call
        .store
        .as_ref()
        .map(|s| Scan::new(s.root().to_path_buf(), handoff_head));
    // The record's transcript read and working-tree scan, within the call's budget (the
    // watchdog ends the process at its limit, answer given or not).
    let worker = call.clone();
    let shared = scan.clone();
    let record =
        crate::call::budget::within(call.deadline, crate::call::budget::WORK_BUDGET, move || {
            let moment = crate::events::session_record::Moment::Compaction;
            crate::events::session_record::update_sharing(
                &worker,
                moment,
                first_seen,
                shared.as_ref(),
            )
        });
    let mut notes = vec![match record {
        Ok(note) => note,
        Err(crate::call::budget::Late::After(ms)) => format!("record: not done within {ms} ms"),
        Err(crate::call::budget::Late::Failed) => "record: not updated (internal error)".into(),
    }];
    // Journal what the compaction is about to lose.
    if let Some(store) = &call.store {
        let snapshot = snapshot(call, store, handoff.as_ref(), scan.as_ref());
        if let Some(e) = call.journal(Event::PreCompact, snapshot) {
            notes.push(e);
        }
    }
    notes.extend(state_notes);
    notes.push(format!("handoff={}", handoff.is_some()));
    Ok(Outcome::new(response, notes.join(" ")))
}

/// The facts worth having when a session later wonders what the compaction lost: trigger,
/// branch and HEAD (read without scanning the working tree), the files changed since the
/// handoff when that is quick (from the call's one `scan`), the transcript.
fn snapshot(call: &Call, store: &Store, handoff: Option<&Handoff>, scan: Option<&Scan>) -> Value {
    let (branch, head) = handover_git::head::head_of(store.root());
    let handoff_head = handoff
        .and_then(|h| h.git.as_ref())
        .and_then(|g| g.head.clone());
    let files_changed = handoff_head
        .as_ref()
        .and(scan)
        .map(|scan| files_changed_within(scan, call.deadline));
    json!({
        "trigger": call.input.trigger,
        "transcript_path": call.input.transcript_path,
        "git": {"branch": branch.as_deref().map(redacted), "head": head},
        "handoff_id": handoff.map(|h| h.id.clone()),
        "handoff_head": handoff_head,
        "files_changed_since_handoff": files_changed.unwrap_or(Value::Null),
    })
}

/// `[{"path", "change"}]`, or a string saying why not (too slow, or git failed).
fn files_changed_within(scan: &Scan, deadline: Instant) -> Value {
    let limit = FILES_CHANGED_LIMIT.min(crate::call::budget::remaining(deadline));
    match scan.wait(limit) {
        Ok(Ok(found)) => match &found.changed_since {
            Some(Ok(changes)) => serde_json::to_value(changes).unwrap_or(Value::Null),
            Some(Err(e)) => Value::String(format!("not computed: {e}")),
            None => Value::Null,
        },
        Ok(Err(e)) => Value::String(format!("not computed: {e}")),
        Err(crate::call::budget::Late::Failed) => {
            Value::String("not computed: internal error".into())
        }
        Err(crate::call::budget::Late::After(ms)) => {
            Value::String(format!("not computed: took longer than {ms} ms"))
        }
    }
}

/// A PreCompact that fires before every request (Gemini CLI's PreCompress): a snapshot and the
/// re-injection armed, but only when the client is about to compact (a `manual` trigger, or
/// the last usage at its compaction point).
fn pre_compress(call: &Call) -> anyhow::Result<Outcome> {
    if call.input.trigger.as_deref() != Some("manual") {
        if let Some(why) = no_compression_due(call) {
            return Ok(Outcome::silent(why));
        }
    }
    // Advisory: whatever it says, the client does not read it.
    Ok(Outcome::silent(pre_compact(call)?.note))
}

/// Why the client will not compact before this request (None: it will).
fn no_compression_due(call: &Call) -> Option<String> {
    let Some(path) = call.input.transcript_path.as_deref() else {
        return Some("no transcript".into());
    };
    let usage = match crate::state::transcript::read(Path::new(path), call.client()) {
        Some(handover_clients::transcript::Fullness::Measured(u)) => u,
        Some(handover_clients::transcript::Fullness::JustCompacted) => {
            return Some("just compressed".into())
        }
        None => return Some("no usage in the transcript".into()),
    };
    let root = call.store.as_ref().map(|s| s.root());
    let configured = root
        .and_then(|r| handover_handoff::config::load(r).ok())
        .and_then(|c| c.context_window);
    let model = usage.model.as_deref().or(call.input.model.as_deref());
    let window = crate::state::window::resolve(usage.window, model, configured, usage.used_tokens);
    let user_dir = call.client().user_dir(&UserDirs::from_env());
    let at = SettingsLayers {
        project: root,
        user_dir: user_dir.as_deref(),
    };
    call.client()
        .behaviour
        .compaction_due(usage.used_tokens, window, at)
        .err()
}

fn post_compact(call: &Call) -> anyhow::Result<Outcome> {
    if call.store.is_none() {
        return Ok(Outcome::silent("no directory"));
    }
    let mut notes = Vec::new();
    let full = call.input.compact_summary.as_deref();
    // Redacted before it is shortened, so a cut cannot leave half a token the redactor no
    // longer recognises.
    let summary = full.map(|s| {
        let head: String = s.chars().take(SUMMARY_MAX_CHARS * 4).collect();
        handover_base::text::shorten(&redacted(&head), SUMMARY_MAX_CHARS)
    });
    if let Some(e) = call.journal(
        Event::PostCompact,
        json!({
            "trigger": call.input.trigger,
            "summary": summary,
            "summary_chars": full.map(|s| s.chars().count()),
        }),
    ) {
        notes.push(e);
    }
    if let Some((file, loaded)) = call.session() {
        if call.store_usable() {
            let mut st = loaded.state;
            match st.step(delivery::Event::PostCompact, &facts(call)) {
                Action::Compacted { armed: true } => notes.push("re-injection armed".into()),
                _ => notes.push("SessionStart compact already delivered".into()),
            }
            if let Err(e) = file.save(&st) {
                notes.push(format!("state not saved: {e}"));
            }
        }
    }
    Ok(Outcome::silent(notes.join(" ")))
}
