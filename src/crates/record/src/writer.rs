//! The writer's record rule: which session record belongs to the session writing a handoff, so
//! that `handover write` can fill in what the record already knows (files edited, commands).

use crate::files;
use crate::SessionRecord;
use handover_handoff::store::Store;
use std::path::Path;

/// The record of the session writing this handoff, identified for sure: by the session id the
/// caller has (given, `HANDOVER_SESSION_ID`, or set by the client for the commands it runs).
/// Without one there is no record: the newest record may be another agent's. The record must
/// be this working tree's own (`files::load_own`, record::provenance), of the same agent when
/// the agent is known, and of a session that has not ended; files it edited that no longer
/// exist are left out.
pub fn record_of_writer(
    store: &Store,
    agent: Option<&handover_clients::AgentName>,
    session_id: Option<&str>,
    now_ms: u64,
) -> Option<SessionRecord> {
    let mut record = files::load_own(store, session_id?, now_ms)?;
    let ended = record
        .ended
        .as_ref()
        .is_some_and(|e| e.how == crate::HowEnded::SessionEnd);
    let other_agent =
        agent.is_some_and(|a| record.agent != crate::untrusted(a.as_str(), 20).as_str());
    if ended || other_agent {
        return None;
    }
    let root = store.root();
    record.files_edited.retain(|f| still_exists(root, f));
    Some(record)
}

/// A repository-relative path that names something in the working tree now (looked at without
/// following a link). Absolute paths and `..` are never looked at.
fn still_exists(root: &Path, rel: &str) -> bool {
    let path = Path::new(rel);
    !path.is_absolute()
        && !path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        && std::fs::symlink_metadata(root.join(path)).is_ok()
}
