//! handover-core: the handoff's flows and the texts an agent reads.
//!
//! Writing a handoff ([`write`]: redact, validate, stamp with git facts, seal, store), what a
//! new session is shown at its start ([`startup`]), every text put in front of an agent
//! ([`context`]), keeping the handoff files out of git ([`guard`]), and handoffs that travel
//! through a git remote ([`travel`]). The `handover` CLI (src/main.rs, src/cli/) and the hook
//! logic (hooks/) are layers over it.
//!
//! The domains below it are crates of their own, one-way: handover-redact (secrets out of
//! text) ← handover-handoff (the document and its store) ← handover-verify (git facts and
//! verdicts) ← handover-record (session records). They are re-exported here under their old
//! paths (`handover_core::store`, `handover_core::git`, …) so that callers need not know the
//! split.

pub mod context;
pub mod guard;
pub mod startup;
pub mod travel;
pub mod write;

/// The client modules (what each client sets, writes and reads), for the CLI's agent detection.
pub use handover_clients as clients;
pub use handover_handoff::{
    config, hand_edits, markdown, model, os_path, safe_fs, sanitize, store, validate,
};
pub use handover_record as record;
pub use handover_verify::{git, provenance, verify};

/// Redaction: of any text in handover-redact, of a handoff's content in handover-handoff.
pub mod redact {
    pub use handover_handoff::redaction::redact;
    pub use handover_redact::*;
}

pub use model::*;
