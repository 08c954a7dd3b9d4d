//! The handoff on disk: `.handover/state.json` (canonical), `handover.md` (for people),
//! `.handover/journal.jsonl` (append-only), `.handover/archive/<stamp>.json` (previous ones).
//! Writes are atomic and serialized by a lock; loads never panic and fall back to the newest
//! intact journal entry or archive when state.json is damaged.

mod canonical;
mod history;
mod journal;
mod staged;

use crate::model::{Handoff, SCHEMA_VERSION};
use crate::safe_fs::{self, Kind, Refused};
use anyhow::{bail, Context};
use serde_json::{json, Value};
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

pub use canonical::{checksum_matches, checksum_of_value};
pub use journal::{Event, HOOK_LOCK_WAIT, MAX_JOURNAL_READ, MAX_RECOVERY_READ};

/// state.json and archive files larger than this are not read (a handoff is a few KB; even a
/// heavy one at its 5,000-token budget is far below this).
pub const MAX_STATE_BYTES: u64 = 4 * 1024 * 1024;

/// At most this many archive files are examined when looking for an intact handoff.
const MAX_ARCHIVE_CANDIDATES: usize = 200;
/// handover.md larger than this is not copied (redacted) to the archive: the command stops.
const MAX_KEPT_MARKDOWN_BYTES: u64 = 16 * 1024 * 1024;
/// ... and at most this many of their bytes, together, and no new file after
/// [`ARCHIVE_SCAN_TIME`]: a damaged state.json beside 200 archive files of 4 MiB each must not
/// keep the SessionStart hook reading past its watchdog (a real archive file is a few KB).
const MAX_ARCHIVE_BYTES_EXAMINED: u64 = 8 * 1024 * 1024;
const ARCHIVE_SCAN_TIME: Duration = Duration::from_millis(300);
/// Entries of the archive directory looked at, whatever it holds.
const MAX_ARCHIVE_ENTRIES: usize = 10_000;

/// What each entry of `.handover/` must be when it exists. Anything else there (a link, a
/// FIFO, a directory where a file belongs) makes the whole store refused: a cloned repository
/// chooses what is in its `.handover/`.
const LAYOUT: [(&str, Kind); 9] = [
    ("state.json", Kind::File),
    ("history.json", Kind::File),
    ("journal.jsonl", Kind::File),
    ("journal.lock", Kind::File),
    ("lock", Kind::File),
    ("config.toml", Kind::File),
    ("archive", Kind::Dir),
    ("sessions", Kind::Dir),
    ("records", Kind::Dir),
];

/// Where a handoff lives: the top of the working tree (each git worktree has its own).
#[derive(Clone, Debug)]
pub struct Store {
    root: PathBuf,
    /// The layout check's verdict once `.handover/` exists: checked once per `Store` (one hook
    /// call, one command), not once per load, append and record. Each file is still opened
    /// without following links, so a change after the check cannot redirect a read or write.
    checked: OnceLock<Result<(), Refused>>,
}

/// Where a loaded handoff came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    State,
    Journal,
    Archive,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::State => "state",
            Source::Journal => "journal",
            Source::Archive => "archive",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Loaded {
    pub handoff: Handoff,
    pub source: Source,
    /// Why state.json was not used (corrupt, truncated, checksum mismatch...), when it wasn't.
    pub problem: Option<String>,
}

impl Loaded {
    /// What a reader must be told when the handoff did not come from an intact state.json
    /// (the one wording for `boot`, `status` and the startup context).
    pub fn recovered_note(&self) -> Option<String> {
        match self.source {
            Source::State => self.problem.clone(),
            from => Some(format!(
                "state.json could not be used ({}); this handoff was recovered from the {}.",
                self.problem.as_deref().unwrap_or("damaged"),
                from.as_str()
            )),
        }
    }
}

#[derive(Clone, Debug)]
// Built once per process and matched immediately: boxing would only add noise.
#[allow(clippy::large_enum_variant)]
pub enum LoadOutcome {
    /// No handoff at all.
    Missing,
    Loaded(Loaded),
    /// state.json exists but is damaged, and nothing intact was found to fall back on.
    Unrecoverable {
        problem: String,
    },
    /// `.handover/` (or an entry in it, or handover.md) is not what handover creates: a link,
    /// a FIFO, another user's directory. Nothing in it was read.
    Refused(Refused),
}

