//! The one reader of the history: the current handoff, the archive, handoffs only the journal
//! still holds, session records, fetched handoffs (and the records that travelled with them),
//! and the journal's events. Bounded and hostile-safe: everything under `.handover/` goes
//! through the store's rules (`Store::check`, `safe_fs`: no link followed, plain files only,
//! size-capped reads), fetched ones through travel's reader (`handover_core::travel::fetched`),
//! records through `handover_record::files` with their provenance; what cannot be used is
//! skipped and said in [`History::problems`], never a panic.

use crate::cache::LogCache;
use crate::item::{handoff_fields, listed_handoff_fields, record_fields, Doc, Field, Item, Origin};
use crate::journal::Logged;
use handover_git::provenance::InHead;
use handover_git::LazyRepo;
use handover_handoff::model::Handoff;
use handover_handoff::safe_fs::{self, Refused};
use handover_handoff::sanitize;
use handover_handoff::store::{self, Event, Store, MAX_STATE_BYTES};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Entries of the archive directory looked at, whatever it holds.
pub const MAX_ARCHIVE_ENTRIES: usize = 20_000;
/// Bytes of archive files read in all: 10,000 handoffs of a few KB each are a few tens of MiB;
/// a hostile archive of thousands of 4 MiB files stops here, and says so.
pub const MAX_ARCHIVE_BYTES: u64 = 256 * 1024 * 1024;
/// How far past now (or past its file's time) an item's date may be before it counts as
/// claimed rather than known.
const FUTURE_SKEW_MS: u64 = 5 * 60 * 1000;

/// Whether a stored file's bytes are worth parsing ([`read_candidates`]); asked on several
/// threads at once.
pub type MayHold<'a> = dyn Fn(&[u8]) -> bool + Sync + 'a;

/// What the history holds.
#[derive(Debug, Default)]
pub struct History {
    /// Every handoff and record, newest first; each id once.
    pub items: Vec<Item>,
    /// The journal's lines, oldest first (at most its newest 64 MiB).
    pub events: Vec<Logged>,
    /// What was skipped or cut, and why: each names the place, in our words.
    pub problems: Vec<Problem>,
    /// `.handover/` is refused (a link, another user's, ...): nothing in it was read.
    pub refused: Option<Refused>,
    /// Archived handoffs and session records not parsed because [`read_candidates`]' test
    /// said they cannot matter (each file counted once; 0 for [`read`]). Only files that look
    /// sound are counted so: a JSON object with an id and a checksum (a handoff), braces at
    /// both ends (a record); anything less is parsed, and said or dropped as in [`read`].
    /// Their checksums are not checked: a well-formed file edited by hand is counted, not
    /// said.
    pub unread: usize,
}

/// Something in the history that was not used.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Where: a path relative to the working tree, or a fetched ref's remote and branch.
    pub place: String,
    pub what: String,
}

impl History {
    /// The item with exactly this id.
    pub fn item(&self, id: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.id == id)
    }
}

/// Everything the repository's history holds, read once. `now_ms`: what "now" is for
/// future-dated items (`handover_base::clock::millis(SystemTime::now())`).
pub fn read(store: &Store, now_ms: u64) -> History {
    read_within(
        store,
        now_ms,
        MAX_ARCHIVE_BYTES,
        &|_| true,
        Depth::Whole,
        None,
    )
}

/// [`read`] for a listing (`handover log`): the same items, problems and events, but each item
/// carries only the texts a listing shows — a handoff's goal in [`Item::fields`], a record's
/// agent, end, files edited and last failing command (`handover_record::files::listed_all`:
/// the rest of a record is dropped unread, not redacted). `show` and `search` read whole.
/// With a `cache`, what it holds of each archived handoff and record file that is unchanged
/// since it was cached is taken instead of reading the file again, and it is told what was read
/// (`crate::cache`: the same history either way); the caller saves the cache after.
pub fn listing(store: &Store, now_ms: u64, cache: Option<&LogCache>) -> History {
    read_within(
        store,
        now_ms,
        MAX_ARCHIVE_BYTES,
        &|_| true,
        Depth::Listing,
        cache,
    )
}

/// How much of each item a read keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Depth {
    Whole,
    Listing,
}

/// [`read`], going further than the bytes only for the archived handoffs and session records
/// that `may_hold` accepts (search's [`crate::search::Prefilter`]: only a file that could hold
/// a hit is worth parsing, checking and labelling); the others are counted in
/// [`History::unread`] and are neither listed nor checked. The current handoff, the journal
/// and fetched handoffs are read whole.
pub fn read_candidates(store: &Store, now_ms: u64, may_hold: &MayHold<'_>) -> History {
    read_within(
        store,
        now_ms,
        MAX_ARCHIVE_BYTES,
        may_hold,
        Depth::Whole,
        None,
    )
}

/// [`read_candidates`] with `archive_bytes` of archive files read at most.
fn read_within(
    store: &Store,
    now_ms: u64,
    archive_bytes: u64,
    may_hold: &MayHold<'_>,
    depth: Depth,
    cache: Option<&LogCache>,
) -> History {
    let mut history = History::default();
    if let Err(refused) = store.check() {
        history.refused = Some(refused);
        return history;
    }
    let mut reader = Reader {
        store,
        repo: LazyRepo::new(store.root()),
        here: canonical(store.root()),
        roots_here: std::cell::RefCell::new(std::collections::HashMap::new()),
        now_ms,
        seen: HashSet::new(),
        store_in_head: std::cell::OnceCell::new(),
        archive_bytes,
        may_hold,
        depth,
        cache,
        history,
    };
    reader.current();
    reader.archive();
    let journal = store.journal();
    reader.journal_only(&journal);
    reader.history.events = journal.iter().map(Logged::of).collect();
    reader.records();
    reader.fetched();
    let mut history = reader.history;
    // Newest first; ties by id, so the order never depends on the directory's.
    handover_base::order::sort_by(&mut history.items, |a, b| {
        b.time_ms.cmp(&a.time_ms).then_with(|| b.id.cmp(&a.id))
    });
    history
}

