//! Step 3 of a start: the text of a decision (the words themselves are in `context` and
//! `record::text`).

use super::decide::Decision;
use super::snapshot::{Found, Snapshot};
use crate::context::{self, Startup};
use handover_handoff::model::Verdict;
use handover_record::text as record_text;

/// The most of the startup budget the "since the handoff" part may take.
const SINCE_HANDOFF_SHARE: usize = 3;

/// What one start delivers: the text, and what the journal says of it.
pub struct Delivery {
    pub text: String,
    /// None when the store is damaged beyond recovery (journaled as `unrecoverable`), refused
    /// (see `handover_handoff::safe_fs`; nothing is journaled in a refused store), or when only
    /// the last session's record is delivered (`record_only`).
    pub verdict: Option<Verdict>,
    pub handoff_id: Option<String>,
    /// No handoff: the text is the last session's record alone.
    pub record_only: bool,
}

impl Delivery {
    /// The verdict as journaled: a verdict, `unrecoverable` or `record_only`.
    pub fn verdict_name(&self) -> &'static str {
        match (self.verdict, self.record_only) {
            (Some(v), _) => v.as_str(),
            (None, true) => "record_only",
            (None, false) => "unrecoverable",
        }
    }
}

/// The text of a decision, within the snapshot's budget; `command` is how the agent runs
/// handover. None when there is nothing to say (a record whose facts do not fit says nothing
/// either).
pub fn render(s: &Snapshot, decision: Decision, command: &str) -> Option<Delivery> {
    match decision {
        Decision::Silent => None,
        Decision::RecordOnly(last) => {
            let text =
                record_text::without_handoff(&last.record, &last.now, command, s.budget_chars);
            (!text.is_empty()).then_some(Delivery {
                text,
                verdict: None,
                handoff_id: None,
                record_only: true,
            })
        }
        Decision::Handoff { found, since } => {
            let since = since
                .map(|l| {
                    record_text::since_handoff(
                        &l.record,
                        &l.now,
                        s.budget_chars / SINCE_HANDOFF_SHARE,
                    )
                })
                .filter(|text| !text.is_empty());
            let budget = s
                .budget_chars
                .saturating_sub(since.as_ref().map_or(0, |t| t.chars().count() + 1));
            let mut delivery = handoff_text(found, s.after_compaction, budget, command)?;
            if matches!(found, Found::Local(_)) && s.earlier > 0 {
                // Where it fits: the handoff's own text is never trimmed to make room for it.
                let line = context::earlier_handoffs(s.earlier, command);
                if delivery.text.chars().count() + 1 + line.chars().count() <= budget {
                    delivery.text.push('\n');
                    delivery.text.push_str(&line);
                }
            }
            if let Some(text) = since {
                delivery.text.push('\n');
                delivery.text.push_str(&text);
            }
            Some(delivery)
        }
    }
}

/// The handoff's part of the text: the startup context, or what stands in its place.
fn handoff_text(
    found: &Found,
    after_compaction: bool,
    budget: usize,
    command: &str,
) -> Option<Delivery> {
    let unverified = |text| Delivery {
        text,
        verdict: None,
        handoff_id: None,
        record_only: false,
    };
    let (verified, fetched_from) = match found {
        Found::Missing => return None,
        Found::Refused(problem) => {
            return Some(unverified(context::refused_context(problem, command)))
        }
        Found::Unrecoverable(problem) => {
            return Some(unverified(context::unrecoverable_context(problem, command)))
        }
        Found::Local(v) => (v, None),
        Found::Fetched {
            verified,
            label,
            travelled,
        } => (verified, Some((label.as_str(), *travelled))),
    };
    let startup = Startup {
        handoff: &verified.handoff,
        verification: &verified.verification,
        recovered_from: verified.note.as_deref(),
        after_compaction,
        budget_chars: budget,
        command,
    };
    let mut text = match fetched_from {
        None => context::startup_context(&startup),
        Some((label, travelled)) => context::fetched_startup_context(&startup, label, travelled),
    };
    if verified.hand_edited {
        text.push('\n');
        text.push_str(&handover_handoff::hand_edits::edited_notice(command));
    }
    Some(Delivery {
        text,
        verdict: Some(verified.verification.verdict),
        handoff_id: verified.id.clone(),
        record_only: false,
    })
}
