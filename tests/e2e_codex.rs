//! End to end with the real Codex: a handoff survives a real restart.
mod support;

/// Not a test: the fake model server mode of this binary (see support::fake_server).
#[test]
fn fake_server_entry() {
    support::fake_server::serve_from_env();
}
