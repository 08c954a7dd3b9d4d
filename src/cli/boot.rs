//! `handover boot`: read the handoff, verify it against the repository, report.

use super::BootArgs;
use handover_core::context::{self, Startup};
use handover_core::store::{LoadOutcome, Source, Store};
use handover_core::{config, hand_edits, verify};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &BootArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let command = handover_base::handover_command::handover_command();
    let loaded = match store.load() {
        LoadOutcome::Missing => {
            if args.json {
                println!(
                    "{}",
                    json!({"verdict": null, "reasons": [], "handoff": null, "message": "no handoff"})
                );
            } else {
                println!("No handoff in {}.", store.root().display());
            }
            return Ok(ExitCode::SUCCESS);
        }
        LoadOutcome::Unrecoverable { problem } => {
            if args.json {
                println!(
                    "{}",
                    json!({"verdict": null, "reasons": [], "handoff": null, "recovered": false, "problem": problem})
                );
            } else {
                println!("{}", context::unrecoverable_context(&problem, &command));
            }
            return Ok(ExitCode::SUCCESS);
        }
        LoadOutcome::Refused(refused) => {
            if args.json {
                println!(
                    "{}",
                    json!({"verdict": null, "reasons": [], "handoff": null, "refused": refused.to_string()})
                );
            } else {
                println!(
                    "{}",
                    context::refused_context(&refused.to_string(), &command)
                );
            }
            return Ok(ExitCode::from(1));
        }
        LoadOutcome::Loaded(l) => l,
    };
    let recovered = loaded.recovered_note();
    let verification = verify::verify(store.root(), &loaded.handoff);
    let edited = hand_edits::edited_since(&store.markdown_path(), &loaded.handoff);
    let edited_notice = edited.then(|| format!("\n{}", hand_edits::edited_notice(&command)));
    let edited_notice = edited_notice.as_deref().unwrap_or_default();
    // A broken config.toml is said here too, not only by `write`: its settings are not in force.
    let config = config::load(store.root());
    let config_problem = config.as_ref().err().map(|e| format!("{e:#}"));
    let config_notice = config_problem
        .as_ref()
        .map(|p| format!("\nwarning: {p} (using the default settings until it is fixed)"))
        .unwrap_or_default();
    let edited_notice = format!("{edited_notice}{config_notice}");
    if args.json {
        let out = json!({
            "verdict": verification.verdict,
            "reasons": verification.reasons,
            "source": loaded.source.as_str(),
            "problem": loaded.problem,
            "recovered": loaded.source != Source::State,
            "handover_md_edited": edited,
            "config_problem": config_problem,
            "root": store.root().to_string_lossy(),
            "handoff": loaded.handoff,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if args.startup {
        let budget = config.unwrap_or_default().startup_budget_chars;
        println!(
            "{}{edited_notice}",
            context::startup_context(&Startup {
                handoff: &loaded.handoff,
                verification: &verification,
                recovered_from: recovered.as_deref(),
                after_compaction: false,
                budget_chars: budget,
                command: &command,
            })
        );
    } else {
        println!(
            "{}{edited_notice}",
            context::boot_report(
                &loaded.handoff,
                &verification,
                recovered.as_deref(),
                &command
            )
        );
    }
    Ok(ExitCode::SUCCESS)
}
