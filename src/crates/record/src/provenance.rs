//! Whose record is this? A session record is this working tree's own only when handover wrote
//! it here; anything else under `.handover/records/` is untrusted input that a clone, a copy or
//! another user put there (docs/security.md, "Session records").
//!
//! A record is foreign when any of these holds:
//! - git has its path in the current commit: records are never committed (their directory
//!   ignores everything), so a clone's records all are, and a path stays in the commit whatever
//!   line-ending conversion git applies to the content. The reason given is `committed` when
//!   the file is still what was committed (`handover_git::provenance::came_with_repository`, the rule
//!   that makes a committed handoff foreign), `tracked` when it changed since. Only a path in
//!   HEAD is asked about, so the index is not read for our own records: this runs on every
//!   SessionStart;
//! - its stamp does not name this working tree (`files::save` stamps every record it writes
//!   with `made_by` and the canonical working-tree path): copied from elsewhere, or written by
//!   something other than handover;
//! - it is dated in the future (its `updated_ms` or its file time beyond now plus a small
//!   skew): such a record would otherwise stay "the newest" forever.
//!
//! Foreign records are never shown to an agent at session start and never imported by
//! `handover write`; `boot` and `status` list them as foreign. Own records are ranked by
//! [`rank`], which a record cannot push past the time it was last written.

use super::SessionRecord;
use handover_git::provenance::InHead;
use handover_git::LazyRepo;
use serde::Serialize;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

/// The mark every record handover writes carries in `made_by` (the prune removes only files
/// that carry it).
pub const MADE_BY: &str = "handover";

/// How far past now a record's times may be before it counts as future-dated: room for a
/// clock stepped back a little, far less than any "newest forever".
pub const FUTURE_SKEW_MS: u64 = 5 * 60 * 1000;

/// Why a record is not this working tree's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Foreign {
    /// Git has the file in the current commit with this content.
    Committed,
    /// Git has the file's path in the current commit, with other content (changed since).
    Tracked,
    /// Its stamp names another working tree, or it has none (not written by handover here).
    OtherWorkingTree,
    /// Dated in the future.
    FutureDated,
}

impl Foreign {
    /// For people (`boot`, `status`): our words only, never the record's.
    pub fn describe(self) -> &'static str {
        match self {
            Foreign::Committed => "git has it in the current commit (it came with the repository)",
            Foreign::Tracked => {
                "git has its path in the current commit (handover never commits records)"
            }
            Foreign::OtherWorkingTree => "it was not written by handover in this working tree",
            Foreign::FutureDated => "it is dated in the future",
        }
    }
}

/// The stamp `files::save` writes into `working_tree`: the canonical path of the working
/// tree, as the record's other texts are stored (redacted, one line).
pub fn working_tree_stamp(root: &Path) -> String {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    super::untrusted(&canonical.to_string_lossy(), MAX_STAMP_CHARS)
}

/// Longest working-tree stamp kept (a path longer than this cannot be compared exactly and
/// makes the record foreign, which is the safe side).
pub const MAX_STAMP_CHARS: usize = 4096;

/// Judges the records of one working tree in the caller's repository: opened only when a
/// record needs git's answer (the hooks share the one a SessionStart already has), and HEAD's
/// remembered entries read once for all the records judged (`handover_git::provenance::InHead`).
pub struct Judge<'r> {
    repo: &'r LazyRepo<'r>,
    here: String,
    now_ms: u64,
    /// HEAD's entries, read on the first record that needs them; None outside a repository.
    head: OnceCell<Option<InHead<'r>>>,
    /// Whether HEAD has the directory a record is in, asked once per directory: for the usual
    /// store (never committed) one look answers for every record, and no record's own path is
    /// looked up (nor remembered in the git directory).
    dirs_in_head: std::cell::RefCell<Vec<(PathBuf, bool)>>,
}

impl<'r> Judge<'r> {
    /// The one constructor: a caller without a repository of its own (the CLI) makes a
    /// `LazyRepo` for the judge, which then opens it only if a record needs it.
    pub fn in_repo(repo: &'r LazyRepo<'r>, now_ms: u64) -> Judge<'r> {
        Judge {
            repo,
            here: working_tree_stamp(repo.root()),
            now_ms,
            head: OnceCell::new(),
            dirs_in_head: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// HEAD has `rel`: only when it has the directory `rel` is in.
    fn head_has(&self, head: &InHead<'r>, rel: &Path) -> bool {
        let dir_in_head = match rel.parent().filter(|d| !d.as_os_str().is_empty()) {
            None => true,
            Some(dir) => {
                let known = self
                    .dirs_in_head
                    .borrow()
                    .iter()
                    .find(|(d, _)| d == dir)
                    .map(|(_, has)| *has);
                known.unwrap_or_else(|| {
                    let has = head.has(dir);
                    self.dirs_in_head
                        .borrow_mut()
                        .push((dir.to_path_buf(), has));
                    has
                })
            }
        };
        dir_in_head && head.has(rel)
    }

    fn in_head(&self) -> Option<&InHead<'r>> {
        self.head
            .get_or_init(|| {
                let repo = self.repo.get().ok().flatten()?;
                Some(InHead::new(repo, self.repo.root()))
            })
            .as_ref()
    }

    /// Why the record stored at `rel` (relative to the working tree) is foreign; empty when it
    /// is this working tree's own. `modified_ms`: the file's modification time.
    pub fn foreign(&self, rel: &Path, record: &SessionRecord, modified_ms: u64) -> Vec<Foreign> {
        let mut why = Vec::new();
        // Only a path in HEAD can have come with the repository; the content rule (the one a
        // handoff's `foreign` verdict uses) then says whether it is still what was committed.
        if let Some(head) = self.in_head().filter(|head| self.head_has(head, rel)) {
            why.push(if head.came_with_repository(rel) {
                Foreign::Committed
            } else {
                Foreign::Tracked
            });
        }
        why.extend(self.foreign_without_git(record, modified_ms));
        why
    }