#[derive(Clone, Debug, Default)]
pub struct SaveReport {
    /// Where the previous handoff was moved, if there was one.
    pub archived: Option<PathBuf>,
    /// Where the replaced handover.md was copied because it held words no handoff records
    /// (hand edits, or a file of the user's that was there before the first write).
    pub kept_markdown: Option<PathBuf>,
}

/// What `finish` did.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    pub archived: PathBuf,
    /// Where handover.md was copied because it held edits the handoff does not record.
    pub kept_markdown: Option<PathBuf>,
}

/// How long a writer waits for another writer's lock before giving up with an error. A write
/// holds it for the time of one `git status`: milliseconds, seconds in a huge repository.
pub const WRITE_LOCK_WAIT: Duration = Duration::from_secs(10);

/// The store's write lock, held from the first read of a read-modify-write to the last rename.
/// Released when dropped.
pub struct Transaction<'a> {
    store: &'a Store,
    _lock: journal::Lock,
}

/// Files created on the way to a commit point, removed again if it is never reached.
#[derive(Default)]
struct Undo(Vec<PathBuf>);

impl Undo {
    fn disarm(mut self) {
        self.0.clear();
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = fs::remove_file(path);
        }
    }
}

impl Transaction<'_> {
    /// The current handoff, read under the lock.
    pub fn load(&self) -> LoadOutcome {
        self.store.load()
    }

    /// Archive the previous state.json, append a `write` event (with the full handoff) to the
    /// journal, then put state.json and handover.md in place.
    ///
    /// The handoff is sealed (checksum recomputed) before it is stored. Both new files are
    /// written and synced under temporary names first, so a directory that cannot be written
    /// fails before anything changed; the journal append is the commit point, and the two
    /// renames after it replace the files atomically (docs/storage.md). A handover.md holding
    /// words neither the previous nor the new handoff records is copied to the archive first.
    pub fn save(self, handoff: &Handoff, markdown: &str) -> anyhow::Result<SaveReport> {
        let store = self.store;
        let mut handoff = handoff.clone();
        seal(&mut handoff);
        let mut state =
            serde_json::to_vec_pretty(&handoff).context("cannot serialize the handoff")?;
        state.push(b'\n');
        if state.len() as u64 > MAX_STATE_BYTES {
            bail!(
                "the handoff is {} bytes as JSON, over the {} MiB limit: keep pointers, not contents",
                state.len(),
                MAX_STATE_BYTES / (1024 * 1024)
            );
        }
        let value = serde_json::to_value(&handoff).context("cannot serialize the handoff")?;

        let state_path = store.state_path();
        let markdown_path = store.markdown_path();
        let staged_state = staged::stage(&state_path, &state)
            .with_context(|| format!("cannot write {}", state_path.display()))?;
        let staged_markdown = staged::stage(&markdown_path, markdown.as_bytes())
            .with_context(|| format!("cannot write {}", markdown_path.display()))?;

        let previous = match store.load() {
            LoadOutcome::Loaded(l) => Some(l.handoff),
            _ => None,
        };
        let mut undo = Undo::default();
        let archived = store.archive_current()?;
        undo.0.extend(archived.clone());
        let keep = {
            let known: Vec<&Handoff> = previous.iter().chain([&handoff]).collect();
            crate::hand_edits::must_keep(&markdown_path, &known)
        };
        let kept_markdown = if keep {
            let kept = store.keep_markdown(archived.as_deref())?;
            undo.0.extend(kept.clone());
            kept
        } else {
            None
        };

        let mut fields = json!({ "id": handoff.id });
        if let Some(path) = &archived {
            fields["archived"] = Value::String(store.relative(path));
        }
        if let Some(path) = &kept_markdown {
            fields["kept_markdown"] = Value::String(store.relative(path));
        }
        fields["handoff"] = value;
        store.append_line(&journal::event_line(Event::Write, fields)?, None, true)?;
        undo.disarm();

        staged_state
            .commit()
            .with_context(|| format!("cannot write {}", state_path.display()))?;
        staged_markdown
            .commit()
            .with_context(|| format!("cannot write {}", markdown_path.display()))?;
        store.after_archiving(archived.as_deref());
        Ok(SaveReport {
            archived,
            kept_markdown,
        })
    }

    /// The task is finished: archive the handoff (and handover.md when it holds edits the
    /// handoff does not record), journal `done`, remove handover.md and state.json. None
    /// (changing nothing) when there was no handoff. A damaged state.json is archived as it
    /// is, so nothing is lost. Both files are moved aside before the journal says `done` and
    /// moved back if anything fails, so a failed `done` changes nothing.
    pub fn finish(self) -> anyhow::Result<Option<Finished>> {
        let store = self.store;
        let current = match store.load() {
            LoadOutcome::Loaded(l) => Some(l.handoff),
            _ => None,
        };
        let Some(archived) = store.archive_current()? else {
            return Ok(None); // removed by someone else while we waited for the lock
        };
        let mut undo = Undo(vec![archived.clone()]);
        let markdown_path = store.markdown_path();
        let kept_markdown =
            if crate::hand_edits::must_keep(&markdown_path, &current.iter().collect::<Vec<_>>()) {
                let kept = store.keep_markdown(Some(&archived))?;
                undo.0.extend(kept.clone());
                kept
            } else {
                None
            };

        let pid = std::process::id();
        let state_path = store.state_path();
        let state_aside = store.dir().join(format!(".state.json.tmp.done.{pid}"));
        fs::rename(&state_path, &state_aside)
            .with_context(|| format!("cannot remove {}", state_path.display()))?;
        let markdown_aside = store.root.join(format!(".handover.md.tmp.done.{pid}"));
        let markdown_moved = exists(&markdown_path);
        let put_back = || {
            let _ = fs::rename(&state_aside, &state_path);
            if markdown_moved {
                let _ = fs::rename(&markdown_aside, &markdown_path);
            }
        };
        if markdown_moved {
            if let Err(e) = fs::rename(&markdown_path, &markdown_aside) {
                let _ = fs::rename(&state_aside, &state_path);
                return Err(e)
                    .with_context(|| format!("cannot remove {}", markdown_path.display()));
            }
        }

        let id = read_document(&archived).ok().flatten().map(|(h, _)| h.id);
        let mut fields = json!({ "archived": store.relative(&archived), "id": id });
        if let Some(path) = &kept_markdown {
            fields["kept_markdown"] = Value::String(store.relative(path));
        }
        let journaled = journal::event_line(Event::Done, fields)
            .and_then(|line| store.append_line(&line, None, true));
        if let Err(e) = journaled {
            put_back();
            return Err(e);
        }
        undo.disarm();
        store.after_archiving(Some(&archived));
        // Past the commit point: what is left are our own temporary names, swept by the next
        // writer if removing them fails now.
        let _ = fs::remove_file(&state_aside);
        if markdown_moved {
            let _ = fs::remove_file(&markdown_aside);
        }
        if let Ok(dir) = File::open(store.dir()) {
            let _ = dir.sync_all();
        }
        Ok(Some(Finished {
            archived,
            kept_markdown,
        }))
    }
}

