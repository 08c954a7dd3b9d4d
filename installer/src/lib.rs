//! Editing other programs' configuration files (every client of `handover_clients::ALL`)
//! without damaging them.
//!
//! Every step iterates the clients; what differs per client is asked of its module in
//! handover-clients (paths, events, timeouts, instruction file) or of its wiring (wiring.rs:
//! unusual files, trust, status facts).
//!
//! Pure editors (text in → text out + a report of what changed) with reading, atomic writing,
//! backups and the Codex JSON-RPC client at the edges. See docs/install.md.

pub mod backup;
pub mod detect;
pub mod diff;
pub mod error;
pub mod facts;
pub mod file_edit;
pub mod files;
pub mod flow;
pub mod hooks_doc;
pub mod hooks_file;
pub mod instructions;
pub mod json_doc;
pub mod json_layout;
pub mod keep;
pub mod locate;
pub mod manifest;
pub mod plan;
pub mod preflight;
pub mod report;
pub mod status;
pub mod transaction;
pub mod wiring;

pub use error::EditError;
pub use files::{Homes, Targets};
pub use locate::{locate, HookPaths};
pub use plan::{InstallOptions, Plan};
