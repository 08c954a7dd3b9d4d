//! Recall: the repository's history read back for people (`handover log`, `show`, `search`)
//! and for agents (the MCP server). Everything it reads — archived and fetched handoffs,
//! session records, the journal — is untrusted input: reads are bounded, and text is sanitized
//! and labelled by where it came from before anything shows it.
//!
//! [`read::read`] is the one reader: every handoff (current, archived, only in the journal,
//! fetched from another machine) and session record (this working tree's, foreign, fetched) as
//! an [`item::Item`] with its id, origin, time, branch, agent and text fields by name, plus the
//! journal's events and what was skipped. [`timeline`] makes `handover log`'s lines of it;
//! [`when`] reads and says times. [`search`] finds and ranks text in documents of named
//! fields, whatever they come from (`handover search` gives it the items).

pub mod item;
pub mod journal;
pub mod read;
pub mod search;
pub mod timeline;
pub mod when;

/// A text of the history (a field, a name) as it may be shown to a person or an agent: secrets
/// redacted, then quoted on one line (`sanitize::quote`: « », no controls, bounded), so it can
/// never read as handover's own words.
pub fn shown(text: &str) -> String {
    handover_handoff::sanitize::quote(&handover_handoff::sanitize::redacted(text))
}

/// [`shown`] within `max_chars`.
pub fn shown_within(text: &str, max_chars: usize) -> String {
    handover_handoff::sanitize::quote_within(&handover_handoff::sanitize::redacted(text), max_chars)
}
