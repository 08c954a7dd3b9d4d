//! Per-session hook state: `.handover/sessions/<session key>.json`, one small JSON file per
//! client session, so that concurrent sessions never share a record. It remembers what was
//! delivered (startup context, re-injection) and which context thresholds were crossed.
//! Created atomically (temporary file + rename), then rewritten in place under a file lock
//! (`safe_fs::rewrite_in_place`; readers take the shared lock), never fsynced: the state is
//! advisory (at worst a reminder repeats), and an fsync, or a rename over the file, costs the
//! agent up to milliseconds on every write on a busy disk, far more than the rest of the hook.
//! A damaged file counts as present but empty.
//! Times are milliseconds since the Unix epoch.
//!
//! Every file access goes through `handover_handoff::safe_fs`: `.handover/` and `sessions/` must be
//! plain directories, files are never opened through a link, and pruning removes only plain
//! files of ours (named `*.json`, in our own `sessions/`).

use crate::state::delivery::{self, Action, Delivery, Epoch, Event, Facts, Start};
use handover_clients::{AgentName, StartSource};
use handover_handoff::safe_fs::{self, Kind};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A session file is a few hundred bytes; anything much larger is not one of ours.
const MAX_STATE_BYTES: u64 = 64 * 1024;

/// Files older than this are removed at session start, so the directory does not grow forever.
const KEEP_FOR_MS: u64 = 30 * 24 * 3600 * 1000;

/// One session's state. Stored as [`OnDisk`]: the same fields, names and values as before the
/// delivery state had a type, so a file written by either reads in the other.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(from = "OnDisk", into = "OnDisk")]
pub struct SessionState {
    pub session_id: String,
    /// The client whose session this is (written as its `--agent` name).
    pub agent: Option<AgentName>,
    /// When a hook first saw this session.
    pub first_seen_ms: u64,
    /// What the session was given: its startup context, re-injections, the epoch's reminders.
    /// Changed only through [`crate::state::delivery::next`].
    pub delivery: Delivery,
    /// Last measured share of the window, for `handover status` and the debug log.
    pub last_percent: Option<u8>,
    /// A startup context a SessionStart answered with but did not journal, because the client
    /// may send it nowhere (`Behaviour::journals_start_at_a_request`: Factory Droid's `/compress`
    /// reopens the old session with `resume` only to summarize it). The session's next prompt,
    /// tool result or Stop shows a request went out with it, and journals it then.
    pub unconfirmed_delivery: Option<UnconfirmedDelivery>,
}

/// The session file's form: flat fields, in this order. Times are milliseconds.
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
struct OnDisk {
    session_id: String,
    agent: Option<AgentName>,
    first_seen_ms: u64,
    /// A SessionStart hook ran for this session.
    session_start_seen: bool,
    /// When the startup context was last delivered, and whether by the first-prompt fallback.
    startup_delivered_ms: Option<u64>,
    startup_via_fallback: bool,
    pre_compact_ms: Option<u64>,
    compact_delivered_ms: Option<u64>,
    reinjection_armed_ms: Option<u64>,
    silent_compaction_ms: Option<u64>,
    /// The source of a SessionStart that left the startup context to the next prompt.
    startup_armed: Option<String>,
    epoch_start_ms: u64,
    reminded_ms: Option<u64>,
    insisted_ms: Option<u64>,
    stop_blocked_ms: Option<u64>,
    last_percent: Option<u8>,
    unconfirmed_delivery: Option<UnconfirmedDelivery>,
}

impl From<OnDisk> for SessionState {
    fn from(d: OnDisk) -> SessionState {
        SessionState {
            session_id: d.session_id,
            agent: d.agent,
            first_seen_ms: d.first_seen_ms,
            delivery: Delivery {
                start: Start::from_fields(
                    d.session_start_seen,
                    d.startup_via_fallback,
                    d.startup_delivered_ms,
                ),
                armed: d.startup_armed.as_deref().map(StartSource::parse),
                reinjection_armed_ms: d.reinjection_armed_ms,
                compact_delivered_ms: d.compact_delivered_ms,
                pre_compact_ms: d.pre_compact_ms,
                silent_compaction_ms: d.silent_compaction_ms,
                epoch: Epoch {
                    start_ms: d.epoch_start_ms,
                    reminded_ms: d.reminded_ms,
                    insisted_ms: d.insisted_ms,
                    stop_blocked_ms: d.stop_blocked_ms,
                },
            },
            last_percent: d.last_percent,
            unconfirmed_delivery: d.unconfirmed_delivery,
        }
    }
}

