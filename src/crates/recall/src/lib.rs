//! Recall: the repository's history read back for people (`handover log`, `show`, `search`)
//! and for agents (the MCP server). Everything it reads — archived and fetched handoffs,
//! session records, the journal — is untrusted input: reads are bounded, and text is sanitized
//! and labelled by where it came from before anything shows it.
//!
//! [`read::read`] is the one reader: every handoff (current, archived, only in the journal,
//! fetched from another machine) and session record (this working tree's, foreign, fetched) as
//! an [`item::Item`] with its id, origin, time, branch, agent and text fields by name, plus the
//! journal's events and what was skipped. [`timeline`] makes `handover log`'s lines of it;
//! [`when`] reads and says times; [`cache`] keeps what `handover log` listed of each file, outside
//! the repository. [`search`] finds and ranks text in documents of named
//! fields, whatever they come from (`handover search` gives it the items).

pub mod cache;
pub mod item;
pub mod journal;
pub mod read;
pub mod search;
pub mod timeline;
pub mod when;

use handover_base::memory::TextMemory;
use std::cell::RefCell;

/// A text of the history (a field, a name) as it may be shown to a person or an agent: secrets
/// redacted, then quoted on one line (`sanitize::quote`: « », no controls, bounded), so it can
/// never read as handover's own words.
pub fn shown(text: &str) -> String {
    remembered(text, None)
}

/// [`shown`] within `max_chars`.
pub fn shown_within(text: &str, max_chars: usize) -> String {
    remembered(text, Some(max_chars))
}

thread_local! {
    /// By bound (None: none), then by text.
    static REMEMBERED: RefCell<TextMemory<Option<usize>>> = RefCell::new(TextMemory::default());
}

/// [`shown`] (`max_chars` None) or [`shown_within`], remembered per thread for short texts
/// (`handover_base::memory`): a listing of thousands of lines names the same agents, reasons
/// and files again and again, and the answer depends on the text and the bound alone.
fn remembered(text: &str, max_chars: Option<usize>) -> String {
    handover_base::memory::remembered(&REMEMBERED, max_chars, text, |text| {
        let clean = handover_handoff::sanitize::redacted(text);
        match max_chars {
            None => handover_handoff::sanitize::quote(&clean),
            Some(max) => handover_handoff::sanitize::quote_within(&clean, max),
        }
    })
}

/// The texts a test of a remembered function asks (shared with the record crate's tests).
#[cfg(test)]
#[path = "../../../../tests/support/src/remembered_texts.rs"]
mod remembered_texts;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_text_is_shown_as_the_first_time() {
        let samples = [
            "src/lib.rs",
            "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB in a goal",
            "line\nbreak \u{1b}[31mred",
            "",
            "a goal of many words that goes on past the bound of a listing's line",
        ];
        for text in crate::remembered_texts::rounds(samples, 'y') {
            let redacted = handover_handoff::sanitize::redacted(&text);
            assert_eq!(
                shown(&text),
                handover_handoff::sanitize::quote(&redacted),
                "{text:?}"
            );
            for max in [3, 80] {
                assert_eq!(
                    shown_within(&text, max),
                    handover_handoff::sanitize::quote_within(&redacted, max),
                    "{text:?} within {max}"
                );
            }
        }
    }
}
