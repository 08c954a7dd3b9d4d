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
pub fn edited_since(path: &Path, handoff: &Handoff) -> bool {
    match read(path) {
        OnDisk::Bytes(bytes) => differs(&bytes, handoff),
        _ => false,
    }
}

/// The one sentence every reader prints when `edited_since` is true.
pub fn edited_notice(command: &str) -> String {
    format!(
        "handover.md was edited after the handoff was written, and the edits are not recorded: \
         run `{command} write --from handover.md` to record them (the verdict and this context \
         come from .handover/state.json)."
    )
}
