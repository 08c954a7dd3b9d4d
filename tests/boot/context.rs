//! The texts handover puts in front of agents: snapshots for the exact wording
//! (tests/boot/snapshots/, reviewed with `cargo insta review`: tests/README.md), properties for
//! the budget.

use handover_clients::Agent;
use handover_core::context::{self, Pressure, Startup};
use handover_handoff::model::*;

fn sample() -> Handoff {
    Handoff {
        schema_version: SCHEMA_VERSION,
        id: "20261122T021451.000000000Z-1a2b".into(),
        created_at: "2026-11-22T02:14:51Z".into(),
        agent: Some("claude".into()),
        session_id: Some("s-1".into()),
        git: Some(GitSnapshot {
            root: "/repo".into(),
            branch: Some("main".into()),
            head: Some("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678".into()),
            ..Default::default()
        }),
        content: Content {
            goal: "Add CSV export to the report command".into(),
            spec_ref: Some("docs/spec.md#export".into()),
            status: Status {
                completed: vec!["Row builder".into()],
                in_progress: vec!["CSV writer: quoting".into(), "Column order check".into()],
                pending: vec!["Docs".into()],
            },
            decisions: vec![Decision {
                what: "Hand-written CSV".into(),
                why: "two columns".into(),
                alternatives: vec!["csv crate".into()],
                reversible: Some(true),
                deferred: false,
            }],
            blockers: vec!["CI runner is down".into()],
            next_action: Some("Quote fields with commas, then add tests".into()),
            stop_conditions: vec!["The spec and the code disagree on column order".into()],
            ..Default::default()
        },
        ..Default::default()
    }
}

fn verification(verdict: Verdict, message: &str) -> Verification {
    Verification {
        verdict,
        reasons: if verdict == Verdict::Fresh {
            vec![]
        } else {
            vec![Reason {
                code: "head_moved".into(),
                message: message.into(),
                severity: verdict,
                details: vec!["b2c3d4e Write the header".into()],
            }]
        },
    }
}

fn startup(h: &Handoff, v: &Verification, budget: usize, after_compaction: bool) -> String {
    context::startup_context(&Startup {
        handoff: h,
        verification: v,
        recovered_from: None,
        after_compaction,
        budget_chars: budget,
        command: "handover",
    })
}

#[test]
fn startup_context_fresh_matches_snapshot() {
    insta::assert_snapshot!(
        "startup_fresh",
        &startup(&sample(), &verification(Verdict::Fresh, ""), 1500, false),
    );
}

#[test]
fn startup_context_drifted_after_compaction_matches_snapshot() {
    let v = verification(
        Verdict::Drifted,
        "HEAD moved 1 commit ahead of a1b2c3d on main",
    );
    insta::assert_snapshot!(
        "startup_drifted_compact",
        &startup(&sample(), &v, 1500, true),
    );
}

#[test]
fn startup_context_names_the_recovery() {
    let text = context::startup_context(&Startup {
        handoff: &sample(),
        verification: &verification(Verdict::Fresh, ""),
        recovered_from: Some(
            "state.json: checksum mismatch; using the newest intact copy from the journal",
        ),
        after_compaction: false,
        budget_chars: 1500,
        command: "handover",
    });
    insta::assert_snapshot!("startup_recovered", text);
}

#[test]
fn startup_context_stale_matches_snapshot() {
    let v = verification(
        Verdict::Stale,
        "HEAD is no longer a descendant of a1b2c3d (history rewritten)",
    );
    insta::assert_snapshot!("startup_stale", startup(&sample(), &v, 1500, false));
}

#[test]
fn boot_report_matches_snapshot() {
    let v = verification(
        Verdict::Drifted,
        "HEAD moved 1 commit ahead of a1b2c3d on main",
    );
    insta::assert_snapshot!(
        "boot_report",
        &context::boot_report(&sample(), &v, None, "handover"),
    );
}

#[test]
fn save_progress_and_compaction_texts_match_snapshot() {
    let text = [
        context::save_progress(Pressure::Remind, 61, "handover", Agent::Claude),
        context::save_progress(
            Pressure::Insist,
            77,
            "'/opt/my tools/handover'",
            Agent::Claude,
        ),
        context::save_progress(Pressure::Insist, 77, "handover", Agent::Codex),
        context::save_progress(Pressure::Insist, 46, "handover", Agent::Gemini),
        context::save_progress_again(80, "handover"),
        context::compaction_instructions(Some(&sample()), "handover"),
        context::compaction_instructions(None, "handover"),
        context::unrecoverable_context("state.json: not valid JSON", "handover"),
    ]
    .join("\n\n-----\n\n");
    insta::assert_snapshot!("agent_texts", &text);
}

/// A handoff far over budget: every list long, every item long.
fn oversized() -> Handoff {
    let mut h = sample();
    let long = "word ".repeat(80);
    h.content.goal = format!("Goal {long}");
    h.content.status.in_progress = (0..30).map(|i| format!("item {i} {long}")).collect();
    h.content.blockers = (0..30).map(|i| format!("blocker {i} {long}")).collect();
    h.content.stop_conditions = (0..30).map(|i| format!("stop {i} {long}")).collect();
    h.content.next_action = Some(format!("next {long}"));
    h
}

