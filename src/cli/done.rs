//! `handover done`: the task is finished; archive the handoff so no later session resumes it.

use super::output::stdout;
use handover_core::store::Store;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

pub fn run(dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    match store.finish()? {
        Some(finished) => {
            writeln!(
                stdout(),
                "Archived the handoff to {}; removed handover.md and .handover/state.json. The journal keeps the history.",
                finished.archived.display()
            )?;
            if let Some(kept) = &finished.kept_markdown {
                writeln!(
                    stdout(),
                    "handover.md held edits the handoff did not record: kept them at {}.",
                    kept.display()
                )?;
            }
        }
        None => writeln!(
            stdout(),
            "No handoff in {}: nothing to finish.",
            store.root().display()
        )?,
    }
    Ok(ExitCode::SUCCESS)
}
