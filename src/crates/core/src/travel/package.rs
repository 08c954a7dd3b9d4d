//! What one pushed handoff is: a commit whose tree holds exactly
//!
//! - `state.json`: the handoff, redacted again at push time and sealed (docs/format.md);
//! - `handover.md`: its Markdown form, rendered from that state (never the working tree's
//!   file, which may hold unredacted hand edits);
//! - `record.json`: the newest session record of the branch, when there is one;
//! - `origin.json`: where it came from: `machine`, `pushed_at`, `branch`, `handover_version`;
//! - `changes.json`, only with `push --with-changes`: the snapshot commit of the uncommitted
//!   work (the handoff commit's second parent, so it travels with it), its base (the handoff's
//!   HEAD) and its files with their sizes (`changes::Manifest`).
//!
//! Writing goes through `git hash-object`, `git mktree` and `git commit-tree`: objects only,
//! never the user's branch, index or working tree. Reading treats the commit as untrusted
//! input exactly like a cloned `.handover/`: only plain blob entries with those names are
//! looked at, each size-checked before it is read, and everything is sanitised.

use super::command;
use anyhow::Context;
use git2::{ObjectType, Oid, Repository};
use handover_handoff::model::Handoff;
use handover_handoff::sanitize::quote_within;
use handover_record::SessionRecord;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const STATE: &str = "state.json";
pub const MARKDOWN: &str = "handover.md";
pub const RECORD: &str = "record.json";
pub const ORIGIN: &str = "origin.json";
pub const CHANGES: &str = "changes.json";

/// A record is a few KB; origin.json a few hundred bytes.
const MAX_RECORD_BYTES: usize = 256 * 1024;
const MAX_ORIGIN_BYTES: usize = 4 * 1024;
/// A list of at most `changes::MAX_FILES` paths with sizes.
const MAX_CHANGES_BYTES: usize = 512 * 1024;
/// Longest machine name or branch shown from origin.json.
const MAX_LABEL_CHARS: usize = 80;

/// Where a pushed handoff came from.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct Origin {
    /// The pushing machine's host name (or `HANDOVER_MACHINE`).
    pub machine: String,
    /// RFC 3339 UTC time of the push.
    pub pushed_at: String,
    pub branch: String,
    pub handover_version: String,
}

impl Origin {
    /// The pushing machine's name, or words saying it has none.
    pub fn machine_or_unnamed(&self) -> String {
        if self.machine.is_empty() {
            "an unnamed machine".to_string()
        } else {
            self.machine.clone()
        }
    }

    /// Untrusted text from a fetched commit: one line each, no controls, bounded; a time that
    /// is not RFC 3339 is dropped.
    fn sanitized(mut self) -> Origin {
        for text in [
            &mut self.machine,
            &mut self.branch,
            &mut self.handover_version,
        ] {
            *text = handover_base::text::shorten(
                &handover_handoff::sanitize::one_line(text),
                MAX_LABEL_CHARS,
            );
        }
        if handover_base::clock::parse_rfc3339_ms(&self.pushed_at).is_none() {
            self.pushed_at = String::new();
        }
        self
    }
}

/// This machine's name: `HANDOVER_MACHINE` when set, else the host name.
pub fn machine_name() -> String {
    let from_env = std::env::var("HANDOVER_MACHINE").ok();
    let from_system = || {
        ["/proc/sys/kernel/hostname", "/etc/hostname"]
            .iter()
            .find_map(|p| std::fs::read_to_string(p).ok())
            .or_else(|| std::env::var("HOSTNAME").ok())
    };
    from_env
        .filter(|s| !s.trim().is_empty())
        .or_else(from_system)
        .map(|s| handover_handoff::sanitize::redacted(s.trim()))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown machine".into())
}

/// What a push writes.
pub struct Outgoing<'a> {
    pub handoff: &'a Handoff,
    pub markdown: &'a str,
    pub record: Option<&'a SessionRecord>,
    pub origin: &'a Origin,
    pub changes: Option<&'a super::changes::Manifest>,
}

/// Writes the blobs and the tree of `out`; the tree's id.
pub fn write_tree(root: &Path, out: &Outgoing) -> anyhow::Result<String> {
    let mut state =
        serde_json::to_vec_pretty(out.handoff).context("cannot serialize the handoff")?;
    state.push(b'\n');
    let origin = serde_json::to_vec_pretty(out.origin).context("cannot serialize origin.json")?;
    let mut files: Vec<(&str, Vec<u8>)> = vec![
        (MARKDOWN, out.markdown.as_bytes().to_vec()),
        (ORIGIN, origin),
        (STATE, state),
    ];
    if let Some(record) = out.record {
        let bytes = serde_json::to_vec_pretty(record).context("cannot serialize the record")?;
        files.push((RECORD, bytes));
    }
    if let Some(changes) = out.changes {
        let bytes = serde_json::to_vec_pretty(changes).context("cannot serialize changes.json")?;
        files.push((CHANGES, bytes));
    }
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut listing = String::new();
    for (name, bytes) in &files {
        let id = command::write_blob(root, bytes)?;
        listing.push_str(&format!("100644 blob {id}\t{name}\n"));
    }
    command::run(root, &["mktree"], Some(listing.as_bytes()))
}

