//! What the watch delivers when another hook could not: the startup context after a
//! compaction whose SessionStart `compact` never came (armed by PostCompact, or by the watch
//! itself when the transcript shows a compaction no hook was told of: Factory Droid's automatic
//! one), and on the first prompt of a session whose SessionStart never came. Each is delivered
//! once; the state records it before the answer goes out.

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

/// A compaction the client ran without any hook (Factory Droid's automatic one, seen as a
/// `compaction_state` line in its transcript), newer than everything this session already had
/// from us: a new context epoch, and the re-injection armed for this very call. A compaction
/// older than the session's first sight or its last delivery (a forked session's inherited
/// history, one already acted on) changes nothing.
pub fn notice_silent_compaction(call: &Call, st: &mut SessionState) {
    let client = call.client();
    if !client.compacts_silently() {
        return;
    }
    let Some(path) = call.input.transcript_path.as_deref() else {
        return;
    };
    let Some(at) = crate::transcript::compacted_at(std::path::Path::new(path), client) else {
        return;
    };
    let known = [
        Some(st.first_seen_ms),
        st.startup_delivered_ms,
        st.compact_delivered_ms,
        st.silent_compaction_ms,
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    if at <= known {
        return;
    }
    st.silent_compaction_ms = Some(at);
    st.new_epoch(call.now_ms);
    st.reinjection_armed_ms = Some(call.now_ms);
}

impl Fallbacks<'_> {
    /// The re-injection PostCompact armed, if it is armed: disarmed whatever happens, delivered
    /// when there is a handoff. None when the watch goes on to measure.
    pub fn reinjection(&self, st: &mut SessionState) -> Option<Outcome> {
        let (call, store, file, event) = (self.call, self.store, self.file, self.event);
        st.reinjection_armed_ms.take()?;
        let now = call.now_ms;
        let delivered = startup::compose(call, store, true, None);
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
        let delivered = startup::compose(call, store, false, call.session_id());
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
        let delivered = startup::compose(call, store, false, None);
        if delivered.is_some() {
            st.startup_delivered_ms = Some(call.now_ms);
            st.startup_via_fallback = true;
        }
        let mut saved = None;
        if delivered.is_some() {
            // A SessionStart running beside this call (Copilot CLI after `/clear`) that saved
            // the session's state first delivers the context itself.
            match file.save_first(st) {
                Ok(true) => {}
                Ok(false) => {
                    return Some(Outcome::silent(
                        "startup context left to the SessionStart that ran meanwhile",
                    ))
                }
                Err(e) => saved = Some(format!("state not saved: {e}")),
            }
        } else if call.store_usable() {
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
