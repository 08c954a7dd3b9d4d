//! End to end with the real Qwen Code (pinned in tests/clients/package.json), offline against the
//! fake model server's chat-completions wire.
//! Needs node/npm and root (`unshare -n`); set HANDOVER_SKIP_E2E=1 to skip them loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]
mod support;

/// Not a test: the fake model server mode of this binary (see support::fake_server). Returns at
/// once unless HANDOVER_FAKE_SERVER is set.
#[test]
fn fake_server_entry() {
    support::fake_server::serve_from_env();
}
