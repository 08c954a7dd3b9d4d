//! `handover-context-watch`: UserPromptSubmit, PostToolUse and Stop in Claude Code and Codex;
//! their Gemini CLI counterparts BeforeAgent, AfterTool and AfterAgent (each client's names,
//! transcript and compaction point are in its handover_clients module).
//!
//! 1. Fallbacks (prompt and tool events, `fallback.rs`): the startup context a SessionStart left
//!    to the next prompt because the client drops its own (Gemini CLI's `/clear` and `--resume`);
//!    the re-injection armed by PostCompact
//!    when SessionStart `compact` did not deliver; the startup context on the first prompt of a
//!    session whose SessionStart never came.
//! 2. The watch: how full the context is (`measure.rs`), from what the client has already
//!    written, without ever waiting for it. At the first threshold (default 60 %) a
//!    save-progress reminder, once; at the second (75 %) a firmer one, once; on Stop above the
//!    second, one block — or, in a client that shows any block as a failed request (Gemini
//!    CLI), no block and one more ask with the next prompt (`thresholds.rs`). Nothing once a handoff has been written since the
//!    session began (or since the last compaction), nothing at all below the threshold.
//!
//! The timing rule and why it is safe: docs/hooks.md, "When the measurement is taken".

mod fallback;
mod measure;
mod thresholds;

use crate::call::never_fail::Outcome;
use crate::call::Call;
use crate::state::session_state::{Loaded, SessionFile, SessionState};
use handover_base::clock::millis;
use handover_clients::{HookEvent, Response};
use handover_core::context::{save_progress, save_progress_again, save_progress_first, Pressure};
use handover_handoff::store::Store;
use measure::{Fill, Reading};
use serde_json::json;
use thresholds::Decision;

/// The events the watch serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Prompt,
    Tool,
    /// A tool failed (Qwen Code's PostToolUseFailure): watched like [`Event::Tool`]; its
    /// failing command goes into the session record first.
    ToolFailure,
    Stop,
}

impl Event {
    /// The watched event the client calls `name` (handover_clients: each client's own names).
    fn from_name(call: &Call, name: Option<&str>) -> Option<Event> {
        match call.client().hook_event(name?)? {
            HookEvent::Prompt => Some(Event::Prompt),
            HookEvent::Tool => Some(Event::Tool),
            HookEvent::ToolFailure => Some(Event::ToolFailure),
            HookEvent::Stop => Some(Event::Stop),
            _ => None,
        }
    }

    /// The event an answer carrying context for the model goes out on (the client names it);
    /// Stop's answer can only block.
    fn context_event(self) -> Option<HookEvent> {
        match self {
            Event::Prompt => Some(HookEvent::Prompt),
            Event::Tool => Some(HookEvent::Tool),
            Event::ToolFailure => Some(HookEvent::ToolFailure),
            Event::Stop => None,
        }
    }
}

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    let name = call.input.hook_event_name.as_deref();
    let Some(event) = Event::from_name(call, name) else {
        return Ok(Outcome::silent(format!(
            "not a watched event: {}",
            name.unwrap_or("none")
        )));
    };
    // The session's state, read once: the record and the watch both work from it.
    let session = call.session();
    if event == Event::Stop {
        // The session record; it never waits and never answers (hooks/src/events/session_record.rs).
        let first_seen = session.as_ref().and_then(|(_, l)| l.first_seen_ms());
        crate::events::session_record::update(
            call,
            crate::events::session_record::Moment::Turn,
            first_seen,
        );
    }
    if event == Event::ToolFailure {
        // The failing command, from the input: the client writes it to its transcript later
        // (Qwen Code through a queue), after this session's last Stop if it was the last step.
        let recorded = crate::events::session_record::tool_failed(call);
        return watch(call, event, session).map(|mut o| {
            o.note = format!("{recorded}; {}", o.note);
            o
        });
    }
    watch(call, event, session)
}

/// The watch proper, for `event`, from the session's state as this call read it.
fn watch(
    call: &Call,
    event: Event,
    session: Option<(SessionFile, Loaded)>,
) -> anyhow::Result<Outcome> {
    let Some(store) = &call.store else {
        return Ok(Outcome::silent("no directory"));
    };
    // Everything below is remembered per session: without an id, say nothing rather than
    // repeat a reminder on every tool call.
    let Some((file, loaded)) = session else {
        return Ok(Outcome::silent("no session id"));
    };
    let mut st = loaded.state;
    st.agent = Some(call.agent.into());
    confirm_delivery(call, &file, &mut st);
    let fill = measure::fill(call);

    if let Some(ctx_event) = event.context_event() {
        let fallbacks = fallback::Fallbacks {
            call,
            store,
            file: &file,
            event: ctx_event,
        };
        let first_prompt = event == Event::Prompt && !loaded.existed && !fill.has_record();
        if let Some(outcome) = fallbacks.startup_owed(&mut st, first_prompt) {
            return Ok(outcome);
        }
    }

    let usage = match fill {
        Fill::Used(u) => u,
        Fill::JustCompacted => return Ok(Outcome::silent("just compacted")),
        Fill::NoUsage => return Ok(Outcome::silent("no usage in the transcript")),
        Fill::NoTranscript => return Ok(Outcome::silent("no transcript")),
    };
    let config = handover_handoff::config::load(store.root()).unwrap_or_default();
    let reading = measure::reading(call, &usage, config.context_window);
    let (remind, insist) = thresholds::for_agent(call, store, &config, reading.window);
    let Some(pressure) = thresholds::pressure(reading.percent, remind, insist) else {
        return Ok(Outcome::silent(reading.describe()));
    };
    if handoff_written_since(store, st.delivery.epoch.start_ms) {
        return Ok(Outcome::silent(format!(
            "{}; handoff written since",
            reading.describe()
        )));
    }
    let ask = if call.client().quirks.stop_block_looks_like_failure {
        thresholds::StopAsk::AtNextPrompt
    } else {
        thresholds::StopAsk::Block
    };
    match thresholds::decide(
        event,
        pressure,
        &st.delivery.epoch,
        call.input.stop_hook_active,
        ask,
    ) {
        Decision::Quiet(why) => Ok(Outcome::silent(format!("{}; {why}", reading.describe()))),
        decision => Ok(deliver(call, &file, st, event, &reading, decision)),
    }
}

