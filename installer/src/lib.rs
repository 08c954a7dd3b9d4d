//! Editing other programs' configuration files (Claude Code, Codex) without damaging them.
//!
//! Pure editors (text in → text out + a report of what changed) with reading, atomic writing,
//! backups and the Codex JSON-RPC client at the edges. See docs/install.md.

pub mod codex_config;
pub mod codex_trust;
pub mod command;
pub mod diff;
pub mod error;
pub mod flow;
pub mod hooks_doc;
pub mod instructions;
pub mod json_layout;
pub mod locate;
pub mod plan;
pub mod report;
pub mod status;

pub use error::EditError;
pub use locate::{locate, HookPaths};
pub use plan::{Homes, InstallOptions, Plan, Scope, Targets};
