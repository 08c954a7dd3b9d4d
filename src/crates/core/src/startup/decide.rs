//! Step 2 of a start: what to show, chosen from the snapshot alone (no I/O).

use super::snapshot::{Found, LastSession, Snapshot};
use handover_handoff::config::ShowRecord;

/// What a start shows, chosen from the snapshot alone.
#[derive(Clone, Copy)]
pub enum Decision<'a> {
    /// Nothing worth saying: no handoff, and no record of the last session worth showing.
    Silent,
    /// What was found in the handoff's place, and the last session's work since it when there
    /// was some.
    Handoff {
        found: &'a Found,
        since: Option<&'a LastSession>,
    },
    /// No handoff: the last session's record alone (its work looks unfinished, or the
    /// configuration says always).
    RecordOnly(&'a LastSession),
}

impl Decision<'_> {
    /// Anything to say: only then is it worth finding how the agent runs handover (a walk of
    /// the PATH) for the text.
    pub fn says_something(&self) -> bool {
        !matches!(self, Decision::Silent)
    }
}

/// Chooses what the start shows. Pure: the snapshot holds every fact it looks at.
pub fn decide(s: &Snapshot) -> Decision<'_> {
    match (&s.handoff, &s.last) {
        (Found::Missing, Some(last)) => {
            let show = match s.show_record {
                ShowRecord::Always => true,
                ShowRecord::Unfinished => last.now.unfinished(&last.record),
                ShowRecord::Never => false,
            };
            if show {
                Decision::RecordOnly(last)
            } else {
                Decision::Silent
            }
        }
        (Found::Missing, None) => Decision::Silent,
        (found, last) => Decision::Handoff {
            found,
            since: last
                .as_ref()
                .filter(|l| LastSession::worked_after(&l.record, s.handoff_written_ms)),
        },
    }
}
