//! End to end with the real Factory Droid (pinned in tests/clients/package.json): the scenarios
//! of tests/support/src/scenarios.rs and record_scenarios.rs wherever Droid has the mechanism
//! (docs/compatibility.md says where it differs), its automatic compaction (which runs no hook:
//! the handoff comes back at the next tool result), and a handoff carried from Claude Code.
//! Droid runs headless (`droid exec`) in air-gap mode against the fake server's chat-completions
//! wire (tests/support/src/droid.rs). Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1
//! reports them ignored.
//! The shared scenarios run for it from tests/clients/matrix.rs; this file holds its own tests.

use crate::support::{droid, scenarios, Agent};

/// Where Droid compacts for a custom model declared with a small window: at the window, when
/// the provider refuses (Droid never compares the two); the reminder comes before it.
fn droid_3b_save_progress_comes_before_a_declared_small_window() {
    droid::reminder_comes_before_a_declared_small_window();
}

fn droid_4_automatic_compaction_keeps_the_handoff() {
    droid::compaction_keeps_the_handoff();
}

/// A handoff written in Claude Code is delivered in Droid: same repository, same `.handover/`.
/// Droid does not read `.claude/`, so the Claude Code wiring stays silent there.
fn cross_agent_written_in_claude_delivered_in_droid() {
    scenarios::handoff_crosses_agents(Agent::Claude, Agent::Droid);
}

/// Droid gives its commands no session id: our SessionStart exports it through the payload's
/// `CLAUDE_ENV_FILE`, which Droid applies to the session's later commands; the model's shell
/// command sees the hooks' session id (what `handover write` looks its record up by:
/// tests/hooks/session_record.rs `a_write_from_droids_shell_finds_its_record_by_the_id_its_session_start_exported`).
fn droid_shell_commands_get_the_session_id_our_session_start_exported() {
    droid::shell_commands_get_the_session_id();
}

trials! {
    real: [
        droid_3b_save_progress_comes_before_a_declared_small_window,
        droid_4_automatic_compaction_keeps_the_handoff,
        cross_agent_written_in_claude_delivered_in_droid,
        droid_shell_commands_get_the_session_id_our_session_start_exported,
    ],
}
