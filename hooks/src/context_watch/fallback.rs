//! What the watch delivers when another hook could not: the startup context after a
//! compaction whose SessionStart `compact` never came (armed by PostCompact), and on the first
//! prompt of a session whose SessionStart never came. Each is delivered once; the state records
//! it before the answer goes out.

use crate::call::Call;
use crate::never_fail::Outcome;
use crate::session_state::{SessionFile, SessionState};
use crate::startup;
use handover_clients::{HookEvent, Response};
use handover_core::store::Store;

/// What both fallbacks work with: the call, its store, the session's state file, and the event
/// whose answer carries the context.
#[derive(Clone, Copy)]
pub struct Fallbacks<'a> {
    pub call: &'a Call,
    pub store: &'a Store,
    pub file: &'a SessionFile,
    pub event: HookEvent,
}

impl Fallbacks<'_> {
    /// The re-injection PostCompact armed, if it is armed: disarmed whatever happens, delivered
    /// when there is a handoff. None when the watch goes on to measure.
    pub fn reinjection(&self, st: &mut SessionState) -> Option<Outcome> {
        let (call, store, file, event) = (self.call, self.store, self.file, self.event);
        st.reinjection_armed_ms.take()?;
        let now = call.now_ms;
        let delivered =
            handover_core::startup::build_for(store, &|| call.command().to_string(), true, None);
        if delivered.is_some() {
            st.compact_delivered_ms = Some(now);
            st.startup_delivered_ms = Some(now);
        }
        // Unless the disarming is recorded, the context would come back on every call.
        if let Err(e) = file.save(st) {
            return Some(Outcome::silent(format!("re-injection not disarmed: {e}")));
        }
        let d = delivered?;
        let journal = startup::record(call, &d, "compact_fallback");
        Some(answer(
            event,
            d.text,
            "re-injected after compaction",
            [journal],
        ))
    }

    /// The startup context a SessionStart left to this event because the client drops its own
    /// (session_start.rs), if one is armed: disarmed whatever happens, journaled with that
    /// SessionStart's source. None when the watch goes on.
    pub fn armed_startup(&self, st: &mut SessionState) -> Option<Outcome> {
        let (call, store, file, event) = (self.call, self.store, self.file, self.event);
        let source = st.startup_armed.take()?;
        let delivered = handover_core::startup::build_for(
            store,
            &|| call.command().to_string(),
            false,
            call.session_id(),
        );
        if delivered.is_some() {
            st.startup_delivered_ms = Some(call.now_ms);
        }
        // Unless the disarming is recorded, the context would come back on every call.
        if let Err(e) = file.save(st) {
            return Some(Outcome::silent(format!(
                "armed startup context not disarmed: {e}"
            )));
        }
        let d = delivered?;
        let journal = startup::record(call, &d, &source);
        Some(answer(
            event,
            d.text,
            &format!("startup context after {source}"),
            [journal],
        ))
    }

    /// The startup context on the first prompt of a session no SessionStart announced. The
    /// session is remembered (where handover is in use) even with nothing to deliver, so that a
    /// handoff the session writes itself is never handed back to it.
    pub fn first_prompt(&self, st: &mut SessionState) -> Option<Outcome> {
        let (call, store, file, event) = (self.call, self.store, self.file, self.event);
        let delivered =
            handover_core::startup::build_for(store, &|| call.command().to_string(), false, None);
        if delivered.is_some() {
            st.startup_delivered_ms = Some(call.now_ms);
            st.startup_via_fallback = true;
        }
        let mut saved = None;
        if delivered.is_some() || call.store_usable() {
            saved = file.save(st).err().map(|e| format!("state not saved: {e}"));
        }
        let d = delivered?;
        let journal = startup::record(call, &d, "first_prompt_fallback");
        Some(answer(
            event,
            d.text,
            "startup context on the first prompt",
            [saved, journal],
        ))
    }
}

fn answer<const N: usize>(
    event: HookEvent,
    text: String,
    what: &str,
    problems: [Option<String>; N],
) -> Outcome {
    let mut note = what.to_string();
    for p in problems.into_iter().flatten() {
        note.push_str("; ");
        note.push_str(&p);
    }
    Outcome::new(Response::Context { event, text }, note)
}
