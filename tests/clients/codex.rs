//! End to end with the real Codex CLI (pinned in tests/clients/package.json): a handoff
//! survives a real restart. The scenarios live in tests/support/src/scenarios.rs; the harness and
//! the fake model server in tests/support/. Needs node/npm and root (`unshare -n`); set
//! HANDOVER_SKIP_E2E=1 to skip them loudly.
use crate::support;

use crate::support::{clients, record_scenarios, scenarios, Agent, Trust};

/// Uses `handover install --trust` and no bypass flag: the hooks run because they are trusted.
#[test]
fn codex_1_handoff_reaches_next_session() {
    if clients("codex_1_handoff_reaches_next_session").is_some() {
        scenarios::handoff_reaches_next_session(Agent::Codex, Trust::Installed);
    }
}

#[test]
fn codex_2_drift_and_stale_are_reported() {
    if clients("codex_2_drift_and_stale_are_reported").is_some() {
        scenarios::drift_and_stale_are_reported(Agent::Codex);
    }
}

#[test]
fn codex_3_save_progress_is_asked_once() {
    if clients("codex_3_save_progress_is_asked_once").is_some() {
        scenarios::save_progress_is_asked_once(Agent::Codex);
    }
}

#[test]
fn codex_4_compaction_keeps_the_handoff() {
    if clients("codex_4_compaction_keeps_the_handoff").is_some() {
        scenarios::compaction_codex();
    }
}

#[test]
fn codex_5_nothing_without_handoff() {
    if clients("codex_5_nothing_without_handoff").is_some() {
        scenarios::nothing_without_handoff(Agent::Codex);
    }
}

#[test]
fn codex_6_corrupted_state_is_recovered() {
    if clients("codex_6_corrupted_state_is_recovered").is_some() {
        scenarios::corrupted_state_is_recovered(Agent::Codex);
    }
}

#[test]
fn codex_7_stop_is_blocked_once_above_second_threshold() {
    if clients("codex_7_stop_is_blocked_once_above_second_threshold").is_some() {
        scenarios::stop_is_blocked_once_above_second_threshold(Agent::Codex);
    }
}

#[test]
fn codex_8_unfinished_work_reaches_next_session() {
    if clients("codex_8_unfinished_work_reaches_next_session").is_some() {
        record_scenarios::unfinished_work_reaches_next_session(Agent::Codex);
    }
}

#[test]
fn codex_9_committed_work_stays_silent() {
    if clients("codex_9_committed_work_stays_silent").is_some() {
        record_scenarios::committed_work_stays_silent(Agent::Codex);
    }
}

#[test]
fn codex_10_killed_session_leaves_its_last_turn() {
    if clients("codex_10_killed_session_leaves_its_last_turn").is_some() {
        record_scenarios::killed_session_leaves_its_last_turn(Agent::Codex);
    }
}

#[test]
fn codex_11_shell_edits_reach_next_session() {
    if clients("codex_11_shell_edits_reach_next_session").is_some() {
        record_scenarios::shell_edits_reach_next_session(Agent::Codex);
    }
}

#[test]
fn codex_12_shell_edits_survive_a_kill() {
    if clients("codex_12_shell_edits_survive_a_kill").is_some() {
        record_scenarios::shell_edits_survive_a_kill(Agent::Codex);
    }
}

/// Codex compacts at its configured `model_auto_compact_token_limit`: with
/// `model_context_window = 100000` (the rollout states 95,000) and the limit at 60,000 (63 %),
/// a usage of 57,000 (60 %) is past the firmer threshold moved below that point (58 %), while
/// the default thresholds would give only the first reminder. The request after that usage
/// carries the firmer instruction, and Codex has not compacted. (At the first PostToolUse the
/// rollout states no window yet and the hook takes the table's 272,000; the limit is measured
/// against the same window, so the order of the two points holds either way.)
#[test]
fn codex_reminds_before_its_configured_compaction_point() {
    use support::fake_server::Turn;
    use support::{count_in, RunOpts, Sandbox};
    if clients("codex_reminds_before_its_configured_compaction_point").is_none() {
        return;
    }
    let sb = Sandbox::with_codex_config(
        Agent::Codex,
        Trust::BypassFlag,
        "model_context_window = 100000\nmodel_auto_compact_token_limit = 60000",
    );
    let run = sb.run(
        vec![
            Turn::shell("echo step one").usage(57_000),
            Turn::text("Done.").usage(57_500),
        ],
        RunOpts {
            default_usage: 57_500,
            ..RunOpts::prompt("Work on the CSV export.")
        },
    );
    assert!(run.compaction_requests().is_empty(), "{}", run.describe());
    let reqs = run.conversation();
    assert!(reqs.len() >= 2, "{}", run.describe());
    assert_eq!(count_in(reqs[0], "compaction is near"), 0);
    assert_eq!(
        count_in(reqs[1], "compaction is near"),
        1,
        "the request after 57,000 of 95,000 tokens lacks the firmer instruction:\n{}",
        run.describe()
    );
}

#[test]
fn codex_record_write_fills_from_the_writers_own_record() {
    if clients("codex_record_write_fills_from_the_writers_own_record").is_some() {
        record_scenarios::write_fills_from_the_writers_own_record(Agent::Codex);
    }
}
