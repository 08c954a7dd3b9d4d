//! handover-core: the handoff itself.
//!
//! The document model, its store on disk, verification against git, redaction, validation, the
//! Markdown form, and every text the tool puts in front of an agent. The `handover` CLI
//! (src/main.rs, src/cli/) and the hook logic (hooks/) are layers over it; it stands on
//! handover-base alone.

pub mod config;
pub mod context;
pub mod git;
pub mod guard;
pub mod hand_edits;
pub mod markdown;
pub mod model;
pub mod os_path;
pub mod provenance;
pub mod record;
pub mod redact;
pub mod safe_fs;
pub mod sanitize;
pub mod startup;
pub mod store;
pub mod travel;
pub mod validate;
pub mod verify;
pub mod write;

pub use model::*;