struct Reader<'s> {
    store: &'s Store,
    repo: LazyRepo<'s>,
    here: PathBuf,
    /// Whether a recorded root is this working tree, by the root as recorded (its text, then
    /// its bytes): thousands of handoffs name the same few roots, and resolving one costs a
    /// system call per component (looked up without copying the root).
    roots_here: std::cell::RefCell<RootsHere>,
    now_ms: u64,
    seen: HashSet<String>,
    /// HEAD has `.handover/` (see [`Reader::in_head`]); asked once.
    store_in_head: std::cell::OnceCell<bool>,
    /// Bytes of archive files read at most ([`MAX_ARCHIVE_BYTES`]).
    archive_bytes: u64,
    /// Whether an archived handoff's or a record's bytes are worth parsing.
    may_hold: &'s MayHold<'s>,
    depth: Depth,
    /// `handover log`'s cache of what archived and record files gave before.
    cache: Option<&'s LogCache>,
    history: History,
}

impl Reader<'_> {
    /// A file name is the repository's text too (it may hold an escape sequence): both parts
    /// are put on one line without controls here, once.
    fn problem(&mut self, place: impl Into<String>, what: impl Into<String>) {
        self.history.problems.push(Problem {
            place: sanitize::one_line(&place.into()),
            what: sanitize::one_line(&what.into()),
        });
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(self.store.root())
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    fn current(&mut self) {
        let path = self.store.state_path();
        let loaded = load(&path, None, None);
        if let Some((handoff, modified)) = self.take(&path, loaded) {
            self.add_local(handoff, Origin::Current, &path, modified);
        }
    }

    /// Every `*.json` of the archive (kept handover.md copies and temporary files are not
    /// handoffs); anything that is not a plain file is skipped and said.
    fn archive(&mut self) {
        let dir = self.store.archive_dir();
        match safe_fs::expect(&dir, safe_fs::Kind::Dir) {
            Ok(true) => {}
            Ok(false) => return,
            Err(refused) => {
                let place = self.relative(&dir);
                self.problem(place, format!("is {}: not read", refused.what));
                return;
            }
        }
        let Ok(entries) = fs::read_dir(&dir) else {
            return;
        };
        let mut names: Vec<(String, fs::DirEntry)> = Vec::new();
        let mut more = false;
        for (n, entry) in entries.flatten().enumerate() {
            if n >= MAX_ARCHIVE_ENTRIES {
                more = true;
                break;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || !name.ends_with(".json") {
                continue;
            }
            names.push((name, entry));
        }
        // Newest names first (they are stamps), so a budget that runs out leaves the oldest.
        names.sort_by(|a, b| b.0.cmp(&a.0));
        // The size and time as listed (no link followed), asked of the directory already open
        // (by name, on every core: thousands of them): a file over the cap is not opened at all
        // (the read below caps again, for a file that grows meanwhile), and the time that
        // bounds its handoff's costs no lookup of its whole path again.
        let names = handover_base::parallel::map(&names, |(_, entry)| {
            (entry.path(), entry.metadata().ok())
        });
        if more {
            let place = self.relative(&dir);
            self.problem(
                place,
                format!("holds more than {MAX_ARCHIVE_ENTRIES} entries: the rest were not read"),
            );
        }
        let mut budget = self.archive_bytes;
        let mut within = Vec::with_capacity(names.len());
        for (path, meta) in names {
            let size = meta.as_ref().map_or(0, fs::Metadata::len);
            if size > MAX_STATE_BYTES {
                let place = self.relative(&path);
                self.problem(
                    place,
                    format!(
                        "is larger than {} MiB: skipped",
                        MAX_STATE_BYTES / (1024 * 1024)
                    ),
                );
                continue;
            }
            if let Some(left) = budget.checked_sub(size) {
                budget = left;
            } else {
                let place = self.relative(&dir);
                self.problem(
                    place,
                    format!(
                        "holds more than {} MiB of handoffs: the oldest were not read",
                        self.archive_bytes / (1024 * 1024)
                    ),
                );
                break;
            }
            within.push((path, meta));
        }
        self.seen.reserve(within.len());
        self.history.items.reserve(within.len());
        // Read and parsed on every core (the most of `log`'s time), then taken in order; a
        // file the cache knows as it is now is not read.
        let may_hold = self.may_hold;
        let cache = self.cache;
        let loaded = handover_base::parallel::map(&within, |(path, meta)| {
            let modified = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .map(handover_base::clock::millis);
            if let (Some(cache), Some(meta), Some(modified)) = (cache, meta, modified) {
                match cache.archived(path, meta) {
                    Some(Ok(handoff)) => {
                        return (Loaded::Handoff(Box::new(handoff), modified), false)
                    }
                    Some(Err(why)) => return (Loaded::Invalid(why), false),
                    None => {}
                }
            }
            (load(path, Some(may_hold), modified), true)
        });
        for ((path, meta), (loaded, fresh)) in within.iter().zip(loaded) {
            if let (Some(cache), Some(meta)) = (cache, meta) {
                let verdict = match &loaded {
                    Loaded::Handoff(handoff, _) => Some(Ok(&**handoff)),
                    Loaded::Invalid(why) => Some(Err(why.as_str())),
                    _ => None,
                };
                cache.archived_listed(path, meta, verdict, fresh);
            }
            if let Some((handoff, modified)) = self.take(path, loaded) {
                let file = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.add_local(handoff, Origin::Archived { file }, path, modified);
            }
        }
    }

    /// A stored handoff file as [`load`] read it: the handoff, or nothing (said in
    /// [`History::problems`] when it is a problem; counted in [`History::unread`] when
    /// [`Reader::may_hold`] refused it).
    fn take(&mut self, path: &Path, loaded: Loaded) -> Option<(Handoff, u64)> {
        match loaded {
            Loaded::Nothing => None,
            Loaded::Problem(what) | Loaded::Invalid(what) => {
                let place = self.relative(path);
                self.problem(place, what);
                None
            }
            // Its id still counts as seen, so a copy of it (in the journal, in the archive) is
            // not listed in its place.
            Loaded::Unread(id) => {
                if self.seen.insert(id) {
                    self.history.unread += 1;
                }
                None
            }
            Loaded::Handoff(handoff, modified) => Some((*handoff, modified)),
        }
    }

    /// Handoffs the journal's `write` lines hold whose files are gone (archived and since
    /// removed), checked like a file (checksum, shape, controls).
    fn journal_only(&mut self, journal: &[serde_json::Value]) {
        for line in journal {
            if Event::of(line) != Some(Event::Write) {
                continue;
            }
            let Some(value) = line.get("handoff") else {
                continue;
            };
            let id = value.get("id").and_then(serde_json::Value::as_str);
            if id.is_none_or(|id| self.seen.contains(id)) {
                continue;
            }
            let Ok(bytes) = serde_json::to_vec(value) else {
                continue;
            };
            match store::parse_untrusted(&bytes) {
                Ok((handoff, _)) => {
                    let ts = Logged::of(line).time_ms;
                    self.add_handoff(handoff, Origin::Journal, ts, None);
                }
                Err(why) => {
                    let place = self.relative(&self.store.journal_path());
                    self.problem(place, format!("a `write` line's handoff is {why}: skipped"));
                }
            }
        }
    }

    /// A handoff from this store's files: written here when it records this working tree, was
    /// not adopted from another machine, and git does not have the file (a clone's).
    fn add_local(&mut self, handoff: Handoff, origin: Origin, path: &Path, modified: u64) {
        let rel = PathBuf::from(self.relative(path));
        let foreign = self.local_foreign(&handoff, &rel);
        self.add_handoff(handoff, origin, modified, Some(foreign));
    }

    fn local_foreign(&self, handoff: &Handoff, rel: &Path) -> Vec<String> {
        let mut why = Vec::new();
        match &handoff.git {
            Some(g) => {
                if !self.is_here(g) {
                    why.push("it was recorded in another working tree".to_string());
                }
                if let Some(machine) = &g.uncommitted_on {
                    why.push(format!(
                        "it was adopted from {}",
                        sanitize::quote_within(machine, 80)
                    ));
                }
            }
            None if self.repo.get().ok().flatten().is_some() => {
                why.push("it records no working tree".to_string());
            }
            None => {}
        }
        if why.is_empty() && self.in_head(rel) {
            why.push("git has it in the current commit (it came with the repository)".into());
        }
        why
    }

    /// The working tree a handoff recorded is this one (its path resolved, links followed).
    fn is_here(&self, git: &handover_handoff::model::GitSnapshot) -> bool {
        let known = self
            .roots_here
            .borrow()
            .get(git.root.as_str())
            .and_then(|by_bytes| by_bytes.get(&git.root_bytes))
            .copied();
        known.unwrap_or_else(|| {
            let here = canonical(&git.root_path()) == self.here;
            self.roots_here
                .borrow_mut()
                .entry(git.root.clone())
                .or_default()
                .insert(git.root_bytes.clone(), here);
            here
        })
    }

    /// `rel` is in HEAD's tree (a clone brought it). Asked file by file only when HEAD has
    /// `.handover/` at all: for the usual store (never committed) one look answers for the
    /// whole archive.
    fn in_head(&self, rel: &Path) -> bool {
        let Ok(Some(repo)) = self.repo.get() else {
            return false;
        };
        let root = self.store.root();
        let store_committed = *self
            .store_in_head
            .get_or_init(|| InHead::new(repo, root).has(Path::new(".handover")));
        store_committed && InHead::new(repo, root).has(rel)
    }

    /// `bound_ms`: the latest the handoff can have been written (its file's time, its journal
    /// line's); `foreign`: None for the journal (judged like the rest of this store by its
    /// recorded root alone).
    fn add_handoff(
        &mut self,
        handoff: Handoff,
        origin: Origin,
        bound_ms: u64,
        foreign: Option<Vec<String>>,
    ) {
        if !self.seen.insert(handoff.id.clone()) {
            return;
        }
        let foreign = foreign.unwrap_or_else(|| match &handoff.git {
            Some(g) if self.is_here(g) && g.uncommitted_on.is_none() => Vec::new(),
            _ => vec!["it was not recorded in this working tree".to_string()],
        });
        let (time_ms, claimed_time) = bounded_time(&handoff.created_at, bound_ms, self.now_ms);
        let fields = match self.depth {
            Depth::Listing => listed_handoff_fields(&handoff),
            Depth::Whole => handoff_fields(&handoff),
        };
        let written_here = foreign.is_empty();
        self.history.items.push(Item {
            id: handoff.id.clone(),
            origin,
            written_here,
            foreign,
            time_ms,
            claimed_time,
            branch: handoff.git.as_ref().and_then(|g| g.branch.clone()),
            agent: handoff.agent.clone(),
            fields: redacted_unless(written_here, fields),
            doc: Doc::Handoff(Box::new(handoff)),
        });
    }

    /// The session records (`handover_record::files`: plain files, size-capped, sanitized,
    /// judged for provenance). A record is dated by its last activity, never later than its
    /// file's time.
    fn records(&mut self) {
        // Only a sound file may go unparsed (see [`sound_record`]).
        let may_hold = self.may_hold;
        let judged = match self.depth {
            Depth::Listing => match self.cache {
                Some(cache) => {
                    handover_record::files::listed_all_known(self.store, self.now_ms, cache)
                }
                None => handover_record::files::listed_all(self.store, self.now_ms),
            },
            Depth::Whole => handover_record::files::judged_all(self.store, self.now_ms, &|bytes| {
                may_hold(bytes) || !sound_record(bytes)
            }),
        };
        for id in judged.unread {
            if self.seen.insert(id) {
                self.history.unread += 1;
            }
        }
        if let Some(cut) = judged.cut {
            let place = self.relative(&handover_record::files::dir(&self.store.dir()));
            self.problem(place, cut);
        }
        self.seen.reserve(judged.listed.len());
        self.history.items.reserve(judged.listed.len());
        for listed in judged.listed {
            let r = listed.record;
            let id = if r.file_key.is_empty() {
                handover_record::files::key(&r.session_id)
            } else {
                r.file_key.clone()
            };
            if !self.seen.insert(id.clone()) {
                continue;
            }
            let written_here = listed.foreign.is_empty();
            let fields = redacted_unless(written_here, record_fields(&r));
            let claimed = (r.activity_ms() > listed.rank.saturating_add(FUTURE_SKEW_MS))
                .then(|| handover_base::clock::format_rfc3339(r.activity_ms() / 1000));
            self.history.items.push(Item {
                origin: Origin::Record {
                    file: format!("{id}.json"),
                },
                id,
                written_here,
                foreign: listed
                    .foreign
                    .iter()
                    .map(|f| f.describe().to_string())
                    .collect(),
                time_ms: listed.rank,
                claimed_time: claimed,
                branch: r.git.as_ref().and_then(|g| g.branch.clone()),
                agent: Some(r.agent.as_str().to_string()).filter(|a| !a.is_empty()),
                fields,
                doc: Doc::Record(Box::new(r)),
            });
        }
    }

    /// Handoffs fetched from remotes (every branch), and the records that travelled with them:
    /// never written here. A fetched handoff that is also a local one (adopted) is listed once,
    /// as the local one.
    fn fetched(&mut self) {
        let root = self.store.root().to_path_buf();
        for fetched in handover_core::travel::fetched::everything(&root) {
            let f = match fetched {
                Ok(f) => f,
                Err((remote, branch, why)) => {
                    self.problem(
                        format!(
                            "the handoff fetched from remote {} for branch {}",
                            sanitize::quote(&remote),
                            sanitize::quote(&branch)
                        ),
                        format!("{}: skipped", sanitize::one_line(&why)),
                    );
                    continue;
                }
            };
            let origin = Origin::Fetched {
                remote: f.remote.clone(),
                machine: f.origin.machine.clone(),
                pushed_at: f.origin.pushed_at.clone(),
                commit: f.commit.clone(),
            };
            let pushed_ms = handover_base::clock::parse_rfc3339_ms(&f.origin.pushed_at)
                .unwrap_or(self.now_ms)
                .min(self.now_ms.saturating_add(FUTURE_SKEW_MS));
            let from = format!(
                "it was fetched from another machine ({})",
                sanitize::quote_within(&f.origin.machine_or_unnamed(), 80)
            );
            if let Some(record) = f.record.clone() {
                let id = format!(
                    "{}@{}",
                    handover_record::files::key(&record.session_id),
                    f.remote
                );
                if self.seen.insert(id.clone()) {
                    let activity = record.activity_ms();
                    let bound = pushed_ms.min(self.now_ms.saturating_add(FUTURE_SKEW_MS));
                    self.history.items.push(Item {
                        id,
                        origin: origin.clone(),
                        written_here: false,
                        foreign: vec![from.clone()],
                        time_ms: activity.min(bound),
                        claimed_time: (activity > bound.saturating_add(FUTURE_SKEW_MS))
                            .then(|| handover_base::clock::format_rfc3339(activity / 1000)),
                        branch: Some(f.branch.clone()),
                        agent: Some(record.agent.as_str().to_string()).filter(|a| !a.is_empty()),
                        fields: redacted_unless(false, record_fields(&record)),
                        doc: Doc::Record(Box::new(record)),
                    });
                }
            }
            let mut handoff = f.handoff;
            // The ref's branch is the one it travels for (checked); the document's own is the
            // other machine's word.
            if let Some(g) = &mut handoff.git {
                g.branch.get_or_insert_with(|| f.branch.clone());
            }
            self.add_handoff(handoff, origin, pushed_ms, Some(vec![from]));
        }
    }
}

/// What reading one stored handoff file gave, before anything is recorded: files are read on
/// several threads, then taken in order ([`Reader::take`]).
enum Loaded {
    /// Gone meanwhile.
    Nothing,
    /// Not used, and why (a problem to say): it could not be read.
    Problem(String),
    /// Not used, and why (a problem to say): its bytes are not a sound handoff (a verdict on
    /// the bytes, which the cache may remember).
    Invalid(String),
    /// Not parsed (`may_hold` refused its bytes): its id.
    Unread(String),
    Handoff(Box<Handoff>, u64),
}

/// A stored handoff file: a plain file (never through a link, never a FIFO), at most
/// `MAX_STATE_BYTES`, intact and of the handoff's shape (`store::parse_untrusted`: the checks
/// of state.json on load, controls stripped). `may_hold`: a file it refuses is not parsed
/// (its id alone is read; a file whose id cannot even be read goes the full way, and is said
/// as before). `modified`: the file's time as its directory listed it (None: asked here).
fn load(path: &Path, may_hold: Option<&MayHold<'_>>, modified: Option<u64>) -> Loaded {
    let bytes = match safe_fs::read_limited(path, MAX_STATE_BYTES) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Loaded::Nothing,
        Err(e) => {
            return Loaded::Problem(match safe_fs::refused(&e) {
                Some(r) => format!("is {}: skipped", r.what),
                None if e.kind() == std::io::ErrorKind::InvalidData => format!(
                    "is larger than {} MiB: skipped",
                    MAX_STATE_BYTES / (1024 * 1024)
                ),
                None => format!("cannot be read ({e}): skipped"),
            })
        }
    };
    if may_hold.is_some_and(|may_hold| !may_hold(&bytes)) {
        if let Some(id) = identified(&bytes) {
            return Loaded::Unread(id);
        }
    }
    match store::parse_untrusted(&bytes) {
        Ok((handoff, _)) => Loaded::Handoff(
            Box::new(handoff),
            modified.unwrap_or_else(|| modified_ms(path)),
        ),
        Err(why) => Loaded::Invalid(format!("{why}: skipped")),
    }
}

