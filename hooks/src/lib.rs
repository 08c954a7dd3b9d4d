//! The hook executables' library, in three layers that depend one way: `events` → `state`,
//! `call`; `call` → `state`.
//!
//! - [`call`]: one hook call and its contract — the input read with a cap, which client runs
//!   it, the repository, the time budget, the debug log, never failing the caller
//!   (`call::never_fail::run`, which every executable's `main` in the root package's src/bin/
//!   hands its logic to).
//! - [`state`]: what a hook knows beyond its input — the per-session state file, how full the
//!   context is (the transcript's end, the window's size).
//! - [`events`]: what each event does — the startup context at SessionStart, the save reminder
//!   of the context watch, the snapshot before a compaction, the session record.

pub mod call;
pub mod events;
pub mod state;
/// A temporary folder with a file or folder in it, the unit tests' set-up shared with the other
/// crates.
#[cfg(test)]
#[path = "../../tests/support/src/temp_files.rs"]
pub mod temp_files;
/// The git command line of the unit tests, shared with the library crates.
#[cfg(test)]
#[path = "../../tests/support/src/test_git.rs"]
pub mod test_git;
