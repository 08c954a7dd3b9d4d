//! End to end with the real Gemini CLI (pinned in tests/clients/package.json): the scenarios of
//! tests/support/src/scenarios.rs wherever Gemini CLI has the mechanism (docs/compatibility.md says
//! where it differs), plus a handoff written from Claude Code and delivered in Gemini CLI.
//! Needs node/npm and root (`unshare -n`); set HANDOVER_SKIP_E2E=1 to skip them loudly.
use crate::support;

use crate::support::{clients, record_scenarios, scenarios, Agent, Trust};

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

/// Gemini CLI shows any AfterAgent block as "This request failed": its stop is never
/// blocked; the next prompt asks once more (checked in the terminal UI:
/// tests/clients/interactive.rs, `interactive_gemini_context_watch`).
#[test]
fn gemini_7_after_agent_is_never_blocked() {
    if clients("gemini_7_after_agent_is_never_blocked").is_some() {
        scenarios::stop_is_never_blocked(Agent::Gemini);
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

/// Gemini CLI runs nothing in a folder it does not trust (folder trust is on by default): in
/// headless mode 0.61.0 refuses to start (exit 55) and no hook runs. `handover install --gemini
/// --trust` is what makes it run, hooks included: the same session, before and after, with no
/// bypass.
#[test]
fn gemini_runs_our_hooks_only_in_a_trusted_folder() {
    use support::{fake_server::Turn, install_hooks, RunOpts, Sandbox};
    if clients("gemini_runs_our_hooks_only_in_a_trusted_folder").is_none() {
        return;
    }
    let sb = Sandbox::unwired(Agent::Gemini, Trust::Installed, "");
    let hooks_dir = sb
        .bins
        .session_start
        .parent()
        .expect("hooks dir")
        .to_path_buf();
    install_hooks(&sb, &hooks_dir, false);
    let before = sb.run(
        vec![Turn::text("Hello.")],
        RunOpts {
            expect_status: 55,
            ..RunOpts::prompt("Say hello.")
        },
    );
    assert!(
        before.stderr.contains("not running in a trusted directory"),
        "{}",
        before.describe()
    );
    let log = std::fs::read_to_string(before.dir.join("hooks.log")).unwrap_or_default();
    assert!(
        log.is_empty(),
        "Gemini CLI ran our hooks in an untrusted folder:\n{log}"
    );
    assert!(
        !sb.home.join(".gemini/trustedFolders.json").exists(),
        "install wrote trust without --trust"
    );
    install_hooks(&sb, &hooks_dir, true);
    let after = sb.run(vec![Turn::text("Hello.")], RunOpts::prompt("Say hello."));
    let log = std::fs::read_to_string(after.dir.join("hooks.log")).unwrap_or_default();
    for event in [
        "SessionStart",
        "BeforeAgent",
        "PreCompress",
        "AfterAgent",
        "SessionEnd",
    ] {
        assert!(
            log.contains(&format!("agent=gemini event={event}")),
            "after install --trust, no call of our {event} hook:\n{log}"
        );
    }
}

/// And the other way round: written in Gemini CLI, delivered in Claude Code.
#[test]
fn cross_agent_written_in_gemini_delivered_in_claude() {
    if clients("cross_agent_written_in_gemini_delivered_in_claude").is_some() {
        scenarios::handoff_crosses_agents(Agent::Gemini, Agent::Claude);
    }
}

#[test]
fn gemini_8_unfinished_work_reaches_next_session() {
    if clients("gemini_8_unfinished_work_reaches_next_session").is_some() {
        record_scenarios::unfinished_work_reaches_next_session(Agent::Gemini);
    }
}

#[test]
fn gemini_9_committed_work_stays_silent() {
    if clients("gemini_9_committed_work_stays_silent").is_some() {
        record_scenarios::committed_work_stays_silent(Agent::Gemini);
    }
}

#[test]
fn gemini_10_shell_edits_reach_next_session() {
    if clients("gemini_10_shell_edits_reach_next_session").is_some() {
        record_scenarios::shell_edits_reach_next_session(Agent::Gemini);
    }
}

/// Gemini CLI resumed and SIGKILLed mid-turn (no AfterAgent, no SessionEnd): the next session
/// still gets the files and the failure of the completed turns.
#[test]
fn gemini_11_shell_edits_survive_a_kill() {
    if clients("gemini_11_shell_edits_survive_a_kill").is_some() {
        record_scenarios::shell_edits_survive_a_kill(Agent::Gemini);
    }
}
