//! `handover done`: the task is finished; archive the handoff so no later session resumes it.

use super::output::{stdout, JSON_VERSION};
use super::DoneArgs;
use handover_handoff::store::Store;
use serde_json::json;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &DoneArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let finished = store.finish()?;
    if args.json {
        let path = |p: &Path| p.to_string_lossy().into_owned();
        let out = json!({
            "version": JSON_VERSION,
            "archived": finished.as_ref().map(|f| path(&f.archived)),
            "kept_markdown": finished.as_ref().and_then(|f| f.kept_markdown.as_deref().map(path)),
        });
        writeln!(stdout(), "{out}")?;
        return Ok(ExitCode::SUCCESS);
    }
    match finished {
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