impl From<SessionState> for OnDisk {
    fn from(s: SessionState) -> OnDisk {
        let d = s.delivery;
        let (session_start_seen, startup_via_fallback, startup_delivered_ms) = d.start.fields();
        OnDisk {
            session_id: s.session_id,
            agent: s.agent,
            first_seen_ms: s.first_seen_ms,
            session_start_seen,
            startup_delivered_ms,
            startup_via_fallback,
            pre_compact_ms: d.pre_compact_ms,
            compact_delivered_ms: d.compact_delivered_ms,
            reinjection_armed_ms: d.reinjection_armed_ms,
            silent_compaction_ms: d.silent_compaction_ms,
            startup_armed: d.armed.map(|source| source.as_str().to_string()),
            epoch_start_ms: d.epoch.start_ms,
            reminded_ms: d.epoch.reminded_ms,
            insisted_ms: d.epoch.insisted_ms,
            stop_blocked_ms: d.epoch.stop_blocked_ms,
            last_percent: s.last_percent,
            unconfirmed_delivery: s.unconfirmed_delivery,
        }
    }
}

/// What the journal's `delivered` line of an unconfirmed delivery will say.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(default)]
pub struct UnconfirmedDelivery {
    pub source: String,
    pub verdict: String,
    pub handoff_id: Option<String>,
    pub chars: u64,
}

impl SessionState {
    pub fn new(session_id: &str, now: u64) -> SessionState {
        SessionState {
            // The client's text: stored redacted (the file name is a hash when the id looks
            // like a secret, see `key`).
            session_id: stored_id(session_id),
            first_seen_ms: now,
            delivery: Delivery {
                epoch: Epoch::new(now),
                ..Delivery::default()
            },
            ..SessionState::default()
        }
    }

    /// The delivery state after `event` ([`delivery::next`]), kept; what to do next.
    pub fn step(&mut self, event: Event, facts: &Facts) -> Action {
        let (state, action) = delivery::next(&self.delivery, event, facts);
        self.delivery = state;
        action
    }
}

/// A session's state file.
pub struct SessionFile {
    path: PathBuf,
    dir: PathBuf,
}

pub struct Loaded {
    pub state: SessionState,
    /// A file for this session was there (even if it was damaged).
    pub existed: bool,
}

impl Loaded {
    /// When a hook first saw this session, if one had before this call.
    pub fn first_seen_ms(&self) -> Option<u64> {
        Some(self.state.first_seen_ms).filter(|ms| self.existed && *ms > 0)
    }
}