/// Whether a working tree's path as a handoff records it (`GitSnapshot::root`, then
/// `root_bytes`) is this working tree.
type RootsHere = std::collections::HashMap<String, std::collections::HashMap<Option<String>, bool>>;

/// The id and checksum of a stored handoff, read without the rest of it.
#[derive(serde::Deserialize)]
struct Identified {
    id: String,
    checksum: String,
}

/// The id of a stored handoff whose bytes are sound as far as a cheap look can tell (a JSON
/// object with an id and a checksum): what a file that is not parsed must be to be counted as
/// searched. Its checksum is not checked (that is the full parse, the cost being avoided): a
/// file edited by hand but still well formed is counted, unparsed, and only `log` or a search
/// that parses it says it is damaged. Anything less sound is parsed, and said as a problem.
fn identified(bytes: &[u8]) -> Option<String> {
    let object = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    let found = serde_json::from_slice::<Identified>(bytes).ok()?;
    (object && !found.checksum.is_empty()).then_some(found.id)
}

/// A session record's bytes look like one JSON object, braces at both ends: what a record
/// that is not parsed must be to be counted as searched (an empty, torn or truncated file is
/// parsed, and dropped and not counted as it would be anyway). A cheap look, not a parse: a
/// record damaged in its middle is counted unparsed.
fn sound_record(bytes: &[u8]) -> bool {
    let text = bytes.trim_ascii();
    text.first() == Some(&b'{') && text.last() == Some(&b'}')
}

