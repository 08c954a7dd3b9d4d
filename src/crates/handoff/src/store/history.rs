//! What the archive holds, kept small enough for a hook to know: `.handover/history.json`
//! counts the archived handoffs per branch, and the retention the configuration asks for
//! (`archive.keep`, `archive.max_age_days`) removes the oldest ones.
//!
//! Both happen at write time, under the store's write lock, after the write's commit point:
//! whatever fails here leaves the handoff written (the count is a hint, the prune is tried
//! again by the next write). A start reads one small file for the count and never lists the
//! archive. The file is missing in a store written before it existed: the first write
//! after counts the archive once.

use super::{read_document, Store, MAX_ARCHIVE_ENTRIES, MAX_STATE_BYTES};
use crate::config::Retention;
use crate::safe_fs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// history.json is a few lines; anything larger is not ours and is not read.
const MAX_HISTORY_BYTES: u64 = 256 * 1024;

/// `.handover/history.json`.
#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
pub(super) struct Counts {
    /// Handoffs in the archive per branch they were written on (handoffs with no branch, such
    /// as those written on a detached HEAD or outside git, are not counted).
    #[serde(default)]
    archived: BTreeMap<String, u64>,
}

impl Counts {
    /// The file's counts; None when it is missing or is not a file of ours (too large, not
    /// this shape, a link): a hint that cannot be read is no hint.
    pub(super) fn read(path: &Path) -> Option<Counts> {
        let bytes = safe_fs::read_limited(path, MAX_HISTORY_BYTES).ok()??;
        serde_json::from_slice(&bytes).ok()
    }

    pub(super) fn on(&self, branch: &str) -> u64 {
        self.archived.get(branch).copied().unwrap_or(0)
    }

    fn add(&mut self, branch: Option<String>) {
        if let Some(b) = branch {
            *self.archived.entry(b).or_default() += 1;
        }
    }

    fn remove(&mut self, branch: Option<String>) {
        if let Some(b) = branch {
            if let Some(n) = self.archived.get_mut(&b) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.archived.remove(&b);
                }
            }
        }
    }
}

/// One file of the archive as handover names it: `<stamp>.json` (a handoff) or `<stamp>.md`
/// (a kept handover.md), `<stamp>-<n>.<ext>` when the stamp was taken.
struct Entry {
    stamp: String,
    n: u64,
    handoff: bool,
    path: PathBuf,
}

/// The archive's files that handover wrote, newest first: plain files named as handover names
/// them (a stamp of `clock::now_compact`'s shape), nothing else.
fn entries(dir: &Path) -> Vec<Entry> {
    let mut out: Vec<Entry> = safe_fs::plain_files(dir, MAX_ARCHIVE_ENTRIES)
        .into_iter()
        .filter_map(|(path, _)| {
            let name = path.file_name()?.to_str()?.to_string();
            let (stem, handoff) = match (name.strip_suffix(".json"), name.strip_suffix(".md")) {
                (Some(stem), _) => (stem, true),
                (None, Some(stem)) => (stem, false),
                _ => return None,
            };
            let (stamp, n) = match stem.rsplit_once('-') {
                Some((stamp, n)) => (stamp, n.parse().ok()?),
                None => (stem, 0),
            };
            is_stamp(stamp).then(|| Entry {
                stamp: stamp.to_string(),
                n,
                handoff,
                path,
            })
        })
        .collect();
    out.sort_by(|a, b| (&b.stamp, b.n).cmp(&(&a.stamp, a.n)));
    out
}

/// `20261129T083012.123456789Z`: `clock::now_compact`.
fn is_stamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 26
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'.'
        && b[16..25].iter().all(u8::is_ascii_digit)
        && b[25] == b'Z'
}

/// The branch an archived handoff was written on; None when it has none or cannot be read.
fn branch_of(path: &Path) -> Option<String> {
    let size = std::fs::symlink_metadata(path).ok()?.len();
    if size > MAX_STATE_BYTES {
        return None;
    }
    read_document(path).ok()??.0.git?.branch
}

/// The files `retention` removes, oldest last: past the newest `keep` handoffs (a kept
/// handover.md goes with the handoff beside it, or with those older than it), or archived
/// before the cut-off stamp.
fn expired(entries: &[Entry], retention: Retention, now_secs: u64) -> Vec<&Entry> {
    let cutoff = retention.max_age_days.map(|days| {
        handover_base::clock::format_compact(now_secs.saturating_sub(u64::from(days) * 86_400))
    });
    let mut handoffs = 0usize;
    let mut oldest_kept: Option<(&str, u64)> = None;
    let mut out = Vec::new();
    for e in entries {
        let too_old = cutoff.as_deref().is_some_and(|c| e.stamp.as_str() < c);
        let over = if e.handoff {
            handoffs += 1;
            retention.keep.is_some_and(|keep| handoffs > keep)
        } else {
            // A kept handover.md: with its handoff when one shares its stamp, else with the
            // handoffs older than the oldest one kept.
            match (retention.keep, oldest_kept) {
                (Some(keep), Some(kept)) => handoffs >= keep && (e.stamp.as_str(), e.n) < kept,
                _ => false,
            }
        };
        if too_old || over {
            out.push(e);
        } else if e.handoff {
            oldest_kept = Some((e.stamp.as_str(), e.n));
        }
    }
    out
}

