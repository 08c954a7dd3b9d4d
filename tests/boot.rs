//! Writing, booting and keeping a handoff, as a user does it from the command line: the `handover`
//! command, the store, handover.md, validation, redaction, verification against git, the session
//! record's extraction, and handoffs that travel through a remote. One test binary (one link);
//! where each kind of test goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

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
    mod no_surprises;
    mod properties;
    mod record;
    mod redact;
    mod redaction_corpus;
    mod store;
    mod transactions;
    mod travel;
    mod travel_hostile;
    mod uncommitted;
    mod validate;
    mod verify;
}
