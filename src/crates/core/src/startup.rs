//! What a new session is shown at its start: the handoff's startup context (verified cheaply),
//! with the "since the handoff" part from the last session's record, or that record alone when
//! there is no handoff and its work looks unfinished. One composition for the SessionStart hook,
//! the context watch's fallbacks and `handover boot --startup`, so the preview is exactly what
//! the hook says.
//!
//! Three steps, each called once and in this order, with plain data between them:
//! [`Snapshot::read`] reads the store and the repository (`snapshot.rs`: every file and git read
//! of a start is there), [`decide`] chooses what to show from the snapshot alone (`decide.rs`:
//! no I/O, unit-tested without a repository), [`render`] turns that choice into the text
//! (`render.rs`; `context` and `record::text` hold the words). The caller journals what was
//! delivered.

pub mod decide;
pub mod render;
pub mod snapshot;

use handover_handoff::store::Store;

pub use decide::{decide, Decision};
pub use render::{render, Delivery};
pub use snapshot::{Found, LastSession, Snapshot, Verified};

/// The three steps at once, for `handover boot --startup`: exactly what a SessionStart
/// `startup` would deliver. None when there is nothing to deliver.
pub fn build(store: &Store, command: &str, after_compaction: bool) -> Option<Delivery> {
    let snapshot = Snapshot::read(store, after_compaction, None);
    render(&snapshot, decide(&snapshot), command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use handover_handoff::config::ShowRecord;
    use handover_handoff::model::{Handoff, Verdict, Verification};
    use handover_record::text::Now;
    use handover_record::SessionRecord;

    fn verified() -> Verified {
        Verified {
            handoff: Handoff::default(),
            verification: Verification {
                verdict: Verdict::Fresh,
                reasons: Vec::new(),
            },
            note: None,
            id: Some("h1".into()),
            hand_edited: false,
        }
    }

    /// A record last active at `active_ms`, with work the handoff may not know about
    /// (`work`), and `uncommitted` files left.
    fn last(active_ms: u64, work: bool, uncommitted: &[&str]) -> LastSession {
        let mut record = SessionRecord::new("s1", handover_clients::Agent::Claude);
        record.agent = "claude-code".into();
        record.last_activity_ms = active_ms;
        record.work_since_handoff = work;
        LastSession {
            record,
            now: Now {
                uncommitted: uncommitted.iter().map(|s| s.to_string()).collect(),
            },
        }
    }

    fn snapshot(handoff: Found, last: Option<LastSession>, show: ShowRecord) -> Snapshot {
        Snapshot {
            handoff,
            handoff_written_ms: 1_000,
            last,
            show_record: show,
            budget_chars: 2_000,
            after_compaction: false,
            earlier: 0,
        }
    }

    fn kind(d: Decision) -> String {
        match d {
            Decision::Silent => "silent".into(),
            Decision::RecordOnly(_) => "record only".into(),
            Decision::Handoff { found, since } => format!(
                "{} {}",
                match found {
                    Found::Missing => "missing",
                    Found::Refused(_) => "refused",
                    Found::Unrecoverable(_) => "unrecoverable",
                    Found::Local(_) => "local",
                    Found::Fetched { .. } => "fetched",
                },
                if since.is_some() { "+since" } else { "alone" }
            ),
        }
    }

    #[test]
    fn without_a_handoff_the_record_shows_only_when_unfinished_or_always() {
        let unfinished = || Some(last(5_000, true, &["src/a.rs"]));
        let finished = || Some(last(5_000, true, &[]));
        let cases = [
            (None, ShowRecord::Always, "silent"),
            (unfinished(), ShowRecord::Unfinished, "record only"),
            (finished(), ShowRecord::Unfinished, "silent"),
            (finished(), ShowRecord::Always, "record only"),
            (unfinished(), ShowRecord::Never, "silent"),
        ];
        for (i, (l, show, want)) in cases.into_iter().enumerate() {
            let s = snapshot(Found::Missing, l, show);
            assert_eq!(kind(decide(&s)), want, "case {i}");
        }
    }

    #[test]
    fn the_last_session_joins_a_handoff_only_with_work_after_it() {
        let cases = [
            (Some(last(5_000, true, &[])), "local +since"),
            // Active before the handoff was written: the handoff knows its work.
            (Some(last(1_000, true, &["src/a.rs"])), "local alone"),
            // Active after it, but with nothing the handoff does not know about.
            (Some(last(5_000, false, &["src/a.rs"])), "local alone"),
            (None, "local alone"),
        ];
        for (i, (l, want)) in cases.into_iter().enumerate() {
            let s = snapshot(Found::Local(verified()), l, ShowRecord::Unfinished);
            assert_eq!(kind(decide(&s)), want, "case {i}");
        }
    }

    #[test]
    fn a_refused_damaged_or_fetched_store_is_said_with_the_work_since() {
        let found = [
            (Found::Refused("a link".into()), "refused +since"),
            (
                Found::Unrecoverable("bad json".into()),
                "unrecoverable +since",
            ),
            (
                Found::Fetched {
                    verified: verified(),
                    label: "machine «m»".into(),
                    travelled: 0,
                },
                "fetched +since",
            ),
        ];
        for (f, want) in found {
            let s = snapshot(f, Some(last(5_000, true, &[])), ShowRecord::Never);
            assert_eq!(kind(decide(&s)), want);
        }
    }

    #[test]
    fn render_names_the_verdict_and_id_and_only_a_silent_decision_says_nothing() {
        let s = snapshot(Found::Local(verified()), None, ShowRecord::Unfinished);
        let decision = decide(&s);
        assert!(decision.says_something());
        let d = render(&s, decision, "handover").expect("a handoff is said");
        assert_eq!(
            (d.verdict_name(), d.handoff_id.as_deref(), d.record_only),
            ("fresh", Some("h1"), false)
        );
        assert!(d.text.ends_with("run `handover ack`."), "{}", d.text);

        let silent = snapshot(Found::Missing, None, ShowRecord::Always);
        let decision = decide(&silent);
        assert!(!decision.says_something());
        assert!(render(&silent, decision, "handover").is_none());

        let mut with_history = snapshot(Found::Local(verified()), None, ShowRecord::Never);
        for (earlier, ending) in [
            (
                3,
                "\n3 earlier handoffs on this branch: `handover log` lists them.",
            ),
            (
                1,
                "\n1 earlier handoff on this branch: `handover log` lists it.",
            ),
        ] {
            with_history.earlier = earlier;
            let d = render(&with_history, decide(&with_history), "handover").unwrap();
            assert!(d.text.ends_with(ending), "{}", d.text);
        }
        // Only where it fits: the handoff's own text comes first.
        let fitted = render(&s, decide(&s), "handover")
            .unwrap()
            .text
            .chars()
            .count();
        with_history.budget_chars = fitted + 10;
        let d = render(&with_history, decide(&with_history), "handover").unwrap();
        assert!(!d.text.contains("earlier handoff"), "{}", d.text);
        assert!(d.text.chars().count() <= with_history.budget_chars);

        let damaged = snapshot(Found::Unrecoverable("x".into()), None, ShowRecord::Never);
        let d = render(&damaged, decide(&damaged), "handover").unwrap();
        assert_eq!((d.verdict_name(), d.handoff_id), ("unrecoverable", None));
    }
}
