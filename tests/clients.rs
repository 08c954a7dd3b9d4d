//! Everything that runs a real client (Claude Code, Codex, Gemini CLI, Qwen Code, GitHub Copilot
//! CLI, Factory Droid; pinned in tests/clients/package.json, installed by tests/clients/ensure.sh):
//! headless and interactive sessions against the fake model server, inside loopback-only network
//! namespaces. `HANDOVER_SKIP_E2E=1` skips them all, saying so; otherwise a missing prerequisite
//! fails. One test binary; where each kind of test goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_testkit as support;

/// The tests, one file each in tests/clients/.
mod clients {
    mod bench;
    mod claude;
    mod codex;
    mod copilot;
    mod droid;
    mod fake_server_wire;
    mod gemini;
    mod install;
    mod interactive;
    mod plugins;
    mod qwen;
    mod shared_install;
    mod travel;
}

/// Not a test: the fake model server mode of this binary (see support::fake_server), which the
/// harness starts as `<this binary> fake_server_entry --exact`. Returns at once unless
/// HANDOVER_FAKE_SERVER is set.
#[test]
fn fake_server_entry() {
    support::fake_server::serve_from_env();
}