#[test]
fn startup_context_stays_within_budget_and_keeps_essentials() {
    let v = verification(Verdict::Stale, "the branch changed from main to feature");
    for budget in [400, 600, 900, 1500, 2500] {
        let text = startup(&oversized(), &v, budget, false);
        assert!(
            text.chars().count() <= budget,
            "budget {budget}: {} chars",
            text.chars().count()
        );
        // The verdict with its reason, the goal and the pointer to the rest are kept.
        insta::assert_snapshot!(format!("stale_within_{budget}"), text);
        // Never mid-word: every shortened item ends on a whole word plus the ellipsis.
        for line in text.lines().filter(|l| l.ends_with('…')) {
            assert!(
                line.trim_end_matches('…').ends_with("word"),
                "cut mid-word: {line:?}"
            );
        }
    }
}

#[test]
fn trimming_drops_in_progress_before_stop_conditions() {
    let v = verification(Verdict::Fresh, "");
    let text = startup(&oversized(), &v, 1500, false);
    let kept = |prefix: &str| text.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(kept("- item "), 0, "in-progress items go first:\n{text}");
    assert!(kept("- stop ") >= 1, "a stop condition survives:\n{text}");
    // It says what was left out.
    insta::assert_snapshot!("trimmed_to_1500", text);
}

#[test]
fn shorten_cuts_at_word_boundaries() {
    assert_eq!(
        handover_base::text::shorten("alpha beta gamma", 100),
        "alpha beta gamma"
    );
    assert_eq!(
        handover_base::text::shorten("alpha beta gamma", 12),
        "alpha beta…"
    );
    assert_eq!(
        handover_base::text::shorten("alpha beta gamma", 11),
        "alpha beta…"
    );
    assert_eq!(
        handover_base::text::shorten("supercalifragilistic", 6),
        "super…"
    );
    assert_eq!(handover_base::text::shorten("  padded  ", 100), "padded");
}

#[test]
fn a_long_word_is_cut_rather_than_wasting_the_room() {
    // Cutting back to the last space would leave "Goal:…" and most of the room unused.
    assert_eq!(
        handover_base::text::shorten(
            "Goal: docs/architecture/storage-layer-migration-plan.md is the plan",
            30
        ),
        "Goal: docs/architecture/stora…"
    );
}

#[test]
fn a_shortened_goal_fills_the_budget() {
    let mut h = sample();
    h.content.goal = format!(
        "docs/{}.md is the plan to follow",
        "storage-layer-migration-".repeat(8)
    );
    h.content.status.in_progress.clear();
    h.content.blockers.clear();
    h.content.stop_conditions.clear();
    h.content.next_action = None;
    h.content.spec_ref = None;
    let v = verification(Verdict::Fresh, "");
    for budget in [300, 350, 400, 440] {
        let text = startup(&h, &v, budget, false);
        let used = text.chars().count();
        assert!(used <= budget, "budget {budget}: {used}\n{text}");
        assert!(
            used + 5 >= budget,
            "budget {budget}: {} characters unused\n{text}",
            budget - used
        );
        insta::assert_snapshot!(format!("long_goal_within_{budget}"), text);
    }
}

#[test]
fn startup_context_fetched_from_another_machine_matches_snapshot() {
    let v = verification(
        Verdict::Drifted,
        "HEAD moved 1 commit ahead of a1b2c3d on main",
    );
    let text = context::fetched_startup_context(
        &Startup {
            handoff: &sample(),
            verification: &v,
            recovered_from: None,
            after_compaction: false,
            budget_chars: 1500,
            command: "handover",
        },
        "machine «laptop», pushed at 2026-11-22T02:20:00Z, fetched from origin",
        0,
    );
    insta::assert_snapshot!("startup_fetched", &text);
    assert!(text.chars().count() <= 1500);
}

/// A fetched handoff that carries uncommitted work points at `pull --adopt --apply`, which
/// brings the work too, and says how many files; without, at `pull --adopt` alone.
#[test]
fn a_fetched_handoff_with_travelled_work_points_at_apply() {
    let v = verification(Verdict::Fresh, "branch and HEAD match");
    let startup = Startup {
        handoff: &sample(),
        verification: &v,
        recovered_from: None,
        after_compaction: false,
        budget_chars: 1500,
        command: "handover",
    };
    let from = "machine «laptop», pushed at 2026-11-22T02:20:00Z, fetched from remote «origin»";
    let with = context::fetched_startup_context(&startup, from, 3);
    insta::assert_snapshot!("fetched_startup_with_3_files", with);
    let one = context::fetched_startup_context(&startup, from, 1);
    insta::assert_snapshot!("fetched_startup_with_1_file", one);
    let without = context::fetched_startup_context(&startup, from, 0);
    assert!(!without.contains("--apply"), "{without}");
    insta::assert_snapshot!("fetched_startup_without_work", without);
}
