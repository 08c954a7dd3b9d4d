//! `handover log`'s cache: what a listing took from each archived handoff and session record
//! file, so that a file already listed is not read, parsed and checked again while it is the
//! same file. One file per working tree, kept OUTSIDE the repository (everything in the
//! repository is untrusted: a cache inside `.handover/` could be forged along with the files
//! it vouches for): `$HANDOVER_CACHE_DIR/log/<hash of the working tree's path>.json`, by
//! default under the user's cache directory (`~/.cache/handover/log/` on Linux).
//!
//! What it holds, per file (by directory and name): the file's identity on disk — size,
//! modification and status-change times to the nanosecond, inode — and what the listing took
//! of it: an archived handoff's listed facts (id, time, agent, goal, kind, the working tree and
//! branch it recorded), the reason it was skipped (a checksum mismatch, ...), or a record's
//! listed form ([`handover_record::SessionRecord::sanitized_for_listing`]: redacted). A file
//! is taken from the cache only when all of its identity is unchanged; a content change keeps
//! neither the status-change time nor, when replaced, the inode. What is judged from the
//! repository around the file (is it this working tree's, is it committed) is judged again on
//! every run. So the output is the same with or without the cache.
//!
//! Rules: a file changed within [`RACY_NS`] of now is not cached (its times could still be
//! shared by a later change, as git's index treats racy files); an archived handoff's text that
//! redaction would change is never written here (that file is read every time); the cache is
//! read within [`MAX_CACHE_BYTES`] and anything wrong with it (damaged, truncated, of another
//! version or another working tree) makes it empty, never an error; it is rewritten atomically
//! (temporary file and rename in its directory) only when something changed, holding only the
//! files listed in that run (a removed file is dropped); a cache directory that cannot be
//! written means no cache. Deleting it is always safe.

use handover_handoff::model::{GitSnapshot, Handoff, Kind};
use handover_handoff::safe_fs;
use handover_handoff::sanitize;
use handover_handoff::store::Store;
use handover_record::SessionRecord;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The cache's format; a cache of any other is ignored (and rewritten).
const VERSION: u32 = 1;
/// A cache file larger than this is ignored (and not written): 20,000 files' listings take
/// about 12.5 MB.
pub const MAX_CACHE_BYTES: u64 = 64 * 1024 * 1024;
/// A file whose modification or status-change time is this close to now is not cached.
pub const RACY_NS: i64 = 2_000_000_000;
/// The variable that moves the cache (tests, sandboxes); empty: no cache.
pub const CACHE_DIR_VAR: &str = "HANDOVER_CACHE_DIR";

/// Which directory of the store a file is in.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
enum Part {
    Archive,
    Records,
}

/// A file as it is on disk: any change to its content changes one of these.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    size: u64,
    mtime_ns: i64,
    ctime_ns: i64,
    inode: u64,
}

impl Identity {
    fn of(meta: &Metadata) -> Identity {
        let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        Identity {
            size: meta.len(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
        }
    }

    /// Changed too recently to be told apart from a change still to come.
    fn racy(&self, now_ns: i64) -> bool {
        self.mtime_ns.max(self.ctime_ns) > now_ns.saturating_sub(RACY_NS)
    }
}

/// What the listing took of one file.
#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "snake_case")]
enum Listed {
    /// An archived handoff that passed every check.
    Handoff(ListedHandoff),
    /// An archived file that did not, and why (said on every run).
    Skipped(String),
    /// A session record's listed form; None: it did not parse (dropped, as without a cache).
    /// Stored without the fields that hold their default value (most of a listed record):
    /// read back, they are the default again.
    #[serde(serialize_with = "without_defaults")]
    Record(Option<Box<SessionRecord>>),
}

/// The facts of an archived handoff that `handover log` lists and judges, already cleaned of
/// controls (`store::parse_untrusted`) and unchanged by redaction.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct ListedHandoff {
    id: String,
    created_at: String,
    agent: Option<String>,
    goal: String,
    kind: Kind,
    git: Option<ListedGit>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct ListedGit {
    root: String,
    root_bytes: Option<String>,
    branch: Option<String>,
    uncommitted_on: Option<String>,
}

impl ListedHandoff {
    fn of(h: &Handoff) -> ListedHandoff {
        ListedHandoff {
            id: h.id.clone(),
            created_at: h.created_at.clone(),
            agent: h.agent.clone(),
            goal: h.content.goal.clone(),
            kind: h.content.kind,
            git: h.git.as_ref().map(|g| ListedGit {
                root: g.root.clone(),
                root_bytes: g.root_bytes.clone(),
                branch: g.branch.clone(),
                uncommitted_on: g.uncommitted_on.clone(),
            }),
        }
    }

