//! End to end with the real Qwen Code (pinned in tests/clients/package.json), offline against the
//! fake model server's chat-completions wire: the scenarios of tests/support/src/scenarios.rs and
//! tests/support/src/record_scenarios.rs wherever Qwen Code has the mechanism (docs/compatibility.md
//! says where it differs). Qwen Code has no trust step: its project hooks run as installed.
//! Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports them ignored.
//! The shared scenarios run for it from tests/clients/matrix.rs; this file holds its own tests.

use crate::support::fake_server::Turn;
use crate::support::{clients, scenarios, Agent, RunOpts, Sandbox, Trust};

fn qwen_4_compaction_brings_the_handoff_back() {
    scenarios::compaction_qwen();
}

/// A failing command fires Qwen Code's PostToolUseFailure (instead of PostToolUse) in a `-p`
/// run: the installed entry runs the context watch, which records the failing command from
/// the hook input at once — before Qwen Code's queued transcript write — and the record holds
/// it once after the transcript's own line is read at Stop.
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

trials! {
    real: [
        qwen_4_compaction_brings_the_handoff_back @ 6,
        qwen_record_a_failing_command_from_post_tool_use_failure,
        qwen_first_run_leaves_the_installed_settings_clean,
    ],
}