impl Store {
    pub fn at(root: impl Into<PathBuf>) -> Store {
        Store {
            root: root.into(),
            checked: OnceLock::new(),
        }
    }

    /// The store for a directory: the enclosing git working tree's top (found by walking up to
    /// a `.git` file or directory, no git library involved), else the nearest ancestor with a
    /// `.handover/` directory, else `start` itself.
    pub fn discover(start: &Path) -> Store {
        Store::at(crate::worktree::find_root(start).unwrap_or_else(|| start.to_path_buf()))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn dir(&self) -> PathBuf {
        self.root.join(".handover")
    }
    pub fn state_path(&self) -> PathBuf {
        self.dir().join("state.json")
    }
    pub fn markdown_path(&self) -> PathBuf {
        self.root.join("handover.md")
    }
    pub fn journal_path(&self) -> PathBuf {
        self.dir().join("journal.jsonl")
    }
    pub fn archive_dir(&self) -> PathBuf {
        self.dir().join("archive")
    }
    pub fn config_path(&self) -> PathBuf {
        self.dir().join("config.toml")
    }
    /// Per-session hook state lives here (owned by the hooks crate).
    pub fn sessions_dir(&self) -> PathBuf {
        self.dir().join("sessions")
    }

    /// The exclusive lock every writer of state.json, handover.md and the archive takes.
    pub fn lock_path(&self) -> PathBuf {
        self.dir().join("lock")
    }
    /// The exclusive lock held for the moment of one journal append.
    pub fn journal_lock_path(&self) -> PathBuf {
        self.dir().join("journal.lock")
    }

    /// Checks `.handover/` before anything in it is used: missing, or a plain directory of the
    /// current user whose known entries are of the right type, and `handover.md` a plain file
    /// when present. `Ok(false)` when `.handover/` does not exist.
    /// The answer is kept once `.handover/` exists (or was refused); while it does not, each
    /// call looks again (a write may have created it since).
    pub fn check(&self) -> Result<bool, Refused> {
        if let Some(verdict) = self.checked.get() {
            return verdict.clone().map(|()| true);
        }
        let verdict = self.check_layout();
        match &verdict {
            Ok(false) => {}
            Ok(true) => {
                let _ = self.checked.set(Ok(()));
            }
            Err(refused) => {
                let _ = self.checked.set(Err(refused.clone()));
            }
        }
        verdict
    }

    fn check_layout(&self) -> Result<bool, Refused> {
        safe_fs::expect(&self.markdown_path(), Kind::File)?;
        let dir = self.dir();
        if !safe_fs::expect_own_dir(&dir)? {
            return Ok(false);
        }
        for (name, kind) in LAYOUT {
            safe_fs::expect(&dir.join(name), kind)?;
        }
        Ok(true)
    }

    /// [`Store::check`], then creates `.handover/` (and `sub`, when given) if missing.
    fn prepare(&self, sub: Option<&Path>) -> anyhow::Result<()> {
        self.check()?;
        let dir = self.dir();
        safe_fs::ensure_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        if let Some(sub) = sub {
            safe_fs::ensure_dir(sub).with_context(|| format!("cannot create {}", sub.display()))?;
        }
        Ok(())
    }

    /// Appends one line under the journal lock (waiting at most `wait`, or for as long as it
    /// takes when None), then fsyncs it after letting go of the lock when `durable`.
    fn append_line(
        &self,
        line: &[u8],
        wait: Option<std::time::Duration>,
        durable: bool,
    ) -> anyhow::Result<()> {
        let path = self.journal_path();
        let file = {
            let lock_path = self.journal_lock_path();
            let _lock = match wait {
                Some(max) => journal::lock_bounded(&lock_path, max)?,
                None => journal::lock(&lock_path)?,
            };
            journal::append(&path, line)
                .with_context(|| format!("cannot append to {}", path.display()))?
        };
        if durable {
            file.sync_data()
                .with_context(|| format!("cannot sync {}", path.display()))?;
        }
        Ok(())
    }

    /// Never panics, never blocks on the lock (writes are atomic renames, so a reader sees the
    /// old or the new state.json, never a mix). A damaged state.json falls back to the newest
    /// intact handoff in the journal or the archive. A missing one is `Missing`, even when the
    /// journal holds earlier handoffs: `handover done` removes it on purpose.
    pub fn load(&self) -> LoadOutcome {
        if let Err(refused) = self.check() {
            return LoadOutcome::Refused(refused);
        }
        let state_problem = match read_document(&self.state_path()) {
            Ok(None) => return LoadOutcome::Missing,
            Ok(Some((handoff, note))) => {
                return LoadOutcome::Loaded(Loaded {
                    handoff,
                    source: Source::State,
                    problem: note,
                })
            }
            Err(problem) => format!("state.json: {problem}"),
        };
        match self.newest_intact() {
            Some((handoff, source)) => LoadOutcome::Loaded(Loaded { handoff, source, problem: Some(state_problem) }),
            None => LoadOutcome::Unrecoverable {
                problem: format!(
                    "{state_problem}; no intact handoff in the journal or the archive to fall back on \
                     (record a new one with `handover write`)"
                ),
            },
        }
    }

    /// Takes the store's write lock, waiting at most [`WRITE_LOCK_WAIT`] for another writer,
    /// for a whole read-modify-write: load, decide, then `save` or `finish` under the same lock,
    /// so two concurrent writers never base their update on the same old handoff.
    pub fn begin(&self) -> anyhow::Result<Transaction<'_>> {
        self.prepare(Some(&self.archive_dir()))?;
        let lock = journal::lock_bounded(&self.lock_path(), WRITE_LOCK_WAIT)
            .context("another `handover write` or `handover done` is still running")?;
        self.sweep_temp_files();
        Ok(Transaction {
            store: self,
            _lock: lock,
        })
    }

