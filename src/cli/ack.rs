//! `handover ack`: the agent confirms it received the handoff. The journal records it, so
//! `handover status` can show a handoff that was delivered but never acknowledged.

use super::output::{stdout, JSON_VERSION};
use super::AckArgs;
use handover_handoff::store::Event;
use handover_handoff::store::{LoadOutcome, Store};
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: &AckArgs, dir: &Path) -> anyhow::Result<ExitCode> {
    let (text, mut fields) = acknowledge(dir, args.session.as_deref())?;
    if args.json {
        fields["version"] = json!(JSON_VERSION);
        writeln!(stdout(), "{fields}")?;
    } else {
        writeln!(stdout(), "{text}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Records the acknowledgement (when there is a handoff to acknowledge) and says what
/// happened: the line `ack` prints, and the fields of its `--json` object. The MCP server's
/// `handover_ack` answers with the line.
pub fn acknowledge(dir: &Path, session: Option<&str>) -> anyhow::Result<(String, Value)> {
    let store = Store::discover(dir);
    let handoff = match store.load() {
        LoadOutcome::Loaded(l) => l.handoff,
        LoadOutcome::Missing => {
            let text = format!(
                "No handoff in {}: nothing to acknowledge.",
                store.root().display()
            );
            return Ok((text, json!({"acknowledged": false, "reason": "no handoff"})));
        }
        LoadOutcome::Refused(refused) => return Err(refused.into()),
        LoadOutcome::Unrecoverable { problem } => {
            let text = format!("The handoff is damaged ({problem}); run `handover status`.");
            return Ok((
                text,
                json!({"acknowledged": false, "reason": "damaged", "problem": problem}),
            ));
        }
    };
    let caller = handover_record::writer::Writer::identify(None, session);
    // Ids and names the caller passed are text like any other: no token reaches the journal.
    let session = caller
        .session_id
        .as_deref()
        .map(handover_handoff::sanitize::redacted);
    let agent = caller
        .agent
        .map(|a| handover_handoff::sanitize::redacted(a.as_str()));
    store.append_journal(
        Event::Ack,
        json!({"handoff_id": handoff.id, "session_id": session, "agent": agent}),
    )?;
    let text = format!(
        "Acknowledged handoff {} (goal: {}).",
        handover_handoff::sanitize::token(&handoff.id),
        handover_handoff::sanitize::quote(&handoff.content.goal)
    );
    let fields = json!({"acknowledged": true, "handoff_id": handoff.id, "goal": handoff.content.goal,
                        "session_id": session, "agent": agent});
    Ok((text, fields))
}
