//! Step 1 of a start: everything it is decided from, read once from the store and the
//! repository. Every file and git read of a start is here.

use handover_git::LazyRepo;
use handover_handoff::config::ShowRecord;
use handover_handoff::model::{Handoff, Verification};
use handover_handoff::store::{LoadOutcome, Store};
use handover_record::text::Now;
use handover_record::{files as records, SessionRecord};

/// Everything a start is decided from, read once from the store and the repository.
pub struct Snapshot {
    /// What stands in the handoff's place: the local handoff, a fetched one, a refusal, damage.
    pub handoff: Found,
    /// When state.json was last replaced (0 when it is missing): the last session's work counts
    /// as news to the handoff only when it came after.
    pub handoff_written_ms: u64,
    /// The last session's record (never this session's own, and none after a compaction or
    /// where the configuration says never), with the state of its files now. Read only where a
    /// decision may show it: without a handoff, or when its work came after the handoff.
    pub last: Option<LastSession>,
    /// How often the record alone is shown (config `records.startup`).
    pub show_record: ShowRecord,
    /// The startup text's length limit in characters (config `startup.budget_chars`).
    pub budget_chars: usize,
    /// The context was just compacted: the session continues.
    pub after_compaction: bool,
    /// How many earlier handoffs of the local handoff's branch the archive holds, as counted
    /// when they were written (`Store::archived_on`: one small file, the archive never listed).
    pub earlier: u64,
}

/// The handoff a start found, as it will be shown.
pub enum Found {
    Missing,
    /// `.handover/` or handover.md is something handover refuses to use (see
    /// `handover_handoff::safe_fs`): why.
    Refused(String),
    /// state.json is damaged and nothing intact was recovered: what is wrong.
    Unrecoverable(String),
    /// This working tree's handoff.
    Local(Verified),
    /// A handoff fetched from a remote for the current branch (`handover pull`, or `git fetch`
    /// after `handover share`), with where it came from (which machine, when, which remote).
    Fetched {
        verified: Verified,
        label: String,
        /// How many files of uncommitted work travelled with it (`push --with-changes`).
        travelled: usize,
    },
}

/// A handoff with its quick verification against this checkout.
pub struct Verified {
    pub handoff: Handoff,
    pub verification: Verification,
    /// Why it is not an intact state.json (recovered from the journal or the archive), or what
    /// a newer handover's fields mean for a fetched one.
    pub note: Option<String>,
    /// Its id as journaled (None when empty).
    pub id: Option<String>,
    /// handover.md was edited after it was written (never set for a fetched one: this tree's
    /// handover.md is not its document).
    pub hand_edited: bool,
}

/// The last session's record, and which of the files it edited are uncommitted now.
pub struct LastSession {
    pub record: SessionRecord,
    pub now: Now,
}

impl LastSession {
    /// Active after the handoff was written, not merely saved after it (a late SessionEnd),
    /// with work the handoff does not know about.
    pub(super) fn worked_after(record: &SessionRecord, handoff_written_ms: u64) -> bool {
        record.work_since_handoff && record.activity_ms() > handoff_written_ms
    }
}

impl Snapshot {
    /// Reads everything a start needs, once: the configuration, the handoff (or a newer one
    /// fetched from a remote) verified cheaply (branch, HEAD and the referenced files: the same
    /// cost on any repository size), and the last session's record. One repository serves
    /// every git question, opened only if one of them needs it. `session_id`: a session that
    /// may have a record of its own (SessionStart `resume`), never presented as the last one's.
    pub fn read(store: &Store, after_compaction: bool, session_id: Option<&str>) -> Snapshot {
        let root = store.root();
        let config = handover_handoff::config::load(root).unwrap_or_default();
        let repo = LazyRepo::new(root);
        let handoff = found(store, &repo);
        let handoff_written_ms = std::fs::metadata(store.state_path())
            .and_then(|m| m.modified())
            .map(handover_base::clock::millis)
            .unwrap_or(0);
        // After a compaction the session continues: the last record is its own. Only this
        // working tree's own records are ever shown (record::provenance): a record that came
        // with a clone or is dated in the future is not the last session's. Brought up to date
        // first when its transcript grew since (a Claude Code turn written after Stop, in a
        // session killed right after): a `stat`, and a read only then.
        let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
        let last = (!after_compaction && config.records_startup != ShowRecord::Never)
            .then(|| records::latest(store, &repo, session_id, now_ms))
            .flatten()
            .map(|r| handover_record::catch_up::transcript_grew(store, r, now_ms))
            .filter(|r| {
                matches!(handoff, Found::Missing)
                    || LastSession::worked_after(r, handoff_written_ms)
            })
            .map(|record| LastSession {
                now: uncommitted_now(&repo, &record),
                record,
            });
        let earlier = match &handoff {
            Found::Local(v) => v
                .handoff
                .git
                .as_ref()
                .and_then(|g| g.branch.as_deref())
                .map_or(0, |branch| store.archived_on(branch)),
            _ => 0,
        };
        Snapshot {
            handoff,
            handoff_written_ms,
            earlier,
            last,
            show_record: config.records_startup,
            budget_chars: config.startup_budget_chars,
            after_compaction,
        }
    }
}

