//! End to end with the real Codex CLI (pinned in tests/clients/package.json), beyond the
//! scenarios every client runs (tests/clients/matrix.rs: a handoff survives a real restart, …):
//! its compaction and its configured compaction point. The harness and the fake model server
//! live in tests/support/. Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports
//! them ignored.
use crate::support;

use crate::support::{clients, scenarios, Agent, Trust};

fn codex_4_compaction_keeps_the_handoff() {
    scenarios::compaction_codex();
}

/// Codex compacts at its configured `model_auto_compact_token_limit`: with
/// `model_context_window = 100000` (the rollout states 95,000) and the limit at 60,000 (63 %),
/// a usage of 57,000 (60 %) is past the firmer threshold moved below that point (58 %), while
/// the default thresholds would give only the first reminder. The request after that usage
/// carries the firmer instruction, and Codex has not compacted. (At the first PostToolUse the
/// rollout states no window yet and the hook takes the table's 272,000; the limit is measured
/// against the same window, so the order of the two points holds either way.)
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

trials! {
    real: [
        codex_4_compaction_keeps_the_handoff,
        codex_reminds_before_its_configured_compaction_point,
    ],
}