    /// A handoff holding just these facts: what a listing of the archived file reads of it.
    fn handoff(&self) -> Handoff {
        let mut h = Handoff {
            id: self.id.clone(),
            created_at: self.created_at.clone(),
            agent: self.agent.clone(),
            git: self.git.as_ref().map(|g| GitSnapshot {
                root: g.root.clone(),
                root_bytes: g.root_bytes.clone(),
                branch: g.branch.clone(),
                uncommitted_on: g.uncommitted_on.clone(),
                ..GitSnapshot::default()
            }),
            ..Handoff::default()
        };
        h.content.goal = self.goal.clone();
        h.content.kind = self.kind;
        h
    }

    /// Every text, for the redaction check.
    fn texts(&self) -> Vec<&str> {
        let mut texts = vec![self.id.as_str(), &self.created_at, &self.goal];
        texts.extend(self.agent.as_deref());
        if let Some(g) = &self.git {
            texts.push(&g.root);
            texts.extend(g.root_bytes.as_deref());
            texts.extend(g.branch.as_deref());
            texts.extend(g.uncommitted_on.as_deref());
        }
        texts
    }
}

/// A record as JSON without the top-level fields equal to [`SessionRecord::default`]'s:
/// `#[serde(default)]` puts them back on reading, so the record reads back the same.
fn without_defaults<S: serde::Serializer>(
    record: &Option<Box<SessionRecord>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    static DEFAULT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    let Some(record) = record else {
        return serializer.serialize_none();
    };
    let mut value = serde_json::to_value(record).map_err(S::Error::custom)?;
    let default =
        DEFAULT.get_or_init(|| serde_json::to_value(SessionRecord::default()).unwrap_or_default());
    if let (Some(fields), Some(default)) = (value.as_object_mut(), default.as_object()) {
        fields.retain(|name, v| default.get(name) != Some(v));
    }
    serializer.serialize_some(&value)
}

/// Redaction leaves every one of `texts` as it is (the cache never holds what it would hide).
fn clean(texts: &[&str]) -> bool {
    texts.iter().all(|t| sanitize::redacted(t) == *t)
}

/// One file of the cache.
#[derive(Serialize, Deserialize)]
struct Cached {
    part: Part,
    name: String,
    identity: Identity,
    listed: Listed,
}

/// The cache's first line; then one line per file ([`Cached`]), read on every core.
#[derive(Serialize, Deserialize)]
struct Header {
    version: u32,
    /// The working tree it is for (its canonical path), checked on reading.
    root: String,
    /// How many lines follow: a cache cut short at a line's end is not taken for a smaller one.
    files: usize,
}

type Key = (Part, String);

/// The cache of one working tree for one run of `handover log`: read once, asked from the
/// readers' threads, written back at the end ([`LogCache::save`]) when something changed.
pub struct LogCache {
    /// Where it is kept; None: no cache (nothing is read or written).
    path: Option<PathBuf>,
    root: String,
    known: HashMap<Key, (Identity, Listed)>,
    /// This run's files: those taken from `known` and those read now (to be cached).
    used: Mutex<Vec<Key>>,
    fresh: Mutex<Vec<Cached>>,
    /// Saved already: a second save has nothing of this run left to write.
    saved: std::sync::atomic::AtomicBool,
    now_ns: i64,
}

impl LogCache {
    /// The cache of `store`'s working tree in the user's cache directory
    /// (`$HANDOVER_CACHE_DIR`, else the platform's: `$XDG_CACHE_HOME/handover`,
    /// `~/.cache/handover`); no cache when there is none.
    pub fn for_store(store: &Store) -> LogCache {
        let dir = match std::env::var_os(CACHE_DIR_VAR) {
            Some(v) => Some(PathBuf::from(v)).filter(|p| p.is_absolute()),
            None => dirs::cache_dir().map(|d| d.join("handover")),
        };
        LogCache::in_dir(dir.as_deref(), store)
    }

