//! End to end with the real Qwen Code (pinned in tests/clients/package.json), offline against the
//! fake model server's chat-completions wire: the scenarios of tests/support/src/scenarios.rs and
//! tests/support/src/record_scenarios.rs wherever Qwen Code has the mechanism (docs/compatibility.md
//! says where it differs). Qwen Code has no trust step: its project hooks run as installed.
//! Needs node/npm and root (`unshare -n`); set HANDOVER_SKIP_E2E=1 to skip them loudly.

use crate::support::fake_server::Turn;
use crate::support::{clients, record_scenarios, scenarios, Agent, RunOpts, Sandbox, Trust};

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

/// A failing command fires Qwen Code's PostToolUseFailure (instead of PostToolUse) in a `-p`
/// run: the installed entry runs the context watch, which records the failing command from
/// the hook input at once — before Qwen Code's queued transcript write — and the record holds
/// it once after the transcript's own line is read at Stop.
#[test]
fn qwen_record_a_failing_command_from_post_tool_use_failure() {
    if clients("qwen_record_a_failing_command_from_post_tool_use_failure").is_none() {
        return;
    }
    let sb = Sandbox::new(Agent::Qwen, Trust::BypassFlag);
    let settings = std::fs::read_to_string(sb.project.join(".qwen/settings.json")).unwrap();
    assert!(settings.contains("\"PostToolUseFailure\""), "{settings}");
    let run = sb.run(
        vec![
            Turn::shell("sh -c 'echo gen failed; exit 3'").usage(2_000),
            Turn::text("The generator still fails.").usage(2_500),
        ],
        RunOpts::prompt("Run the generator."),
    );
    let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
    assert!(
        log.contains("agent=qwen event=PostToolUseFailure")
            && log.contains("record: failing command added"),
        "our PostToolUseFailure entry did not record the failure:\n{log}\n{}",
        run.describe()
    );
    let records = sb.project.join(".handover/records");
    let record = std::fs::read_dir(&records)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .find(|t| t.contains("gen failed"))
        .unwrap_or_else(|| panic!("no record with the command in {}", records.display()));
    let v: serde_json::Value = serde_json::from_str(&record).unwrap();
    let failing: Vec<&serde_json::Value> = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["command"].as_str().unwrap_or("").contains("exit 3"))
        .collect();
    assert_eq!(failing.len(), 1, "{record}");
    assert_eq!(failing[0]["status"], "failed", "{record}");
    assert_eq!(failing[0]["exit_code"], 3, "{record}");
    assert_eq!(sb.hook_errors(&[&run]), Vec::<String>::new());
}

/// Qwen Code 0.24.4 writes `"$version": 4` into a settings file that has none on its first run:
/// the installed `.qwen/settings.json`, committed, must stay as committed after a first session
/// (install writes the key itself, installer/src/wiring/qwen.rs), or it shows as changed and as
/// that session's uncommitted work.
#[test]
fn qwen_first_run_leaves_the_installed_settings_clean() {
    if clients("qwen_first_run_leaves_the_installed_settings_clean").is_none() {
        return;
    }
    let sb = Sandbox::new(Agent::Qwen, Trust::BypassFlag);
    sb.git(&["add", "-A"]);
    sb.git(&["commit", "-q", "-m", "Wire handover for Qwen Code"]);
    let committed = sb.git(&["show", "HEAD:.qwen/settings.json"]);
    assert!(committed.contains("\"$version\": 4"), "{committed}");
    let run = sb.run(vec![Turn::text("OK.")], RunOpts::prompt("Say OK."));
    let status = sb.git(&["status", "--porcelain", "--", ".qwen/settings.json"]);
    let now = std::fs::read_to_string(sb.project.join(".qwen/settings.json")).unwrap_or_default();
    assert!(
        status.is_empty(),
        "Qwen Code changed the installed settings ({status}):\n--- committed\n{committed}\n--- now\n{now}\n{}",
        run.describe()
    );
    assert_eq!(sb.hook_errors(&[&run]), Vec::<String>::new());
}
