//! What the watch delivers when another hook could not: the startup context after a
//! compaction whose SessionStart `compact` never came (armed by PostCompact, or by the watch
//! itself when the transcript shows a compaction no hook was told of: Factory Droid's automatic
//! one), and on the first prompt of a session whose SessionStart never came. Each is delivered
//! once; the state records it before the answer goes out.

use crate::call::never_fail::Outcome;
use crate::call::Call;
use crate::events::startup;
use crate::state::delivery::{Action, Event, Facts, Owed};
use crate::state::session_state::{SessionFile, SessionState};
use handover_clients::{HookEvent, Response};
use handover_handoff::store::Store;

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
/// `compaction_state` line in its transcript): its time, for the delivery state to judge
/// whether it is newer than everything this session already had from us.
fn silent_compaction(call: &Call) -> Option<u64> {
    let client = call.client();
    if !client.quirks.compacts_silently {
        return None;
    }
    let path = call.input.transcript_path.as_deref()?;
    crate::state::transcript::compacted_at(std::path::Path::new(path), client)
}

/// The source the journal line of an owed delivery names.
fn journal_source(owed: &Owed) -> &str {
    match owed {
        Owed::Armed(source) => source.as_str(),
        Owed::Reinjection => "compact_fallback",
        Owed::FirstPrompt => "first_prompt_fallback",
    }
}

/// What the debug log says of the delivery.
fn what(owed: &Owed) -> String {
    match owed {
        Owed::Armed(source) => format!("startup context after {source}"),
        Owed::Reinjection => "re-injected after compaction".into(),
        Owed::FirstPrompt => "startup context on the first prompt".into(),
    }
}

impl Fallbacks<'_> {
    fn facts(&self, st: &SessionState) -> Facts {
        Facts {
            now: self.call.now_ms,
            first_seen_ms: st.first_seen_ms,
            store_usable: self.call.store_usable(),
            ..Facts::default()
        }
    }

    /// The startup context this event owes, in the order the delivery state names them
    /// ([`Event::Due`]): the one a SessionStart left to it (with that SessionStart's source),
    /// the re-injection after a compaction (PostCompact armed it, or the transcript shows a
    /// compaction no hook was told of), the first prompt's. An armed one is disarmed whatever
    /// happens. None when nothing is owed or there is nothing to say: the watch goes on to
    /// measure.
    pub fn startup_owed(&self, st: &mut SessionState, first_prompt: bool) -> Option<Outcome> {
        let compacted_at = silent_compaction(self.call);
        let mut first_prompt = first_prompt;
        // Each is owed once: the armed context, the re-injection, the first prompt's.
        for _ in 0..3 {
            let due = Event::Due {
                first_prompt,
                compacted_at,
            };
            let Action::Owe(owed) = st.step(due, &self.facts(st)) else {
                return None;
            };
            first_prompt &= owed != Owed::FirstPrompt;
            if let Some(outcome) = self.deliver(owed, st) {
                return Some(outcome);
            }
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
        let composed = Event::FallbackComposed(owed.clone(), delivered.is_some());
        let saved = match (st.step(composed, &self.facts(st)), &owed) {
            // A SessionStart running beside this call (Copilot CLI after `/clear`) that saved
            // the session's state first delivers the context itself.
            (Action::Save { first: true }, _) => match file.save_first(st) {
                Ok(true) => None,
                Ok(false) => {
                    return Some(Outcome::silent(
                        "startup context left to the SessionStart that ran meanwhile",
                    ))
                }
                Err(e) => Some(format!("state not saved: {e}")),
            },
            (Action::Save { .. }, Owed::FirstPrompt) => {
                file.save(st).err().map(|e| format!("state not saved: {e}"))
            }
            (Action::Save { .. }, _) => {
                if let Err(e) = file.save(st) {
                    let what = match owed {
                        Owed::Reinjection => "re-injection",
                        _ => "armed startup context",
                    };
                    return Some(Outcome::silent(format!("{what} not disarmed: {e}")));
                }
                None
            }
            _ => None,
        };
        let d = delivered?;
        let journal = startup::record(call, &d, journal_source(&owed));
        Some(answer(self.event, d.text, &what(&owed), [saved, journal]))
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
