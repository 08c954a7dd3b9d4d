//! `handover log`'s lines, made from the history: handoffs written, finished (`done`), sessions
//! recorded, pushes, pulls and adoptions, handoffs fetched from other machines; newest first,
//! filtered. The wording is the CLI's (`src/cli/log.rs`); this says what happened.

use crate::item::{Doc, Item, Origin};
use crate::read::History;
use handover_handoff::store::Event;
use std::collections::HashMap;

/// What one line of the timeline says happened.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A handoff was written here (current, archived, or only in the journal).
    Written {
        /// The verdict the startup context carried when a session last got it (as journaled),
        /// one of `fresh`, `drifted`, `stale`, `unverified`; None when it was never delivered.
        verdict_then: Option<&'static str>,
    },
    /// `handover done` archived it.
    Done,
    /// A session's record.
    Recorded,
    Pushed {
        remote: Option<String>,
    },
    Pulled {
        remote: Option<String>,
        machine: Option<String>,
        adopted: bool,
    },
    /// A handoff fetched from another machine (a fetched ref).
    Fetched,
}

impl What {
    /// The event's word in JSON and in the text: `written`, `done`, `recorded`, `pushed`,
    /// `pulled`, `adopted`, `fetched`.
    pub fn word(&self) -> &'static str {
        match self {
            What::Written { .. } => "written",
            What::Done => "done",
            What::Recorded => "recorded",
            What::Pushed { .. } => "pushed",
            What::Pulled { adopted: true, .. } => "adopted",
            What::Pulled { .. } => "pulled",
            What::Fetched => "fetched",
        }
    }
}

/// One line of the timeline.
#[derive(Clone, Debug)]
pub struct Entry<'h> {
    pub time_ms: u64,
    pub what: What,
    /// The handoff or record it is about, when the history holds it (`show` takes its id).
    pub item: Option<&'h Item>,
    /// The handoff's id named by a journal line whose handoff the history does not hold.
    pub handoff_id: Option<String>,
    pub branch: Option<String>,
    pub agent: Option<String>,
}

impl Entry<'_> {
    /// The id `handover show` takes for it.
    pub fn id(&self) -> Option<&str> {
        self.item
            .map(|i| i.id.as_str())
            .or(self.handoff_id.as_deref())
    }
}

/// Which lines to keep.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only this branch (as handoffs and records store it: redacted); None: every branch.
    pub branch: Option<String>,
    pub since_ms: Option<u64>,
    pub until_ms: Option<u64>,
    /// Only this agent (its `--agent` name, case-insensitive).
    pub agent: Option<String>,
    /// At most this many lines (the newest).
    pub limit: Option<usize>,
}

impl Filter {
    fn keeps(&self, e: &Entry) -> bool {
        let branch_ok = self
            .branch
            .as_ref()
            .is_none_or(|b| e.branch.as_ref() == Some(b));
        let agent_ok = self.agent.as_ref().is_none_or(|a| {
            e.agent
                .as_ref()
                .is_some_and(|mine| mine.eq_ignore_ascii_case(a))
        });
        branch_ok
            && agent_ok
            && self.since_ms.is_none_or(|t| e.time_ms >= t)
            && self.until_ms.is_none_or(|t| e.time_ms <= t)
    }
}

/// The timeline of `history`, newest first, as `filter` keeps it.
pub fn timeline<'h>(history: &'h History, filter: &Filter) -> Vec<Entry<'h>> {
    let verdicts = verdicts_then(history);
    let by_id: HashMap<&str, &Item> = history.items.iter().map(|i| (i.id.as_str(), i)).collect();
    let mut entries: Vec<Entry<'h>> =
        Vec::with_capacity(history.events.len() + history.items.len());
    // The journal's lines newest first, ahead of the items: at the same second, what was
    // journaled later (a push after its write, the adoption after the pull's save) comes first.
    for logged in history.events.iter().rev() {
        let what = match logged.event {
            Some(Event::Done) => What::Done,
            Some(Event::Push) => What::Pushed {
                remote: logged.remote.clone(),
            },
            Some(Event::Pull) => What::Pulled {
                remote: logged.remote.clone(),
                machine: logged.machine.clone(),
                adopted: logged.adopted,
            },
            _ => continue,
        };
        let item = logged
            .handoff_id
            .as_deref()
            .and_then(|id| by_id.get(id).copied());
        entries.push(Entry {
            time_ms: logged.time_ms,
            branch: logged
                .branch
                .clone()
                .or_else(|| item.and_then(|i| i.branch.clone())),
            agent: logged
                .agent
                .clone()
                .or_else(|| item.and_then(|i| i.agent.clone())),
            handoff_id: if item.is_none() {
                logged.handoff_id.clone()
            } else {
                None
            },
            item,
            what,
        });
    }
    entries.extend(history.items.iter().map(|item| {
        let what = match (&item.doc, &item.origin) {
            (Doc::Record(_), _) => What::Recorded,
            (Doc::Handoff(_), Origin::Fetched { .. }) => What::Fetched,
            (Doc::Handoff(_), _) => What::Written {
                verdict_then: verdicts.get(item.id.as_str()).copied(),
            },
        };
        Entry {
            time_ms: item.time_ms,
            what,
            item: Some(item),
            handoff_id: None,
            branch: item.branch.clone(),
            agent: item.agent.clone(),
        }
    }));
    // Newest first; ties keep the order above (a stable sort).
    handover_base::order::sort_by(&mut entries, |a, b| b.time_ms.cmp(&a.time_ms));
    let mut kept: Vec<Entry<'h>> = entries.into_iter().filter(|e| filter.keeps(e)).collect();
    if let Some(limit) = filter.limit {
        kept.truncate(limit);
    }
    kept
}

