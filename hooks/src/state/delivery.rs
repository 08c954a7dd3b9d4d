//! What a session has been given, as a state machine: the startup context (delivered by
//! SessionStart, left to the next prompt, given by a fallback), the re-injection after a
//! compaction, and the context epoch whose thresholds the watch crosses once each.
//!
//! [`next`] is the one place the state changes: pure (no I/O, no clock), it takes the state,
//! what happened and the facts the caller read, and returns the new state and what the hook does
//! next. SessionStart (`events/session_start.rs`), the context watch's fallbacks
//! (`events/context_watch/fallback.rs`) and PreCompact/PostCompact (`events/pre_compact.rs`) are
//! matches over its actions. The session file stores the state in its old fields
//! (`session_state.rs`, `OnDisk`), so files written before and after read the same.

use handover_clients::StartSource;

/// Without a PreCompact time, a compact delivery this recent counts as this compaction's.
pub const RECENT_DELIVERY_MS: u64 = 120_000;

/// Everything delivery-related a session file remembers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delivery {
    /// Where the session's startup context stands.
    pub start: Start,
    /// A SessionStart whose context the client drops (Gemini CLI's `clear`, and its
    /// interactive `resume`) left the startup context to the next prompt or tool result: its
    /// source.
    pub armed: Option<StartSource>,
    /// PostCompact (or a PreCompact of a client that says nothing after compacting, or the
    /// watch finding a compaction in the transcript) armed a one-time re-injection.
    pub reinjection_armed_ms: Option<u64>,
    /// The last delivery of the context after a compaction.
    pub compact_delivered_ms: Option<u64>,
    /// The last PreCompact.
    pub pre_compact_ms: Option<u64>,
    /// The newest compaction the watch found in the transcript of a client whose compaction
    /// runs no hook (Factory Droid), by the transcript's own timestamp: each is acted on once.
    pub silent_compaction_ms: Option<u64>,
    /// The current context epoch.
    pub epoch: Epoch,
}

/// Where a session's startup context stands. `delivered`: when it was last given (by
/// SessionStart, a fallback or a re-injection).
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// No SessionStart ran, and the first prompt's fallback gave nothing.
    Unseen { delivered: Option<u64> },
    /// The first prompt's fallback gave it before any SessionStart ran (Codex may fire
    /// SessionStart after the first prompt; Copilot CLI runs its sessionStart beside that
    /// prompt's hook): a late `startup` is a duplicate.
    ByFirstPrompt { delivered: Option<u64> },
    /// A SessionStart ran. `by_first_prompt`: the first prompt's fallback gave the context
    /// before it and no SessionStart has given it since.
    Started {
        delivered: Option<u64>,
        by_first_prompt: bool,
    },
}

impl Default for Start {
    fn default() -> Start {
        Start::Unseen { delivered: None }
    }
}

impl Start {
    /// The session file's `session_start_seen`, `startup_via_fallback` and
    /// `startup_delivered_ms`, read as one state.
    pub fn from_fields(seen: bool, via_fallback: bool, delivered: Option<u64>) -> Start {
        match (seen, via_fallback) {
            (false, false) => Start::Unseen { delivered },
            (false, true) => Start::ByFirstPrompt { delivered },
            (true, by_first_prompt) => Start::Started {
                delivered,
                by_first_prompt,
            },
        }
    }

    /// The inverse of [`Start::from_fields`]: `(seen, via_fallback, delivered)`.
    pub fn fields(&self) -> (bool, bool, Option<u64>) {
        match *self {
            Start::Unseen { delivered } => (false, false, delivered),
            Start::ByFirstPrompt { delivered } => (false, true, delivered),
            Start::Started {
                delivered,
                by_first_prompt,
            } => (true, by_first_prompt, delivered),
        }
    }

    /// When the startup context was last given.
    pub fn delivered(&self) -> Option<u64> {
        self.fields().2
    }

    fn with_delivered(&self, at: u64) -> Start {
        let (seen, via_fallback, _) = self.fields();
        Start::from_fields(seen, via_fallback, Some(at))
    }
}

/// A context epoch: from the session's first sight, or from its last compaction. Each threshold
/// speaks once per epoch; a handoff written after its start silences the watch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Epoch {
    pub start_ms: u64,
    pub reminded_ms: Option<u64>,
    pub insisted_ms: Option<u64>,
    pub stop_blocked_ms: Option<u64>,
}