    /// [`Judge::foreign`] is empty, asked of git last: a record that its stamp or its dates
    /// already make foreign does not open the repository.
    pub fn is_own(&self, rel: &Path, record: &SessionRecord, modified_ms: u64) -> bool {
        self.foreign_without_git(record, modified_ms).is_empty()
            && !self.in_head().is_some_and(|head| self.head_has(head, rel))
    }

    /// The reasons the record alone gives (its stamp and its dates).
    fn foreign_without_git(&self, record: &SessionRecord, modified_ms: u64) -> Vec<Foreign> {
        let mut why = Vec::new();
        if record.made_by != MADE_BY || record.working_tree != self.here {
            why.push(Foreign::OtherWorkingTree);
        }
        let limit = self.now_ms.saturating_add(FUTURE_SKEW_MS);
        if record.updated_ms > limit || record.last_activity_ms > limit || modified_ms > limit {
            why.push(Foreign::FutureDated);
        }
        why
    }
}

/// The order of records, newest first: when the session was last active (not when the record
/// was last written: Codex's app-server writes a left thread's SessionEnd a minute later, which
/// must not make that thread look newer than the work done since), as the record says, and
/// never later than the file system's time for it. Future-dated records are foreign, so no own
/// record ranks beyond now.
pub fn rank(record: &SessionRecord, modified_ms: u64) -> u64 {
    record.activity_ms().min(modified_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_stamped_here_and_dated_now_is_own() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = LazyRepo::new(tmp.path());
        let judge = Judge::in_repo(&repo, 1_000_000);
        let mut r = SessionRecord::new("s", handover_clients::Agent::Claude);
        r.made_by = MADE_BY.into();
        r.working_tree = working_tree_stamp(tmp.path());
        r.updated_ms = 1_000_000;
        let rel = Path::new(".handover/records/s.json");
        assert!(judge.foreign(rel, &r, 1_000_000).is_empty());
        r.updated_ms = 1_000_000 + FUTURE_SKEW_MS + 1;
        assert_eq!(judge.foreign(rel, &r, 1_000_000), [Foreign::FutureDated]);
        r.updated_ms = 1;
        assert_eq!(
            judge.foreign(rel, &r, u64::MAX),
            [Foreign::FutureDated],
            "a file time in the future counts too"
        );
        r.working_tree = "/elsewhere".into();
        assert_eq!(judge.foreign(rel, &r, 1), [Foreign::OtherWorkingTree]);
        r.working_tree = working_tree_stamp(tmp.path());
        r.made_by = String::new();
        assert_eq!(judge.foreign(rel, &r, 1), [Foreign::OtherWorkingTree]);
    }

    /// A repository at `root` whose one commit holds `files` (path, content).
    fn committed(root: &Path, files: &[(&str, &str)]) {
        let git = git2::Repository::init(root).unwrap();
        let mut index = git.index().unwrap();
        for (path, content) in files {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, content).unwrap();
            index.add_path(Path::new(path)).unwrap();
        }
        index.write().unwrap();
        let tree = git.find_tree(index.write_tree().unwrap()).unwrap();
        let me = git2::Signature::now("t", "t@example.com").unwrap();
        git.commit(Some("HEAD"), &me, &me, "one", &tree, &[])
            .unwrap();
    }

    #[test]
    fn a_record_git_has_is_committed_and_its_neighbours_are_not() {
        let mut r = SessionRecord::new("s", handover_clients::Agent::Claude);
        r.made_by = MADE_BY.into();
        let kept = Path::new(".handover/records/kept.json");
        let fresh = Path::new(".handover/records/fresh.json");
        // HEAD has the records directory: each record's own path is asked.
        let with_store = tempfile::tempdir().unwrap();
        committed(
            with_store.path(),
            &[(".handover/records/kept.json", "{}"), ("README", "x")],
        );
        std::fs::write(with_store.path().join(fresh), "{}").unwrap();
        r.working_tree = working_tree_stamp(with_store.path());
        let repo = LazyRepo::new(with_store.path());
        let judge = Judge::in_repo(&repo, 1_000_000);
        assert_eq!(judge.foreign(kept, &r, 1), [Foreign::Committed]);
        assert!(judge.foreign(fresh, &r, 1).is_empty());
        assert!(!judge.is_own(kept, &r, 1) && judge.is_own(fresh, &r, 1));
        // HEAD has no store: the one look at the directory answers for every record.
        let without = tempfile::tempdir().unwrap();
        committed(without.path(), &[("README", "x")]);
        std::fs::create_dir_all(without.path().join(".handover/records")).unwrap();
        std::fs::write(without.path().join(kept), "{}").unwrap();
        r.working_tree = working_tree_stamp(without.path());
        let repo = LazyRepo::new(without.path());
        let judge = Judge::in_repo(&repo, 1_000_000);
        assert!(judge.foreign(kept, &r, 1).is_empty());
        assert!(judge.is_own(kept, &r, 1));
    }

    #[test]
    fn rank_never_exceeds_the_file_time() {
        let mut r = SessionRecord::new("s", handover_clients::Agent::Claude);
        r.updated_ms = u64::MAX;
        assert_eq!(rank(&r, 5), 5);
        r.updated_ms = 3;
        assert_eq!(rank(&r, 5), 3);
    }
}
