//! Is `handover.md` still what handover wrote? The README invites people to edit it, and a
//! repository may already hold a `handover.md` of the user's own before the first write. Either
//! way its words must not be lost: the writers keep a copy before replacing or removing a file
//! that says something no handoff records, and `boot`, `status` and the SessionStart hook say
//! when the edits are not recorded yet.
//!
//! "Says something no handoff records" is judged on meaning, not bytes: a file that parses to
//! exactly the handoff's content is not an edit (a newer renderer may lay it out differently).

use crate::markdown;
use crate::model::{Content, Handoff};
use std::path::Path;

/// handover.md files larger than this are not read for the comparison: they are treated as
/// edited (and kept), never parsed.
const MAX_MARKDOWN_BYTES: u64 = 4 * 1024 * 1024;

/// What is at handover.md's place. Only regular files are opened, so a FIFO never blocks.
enum OnDisk {
    Missing,
    Bytes(Vec<u8>),
    /// Present but not read (not a regular file, too large, unreadable).
    Unreadable,
}

fn read(path: &Path) -> OnDisk {
    match crate::safe_fs::read_limited(path, MAX_MARKDOWN_BYTES) {
        Ok(None) => OnDisk::Missing,
        Ok(Some(bytes)) => OnDisk::Bytes(bytes),
        Err(_) => OnDisk::Unreadable,
    }
}

/// The file says the same as `content` (byte for byte as rendered, or parsed back).
fn says(bytes: &[u8], rendered: Option<&str>, content: &Content) -> bool {
    if rendered.is_some_and(|r| r.as_bytes() == bytes) {
        return true;
    }
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| markdown::parse(text).ok())
        .is_some_and(|parsed| &parsed == content)
}

/// handover.md holds words that `handoff` does not (hand edits, or a file that was never ours).
pub fn differs(bytes: &[u8], handoff: &Handoff) -> bool {
    !says(bytes, Some(&markdown::render(handoff)), &handoff.content)
}

/// handover.md exists and says something none of `handoffs` records: replacing or removing it
/// would lose words, so a copy must be kept first. Unreadable counts as differing.
pub fn must_keep(path: &Path, handoffs: &[&Handoff]) -> bool {
    match read(path) {
        OnDisk::Missing => false,
        OnDisk::Unreadable => std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()),
        OnDisk::Bytes(bytes) => handoffs.iter().all(|h| differs(&bytes, h)),
    }
}

/// For readers (boot, status, the SessionStart hook): handover.md was edited after `handoff`
/// was written and the edits are not recorded. A missing or unreadable file is not an edit.
/// A file whose digest is the one recorded at the write is the file written then: no
/// rendering needed (the common case at every session start). Any other file is judged on
/// meaning, as before.
pub fn edited_since(path: &Path, handoff: &Handoff) -> bool {
    match read(path) {
        OnDisk::Bytes(bytes) => {
            let as_written = handoff
                .markdown_sha256
                .as_deref()
                .is_some_and(|d| d == digest(&bytes));
            !as_written && differs(&bytes, handoff)
        }
        _ => false,
    }
}

/// `sha256:<hex>` of handover.md's bytes, recorded in the handoff at the write.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in Sha256::digest(bytes) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The one sentence every reader prints when `edited_since` is true.
pub fn edited_notice(command: &str) -> String {
    format!(
        "handover.md was edited after the handoff was written, and the edits are not recorded: \
         run `{command} write --from handover.md` to record them (the verdict and this context \
         come from .handover/state.json)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handoff() -> Handoff {
        let mut h = Handoff::default();
        h.content.goal = "Ship the export".into();
        h.content.next_action = Some("Quote the fields".into());
        h
    }

    #[test]
    fn the_file_written_is_known_by_its_digest_and_any_other_is_judged_on_meaning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("handover.md");
        let written = markdown::render(&handoff());
        std::fs::write(&path, &written).unwrap();
        let mut with_digest = handoff();
        with_digest.markdown_sha256 = Some(digest(written.as_bytes()));
        let without_digest = handoff();
        assert!(!edited_since(&path, &with_digest));
        assert!(
            !edited_since(&path, &without_digest),
            "older handoffs still work"
        );

        // A digest that does not match (a renderer of another version, say) falls back to
        // the comparison by meaning: the file still says exactly what the handoff says.
        let mut stale = handoff();
        stale.markdown_sha256 = Some(digest(b"something else"));
        assert!(!edited_since(&path, &stale));

        let edited = written.replace("Quote the fields", "Quote the fields, then ask Ana");
        std::fs::write(&path, edited).unwrap();
        assert!(edited_since(&path, &with_digest));
        assert!(edited_since(&path, &without_digest));
    }
}
