//! `handover log`'s cache: what a listing took from each archived handoff and session record
//! file, so that a file already listed is not read, parsed and checked again while it is the
//! same file. One file per working tree, kept OUTSIDE the repository (everything in the
//! repository is untrusted: a cache inside `.handover/` could be forged along with the files
//! it vouches for): `$HANDOVER_CACHE_DIR/log/<hash of the working tree's path>.cache`, by
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
//! Its shape is made for a warm `log`, which asks it about every file: a JSON header line,
//! then one line per file, `<part> TAB <name> TAB <size> TAB <mtime ns> TAB <ctime ns> TAB
//! <inode> TAB <listing as compact JSON>`, sorted by part and name. Loading only splits the
//! lines and their first six fields (no JSON is parsed, nothing is copied: names are found by
//! binary search in the bytes read); a file's listing is parsed when that file is asked for,
//! on the reader's thread, into values the listing then owns (nothing cloned). A line kept
//! from one run to the next is written back as it was read.
//!
//! Rules: a file changed within [`RACY_NS`] of now is not cached (its times could still be
//! shared by a later change, as git's index treats racy files); an archived handoff's text that
//! redaction would change is never written here (that file is read every time); the cache is
//! read within [`MAX_CACHE_BYTES`] and anything wrong with its shape (damaged, truncated, of
//! another version or another working tree, a name twice) makes it empty, never an error; a
//! line whose listing does not parse is a file read again; it is rewritten atomically
//! (temporary file and rename in its directory) only when something changed, holding only the
//! files listed in that run (a removed file is dropped); a cache directory that cannot be
//! written means no cache. Deleting it is always safe.

use handover_handoff::model::{GitSnapshot, Handoff, Kind};
use handover_handoff::safe_fs;
use handover_handoff::sanitize;
use handover_handoff::store::Store;
use handover_record::SessionRecord;
use serde::{Deserialize, Serialize};
use std::fs::Metadata;
use std::ops::Range;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The cache's format; a cache of any other is ignored (and rewritten).
const VERSION: u32 = 2;
/// A cache file larger than this is ignored (and not written): 20,000 files' listings take
/// about 10.4 MB.
pub const MAX_CACHE_BYTES: u64 = 64 * 1024 * 1024;
/// A file whose modification or status-change time is this close to now is not cached.
pub const RACY_NS: i64 = 2_000_000_000;
/// The variable that moves the cache (tests, sandboxes); empty: no cache.
pub const CACHE_DIR_VAR: &str = "HANDOVER_CACHE_DIR";
/// The cache file's extension (the first format's `.json` files are removed when a cache is
/// written).
const EXTENSION: &str = "cache";

/// Which directory of the store a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Archive,
    Records,
}

impl Part {
    /// Its word at the start of a line.
    fn word(self) -> &'static [u8] {
        match self {
            Part::Archive => b"archive",
            Part::Records => b"records",
        }
    }

    fn of_word(word: &[u8]) -> Option<Part> {
        [Part::Archive, Part::Records]
            .into_iter()
            .find(|p| p.word() == word)
    }
}

/// A file as it is on disk: any change to its content changes one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// What the listing took of an archived file.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum Archived {
    /// An archived handoff that passed every check.
    Handoff(ListedHandoff),
    /// An archived file that did not, and why (said on every run).
    Skipped(String),
}

