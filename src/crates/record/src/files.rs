//! Session records on disk: `.handover/records/<session key>.json`, one file per session,
//! replaced atomically (temporary file + rename), the newest `records.keep` kept (default 20).
//! The directory holds a `.gitignore` of `*`, so records never show in `git status`.
//! Records live in the store: nothing is read or written unless `Store::check` accepts it
//! (ownership, no links), and `records/` must be a plain directory of the current user.
//! Everything read back is untrusted (a repository can ship any file there): every access goes
//! through `safe_fs` (no link followed in `.handover/` or `records/`, plain files only), files
//! are read with a size cap, a damaged one is skipped, and each record is judged for
//! provenance (`provenance`): only this working tree's own records are ever presented as the
//! last session's or imported into a handoff. Records are rewritten after every turn and are
//! advisory (a lost update costs at most one turn of facts): no fsync.

use super::provenance::{self, Foreign, Judge};
use super::SessionRecord;
use anyhow::Context as _;
use handover_git::LazyRepo;
use handover_handoff::safe_fs::{self, Kind};
use handover_handoff::store::Store;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A record is a few KB; anything larger than this is not one of ours.
const MAX_FILE_BYTES: u64 = 256 * 1024;
/// At most this many directory entries are looked at by the hooks (which must stay flat
/// whatever the directory holds).
const MAX_ENTRIES: usize = 1000;
/// A reader of the whole history ([`judged_all`]: `handover log`, `search`) lists every record
/// `records.keep` lets exist and far more, within these bounds; past either, the newest are
/// read and the cut is said.
pub const HISTORY_MAX_ENTRIES: usize = 20_000;
pub const HISTORY_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// `.handover/records` of a store directory (`.handover`).
pub fn dir(store_dir: &Path) -> PathBuf {
    store_dir.join("records")
}