/// A SessionStart's context left unjournaled until a request went out
/// (`Behaviour::journals_start_at_a_request`): this prompt, tool result or Stop of the same
/// session shows one did. Journaled once: the state forgets it first (a state that cannot be
/// saved journals nothing, rather than the same delivery on every call).
fn confirm_delivery(call: &Call, file: &SessionFile, st: &mut SessionState) {
    let Some(d) = st.unconfirmed_delivery.take() else {
        return;
    };
    if file.save(st).is_ok() {
        call.journal(
            handover_handoff::store::Event::Delivered,
            serde_json::json!({
                "source": d.source,
                "verdict": d.verdict,
                "handoff_id": d.handoff_id,
                "chars": d.chars,
            }),
        );
    }
}

/// state.json modified at or after `since_ms`: the agent saved its progress.
fn handoff_written_since(store: &Store, since_ms: u64) -> bool {
    std::fs::metadata(store.state_path())
        .and_then(|m| m.modified())
        .map(|t| millis(t) >= since_ms)
        .unwrap_or(false)
}

/// The Stop block's reason: a short pointer when this context already holds the full
/// instruction (a threshold spoke in this epoch), the full instruction otherwise. The client
/// adds the reason to the conversation; a second full copy only costs context.
fn stop_reason(call: &Call, st: &SessionState, percent: u8) -> String {
    if st.delivery.epoch.reminded_ms.is_some() || st.delivery.epoch.insisted_ms.is_some() {
        save_progress_again(percent, call.command())
    } else {
        save_progress(Pressure::Insist, percent, call.command(), call.agent)
    }
}

/// What the user sees of a Stop block, where the client shows one as a warning line (the client
/// module's encoding drops it elsewhere). Gemini CLI would add "This request failed" to any
/// block: its Stop is never blocked (`Quirks::stop_block_looks_like_failure`).
const BLOCK_NOTICE: &str =
    "handover: the context is nearly full; the agent was asked to save its progress before it stops.";

/// Says what `decision` calls for, after remembering it: a reminder the state cannot record
/// would repeat on every call, so a failed save means staying silent. Then journals it.
fn deliver(
    call: &Call,
    file: &SessionFile,
    mut st: SessionState,
    event: Event,
    reading: &Reading,
    decision: Decision,
) -> Outcome {
    let measured = reading.describe();
    let (response, action) = match (decision, event.context_event()) {
        (Decision::BlockStop, _) => (
            Response::Block {
                reason: stop_reason(call, &st, reading.percent),
                notice: Some(BLOCK_NOTICE.to_string()),
            },
            "stop_blocked",
        ),
        (Decision::AskAgain, Some(ctx_event)) => (
            Response::Context {
                event: ctx_event,
                text: save_progress_first(reading.percent, call.command()),
            },
            "asked_again",
        ),
        (Decision::Say(pressure), Some(ctx_event)) => (
            Response::Context {
                event: ctx_event,
                text: save_progress(pressure, reading.percent, call.command(), call.agent),
            },
            match pressure {
                Pressure::Remind => "reminded",
                Pressure::Insist => "insisted",
            },
        ),
        (Decision::Say(_) | Decision::AskAgain, None) | (Decision::Quiet(_), _) => {
            return Outcome::silent(format!("{measured}; nothing to say on {event:?}"))
        }
    };
    thresholds::remember(decision, &mut st.delivery, call.now_ms);
    st.last_percent = Some(reading.percent);
    if let Err(e) = file.save(&st) {
        return Outcome::silent(format!("{measured}; state not saved: {e}"));
    }
    let journal = call.journal(
        handover_handoff::store::Event::ContextWatch,
        json!({"action": action, "percent": reading.percent, "used_tokens": reading.used_tokens, "window": reading.window}),
    );
    let mut note = format!("{measured}; {action}");
    if let Some(j) = journal {
        note.push_str(&format!("; {j}"));
    }
    Outcome::new(response, note)
}
