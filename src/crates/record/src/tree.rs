//! Edits attributed from git, whatever tool made them: of the files git shows changed or
//! untracked, those whose change came after the session began. A file the session wrote
//! through the shell (`printf > f`, `sed -i`, a formatter, `git apply`, a code generator) is in
//! no transcript as an edit, but it is dirty and was modified during the session.
//!
//! "Changed during the session" is read from the file's modification time, so nothing has to
//! be taken at session start (which must stay cheap whatever the repository's size): a file
//! dirty before the session began and untouched since keeps its older time and does not count;
//! a file dirty before and changed again does. A deleted file has no time of its own: its
//! directory's time says when an entry in it last came or went — for a file at the top of the
//! tree, the top directory's. That time moves with any entry of the directory, so a deletion
//! made before the session, in a directory where the session then created, removed or renamed
//! another entry (an atomic save, `.handover/` made by the first record), is counted too: a
//! deletion the next session is told about once too often, rather than one it never hears of.
//! Another program writing in the same tree during the session (an editor, a second agent) is
//! counted too; the record says "edited" for the files the session's time window saw change.

use std::path::Path;
use std::time::SystemTime;

/// At most this many paths are looked at (a generated tree of 100,000 untracked files is not
/// worth 100,000 `lstat`s; the newest 30 are kept anyway).
pub const MAX_LOOKED_AT: usize = 2_000;

/// Of `dirty` (repository-relative paths git reported changed, deleted or untracked), those
/// changed within the session's time, `since_ms` to `until_ms` (its last activity: a session
/// left a minute before its SessionEnd came did not make the changes of that minute), in the
/// order given. Paths that are absolute or climb out of the tree are skipped; no link is
/// followed (the times are the entries' own).
pub fn changed_between(root: &Path, dirty: &[String], since_ms: u64, until_ms: u64) -> Vec<String> {
    dirty
        .iter()
        .take(MAX_LOOKED_AT)
        .filter(|p| is_inside(p))
        .filter(|p| changed_at(root, p).is_some_and(|ms| ms >= since_ms && ms <= until_ms))
        .cloned()
        .collect()
}

fn is_inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && !p.is_absolute()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// When the entry last changed: its own modification time, or for one that is gone, the time
/// of the nearest directory above it that still exists (inside the tree, the top included).
fn changed_at(root: &Path, rel: &str) -> Option<u64> {
    let mut path = root.join(rel);
    loop {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) => return meta.modified().ok().map(millis),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if path == root || !path.pop() || !path.starts_with(root) {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
}

fn millis(t: SystemTime) -> u64 {
    handover_base::clock::millis(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::{Duration, SystemTime};

    fn set_mtime(path: &Path, t: SystemTime) {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(t).unwrap();
    }

    #[test]
    fn only_entries_changed_since_the_start_count() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("src/gone")).unwrap();
        for f in ["old.rs", "src/new.rs", "src/again.rs"] {
            fs::write(root.join(f), "x").unwrap();
        }
        let start = SystemTime::now() - Duration::from_secs(60);
        let start_ms = millis(start);
        let end_ms = millis(SystemTime::now()) + 1000;
        // Dirty before the session and untouched since.
        set_mtime(&root.join("old.rs"), start - Duration::from_secs(3600));
        let dirty: Vec<String> = [
            "old.rs",
            "src/new.rs",
            "src/again.rs",
            "src/gone/deleted.rs",
            "../outside",
            "/etc/passwd",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            changed_between(root, &dirty, start_ms, end_ms),
            ["src/new.rs", "src/again.rs", "src/gone/deleted.rs"]
        );
        // Changed after the session's last activity: another session's work.
        assert_eq!(
            changed_between(root, &dirty, start_ms, start_ms + 1),
            Vec::<String>::new()
        );
        // A deletion in a directory untouched since before the start does not count.
        let dir = fs::File::open(root.join("src/gone")).unwrap();
        dir.set_modified(start - Duration::from_secs(10)).unwrap();
        assert_eq!(
            changed_between(root, &dirty[3..4], start_ms, end_ms),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_deletion_at_the_top_of_the_tree_is_dated_by_the_top_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let start = SystemTime::now() - Duration::from_secs(60);
        let (start_ms, end_ms) = (millis(start), millis(SystemTime::now()) + 1000);
        fs::write(root.join("OLD.md"), "x").unwrap();
        fs::remove_file(root.join("OLD.md")).unwrap();
        let gone = ["OLD.md".to_string()];
        assert_eq!(changed_between(root, &gone, start_ms, end_ms), gone);
        // Removed before the session, the top directory untouched since: not the session's.
        fs::File::open(root)
            .unwrap()
            .set_modified(start - Duration::from_secs(10))
            .unwrap();
        assert!(changed_between(root, &gone, start_ms, end_ms).is_empty());
    }

    #[test]
    fn a_link_is_judged_by_its_own_time_not_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        fs::create_dir(&root).unwrap();
        let outside = tmp.path().join("outside");
        fs::write(&outside, "new").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let later = millis(SystemTime::now()) + 60_000;
        // The link was made now, before `later`: not changed since then, whatever the target.
        assert!(changed_between(&root, &["link".to_string()], later, later + 1000).is_empty());
    }
}