/// Text not written here is redacted again before anything sees it (search matches on what
/// can be shown): a fetched handoff was redacted by the other machine's handover, a clone's by
/// whoever wrote it.
fn redacted_unless(written_here: bool, fields: Vec<Field>) -> Vec<Field> {
    if written_here {
        return fields;
    }
    fields
        .into_iter()
        .map(|f| Field {
            text: sanitize::redacted(&f.text),
            ..f
        })
        .collect()
}

/// The time an item is listed at: what it claims, never later than `bound_ms` (when it can
/// have been written at the latest) nor the near future; and what it claimed, when that was
/// later by more than the skew or did not parse.
fn bounded_time(claimed: &str, bound_ms: u64, now_ms: u64) -> (u64, Option<String>) {
    let bound = if bound_ms == 0 {
        now_ms
    } else {
        bound_ms.min(now_ms.saturating_add(FUTURE_SKEW_MS))
    };
    match handover_base::clock::parse_rfc3339_ms(claimed) {
        Some(ms) if ms <= bound.saturating_add(FUTURE_SKEW_MS) => (ms.min(bound), None),
        _ => (bound, Some(claimed.to_string())),
    }
}

fn modified_ms(path: &Path) -> u64 {
    fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .map(handover_base::clock::millis)
        .unwrap_or_else(|_| handover_base::clock::millis(UNIX_EPOCH))
}

