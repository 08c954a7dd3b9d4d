//! Editing other programs' configuration files (every client of `handover_clients::ALL`)
//! without damaging them.
//!
//! Every step iterates the clients; what differs per client is asked of its module in
//! handover-clients (paths, events, timeouts, instruction file) or of its wiring (wiring.rs:
//! unusual files, trust, status facts).
//!
//! Pure editors (text in → text out + a report of what changed) with reading, atomic writing,
//! backups and the Codex JSON-RPC client at the edges. See docs/install.md.
//!
//! The folders are layers, and every dependency between them points down this list:
//!
//! - [`status`]: what `handover status` reports (it asks the plan which instruction files an
//!   install would edit, and each client's wiring for its facts);
//! - [`plan`]: what a run changes (`plan`, `detect`, `keep`, `instruction_files`) and the whole
//!   run (`flow`);
//! - [`wiring`]: what one client needs beyond the generic steps, and the facts it reports;
//! - [`apply`]: writing the edits (preflight, backups, transaction, manifest);
//! - [`edit`]: the pure editors of other programs' files;
//! - the vocabulary every layer shares, at the root: [`error`], [`report`], [`files`]
//!   (which files, under which homes), [`mod@locate`] (where our executables are).

pub mod apply;
pub mod edit;
pub mod error;
pub mod files;
pub mod locate;
pub mod plan;
pub mod report;
pub mod status;
/// A temporary folder with a file or folder in it, the unit tests' set-up shared with the other
/// crates.
#[cfg(test)]
#[path = "../../tests/support/src/temp_files.rs"]
pub mod temp_files;
pub mod wiring;

pub use error::EditError;
pub use files::{Homes, Targets};
pub use locate::{locate, HookPaths};
pub use plan::{InstallOptions, Plan};
