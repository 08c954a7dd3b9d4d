//! `handover-session-start`: SessionStart (`startup`, `resume`, `clear`, `compact`) in both
//! clients. Injects the startup context when a handoff exists; silent otherwise.

use crate::call::Call;
use crate::never_fail::Outcome;
use crate::session_state;
use crate::startup;
use handover_clients::{HookEvent, Response};

pub fn run(call: &Call) -> anyhow::Result<Outcome> {
    if let Some(name) = call.input.hook_event_name.as_deref() {
        if call.client().hook_event(name) != Some(HookEvent::SessionStart) {
            return Ok(Outcome::silent(format!("not a SessionStart: {name}")));
        }
    }
    let Some(store) = &call.store else {
        return Ok(Outcome::silent("no directory"));
    };
    let source = call.input.source.as_deref().unwrap_or("startup");
    let now = call.now_ms;
    let mut session = call.session();

    // Codex may fire SessionStart late, after the first prompt already got the context through
    // the fallback, and Copilot CLI may run its sessionStart (`new`) beside that prompt's hook:
    // do not deliver it twice.
    let opens_session = matches!(source, "startup" | "new");
    let mut late_duplicate = opens_session
        && session
            .as_ref()
            .is_some_and(|(_, l)| l.state.startup_via_fallback && !l.state.session_start_seen);

    let mut delivery = if late_duplicate {
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
    // Where the client would drop the context, the next prompt (BeforeAgent) or tool result
    // (AfterTool) delivers it instead, and only that delivery is journaled. Without a session
    // to remember it in, the context goes out here anyway (unjournaled: it may not arrive).
    let defer = delivery.is_some() && call.client().drops_session_start_context(source);
    let mut deferred = false;
    if let Some((file, l)) = session.as_mut() {
        let st = &mut l.state;
        st.agent = Some(call.agent.as_str().into());
        st.session_start_seen = true;
        if source == "compact" {
            st.new_epoch(now);
            st.reinjection_armed_ms = None;
            st.compact_delivered_ms = delivery.as_ref().map(|_| now);
        }
        if defer {
            st.startup_armed = Some(source.to_string());
        } else if delivery.is_some() {
            st.startup_delivered_ms = Some(now);
            st.startup_via_fallback = false;
        }
        // Remember the session even with nothing to say, so a handoff written later in this
        // session is never mistaken for one the first prompt should deliver. A repository where
        // handover was never used gets no `.handover/` from this hook.
        if call.store_usable() {
            // The session's first state: the first-prompt fallback may be saving its own at
            // this moment (it then delivered the context, and this hook stays silent).
            let mut saved = if opens_session && !l.existed && delivery.is_some() && !defer {
                file.save_first(st)
            } else {
                file.save(st).map(|()| true)
            };
            if matches!(saved, Ok(false)) {
                // Another hook's state landed first: it counts only if it delivered.
                let now_there = file.load(call.session_id().unwrap_or_default(), now);
                if now_there.state.startup_delivered_ms.is_none() {
                    saved = file.save(st).map(|()| true);
                }
            }
            match saved {
                Ok(true) => deferred = defer,
                Ok(false) => {
                    late_duplicate = true;
                    delivery = None;
                }
                Err(e) => notes.push(format!("state not saved: {e}")),
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
    if deferred {
        notes.push("left to the next prompt: the client drops this context".into());
        return Ok(Outcome::silent(notes.join(" ")));
    }
    if defer {
        notes.push("not journaled: the client may drop this context".into());
    } else if let Some(e) = startup::record(call, &delivery, source) {
        notes.push(e);
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