    /// The cache of `store`'s working tree under `dir` (None: no cache).
    pub fn in_dir(dir: Option<&Path>, store: &Store) -> LogCache {
        let root_path = std::fs::canonicalize(store.root()).unwrap_or(store.root().to_path_buf());
        let root = root_path.to_string_lossy().into_owned();
        let path = dir.map(|d| d.join("log").join(file_name(&root_path)));
        let known = path
            .as_deref()
            .and_then(|p| load(p, &root))
            .unwrap_or_default();
        LogCache {
            path,
            root,
            known,
            used: Mutex::new(Vec::new()),
            fresh: Mutex::new(Vec::new()),
            saved: std::sync::atomic::AtomicBool::new(false),
            now_ns: now_ns(),
        }
    }

    /// Where the cache file is (whether it exists or not); None: no cache.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn get(&self, part: Part, path: &Path, meta: &Metadata) -> Option<&Listed> {
        let name = path.file_name()?.to_str()?;
        let (identity, listed) = self.known.get(&(part, name.to_string()))?;
        (*identity == Identity::of(meta)).then_some(listed)
    }

    /// Notes the file as listed in this run: known (kept), or read now (cached, unless racy).
    fn note(&self, part: Part, path: &Path, meta: &Metadata, listed: Option<Listed>) {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let identity = Identity::of(meta);
        match listed {
            None => lock(&self.used).push((part, name.to_string())),
            Some(_) if identity.racy(self.now_ns) => {}
            Some(listed) => lock(&self.fresh).push(Cached {
                part,
                name: name.to_string(),
                identity,
                listed,
            }),
        }
    }

    /// An archived handoff file as listed before, when it is the same file: the handoff's
    /// listed facts, or why it was skipped.
    pub(crate) fn archived(&self, path: &Path, meta: &Metadata) -> Option<Result<Handoff, String>> {
        match self.get(Part::Archive, path, meta)? {
            Listed::Handoff(h) => Some(Ok(h.handoff())),
            Listed::Skipped(why) => Some(Err(why.clone())),
            Listed::Record(_) => None,
        }
    }

    /// What an archived handoff file gave (`verdict`: the handoff, or why its bytes are not
    /// one; None when it is no verdict on its bytes, such as a file that could not be read):
    /// cached when every text of it is one redaction leaves as it is.
    pub(crate) fn archived_listed(
        &self,
        path: &Path,
        meta: &Metadata,
        verdict: Option<Result<&Handoff, &str>>,
        fresh: bool,
    ) {
        if !fresh {
            return self.note(Part::Archive, path, meta, None);
        }
        let listed = match verdict {
            Some(Ok(h)) => {
                let listed = ListedHandoff::of(h);
                clean(&listed.texts()).then_some(Listed::Handoff(listed))
            }
            Some(Err(why)) => clean(&[why]).then(|| Listed::Skipped(why.to_string())),
            None => None,
        };
        if listed.is_some() {
            self.note(Part::Archive, path, meta, listed);
        }
    }

