//! handover-handoff: the handoff document and what needs only the document.
//!
//! The model ([`model`]), its checks before a write ([`validate`]), its two input forms
//! ([`markdown`], [`json_form`]), its store on disk ([`store`]: state.json, handover.md, the
//! journal, the archive, the lock; [`hand_edits`] for a handover.md a person changed), the optional
//! `.handover/config.toml` ([`config`]), the rules for touching files under `.handover/`
//! ([`safe_fs`]) and for text that came from someone else ([`sanitize`]). It stands on
//! handover-base and handover-redact; git, verification, session records and the texts an
//! agent reads are layers above it.

pub mod config;
pub mod hand_edits;
pub mod json_form;
pub mod markdown;
pub mod model;
pub mod os_path;
pub mod redaction;
pub mod safe_fs;
pub mod sanitize;
pub mod store;
pub mod strings;
/// A temporary folder with a file or folder in it, the unit tests' set-up shared with the other
/// crates.
#[cfg(test)]
#[path = "../../../../tests/support/src/temp_files.rs"]
pub mod temp_files;
pub mod validate;
pub mod worktree;

pub use model::*;
