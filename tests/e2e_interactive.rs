//! End to end with the real clients' terminal UIs, driven through tmux against the fake model
//! (tests/support/interactive.rs).
//! Needs node/npm, tmux and root (`unshare -n`); set HANDOVER_SKIP_E2E=1 to skip them loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]
mod support;

use support::fake_server::Turn;
use support::interactive::TuiOpts;
use support::{clients, injected, Agent, Sandbox, Trust, HANDOFF};

/// Not a test: the fake model server mode of this binary (see support::fake_server). Returns at
/// once unless HANDOVER_FAKE_SERVER is set.
#[test]
fn fake_server_entry() {
    support::fake_server::serve_from_env();
}

/// The harness itself, in each client: the handoff reaches the first request of an interactive
/// session, a turn planned between prompts answers the second prompt.
fn startup(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::Installed);
    sb.write_handoff();
    let tui = sb.tui(vec![Turn::text("FIRST-ANSWER")], TuiOpts::default());
    tui.send("Continue the work");
    tui.wait_for("FIRST-ANSWER", 60);
    let first = tui.answered_by(0);
    let context = injected(agent, &first);
    assert!(
        context.contains(HANDOFF.next),
        "{}: the first interactive request lacks the handoff; injected:\n{context}\n{}",
        agent.name(),
        tui.describe()
    );
    let second = tui.exchange("Go on with the next step", "SECOND-ANSWER", 60);
    assert!(second.body_text().contains("FIRST-ANSWER"));
}

#[test]
fn interactive_claude_startup() {
    if clients("interactive_claude_startup").is_some() {
        startup(Agent::Claude);
    }
}

#[test]
fn interactive_codex_startup() {
    if clients("interactive_codex_startup").is_some() {
        startup(Agent::Codex);
    }
}

#[test]
fn interactive_gemini_startup() {
    if clients("interactive_gemini_startup").is_some() {
        startup(Agent::Gemini);
    }
}
