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

/// What the fallbacks work with: the call, its store, the session's state file, and the event
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
fn notice_silent_compaction(call: &Call, st: &mut SessionState) {
    let client = call.client();
    if !client.quirks.compacts_silently {
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

/// Which fallback owes this call the startup context.
enum Owed {
    /// A SessionStart with this source left it to this event (the client drops its own).
    Armed(String),
    /// A compaction whose SessionStart `compact` never came.
    Reinjection,
    /// The first prompt of a session no SessionStart announced.
    FirstPrompt,
}

impl Owed {
    /// The source its journal line names.
    fn source(&self) -> &str {
        match self {
            Owed::Armed(source) => source,
            Owed::Reinjection => "compact_fallback",
            Owed::FirstPrompt => "first_prompt_fallback",
        }
    }

    /// What the debug log says of the delivery.
    fn what(&self) -> String {
        match self {
            Owed::Armed(source) => format!("startup context after {source}"),
            Owed::Reinjection => "re-injected after compaction".into(),
            Owed::FirstPrompt => "startup context on the first prompt".into(),
        }
    }

    /// Records in the session's state that it was delivered now.
    fn delivered(&self, st: &mut SessionState, now: u64) {
        st.startup_delivered_ms = Some(now);
        match self {
            Owed::Armed(_) => {}
            Owed::Reinjection => st.compact_delivered_ms = Some(now),
            Owed::FirstPrompt => st.startup_via_fallback = true,
        }
    }
}

impl Fallbacks<'_> {
    /// The startup context this event owes, in order: the one a SessionStart left to it (with
    /// that SessionStart's source), the re-injection after a compaction (PostCompact armed it,
    /// or [`notice_silent_compaction`] does now), the first prompt's. An armed one is disarmed
    /// whatever happens. None when nothing is owed or there is nothing to say: the watch goes
    /// on to measure.
    pub fn startup_owed(&self, st: &mut SessionState, first_prompt: bool) -> Option<Outcome> {
        if let Some(source) = st.startup_armed.take() {
            if let Some(outcome) = self.deliver(Owed::Armed(source), st) {
                return Some(outcome);
            }
        }
        notice_silent_compaction(self.call, st);
        if st.reinjection_armed_ms.take().is_some() {
            if let Some(outcome) = self.deliver(Owed::Reinjection, st) {
                return Some(outcome);
            }
        }
        if first_prompt {
            return self.deliver(Owed::FirstPrompt, st);
        }
        None
    }

    /// One delivery, top to bottom: the startup context (snapshot → decide → render), the
    /// session's state remembering it (before the answer goes out), the journal, the answer.
    fn deliver(&self, owed: Owed, st: &mut SessionState) -> Option<Outcome> {
        let (call, file) = (self.call, self.file);
        let (after_compaction, own_session) = match owed {
            Owed::Armed(_) => (false, call.session_id()),
            Owed::Reinjection => (true, None),
            Owed::FirstPrompt => (false, None),
        };
        let delivered = startup::compose(call, self.store, after_compaction, own_session);
        if delivered.is_some() {
            owed.delivered(st, call.now_ms);
        }
        let saved = match owed {
            // The session is remembered (where handover is in use) even with nothing to
            // deliver, so that a handoff the session writes itself is never handed back to
            // it. A SessionStart running beside this call (Copilot CLI after `/clear`) that
            // saved the session's state first delivers the context itself.
            Owed::FirstPrompt if delivered.is_some() => match file.save_first(st) {
                Ok(true) => None,
                Ok(false) => {
                    return Some(Outcome::silent(
                        "startup context left to the SessionStart that ran meanwhile",
                    ))
                }
                Err(e) => Some(format!("state not saved: {e}")),
            },
            Owed::FirstPrompt if call.store_usable() => {
                file.save(st).err().map(|e| format!("state not saved: {e}"))
            }
            Owed::FirstPrompt => None,
            // Unless the disarming is recorded, the context would come back on every call.
            Owed::Armed(_) | Owed::Reinjection => {
                if let Err(e) = file.save(st) {
                    let what = match owed {
                        Owed::Reinjection => "re-injection",
                        _ => "armed startup context",
                    };
                    return Some(Outcome::silent(format!("{what} not disarmed: {e}")));
                }
                None
            }
        };
        let d = delivered?;
        let journal = startup::record(call, &d, owed.source());
        Some(answer(self.event, d.text, &owed.what(), [saved, journal]))
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