    /// `begin` then [`Transaction::save`]: for callers that do not read first.
    pub fn save(&self, handoff: &Handoff, markdown: &str) -> anyhow::Result<SaveReport> {
        self.begin()?.save(handoff, markdown)
    }

    /// Appends one event line `{"ts": ..., "event": <event>, ...fields}` to the journal.
    /// `fields` must be a JSON object (or null); every string in it is redacted here, in one
    /// place, so no field can be forgotten: an event's texts come from a client's input (a
    /// trigger, a transcript path, a session id), from the repository (a branch, a remote) or
    /// from a fetched handoff. Waits at most [`HOOK_LOCK_WAIT`] for the
    /// journal lock (held by others only for the moment of an append), then gives up with an error: hooks call this and must never hang. Creates `.handover/`
    /// if needed, so call it only where a handoff is expected.
    pub fn append_journal(&self, event: Event, mut fields: Value) -> anyhow::Result<()> {
        journal::redact_strings(&mut fields);
        let line = journal::event_line(event, fields)?;
        self.prepare(None)?;
        self.append_line(&line, Some(HOOK_LOCK_WAIT), false)
    }

    /// Journal events, oldest first; unparseable lines are skipped. Reads at most the newest
    /// [`MAX_JOURNAL_READ`] bytes.
    pub fn journal(&self) -> Vec<serde_json::Value> {
        journal::read(&self.journal_path())
    }