impl Epoch {
    pub fn new(start_ms: u64) -> Epoch {
        Epoch {
            start_ms,
            ..Epoch::default()
        }
    }
}

/// The startup context a prompt or tool result owes, in the order they are tried.
#[derive(Clone, Debug, PartialEq)]
pub enum Owed {
    /// A SessionStart with this source left it to this event (the client drops its own).
    Armed(StartSource),
    /// A compaction whose SessionStart `compact` never came.
    Reinjection,
    /// The first prompt of a session no SessionStart announced.
    FirstPrompt,
}

/// What a SessionStart composed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Composed {
    /// Nothing: the session opens late after its first prompt got the context; nothing read.
    Skipped,
    /// Nothing to say.
    Nothing,
    /// A startup context.
    Context,
}

/// How saving a SessionStart's state went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Saved {
    /// Written.
    Landed,
    /// The first-prompt fallback's state, with its delivery, landed first: nothing written.
    LostRace,
    /// Not written: no session to remember, a store not in use, or an error.
    NotSaved,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A SessionStart from this source arrives: nothing read yet.
    StartArrives(StartSource),
    /// It composed its answer; the session's state remembers the start.
    StartComposed(StartSource, Composed),
    /// Its state was saved, or not: what it answers.
    StartSaved(StartSource, Composed, Saved),
    /// A prompt or tool result asks which startup context it owes. `first_prompt`: this is the
    /// session's first prompt and no fallback tried it yet; `compacted_at`: the newest
    /// compaction the transcript shows of a client that compacts without a hook.
    Due {
        first_prompt: bool,
        compacted_at: Option<u64>,
    },
    /// A fallback composed what it owed (`true`: a context, given now).
    FallbackComposed(Owed, bool),
    /// PreCompact. `silent_after`: the client tells hooks nothing after compacting;
    /// `every_request`: a PreCompact that fires before every request, run only when the client
    /// compacts now.
    PreCompact {
        silent_after: bool,
        every_request: bool,
    },
    /// PostCompact.
    PostCompact,
    /// The watch said this in the current epoch.
    Said(Said),
}

/// What the context watch says once per epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Said {
    /// The first threshold's reminder.
    Reminded,
    /// The second threshold's firmer one (the reminder is spent with it).
    Insisted,
    /// The one ask after a turn ended unsaved: a blocked Stop, or the ask again at the next
    /// prompt.
    AskedAtStop,
}

/// What the caller read before asking.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Facts {
    pub now: u64,
    /// When a hook first saw this session.
    pub first_seen_ms: u64,
    /// The session's file was there before this call.
    pub existed: bool,
    /// The client drops this SessionStart's context (`Client::drops_session_start_context`).
    pub drops_context: bool,
    /// This SessionStart's delivery is journaled at the next request
    /// (`Client::journals_start_at_a_request`).
    pub journals_at_request: bool,
    /// The store is in use: a state may be written.
    pub store_usable: bool,
}

/// What the hook does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Read the snapshot and compose the startup context (`after_compaction`: as after a
    /// compaction).
    Compose { after_compaction: bool },
    /// Compose nothing: the first-prompt fallback already gave this session its context.
    SkipCompose,
    /// Save the state: as the session's first (`first`: it races the other hook that may
    /// deliver the first startup context, and only the one that lands first delivers), or over
    /// whatever is there.
    Save { first: bool },
    /// Save nothing.
    Keep,
    /// Save a SessionStart's state (`first` as for [`Action::Save`]); `unconfirmed`: with the
    /// startup context it gives, to be journaled by the session's next request-bound hook
    /// (`Client::journals_start_at_a_request`).
    RememberStart { first: bool, unconfirmed: bool },
    /// SessionStart's answer.
    Answer(Answer),
    /// Compose and deliver this owed context.
    Owe(Owed),
    /// Nothing owed: the watch measures.
    OweNothing,
    /// A compaction: save the state; `armed`: a re-injection is now armed.
    Compacted { armed: bool },
}

/// What a SessionStart answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    /// Silent: the first-prompt fallback delivered this session's context.
    AlreadyDelivered,
    /// Silent: nothing to say.
    NoHandoff,
    /// Silent: the context waits for the next prompt or tool result (the client drops it here).
    LeftToNextPrompt,
    /// The context, now, with its journal line written as said.
    Give(Journal),
}

