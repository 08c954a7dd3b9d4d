//! What an edit did, item by item, so the CLI can say exactly what changed.

use std::fmt;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Updated,
    Removed,
    Unchanged,
    /// Something of the user's that we found and deliberately did not touch (reported).
    Kept,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Updated => "updated",
            ChangeKind::Removed => "removed",
            ChangeKind::Unchanged => "unchanged",
            ChangeKind::Kept => "left alone",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    /// What changed, e.g. `SessionStart → handover-session-start`.
    pub what: String,
}

impl Change {
    pub fn new(kind: ChangeKind, what: impl Into<String>) -> Self {
        Change {
            kind,
            what: what.into(),
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.what)
    }
}

/// True when any change actually alters the file.
pub fn any_effective(changes: &[Change]) -> bool {
    changes
        .iter()
        .any(|c| !matches!(c.kind, ChangeKind::Unchanged | ChangeKind::Kept))
}

/// How the run ended: `ok` false means exit non-zero. An error (`Err`) means nothing was written:
/// every file is checked before the first write and the writes are all or nothing. A failed
/// trust step (after the files were written) leaves the file edits in place and says so.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub ok: bool,
    pub wrote: Vec<PathBuf>,
    pub backups: Vec<PathBuf>,
    pub problems: Vec<String>,
    /// Directories created (install) or removed (uninstall), outermost first.
    pub dirs: Vec<PathBuf>,
}