/// The facts of an archived handoff that `handover log` lists and judges, already cleaned of
/// controls (`store::parse_untrusted`) and unchanged by redaction. Fields that are None are
/// left out.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct ListedHandoff {
    id: String,
    created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
    goal: String,
    kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    git: Option<ListedGit>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct ListedGit {
    root: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    root_bytes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    fn into_handoff(self) -> Handoff {
        let mut h = Handoff {
            id: self.id,
            created_at: self.created_at,
            agent: self.agent,
            git: self.git.map(|g| GitSnapshot {
                root: g.root,
                root_bytes: g.root_bytes,
                branch: g.branch,
                uncommitted_on: g.uncommitted_on,
                ..GitSnapshot::default()
            }),
            ..Handoff::default()
        };
        h.content.goal = self.goal;
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

/// A record's listed form as JSON without the top-level fields equal to
/// [`SessionRecord::default`]'s (`#[serde(default)]` puts them back on reading, so the record
/// reads back the same); `null`: the file did not parse.
fn record_json(record: Option<&SessionRecord>) -> Option<Vec<u8>> {
    static DEFAULT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    let Some(record) = record else {
        return Some(b"null".to_vec());
    };
    let mut value = serde_json::to_value(record).ok()?;
    let default =
        DEFAULT.get_or_init(|| serde_json::to_value(SessionRecord::default()).unwrap_or_default());
    if let (Some(fields), Some(default)) = (value.as_object_mut(), default.as_object()) {
        fields.retain(|name, v| default.get(name) != Some(v));
    }
    serde_json::to_vec(&value).ok()
}

/// Redaction leaves every one of `texts` as it is (the cache never holds what it would hide).
fn clean(texts: &[&str]) -> bool {
    texts.iter().all(|t| sanitize::redacted(t) == *t)
}

/// The cache's first line; then one line per file ([`Slot`]).
#[derive(Serialize, Deserialize)]
struct Header {
    version: u32,
    /// The working tree it is for (its canonical path), checked on reading.
    root: String,
    /// How many lines follow: a cache cut short at a line's end is not taken for a smaller one.
    files: usize,
}

/// One file's line of the cache as loaded: where its parts are in [`Known::bytes`].
struct Slot {
    part: Part,
    name: Range<usize>,
    identity: Identity,
    /// The listing's JSON, parsed when the file is asked for.
    listing: Range<usize>,
    /// The whole line without its line break, written back as it is when the file is kept.
    line: Range<usize>,
    /// Taken by this run (so kept at the next save).
    used: AtomicBool,
}

/// The cache as read: its bytes and one slot per line, sorted by part and name.
#[derive(Default)]
struct Known {
    bytes: Vec<u8>,
    slots: Vec<Slot>,
}

impl Known {
    fn name(&self, slot: &Slot) -> &[u8] {
        &self.bytes[slot.name.clone()]
    }

    fn find(&self, part: Part, name: &str) -> Option<&Slot> {
        let i = self
            .slots
            .binary_search_by(|s| (s.part, self.name(s)).cmp(&(part, name.as_bytes())))
            .ok()?;
        self.slots.get(i)
    }
}

/// A file read in this run, to be cached: its line, made when it was noted.
struct Fresh {
    part: Part,
    name: String,
    line: Vec<u8>,
}

/// The cache of one working tree for one run of `handover log`: read once, asked from the
/// readers' threads, written back at the end ([`LogCache::save`]) when something changed.
pub struct LogCache {
    /// Where it is kept; None: no cache (nothing is read or written).
    path: Option<PathBuf>,
    root: String,
    known: Known,
    /// The files read in this run (to be cached).
    fresh: Mutex<Vec<Fresh>>,
    /// Saved already: a second save has nothing of this run left to write.
    saved: AtomicBool,
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
        let path = dir.map(|d| d.join("log").join(file_name(&root_path, EXTENSION)));
        let known = path
            .as_deref()
            .and_then(|p| load(p, &root))
            .unwrap_or_default();
        LogCache {
            path,
            root,
            known,
            fresh: Mutex::new(Vec::new()),
            saved: AtomicBool::new(false),
            now_ns: now_ns(),
        }
    }

    /// Where the cache file is (whether it exists or not); None: no cache.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The listing of the file at `path` as cached, when the cache holds this very file (the
    /// same identity) and its listing parses as a `T`; the file is then kept at the next save.
    fn get<T: serde::de::DeserializeOwned>(
        &self,
        part: Part,
        path: &Path,
        meta: &Metadata,
    ) -> Option<T> {
        let name = path.file_name()?.to_str()?;
        let slot = self.known.find(part, name)?;
        if slot.identity != Identity::of(meta) {
            return None;
        }
        let listed = serde_json::from_slice(&self.known.bytes[slot.listing.clone()]).ok()?;
        slot.used.store(true, Ordering::Relaxed);
        Some(listed)
    }

    /// Notes a file read now, to be cached with its listing's JSON (unless racy, or unless its
    /// name cannot be one field of a line).
    fn note(&self, part: Part, path: &Path, meta: &Metadata, listing: &[u8]) {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let identity = Identity::of(meta);
        if identity.racy(self.now_ns) || name.bytes().any(|b| b == b'\t' || b == b'\n') {
            return;
        }
        let mut line = Vec::with_capacity(name.len() + listing.len() + 80);
        line.extend_from_slice(part.word());
        for field in [
            name.to_string(),
            identity.size.to_string(),
            identity.mtime_ns.to_string(),
            identity.ctime_ns.to_string(),
            identity.inode.to_string(),
        ] {
            line.push(b'\t');
            line.extend_from_slice(field.as_bytes());
        }
        line.push(b'\t');
        line.extend_from_slice(listing);
        lock(&self.fresh).push(Fresh {
            part,
            name: name.to_string(),
            line,
        });
    }

    /// An archived handoff file as listed before, when it is the same file: the handoff's
    /// listed facts, or why it was skipped.
    pub(crate) fn archived(&self, path: &Path, meta: &Metadata) -> Option<Result<Handoff, String>> {
        match self.get(Part::Archive, path, meta)? {
            Archived::Handoff(h) => Some(Ok(h.into_handoff())),
            Archived::Skipped(why) => Some(Err(why)),
        }
    }

    /// What an archived handoff file gave (`verdict`: the handoff, or why its bytes are not
    /// one; None when it is no verdict on its bytes, such as a file that could not be read):
    /// cached when every text of it is one redaction leaves as it is. `fresh`: read now (a
    /// file taken from the cache is kept already).
    pub(crate) fn archived_listed(
        &self,
        path: &Path,
        meta: &Metadata,
        verdict: Option<Result<&Handoff, &str>>,
        fresh: bool,
    ) {
        if !fresh {
            return;
        }
        let listed = match verdict {
            Some(Ok(h)) => {
                let listed = ListedHandoff::of(h);
                clean(&listed.texts()).then_some(Archived::Handoff(listed))
            }
            Some(Err(why)) => clean(&[why]).then(|| Archived::Skipped(why.to_string())),
            None => None,
        };
        if let Some(json) = listed.and_then(|l| serde_json::to_vec(&l).ok()) {
            self.note(Part::Archive, path, meta, &json);
        }
    }

    /// Writes the cache back when this run read a file it did not hold or no longer listed
    /// one it held: this run's files only. Best effort: a failure leaves the cache as it was
    /// (or missing), and says nothing. Once per run: a second call does nothing.
    pub fn save(&self) {
        let Some(path) = &self.path else {
            return;
        };
        if self.saved.swap(true, Ordering::Relaxed) {
            return;
        }
        let fresh = std::mem::take(&mut *lock(&self.fresh));
        let known = &self.known;
        let kept: Vec<&Slot> = known
            .slots
            .iter()
            .filter(|s| s.used.load(Ordering::Relaxed))
            .collect();
        if fresh.is_empty() && kept.len() == known.slots.len() {
            return;
        }
        let mut lines: Vec<(Part, &[u8], &[u8])> = kept
            .iter()
            .map(|s| (s.part, known.name(s), &known.bytes[s.line.clone()]))
            .chain(
                fresh
                    .iter()
                    .map(|f| (f.part, f.name.as_bytes(), f.line.as_slice())),
            )
            .collect();
        lines.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        // A name twice (a file both kept and read again cannot be: kept means not read).
        lines.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
        let header = Header {
            version: VERSION,
            root: self.root.clone(),
            files: lines.len(),
        };
        let Ok(mut bytes) = serde_json::to_vec(&header) else {
            return;
        };
        bytes.push(b'\n');
        for (_, _, line) in &lines {
            bytes.extend_from_slice(line);
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
        if safe_fs::replace(path, &bytes, false).is_ok() {
            // The first format's file of the same working tree, left over: no longer read.
            let first = path.with_extension("json");
            let _ = safe_fs::remove_file(&first);
        }
    }
}

impl handover_record::files::Known for LogCache {
    fn known(&self, path: &Path, meta: &Metadata) -> Option<Option<SessionRecord>> {
        self.get(Part::Records, path, meta)
    }

    fn listed(&self, path: &Path, meta: &Metadata, record: Option<&SessionRecord>, fresh: bool) {
        if !fresh {
            return;
        }
        if let Some(json) = record_json(record) {
            self.note(Part::Records, path, meta, &json);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The cache's file name for a working tree: a hash of its canonical path.
fn file_name(root: &Path, extension: &str) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    let digest = handover_handoff::hand_edits::digest(root.as_os_str().as_bytes());
    let hex = digest.trim_start_matches("sha256:");
    format!("{}.{extension}", &hex[..hex.len().min(32)])
}

/// The cache at `path` for the working tree `root`, or None when there is none that can be
/// used (missing, a link, too large, damaged, of another version or working tree).
fn load(path: &Path, root: &str) -> Option<Known> {
    let bytes = read(path)?;
    let header_end = memchr::memchr(b'\n', &bytes)?;
    let header: Header = serde_json::from_slice(&bytes[..header_end]).ok()?;
    if header.version != VERSION || header.root != root {
        return None;
    }
    // Bounded by the bytes (a line is at least one byte); the header's count is checked.
    let mut slots = Vec::with_capacity(header.files.min(bytes.len() / 16));
    let mut start = header_end + 1;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |n| start + n);
        slots.push(slot(&bytes, start..end)?);
        start = end + 1;
    }
    if slots.len() != header.files {
        return None;
    }
    // Written sorted; sorted again in case it was not (cheap when it is), and a name twice is
    // a cache that was not written by this code.
    slots.sort_by(|a, b| (a.part, &bytes[a.name.clone()]).cmp(&(b.part, &bytes[b.name.clone()])));
    let twice = slots
        .windows(2)
        .any(|w| (w[0].part, &bytes[w[0].name.clone()]) == (w[1].part, &bytes[w[1].name.clone()]));
    if twice {
        return None;
    }
    Some(Known { bytes, slots })
}

/// The cache file's bytes: a plain file (no link followed), read whole within
/// [`MAX_CACHE_BYTES`] into room for its size (megabytes: not grown and copied as it is read).
fn read(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let file = safe_fs::open_read(path).ok()??;
    let size = file.metadata().ok()?.len();
    if size > MAX_CACHE_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).ok()?.saturating_add(1));
    file.take(MAX_CACHE_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_CACHE_BYTES).then_some(bytes)
}