/// A file-name-safe key (also of the hooks' per-session state files): the id itself when it is
/// made of `[A-Za-z0-9_-]` (as UUIDs are), otherwise the safe characters plus a hash of the
/// original so two ids never collide. An id that looks like a secret (the redactor changes
/// it) becomes a hash alone: no file name ever holds it.
pub fn key(session_id: &str) -> String {
    if handover_handoff::sanitize::redacted(session_id) != session_id {
        return format!("id-{}", digest(session_id));
    }
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

/// A name [`key`] could have made: safe characters only, never empty.
fn is_key(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 120
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// 128 bits of SHA-256 in hex: not reversible to the id it names.
fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

pub fn path_for(records_dir: &Path, session_id: &str) -> PathBuf {
    records_dir.join(format!("{}.json", key(session_id)))
}

/// The record stored for this session, if any (None when the store is refused, or the file
/// is missing, damaged, or another session's). Provenance is not judged here: the hooks
/// update their own session's record with it; whoever presents a record uses [`load_own`].
pub fn load(store: &Store, session_id: &str) -> Option<SessionRecord> {
    store.check().ok()?;
    let stored_id = super::stored_session_id(session_id);
    let mut record =
        read(&path_for(&dir(&store.dir()), session_id)).filter(|r| r.session_id == stored_id)?;
    record.file_key = key(session_id);
    Some(record)
}

/// [`load`], and only when the record is this working tree's own (`provenance`).
pub fn load_own(store: &Store, session_id: &str, now_ms: u64) -> Option<SessionRecord> {
    let record = load(store, session_id)?;
    let path = path_for(&dir(&store.dir()), session_id);
    let modified = modified_ms(&path)?;
    let rel = path.strip_prefix(store.root()).ok()?;
    let repo = LazyRepo::new(store.root());
    let own = Judge::in_repo(&repo, now_ms).is_own(rel, &record, modified);
    own.then_some(record)
}

fn read(path: &Path) -> Option<SessionRecord> {
    parse(&read_bytes(path)?)
}

/// A record file's bytes: its directories checked, the file plain and within the size cap.
fn read_bytes(path: &Path) -> Option<Vec<u8>> {
    let dir = path.parent()?;
    check_dirs(dir).ok()?;
    safe_fs::read_limited(path, MAX_FILE_BYTES).ok()?
}

fn parse(bytes: &[u8]) -> Option<SessionRecord> {
    serde_json::from_slice::<SessionRecord>(bytes)
        .ok()
        .map(SessionRecord::sanitized)
}

fn modified_ms(path: &Path) -> Option<u64> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(handover_base::clock::millis(
        meta.modified().unwrap_or(UNIX_EPOCH),
    ))
}

/// `records/` and the `.handover/` holding it are plain directories of the current user (or
/// missing).
fn check_dirs(records_dir: &Path) -> Result<(), safe_fs::Refused> {
    if let Some(parent) = records_dir.parent() {
        safe_fs::expect_own_dir(parent)?;
    }
    safe_fs::expect_own_dir(records_dir)?;
    Ok(())
}

/// Writes the record, stamped as written by handover in this working tree. Nothing is written
/// when the store is refused (`Store::check`). Creates the directory (with its `.gitignore`)
/// when needed. Returns true when this session had no file yet.
pub fn save(store: &Store, record: &SessionRecord) -> anyhow::Result<bool> {
    store.check()?;
    let records_dir = dir(&store.dir());
    safe_fs::ensure_dir(&store.dir())
        .with_context(|| format!("cannot create {}", store.dir().display()))?;
    if !safe_fs::expect_own_dir(&records_dir)? {
        safe_fs::ensure_dir(&records_dir)?;
        safe_fs::replace(&records_dir.join(".gitignore"), b"*\n", false)?;
    }
    let mut record = record.clone();
    record.made_by = provenance::MADE_BY.to_string();
    record.working_tree = provenance::working_tree_stamp(store.root());
    // The key of the id as the client gave it; a record made some other way is keyed by its
    // stored id (a key is re-made, never trusted as a file name).
    let file_key = if is_key(&record.file_key) {
        record.file_key.clone()
    } else {
        key(&record.session_id)
    };
    let path = records_dir.join(format!("{file_key}.json"));
    let created = safe_fs::kind(&path)? == Kind::Missing;
    let mut bytes = serde_json::to_vec_pretty(&record)?;
    bytes.push(b'\n');
    safe_fs::replace(&path, &bytes, false)?;
    Ok(created)
}

/// A record on disk with its provenance.
#[derive(Clone, Debug)]
pub struct Listed {
    pub record: SessionRecord,
    /// Why it is not this working tree's own; empty when it is.
    pub foreign: Vec<Foreign>,
    /// Its rank ([`provenance::rank`]): newest first.
    pub rank: u64,
}

impl Listed {
    pub fn is_own(&self) -> bool {
        self.foreign.is_empty()
    }
}

/// Every readable record with its provenance: this working tree's own first, newest first,
/// then the foreign ones. Empty when the store is refused.
pub fn judged(store: &Store, now_ms: u64) -> Vec<Listed> {
    judge_all(store, now_ms, ranked(store))
}

fn judge_all(
    store: &Store,
    now_ms: u64,
    ranked: Vec<(SessionRecord, PathBuf, u64)>,
) -> Vec<Listed> {
    let repo = LazyRepo::new(store.root());
    let judge = Judge::in_repo(&repo, now_ms);
    let mut listed: Vec<Listed> = ranked
        .into_iter()
        .map(|(record, rel, modified)| Listed {
            foreign: judge.foreign(&rel, &record, modified),
            rank: provenance::rank(&record, modified),
            record,
        })
        .collect();
    let key = |l: &Listed| (!l.is_own(), std::cmp::Reverse(l.rank));
    handover_base::order::sort_by(&mut listed, |a, b| key(a).cmp(&key(b)));
    listed
}

/// Every record of the directory with its provenance, as [`judged`] lists them, for a reader
/// of the whole history: within [`HISTORY_MAX_ENTRIES`] directory entries and
/// [`HISTORY_MAX_BYTES`] of files (the newest files first), not the hooks' bound. Only the
/// files whose bytes `may_hold` accepts are parsed and judged (a search skips those that cannot
/// hold a hit); the others are counted in [`Judged::unread`].
pub fn judged_all(store: &Store, now_ms: u64, may_hold: &(dyn Fn(&[u8]) -> bool + Sync)) -> Judged {
    judged_within(
        store,
        now_ms,
        HISTORY_MAX_ENTRIES,
        HISTORY_MAX_BYTES,
        may_hold,
        SessionRecord::sanitized,
        &Unknown,
    )
}

/// [`judged_all`] for a listing of sessions (`handover log`): every record, each with only
/// the texts a listing shows ([`SessionRecord::sanitized_for_listing`]).
pub fn listed_all(store: &Store, now_ms: u64) -> Judged {
    listed_all_known(store, now_ms, &Unknown)
}

/// [`listed_all`], taking each file's listing from `known` when it knows the file as it is
/// now (`handover log`'s cache, kept outside the repository), and telling it every file's.
/// Only the parse is saved: each file is still listed, bounded and judged for provenance.
pub fn listed_all_known(store: &Store, now_ms: u64, known: &dyn Known) -> Judged {
    judged_within(
        store,
        now_ms,
        HISTORY_MAX_ENTRIES,
        HISTORY_MAX_BYTES,
        &|_| true,
        SessionRecord::sanitized_for_listing,
        known,
    )
}

/// What a listing already knows of record files: each file's listed record
/// ([`SessionRecord::sanitized_for_listing`]) by its identity on disk (name, size, times,
/// inode), which the implementor compares.
pub trait Known: Sync {
    /// The file's listed record as read before (`Some(None)`: it did not parse), when the file
    /// is the same one; None when it must be read. Asked on several threads at once.
    fn known(&self, path: &Path, meta: &std::fs::Metadata) -> Option<Option<SessionRecord>>;
    /// What listing the file gave (`fresh`: read now, not known), in the directory's order
    /// of the files listed; asked on one thread after every file was read.
    fn listed(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        record: Option<&SessionRecord>,
        fresh: bool,
    );
}

/// Knows nothing: every file is read.
struct Unknown;

impl Known for Unknown {
    fn known(&self, _: &Path, _: &std::fs::Metadata) -> Option<Option<SessionRecord>> {
        None
    }
    fn listed(&self, _: &Path, _: &std::fs::Metadata, _: Option<&SessionRecord>, _: bool) {}
}

/// What [`judged_all`] found.
#[derive(Clone, Debug, Default)]
pub struct Judged {
    pub listed: Vec<Listed>,
    /// What was not read, in our words (`holds more than …: the oldest were not read`); None
    /// when every file was looked at.
    pub cut: Option<String>,
    /// The ids (file keys) of the files `may_hold` refused: not parsed.
    pub unread: Vec<String>,
}

fn judged_within(
    store: &Store,
    now_ms: u64,
    max_entries: usize,
    max_bytes: u64,
    may_hold: &(dyn Fn(&[u8]) -> bool + Sync),
    sanitized: fn(SessionRecord) -> SessionRecord,
    known: &dyn Known,
) -> Judged {
    if store.check().is_err() {
        return Judged::default();
    }
    let records_dir = dir(&store.dir());
    if check_dirs(&records_dir).is_err() {
        return Judged::default();
    }
    let (files, more) = safe_fs::plain_files_within(&records_dir, max_entries);
    let mut cut =
        more.then(|| format!("holds more than {max_entries} entries: the rest were not read"));
    let mut files: Vec<(PathBuf, SystemTime, std::fs::Metadata)> = files
        .into_iter()
        .filter(|(path, _)| path.extension().and_then(|x| x.to_str()) == Some("json"))
        .map(|(path, meta)| (path, meta.modified().unwrap_or(UNIX_EPOCH), meta))
        .collect();
    // Newest files first, so a budget that runs out leaves the oldest.
    files.sort_by_key(|(_, modified, _)| std::cmp::Reverse(*modified));
    let mut budget = max_bytes;
    let mut within = Vec::with_capacity(files.len());
    for (path, modified, meta) in files {
        let size = meta.len();
        // A file over the per-record cap costs nothing: it is not read (`read` refuses it).
        if size <= MAX_FILE_BYTES {
            let Some(left) = budget.checked_sub(size) else {
                cut = Some(format!(
                    "holds more than {} MiB of records: the oldest were not read",
                    max_bytes / (1024 * 1024)
                ));
                break;
            };
            budget = left;
        }
        within.push((path, modified, meta));
    }
    // Read and parsed on every core (thousands of files), then ranked as the hooks rank them.
    let loaded = handover_base::parallel::map(&within, |(path, _, meta)| {
        if let Some(record) = known.known(path, meta) {
            return Some(Read::Known(record));
        }
        let stem = stem_key(path);
        // The directories were checked once above: not again for each of thousands of files
        // (two `stat`s each, most of a search's system time). The file itself is opened as
        // every record is (no link followed, plain files only, capped).
        let bytes = safe_fs::read_limited(path, MAX_FILE_BYTES).ok()??;
        // A file whose name is not a key is named by its content: parsed.
        if let Some(stem) = stem.filter(|_| !may_hold(&bytes)) {
            return Some(Read::Unread(stem.to_string()));
        }
        let record = serde_json::from_slice::<SessionRecord>(&bytes).ok();
        Some(Read::Fresh(record.map(sanitized)))
    });
    let mut unread = Vec::new();
    let mut parsed = Vec::with_capacity(within.len());
    for ((path, modified, meta), one) in within.into_iter().zip(loaded) {
        let record = match one {
            None => continue,
            Some(Read::Unread(key)) => {
                unread.push(key);
                continue;
            }
            Some(Read::Known(record)) => {
                known.listed(&path, &meta, record.as_ref(), false);
                record
            }
            Some(Read::Fresh(record)) => {
                known.listed(&path, &meta, record.as_ref(), true);
                record
            }
        };
        if let Some(record) = record {
            parsed.push((record, path, modified));
        }
    }
    let ranked = ranked_parsed(store, parsed);
    Judged {
        listed: judge_all(store, now_ms, ranked),
        cut,
        unread,
    }
}

/// One record file as [`judged_within`] read it.
enum Read {
    /// Known to the caller's [`Known`] (None: it did not parse).
    Known(Option<SessionRecord>),
    /// Read and parsed now (None: it did not parse).
    Fresh(Option<SessionRecord>),
    /// Not parsed (`may_hold` refused its bytes): its key.
    Unread(String),
}

/// Every readable record with its path (relative to the working tree) and file time, newest
/// rank first, not judged yet. Empty when the store is refused.
fn ranked(store: &Store) -> Vec<(SessionRecord, PathBuf, u64)> {
    if store.check().is_err() {
        return Vec::new();
    }
    let parsed = entries(&dir(&store.dir()))
        .into_iter()
        .filter_map(|(path, modified)| Some((read(&path)?, path, modified)))
        .collect();
    ranked_parsed(store, parsed)
}

/// The key a file is filed under (its name without `.json`), when its name is one.
fn stem_key(path: &Path) -> Option<&str> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| is_key(s))
}

