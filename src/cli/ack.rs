//! `handover ack`: the agent confirms it received the handoff. The journal records it, so
//! `handover status` can show a handoff that was delivered but never acknowledged.

use super::output::stdout;
use super::AckArgs;
use handover_core::sanitize::one_line;
use handover_core::store::Event;
use handover_core::store::{LoadOutcome, Store};
use serde_json::json;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &AckArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let store = Store::discover(dir);
    let handoff = match store.load() {
        LoadOutcome::Loaded(l) => l.handoff,
        LoadOutcome::Missing => {
            writeln!(
                stdout(),
                "No handoff in {}: nothing to acknowledge.",
                store.root().display()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        LoadOutcome::Refused(refused) => return Err(refused.into()),
        LoadOutcome::Unrecoverable { problem } => {
            writeln!(
                stdout(),
                "The handoff is damaged ({problem}); run `handover status`."
            )?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    let session = super::detect_session(args.session.as_deref());
    // Ids and names the caller passed are text like any other: no token reaches the journal.
    let session = session.as_deref().map(handover_core::sanitize::redacted);
    let agent = super::detect_agent(None)
        .as_deref()
        .map(handover_core::sanitize::redacted);
    store.append_journal(
        Event::Ack,
        json!({"handoff_id": handoff.id, "session_id": session, "agent": agent}),
    )?;
    writeln!(
        stdout(),
        "Acknowledged handoff {} (goal: {}).",
        one_line(&handoff.id),
        one_line(&handoff.content.goal)
    )?;
    Ok(ExitCode::SUCCESS)
}