impl Store {
    pub(super) fn history_path(&self) -> PathBuf {
        self.dir().join("history.json")
    }

    /// How many earlier handoffs of `branch` the archive holds, as counted at write time: one
    /// small file read, no listing. 0 when nothing was counted.
    pub fn archived_on(&self, branch: &str) -> u64 {
        if self.check().is_err() {
            return 0;
        }
        Counts::read(&self.history_path()).map_or(0, |c| c.on(branch))
    }

    /// After a write or `done` archived `archived` (caller holds the lock, past the commit
    /// point): removes what the retention expires, then brings the counts up to date. Errors
    /// are left for the next write: the handoff is written.
    pub(super) fn after_archiving(&self, archived: Option<&Path>) {
        // A configuration that cannot be read removes nothing (`write` and `status` say why).
        let retention = crate::config::load(&self.root)
            .map(|c| c.archive_retention)
            .unwrap_or_default();
        let expire = retention != Retention::default();
        if archived.is_none() && !expire {
            return; // nothing archived, nothing to expire: the counts stand
        }
        let dir = self.archive_dir();
        // The archive is listed only to expire or to count it once: a write with the default
        // settings and the counts in place costs one small read and one small write here.
        let mut pruned = Vec::new();
        if expire {
            let now = handover_base::clock::unix_now().0;
            for e in expired(&entries(&dir), retention, now) {
                let branch = if e.handoff { branch_of(&e.path) } else { None };
                if matches!(safe_fs::remove_file(&e.path), Ok(true)) && e.handoff {
                    pruned.push(branch);
                }
            }
        }
        let path = self.history_path();
        let counts = match Counts::read(&path) {
            Some(mut counts) => {
                counts.add(archived.and_then(branch_of));
                for b in pruned {
                    counts.remove(b);
                }
                counts
            }
            // First write with counts (or the file was lost): count what is there now, once.
            None => {
                let mut counts = Counts::default();
                for e in entries(&dir).iter().filter(|e| e.handoff) {
                    counts.add(branch_of(&e.path));
                }
                counts
            }
        };
        if let Ok(mut bytes) = serde_json::to_vec_pretty(&counts) {
            bytes.push(b'\n');
            let _ = safe_fs::replace(&path, &bytes, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY1: &str = "20261101T100000.000000000Z";

    /// Entries as [`names`] shows them (`"02m"`: day 2's markdown, `"01j"`: day 1's handoff),
    /// newest first as `entries` gives them.
    fn archive(shown: &[&str]) -> Vec<Entry> {
        shown
            .iter()
            .map(|s| {
                let stamp = format!("202611{}T100000.000000000Z", &s[..2]);
                Entry {
                    path: PathBuf::from(format!("{stamp}-0")),
                    stamp,
                    n: 0,
                    handoff: s.ends_with('j'),
                }
            })
            .collect()
    }

    fn names(v: Vec<&Entry>) -> Vec<String> {
        v.into_iter()
            .map(|e| format!("{}{}", &e.stamp[6..8], if e.handoff { "j" } else { "m" }))
            .collect()
    }

    #[test]
    fn stamps_are_recognised_and_nothing_else() {
        assert!(is_stamp(DAY1));
        for s in [
            "20261101T100000Z",
            "notes",
            "2026110xT100000.000000000Z",
            "",
        ] {
            assert!(!is_stamp(s), "{s}");
        }
    }

    #[test]
    fn keep_removes_the_oldest_handoffs_and_their_markdown() {
        let all = archive(&["04j", "03j", "03m", "02m", "02j", "01j"]);
        let keep = |n| Retention {
            keep: Some(n),
            max_age_days: None,
        };
        assert!(
            expired(&all, Retention::default(), 0).is_empty(),
            "default: all"
        );
        assert_eq!(names(expired(&all, keep(2), 0)), ["02m", "02j", "01j"]);
        assert_eq!(
            names(expired(&all, keep(1), 0)),
            ["03j", "03m", "02m", "02j", "01j"]
        );
        assert!(expired(&all, keep(4), 0).is_empty());
    }

    #[test]
    fn max_age_removes_what_was_archived_before_the_cut_off() {
        let all = archive(&["03j", "02m", "01j"]);
        // 2026-11-03 12:00 UTC: one day back is 2026-11-02 12:00.
        let now = 1_793_664_000 + 12 * 3600;
        let r = Retention {
            keep: None,
            max_age_days: Some(1),
        };
        assert_eq!(
            handover_base::clock::format_compact(now),
            "20261103T120000Z"
        );
        assert_eq!(names(expired(&all, r, now)), ["02m", "01j"]);
    }
}