/// The records of these files, as [`ranked`] lists them.
/// Parsed records with their files, as [`ranked`] lists them.
fn ranked_parsed(
    store: &Store,
    parsed: Vec<(SessionRecord, PathBuf, SystemTime)>,
) -> Vec<(SessionRecord, PathBuf, u64)> {
    // Room for every record up front: thousands of values of hundreds of bytes, not moved
    // again as the list grows.
    let mut list: Vec<(SessionRecord, PathBuf, u64)> = Vec::with_capacity(parsed.len());
    for (mut record, path, modified) in parsed {
        // The key it is filed under, so a reader can name the record (`handover show`) and a
        // save writes the file it came from.
        if let Some(stem) = stem_key(&path) {
            record.file_key = stem.to_string();
        }
        let Ok(rel) = path.strip_prefix(store.root()) else {
            continue;
        };
        let rel = rel.to_path_buf();
        list.push((record, rel, handover_base::clock::millis(modified)));
    }
    // Ties go to the later update.
    let key = |(r, _, modified): &(SessionRecord, PathBuf, u64)| {
        std::cmp::Reverse((provenance::rank(r, *modified), r.updated_ms))
    };
    handover_base::order::sort_by(&mut list, |a, b| key(a).cmp(&key(b)));
    list
}

/// This working tree's own records, newest first.
pub fn list_own(store: &Store, now_ms: u64) -> Vec<SessionRecord> {
    judged(store, now_ms)
        .into_iter()
        .filter(Listed::is_own)
        .map(|l| l.record)
        .collect()
}

