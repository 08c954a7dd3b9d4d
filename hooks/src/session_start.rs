//! `handover-session-start`: SessionStart (`startup`, `resume`, `clear`, `compact`) in both
//! clients. Injects the startup context when a handoff exists; silent otherwise.

use crate::call::Call;
use crate::never_fail::Outcome;
use crate::output::{ContextEvent, Response};
use crate::session_state;
use crate::startup;

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    match call.input.hook_event_name.as_deref() {
        None | Some("SessionStart") => {}
        Some(other) => return Ok(Outcome::silent(format!("not a SessionStart: {other}"))),
    }
    let Some(store) = &call.store else {
        return Ok(Outcome::silent("no directory"));
    };
    let source = call.input.source.as_deref().unwrap_or("startup");
    let now = call.now_ms;
    let mut session = call.session();

    // Codex may fire SessionStart late, after the first prompt already got the context through
    // the fallback: do not deliver it twice.
    let late_duplicate = source == "startup"
        && session
            .as_ref()
            .is_some_and(|(_, l)| l.state.startup_via_fallback && !l.state.session_start_seen);

    let delivery = if late_duplicate {
        None
    } else {
        handover_core::startup::build_for(
            store,
            &|| call.command().to_string(),
            source == "compact",
            call.session_id(),
        )
    };

    let mut notes = vec![format!("source={source}")];
    if source == "resume" {
        notes.extend(crate::session_record::resumed(call));
    }
    if let Some((file, l)) = session.as_mut() {
        let st = &mut l.state;
        st.agent = Some(call.agent.as_str().into());
        st.session_start_seen = true;
        if source == "compact" {
            st.new_epoch(now);
            st.reinjection_armed_ms = None;
            st.compact_delivered_ms = delivery.as_ref().map(|_| now);
        }
        if delivery.is_some() {
            st.startup_delivered_ms = Some(now);
            st.startup_via_fallback = false;
        }
        // Remember the session even with nothing to say, so a handoff written later in this
        // session is never mistaken for one the first prompt should deliver. A repository where
        // handover was never used gets no `.handover/` from this hook.
        if call.store_usable() {
            if let Err(e) = file.save(st) {
                notes.push(format!("state not saved: {e}"));
            }
            if source == "startup" {
                session_state::prune(&store.sessions_dir(), now);
            }
        }
    }

    let Some(delivery) = delivery else {
        notes.push(if late_duplicate {
            "already delivered by the first-prompt fallback".into()
        } else {
            "no handoff".into()
        });
        return Ok(Outcome::silent(notes.join(" ")));
    };
    if let Some(e) = startup::record(call, &delivery, source) {
        notes.push(e);
    }
    notes.push(format!("verdict={}", delivery.verdict_name()));
    Ok(Outcome::new(
        Response::Context {
            event: ContextEvent::SessionStart,
            text: delivery.text,
        },
        notes.join(" "),
    ))
}
