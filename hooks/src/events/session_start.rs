//! `handover-session-start`: SessionStart (`startup`, `resume`, `clear`, `compact`) in both
//! clients. Injects the startup context when a handoff exists; silent otherwise.
//!
//! One pass, top to bottom: the input (is it a SessionStart, where) → a snapshot of the
//! session's state, the store and the repository → what to show, decided from it → the text →
//! remembering it in the session's state → the journal.

use crate::call::never_fail::Outcome;
use crate::call::Call;
use crate::events::startup;
use crate::state::delivery::{Action, Answer, Composed, Event, Facts, Journal, Saved};
use crate::state::session_state::{self, SessionState, UnconfirmedDelivery};
use handover_clients::{HookEvent, Response, StartSource};
use handover_core::startup::decide::{decide, Decision};
use handover_core::startup::render::render;
use handover_core::startup::snapshot::Snapshot;

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    // Input: a SessionStart, with a directory to work in.
    if let Some(name) = call.input.hook_event_name.as_deref() {
        if call.client().hook_event(name) != Some(HookEvent::SessionStart) {
            return Ok(Outcome::silent(format!("not a SessionStart: {name}")));
        }
    }
    let Some(store) = &call.store else {
        return Ok(Outcome::silent("no directory"));
    };
    let source = call.client().behaviour.session_start_source(&call.input);
    let mut notes = vec![format!("source={source}")];
    // Before anything that may stop early: the agent's own `handover write` needs its session
    // id whether or not there is anything to say now.
    notes.extend(crate::events::shell_env::export_session_id(
        call.client(),
        call.input.env_file.as_deref(),
        call.session_id(),
    ));

    // Snapshot: the session's state first, then the store and the repository. A session that
    // opens after its first prompt already got the context through the fallback reads nothing
    // else: it must not get it twice.
    let (file, loaded) = call.session().unzip();
    let existed = loaded.as_ref().is_some_and(|l| l.existed);
    let mut st = loaded.map_or_else(SessionState::default, |l| l.state);
    let facts = Facts {
        now: call.now_ms,
        first_seen_ms: st.first_seen_ms,
        existed,
        drops_context: call.client().behaviour.drops_session_start_context(&source),
        journals_at_request: call.client().behaviour.journals_start_at_a_request(&source),
        store_usable: call.store_usable(),
    };
    let snapshot = match st.step(Event::StartArrives(source.clone()), &facts) {
        Action::Compose { after_compaction } => {
            Some(Snapshot::read(store, after_compaction, call.session_id()))
        }
        _ => None,
    };
    // Decide, then render: how the agent runs handover (it may walk the PATH) is looked up
    // only when there is something to say.
    let decision = snapshot.as_ref().map_or(Decision::Silent, decide);
    let command = decision.says_something().then(|| call.command());
    let delivery = snapshot
        .as_ref()
        .zip(command)
        .and_then(|(s, command)| render(s, decision, command));
    let composed = match (&snapshot, &delivery) {
        (None, _) => Composed::Skipped,
        (Some(_), None) => Composed::Nothing,
        (Some(_), Some(_)) => Composed::Context,
    };

    // Remember: a resumed session's record runs again.
    if source == StartSource::Resume {
        let buffered = call.client().transcript_flush_delay.is_some();
        notes.extend(crate::events::session_record::resumed(
            store,
            call.session_id(),
            buffered,
        ));
    }
    // The start, remembered with one save: the session's state says what was delivered, or
    // left to the next prompt or tool result where the client would drop the context, or given
    // but journaled only once a request shows it went out
    // (`Client::journals_start_at_a_request`: the context watch journals it then). Without a
    // session to remember it in, the context goes out here anyway (unjournaled: it may not
    // arrive).
    let first = match st.step(Event::StartComposed(source.clone(), composed), &facts) {
        Action::RememberStart { first, unconfirmed } => {
            if let Some(d) = delivery.as_ref().filter(|_| unconfirmed) {
                st.unconfirmed_delivery = Some(UnconfirmedDelivery {
                    source: source.as_str().to_string(),
                    verdict: d.verdict_name().to_string(),
                    handoff_id: d.handoff_id.clone(),
                    chars: d.text.chars().count() as u64,
                });
            }
            first
        }
        _ => false,
    };
    st.agent = Some(call.agent.as_str().into());
    // Remember the session even with nothing to say, so a handoff written later in this
    // session is never mistaken for one the first prompt should deliver. A repository where
    // handover was never used gets no `.handover/` from this hook. The session's first state
    // may race the first-prompt fallback's: the one that lands first delivers.
    let mut saved = Saved::NotSaved;
    let mut not_saved = None;
    if let Some(file) = file.as_ref().filter(|_| call.store_usable()) {
        let sid = call.session_id().unwrap_or_default();
        saved = match file.save_session_start(&st, first, sid, call.now_ms) {
            Ok(true) => Saved::Landed,
            Ok(false) => Saved::LostRace,
            Err(e) => {
                let e = format!("state not saved: {e}");
                notes.push(e.clone());
                not_saved = Some(e);
                Saved::NotSaved
            }
        };
        if source == StartSource::Startup {
            session_state::prune(&store.sessions_dir(), call.now_ms);
        }
    }

    // Answer, and journal what was delivered.
    let answer = st.step(Event::StartSaved(source.clone(), composed, saved), &facts);
    let (delivery, journal) = match (answer, delivery) {
        (Action::Answer(Answer::Give(journal)), Some(delivery)) => (delivery, journal),
        (Action::Answer(Answer::AlreadyDelivered), _) => {
            notes.push("already delivered by the first-prompt fallback".into());
            return Ok(Outcome::silent(notes.join(" ")));
        }
        (Action::Answer(Answer::LeftToNextPrompt), _) => {
            notes.push("left to the next prompt: the client drops this context".into());
            return Ok(Outcome::silent(notes.join(" ")));
        }
        _ => {
            notes.push("no handoff".into());
            return Ok(Outcome::silent(notes.join(" ")));
        }
    };
    notes.extend(match journal {
        Journal::Never => Some("not journaled: the client may drop this context".into()),
        // Without a state to keep it in, it is not journaled (it may reach nothing).
        Journal::AtNextRequest => Some(match (saved, not_saved) {
            (Saved::Landed, _) => {
                "journaled at the next request: this session may send none".into()
            }
            (_, Some(e)) => format!("not journaled: {e}"),
            _ => "not journaled: no session state to confirm it in".into(),
        }),
        Journal::Now => startup::record(call, &delivery, source.as_str()),
    });
    notes.push(format!("verdict={}", delivery.verdict_name()));
    Ok(Outcome::new(
        Response::Context {
            event: HookEvent::SessionStart,
            text: delivery.text,
        },
        notes.join(" "),
    ))
}