    /// Writes the cache back when this run read a file it did not hold or no longer listed
    /// one it held: this run's files only. Best effort: a failure leaves the cache as it was
    /// (or missing), and says nothing. Once per run: a second call does nothing.
    pub fn save(&self) {
        let Some(path) = &self.path else {
            return;
        };
        if self.saved.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let used = std::mem::take(&mut *lock(&self.used));
        let fresh = std::mem::take(&mut *lock(&self.fresh));
        if fresh.is_empty() && used.len() == self.known.len() {
            return;
        }
        let mut files: Vec<Cached> = used
            .into_iter()
            .filter_map(|key| {
                let (identity, listed) = self.known.get(&key)?;
                Some(Cached {
                    part: key.0,
                    name: key.1,
                    identity: *identity,
                    listed: listed.clone(),
                })
            })
            .collect();
        files.extend(fresh);
        let header = Header {
            version: VERSION,
            root: self.root.clone(),
            files: files.len(),
        };
        // Compact JSON escapes every control character: a line break only ends a line.
        let mut bytes = Vec::new();
        for line in
            std::iter::once(serde_json::to_vec(&header)).chain(files.iter().map(serde_json::to_vec))
        {
            let Ok(line) = line else {
                return;
            };
            bytes.extend_from_slice(&line);
            bytes.push(b'\n');
        }
        if bytes.len() as u64 > MAX_CACHE_BYTES {
            return;
        }
        let Some(dir) = path.parent() else {
            return;
        };
        if make_private_dir(dir).is_err() {
            return;
        }
        let _ = safe_fs::replace(path, &bytes, false);
    }
}

impl handover_record::files::Known for LogCache {
    fn known(&self, path: &Path, meta: &Metadata) -> Option<Option<SessionRecord>> {
        match self.get(Part::Records, path, meta)? {
            Listed::Record(record) => Some(record.as_deref().cloned()),
            _ => None,
        }
    }