/// When a given startup context is journaled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Journal {
    Now,
    /// At the session's next prompt, tool result or Stop, which shows a request went out.
    AtNextRequest,
    /// Never: the client may drop it (it should have waited for the next prompt, but its
    /// state could not be saved).
    Never,
}

/// The transitions: the state after `event`, given `facts`, and what to do.
pub fn next(state: &Delivery, event: Event, facts: &Facts) -> (Delivery, Action) {
    let now = facts.now;
    let mut st = state.clone();
    let action = match event {
        Event::StartArrives(source) => {
            if source.opens_session() && matches!(st.start, Start::ByFirstPrompt { .. }) {
                Action::SkipCompose
            } else {
                Action::Compose {
                    after_compaction: source == StartSource::Compact,
                }
            }
        }
        Event::StartComposed(source, composed) => {
            let delivered = composed == Composed::Context;
            let deferred = delivered && facts.drops_context;
            let (_, by_first_prompt, last) = st.start.fields();
            st.start = if delivered && !deferred {
                Start::Started {
                    delivered: Some(now),
                    by_first_prompt: false,
                }
            } else {
                Start::Started {
                    delivered: last,
                    by_first_prompt,
                }
            };
            if source == StartSource::Compact {
                st.epoch = Epoch::new(now);
                st.reinjection_armed_ms = None;
                st.compact_delivered_ms = delivered.then_some(now);
            }
            let first = source.opens_session() && !facts.existed && delivered && !deferred;
            let unconfirmed = delivered && !deferred && facts.journals_at_request;
            if deferred {
                st.armed = Some(source);
            }
            Action::RememberStart { first, unconfirmed }
        }
        Event::StartSaved(_, composed, saved) => Action::Answer(match composed {
            Composed::Skipped => Answer::AlreadyDelivered,
            _ if saved == Saved::LostRace => Answer::AlreadyDelivered,
            Composed::Nothing => Answer::NoHandoff,
            Composed::Context if facts.drops_context && saved == Saved::Landed => {
                Answer::LeftToNextPrompt
            }
            Composed::Context if facts.drops_context => Answer::Give(Journal::Never),
            Composed::Context if facts.journals_at_request => Answer::Give(Journal::AtNextRequest),
            Composed::Context => Answer::Give(Journal::Now),
        }),
        Event::Due {
            first_prompt,
            compacted_at,
        } => {
            if let Some(source) = st.armed.take() {
                Action::Owe(Owed::Armed(source))
            } else {
                // A compaction newer than everything this session already had from us: a new
                // epoch, and the re-injection for this very call. An older one (a forked
                // session's inherited history, one already acted on) changes nothing.
                let known = [
                    Some(facts.first_seen_ms),
                    st.start.delivered(),
                    st.compact_delivered_ms,
                    st.silent_compaction_ms,
                ]
                .into_iter()
                .flatten()
                .max()
                .unwrap_or(0);
                if let Some(at) = compacted_at.filter(|at| *at > known) {
                    st.silent_compaction_ms = Some(at);
                    st.epoch = Epoch::new(now);
                    st.reinjection_armed_ms = Some(now);
                }
                if st.reinjection_armed_ms.take().is_some() {
                    Action::Owe(Owed::Reinjection)
                } else if first_prompt {
                    Action::Owe(Owed::FirstPrompt)
                } else {
                    Action::OweNothing
                }
            }
        }
        Event::FallbackComposed(owed, given) => {
            if given {
                st.start = st.start.with_delivered(now);
                match owed {
                    Owed::Armed(_) => {}
                    Owed::Reinjection => st.compact_delivered_ms = Some(now),
                    Owed::FirstPrompt => {
                        st.start = match st.start {
                            Start::Unseen { delivered } | Start::ByFirstPrompt { delivered } => {
                                Start::ByFirstPrompt { delivered }
                            }
                            Start::Started { delivered, .. } => Start::Started {
                                delivered,
                                by_first_prompt: true,
                            },
                        }
                    }
                }
            }
            match owed {
                // The session is remembered (where handover is in use) even with nothing to
                // deliver, so that a handoff it writes itself is never handed back to it.
                Owed::FirstPrompt if given => Action::Save { first: true },
                Owed::FirstPrompt if facts.store_usable => Action::Save { first: false },
                Owed::FirstPrompt => Action::Keep,
                // Unless the disarming is recorded, the context would come back on every call.
                Owed::Armed(_) | Owed::Reinjection => Action::Save { first: false },
            }
        }
        Event::PreCompact {
            silent_after,
            every_request,
        } => {
            st.pre_compact_ms = Some(now);
            if silent_after {
                st.reinjection_armed_ms = Some(now);
            }
            if every_request {
                st.epoch = Epoch::new(now);
            }
            Action::Compacted {
                armed: silent_after,
            }
        }
        Event::PostCompact => {
            let delivered_for_this_compaction = match (st.compact_delivered_ms, st.pre_compact_ms) {
                (Some(d), Some(p)) => d >= p,
                (Some(d), None) => now.saturating_sub(d) <= RECENT_DELIVERY_MS,
                (None, _) => false,
            };
            if !delivered_for_this_compaction {
                st.reinjection_armed_ms = Some(now);
                st.epoch = Epoch::new(now);
            }
            Action::Compacted {
                armed: !delivered_for_this_compaction,
            }
        }
        Event::Said(said) => {
            let epoch = &mut st.epoch;
            match said {
                Said::AskedAtStop => epoch.stop_blocked_ms = Some(now),
                Said::Insisted => {
                    epoch.insisted_ms = Some(now);
                    epoch.reminded_ms.get_or_insert(now);
                }
                Said::Reminded => {
                    epoch.reminded_ms.get_or_insert(now);
                }
            }
            Action::Save { first: false }
        }
    };
    (st, action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Composed::{Context, Nothing, Skipped};
    use StartSource::{Clear, Compact, New, Resume, Startup};

    const NOW: u64 = 1_000;

    fn unseen() -> Delivery {
        Delivery {
            epoch: Epoch::new(10),
            ..Delivery::default()
        }
    }

    fn with_start(start: Start) -> Delivery {
        Delivery { start, ..unseen() }
    }

    fn started(delivered: Option<u64>) -> Delivery {
        with_start(Start::Started {
            delivered,
            by_first_prompt: false,
        })
    }

    fn by_first_prompt() -> Delivery {
        with_start(Start::ByFirstPrompt {
            delivered: Some(20),
        })
    }

    fn armed(source: StartSource) -> Delivery {
        Delivery {
            armed: Some(source),
            ..started(None)
        }
    }

    fn reinjection_armed() -> Delivery {
        Delivery {
            reinjection_armed_ms: Some(30),
            ..started(Some(20))
        }
    }

    /// A state after a compaction at `NOW`: a new epoch, thresholds cleared.
    fn new_epoch(mut d: Delivery) -> Delivery {
        d.epoch = Epoch::new(NOW);
        d
    }

    fn facts() -> Facts {
        Facts {
            now: NOW,
            first_seen_ms: 10,
            existed: false,
            drops_context: false,
            journals_at_request: false,
            store_usable: true,
        }
    }

    fn existed() -> Facts {
        Facts {
            existed: true,
            ..facts()
        }
    }

    fn drops() -> Facts {
        Facts {
            drops_context: true,
            ..existed()
        }
    }

    fn at_request() -> Facts {
        Facts {
            journals_at_request: true,
            ..existed()
        }
    }

    fn remember(first: bool, unconfirmed: bool) -> Action {
        Action::RememberStart { first, unconfirmed }
    }

    /// Every row: the state before, the event, the facts → the state after, the action.
    fn check(rows: Vec<(Delivery, Event, Facts, Delivery, Action)>) {
        for (i, (before, event, facts, after, action)) in rows.into_iter().enumerate() {
            let what = format!("row {i}: {event:?}");
            assert_eq!(next(&before, event, &facts), (after, action), "{what}");
        }
    }

    #[test]
    fn a_session_start_arrives() {
        let compose = Action::Compose {
            after_compaction: false,
        };
        check(vec![
            (
                unseen(),
                Event::StartArrives(Startup),
                facts(),
                unseen(),
                compose.clone(),
            ),
            (
                unseen(),
                Event::StartArrives(New),
                facts(),
                unseen(),
                compose.clone(),
            ),
            // The first prompt gave the context before this late start: nothing is read.
            (
                by_first_prompt(),
                Event::StartArrives(Startup),
                existed(),
                by_first_prompt(),
                Action::SkipCompose,
            ),
            (
                by_first_prompt(),
                Event::StartArrives(New),
                existed(),
                by_first_prompt(),
                Action::SkipCompose,
            ),
            // Only a start that opens the session is a duplicate.
            (
                by_first_prompt(),
                Event::StartArrives(Resume),
                existed(),
                by_first_prompt(),
                compose.clone(),
            ),
            (
                started(Some(20)),
                Event::StartArrives(Compact),
                existed(),
                started(Some(20)),
                Action::Compose {
                    after_compaction: true,
                },
            ),
            (
                unseen(),
                Event::StartArrives(StartSource::Other("fork".into())),
                facts(),
                unseen(),
                compose,
            ),
        ]);
    }

    #[test]
    fn a_session_start_is_remembered() {
        check(vec![
            // A new session's first state, with the context: it races the first prompt's.
            (
                unseen(),
                Event::StartComposed(Startup, Context),
                facts(),
                started(Some(NOW)),
                remember(true, false),
            ),
            // Nothing to say: remembered all the same, no race to win.
            (
                unseen(),
                Event::StartComposed(Startup, Nothing),
                facts(),
                started(None),
                remember(false, false),
            ),
            // A session file already there: not the first state.
            (
                unseen(),
                Event::StartComposed(New, Context),
                existed(),
                started(Some(NOW)),
                remember(false, false),
            ),
            // The late duplicate: a start seen, the first prompt's delivery kept.
            (
                by_first_prompt(),
                Event::StartComposed(Startup, Skipped),
                existed(),
                with_start(Start::Started {
                    delivered: Some(20),
                    by_first_prompt: true,
                }),
                remember(false, false),
            ),
            // The client drops this context: left to the next prompt, armed with the source.
            (
                started(Some(20)),
                Event::StartComposed(Clear, Context),
                drops(),
                armed_after(Clear, Some(20)),
                remember(false, false),
            ),
            // Dropped, but nothing to say: nothing armed.
            (
                started(Some(20)),
                Event::StartComposed(Resume, Nothing),
                drops(),
                started(Some(20)),
                remember(false, false),
            ),
            // Given now, journaled once a request shows it went out.
            (
                started(Some(20)),
                Event::StartComposed(Resume, Context),
                at_request(),
                started(Some(NOW)),
                remember(false, true),
            ),
            // A compaction: a new epoch, the armed re-injection answered.
            (
                reinjection_armed(),
                Event::StartComposed(Compact, Context),
                existed(),
                Delivery {
                    compact_delivered_ms: Some(NOW),
                    ..new_epoch(started(Some(NOW)))
                },
                remember(false, false),
            ),
            (
                reinjection_armed(),
                Event::StartComposed(Compact, Nothing),
                existed(),
                new_epoch(started(Some(20))),
                remember(false, false),
            ),
        ]);
    }

    fn armed_after(source: StartSource, delivered: Option<u64>) -> Delivery {
        Delivery {
            armed: Some(source),
            ..started(delivered)
        }
    }

    #[test]
    fn a_session_start_answers() {
        let answer = |a: Answer| Action::Answer(a);
        let s = started(Some(NOW));
        let saved = |c: Composed, sv: Saved| Event::StartSaved(Startup, c, sv);
        check(vec![
            (
                s.clone(),
                saved(Context, Saved::Landed),
                facts(),
                s.clone(),
                answer(Answer::Give(Journal::Now)),
            ),
            // Not saved (no session, a store not in use, an error): given all the same.
            (
                s.clone(),
                saved(Context, Saved::NotSaved),
                facts(),
                s.clone(),
                answer(Answer::Give(Journal::Now)),
            ),
            // The first prompt's state landed first with its delivery.
            (
                s.clone(),
                saved(Context, Saved::LostRace),
                facts(),
                s.clone(),
                answer(Answer::AlreadyDelivered),
            ),
            (
                s.clone(),
                saved(Skipped, Saved::Landed),
                existed(),
                s.clone(),
                answer(Answer::AlreadyDelivered),
            ),
            (
                s.clone(),
                saved(Nothing, Saved::Landed),
                facts(),
                s.clone(),
                answer(Answer::NoHandoff),
            ),
            (
                s.clone(),
                saved(Context, Saved::Landed),
                drops(),
                s.clone(),
                answer(Answer::LeftToNextPrompt),
            ),
            // Dropped by the client, but not remembered for the next prompt: given, unjournaled.
            (
                s.clone(),
                saved(Context, Saved::NotSaved),
                drops(),
                s.clone(),
                answer(Answer::Give(Journal::Never)),
            ),
            (
                s.clone(),
                saved(Context, Saved::Landed),
                at_request(),
                s.clone(),
                answer(Answer::Give(Journal::AtNextRequest)),
            ),
            (
                s.clone(),
                saved(Context, Saved::NotSaved),
                at_request(),
                s.clone(),
                answer(Answer::Give(Journal::AtNextRequest)),
            ),
        ]);
    }

    #[test]
    fn a_prompt_or_tool_result_is_owed_in_order() {
        let due = |first_prompt, compacted_at| Event::Due {
            first_prompt,
            compacted_at,
        };
        let silent = |at: u64| Delivery {
            silent_compaction_ms: Some(at),
            reinjection_armed_ms: Some(NOW),
            ..new_epoch(started(Some(20)))
        };
        check(vec![
            // The armed start first, disarmed as it is owed.
            (
                Delivery {
                    reinjection_armed_ms: Some(30),
                    ..armed(Clear)
                },
                due(true, None),
                existed(),
                Delivery {
                    reinjection_armed_ms: Some(30),
                    ..started(None)
                },
                Action::Owe(Owed::Armed(Clear)),
            ),
            (
                reinjection_armed(),
                due(true, None),
                existed(),
                started(Some(20)),
                Action::Owe(Owed::Reinjection),
            ),
            (
                unseen(),
                due(true, None),
                facts(),
                unseen(),
                Action::Owe(Owed::FirstPrompt),
            ),
            (
                started(Some(20)),
                due(false, None),
                existed(),
                started(Some(20)),
                Action::OweNothing,
            ),
            // A compaction the transcript shows, newer than all we gave: a new epoch, and
            // its re-injection owed now (armed, then taken).
            (
                started(Some(20)),
                due(false, Some(500)),
                existed(),
                Delivery {
                    reinjection_armed_ms: None,
                    ..silent(500)
                },
                Action::Owe(Owed::Reinjection),
            ),
            // One already known (older than a delivery, or the one acted on): nothing.
            (
                started(Some(20)),
                due(false, Some(15)),
                existed(),
                started(Some(20)),
                Action::OweNothing,
            ),
            (
                Delivery {
                    reinjection_armed_ms: None,
                    ..silent(500)
                },
                due(false, Some(500)),
                existed(),
                Delivery {
                    reinjection_armed_ms: None,
                    ..silent(500)
                },
                Action::OweNothing,
            ),
            // Older than the session's first sight (a forked session's history): nothing.
            (
                unseen(),
                due(false, Some(5)),
                facts(),
                unseen(),
                Action::OweNothing,
            ),
        ]);
    }

    #[test]
    fn a_fallback_remembers_what_it_gave() {
        let composed = |owed, given| Event::FallbackComposed(owed, given);
        let unusable = Facts {
            store_usable: false,
            ..facts()
        };
        check(vec![
            (
                unseen(),
                composed(Owed::FirstPrompt, true),
                facts(),
                with_start(Start::ByFirstPrompt {
                    delivered: Some(NOW),
                }),
                Action::Save { first: true },
            ),
            (
                unseen(),
                composed(Owed::FirstPrompt, false),
                facts(),
                unseen(),
                Action::Save { first: false },
            ),
            (
                unseen(),
                composed(Owed::FirstPrompt, false),
                unusable,
                unseen(),
                Action::Keep,
            ),
            // A first prompt after a start that said nothing.
            (
                started(None),
                composed(Owed::FirstPrompt, true),
                existed(),
                with_start(Start::Started {
                    delivered: Some(NOW),
                    by_first_prompt: true,
                }),
                Action::Save { first: true },
            ),
            (
                started(Some(20)),
                composed(Owed::Reinjection, true),
                existed(),
                Delivery {
                    compact_delivered_ms: Some(NOW),
                    ..started(Some(NOW))
                },
                Action::Save { first: false },
            ),
            // Nothing given: only the disarming is saved.
            (
                started(Some(20)),
                composed(Owed::Reinjection, false),
                existed(),
                started(Some(20)),
                Action::Save { first: false },
            ),
            (
                started(None),
                composed(Owed::Armed(Clear), true),
                existed(),
                started(Some(NOW)),
                Action::Save { first: false },
            ),
        ]);
    }

    #[test]
    fn a_compaction_arms_the_reinjection_unless_its_start_delivered() {
        let pre = |silent_after, every_request| Event::PreCompact {
            silent_after,
            every_request,
        };
        let at = |pre: Option<u64>, delivered: Option<u64>| Delivery {
            pre_compact_ms: pre,
            compact_delivered_ms: delivered,
            ..started(Some(20))
        };
        let armed_now = |d: Delivery| Delivery {
            reinjection_armed_ms: Some(NOW),
            ..new_epoch(d)
        };
        let compacted = |armed| Action::Compacted { armed };
        check(vec![
            (
                started(Some(20)),
                pre(false, false),
                existed(),
                at(Some(NOW), None),
                compacted(false),
            ),
            // A client that says nothing after compacting: armed at PreCompact.
            (
                started(Some(20)),
                pre(true, false),
                existed(),
                Delivery {
                    reinjection_armed_ms: Some(NOW),
                    ..at(Some(NOW), None)
                },
                compacted(true),
            ),
            // A PreCompact that runs only when the client compacts now: a new epoch.
            (
                started(Some(20)),
                pre(false, true),
                existed(),
                new_epoch(at(Some(NOW), None)),
                compacted(false),
            ),
            // SessionStart `compact` delivered after this compaction's PreCompact.
            (
                at(Some(500), Some(600)),
                Event::PostCompact,
                existed(),
                at(Some(500), Some(600)),
                compacted(false),
            ),
            (
                at(Some(500), Some(400)),
                Event::PostCompact,
                existed(),
                armed_now(at(Some(500), Some(400))),
                compacted(true),
            ),
            // No PreCompact seen: a recent compact delivery counts.
            (
                at(None, Some(NOW - 100)),
                Event::PostCompact,
                existed(),
                at(None, Some(NOW - 100)),
                compacted(false),
            ),
            (
                at(None, Some(0)),
                Event::PostCompact,
                Facts {
                    now: RECENT_DELIVERY_MS + 1,
                    ..existed()
                },
                Delivery {
                    reinjection_armed_ms: Some(RECENT_DELIVERY_MS + 1),
                    epoch: Epoch::new(RECENT_DELIVERY_MS + 1),
                    ..at(None, Some(0))
                },
                compacted(true),
            ),
            (
                started(Some(20)),
                Event::PostCompact,
                existed(),
                armed_now(started(Some(20))),
                compacted(true),
            ),
        ]);
    }

    #[test]
    fn each_threshold_is_said_once_per_epoch() {
        let epoch = |reminded, insisted, stop_blocked| Delivery {
            epoch: Epoch {
                start_ms: 10,
                reminded_ms: reminded,
                insisted_ms: insisted,
                stop_blocked_ms: stop_blocked,
            },
            ..started(Some(20))
        };
        let save = Action::Save { first: false };
        check(vec![
            (
                epoch(None, None, None),
                Event::Said(Said::Reminded),
                existed(),
                epoch(Some(NOW), None, None),
                save.clone(),
            ),
            // Past the second threshold, the first one is spent too, but keeps its time.
            (
                epoch(None, None, None),
                Event::Said(Said::Insisted),
                existed(),
                epoch(Some(NOW), Some(NOW), None),
                save.clone(),
            ),
            (
                epoch(Some(5), None, None),
                Event::Said(Said::Insisted),
                existed(),
                epoch(Some(5), Some(NOW), None),
                save.clone(),
            ),
            (
                epoch(Some(5), Some(6), None),
                Event::Said(Said::AskedAtStop),
                existed(),
                epoch(Some(5), Some(6), Some(NOW)),
                save,
            ),
        ]);
    }

    #[test]
    fn a_new_epoch_clears_the_thresholds_and_nothing_else() {
        let mut before = reinjection_armed();
        before.epoch = Epoch {
            start_ms: 10,
            reminded_ms: Some(2),
            insisted_ms: Some(3),
            stop_blocked_ms: Some(4),
        };
        let (after, _) = next(&before, Event::PostCompact, &existed());
        assert_eq!(after.epoch, Epoch::new(NOW));
        assert_eq!(after.start, before.start);
    }
}
