//! Checks on the project itself rather than on a user's path: the crate layout's promises, git
//! started only the one way, the documentation blocks generated from real runs, no history
//! references in its text. One test binary; where each kind of test goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

/// The tests, one file each in tests/project/.
mod project {
    mod architecture;
    mod client_homes;
    mod docs_samples;
    mod git_processes;
    mod history;
}