    /// Journal lines newest first, unparsed, until `visit` answers false: for a reader that
    /// needs only the recent end of the journal (its cost is what it reads, not the journal's
    /// length). Within the newest [`MAX_JOURNAL_READ`] bytes, as [`Store::journal`].
    pub fn journal_newest_first(&self, visit: impl FnMut(&[u8]) -> bool) {
        journal::newest_first(&self.journal_path(), MAX_JOURNAL_READ, visit);
    }

    /// The task is finished: see [`Transaction::finish`]. None (changing nothing) when there is
    /// no handoff.
    pub fn finish(&self) -> anyhow::Result<Option<Finished>> {
        self.check()?;
        if !exists(&self.state_path()) {
            return Ok(None);
        }
        self.begin()?.finish()
    }

    /// Keeps handover.md's words in the archive, next to `beside` (`<stamp>.md` for
    /// `<stamp>.json`) or under a fresh stamp. The caller holds the lock.
    ///
    /// The copy is redacted like every handoff field: a secret pasted into handover.md and
    /// redacted from the handoff by `write --from handover.md` must not survive beside it.
    /// Everything else is kept as written (a file that is not UTF-8 is kept with U+FFFD for
    /// its stray bytes, the only way to redact it); a file too large to redact stops the
    /// command before anything changed, naming it.
    fn keep_markdown(&self, beside: Option<&Path>) -> anyhow::Result<Option<PathBuf>> {
        let dir = self.archive_dir();
        let stem = beside
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(handover_base::clock::now_compact);
        let source = self.markdown_path();
        let bytes = match safe_fs::read_limited(&source, MAX_KEPT_MARKDOWN_BYTES) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(e) => bail!(
                "cannot keep a copy of {} before replacing it ({e}); move it out of the way, or \
                 shorten it, and run the command again",
                source.display()
            ),
        };
        let (redacted, _) = handover_redact::redact_text(&String::from_utf8_lossy(&bytes));
        let target = free_name(&dir, &stem, "md");
        self.write_to_archive(&source, redacted.as_bytes(), target)
            .map(Some)
    }

    /// Copies state.json, byte for byte (damaged or not), to a new archive file. The caller
    /// holds the lock, which is what makes the chosen name unique.
    fn archive_current(&self) -> anyhow::Result<Option<PathBuf>> {
        let state = self.state_path();
        match fs::metadata(&state) {
            Ok(m) if m.is_file() => {}
            // Nothing to keep: missing, or not a file (opening a FIFO to copy it would hang).
            _ => return Ok(None),
        }
        let target = free_archive_name(&self.archive_dir(), &handover_base::clock::now_compact());
        self.copy_to_archive(&state, target)
    }

    /// Writes `bytes` (kept from `source`) to `target` in the archive through a synced
    /// temporary file.
    fn write_to_archive(
        &self,
        source: &Path,
        bytes: &[u8],
        target: PathBuf,
    ) -> anyhow::Result<PathBuf> {
        use std::io::Write;
        let dir = self.archive_dir();
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
        let written = (|| -> io::Result<()> {
            let mut to = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            to.write_all(bytes)?;
            to.sync_all()?;
            drop(to);
            fs::rename(&tmp, &target)?;
            File::open(&dir)?.sync_all()
        })();
        written.map(|()| target.clone()).or_else(|e| {
            let _ = fs::remove_file(&tmp);
            Err(e).with_context(|| {
                format!(
                    "cannot archive {} to {}",
                    source.display(),
                    target.display()
                )
            })
        })
    }

    /// Copies `source` to `target` in the archive through a synced temporary file. Ok(None)
    /// when `source` vanished meanwhile.
    fn copy_to_archive(&self, source: &Path, target: PathBuf) -> anyhow::Result<Option<PathBuf>> {
        let dir = self.archive_dir();
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
        let copied = (|| -> io::Result<()> {
            let Some(mut from) = safe_fs::open_read(source)? else {
                return Err(io::ErrorKind::NotFound.into());
            };
            let mut to = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            io::copy(&mut from, &mut to)?;
            to.sync_all()?;
            drop(to);
            fs::rename(&tmp, &target)?;
            File::open(&dir)?.sync_all()
        })();
        match copied {
            Ok(()) => Ok(Some(target)),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                if e.kind() == io::ErrorKind::NotFound && !exists(source) {
                    return Ok(None);
                }
                Err(e).with_context(|| {
                    format!(
                        "cannot archive {} to {}",
                        source.display(),
                        target.display()
                    )
                })
            }
        }
    }

    /// Removes temporary files left by writers killed mid-write. Only called under the lock,
    /// and every writer of these names holds the lock, so none of them is in use.
    fn sweep_temp_files(&self) {
        let places: [(PathBuf, &str); 4] = [
            (self.dir(), ".state.json.tmp."),
            (self.dir(), ".history.json.tmp."),
            (self.archive_dir(), "."),
            (self.root.clone(), ".handover.md.tmp."),
        ];
        for (dir, prefix) in places {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(prefix) && name.contains(".tmp.") {
                    // Plain files only: never a link or anything else we did not create.
                    let _ = safe_fs::remove_file(&entry.path());
                }
            }
        }
    }

    /// The newest checksum-valid handoff in the journal's `write` events or in the archive.
    fn newest_intact(&self) -> Option<(Handoff, Source)> {
        let from_journal = journal::newest_write(&self.journal_path(), |event| {
            validate(event.get("handoff")?.clone()).ok().map(|(h, _)| h)
        });
        let mut bytes_left = MAX_ARCHIVE_BYTES_EXAMINED;
        let scan_until = std::time::Instant::now() + ARCHIVE_SCAN_TIME;
        let from_archive = archive_files(&self.archive_dir())
            .into_iter()
            .take(MAX_ARCHIVE_CANDIDATES)
            .take_while(|_| std::time::Instant::now() < scan_until)
            .take_while(|path| {
                // Sizes as listed (lstat); read_document refuses anything but a plain file.
                let size = fs::symlink_metadata(path).map(|m| m.len()).unwrap_or(0);
                match bytes_left.checked_sub(size) {
                    Some(left) => {
                        bytes_left = left;
                        true
                    }
                    None => false,
                }
            })
            .find_map(|path| read_document(&path).ok().flatten().map(|(h, _)| h));
        match (from_journal, from_archive) {
            // The journal gets every handoff before state.json does, so on a tie it wins.
            (Some(j), Some(a)) if a.created_at > j.created_at => Some((a, Source::Archive)),
            (Some(j), _) => Some((j, Source::Journal)),
            (None, Some(a)) => Some((a, Source::Archive)),
            (None, None) => None,
        }
    }

    /// `path` relative to the store root, for journal entries that stay valid if the
    /// repository moves.
    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// `<stamp>.json`, or `<stamp>-<n>.json` with the smallest free n when a write in the same
