//! Journals a startup delivery (the composition itself is `handover_core::startup`).

use crate::call::Call;
use handover_core::startup::Delivery;
use handover_core::store::Event;
use serde_json::json;

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
