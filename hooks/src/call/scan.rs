//! A hook call's working-tree scan: started on its own thread the first time something asks for
//! it, then shared. PreCompact asks twice (the session record's changed files, and the
//! journal's files changed since the handoff); both answers come from one look at the working
//! tree (`git::scan_working_tree`), where there were two scans before, each loading the whole
//! index and stat-ing every tracked file. Each asker waits at most its own limit; a scan still
//! running then is abandoned (it ends with the process), and a later asker waits for the same
//! scan, never starts another.

use crate::call::budget::Late;
use handover_handoff::model::FileChange;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What the scan found.
pub struct Scanned {
    /// Changed and untracked files (`git::working_tree_status`'s two lists, in that order).
    pub dirty_and_untracked: Vec<String>,
    /// The files changed since the commit the scan was asked about (None: not asked), or git's
    /// message when that diff failed.
    pub changed_since: Option<Result<Vec<FileChange>, String>>,
    /// The index's paths under the store's records directory, read from the index the scan
    /// loaded: the record prune that follows asks which records git tracks
    /// (`files::prune`) without loading the index again. None when the scan's
    /// index could not answer exactly (then the prune asks the index itself).
    pub records_indexed: Option<handover_git::IndexedUnder>,
}

enum State {
    /// Not asked for yet: the root and the commit to compare with.
    NotStarted(PathBuf, Option<String>),
    Running,
    Done(Arc<Scanned>),
    /// git failed: its message.
    GitFailed(String),
    /// No thread, or a panic.
    Broken,
}

/// The scan of the working tree at `root`, with the changes since `since` (a commit id) when
/// given. Cheap to clone (every clone shares the one scan).
#[derive(Clone)]
pub struct Scan {
    shared: Arc<(Mutex<State>, Condvar)>,
}

impl Scan {
    /// Nothing runs until [`Scan::wait`] is first called.
    pub fn new(root: PathBuf, since: Option<String>) -> Scan {
        Scan {
            shared: Arc::new((Mutex::new(State::NotStarted(root, since)), Condvar::new())),
        }
    }

    /// The scan's answer, waiting for it at most `limit` (starting it if nobody has).
    /// `Err(Late::After)`: still running; `Err(Late::Failed)`: no thread, or it panicked.
    /// Ok(Err): git's message.
    pub fn wait(&self, limit: Duration) -> Result<Result<Arc<Scanned>, String>, Late> {
        let until = Instant::now() + limit;
        let (lock, ready) = &*self.shared;
        let mut state = lock.lock().map_err(|_| Late::Failed)?;
        if let State::NotStarted(..) = &*state {
            let State::NotStarted(root, since) = std::mem::replace(&mut *state, State::Running)
            else {
                unreachable!("matched above")
            };
            if self.spawn(root, since).is_err() {
                *state = State::Broken;
            }
        }
        loop {
            match &*state {
                State::Done(found) => return Ok(Ok(Arc::clone(found))),
                State::GitFailed(message) => return Ok(Err(message.clone())),
                State::Broken => return Err(Late::Failed),
                State::NotStarted(..) | State::Running => {}
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Late::After(limit.as_millis()));
            }
            state = ready.wait_timeout(state, left).map_err(|_| Late::Failed)?.0;
        }
    }

    fn spawn(&self, root: PathBuf, since: Option<String>) -> std::io::Result<()> {
        let shared = Arc::clone(&self.shared);
        std::thread::Builder::new()
            .spawn(move || {
                let result = std::panic::catch_unwind(|| scan(&root, since.as_deref()));
                let (lock, ready) = &*shared;
                if let Ok(mut state) = lock.lock() {
                    *state = match result {
                        Ok(Ok(found)) => State::Done(Arc::new(found)),
                        Ok(Err(message)) => State::GitFailed(message),
                        Err(_) => State::Broken,
                    };
                }
                ready.notify_all();
            })
            .map(|_| ())
    }
}

fn scan(root: &std::path::Path, since: Option<&str>) -> Result<Scanned, String> {
    handover_git::no_object_cache();
    let repo = match handover_git::open(root) {
        Ok(Some(repo)) => repo,
        Ok(None) => return Err("not a git repository".into()),
        Err(e) => return Err(format!("{e:#}")),
    };
    // `root` is the store's root: its records directory, relative to the top of the working tree.
    let records = handover_record::files::dir(&handover_handoff::store::Store::at(root).dir());
    let records_in_repo = records.strip_prefix(root).ok().and_then(|rel| {
        handover_git::root_in_repo(&repo, root).map(|top_to_root| top_to_root.join(rel))
    });
    let found = handover_git::scan_working_tree(&repo, since, records_in_repo.as_deref())
        .map_err(|e| format!("{e:#}"))?;
    let mut dirty_and_untracked = found.dirty;
    dirty_and_untracked.extend(found.untracked);
    Ok(Scanned {
        dirty_and_untracked,
        changed_since: found.changed_since.map(|r| r.map_err(|e| format!("{e:#}"))),
        records_indexed: found.indexed_under,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;

    #[test]
    fn one_scan_answers_every_asker_and_a_late_one_waits_for_the_same_scan() {
        let (_tmp, root) = crate::temp_files::temp_folder("repo");
        git(&root, &["init", "-q"]);
        std::fs::write(root.join("new.rs"), "// new\n").unwrap();
        let scan = Scan::new(root.clone(), None);
        let first = scan.wait(Duration::from_secs(10)).unwrap().unwrap();
        assert_eq!(first.dirty_and_untracked, vec!["new.rs".to_string()]);
        assert!(first.changed_since.is_none());
        // The same answer, not a second scan: a file created since is not in it.
        std::fs::write(root.join("later.rs"), "// later\n").unwrap();
        let again = scan.clone().wait(Duration::ZERO).unwrap().unwrap();
        assert!(Arc::ptr_eq(&first, &again));
    }

    #[test]
    fn outside_a_repository_the_scan_says_so() {
        let tmp = tempfile::tempdir().unwrap();
        let scan = Scan::new(tmp.path().to_path_buf(), Some("HEAD".into()));
        let answer = scan.wait(Duration::from_secs(10)).unwrap();
        assert!(answer.is_err());
    }
}
