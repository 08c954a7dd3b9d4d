//! End to end with the real Qwen Code (pinned in tests/clients/package.json), offline against the
//! fake model server's chat-completions wire: the scenarios of tests/support/scenarios.rs and
//! tests/support/record_scenarios.rs wherever Qwen Code has the mechanism (docs/compatibility.md
//! says where it differs). Qwen Code has no trust step: its project hooks run as installed.
//! Needs node/npm and root (`unshare -n`); set HANDOVER_SKIP_E2E=1 to skip them loudly.

use crate::support::{clients, record_scenarios, scenarios, Agent, Trust};

#[test]
fn qwen_1_handoff_reaches_next_session() {
    if clients("qwen_1_handoff_reaches_next_session").is_some() {
        scenarios::handoff_reaches_next_session(Agent::Qwen, Trust::BypassFlag);
    }
}

#[test]
fn qwen_2_drift_and_stale_are_reported() {
    if clients("qwen_2_drift_and_stale_are_reported").is_some() {
        scenarios::drift_and_stale_are_reported(Agent::Qwen);
    }
}

#[test]
fn qwen_3_save_progress_is_asked_once() {
    if clients("qwen_3_save_progress_is_asked_once").is_some() {
        scenarios::save_progress_is_asked_once(Agent::Qwen);
    }
}

#[test]
fn qwen_4_compaction_brings_the_handoff_back() {
    if clients("qwen_4_compaction_brings_the_handoff_back").is_some() {
        scenarios::compaction_qwen();
    }
}

#[test]
fn qwen_5_nothing_without_handoff() {
    if clients("qwen_5_nothing_without_handoff").is_some() {
        scenarios::nothing_without_handoff(Agent::Qwen);
    }
}

#[test]
fn qwen_6_corrupted_state_is_recovered() {
    if clients("qwen_6_corrupted_state_is_recovered").is_some() {
        scenarios::corrupted_state_is_recovered(Agent::Qwen);
    }
}

#[test]
fn qwen_7_stop_is_blocked_once_above_second_threshold() {
    if clients("qwen_7_stop_is_blocked_once_above_second_threshold").is_some() {
        scenarios::stop_is_blocked_once_above_second_threshold(Agent::Qwen);
    }
}

/// The session record from Qwen Code's transcript: `write_file` edits and a failing test run,
/// shown to the next session (Qwen Code fires no SessionEnd under `-p`).
#[test]
fn qwen_record_unfinished_work_reaches_next_session() {
    if clients("qwen_record_unfinished_work_reaches_next_session").is_some() {
        record_scenarios::unfinished_work_reaches_next_session(Agent::Qwen);
    }
}

#[test]
fn qwen_record_shell_edits_reach_next_session() {
    if clients("qwen_record_shell_edits_reach_next_session").is_some() {
        record_scenarios::shell_edits_reach_next_session(Agent::Qwen);
    }
}