/// The handoff this start shows: a fetched one when it is newer than the local one (or there
/// is none), else the local one. A store handover refuses, or one it cannot read, is said as
/// such first. Looking for a fetched handoff costs a `stat` or two when nothing was fetched
/// (`travel::fetched::for_startup`).
fn found(store: &Store, repo: &LazyRepo) -> Found {
    let root = store.root();
    let loaded = match store.load() {
        LoadOutcome::Refused(refused) => return Found::Refused(refused.to_string()),
        LoadOutcome::Unrecoverable { problem } => return Found::Unrecoverable(problem),
        LoadOutcome::Missing => None,
        LoadOutcome::Loaded(loaded) => Some(loaded),
    };
    if let Some(fetched) = fetched_within(root, loaded.as_ref().map(|l| &l.handoff)) {
        let handoff = crate::travel::fetched::as_checked_here(root, &fetched);
        let verification = handover_verify::verify_quick_in(repo, &handoff);
        return Found::Fetched {
            label: fetched.label(),
            travelled: fetched.changes.as_ref().map_or(0, |c| c.files.len()),
            verified: Verified {
                id: Some(fetched.handoff.id.clone()).filter(|id| !id.is_empty()),
                handoff,
                verification,
                note: fetched.note,
                hand_edited: false,
            },
        };
    }
    let Some(loaded) = loaded else {
        return Found::Missing;
    };
    let verification = handover_verify::verify_quick_in(repo, &loaded.handoff);
    let hand_edited =
        handover_handoff::hand_edits::edited_since(&store.markdown_path(), &loaded.handoff);
    let note = loaded.recovered_note();
    Found::Local(Verified {
        id: Some(loaded.handoff.id.clone()).filter(|id| !id.is_empty()),
        handoff: loaded.handoff,
        verification,
        note,
        hand_edited,
    })
}

/// How long a start waits for the fetched handoffs to be read (a few ms normally: a commit
/// and three small blobs). Refs and objects from a remote are a stranger's: whatever they
/// cost past this, the local handoff is shown instead, well within the hook's watchdog.
const FETCHED_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// `travel::fetched::for_startup`, given at most [`FETCHED_WAIT`] on a thread of its own
/// (abandoned after that; it only reads). Only started when something was fetched at all
/// (`travel::fetched::any`, a `stat` or two): the common start spawns nothing.
fn fetched_within(
    root: &std::path::Path,
    local: Option<&Handoff>,
) -> Option<crate::travel::FetchedHandoff> {
    if !crate::travel::fetched::any(root) {
        return None;
    }
    let (root, local) = (root.to_path_buf(), local.cloned());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .spawn(move || {
            let _ = tx.send(crate::travel::fetched::for_startup(&root, local.as_ref()));
        })
        .ok()?;
    rx.recv_timeout(FETCHED_WAIT).ok().flatten()
}

/// Which of the record's files are uncommitted now, in the shared repository.
fn uncommitted_now(repo: &LazyRepo, record: &SessionRecord) -> Now {
    match repo.get() {
        Ok(Some(repo)) => handover_record::still_uncommitted_in(repo, record),
        _ => Now::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::git;
    use handover_git::opens_on_this_thread;

    /// A repository with one commit and the record of a session that edited a file of it.
    fn repository_with_record(stamped: bool) -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        git(tmp.path(), &["init", "-q"]);
        std::fs::write(tmp.path().join("a.rs"), "fn a() {}\n").unwrap();
        git(tmp.path(), &["add", "a.rs"]);
        git(tmp.path(), &["commit", "-q", "-m", "one"]);
        std::fs::write(tmp.path().join("a.rs"), "fn a() { edited }\n").unwrap();
        let store = Store::at(tmp.path());
        let mut record = SessionRecord::new("before", handover_clients::Agent::Claude);
        record.apply(handover_clients::transcript::Fact::Request(
            "fix the parser".into(),
        ));
        record.files_edited = vec!["a.rs".into()];
        let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
        record.updated_ms = now_ms - 1_000;
        record.last_activity_ms = now_ms - 1_000;
        records::save(&store, &record).unwrap();
        if !stamped {
            // Another working tree's record (copied in): foreign by its stamp alone.
            let path = records::path_for(&records::dir(&store.dir()), "before");
            let text = std::fs::read_to_string(&path).unwrap();
            let stamp = handover_record::provenance::working_tree_stamp(tmp.path());
            std::fs::write(&path, text.replace(&stamp, "/elsewhere")).unwrap();
        }
        (tmp, store)
    }

    #[test]
    fn a_start_with_the_last_sessions_record_opens_the_repository_once() {
        let (_tmp, store) = repository_with_record(true);
        let before = opens_on_this_thread();
        let snapshot = Snapshot::read(&store, false, None);
        let last = snapshot.last.expect("the record is shown");
        assert_eq!(last.now.uncommitted, ["a.rs"], "asked of git");
        assert_eq!(
            opens_on_this_thread() - before,
            1,
            "the record's provenance and its uncommitted files share one repository"
        );
    }

    #[test]
    fn a_record_foreign_by_its_stamp_does_not_open_the_repository() {
        let (_tmp, store) = repository_with_record(false);
        let before = opens_on_this_thread();
        let snapshot = Snapshot::read(&store, false, None);
        assert!(snapshot.last.is_none(), "another working tree's record");
        assert_eq!(opens_on_this_thread() - before, 0);
    }
}