/// A handoff read from a fetched ref.
#[derive(Clone, Debug)]
pub struct Fetched {
    pub remote: String,
    pub branch: String,
    /// The commit it was read from.
    pub commit: String,
    pub handoff: Handoff,
    /// Set when a newer handover wrote it (fields it added are ignored).
    pub note: Option<String>,
    pub origin: Origin,
    pub record: Option<SessionRecord>,
    /// The uncommitted work that travelled with it (`push --with-changes`): a manifest whose
    /// commit was checked to be a parent of the handoff commit (so it was fetched with it).
    pub changes: Option<super::changes::Manifest>,
}

impl Fetched {
    /// machine «…», pushed at …, fetched from remote «…»: the words every report uses. The
    /// machine and remote names are quoted (`sanitize::quote`); the time was checked to be
    /// RFC 3339 when it was read.
    pub fn label(&self) -> String {
        let when = if self.origin.pushed_at.is_empty() {
            "at an unknown time".to_string()
        } else {
            format!("at {}", self.origin.pushed_at)
        };
        let machine = if self.origin.machine.is_empty() {
            "an unnamed machine".to_string()
        } else {
            format!(
                "machine {}",
                quote_within(&self.origin.machine, MAX_LABEL_CHARS)
            )
        };
        format!(
            "{machine}, pushed {when}, fetched from remote {}",
            quote_within(&self.remote, MAX_LABEL_CHARS)
        )
    }
}

/// Reads the handoff in `commit` (untrusted). An error says what is wrong with it.
pub fn read(repo: &Repository, commit: Oid, remote: &str, branch: &str) -> Result<Fetched, String> {
    // The commit and its tree through the object reader first: a compressed bomb or a delta
    // loop is refused before libgit2 would inflate or walk it.
    handover_git::bounded_commit(repo, commit)
        .map_err(|e| format!("not a handoff commit ({e:#})"))?;
    let found = repo
        .find_commit(commit)
        .map_err(|e| format!("not a handoff commit ({})", e.message()))?;
    let tree = found
        .tree()
        .map_err(|e| format!("not a handoff commit ({})", e.message()))?;
    let state = blob(
        repo,
        &tree,
        STATE,
        handover_handoff::store::MAX_STATE_BYTES as usize,
    )?
    .ok_or_else(|| "the commit holds no state.json".to_string())?;
    let (handoff, note) = handover_handoff::store::parse_untrusted(&state)?;
    let origin = blob(repo, &tree, ORIGIN, MAX_ORIGIN_BYTES)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice::<Origin>(&b).ok())
        .unwrap_or_default()
        .sanitized();
    let record = blob(repo, &tree, RECORD, MAX_RECORD_BYTES)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice::<SessionRecord>(&b).ok())
        .map(SessionRecord::sanitized);
    let changes = blob(repo, &tree, CHANGES, MAX_CHANGES_BYTES)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice::<super::changes::Manifest>(&b).ok())
        .filter(|m| found.parent_ids().any(|p| p.to_string() == m.commit))
        .map(super::changes::Manifest::sanitized);
    Ok(Fetched {
        remote: remote.to_string(),
        branch: branch.to_string(),
        commit: commit.to_string(),
        handoff,
        note,
        origin,
        record,
        changes,
    })
}

/// The bytes of the plain-file entry `name` of `tree`; Ok(None) when absent. A link, a
/// submodule, a directory or a blob over `max` bytes is an error (the size is read from the
/// object header first, so a huge blob is never loaded).
fn blob(
    repo: &Repository,
    tree: &git2::Tree,
    name: &str,
    max: usize,
) -> Result<Option<Vec<u8>>, String> {
    let Some(entry) = tree.get_name(name) else {
        return Ok(None);
    };
    let plain_file = matches!(entry.filemode(), 0o100644 | 0o100755);
    if !plain_file || entry.kind() != Some(ObjectType::Blob) {
        return Err(format!("{name} is not a plain file in the commit"));
    }
    // The size by the object reader first (libgit2's header read follows a delta loop
    // forever); libgit2's only where the reader leaves the object to it.
    let cannot = |e: String| format!("{name} cannot be read ({e})");
    let size = match handover_git::object_size(repo, entry.id()) {
        Ok(Some(size)) => usize::try_from(size).unwrap_or(usize::MAX),
        Ok(None) => {
            let odb = repo.odb().map_err(|e| e.message().to_string())?;
            odb.read_header(entry.id())
                .map_err(|e| cannot(e.message().to_string()))?
                .0
        }
        Err(e) => return Err(cannot(format!("{e:#}"))),
    };
    if size > max {
        return Err(format!("{name} is {size} bytes, over the {max}-byte limit"));
    }
    let blob = repo
        .find_blob(entry.id())
        .map_err(|e| format!("{name} cannot be read ({})", e.message()))?;
    Ok(Some(blob.content().to_vec()))
}
