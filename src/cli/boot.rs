//! `handover boot`: read the handoff, verify it against the repository, report.

use super::BootArgs;
use handover_core::context::{self, Startup};
use handover_core::store::{LoadOutcome, Source, Store};
use handover_core::{config, verify};
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
    if args.json {
        let out = json!({
            "verdict": verification.verdict,
            "reasons": verification.reasons,
            "source": loaded.source.as_str(),
            "problem": loaded.problem,
            "recovered": loaded.source != Source::State,
            "root": store.root(),
            "handoff": loaded.handoff,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if args.startup {
        let budget = config::load(store.root())
            .unwrap_or_default()
            .startup_budget_chars;
        println!(
            "{}",
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
            "{}",
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