/// clock tick took that name. Only unique while the caller holds the lock.
fn free_archive_name(dir: &Path, stamp: &str) -> PathBuf {
    free_name(dir, stamp, "json")
}

fn free_name(dir: &Path, stamp: &str, extension: &str) -> PathBuf {
    let mut target = dir.join(format!("{stamp}.{extension}"));
    let mut n = 1;
    while exists(&target) {
        target = dir.join(format!("{stamp}-{n}.{extension}"));
        n += 1;
    }
    target
}

/// Archive files, newest first. Names are `<compact stamp>.json`, or `<stamp>-<n>.json` when
/// the stamp was already taken; temporary files (leading dot) are ignored.
fn archive_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(String, u64, PathBuf)> = entries
        .flatten()
        .take(MAX_ARCHIVE_ENTRIES)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".json")?;
            if stem.starts_with('.') {
                return None;
            }
            let (stamp, n) = match stem.rsplit_once('-') {
                Some((stamp, n)) if n.bytes().all(|b| b.is_ascii_digit()) => {
                    (stamp, n.parse().unwrap_or(0))
                }
                _ => (stem, 0),
            };
            Some((stamp.to_string(), n, entry.path()))
        })
        .collect();
    files.sort_by(|a, b| (&b.0, b.1).cmp(&(&a.0, a.1)));
    files.into_iter().map(|(_, _, path)| path).collect()
}

