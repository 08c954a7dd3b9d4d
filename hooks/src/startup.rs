//! The startup context, as SessionStart delivers it and as the context watch's fallbacks
//! deliver it: load the handoff, verify it cheaply, render the text (the text itself lives in
//! the core, `handover_core::context`), record the delivery.

use crate::call::Call;
use handover_core::context::{self, Startup};
use handover_core::model::Verdict;
use handover_core::store::Event;
use handover_core::store::{LoadOutcome, Store};
use serde_json::json;

pub struct Delivery {
    pub text: String,
    /// None when the store is damaged beyond recovery (journaled as `unrecoverable`), or
    /// refused (see `handover_core::safe_fs`; nothing is journaled in a refused store).
    pub verdict: Option<Verdict>,
    pub handoff_id: Option<String>,
}

/// None when there is no handoff: nothing to deliver.
pub fn build(store: &Store, command: &str, after_compaction: bool) -> Option<Delivery> {
    let root = store.root();
    match store.load() {
        LoadOutcome::Missing => None,
        LoadOutcome::Refused(refused) => Some(Delivery {
            text: context::refused_context(&refused.to_string(), command),
            verdict: None,
            handoff_id: None,
        }),
        LoadOutcome::Unrecoverable { problem } => Some(Delivery {
            text: context::unrecoverable_context(&problem, command),
            verdict: None,
            handoff_id: None,
        }),
        LoadOutcome::Loaded(loaded) => {
            let budget = handover_core::config::load(root)
                .unwrap_or_default()
                .startup_budget_chars;
            // Only branch, HEAD and the referenced files: the same cost on any repository size.
            let verification = handover_core::verify::verify_quick(root, &loaded.handoff);
            let recovered = loaded.recovered_note();
            let text = context::startup_context(&Startup {
                handoff: &loaded.handoff,
                verification: &verification,
                recovered_from: recovered.as_deref(),
                after_compaction,
                budget_chars: budget,
                command,
            });
            Some(Delivery {
                text,
                verdict: Some(verification.verdict),
                handoff_id: Some(loaded.handoff.id.clone()).filter(|id| !id.is_empty()),
            })
        }
    }
}

/// Journals one delivery: which session got which handoff, how, and with what verdict. The
/// CLI's `handover ack` records the other half; `handover status` compares the two.
pub fn record(call: &Call, delivery: &Delivery, source: &str) -> Option<String> {
    call.journal(
        Event::Delivered,
        json!({
            "source": source,
            "verdict": delivery.verdict.map_or("unrecoverable", Verdict::as_str),
            "handoff_id": delivery.handoff_id,
            "chars": delivery.text.chars().count(),
        }),
    )
}