    fn listed(&self, path: &Path, meta: &Metadata, record: Option<&SessionRecord>, fresh: bool) {
        let listed = fresh.then(|| Listed::Record(record.cloned().map(Box::new)));
        self.note(Part::Records, path, meta, listed);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The cache's file name for a working tree: a hash of its canonical path.
fn file_name(root: &Path) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let digest = handover_handoff::hand_edits::digest(root.as_os_str().as_bytes());
    let hex = digest.trim_start_matches("sha256:");
    format!("{}.json", &hex[..hex.len().min(32)])
}

/// The cache at `path` for the working tree `root`, or None when there is none that can be
/// used (missing, a link, too large, damaged, of another version or working tree).
fn load(path: &Path, root: &str) -> Option<HashMap<Key, (Identity, Listed)>> {
    let bytes = safe_fs::read_limited(path, MAX_CACHE_BYTES).ok()??;
    let mut lines = bytes.split(|&b| b == b'\n');
    let header: Header = serde_json::from_slice(lines.next()?).ok()?;
    if header.version != VERSION || header.root != root {
        return None;
    }
    let lines: Vec<&[u8]> = lines.filter(|l| !l.is_empty()).collect();
    if lines.len() != header.files {
        return None;
    }
    let parsed =
        handover_base::parallel::map(&lines, |line| serde_json::from_slice::<Cached>(line).ok());
    let mut known = HashMap::with_capacity(parsed.len());
    for c in parsed {
        let c = c?;
        known.insert((c.part, c.name), (c.identity, c.listed));
    }
    Some(known)
}

/// `dir` and its missing parents, each created readable by the user alone.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Now by handover's clock (the system's; a debug build's test shift moves it, so a test can
/// list files as if they were old without waiting).
fn now_ns() -> i64 {
    let (secs, nanos) = handover_base::clock::unix_now();
    i64::try_from(secs)
        .unwrap_or(i64::MAX)
        .saturating_mul(1_000_000_000)
        .saturating_add(i64::from(nanos))
}

#[cfg(test)]
impl LogCache {
    /// The files this run took from the cache.
    fn hits(&self) -> usize {
        lock(&self.used).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{listing, History};
    use handover_handoff::model::GitSnapshot;
    use handover_record::SessionRecord;
    use std::fs;

    /// Long after every file of the test was written: nothing is racy.
    const LATER_NS: i64 = i64::MAX / 2;

    fn handoff(root: &Path, id: &str, goal: &str) -> Handoff {
        let mut h = Handoff {
            schema_version: 1,
            id: id.into(),
            created_at: "2026-11-28T00:00:00Z".into(),
            agent: Some("codex".into()),
            git: Some(GitSnapshot {
                root: root.to_string_lossy().into_owned(),
                branch: Some("main".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        h.content.goal = goal.into();
        h.content.warnings = vec!["not listed, never cached".into()];
        handover_handoff::store::seal(&mut h);
        h
    }

    fn put(path: &Path, h: &Handoff) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_vec_pretty(h).unwrap()).unwrap();
    }

    /// A store with two sound archived handoffs, one whose checksum fails, one of another
    /// working tree, a record of this one and a record file that does not parse.
    fn store() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        fs::create_dir_all(&root).unwrap();
        let store = Store::at(&root);
        let archive = store.archive_dir();
        put(
            &archive.join("a.json"),
            &handoff(&root, "h1", "Parse the config"),
        );
        put(
            &archive.join("b.json"),
            &handoff(&root, "h2", "Export the report"),
        );
        let mut forged = handoff(&root, "h3", "Forged");
        forged.content.goal = "edited after the seal".into();
        put(&archive.join("c.json"), &forged);
        put(
            &archive.join("d.json"),
            &handoff(Path::new("/elsewhere"), "h4", "Another tree"),
        );
        let mut own = SessionRecord::new("sess-1", handover_clients::Agent::Claude);
        own.files_edited = vec!["src/lib.rs".into()];
        own.last_activity_ms = 1_795_000_000_000;
        handover_record::files::save(&store, &own).unwrap();
        let records = handover_record::files::dir(&store.dir());
        fs::write(records.join("torn.json"), b"{\"session_id\": ").unwrap();
        (tmp, store)
    }

    /// What a listing shows of a history: every item's listed facts and every problem.
    fn listed(h: &History) -> String {
        let items: Vec<String> = h
            .items
            .iter()
            .map(|i| {
                let doc = match &i.doc {
                    crate::item::Doc::Handoff(h) => format!("kind {:?}", h.content.kind),
                    crate::item::Doc::Record(r) => format!(
                        "{} {:?} {:?} {}",
                        r.agent.as_str(),
                        r.ended,
                        r.files_edited,
                        r.failure_left()
                    ),
                };
                format!(
                    "{} {} {} {:?} {} {:?} {:?} {:?} {:?} {doc}",
                    i.id,
                    i.origin.as_str(),
                    i.written_here,
                    i.foreign,
                    i.time_ms,
                    i.claimed_time,
                    i.branch,
                    i.agent,
                    i.fields
                        .iter()
                        .map(|f| (f.name, f.text.as_str()))
                        .collect::<Vec<_>>()
                )
            })
            .collect();
        format!("{items:#?}\n{:#?}\nunread {}", h.problems, h.unread)
    }

    fn cache(dir: &Path, store: &Store) -> LogCache {
        let mut cache = LogCache::in_dir(Some(dir), store);
        cache.now_ns = LATER_NS;
        cache
    }

    /// A listing through a cache under `dir`, saved after; the files it took from the cache.
    fn cached(dir: &Path, store: &Store) -> (String, usize) {
        let cache = cache(dir, store);
        let history = listing(store, 1_796_000_000_000, Some(&cache));
        let hits = cache.hits();
        cache.save();
        (listed(&history), hits)
    }

    fn uncached(store: &Store) -> String {
        listed(&listing(store, 1_796_000_000_000, None))
    }

    #[test]
    fn a_warm_cache_lists_what_a_cold_one_and_none_list_without_reading_again() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        let none = uncached(&store);
        assert!(none.contains("checksum mismatch"), "{none}");
        assert!(none.contains("another working tree"), "{none}");
        let (cold, cold_hits) = cached(&dir, &store);
        assert_eq!((cold.as_str(), cold_hits), (none.as_str(), 0));
        let (warm, warm_hits) = cached(&dir, &store);
        assert_eq!(warm, none);
        // Four archived files (the forged one's verdict too) and two record files.
        assert_eq!(warm_hits, 6, "every file from the cache");
        let stored =
            fs::read_to_string(LogCache::in_dir(Some(&dir), &store).path().unwrap()).unwrap();
        assert!(stored.contains("checksum mismatch"), "the verdict is kept");
        assert!(
            !stored.contains("not listed, never cached"),
            "only what a line shows is kept"
        );
        assert!(
            !store.dir().join("cache").exists()
                && fs::read_dir(tmp.path().join("repo")).unwrap().count() == 1,
            "nothing is written in the repository"
        );
    }

    #[test]
    fn a_file_changed_after_caching_is_read_again_even_with_its_old_size_and_time() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        cached(&dir, &store);
        let path = store.archive_dir().join("a.json");
        let before = fs::metadata(&path).unwrap();
        // Same length, same modification time, new content: only ctime (and here not the
        // inode) tells.
        let root = tmp.path().join("repo");
        let changed = handoff(&root, "h1", "Parse the CONFIG");
        // Rewritten in place (the same inode) until the status-change time moves on: the
        // kernel stamps it by a coarse clock, a few milliseconds a tick.
        let ctime = |m: &Metadata| Identity::of(m).ctime_ns;
        let mut rewrites = 0;
        while ctime(&fs::metadata(&path).unwrap()) == ctime(&before) && rewrites < 100_000 {
            put(&path, &changed);
            rewrites += 1;
        }
        let after = fs::metadata(&path).unwrap();
        assert_ne!(ctime(&after), ctime(&before));
        assert_eq!((after.len(), after.ino()), (before.len(), before.ino()));
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(before.modified().unwrap())
            .unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().modified().unwrap(),
            before.modified().unwrap()
        );
        let (warm, hits) = cached(&dir, &store);
        assert!(warm.contains("Parse the CONFIG"), "{warm}");
        assert_eq!(warm, uncached(&store));
        assert_eq!(hits, 5);
    }

