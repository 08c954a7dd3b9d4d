//! Which working tree a directory belongs to, without opening a repository: the store lives at
//! its top, and every hook call asks this first, so it is plain file system checks only (git
//! itself is read a layer up, in handover-verify, which re-exports this as `handover_handoff::worktree::find_root`).

use std::fs;
use std::path::{Path, PathBuf};

/// The top of the enclosing git working tree, found by walking up from `start` to a directory
/// containing `.git` (a directory, or a file for linked worktrees and submodules). Pure file
/// system checks: cheap enough for every hook call.
///
/// A relative `start` is taken relative to the process's current directory; a `start` that
/// does not exist (or is not a directory) gives None rather than a guess.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let start = if start.is_absolute() {
        start.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(start)
    };
    if !start.is_dir() {
        return None;
    }
    // `ancestors` is lexical: drop `.` components, and resolve `..` through the file system
    // (only then, so a symlinked path the caller gave is otherwise kept as given).
    let start: PathBuf = if start
        .components()
        .any(|c| c == std::path::Component::ParentDir)
    {
        fs::canonicalize(&start).ok()?
    } else {
        start.components().collect()
    };
    // Bounded by the depth of the path; `ancestors` ends at the file system root.
    start
        .ancestors()
        .find(|dir| fs::symlink_metadata(dir.join(".git")).is_ok())
        .map(Path::to_path_buf)
}
