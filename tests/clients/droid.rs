//! End to end with the real Factory Droid (pinned in tests/clients/package.json): the scenarios
//! of tests/support/src/scenarios.rs and record_scenarios.rs wherever Droid has the mechanism
//! (docs/compatibility.md says where it differs), its automatic compaction (which runs no hook:
//! the handoff comes back at the next tool result), and a handoff carried from Claude Code.
//! Droid runs headless (`droid exec`) in air-gap mode against the fake server's chat-completions
//! wire (tests/support/src/droid.rs). Needs node/npm and root (`unshare -n`); set
//! HANDOVER_SKIP_E2E=1 to skip them loudly.

use crate::support::{clients, droid, record_scenarios, scenarios, Agent, Trust};

/// `droid exec` has no trust step (Droid's folder trust gates its terminal UI only); the
/// scenario installs with `--trust` as for every client.
#[test]
fn droid_1_handoff_reaches_next_session() {
    if clients("droid_1_handoff_reaches_next_session").is_some() {
        scenarios::handoff_reaches_next_session(Agent::Droid, Trust::Installed);
    }
}

#[test]
fn droid_2_drift_and_stale_are_reported() {
    if clients("droid_2_drift_and_stale_are_reported").is_some() {
        scenarios::drift_and_stale_are_reported(Agent::Droid);
    }
}

/// The watch reads the context in use from `lastCallTokenUsage` in the session's
/// `<id>.settings.json` (Droid's transcript has no usage), against Droid's own compaction point.
#[test]
fn droid_3_save_progress_is_asked_once() {
    if clients("droid_3_save_progress_is_asked_once").is_some() {
        scenarios::save_progress_is_asked_once(Agent::Droid);
    }
}

/// Where Droid compacts for a custom model declared with a small window: at the window, when
/// the provider refuses (Droid never compares the two); the reminder comes before it.
#[test]
fn droid_3b_save_progress_comes_before_a_declared_small_window() {
    if clients("droid_3b_save_progress_comes_before_a_declared_small_window").is_some() {
        droid::reminder_comes_before_a_declared_small_window();
    }
}

#[test]
fn droid_4_automatic_compaction_keeps_the_handoff() {
    if clients("droid_4_automatic_compaction_keeps_the_handoff").is_some() {
        droid::compaction_keeps_the_handoff();
    }
}

#[test]
fn droid_5_nothing_without_handoff() {
    if clients("droid_5_nothing_without_handoff").is_some() {
        scenarios::nothing_without_handoff(Agent::Droid);
    }
}

#[test]
fn droid_6_corrupted_state_is_recovered() {
    if clients("droid_6_corrupted_state_is_recovered").is_some() {
        scenarios::corrupted_state_is_recovered(Agent::Droid);
    }
}

#[test]
fn droid_7_stop_is_blocked_once_above_second_threshold() {
    if clients("droid_7_stop_is_blocked_once_above_second_threshold").is_some() {
        scenarios::stop_is_blocked_once_above_second_threshold(Agent::Droid);
    }
}

/// Under `exec`, Droid runs PostToolUse only for commands that succeed: the failing test run
/// reaches the record from the transcript.
#[test]
fn droid_8_unfinished_work_reaches_next_session() {
    if clients("droid_8_unfinished_work_reaches_next_session").is_some() {
        record_scenarios::unfinished_work_reaches_next_session(Agent::Droid);
    }
}

#[test]
fn droid_9_committed_work_stays_silent() {
    if clients("droid_9_committed_work_stays_silent").is_some() {
        record_scenarios::committed_work_stays_silent(Agent::Droid);
    }
}

#[test]
fn droid_10_shell_edits_reach_next_session() {
    if clients("droid_10_shell_edits_reach_next_session").is_some() {
        record_scenarios::shell_edits_reach_next_session(Agent::Droid);
    }
}

/// A handoff written in Claude Code is delivered in Droid: same repository, same `.handover/`.
/// Droid does not read `.claude/`, so the Claude Code wiring stays silent there.
#[test]
fn cross_agent_written_in_claude_delivered_in_droid() {
    if clients("cross_agent_written_in_claude_delivered_in_droid").is_some() {
        scenarios::handoff_crosses_agents(Agent::Claude, Agent::Droid);
    }
}

/// Droid gives its commands no session id: our SessionStart exports it through the payload's
/// `CLAUDE_ENV_FILE`, which Droid applies to the session's later commands; the model's shell
/// command sees the hooks' session id (what `handover write` looks its record up by:
/// tests/hooks/session_record.rs `a_write_from_droids_shell_finds_its_record_by_the_id_its_session_start_exported`).
#[test]
fn droid_shell_commands_get_the_session_id_our_session_start_exported() {
    if clients("droid_shell_commands_get_the_session_id_our_session_start_exported").is_some() {
        droid::shell_commands_get_the_session_id();
    }
}
