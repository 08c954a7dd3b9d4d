//! `handover-session-start`: SessionStart (`startup`, `resume`, `clear`, `compact`) in both
//! clients. Injects the startup context when a handoff exists; silent otherwise.
//!
//! One pass, top to bottom: the input (is it a SessionStart, where) → a snapshot of the
//! session's state, the store and the repository → what to show, decided from it → the text →
//! remembering it in the session's state → the journal.

use crate::call::Call;
use crate::never_fail::Outcome;
use crate::session_state;
use crate::startup;
use handover_clients::{HookEvent, Response};
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
    let opens_session = matches!(source, "startup" | "new");
    let mut notes = vec![format!("source={source}")];
    // Before anything that may stop early: the agent's own `handover write` needs its session
    // id whether or not there is anything to say now.
    notes.extend(crate::shell_env::export_session_id(
        call.client(),
        call.input.env_file.as_deref(),
        call.session_id(),
    ));

    // Snapshot: the session's state first, then the store and the repository. A session that
    // opens after its first prompt already got the context through the fallback reads nothing
    // else: it must not get it twice.
    let mut session = call.session();
    let late_duplicate = opens_session
        && session
            .as_ref()
            .is_some_and(|(_, l)| l.state.started_by_fallback());
    let snapshot =
        (!late_duplicate).then(|| Snapshot::read(store, source == "compact", call.session_id()));
    // Decide, then render: how the agent runs handover (it may walk the PATH) is looked up
    // only when there is something to say.
    let decision = snapshot.as_ref().map_or(Decision::Silent, decide);
    let delivery = snapshot
        .as_ref()
        .filter(|_| decision.says_something())
        .and_then(|s| render(s, decision, call.command()));

    // Remember: a resumed session's record runs again; the session's state says what was
    // delivered, or left to the next prompt or tool result where the client would drop the
    // context (only that delivery is then journaled). Without a session to remember it in,
    // the context goes out here anyway (unjournaled: it may not arrive).
    if source == "resume" {
        let buffered = call.client().transcript_flush_delay.is_some();
        notes.extend(crate::session_record::resumed(
            store,
            call.session_id(),
            buffered,
        ));
    }
    let defer = delivery.is_some() && call.client().behaviour.drops_session_start_context(source);
    let mut saved = None;
    if let Some((file, loaded)) = session.as_mut() {
        let st = &mut loaded.state;
        st.session_started(call.agent, source, delivery.is_some(), defer, call.now_ms);
        // Remember the session even with nothing to say, so a handoff written later in this
        // session is never mistaken for one the first prompt should deliver. A repository
        // where handover was never used gets no `.handover/` from this hook. The session's
        // first state may race the first-prompt fallback's: the one that lands first delivers.
        if call.store_usable() {
            let first = opens_session && !loaded.existed && delivery.is_some() && !defer;
            let sid = call.session_id().unwrap_or_default();
            saved = Some(file.save_session_start(st, first, sid, call.now_ms));
            if source == "startup" {
                session_state::prune(&store.sessions_dir(), call.now_ms);
            }
        }
    }
    if let Some(Err(e)) = &saved {
        notes.push(format!("state not saved: {e}"));
    }

    // Answer, and journal what was delivered.
    let lost_race = matches!(saved, Some(Ok(false)));
    let delivery = match delivery {
        _ if lost_race || late_duplicate => {
            notes.push("already delivered by the first-prompt fallback".into());
            None
        }
        None => {
            notes.push("no handoff".into());
            None
        }
        Some(_) if defer && matches!(saved, Some(Ok(true))) => {
            notes.push("left to the next prompt: the client drops this context".into());
            None
        }
        Some(d) => Some(d),
    };
    let Some(delivery) = delivery else {
        return Ok(Outcome::silent(notes.join(" ")));
    };
    let unconfirmed = !defer && call.client().behaviour.journals_start_at_a_request(source);
    if defer {
        notes.push("not journaled: the client may drop this context".into());
    } else if unconfirmed {
        notes.push(remember_unconfirmed(call, &mut session, &delivery, source));
    } else {
        notes.extend(startup::record(call, &delivery, source));
    }
    notes.push(format!("verdict={}", delivery.verdict_name()));
    Ok(Outcome::new(
        Response::Context {
            event: HookEvent::SessionStart,
            text: delivery.text,
        },
        notes.join(" "),
    ))
}

/// Leaves the journal line of `delivery` to the session's next request-bound hook
/// (`Behaviour::journals_start_at_a_request`): remembered in the session's state, which the
/// context watch reads ([`crate::context_watch`]). Without a state to keep it in, it is not
/// journaled (it may reach nothing).
fn remember_unconfirmed(
    call: &Call,
    session: &mut Option<(
        crate::session_state::SessionFile,
        crate::session_state::Loaded,
    )>,
    delivery: &handover_core::startup::render::Delivery,
    source: &str,
) -> String {
    let Some((file, loaded)) = session.as_mut() else {
        return "not journaled: no session state to confirm it in".into();
    };
    if !call.store_usable() {
        return "not journaled: no session state to confirm it in".into();
    }
    loaded.state.unconfirmed_delivery = Some(crate::session_state::UnconfirmedDelivery {
        source: source.to_string(),
        verdict: delivery.verdict_name().to_string(),
        handoff_id: delivery.handoff_id.clone(),
        chars: delivery.text.chars().count() as u64,
    });
    match file.save(&loaded.state) {
        Ok(()) => "journaled at the next request: this session may send none".into(),
        Err(e) => format!("not journaled: state not saved: {e}"),
    }
}
