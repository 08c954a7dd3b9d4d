//! End to end with the real Claude Code (pinned in tests/clients/package.json): a handoff
//! survives a real restart. The scenarios live in tests/support/scenarios.rs; the harness and
//! the fake model server in tests/support/. Needs node/npm and root (`unshare -n`); set
//! HANDOVER_SKIP_E2E=1 to skip them loudly.
mod support;

use support::{clients, scenarios, Agent, Trust};

/// Not a test: the fake model server mode of this binary (see support::fake_server). Returns at
/// once unless HANDOVER_FAKE_SERVER is set.
#[test]
fn fake_server_entry() {
    support::fake_server::serve_from_env();
}

#[test]
fn claude_1_handoff_reaches_next_session() {
    if clients("claude_1_handoff_reaches_next_session").is_some() {
        scenarios::handoff_reaches_next_session(Agent::Claude, Trust::BypassFlag);
    }
}

#[test]
fn claude_2_drift_and_stale_are_reported() {
    if clients("claude_2_drift_and_stale_are_reported").is_some() {
        scenarios::drift_and_stale_are_reported(Agent::Claude);
    }
}

#[test]
fn claude_3_save_progress_is_asked_once() {
    if clients("claude_3_save_progress_is_asked_once").is_some() {
        scenarios::save_progress_is_asked_once(Agent::Claude);
    }
}

#[test]
fn claude_4_compaction_keeps_the_handoff() {
    if clients("claude_4_compaction_keeps_the_handoff").is_some() {
        scenarios::compaction_claude();
    }
}

#[test]
fn claude_5_nothing_without_handoff() {
    if clients("claude_5_nothing_without_handoff").is_some() {
        scenarios::nothing_without_handoff(Agent::Claude);
    }
}

#[test]
fn claude_6_corrupted_state_is_recovered() {
    if clients("claude_6_corrupted_state_is_recovered").is_some() {
        scenarios::corrupted_state_is_recovered(Agent::Claude);
    }
}

#[test]
fn claude_7_stop_is_blocked_once_above_second_threshold() {
    if clients("claude_7_stop_is_blocked_once_above_second_threshold").is_some() {
        scenarios::stop_is_blocked_once_above_second_threshold(Agent::Claude);
    }
}