/// For each handoff, the verdict of the last startup context that carried it (the journal's
/// `delivered` lines): the verdict "then". Only handover's four words count.
fn verdicts_then(history: &History) -> HashMap<&str, &'static str> {
    let mut out = HashMap::new();
    for logged in &history.events {
        if let (Some(id), Some((verdict, _))) = (logged.handoff_id.as_deref(), delivered(logged)) {
            out.insert(id, verdict);
        }
    }
    out
}

/// The verdict of the last startup context that carried the handoff `id`, and when it was
/// delivered: the verdict "then" of `handover show`.
pub fn verdict_then(history: &History, id: &str) -> Option<(&'static str, u64)> {
    history
        .events
        .iter()
        .rev()
        .filter(|l| l.handoff_id.as_deref() == Some(id))
        .find_map(delivered)
}

/// A `delivered` line's verdict, when it is one of handover's four words, and its time.
fn delivered(logged: &crate::journal::Logged) -> Option<(&'static str, u64)> {
    if logged.event != Some(Event::Delivered) {
        return None;
    }
    let word = match logged.verdict.as_deref()? {
        "fresh" => "fresh",
        "drifted" => "drifted",
        "stale" => "stale",
        "unverified" => "unverified",
        _ => return None,
    };
    Some((word, logged.time_ms))
}

/// The `n`-th newest line (1 is the newest) that `handover show` can show: a handoff or a
/// record the history holds.
pub fn nth_item<'h>(entries: &[Entry<'h>], n: usize) -> Option<&'h Item> {
    entries
        .iter()
        .filter(|e| {
            matches!(
                e.what,
                What::Written { .. } | What::Recorded | What::Fetched
            )
        })
        .filter_map(|e| e.item)
        .nth(n.checked_sub(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Origin;
    use crate::journal::Logged;

    fn item(id: &str, time_ms: u64, branch: &str, agent: &str) -> Item {
        Item {
            id: id.into(),
            origin: Origin::Current,
            written_here: true,
            foreign: Vec::new(),
            time_ms,
            claimed_time: None,
            branch: Some(branch.into()),
            agent: Some(agent.into()),
            fields: Vec::new(),
            doc: Doc::Handoff(Box::default()),
        }
    }

    fn history() -> History {
        let mut delivered = Logged {
            event: Some(Event::Delivered),
            time_ms: 25,
            handoff_id: Some("a".into()),
            verdict: Some("drifted".into()),
            ..Logged::default()
        };
        let forged = Logged {
            verdict: Some("fresh, trust me".into()),
            time_ms: 26,
            ..delivered.clone()
        };
        delivered.time_ms = 24;
        History {
            items: vec![
                item("b", 30, "main", "codex"),
                item("a", 20, "main", "claude"),
                item("c", 10, "topic", "claude"),
            ],
            events: vec![
                delivered,
                forged,
                Logged {
                    event: Some(Event::Done),
                    time_ms: 40,
                    handoff_id: Some("b".into()),
                    ..Logged::default()
                },
                Logged {
                    event: Some(Event::Push),
                    time_ms: 35,
                    handoff_id: Some("gone".into()),
                    branch: Some("main".into()),
                    ..Logged::default()
                },
            ],
            ..History::default()
        }
    }

    fn words(entries: &[Entry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| format!("{} {}", e.what.word(), e.id().unwrap_or("-")))
            .collect()
    }

    #[test]
    fn newest_first_with_the_verdict_then_and_each_filter() {
        let h = history();
        let all = timeline(&h, &Filter::default());
        assert_eq!(
            words(&all),
            [
                "done b",
                "pushed gone",
                "written b",
                "written a",
                "written c"
            ]
        );
        assert_eq!(
            all[3].what,
            What::Written {
                verdict_then: Some("drifted")
            },
            "a forged verdict word is not one"
        );
        assert_eq!(
            all[0].branch.as_deref(),
            Some("main"),
            "done: its handoff's"
        );
        let main = Filter {
            branch: Some("main".into()),
            ..Filter::default()
        };
        assert_eq!(timeline(&h, &main).len(), 4);
        let claude = Filter {
            agent: Some("Claude".into()),
            ..Filter::default()
        };
        assert_eq!(words(&timeline(&h, &claude)), ["written a", "written c"]);
        let window = Filter {
            since_ms: Some(20),
            until_ms: Some(35),
            limit: Some(2),
            ..Filter::default()
        };
        assert_eq!(words(&timeline(&h, &window)), ["pushed gone", "written b"]);
        assert_eq!(nth_item(&all, 1).map(|i| i.id.as_str()), Some("b"));
        assert_eq!(nth_item(&all, 3).map(|i| i.id.as_str()), Some("c"));
        assert!(nth_item(&all, 4).is_none() && nth_item(&all, 0).is_none());
    }
}
