//! The handoff document: what the writer supplies (`Content`) and what the tool fills in
//! (`Handoff`). Field names are the on-disk JSON names (snake_case); see docs/format.md.
//!
//! Every struct is `#[serde(default)]` so that a document written by an older or newer
//! version, or by hand, still loads: missing fields become empty, unknown fields are ignored.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Bumped only for changes an older reader would misread (a renamed or re-typed field).
/// Adding an optional field does not bump it. See docs/format.md, "Schema version".
pub const SCHEMA_VERSION: u32 = 1;

/// What the agent (or a person) writes: facts first, plan last.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Content {
    pub goal: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub narrative: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_ref: Option<String>,
    pub status: Status,
    pub decisions: Vec<Decision>,
    pub assumptions: Vec<Assumption>,
    pub blockers: Vec<String>,
    pub warnings: Vec<String>,
    pub important_files: Vec<ImportantFile>,
    pub evidence: Evidence,
    /// Facts about the environment: feature flags, a service being down, a tool version.
    pub environment: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_action: Option<String>,
    pub priorities: Vec<Priority>,
    pub stop_conditions: Vec<String>,
    pub kind: Kind,
    /// Only meaningful for `kind: heavy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Status {
    pub completed: Vec<String>,
    pub in_progress: Vec<String>,
    pub pending: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Decision {
    pub what: String,
    pub why: String,
    pub alternatives: Vec<String>,
    /// Unset when the writer did not say (then nothing is rendered: "Reversible: no" would
    /// claim what nobody decided).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reversible: Option<bool>,
    pub deferred: bool,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Assumption {
    pub assumption: String,
    pub why: String,
    pub impact_if_wrong: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct ImportantFile {
    pub path: String,
    pub why: String,
}

/// Evidence as pointers, never pasted output.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Evidence {
    pub commands_run: Vec<String>,
    pub measurements: BTreeMap<String, String>,
    pub artifacts: Vec<String>,
}

impl Evidence {
    pub fn is_empty(&self) -> bool {
        self.commands_run.is_empty() && self.measurements.is_empty() && self.artifacts.is_empty()
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Priority {
    pub task: String,
    pub urgency: Urgency,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    First,
    #[default]
    Primary,
    AfterPrimary,
    IfTimePermits,
}

impl Urgency {
    pub const ALL: [Urgency; 4] = [
        Urgency::First,
        Urgency::Primary,
        Urgency::AfterPrimary,
        Urgency::IfTimePermits,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Urgency::First => "first",
            Urgency::Primary => "primary",
            Urgency::AfterPrimary => "after_primary",
            Urgency::IfTimePermits => "if_time_permits",
        }
    }
    pub fn parse(s: &str) -> Option<Urgency> {
        Urgency::ALL.into_iter().find(|u| u.as_str() == s.trim())
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    #[default]
    Standard,
    Heavy,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Standard => "standard",
            Kind::Heavy => "heavy",
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Plan {
    pub work_items: Vec<String>,
    pub key_interfaces: Vec<String>,
    pub dependencies: Vec<String>,
    pub test_strategy: Vec<String>,
}

/// The stored handoff: the writer's content plus what the tool records. Never filled in by
/// the writer: anything the writer supplies for these fields is replaced on write.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Handoff {
    pub schema_version: u32,
    pub id: String,
    /// RFC 3339, UTC, e.g. `2026-11-22T02:14:51Z`.
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// None when the handoff was written outside a git repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<GitSnapshot>,
    /// Files changed since the previous handoff's HEAD (or the merge base with the default
    /// branch), including uncommitted changes.
    pub files_changed: Vec<FileChange>,
    /// How many more changed files there were beyond those listed (the list is capped at
    /// [`MAX_RECORDED_PATHS`]: a handoff is pointers, and a huge unignored directory must
    /// neither bloat it nor make it fail to save).
    #[serde(skip_serializing_if = "is_zero")]
    pub files_changed_omitted: usize,
    /// What `files_changed` was computed against: a commit id, or None when nothing was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_changed_base: Option<String>,
    #[serde(flatten)]
    pub content: Content,
    /// `sha256:<hex>` of the handover.md written with this handoff, so readers can tell that
    /// file unchanged without rendering the handoff again (`hand_edits`). Absent in handoffs
    /// written before it existed; they are compared by rendering.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown_sha256: Option<String>,
    /// `sha256:<hex>` over the canonical JSON of everything else (see store::checksum).
    pub checksum: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct GitSnapshot {
    /// Absolute path of the working tree's top directory.
    pub root: String,
    /// `root`'s bytes when the string cannot hold them exactly (not UTF-8, or a control
    /// character): see `crate::os_path`. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_bytes: Option<String>,
    /// True when this working tree is a linked worktree (`git worktree add`).
    pub linked_worktree: bool,
    /// Branch short name; None when HEAD is detached or unborn-and-unnamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    pub detached: bool,
    /// Full commit id of HEAD; None in a repository with no commits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// Tracked files with uncommitted changes (staged or not), repo-relative, sorted.
    pub dirty: Vec<String>,
    /// Untracked, non-ignored files, repo-relative, sorted.
    pub untracked: Vec<String>,
    /// How many dirty files sort after the last one listed (the list is capped at
    /// [`MAX_RECORDED_PATHS`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub dirty_omitted: usize,
    /// How many untracked files sort after the last one listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub untracked_omitted: usize,
    /// The machine the listed `dirty` and `untracked` files are uncommitted on, when this
    /// handoff came from another machine (`handover pull --adopt` without `--apply`, or a
    /// fetched handoff as it is checked here): those changes are not expected in this checkout,
    /// so their absence is said, not called drift. Absent for a handoff written here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncommitted_on: Option<String>,
}

/// The most paths a handoff records in each tool-filled list (dirty, untracked,
/// files_changed); the rest are counted in the matching `*_omitted` field.
pub const MAX_RECORDED_PATHS: usize = 200;

impl GitSnapshot {
    /// The recorded top directory, exactly (from `root_bytes` when present).
    pub fn root_path(&self) -> std::path::PathBuf {
        crate::os_path::resolve(&self.root, self.root_bytes.as_deref())
    }
}

impl FileChange {
    /// The changed file's path, exactly (from `path_bytes` when present).
    pub fn path_exact(&self) -> std::path::PathBuf {
        crate::os_path::resolve(&self.path, self.path_bytes.as_deref())
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct FileChange {
    pub path: String,
    /// `path`'s bytes when the string cannot hold them exactly (see `crate::os_path`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_bytes: Option<String>,
    pub change: ChangeKind,
}

/// How a file changed since the base commit, as git reports it.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    #[default]
    Modified,
    Deleted,
    Renamed,
    Typechange,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Typechange => "typechange",
        }
    }
}

/// The verdict of checking a handoff against the repository.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Fresh,
    Drifted,
    Stale,
    Unverified,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Fresh => "fresh",
            Verdict::Drifted => "drifted",
            Verdict::Stale => "stale",
            Verdict::Unverified => "unverified",
        }
    }
}

/// One reason behind a verdict. `code` is stable (tests and tools match on it); `message` is
/// for people.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Reason {
    pub code: String,
    pub message: String,
    /// Which verdict this reason pushes towards.
    pub severity: Verdict,
    /// Supporting lines, e.g. one per commit (`abc1234 subject`) or per file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Verification {
    pub verdict: Verdict,
    pub reasons: Vec<Reason>,
}