/// Reads a stored handoff. `Ok(None)`: the file does not exist. `Err`: what is wrong with it.
/// `Ok(Some((handoff, note)))`: intact; `note` says when a newer handover wrote it.
fn read_document(path: &Path) -> Result<Option<(Handoff, Option<String>)>, String> {
    // Never through a link, and never blocking on a FIFO: load must never hang.
    let file = match safe_fs::open_read(path) {
        Ok(Some(f)) => f,
        Ok(None) => return Ok(None),
        Err(e) => match safe_fs::refused(&e) {
            Some(r) => return Err(format!("is {}", r.what)),
            None => return Err(format!("cannot be read ({e})")),
        },
    };
    let too_large = |size: u64| {
        format!(
            "too large ({size} bytes; the limit is {} MiB), not read",
            MAX_STATE_BYTES / (1024 * 1024)
        )
    };
    match file.metadata() {
        Ok(m) if m.len() > MAX_STATE_BYTES => return Err(too_large(m.len())),
        _ => {}
    }
    let bytes = match handover_base::read_gate::read_capped(&file, MAX_STATE_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => return Err(format!("cannot be read ({e})")),
    };
    if bytes.len() as u64 > MAX_STATE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("empty (a write was cut short, or the file was emptied)".into());
    }
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Err(format!("truncated: the JSON ends early ({e})")),
        Err(e) => return Err(format!("not valid JSON ({e})")),
    };
    validate(value).map(Some)
}

