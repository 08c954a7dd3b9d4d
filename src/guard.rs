//! Private by default: a marked block in `.gitignore` keeps `handover.md` and `.handover/`
//! out of git. Tracked handoff files are reported, never untracked behind the user's back.
//! OWNER: core-git helper.

use std::path::Path;

pub const BEGIN_MARK: &str = "# >>> handover (private handoff files) >>>";
pub const END_MARK: &str = "# <<< handover <<<";

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GuardStatus {
    /// The marked block is present in `<root>/.gitignore`.
    pub present: bool,
    /// Handoff files git already tracks (repo-relative).
    pub tracked: Vec<String>,
}

/// Adds the marked block if missing (atomic write, rest of the file untouched).
/// Returns the status after the change and whether the file was changed.
pub fn ensure(root: &Path) -> anyhow::Result<(GuardStatus, bool)> {
    let _ = root;
    todo!("core-git")
}

pub fn status(root: &Path) -> GuardStatus {
    let _ = root;
    todo!("core-git")
}
