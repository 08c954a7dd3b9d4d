//! `handover status`: one screen of health: the handoff, its verdict, the privacy guard, the
//! deliveries and acknowledgements; then the installer's section: hooks per agent and scope,
//! Codex flags and trust, the startup section in AGENTS.md / CLAUDE.md.

use super::StatusArgs;
use handover_core::store::{LoadOutcome, Store};
use handover_core::verify;
use handover_core::{guard, hand_edits};
use serde_json::{json, Value};
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &StatusArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let root = store.root();
    let mut lines = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut report = serde_json::Map::new();
    // Lossy: a path that is not UTF-8 must not stop the report (JSON strings are UTF-8).
    report.insert("root".into(), json!(root.to_string_lossy()));

    match store.load() {
        LoadOutcome::Missing => {
            lines.push("handoff: none (write one with `handover write`)".to_string());
            report.insert("handoff".into(), json!({"present": false}));
        }
        LoadOutcome::Unrecoverable { problem } => {
            lines.push(format!(
                "handoff: DAMAGED, nothing intact to recover: {problem}"
            ));
            problems.push(format!(
                "the handoff is damaged ({problem}): rewrite it with `handover write --from handover.md` if handover.md is intact, or `handover write --fresh ...`"
            ));
            report.insert(
                "handoff".into(),
                json!({"present": true, "valid": false, "problem": problem}),
            );
        }
        LoadOutcome::Loaded(l) => {
            let v = verify::verify(root, &l.handoff);
            let recovered = super::boot::recovered_note(l.source, l.problem.as_deref());
            lines.push(format!(
                "handoff: {} written {} — goal: {}",
                l.handoff.id, l.handoff.created_at, l.handoff.content.goal
            ));
            if let Some(r) = &recovered {
                lines.push(format!("  recovered: {r}"));
                problems.push("state.json is damaged: run `handover write --from handover.md` (or write a new handoff) to repair it".into());
            }
            let main_reason = v
                .reasons
                .first()
                .map(|r| format!(" ({})", r.message))
                .unwrap_or_default();
            lines.push(format!("verdict: {}{main_reason}", v.verdict.as_str()));
            let edited = hand_edits::edited_since(&store.markdown_path(), &l.handoff);
            if edited {
                lines.push("handover.md: edited by hand, edits not recorded".to_string());
                problems.push(hand_edits::edited_notice(
                    &handover_base::handover_command::handover_command(),
                ));
            }
            let (delivered, acked) = deliveries(&store, &l.handoff.id);
            lines.push(format!(
                "delivered to agents: {delivered} time(s); acknowledged: {acked} time(s)"
            ));
            if delivered > 0 && acked == 0 {
                problems.push("the handoff was delivered but never acknowledged: check that the agent sees the startup context (`handover boot --startup` shows it)".into());
            }
            report.insert(
                "handoff".into(),
                json!({
                    "present": true, "valid": l.source == handover_core::store::Source::State,
                    "id": l.handoff.id, "created_at": l.handoff.created_at, "goal": l.handoff.content.goal,
                    "source": super::boot::source_name(l.source), "problem": l.problem,
                    "deliveries": delivered, "acks": acked, "handover_md_edited": edited,
                }),
            );
            report.insert("verdict".into(), json!(v.verdict));
            report.insert("reasons".into(), json!(v.reasons));
        }
    }

    if let Err(e) = handover_core::config::load(root) {
        lines.push(format!("config: INVALID, defaults in use: {e:#}"));
        problems.push(format!("{e:#}"));
        report.insert("config_problem".into(), json!(format!("{e:#}")));
    }

    let g = guard::status(root);
    lines.push(format!(
        ".gitignore guard: {}",
        if g.present {
            "present (handover.md and .handover/ stay private)"
        } else if g.problem.is_some() {
            "NOT EFFECTIVE (see below)"
        } else {
            "absent"
        }
    ));
    if let Some(problem) = &g.problem {
        problems.push(problem.clone());
    } else if !g.present && root.join(".git").exists() {
        problems.push("handoff files are not ignored by git: run `handover install` (or any `handover write`) to add the guard, or use --shared on purpose".into());
    }
    if !g.tracked.is_empty() {
        lines.push(format!("  tracked by git: {}", g.tracked.join(", ")));
        problems.push(format!(
            "git tracks {}: `git rm --cached {}` makes them private again (they stay on disk)",
            g.tracked.join(", "),
            g.tracked.join(" ")
        ));
    }
    report.insert(
        "guard".into(),
        json!({"present": g.present, "tracked": g.tracked, "problem": g.problem}),
    );

    let installed = if args.check_trust {
        super::install::status_section_live(root)
    } else {
        super::install::status_section(root)
    };
    lines.extend(installed.lines);
    problems.extend(installed.problems);
    report.insert("agents".into(), installed.json);

    report.insert("problems".into(), json!(problems));
    if args.json {
        println!("{}", serde_json::to_string_pretty(&Value::Object(report))?);
    } else {
        for l in &lines {
            println!("{l}");
        }
        if problems.is_empty() {
            println!("No problems found.");
        } else {
            println!("\nTo fix:");
            for p in &problems {
                println!("  - {p}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How many times this handoff was delivered by a hook and acknowledged with `handover ack`.
fn deliveries(store: &Store, handoff_id: &str) -> (usize, usize) {
    let mut delivered = 0;
    let mut acked = 0;
    for e in store.journal() {
        let for_this = e.get("handoff_id").and_then(Value::as_str) == Some(handoff_id);
        match e.get("event").and_then(Value::as_str) {
            Some("delivered") if for_this => delivered += 1,
            Some("ack") if for_this => acked += 1,
            _ => {}
        }
    }
    (delivered, acked)
}
