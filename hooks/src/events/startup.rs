//! The startup context a hook delivers, and its journal line. The composition itself is
//! `handover_core::startup`: snapshot → decide → render.

use crate::call::Call;
use handover_core::startup::decide::decide;
use handover_core::startup::render::{render, Delivery};
use handover_core::startup::snapshot::Snapshot;
use handover_handoff::store::{Event, Store};
use serde_json::json;

/// The startup context, for the context watch's fallbacks (SessionStart runs the same steps in
/// its own outline): a snapshot of the store and the repository, what to show decided from it,
/// the text. `own_session`: the session whose own record is never shown as the last one's.
pub fn compose(
    call: &Call,
    store: &Store,
    after_compaction: bool,
    own_session: Option<&str>,
) -> Option<Delivery> {
    let snapshot = Snapshot::read(store, after_compaction, own_session);
    let decision = decide(&snapshot);
    if !decision.says_something() {
        // Nothing to say: how the agent runs handover (a walk of the PATH) is not looked up.
        return None;
    }
    let command = call.command();
    render(&snapshot, decision, command)
}

/// Journals one delivery: which session got which handoff, how, and with what verdict. The
/// CLI's `handover ack` records the other half; `handover status` compares the two.
pub fn record(call: &Call, delivery: &Delivery, source: &str) -> Option<String> {
    call.journal(
        Event::Delivered,
        json!({
            "source": source,
            "verdict": delivery.verdict_name(),
            "handoff_id": delivery.handoff_id,
            "chars": delivery.text.chars().count(),
        }),
    )
}