impl SessionFile {
    pub fn new(sessions_dir: &Path, session_id: &str) -> SessionFile {
        SessionFile {
            path: sessions_dir.join(format!("{}.json", key(session_id))),
            dir: sessions_dir.to_path_buf(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn load(&self, session_id: &str, now: u64) -> Loaded {
        let read = check_dirs(&self.dir)
            .and_then(|()| safe_fs::read_limited_locked(&self.path, MAX_STATE_BYTES));
        match read {
            Ok(Some(bytes)) => {
                let state = first_json_value(&bytes)
                    .filter(|s| s.session_id == stored_id(session_id))
                    .unwrap_or_else(|| SessionState::new(session_id, now));
                Loaded {
                    state,
                    existed: true,
                }
            }
            Ok(None) => Loaded {
                state: SessionState::new(session_id, now),
                existed: false,
            },
            // Something is there that is not a plain file of ours: it counts as present (so a
            // hook does not deliver twice) but is never read.
            Err(_) => Loaded {
                state: SessionState::new(session_id, now),
                existed: true,
            },
        }
    }

    /// Saves the session's first state, unless another hook of the same session saved one
    /// since this one loaded it: Ok(false) then, and nothing is written. Two hooks that may each
    /// deliver a session's first startup context (SessionStart, and the first-prompt fallback of
    /// the watch) can run at once — Copilot CLI runs sessionStart and userPromptSubmitted side
    /// by side after `/clear` — and only the one whose state lands first delivers. The content
    /// is written to a temporary file and hard-linked into place, which fails when the name
    /// exists (a link included), so the file appears whole or not at all. Where hard links are
    /// not supported it is saved as [`SessionFile::save`] does (the race is then not guarded).
    pub fn save_first(&self, state: &SessionState) -> anyhow::Result<bool> {
        self.prepare_dir()?;
        let tmp = self.dir.join(format!(
            ".{}.{}.first",
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|mut f| std::io::Write::write_all(&mut f, &state_bytes(state)?));
        if let Err(e) = written {
            let _ = safe_fs::remove_file(&tmp);
            return Err(e.into());
        }
        let linked = std::fs::hard_link(&tmp, &self.path);
        let _ = safe_fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(_) => self.save(state).map(|()| true),
        }
    }

    /// Saves the state of a SessionStart that delivered the session's first startup context
    /// (`first`; any other state is saved as [`SessionFile::save`] does): Ok(false) when the
    /// first-prompt fallback's state landed first and that hook delivered the context itself.
    /// A state that landed first without a delivery is overwritten.
    pub fn save_session_start(
        &self,
        state: &SessionState,
        first: bool,
        session_id: &str,
        now: u64,
    ) -> anyhow::Result<bool> {
        let saved = if first {
            self.save_first(state)?
        } else {
            self.save(state).map(|()| true)?
        };
        if saved
            || self
                .load(session_id, now)
                .state
                .delivery
                .start
                .delivered()
                .is_some()
        {
            return Ok(saved);
        }
        // Another hook's state landed first: it counts only if it delivered.
        self.save(state).map(|()| true)
    }

    /// Creates `.handover/sessions/` when needed, with a `.gitignore` that ignores everything
    /// in it (itself included), so hook state never shows up in `git status` even before the
    /// first `handover write` sets up the repository's guard.
    /// A `.handover/` or `sessions/` that is a link (or not a directory) is refused, never
    /// followed or replaced.
    pub fn save(&self, state: &SessionState) -> anyhow::Result<()> {
        self.prepare_dir()?;
        let bytes = state_bytes(state)?;
        // Readers see the old or the new content, never a mix, even with two hooks of one
        // session writing at once: the first write creates the file whole (temporary file and
        // rename, or save_first's hard link), later ones rewrite it under the file's lock.
        if !safe_fs::rewrite_in_place(&self.path, &bytes)? {
            safe_fs::replace(&self.path, &bytes, false)?;
        }
        Ok(())
    }

    fn prepare_dir(&self) -> anyhow::Result<()> {
        if let Some(parent) = self.dir.parent() {
            safe_fs::ensure_dir(parent)?;
        }
        if !safe_fs::expect(&self.dir, Kind::Dir)? {
            safe_fs::ensure_dir(&self.dir)?;
            safe_fs::replace(&self.dir.join(".gitignore"), b"*\n", false)?;
        }
        Ok(())
    }
}

/// The state at the start of `bytes`, whatever follows it: a rewrite cut short between its
/// write and its length cut leaves the old content's tail after the new one.
fn first_json_value(bytes: &[u8]) -> Option<SessionState> {
    serde_json::Deserializer::from_slice(bytes)
        .into_iter::<SessionState>()
        .next()?
        .ok()
}

fn state_bytes(state: &SessionState) -> std::io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(state)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// `sessions/` and the `.handover/` holding it are plain directories (or `sessions/` is
/// missing): never read or write through a link in either place.
fn check_dirs(sessions_dir: &Path) -> std::io::Result<()> {
    let refuse = |r: safe_fs::Refused| std::io::Error::new(std::io::ErrorKind::PermissionDenied, r);
    if let Some(parent) = sessions_dir.parent() {
        safe_fs::expect(parent, Kind::Dir).map_err(refuse)?;
    }
    safe_fs::expect(sessions_dir, Kind::Dir).map_err(refuse)?;
    Ok(())
}

/// File-name-safe session keys, the same as the session records'.
use handover_record::files::key;

/// A session id as a session file stores it.
fn stored_id(session_id: &str) -> String {
    handover_record::stored_session_id(session_id)
}

/// Removes session files not touched for 30 days. Best effort, and only what we create:
/// plain `*.json` files directly in a plain `sessions/` inside a plain `.handover/`; a link
/// (to a file or a directory) is never followed or removed.
pub fn prune(sessions_dir: &Path, now: u64) {
    if check_dirs(sessions_dir).is_err() {
        return;
    }
    for (path, meta) in safe_fs::plain_files(sessions_dir, 10_000) {
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let old = meta
            .modified()
            .map(|t| now.saturating_sub(millis(t)) > KEEP_FOR_MS)
            .unwrap_or(false);
        if old {
            let _ = safe_fs::remove_file(&path);
        }
    }
}

pub fn now_ms() -> u64 {
    millis(SystemTime::now())
}

use handover_base::clock::millis;

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn keys_are_safe_and_distinct() {
        assert_eq!(
            key("0b1c2d3e-aaaa-bbbb-cccc-000000000000"),
            "0b1c2d3e-aaaa-bbbb-cccc-000000000000"
        );
        let a = key("../../etc/passwd");
        assert!(!a.contains('/') && !a.contains(".."), "{a}");
        assert_ne!(key("a/b"), key("a_b"));
        assert_ne!(key("a/b"), key("a:b"));
        assert!(!key("").is_empty());
        assert!(key(&"x".repeat(500)).len() < 120);
    }

    /// The file of the session `id` in `.handover/sessions` (not made yet) of a new temporary
    /// folder: the folder, which goes when dropped, the sessions folder and the file.
    fn session_file(id: &str) -> (tempfile::TempDir, PathBuf, SessionFile) {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join(".handover/sessions");
        let file = SessionFile::new(&sessions, id);
        (dir, sessions, file)
    }

    #[test]
    fn round_trips_and_ignores_a_state_file_for_another_session() {
        let (_dir, sessions, file) = session_file("s1");
        let loaded = file.load("s1", 5);
        assert!(!loaded.existed);
        assert_eq!(loaded.state, SessionState::new("s1", 5));
        let mut st = loaded.state;
        st.delivery.epoch.reminded_ms = Some(7);
        file.save(&st).unwrap();
        assert_eq!(fs::read(sessions.join(".gitignore")).unwrap(), b"*\n");
        let again = file.load("s1", 9);
        assert!(again.existed);
        assert_eq!(again.state, st);
        fs::write(file.path(), b"{not json").unwrap();
        let damaged = file.load("s1", 9);
        assert!(damaged.existed);
        assert_eq!(damaged.state, SessionState::new("s1", 9));
    }

    #[test]
    fn only_the_first_of_two_first_saves_lands() {
        let (_dir, sessions, file) = session_file("s-1");
        let mut first = SessionState::new("s-1", 10);
        first.delivery.start = Start::Unseen {
            delivered: Some(10),
        };
        assert!(file.save_first(&first).unwrap());
        let second = SessionState::new("s-1", 20);
        assert!(!file.save_first(&second).unwrap(), "a second first save");
        assert_eq!(file.load("s-1", 30).state, first);
        let names: Vec<String> = std::fs::read_dir(&sessions)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names.len(),
            2,
            "the state and .gitignore, no temporary: {names:?}"
        );
    }

    #[test]
    fn saving_rewrites_the_file_in_place_and_leaves_no_temporary_behind() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::new(dir.path(), "s");
        let mut st = SessionState::new("s", 1);
        st.agent = Some("a much longer agent name than the next one".into());
        file.save(&st).unwrap();
        let first = fs::metadata(file.path()).unwrap().ino();
        st.agent = Some("short".into());
        file.save(&st).unwrap();
        assert_eq!(
            fs::metadata(file.path()).unwrap().ino(),
            first,
            "rewritten in place, not replaced by a rename"
        );
        assert_eq!(
            file.load("s", 2).state,
            st,
            "a shorter rewrite leaves no tail"
        );
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_rewrite_cut_short_before_its_length_cut_still_reads_as_the_new_state() {
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::new(dir.path(), "s");
        let mut old = SessionState::new("s", 1);
        old.agent = Some("x".repeat(200).into());
        let mut new = SessionState::new("s", 1);
        new.delivery.epoch.reminded_ms = Some(42);
        let mut bytes = serde_json::to_vec_pretty(&new).unwrap();
        bytes.push(b'\n');
        let old_bytes = serde_json::to_vec_pretty(&old).unwrap();
        assert!(old_bytes.len() > bytes.len());
        bytes.extend_from_slice(&old_bytes[bytes.len()..]);
        fs::write(file.path(), &bytes).unwrap();
        let loaded = file.load("s", 9);
        assert!(loaded.existed);
        assert_eq!(loaded.state, new);
    }

    #[test]
    fn a_link_in_place_of_the_state_file_is_neither_read_nor_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("victim.json");
        fs::write(&target, b"keep").unwrap();
        let file = SessionFile::new(dir.path(), "s");
        std::os::unix::fs::symlink(&target, file.path()).unwrap();
        assert!(file.save(&SessionState::new("s", 1)).is_err());
        assert!(file.load("s", 1).existed);
        assert_eq!(fs::read(&target).unwrap(), b"keep");
    }

