//! Branch and HEAD of the repository, as cheaply as they can be read: the PreCompact snapshot
//! and the session record both want them.

use std::path::Path;

/// Branch and HEAD commit, read from the files under `.git` (libgit2 only for layouts that
/// reader does not handle); Nones when there is no repository or no commit.
pub fn head_of(root: &Path) -> (Option<String>, Option<String>) {
    let info = crate::read_head_files(root).or_else(|| {
        let repo = crate::open(root).ok().flatten()?;
        crate::head_info(&repo).ok()
    });
    match info {
        Some(i) => (i.branch, i.head),
        None => (None, None),
    }
}