fn canonical(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_future_or_unparsed_date_is_claimed_not_known() {
        let now = 2_000_000_000_000;
        assert_eq!(
            bounded_time("2001-09-09T01:46:40Z", now, now),
            (1_000_000_000_000, None)
        );
        let (t, claimed) = bounded_time("2099-01-01T00:00:00Z", now - 5, now);
        assert_eq!(
            (t, claimed.as_deref()),
            (now - 5, Some("2099-01-01T00:00:00Z"))
        );
        let (t, claimed) = bounded_time("yesterday", 42, now);
        assert_eq!((t, claimed.as_deref()), (42, Some("yesterday")));
    }
}

/// Also the fixtures of the cache's tests.
#[cfg(test)]
pub(crate) mod store_tests {
    use super::*;
    use handover_handoff::model::GitSnapshot;
    use handover_record::SessionRecord;
    use std::os::unix::fs::symlink;

    const NOW: u64 = 1_795_939_200_000; // 2026-11-29T08:00:00Z

    /// A field no listing shows (never kept in the cache either).
    pub(crate) const WARNING: &str = "the token format changed";

    /// A sealed handoff of the working tree at `root`, with a warning ([`WARNING`]).
    pub(crate) fn handoff(root: &Path, id: &str, created: &str, goal: &str) -> Handoff {
        let mut h = Handoff {
            schema_version: 1,
            id: id.into(),
            created_at: created.into(),
            agent: Some("codex".into()),
            git: Some(GitSnapshot {
                root: root.to_string_lossy().into_owned(),
                branch: Some("main".into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        h.content.goal = goal.into();
        h.content.warnings = vec![WARNING.into()];
        store::seal(&mut h);
        h
    }

    /// A store at the top of a temp dir of its own (nothing in it yet).
    fn temp_store() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::at(tmp.path());
        (tmp, store)
    }

    pub(crate) fn put(path: &Path, h: &Handoff) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_vec_pretty(h).unwrap()).unwrap();
    }

    fn ids(history: &History) -> Vec<(&str, &str)> {
        history
            .items
            .iter()
            .map(|i| (i.id.as_str(), i.origin.as_str()))
            .collect()
    }

    #[test]
    fn every_handoff_and_record_newest_first_each_once() {
        let (_tmp, store) = temp_store();
        let root = store.root();
        put(
            &store.state_path(),
            &handoff(root, "h3", "2026-11-29T07:00:00Z", "third"),
        );
        let archive = store.archive_dir();
        put(
            &archive.join("20261128T000000.000000000Z.json"),
            &handoff(root, "h2", "2026-11-28T00:00:00Z", "second"),
        );
        // The same id again (a copy): listed once.
        put(
            &archive.join("20261128T000000.000000001Z.json"),
            &handoff(root, "h2", "2026-11-28T00:00:00Z", "second"),
        );
        let only_in_journal = handoff(root, "h1", "2026-11-27T00:00:00Z", "first");
        let line = serde_json::json!({"ts": "2026-11-27T00:00:01Z", "event": "write",
            "id": "h1", "handoff": only_in_journal});
        fs::write(store.journal_path(), format!("{line}\n{{torn\n")).unwrap();
        let mut own = SessionRecord::new("sess-1", handover_clients_agent());
        own.requests = vec!["fix the login bug".into()];
        // The record's file is dated now: so is the reader's "now".
        let now = handover_base::clock::millis(std::time::SystemTime::now());
        own.last_activity_ms = now - 1000;
        handover_record::files::save(&store, &own).unwrap();

        let history = read(&store, now);
        assert!(history.problems.is_empty(), "{:?}", history.problems);
        assert_eq!(
            ids(&history),
            [
                ("sess-1", "record"),
                ("h3", "current"),
                ("h2", "archived"),
                ("h1", "journal")
            ]
        );
        assert!(history.items.iter().all(|i| i.written_here), "{history:?}");
        let h3 = history.item("h3").unwrap();
        assert_eq!(h3.field("goal"), Some("third"));
        assert_eq!(h3.field("warnings"), Some(WARNING));
        assert_eq!(
            (h3.branch.as_deref(), h3.agent.as_deref()),
            (Some("main"), Some("codex"))
        );
        assert_eq!(
            history.item("sess-1").unwrap().field("request"),
            Some("fix the login bug")
        );
        assert_eq!(history.events.len(), 1, "the torn line is skipped");
    }

    /// `log` reads a listing: the same items in the same order with the same labels, times,
    /// branches and agents, a handoff's goal, and of a record what a log line shows.
    #[test]
    fn the_listing_lists_what_the_full_read_lists() {
        let (_tmp, store) = temp_store();
        let root = store.root();
        put(
            &store.archive_dir().join("20261128T000000Z.json"),
            &handoff(root, "h1", "2026-11-28T00:00:00Z", "first"),
        );
        put(
            &store.archive_dir().join("20261127T000000Z.json"),
            &handoff(Path::new("/elsewhere"), "h0", "2026-11-27T00:00:00Z", "far"),
        );
        let mut r = SessionRecord::new("sess-1", handover_clients_agent());
        r.requests = vec!["fix the login bug".into()];
        r.files_edited = vec!["src/a.rs".into(), "src/b.rs".into()];
        r.files_edited_total = 5;
        let failed = handover_record::Command {
            command: "cargo test".into(),
            status: "failed".into(),
            exit_code: Some(101),
            test: true,
        };
        r.commands = vec![failed.clone()];
        r.last_failure = Some(failed);
        r.last_activity_ms = NOW - 1000;
        handover_record::files::save(&store, &r).unwrap();

        let full = read(&store, NOW);
        let listed = listing(&store, NOW, None);
        let summary = |h: &History| -> Vec<String> {
            h.items
                .iter()
                .map(|i| {
                    let record = match &i.doc {
                        Doc::Record(r) => format!(
                            "{:?} {:?} {} {:?} {}",
                            r.ended,
                            r.files_edited,
                            r.files_edited_total,
                            r.last_failure,
                            r.failure_left()
                        ),
                        Doc::Handoff(_) => String::new(),
                    };
                    format!(
                        "{} {} {} {:?} {} {:?} {:?} {:?} {:?} {record}",
                        i.id,
                        i.label(),
                        i.written_here,
                        i.foreign,
                        i.time_ms,
                        i.claimed_time,
                        i.branch,
                        i.agent,
                        i.field("goal"),
                    )
                })
                .collect()
        };
        assert_eq!(summary(&listed), summary(&full));
        assert_eq!(listed.problems, full.problems);
        assert_eq!(listed.items.len(), 3);
        // What a listing does not show is not read.
        let sess = listed.item("sess-1").unwrap();
        assert_eq!(sess.field("request"), None);
        assert_eq!(listed.item("h1").unwrap().fields.len(), 1);
    }

    #[test]
    fn an_archived_handoff_is_dated_no_later_than_its_file() {
        let (_tmp, store) = temp_store();
        let root = store.root();
        let set_time = |path: &Path, ms: u64| {
            let file = fs::File::options().write(true).open(path).unwrap();
            let at = UNIX_EPOCH + std::time::Duration::from_millis(ms);
            file.set_modified(at).unwrap();
        };
        let file_ms = 1_767_225_600_000; // 2026-01-01T00:00:00Z
                                         // Claims a day after its file was last written: listed at the file's time, the claim
                                         // said.
        let later = store.archive_dir().join("20261128T000000Z.json");
        put(
            &later,
            &handoff(root, "later", "2026-01-02T00:00:00Z", "claims later"),
        );
        set_time(&later, file_ms);
        // Claims a day before: listed at its claim.
        let earlier = store.archive_dir().join("20261127T000000Z.json");
        put(
            &earlier,
            &handoff(root, "earlier", "2025-12-31T00:00:00Z", "claims earlier"),
        );
        set_time(&earlier, file_ms);
        for history in [read(&store, NOW), listing(&store, NOW, None)] {
            let later = history.item("later").unwrap();
            assert_eq!(later.time_ms, file_ms);
            assert_eq!(later.claimed_time.as_deref(), Some("2026-01-02T00:00:00Z"));
            let earlier = history.item("earlier").unwrap();
            assert_eq!(earlier.time_ms, file_ms - 86_400_000);
            assert_eq!(earlier.claimed_time, None);
        }
    }

    fn handover_clients_agent() -> handover_clients::Agent {
        handover_clients::Agent::Claude
    }

    /// The ids the query matches in the history, as search's first pass finds them.
    fn matched(history: &History, query: &crate::search::Query) -> Vec<String> {
        use crate::search::{Document, Field as SearchField, Matcher, Weight};
        let mut matcher = Matcher::new(query);
        let mut ids: Vec<String> = history
            .items
            .iter()
            .filter(|item| {
                let doc = Document {
                    fields: item
                        .fields
                        .iter()
                        .map(|f| SearchField {
                            name: f.name,
                            weight: Weight::Context,
                            text: &f.text,
                        })
                        .collect(),
                    time: 0,
                };
                matcher.find(&doc).is_some()
            })
            .map(|item| item.id.clone())
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn the_prefiltered_read_finds_what_the_full_read_finds() {
        use handover_handoff::model::Decision;
        let (_tmp, store) = temp_store();
        let root = store.root();
        let archive = store.archive_dir();
        let mut n = 0;
        let mut archived = |h: &mut Handoff| {
            store::seal(h);
            n += 1;
            put(&archive.join(format!("202611{n:02}T000000Z.json")), h);
        };
        // Plain ASCII, each with some of the words searched for.
        for (i, goal) in [
            "Replace the Tokenizer",
            "Speed up the parser",
            "The token format changed",
        ]
        .iter()
        .enumerate()
        {
            let mut h = handoff(root, &format!("plain{i}"), "2026-11-20T00:00:00Z", goal);
            archived(&mut h);
        }
        // Accents (an unaccented word finds them), an escape (a line break), a control.
        let mut h = handoff(
            root,
            "accents",
            "2026-11-21T00:00:00Z",
            "Été: TOKENIZER à refaire",
        );
        archived(&mut h);
        // The phrase only once accents are off and case folded (and two spaces apart); and
        // its words only apart.
        let mut h = handoff(
            root,
            "folded-phrase",
            "2026-11-21T00:00:00Z",
            "the TOKÉN  Format moved",
        );
        h.content.warnings.clear();
        archived(&mut h);
        let mut h = handoff(root, "apart", "2026-11-21T00:00:00Z", "a token in a format");
        h.content.warnings.clear();
        archived(&mut h);
        let mut h = handoff(root, "escape", "2026-11-21T00:00:00Z", "token\nformat");
        h.content.narrative = Some("the token\nformat moved\tto tok\u{7}enizer".into());
        archived(&mut h);
        // Our own words around the stored text: alternatives, exit codes.
        let mut h = handoff(root, "decided", "2026-11-22T00:00:00Z", "Sessions");
        h.content.decisions = vec![Decision {
            what: "Use JWT".into(),
            why: "simpler to verify".into(),
            alternatives: vec!["opaque tokens".into()],
            ..Decision::default()
        }];
        archived(&mut h);
        // Written in another working tree, with a secret in plain text: redacted as it is read,
        // so its marker's words are in what search sees but not in the file.
        let mut h = handoff(
            Path::new("/elsewhere"),
            "foreign",
            "2026-11-23T00:00:00Z",
            "Deploy with ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeU",
        );
        archived(&mut h);
        // Records: one saved as the hooks save them, one planted with a secret.
        let mut r = handover_record::SessionRecord::new("sess-a", handover_clients_agent());
        r.requests = vec!["make the parser strip whitespace".into()];
        r.commands = vec![handover_record::Command {
            command: "cargo test".into(),
            status: "failed".into(),
            exit_code: Some(101),
            test: true,
        }];
        r.last_activity_ms = NOW - 5000;
        handover_record::files::save(&store, &r).unwrap();
        r.session_id = "sess-b".into();
        r.requests = vec!["rotate ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeU".into()];
        fs::write(
            handover_record::files::dir(&store.dir()).join("sess-b.json"),
            serde_json::to_vec(&r).unwrap(),
        )
        .unwrap();

        // The journal's copy of an archived handoff, and a copy of another's file: each listed
        // (and counted) once either way.
        let copy = handoff(
            root,
            "plain0",
            "2026-11-20T00:00:00Z",
            "Replace the Tokenizer",
        );
        let line = serde_json::json!({"ts": "2026-11-20T00:00:01Z", "event": "write",
            "id": "plain0", "handoff": copy});
        fs::write(store.journal_path(), format!("{line}\n")).unwrap();
        fs::copy(
            archive.join("20261102T000000Z.json"),
            archive.join("20261130T000000Z.json"),
        )
        .unwrap();

        // Records with the escapes and symbols a skipped file may hold, and a combining accent
        // (which folds away, joining letters): the one found by its folded word.
        r.session_id = "sess-c".into();
        r.requests = vec!["wc -l \"lexer.rs\"\nthen the parser — done…".into()];
        handover_record::files::save(&store, &r).unwrap();
        r.session_id = "sess-d".into();
        r.requests = vec!["rename the to\u{301}kenizer".into()];
        handover_record::files::save(&store, &r).unwrap();

        let full = read(&store, NOW);
        assert_eq!(full.unread, 0);
        let mut skipped_some = false;
        for q in [
            "tokenizer",
            "TOKENIZER",
            "ete",
            "été",
            "\"token format\"",
            "token format",
            "alternatives",
            "opaque",
            "exit",
            "\"exit 101\"",
            "failed",
            "github",
            "token",
            "redacted",
            "parser whitespace",
            "jwt verify",
            "nowhere-to-be-found",
            "enizer",
            "lexer",
            "\"lexer rs\"",
            "done",
        ] {
            let query = crate::search::Query::parse(q).unwrap();
            let prefilter = crate::search::Prefilter::of(&query);
            let candidates = read_candidates(&store, NOW, &|b| prefilter.may_match(b));
            assert_eq!(matched(&candidates, &query), matched(&full, &query), "{q}");
            assert_eq!(
                candidates.items.len() + candidates.unread,
                full.items.len(),
                "{q}"
            );
            skipped_some |= candidates.unread > 0;
        }
        assert!(skipped_some, "the prefilter never skipped a file");
        // The phrase skips the files where its words are only apart, and finds the one that
        // holds it only through folding.
        let query = crate::search::Query::parse("\"token format\"").unwrap();
        let prefilter = crate::search::Prefilter::of(&query);
        let candidates = read_candidates(&store, NOW, &|b| prefilter.may_match(b));
        assert!(candidates.item("apart").is_none() && full.item("apart").is_some());
        assert!(matched(&candidates, &query).contains(&"folded-phrase".to_string()));
    }

    #[test]
    fn a_hostile_archive_is_skipped_and_said_never_followed_or_waited_on() {
        let (tmp, store) = temp_store();
        let root = store.root();
        let archive = store.archive_dir();
        fs::create_dir_all(&archive).unwrap();
        let outside = tmp.path().join("secret.json");
        put(
            &outside,
            &handoff(root, "secret", "2026-11-28T00:00:00Z", "secret"),
        );
        symlink(&outside, archive.join("1-link.json")).unwrap();
        let fifo = archive.join("2-fifo.json");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // Sparse: 5 MiB that take no space.
        fs::File::create(archive.join("3-huge.json"))
            .unwrap()
            .set_len(5 * 1024 * 1024)
            .unwrap();
        fs::write(archive.join("4-utf8.json"), b"{\"goal\": \"\xff\xfe\"}").unwrap();
        let mut forged = handoff(root, "forged", "2026-11-28T00:00:00Z", "forged");
        forged.content.goal = "changed after sealing".into();
        put(&archive.join("5-forged.json"), &forged);
        let mut escapes = handoff(
            root,
            "esc",
            "2099-01-01T00:00:00Z",
            "a\u{1b}]0;title\u{7}b\u{1b}[2Jc\u{202E}d",
        );
        escapes.id = "esc".into();
        store::seal(&mut escapes);
        put(&archive.join("6-escapes.json"), &escapes);
        fs::write(archive.join("20261128T000000Z.md"), "kept markdown").unwrap();

        let history = read(&store, NOW);
        assert_eq!(ids(&history), [("esc", "archived")]);
        let esc = &history.items[0];
        assert_eq!(esc.field("goal"), Some("abcd"));
        assert_eq!(esc.claimed_time.as_deref(), Some("2099-01-01T00:00:00Z"));
        assert!(esc.time_ms <= NOW + FUTURE_SKEW_MS);
        let said: Vec<String> = history
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.place, p.what))
            .collect();
        let expect = [
            ("1-link.json", "a symbolic link"),
            ("2-fifo.json", "FIFO"),
            ("3-huge.json", "larger than 4 MiB"),
            ("4-utf8.json", "not valid JSON"),
            ("5-forged.json", "checksum mismatch"),
        ];
        for (file, what) in expect {
            assert!(
                said.iter().any(|s| s.contains(file) && s.contains(what)),
                "{file}: {said:#?}"
            );
        }
        assert_eq!(said.len(), expect.len(), "{said:#?}");
    }

