//! Redacting a handoff's content: every string field and every map key, each secret reported
//! with its field path. The detection itself is handover-redact's, text by text.

use crate::model::Content;
use crate::strings::visit_strings_mut;
use handover_redact::{redact_field, redact_map, Redaction};

/// Redacts every string field of the content in place, map keys included. One `Redaction` per
/// secret found.
pub fn redact(content: &mut Content) -> Vec<Redaction> {
    let mut found = Vec::new();
    // The maps first, with their keys' meaning (`{"DB_PASSWORD": "…"}`).
    redact_map(&mut content.environment, "environment", &mut found);
    redact_map(
        &mut content.evidence.measurements,
        "evidence.measurements",
        &mut found,
    );
    visit_strings_mut(content, &mut |path, text| {
        if path.starts_with("environment[") || path.starts_with("evidence.measurements[") {
            return; // done above, with the key's meaning
        }
        redact_field(path, text, &mut found);
    });
    found
}
