//! End to end with the real Gemini CLI (pinned in tests/clients/package.json): the scenarios of
//! tests/support/src/scenarios.rs wherever Gemini CLI has the mechanism (docs/compatibility.md says
//! where it differs), plus a handoff written from Claude Code and delivered in Gemini CLI.
//! Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports them ignored.
//! The shared scenarios run for it from tests/clients/matrix.rs; this file holds its own tests.
use crate::support;

use crate::support::{clients, scenarios, Agent, Trust};

fn gemini_4_compression_keeps_the_handoff() {
    scenarios::compaction_gemini();
}

/// A handoff written in Claude Code is delivered in Gemini CLI: same repository, same
/// `.handover/`.
fn cross_agent_written_in_claude_delivered_in_gemini() {
    scenarios::handoff_crosses_agents(Agent::Claude, Agent::Gemini);
}

/// Gemini CLI runs nothing in a folder it does not trust (folder trust is on by default): in
/// headless mode 0.61.0 refuses to start (exit 55) and no hook runs. `handover install --gemini
/// --trust` is what makes it run, hooks included: the same session, before and after, with no
/// bypass.
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
fn cross_agent_written_in_gemini_delivered_in_claude() {
    scenarios::handoff_crosses_agents(Agent::Gemini, Agent::Claude);
}

trials! {
    real: [
        gemini_4_compression_keeps_the_handoff @ 6,
        cross_agent_written_in_claude_delivered_in_gemini @ 4,
        gemini_runs_our_hooks_only_in_a_trusted_folder @ 6,
        cross_agent_written_in_gemini_delivered_in_claude @ 4,
    ],
}