    #[test]
    fn a_file_changed_just_now_is_not_cached() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        let mut cache = LogCache::in_dir(Some(&dir), &store);
        // Now is the files' own time: every one of them is racy.
        cache.now_ns =
            Identity::of(&fs::metadata(store.archive_dir().join("a.json")).unwrap()).ctime_ns + 1;
        listing(&store, 1_796_000_000_000, Some(&cache));
        cache.save();
        assert!(
            !LogCache::in_dir(Some(&dir), &store)
                .path()
                .unwrap()
                .exists(),
            "nothing to write"
        );
        assert!(Identity {
            size: 0,
            mtime_ns: 10 * RACY_NS,
            ctime_ns: 0,
            inode: 0
        }
        .racy(11 * RACY_NS - 1));
        assert!(!Identity {
            size: 0,
            mtime_ns: 10 * RACY_NS,
            ctime_ns: 0,
            inode: 0
        }
        .racy(11 * RACY_NS + 1));
    }

    #[test]
    fn a_damaged_foreign_or_huge_cache_is_ignored_and_rebuilt() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        let expected = uncached(&store);
        cached(&dir, &store);
        let path = LogCache::in_dir(Some(&dir), &store)
            .path()
            .unwrap()
            .to_path_buf();
        let good = fs::read(&path).unwrap();
        let text = String::from_utf8(good.clone()).unwrap();
        let other_root = text.replacen("\"root\":\"", "\"root\":\"/other", 1);
        let damaged: Vec<(&str, Vec<u8>)> = vec![
            ("truncated", good[..good.len() / 2].to_vec()),
            ("empty", Vec::new()),
            ("not JSON", b"\x00\xff garbage".to_vec()),
            (
                "another version",
                text.replacen("\"version\":1", "\"version\":99", 1).into(),
            ),
            ("another working tree", other_root.into()),
            (
                "a listing of another shape",
                text.replace("\"goal\":", "\"goal\":1,\"x\":").into(),
            ),
        ];
        for (what, bytes) in damaged {
            fs::write(&path, &bytes).unwrap();
            let (listed, hits) = cached(&dir, &store);
            assert_eq!(listed, expected, "{what}");
            assert_eq!(hits, 0, "{what}");
            assert_eq!(fs::read(&path).unwrap(), good, "{what}: rebuilt");
        }
        // Past the bound (a sparse file: its size is what counts).
        let huge = fs::File::create(&path).unwrap();
        huge.set_len(MAX_CACHE_BYTES + 1).unwrap();
        drop(huge);
        let (listed, hits) = cached(&dir, &store);
        assert_eq!((listed.as_str(), hits), (expected.as_str(), 0), "huge");
        assert_eq!(fs::read(&path).unwrap(), good, "huge: rebuilt");
        // A link where the cache is: not followed, and nothing breaks.
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let (listed, _) = cached(&dir, &store);
        assert_eq!(listed, expected);
    }

    #[test]
    fn a_record_reads_back_from_the_cache_as_it_was_listed() {
        let mut r = SessionRecord::new("sess-2", handover_clients::Agent::Codex);
        r.files_edited = vec!["a.rs".into(), "b.rs".into()];
        r.files_edited_total = 7;
        r.last_failure_passed_later = true;
        r.working_tree = "/some/tree".into();
        r.made_by = "handover".into();
        r.last_activity_ms = 5;
        // Not stored in a record (its file's name is): read from a file, it is empty.
        r.file_key.clear();
        for record in [r, SessionRecord::default()] {
            let listed = Listed::Record(Some(Box::new(record.clone())));
            let json = serde_json::to_string(&listed).unwrap();
            assert!(!json.contains("\"requests\""), "{json}");
            match serde_json::from_str::<Listed>(&json).unwrap() {
                Listed::Record(Some(back)) => assert_eq!(*back, record),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_cache_directory_that_cannot_be_written_means_no_cache() {
        let (tmp, store) = store();
        let expected = uncached(&store);
        // A file where the directory should be.
        let blocked = tmp.path().join("blocked");
        fs::write(&blocked, b"").unwrap();
        for _ in 0..2 {
            let (listed, hits) = cached(&blocked, &store);
            assert_eq!((listed.as_str(), hits), (expected.as_str(), 0));
        }
        let none = LogCache::in_dir(None, &store);
        assert!(none.path().is_none());
        assert_eq!(
            listed(&listing(&store, 1_796_000_000_000, Some(&none))),
            expected
        );
        none.save();
    }

    #[test]
    fn a_removed_file_is_dropped_and_a_secret_is_never_cached() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        let root = tmp.path().join("repo");
        // Written without `handover write`'s redaction: the goal holds a token.
        let secret = "ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeU";
        put(
            &store.archive_dir().join("e.json"),
            &handoff(&root, "h5", &format!("Rotate {secret}")),
        );
        let (cold, _) = cached(&dir, &store);
        let path = LogCache::in_dir(Some(&dir), &store)
            .path()
            .unwrap()
            .to_path_buf();
        let stored = fs::read_to_string(&path).unwrap();
        assert!(!stored.contains(secret), "{stored}");
        assert!(stored.contains("\"b.json\""));
        let (warm, hits) = cached(&dir, &store);
        assert_eq!(warm, cold);
        assert_eq!(hits, 6, "the file with the secret is read every time");
        fs::remove_file(store.archive_dir().join("b.json")).unwrap();
        let (after, _) = cached(&dir, &store);
        assert_eq!(after, uncached(&store));
        assert!(!fs::read_to_string(&path).unwrap().contains("\"b.json\""));
    }
}
