//! The hook executables as the clients run them: a payload on stdin, the exact output, the journal
//! and the session record, for every client and event, under bad input and hostile repositories.
//! One test binary (one link); where each kind of test goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

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
