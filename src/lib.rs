//! handover: hand unfinished work from one AI coding-agent session to the next.
//!
//! The core library: the document model, its store on disk, verification against git, and the
//! text the tool puts in front of an agent. The `handover` CLI (src/main.rs, src/cli/) and the
//! hook executables (hooks/) are thin layers over it.

pub mod clock;
pub mod config;
pub mod context;
pub mod git;
pub mod guard;
pub mod hand_edits;
pub mod markdown;
pub mod model;
pub mod redact;
pub mod store;
pub mod validate;
pub mod verify;
pub mod write;

pub use model::*;
