//! The handoff on disk: `.handover/state.json` (canonical), `handover.md` (for people),
//! `.handover/journal.jsonl` (append-only), `.handover/archive/<stamp>.json` (previous ones).
//! Writes are atomic and serialized by a lock; loads never panic and fall back to the newest
//! intact journal entry or archive when state.json is damaged.
//! OWNER: core-store helper.

use crate::model::Handoff;
use std::path::{Path, PathBuf};

/// Where a handoff lives: the top of the working tree (each git worktree has its own).
#[derive(Clone, Debug)]
pub struct Store {
    root: PathBuf,
}

/// Where a loaded handoff came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    State,
    Journal,
    Archive,
}

#[derive(Clone, Debug)]
pub struct Loaded {
    pub handoff: Handoff,
    pub source: Source,
    /// Why state.json was not used (corrupt, truncated, checksum mismatch...), when it wasn't.
    pub problem: Option<String>,
}

#[derive(Clone, Debug)]
pub enum LoadOutcome {
    /// No handoff at all.
    Missing,
    Loaded(Loaded),
    /// state.json exists but is damaged, and nothing intact was found to fall back on.
    Unrecoverable {
        problem: String,
    },
}

#[derive(Clone, Debug, Default)]
pub struct SaveReport {
    /// Where the previous handoff was moved, if there was one.
    pub archived: Option<PathBuf>,
}

impl Store {
    pub fn at(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// The store for a directory: the enclosing git working tree's top (found by walking up to
    /// a `.git` file or directory, no git library involved), else the nearest ancestor with a
    /// `.handover/` directory, else `start` itself.
    pub fn discover(start: &Path) -> Store {
        Store::at(crate::git::find_root(start).unwrap_or_else(|| start.to_path_buf()))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn dir(&self) -> PathBuf {
        self.root.join(".handover")
    }
    pub fn state_path(&self) -> PathBuf {
        self.dir().join("state.json")
    }
    pub fn markdown_path(&self) -> PathBuf {
        self.root.join("handover.md")
    }
    pub fn journal_path(&self) -> PathBuf {
        self.dir().join("journal.jsonl")
    }
    pub fn archive_dir(&self) -> PathBuf {
        self.dir().join("archive")
    }
    pub fn config_path(&self) -> PathBuf {
        self.dir().join("config.toml")
    }
    /// Per-session hook state lives here (owned by the hooks crate).
    pub fn sessions_dir(&self) -> PathBuf {
        self.dir().join("sessions")
    }

    pub fn load(&self) -> LoadOutcome {
        todo!("core-store")
    }

    /// Under the lock: archive the previous state.json, write state.json and handoff.md
    /// atomically, append a `write` event (with the full handoff) to the journal.
    pub fn save(&self, handoff: &Handoff, markdown: &str) -> anyhow::Result<SaveReport> {
        let _ = (handoff, markdown);
        todo!("core-store")
    }

    /// Appends one event line `{"ts": ..., "event": <event>, ...fields}` to the journal.
    /// `fields` must be a JSON object.
    pub fn append_journal(&self, event: &str, fields: serde_json::Value) -> anyhow::Result<()> {
        let _ = (event, fields);
        todo!("core-store")
    }

    /// Journal events, oldest first; unparseable lines are skipped.
    pub fn journal(&self) -> Vec<serde_json::Value> {
        todo!("core-store")
    }

    /// The task is finished: archive the handoff, journal `done`, remove handoff.md and
    /// state.json. Returns the archive path, or None when there was no handoff.
    pub fn finish(&self) -> anyhow::Result<Option<PathBuf>> {
        todo!("core-store")
    }
}

/// `sha256:<hex>` over the canonical JSON of the handoff without its `checksum` field:
/// compact, object keys sorted recursively (independent of serde_json's preserve_order).
pub fn checksum(handoff: &Handoff) -> String {
    let _ = handoff;
    todo!("core-store")
}

/// Sets `handoff.checksum`.
pub fn seal(handoff: &mut Handoff) {
    handoff.checksum = checksum(handoff);
}