    #[test]
    fn a_hard_link_in_place_of_the_state_file_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::new(dir.path(), "s");
        let victim = dir.path().join("victim");
        fs::write(&victim, b"the user's bytes").unwrap();
        fs::hard_link(&victim, file.path()).unwrap();
        let st = SessionState::new("s", 1);
        file.save(&st).unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"the user's bytes");
        assert_eq!(file.load("s", 2).state, st);
    }

    #[test]
    fn a_session_start_save_yields_only_to_a_first_state_that_delivered() {
        let (_dir, _, file) = session_file("s");
        let mut mine = SessionState::new("s", 10);
        mine.agent = Some("claude-code".into());
        mine.delivery.start = Start::Started {
            delivered: Some(10),
            by_first_prompt: false,
        };

        // The first-prompt fallback's state landed first, without a delivery: overwritten.
        file.save(&SessionState::new("s", 5)).unwrap();
        assert!(file.save_session_start(&mine, true, "s", 11).unwrap());
        assert_eq!(file.load("s", 12).state, mine);

        // It landed first and delivered: this SessionStart stays silent and writes nothing.
        std::fs::remove_file(file.path()).unwrap();
        let mut theirs = SessionState::new("s", 5);
        theirs.delivery.start = Start::ByFirstPrompt { delivered: Some(5) };
        file.save(&theirs).unwrap();
        assert!(!file.save_session_start(&mine, true, "s", 11).unwrap());
        assert_eq!(file.load("s", 12).state, theirs);

        // Not a first state: saved whatever is there.
        assert!(file.save_session_start(&mine, false, "s", 11).unwrap());
        assert_eq!(file.load("s", 12).state, mine);
    }

    /// A session file as the code before the typed delivery state wrote it, every field set.
    const OLD_FORM: &str = r#"{
  "session_id": "s-1",
  "agent": "gemini",
  "first_seen_ms": 100,
  "session_start_seen": true,
  "startup_delivered_ms": 200,
  "startup_via_fallback": true,
  "pre_compact_ms": 300,
  "compact_delivered_ms": 310,
  "reinjection_armed_ms": 320,
  "silent_compaction_ms": 330,
  "startup_armed": "clear",
  "epoch_start_ms": 300,
  "reminded_ms": 400,
  "insisted_ms": 410,
  "stop_blocked_ms": 420,
  "last_percent": 77,
  "unconfirmed_delivery": {
    "source": "resume",
    "verdict": "fresh",
    "handoff_id": "h-1",
    "chars": 1234
  }
}
"#;

    #[test]
    fn a_session_file_of_the_old_form_reads_as_typed_state_and_writes_back_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let file = SessionFile::new(dir.path(), "s-1");
        fs::write(file.path(), OLD_FORM).unwrap();
        let loaded = file.load("s-1", 999).state;
        assert_eq!(
            loaded.delivery,
            Delivery {
                start: Start::Started {
                    delivered: Some(200),
                    by_first_prompt: true,
                },
                armed: Some(StartSource::Clear),
                reinjection_armed_ms: Some(320),
                compact_delivered_ms: Some(310),
                pre_compact_ms: Some(300),
                silent_compaction_ms: Some(330),
                epoch: Epoch {
                    start_ms: 300,
                    reminded_ms: Some(400),
                    insisted_ms: Some(410),
                    stop_blocked_ms: Some(420),
                },
            }
        );
        assert_eq!(
            (
                loaded.agent.as_ref().map(AgentName::as_str),
                loaded.first_seen_ms,
                loaded.last_percent
            ),
            (Some("gemini"), 100, Some(77))
        );
        file.save(&loaded).unwrap();
        assert_eq!(fs::read_to_string(file.path()).unwrap(), OLD_FORM);

        // Every combination of the three fields the start is read from comes back as it was,
        // an unknown armed source too, and a new file reads in the old struct's fields.
        for seen in [false, true] {
            for via_fallback in [false, true] {
                for delivered in [None, Some(7)] {
                    let start = Start::from_fields(seen, via_fallback, delivered);
                    assert_eq!(start.fields(), (seen, via_fallback, delivered));
                }
            }
        }
        let text = OLD_FORM.replace(r#""clear""#, r#""fork""#);
        let odd: SessionState = serde_json::from_str(&text).unwrap();
        assert_eq!(odd.delivery.armed, Some(StartSource::Other("fork".into())));
        assert_eq!(state_bytes(&odd).unwrap(), text.as_bytes());
        let fresh = serde_json::to_value(SessionState::new("s", 5)).unwrap();
        assert_eq!(
            fresh,
            serde_json::json!({
                "session_id": "s", "agent": null, "first_seen_ms": 5,
                "session_start_seen": false, "startup_delivered_ms": null,
                "startup_via_fallback": false, "pre_compact_ms": null,
                "compact_delivered_ms": null, "reinjection_armed_ms": null,
                "silent_compaction_ms": null, "startup_armed": null, "epoch_start_ms": 5,
                "reminded_ms": null, "insisted_ms": null, "stop_blocked_ms": null,
                "last_percent": null, "unconfirmed_delivery": null
            })
        );
    }
}
