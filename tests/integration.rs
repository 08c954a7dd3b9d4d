//! Everything that is neither a real client nor a measurement of time, in one test binary (one
//! link of the whole tool): where each kind of test goes: tests/README.md.
//!
//! - `boot`: writing, booting and keeping a handoff, as a user does it from the command line:
//!   the `handover` command, the store, handover.md, validation, redaction, verification against
//!   git, the session record's extraction, and handoffs that travel through a remote;
//! - `hooks`: the hook executables as the clients run them: a payload on stdin, the exact
//!   output, the journal and the session record, for every client and event, under bad input and
//!   hostile repositories;
//! - `install`: installing handover for the clients without the clients themselves: the status,
//!   install and uninstall screens whole, and the plugin's files. The installer's edits, file by
//!   file, are the installer crate's own tests (installer/tests/), the `install` command's parsing
//!   is unit-tested beside it (src/cli/install/tests.rs); installs checked against the real
//!   clients are in tests/clients/;
//! - `project`: checks on the project itself rather than on a user's path: the crate layout's
//!   promises, git started only the one way, the documentation blocks generated from real runs,
//!   no history references in its text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_testkit as support;

/// The tests, one file each in tests/boot/.
mod boot {
    mod cli;
    mod cli_contract;
    mod cli_robustness;
    mod context;
    mod git_snapshot;
    mod guard;
    mod hostile;
    mod markdown;
    mod mcp;
    mod no_surprises;
    mod properties;
    mod recall_log;
    mod recall_search;
    mod record;
    mod redact;
    mod redaction_corpus;
    mod store;
    mod transactions;
    mod travel;
    mod travel_changes;
    mod travel_hostile;
    mod uncommitted;
    mod validate;
    mod verify;
}

/// The tests, one file each in tests/hooks/.
mod hooks {
    mod captured;
    mod context_watch;
    mod gemini;
    mod golden;
    mod hostile;
    mod never_fail;
    mod per_client;
    mod properties;
    mod repository;
    mod session_record;
    mod verdict_agreement;
}

/// The tests, one file each in tests/install/.
mod install {
    mod plugin_files;
    mod screens;
}

/// The tests, one file each in tests/project/.
mod project {
    mod architecture;
    mod client_homes;
    mod docs_paths;
    mod docs_samples;
    mod git_processes;
    mod history;
}