/// A stored handoff's bytes from a place handover does not control (a fetched handoff ref):
/// the same checks as state.json on load (JSON object, checksum, shape, controls stripped).
/// The caller bounds the size before reading.
pub fn parse_untrusted(bytes: &[u8]) -> Result<(Handoff, Option<String>), String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON ({e})"))?;
    validate(value)
}

/// Checks a parsed document: an object, with a matching checksum, of the handoff's shape.
fn validate(value: Value) -> Result<(Handoff, Option<String>), String> {
    if !value.is_object() {
        return Err("not a handoff (the JSON is not an object)".into());
    }
    match value.get("checksum").and_then(Value::as_str) {
        None | Some("") => return Err("no checksum (not written by handover, or damaged)".into()),
        Some(_) if !checksum_matches(&value) => {
            return Err("checksum mismatch (edited by hand or damaged)".into())
        }
        Some(_) => {}
    }
    let mut handoff: Handoff = serde_json::from_value(value).map_err(|e| {
        format!(
            "not a handoff ({})",
            crate::sanitize::one_line(&e.to_string())
        )
    })?;
    // The checksum says the file is intact, not who wrote it: text from disk is cleaned of
    // control characters exactly as text being written is.
    crate::sanitize::handoff(&mut handoff);
    let note = (handoff.schema_version > SCHEMA_VERSION).then(|| {
        format!(
            "state.json: written by a newer handover (schema_version {}, this one knows {}); \
             fields it added are ignored: upgrade handover",
            handoff.schema_version, SCHEMA_VERSION
        )
    });
    Ok((handoff, note))
}

/// `sha256:<hex>` over the canonical JSON of the handoff without its `checksum` field:
/// compact, object keys sorted recursively (independent of serde_json's preserve_order).
pub fn checksum(handoff: &Handoff) -> String {
    // Serializing these plain structs cannot fail; an empty string would never match anyway.
    serde_json::to_value(handoff)
        .map(|v| checksum_of_value(&v))
        .unwrap_or_default()
}

/// Sets `handoff.checksum`.
pub fn seal(handoff: &mut Handoff) {
    handoff.checksum = checksum(handoff);
}

/// The handoff's recorded checksum matches its content.
pub fn is_sealed(handoff: &Handoff) -> bool {
    !handoff.checksum.is_empty() && handoff.checksum == checksum(handoff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_files_sort_newest_first_with_collision_suffixes() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "20260101T000000.000000001Z.json",
            "20260101T000000.000000002Z.json",
            "20260101T000000.000000002Z-1.json",
            "20260101T000000.000000002Z-10.json",
            "20260101T000000.000000002Z-2.json",
            ".20260101T000000.000000003Z.json.tmp.42",
            "notes.txt",
        ] {
            fs::write(dir.path().join(name), "{}").unwrap();
        }
        let names: Vec<String> = archive_files(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "20260101T000000.000000002Z-10.json",
                "20260101T000000.000000002Z-2.json",
                "20260101T000000.000000002Z-1.json",
                "20260101T000000.000000002Z.json",
                "20260101T000000.000000001Z.json",
            ]
        );
    }

    #[test]
    fn archive_names_stay_unique_within_one_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = "20260101T000000.000000001Z";
        let mut names = Vec::new();
        for _ in 0..3 {
            let path = free_archive_name(dir.path(), stamp);
            fs::write(&path, "{}").unwrap();
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
        assert_eq!(
            names,
            [
                format!("{stamp}.json"),
                format!("{stamp}-1.json"),
                format!("{stamp}-2.json")
            ]
        );
    }

    #[test]
    fn archiving_in_a_tight_loop_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path());
        fs::create_dir_all(store.archive_dir()).unwrap();
        fs::write(store.state_path(), "{}").unwrap();
        let paths: Vec<PathBuf> = (0..50)
            .map(|_| store.archive_current().unwrap().unwrap())
            .collect();
        let unique: std::collections::HashSet<&PathBuf> = paths.iter().collect();
        assert_eq!(unique.len(), 50);
        assert_eq!(fs::read_dir(store.archive_dir()).unwrap().count(), 50);
    }
}
