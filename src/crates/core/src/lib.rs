//! handover-core: the handoff's flows and the texts an agent reads.
//!
//! Writing a handoff ([`write`]: redact, validate, stamp with git facts, seal, store), what a
//! new session is shown at its start ([`startup`]), every text put in front of an agent
//! ([`context`]), keeping the handoff files out of git ([`guard`]), and handoffs that travel
//! through a git remote ([`travel`]). The `handover` CLI (src/main.rs, src/cli/) and the hook
//! logic (hooks/) are layers over it; they name the lower crates they use themselves
//! (handover-handoff for the document and its store, handover-git and handover-verify for the
//! repository and the verdict, handover-record for session records).

pub mod context;
pub mod guard;
pub mod startup;
pub mod travel;
pub mod write;

/// The git command line of the unit tests, shared with the other library crates.
#[cfg(test)]
#[path = "../../../../tests/support/src/test_git.rs"]
pub mod test_git;
