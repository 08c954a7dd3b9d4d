//! handover-base: the ground floor every other handover crate stands on.
//!
//! - the hook contract: which hook executables run on which events ([`hook_exe`]), which hook commands are ours ([`hook_command`]), how a path is quoted for the shell that runs it ([`shell`]) and how an agent
//!   is told to run handover itself ([`handover_command`]);
//! - [`atomic`] file replacement and the [`clock`], which the core and the installer both need;
//! - [`text`]: positions for error messages, shortening at a word boundary;
//! - for the readers of the whole history: [`parallel`] maps, a per-thread [`memory`] of
//!   answers, [`order`]: sorting large values in place by moving each about once;
//! - the [`read_gate`] every read of a file a repository or a hook's input controls goes through;
//! - [`git_process`]: the one way a `git` process is started, so that none runs a program a
//!   repository's configuration names.
//!
//! Standard library only (and libc's open flags on Unix): nothing here may pull a dependency
//! into the hook executables.

pub mod atomic;
pub mod clock;
pub mod git_process;
pub mod handover_command;
pub mod hook_command;
pub mod hook_exe;
pub mod memory;
pub mod order;
pub mod parallel;
pub mod read_gate;
pub mod shell;
pub mod text;

/// A temporary folder with a file or folder in it, the unit tests' set-up shared with the other
/// crates.
#[cfg(test)]
#[path = "../../../../tests/support/src/temp_files.rs"]
pub mod temp_files;
/// The git command line of the unit tests, shared with the other library crates.
#[cfg(test)]
#[path = "../../../../tests/support/src/test_git.rs"]
pub mod test_git;

pub use hook_exe::HookExe;
