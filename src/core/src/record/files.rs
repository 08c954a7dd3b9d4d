//! Session records on disk: `.handover/records/<session key>.json`, one file per session,
//! replaced atomically (temporary file + rename), the newest `records.keep` kept (default 20).
//! The directory holds a `.gitignore` of `*`, so records never show in `git status`.
//! Everything read back is untrusted (a repository can ship any file there): every access goes
//! through `safe_fs` (no link followed in `.handover/` or `records/`, plain files only), files
//! are read with a size cap, and a damaged one is skipped. Records are rewritten after every
//! turn and are advisory (a lost update costs at most one turn of facts): no fsync.

use super::SessionRecord;
use crate::safe_fs::{self, Kind};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A record is a few KB; anything larger than this is not one of ours.
const MAX_FILE_BYTES: u64 = 256 * 1024;
/// At most this many directory entries are looked at.
const MAX_ENTRIES: usize = 1000;

/// `.handover/records` of a store directory (`.handover`).
pub fn dir(store_dir: &Path) -> PathBuf {
    store_dir.join("records")
}

/// A file-name-safe key (also of the hooks' per-session state files): the id itself when it is made of `[A-Za-z0-9_-]` (as UUIDs are),
/// otherwise the safe characters plus a hash of the original so two ids never collide.
pub fn key(session_id: &str) -> String {
    let safe: String = session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    if safe == session_id && !safe.is_empty() {
        safe
    } else {
        format!("{safe}-{:016x}", fnv1a(session_id.as_bytes()))
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub fn path_for(records_dir: &Path, session_id: &str) -> PathBuf {
    records_dir.join(format!("{}.json", key(session_id)))
}

/// The record stored for this session, if any (None when missing, damaged, or another
/// session's).
pub fn load(records_dir: &Path, session_id: &str) -> Option<SessionRecord> {
    read(&path_for(records_dir, session_id)).filter(|r| r.session_id == session_id)
}

fn read(path: &Path) -> Option<SessionRecord> {
    let dir = path.parent()?;
    check_dirs(dir).ok()?;
    let bytes = safe_fs::read_limited(path, MAX_FILE_BYTES).ok()??;
    serde_json::from_slice::<SessionRecord>(&bytes)
        .ok()
        .map(SessionRecord::sanitized)
}

/// `records/` and the `.handover/` holding it are plain directories (or missing).
fn check_dirs(records_dir: &Path) -> Result<(), safe_fs::Refused> {
    if let Some(parent) = records_dir.parent() {
        safe_fs::expect(parent, Kind::Dir)?;
    }
    safe_fs::expect(records_dir, Kind::Dir)?;
    Ok(())
}

/// Writes the record. Creates the directory (with its `.gitignore`) when needed. Returns true
/// when this session had no file yet.
pub fn save(records_dir: &Path, record: &SessionRecord) -> anyhow::Result<bool> {
    if let Some(parent) = records_dir.parent() {
        safe_fs::ensure_dir(parent)?;
    }
    if !safe_fs::expect(records_dir, Kind::Dir)? {
        safe_fs::ensure_dir(records_dir)?;
        safe_fs::replace(&records_dir.join(".gitignore"), b"*\n", false)?;
    }
    let path = path_for(records_dir, &record.session_id);
    let created = safe_fs::kind(&path)? == Kind::Missing;
    let mut bytes = serde_json::to_vec_pretty(record)?;
    bytes.push(b'\n');
    safe_fs::replace(&path, &bytes, false)?;
    Ok(created)
}

/// Every readable record, the most recently active session first (not the most recently
/// written: Codex's app-server writes a left thread's SessionEnd a minute later, which must not
/// make that thread look newer than the work done since). Ties go to the later update.
pub fn list(records_dir: &Path) -> Vec<SessionRecord> {
    let mut records: Vec<SessionRecord> = entries(records_dir)
        .into_iter()
        .filter_map(|(path, _)| read(&path))
        .collect();
    records.sort_by_key(|r| std::cmp::Reverse((r.activity_ms(), r.updated_ms)));
    records
}

/// The record of the most recently active session other than `except` (the current session).
pub fn latest(records_dir: &Path, except: Option<&str>) -> Option<SessionRecord> {
    list(records_dir)
        .into_iter()
        .find(|r| Some(r.session_id.as_str()) != except)
}

/// Removes all but the `keep` most recently written records. Best effort; only plain files.
pub fn prune(records_dir: &Path, keep: usize) {
    let mut files = entries(records_dir);
    if files.len() <= keep {
        return;
    }
    files.sort_by_key(|f| std::cmp::Reverse(f.1));
    for (path, _) in files.into_iter().skip(keep) {
        let _ = safe_fs::remove_file(&path);
    }
}

/// The plain `*.json` files of the directory with their modification times.
fn entries(records_dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    if check_dirs(records_dir).is_err() {
        return Vec::new();
    }
    safe_fs::plain_files(records_dir, MAX_ENTRIES)
        .into_iter()
        .filter(|(path, _)| path.extension().and_then(|x| x.to_str()) == Some("json"))
        .map(|(path, meta)| (path, meta.modified().unwrap_or(UNIX_EPOCH)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn record(id: &str, updated_ms: u64) -> SessionRecord {
        let mut r = SessionRecord::new(id, "claude");
        r.updated_ms = updated_ms;
        r
    }

    #[test]
    fn saves_loads_lists_and_prunes_to_the_newest() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir(tmp.path());
        assert!(save(&dir, &record("a", 1)).unwrap());
        assert!(
            !save(&dir, &record("a", 2)).unwrap(),
            "second save replaces"
        );
        assert_eq!(fs::read(dir.join(".gitignore")).unwrap(), b"*\n");
        assert_eq!(load(&dir, "a").unwrap().updated_ms, 2);
        assert_eq!(load(&dir, "b"), None);
        for (i, id) in ["b", "c", "d"].iter().enumerate() {
            std::thread::sleep(std::time::Duration::from_millis(15));
            save(&dir, &record(id, 10 + i as u64)).unwrap();
        }
        assert_eq!(latest(&dir, None).unwrap().session_id, "d");
        assert_eq!(latest(&dir, Some("d")).unwrap().session_id, "c");
        prune(&dir, 2);
        let left: Vec<String> = list(&dir).into_iter().map(|r| r.session_id).collect();
        assert_eq!(left, ["d", "c"]);
        assert!(dir.join(".gitignore").exists(), "only records are pruned");
    }

    #[test]
    fn damaged_foreign_and_oversized_files_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir(tmp.path());
        save(&dir, &record("ok", 5)).unwrap();
        fs::write(dir.join("broken.json"), b"{not json").unwrap();
        fs::write(dir.join("huge.json"), vec![b' '; 300 * 1024]).unwrap();
        // A file named for one session holding another's record is not that session's.
        fs::copy(path_for(&dir, "ok"), path_for(&dir, "other")).unwrap();
        assert_eq!(load(&dir, "other"), None);
        assert_eq!(list(&dir).len(), 2);
    }

    #[test]
    fn a_symlinked_directory_is_neither_written_nor_read() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let store = tmp.path().join(".handover");
        fs::create_dir(&store).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir(&store)).unwrap();
        let e = save(&dir(&store), &record("a", 1)).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(list(&dir(&store)).is_empty());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn keys_are_safe_and_distinct() {
        assert_eq!(key("0b1c-aa_bb"), "0b1c-aa_bb");
        let a = key("../../etc/passwd");
        assert!(!a.contains('/') && !a.contains(".."), "{a}");
        assert_ne!(key("a/b"), key("a_b"));
        assert!(!key("").is_empty());
    }
}