/// The newest own record of a session other than `except` (the current session) that asked
/// or did something. Judges records newest first and stops at the first own one: usually one
/// judgement.
///
/// A session in which nothing was asked or done (started and left, or the fresh session a
/// clear opens, ended at once) does not count: its record would otherwise hide the one before
/// it, whose unfinished work the next session still needs to hear about.
///
/// `repo`: the caller's repository of the same working tree (SessionStart's), opened here only
/// if a candidate passes its stamp and dates and git must say whether it is committed.
pub fn latest(
    store: &Store,
    repo: &LazyRepo,
    except: Option<&str>,
    now_ms: u64,
) -> Option<SessionRecord> {
    let except = except.map(super::stored_session_id);
    let candidates: Vec<_> = ranked(store)
        .into_iter()
        .filter(|(r, _, _)| Some(&r.session_id) != except.as_ref() && !r.did_nothing())
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let judge = Judge::in_repo(repo, now_ms);
    candidates
        .into_iter()
        .find(|(r, rel, modified)| judge.is_own(rel, r, *modified))
        .map(|(r, _, _)| r)
}

/// Removes all but the `keep` most recently written records, once more than `keep + slack`
/// carry the mark. Best effort. Removes only files handover created: plain `*.json` files whose
/// content carries the `made_by` mark, that git does not track.
///
/// Why a slack: whether git tracks a record that HEAD does not hold is a question for the
/// index, which libgit2 reads and checksums whole (about 80 ms at 100,000 files), so a hook on
/// a turn prunes once in `slack` sessions rather than at every session's first record. Nothing
/// is asked of git while the records are within the bound. `known`: the index's paths under the
/// records directory, read by the caller's working-tree scan from the index it loaded
/// (SessionEnd and PreCompact scan right before they prune), so that question needs no second
/// index load; HEAD still counts.
pub fn prune(store: &Store, keep: usize, slack: usize, known: Option<&handover_git::IndexedUnder>) {
    if store.check().is_err() {
        return;
    }
    let bound = keep.saturating_add(slack);
    let records_dir = dir(&store.dir());
    let files = entries(&records_dir);
    // Only marked files can be ours, and only `*.json` files can be marked: within the bound,
    // the directory's listing answers and no record is read (PreCompact and SessionEnd ask).
    if files.len() <= bound {
        return;
    }
    let marked: Vec<(PathBuf, SystemTime, PathBuf)> = files
        .into_iter()
        .filter(|(path, _)| read(path).is_some_and(|r| r.made_by == provenance::MADE_BY))
        .filter_map(|(path, time)| {
            let rel = path.strip_prefix(store.root()).ok()?.to_path_buf();
            Some((path, time, rel))
        })
        .collect();
    // The tracked ones never count among `keep`, so no more than `marked` can be ours.
    if marked.len() <= bound {
        return;
    }
    let rels: Vec<&Path> = marked.iter().map(|(_, _, rel)| rel.as_path()).collect();
    let tracked = handover_git::provenance::tracked_each(store.root(), &rels, known);
    let mut ours: Vec<(PathBuf, SystemTime)> = marked
        .iter()
        .zip(tracked)
        .filter(|(_, tracked)| !tracked)
        .map(|((path, time, _), _)| (path.clone(), *time))
        .collect();
    if ours.len() <= keep {
        return;
    }
    ours.sort_by_key(|f| std::cmp::Reverse(f.1));
    for (path, _) in ours.into_iter().skip(keep) {
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

    /// A store at the top of a temp dir of its own (nothing in it yet).
    fn temp_store() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::at(tmp.path());
        (tmp, store)
    }

    /// A store holding the record of `(id, updated_ms)` and, beside it in the records
    /// directory, files handover did not write: (temp dir, store, records directory).
    fn with_strangers(
        (id, updated_ms): (&str, u64),
        strangers: &[(&str, &[u8])],
    ) -> (tempfile::TempDir, Store, PathBuf) {
        let (tmp, store) = temp_store();
        let dir = dir(&store.dir());
        save(&store, &record(id, updated_ms)).unwrap();
        for (name, bytes) in strangers {
            fs::write(dir.join(name), bytes).unwrap();
        }
        (tmp, store, dir)
    }

    fn record(id: &str, updated_ms: u64) -> SessionRecord {
        let mut r = SessionRecord::new(id, handover_clients::Agent::Claude);
        r.apply(super::super::Fact::Request("work on the parser".into()));
        r.updated_ms = updated_ms;
        r
    }

    #[test]
    fn a_session_that_did_nothing_does_not_hide_the_one_before() {
        let (_tmp, store) = temp_store();
        let t = now();
        save(&store, &record("worked", t - 100)).unwrap();
        // Newer, and nothing asked or done in it (the session a clear opened, ended at once).
        let mut empty = SessionRecord::new("empty", handover_clients::Agent::Claude);
        empty.updated_ms = t - 10;
        empty.last_activity_ms = t - 10;
        save(&store, &empty).unwrap();
        assert_eq!(latest_id(&store, None, t), "worked");
        // Once something is asked in it, it is the last session.
        empty.apply(super::super::Fact::Request("hello".into()));
        save(&store, &empty).unwrap();
        assert_eq!(latest_id(&store, None, t), "empty");
    }

    fn now() -> u64 {
        handover_base::clock::millis(SystemTime::now())
    }

    /// The session [`latest`] answers at `now` (None is a failure of the test).
    fn latest_id(store: &Store, except: Option<&str>, now: u64) -> String {
        latest(store, &LazyRepo::new(store.root()), except, now)
            .unwrap()
            .session_id
    }

    fn ids(store: &Store) -> Vec<String> {
        list_own(store, now())
            .into_iter()
            .map(|r| r.session_id)
            .collect()
    }

    #[test]
    fn saves_loads_lists_and_prunes_to_the_newest() {
        let (_tmp, store) = temp_store();
        let dir = dir(&store.dir());
        let t = now();
        assert!(save(&store, &record("a", t - 100)).unwrap());
        assert!(
            !save(&store, &record("a", t - 90)).unwrap(),
            "second save replaces"
        );
        assert_eq!(fs::read(dir.join(".gitignore")).unwrap(), b"*\n");
        assert_eq!(load(&store, "a").unwrap().updated_ms, t - 90);
        assert_eq!(load(&store, "a").unwrap().made_by, "handover");
        assert_eq!(load(&store, "b"), None);
        for (i, id) in ["b", "c", "d"].iter().enumerate() {
            std::thread::sleep(std::time::Duration::from_millis(15));
            save(&store, &record(id, t - 50 + i as u64)).unwrap();
        }
        assert_eq!(latest_id(&store, None, now()), "d");
        assert_eq!(latest_id(&store, Some("d"), now()), "c");
        prune(&store, 2, 2, None);
        assert_eq!(
            ids(&store),
            ["d", "c", "b", "a"],
            "4 within 2 + a slack of 2"
        );
        prune(&store, 1, 2, None);
        assert_eq!(ids(&store), ["d"], "past 1 + 2: down to 1, not to 3");
        std::thread::sleep(std::time::Duration::from_millis(15));
        save(&store, &record("e", t - 10)).unwrap();
        prune(&store, 2, 0, None);
        assert_eq!(ids(&store), ["e", "d"]);
        prune(&store, 1, 0, None);
        assert_eq!(ids(&store), ["e"]);
        assert!(dir.join(".gitignore").exists(), "only records are pruned");
    }

    #[test]
    fn damaged_foreign_and_oversized_files_are_skipped() {
        let huge = vec![b' '; 300 * 1024];
        let (_tmp, store, dir) = with_strangers(
            ("ok", 5),
            &[("broken.json", b"{not json"), ("huge.json", &huge)],
        );
        // A file named for one session holding another's record is not that session's.
        fs::copy(path_for(&dir, "ok"), path_for(&dir, "other")).unwrap();
        assert_eq!(load(&store, "other"), None);
        assert_eq!(judged(&store, now()).len(), 2);
    }

    #[test]
    fn the_history_reads_every_record_and_says_a_bound_that_is_reached() {
        let (_tmp, store) = temp_store();
        for (i, id) in ["a", "b", "c"].iter().enumerate() {
            std::thread::sleep(std::time::Duration::from_millis(15));
            save(&store, &record(id, 10 + i as u64)).unwrap();
        }
        let all = judged_all(&store, now(), &|_| true);
        assert_eq!((all.listed.len(), all.cut), (3, None));
        let within = |max_entries, max_bytes| {
            judged_within(
                &store,
                now(),
                max_entries,
                max_bytes,
                &|_| true,
                SessionRecord::sanitized,
                &Unknown,
            )
        };
        let says = |cut: &Judged, bound: &str| {
            assert!(
                cut.cut.as_deref().is_some_and(|c| c.contains(bound)),
                "{bound:?} in {:?}",
                cut.cut
            );
        };
        // Four entries (three records and the `.gitignore`), three looked at.
        says(&within(3, HISTORY_MAX_BYTES), "more than 3 entries");
        // A byte budget of two records: the newest two are read, the oldest is not.
        let size = fs::metadata(path_for(&dir(&store.dir()), "a"))
            .unwrap()
            .len();
        let cut = within(100, 2 * size + 1);
        let ids: Vec<&str> = cut
            .listed
            .iter()
            .map(|l| l.record.session_id.as_str())
            .collect();
        assert_eq!(ids, ["c", "b"]);
        says(&cut, "the oldest were not read");
    }

    #[test]
    fn a_symlinked_directory_is_neither_written_nor_read() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let store = Store::at(tmp.path());
        fs::create_dir(store.dir()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir(&store.dir())).unwrap();
        let e = save(&store, &record("a", 1)).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(judged(&store, now()).is_empty());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn future_dated_and_unstamped_records_are_foreign_and_rank_last() {
        let (tmp, store) = temp_store();
        let dir = dir(&store.dir());
        let t = now();
        save(&store, &record("mine", t - 1000)).unwrap();
        // Written straight to disk, not through `save`: no stamp.
        let mut planted = record("planted", t - 10);
        fs::write(
            path_for(&dir, "planted"),
            serde_json::to_vec(&planted).unwrap(),
        )
        .unwrap();
        // Stamped as ours, but dated a year ahead.
        planted.session_id = "future".into();
        planted.made_by = provenance::MADE_BY.into();
        planted.working_tree = provenance::working_tree_stamp(tmp.path());
        planted.updated_ms = t + 365 * 24 * 3600 * 1000;
        fs::write(
            path_for(&dir, "future"),
            serde_json::to_vec(&planted).unwrap(),
        )
        .unwrap();
        let all = judged(&store, t);
        let order: Vec<(&str, bool)> = all
            .iter()
            .map(|l| (l.record.session_id.as_str(), l.is_own()))
            .collect();
        assert_eq!(order[0], ("mine", true), "{order:?}");
        assert_eq!(latest_id(&store, None, t), "mine");
        let future = all
            .iter()
            .find(|l| l.record.session_id == "future")
            .unwrap();
        assert_eq!(future.foreign, [Foreign::FutureDated]);
        assert!(load_own(&store, "future", t).is_none());
        assert!(load_own(&store, "planted", t).is_none());
        assert!(load_own(&store, "mine", t).is_some());
    }

    #[test]
    fn prune_removes_only_files_handover_wrote() {
        let (_tmp, store, dir) = with_strangers(
            ("a", 1),
            &[
                ("users-notes.json", b"{\"session_id\": \"x\"}"),
                ("other.json", b"[1, 2]"),
            ],
        );
        std::thread::sleep(std::time::Duration::from_millis(15));
        save(&store, &record("b", 2)).unwrap();
        prune(&store, 1, 0, None);
        assert!(dir.join("users-notes.json").exists());
        assert!(dir.join("other.json").exists());
        assert!(!path_for(&dir, "a").exists(), "our older record goes");
        assert!(path_for(&dir, "b").exists());
    }

    #[test]
    fn keys_are_safe_and_distinct() {
        assert_eq!(key("0b1c-aa_bb"), "0b1c-aa_bb");
        let a = key("../../etc/passwd");
        assert!(!a.contains('/') && !a.contains(".."), "{a}");
        assert_ne!(key("a/b"), key("a_b"));
        assert!(!key("").is_empty());
    }

    #[test]
    fn an_id_that_looks_like_a_secret_never_names_a_file() {
        let token = "ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeU";
        let k = key(token);
        assert!(
            !k.contains("ghp_") && !k.contains("7Kq2Zr9Xw4Lm8Tb1"),
            "{k}"
        );
        assert_ne!(k, key("ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeV"));
        let (_tmp, store) = temp_store();
        save(&store, &record(token, 1)).unwrap();
        let on_disk = fs::read_to_string(path_for(&dir(&store.dir()), token)).unwrap();
        assert!(!on_disk.contains(token), "{on_disk}");
        assert!(load(&store, token).is_some(), "found again by the same id");
    }
}