/// One line of the cache (`line`: its range in `bytes`, without the line break): its part,
/// name and identity read, its listing left as it is. None: not a line of this shape.
fn slot(bytes: &[u8], line: Range<usize>) -> Option<Slot> {
    let mut fields = [0usize..0, 0..0, 0..0, 0..0, 0..0, 0..0];
    let mut start = line.start;
    for field in &mut fields {
        let tab = memchr::memchr(b'\t', &bytes[start..line.end])?;
        *field = start..start + tab;
        start += tab + 1;
    }
    let [part, name, size, mtime, ctime, inode] = fields;
    let text = |r: Range<usize>| std::str::from_utf8(&bytes[r]).ok();
    if text(name.clone())?.is_empty() {
        return None;
    }
    Some(Slot {
        part: Part::of_word(&bytes[part])?,
        identity: Identity {
            size: text(size)?.parse().ok()?,
            mtime_ns: text(mtime)?.parse().ok()?,
            ctime_ns: text(ctime)?.parse().ok()?,
            inode: text(inode)?.parse().ok()?,
        },
        name,
        listing: start..line.end,
        line,
        used: AtomicBool::new(false),
    })
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
        self.known
            .slots
            .iter()
            .filter(|s| s.used.load(Ordering::Relaxed))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::store_tests::{handoff as dated_handoff, put, WARNING};
    use crate::read::{listing, History};
    use handover_record::SessionRecord;
    use std::fs;

    /// Long after every file of the test was written: nothing is racy.
    const LATER_NS: i64 = i64::MAX / 2;

    /// The read's fixture, every handoff of one day.
    fn handoff(root: &Path, id: &str, goal: &str) -> Handoff {
        dated_handoff(root, id, "2026-11-28T00:00:00Z", goal)
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
        assert!(!stored.contains(WARNING), "only what a line shows is kept");
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
        let lines: Vec<&str> = text.lines().collect();
        let with_lines = |lines: &[&str]| format!("{}\n", lines.join("\n")).into_bytes();
        let mut twice = lines.clone();
        twice.insert(2, lines[1]);
        let twice = with_lines(&twice).to_vec();
        let twice = String::from_utf8(twice).unwrap().replacen(
            &format!("\"files\":{}", lines.len() - 1),
            &format!("\"files\":{}", lines.len()),
            1,
        );
        let damaged: Vec<(&str, Vec<u8>)> = vec![
            ("truncated", good[..good.len() / 2].to_vec()),
            ("cut at a line's end", with_lines(&lines[..lines.len() - 1])),
            ("empty", Vec::new()),
            ("not JSON", b"\x00\xff garbage".to_vec()),
            (
                "another version",
                text.replacen("\"version\":2", "\"version\":99", 1).into(),
            ),
            ("another working tree", other_root.into()),
            ("a field short", text.replacen("\t", "", 1).into()),
            (
                "a size that is no number",
                text.replacen("json\t", "json\tx", 1).into(),
            ),
            (
                "another part",
                text.replacen("\narchive\t", "\nattic\t", 1).into(),
            ),
            ("a name twice", twice.into()),
        ];
        for (what, bytes) in damaged {
            fs::write(&path, &bytes).unwrap();
            let (listed, hits) = cached(&dir, &store);
            assert_eq!(listed, expected, "{what}");
            assert_eq!(hits, 0, "{what}");
            assert_eq!(fs::read(&path).unwrap(), good, "{what}: rebuilt");
        }
        // A listing that does not parse as one (its line's frame intact): that file is read
        // again and its line rewritten; the others are taken.
        fs::write(&path, text.replace("\"goal\":", "\"goal\":1,\"x\":")).unwrap();
        let (listed, hits) = cached(&dir, &store);
        assert_eq!(listed, expected, "a listing of another shape");
        // The three handoffs with a goal read again; the forged one's verdict and the two
        // records taken.
        assert_eq!(hits, 3, "a listing of another shape");
        assert_eq!(
            fs::read(&path).unwrap(),
            good,
            "a listing of another shape: rebuilt"
        );
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
            let json = record_json(Some(&record)).unwrap();
            let text = String::from_utf8(json.clone()).unwrap();
            assert!(!text.contains("\"requests\""), "{text}");
            let back: Option<SessionRecord> = serde_json::from_slice(&json).unwrap();
            assert_eq!(back, Some(record));
        }
        // A record file that did not parse: cached as such.
        let none: Option<SessionRecord> =
            serde_json::from_slice(&record_json(None).unwrap()).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn a_name_a_line_cannot_hold_is_read_every_time() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        let root = tmp.path().join("repo");
        put(
            &store.archive_dir().join("tab\there.json"),
            &handoff(&root, "h6", "Named with a tab"),
        );
        put(
            &store.archive_dir().join("line\nbreak.json"),
            &handoff(&root, "h7", "Named with a line break"),
        );
        let none = uncached(&store);
        assert!(none.contains("Named with a tab") && none.contains("line break"));
        let (cold, _) = cached(&dir, &store);
        let (warm, hits) = cached(&dir, &store);
        assert_eq!(
            (cold.as_str(), warm.as_str()),
            (none.as_str(), none.as_str())
        );
        assert_eq!(hits, 6, "every file but the two");
        let path = LogCache::in_dir(Some(&dir), &store)
            .path()
            .unwrap()
            .to_path_buf();
        let stored = fs::read_to_string(&path).unwrap();
        assert_eq!(stored.lines().count(), 7, "{stored}");
    }

    #[test]
    fn the_first_formats_file_is_removed_when_the_cache_is_written() {
        let (tmp, store) = store();
        let dir = tmp.path().join("cache");
        let path = LogCache::in_dir(Some(&dir), &store)
            .path()
            .unwrap()
            .to_path_buf();
        let first = path.with_extension("json");
        fs::create_dir_all(first.parent().unwrap()).unwrap();
        fs::write(&first, b"{\"version\":1}\n").unwrap();
        let (listed, hits) = cached(&dir, &store);
        assert_eq!((listed, hits), (uncached(&store), 0));
        assert!(path.exists() && !first.exists());
        // Only a plain file is removed: a link there stays (and is never followed).
        let target = tmp.path().join("target.json");
        fs::write(&target, b"kept").unwrap();
        std::os::unix::fs::symlink(&target, &first).unwrap();
        fs::remove_file(&path).unwrap();
        cached(&dir, &store);
        assert!(first.symlink_metadata().is_ok());
        assert_eq!(fs::read(&target).unwrap(), b"kept");
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
        assert!(stored.contains("\tb.json\t"));
        let (warm, hits) = cached(&dir, &store);
        assert_eq!(warm, cold);
        assert_eq!(hits, 6, "the file with the secret is read every time");
        fs::remove_file(store.archive_dir().join("b.json")).unwrap();
        let (after, _) = cached(&dir, &store);
        assert_eq!(after, uncached(&store));
        assert!(!fs::read_to_string(&path).unwrap().contains("\tb.json\t"));
    }
}
