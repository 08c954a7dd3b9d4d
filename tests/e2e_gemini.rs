//! End to end with the real Gemini CLI (pinned in tests/clients/package.json): the scenarios of
//! tests/support/scenarios.rs wherever Gemini CLI has the mechanism (docs/compatibility.md says
//! where it differs), plus a handoff written from Claude Code and delivered in Gemini CLI.
//! Needs node/npm and root (`unshare -n`); set HANDOVER_SKIP_E2E=1 to skip them loudly.
mod support;

use support::{clients, scenarios, Agent, Trust};

/// Not a test: the fake model server mode of this binary (see support::fake_server). Returns at
/// once unless HANDOVER_FAKE_SERVER is set.
#[test]
fn fake_server_entry() {
    support::fake_server::serve_from_env();
}

/// Uses `handover install --gemini --trust` (the folder trusted in ~/.gemini/trustedFolders.json)
/// and no bypass: the hooks run because the folder is trusted.
#[test]
fn gemini_1_handoff_reaches_next_session() {
    if clients("gemini_1_handoff_reaches_next_session").is_some() {
        scenarios::handoff_reaches_next_session(Agent::Gemini, Trust::Installed);
    }
}

#[test]
fn gemini_2_drift_and_stale_are_reported() {
    if clients("gemini_2_drift_and_stale_are_reported").is_some() {
        scenarios::drift_and_stale_are_reported(Agent::Gemini);
    }
}

#[test]
fn gemini_3_save_progress_is_asked_once() {
    if clients("gemini_3_save_progress_is_asked_once").is_some() {
        scenarios::save_progress_is_asked_once(Agent::Gemini);
    }
}

#[test]
fn gemini_4_compression_keeps_the_handoff() {
    if clients("gemini_4_compression_keeps_the_handoff").is_some() {
        scenarios::compaction_gemini();
    }
}

#[test]
fn gemini_5_nothing_without_handoff() {
    if clients("gemini_5_nothing_without_handoff").is_some() {
        scenarios::nothing_without_handoff(Agent::Gemini);
    }
}

#[test]
fn gemini_6_corrupted_state_is_recovered() {
    if clients("gemini_6_corrupted_state_is_recovered").is_some() {
        scenarios::corrupted_state_is_recovered(Agent::Gemini);
    }
}

#[test]
fn gemini_7_after_agent_is_blocked_once_above_second_threshold() {
    if clients("gemini_7_after_agent_is_blocked_once_above_second_threshold").is_some() {
        scenarios::stop_is_blocked_once_above_second_threshold(Agent::Gemini);
    }
}

/// A handoff written in Claude Code is delivered in Gemini CLI: same repository, same
/// `.handover/`.
#[test]
fn cross_agent_written_in_claude_delivered_in_gemini() {
    if clients("cross_agent_written_in_claude_delivered_in_gemini").is_some() {
        scenarios::handoff_crosses_agents(Agent::Claude, Agent::Gemini);
    }
}