    /// A file the prefilter rules out is counted as searched only when it looks sound: one
    /// that is not is parsed and said (a handoff) or dropped (a record) as the full read does;
    /// a well-formed one whose checksum does not hold is counted, unparsed, and not said.
    #[test]
    fn a_damaged_file_ruled_out_by_its_bytes_is_judged_as_far_as_is_cheap() {
        let (_tmp, store) = temp_store();
        let root = store.root();
        let archive = store.archive_dir();
        put(
            &archive.join("1-sound.json"),
            &handoff(root, "sound", "2026-11-28T00:00:00Z", "sound"),
        );
        let mut forged = handoff(root, "forged", "2026-11-28T00:00:00Z", "forged");
        forged.content.goal = "changed after sealing".into();
        put(&archive.join("2-forged.json"), &forged);
        let mut unsealed = handoff(root, "unsealed", "2026-11-28T00:00:00Z", "unsealed");
        unsealed.checksum = String::new();
        put(&archive.join("3-unsealed.json"), &unsealed);
        fs::write(archive.join("4-array.json"), br#"["an-id", "sha256:00"]"#).unwrap();
        fs::write(
            archive.join("5-torn.json"),
            br#"{"id": "torn", "checksum": "sha"#,
        )
        .unwrap();
        let records = handover_record::files::dir(&store.dir());
        fs::create_dir_all(&records).unwrap();
        fs::write(records.join("torn-record.json"), b"{\"session_id\": ").unwrap();
        fs::write(records.join("list-record.json"), b"[1, 2]").unwrap();
        let mut r = handover_record::SessionRecord::new("sess-ok", handover_clients_agent());
        r.requests = vec!["tidy up".into()];
        r.last_activity_ms = NOW - 5000;
        handover_record::files::save(&store, &r).unwrap();

        let query = crate::search::Query::parse("nowhere").unwrap();
        let prefilter = crate::search::Prefilter::of(&query);
        let candidates = read_candidates(&store, NOW, &|b| prefilter.may_match(b));
        let full = read(&store, NOW);
        assert!(candidates.items.is_empty(), "{:?}", ids(&candidates));
        // sound, forged, and the record: counted; the rest said as the full read says it.
        assert_eq!(candidates.unread, 3);
        let said = |h: &History| -> Vec<String> {
            let mut said: Vec<String> = h.problems.iter().map(|p| p.place.clone()).collect();
            said.sort();
            said
        };
        let mut full_said = said(&full);
        full_said.retain(|p| !p.contains("2-forged"));
        assert_eq!(said(&candidates), full_said);
        assert_eq!(said(&candidates).len(), 3, "{:?}", candidates.problems);
        assert!(said(&full).iter().any(|p| p.contains("2-forged")));
        assert_eq!(ids(&full), [("sess-ok", "record"), ("sound", "archived")]);
    }

    #[test]
    fn the_archive_is_read_newest_first_within_its_byte_budget() {
        let (_tmp, store) = temp_store();
        let root = store.root();
        let mut sizes = 0;
        for (n, id) in ["a1", "a2", "a3"].iter().enumerate() {
            let path = store.archive_dir().join(format!("2026112{n}T000000Z.json"));
            put(
                &path,
                &handoff(root, id, &format!("2026-11-2{n}T00:00:00Z"), id),
            );
            sizes = fs::metadata(&path).unwrap().len();
        }
        let history = read_within(&store, NOW, 2 * sizes + 10, &|_| true, Depth::Whole, None);
        assert_eq!(ids(&history), [("a3", "archived"), ("a2", "archived")]);
        assert_eq!(history.problems.len(), 1, "{:?}", history.problems);
        assert!(
            history.problems[0]
                .what
                .contains("the oldest were not read"),
            "{:?}",
            history.problems
        );
    }

    #[test]
    fn a_handoff_from_another_working_tree_and_a_refused_store_are_labelled() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::at(tmp.path());
        put(
            &store.state_path(),
            &handoff(Path::new("/elsewhere"), "h1", "2026-11-28T00:00:00Z", "g"),
        );
        let history = read(&store, NOW);
        let item = &history.items[0];
        assert!(!item.written_here);
        assert!(
            item.label()
                .contains("not written here (it was recorded in another working tree)"),
            "{}",
            item.label()
        );

        let linked = tempfile::tempdir().unwrap();
        symlink(
            tmp.path().join(".handover"),
            linked.path().join(".handover"),
        )
        .unwrap();
        let history = read(&Store::at(linked.path()), NOW);
        assert!(history.refused.is_some() && history.items.is_empty());
    }
}
