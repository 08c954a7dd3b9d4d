//! What git says about the working tree: root discovery, the snapshot recorded in a handoff,
//! and the files changed since a commit.
//! OWNER: core-git helper.

use crate::model::{FileChange, GitSnapshot};
use std::path::{Path, PathBuf};

/// The top of the enclosing git working tree, found by walking up from `start` to a directory
/// containing `.git` (a directory, or a file for linked worktrees and submodules). Pure file
/// system checks: cheap enough for every hook call.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let _ = start;
    todo!("core-git")
}

/// The snapshot of the repository at `root`, or Ok(None) if `root` is not in a git repository.
pub fn snapshot(root: &Path) -> anyhow::Result<Option<GitSnapshot>> {
    let _ = root;
    todo!("core-git")
}

/// Files changed between `since` (a commit id; when None, the merge base of HEAD with the
/// default branch) and the working tree, including uncommitted and untracked files.
/// Returns the changes and the commit actually used as base (None when none was found).
pub fn files_changed(
    root: &Path,
    since: Option<&str>,
) -> anyhow::Result<(Vec<FileChange>, Option<String>)> {
    let _ = (root, since);
    todo!("core-git")
}
