//! Keeps the session record (handover_record) up to date: after every turn (Stop), before a
//! compaction (PreCompact) and at the end (SessionEnd), so that even a killed session leaves a
//! record at most one turn old.
//!
//! Each update reads only the transcript bytes appended since the last one (the offset is kept
//! in the record), never sleeps or polls (but for the SessionEnd of a client that writes its
//! transcript late, which waits for that write, or leaves the wait to a detached copy of the
//! hook: `await_flush`), and reads the working tree (bounded in time) only at
//! PreCompact, at SessionEnd, and after a turn that ran commands: a command may have changed
//! files no transcript names, and the files git shows changed since the session began are
//! attributed to it (handover_record::tree). SessionEnd is not needed for those facts
//! (interactive Codex sends none at quit). After a turn without commands, branch and HEAD come
//! from the files under `.git`. Claude Code appends a turn's final answer to its transcript a
//! few milliseconds after Stop starts; the Stop payload's `last_assistant_message` (Gemini
//! CLI's `prompt_response`) stands in for it until the next update reads the line.

use crate::call::scan::Scan;
use crate::call::Call;
use handover_base::read_gate::Links;
use handover_clients::transcript::Fact;
use handover_handoff::store::Store;
use handover_record::extract;
use handover_record::{
    files, stored_transcript_path, Ending, Fold, GitState, HowEnded, SessionRecord, MAX_DIRTY,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The working-tree scan at PreCompact and SessionEnd is given up after this long (the record
/// then keeps branch and HEAD only).
const STATUS_LIMIT: Duration = Duration::from_millis(800);
/// The same after a turn that ran commands: the client waits for Stop, so less; a repository
/// too large for it is scanned at the compaction or the end instead.
const TURN_STATUS_LIMIT: Duration = Duration::from_millis(300);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// Stop: a turn finished.
    Turn,
    /// PreCompact.
    Compaction,
    /// SessionEnd.
    End,
}

/// SessionStart `resume`: a session that had ended runs again, so its record no longer says
/// how it ended (if this run is killed, no SessionEnd will correct it). Touches only an
/// existing record; reads nothing else. For a client whose SessionEnd is finished by a copy
/// of the hook after it answered (`buffered_transcript`, crate::call::detach), the record is written
/// even when it holds no ending yet: a copy still at work finds it written after its session
/// ended and leaves it alone, so it cannot mark the resumed session ended.
pub fn resumed(
    store: &Store,
    session_id: Option<&str>,
    buffered_transcript: bool,
) -> Option<String> {
    let sid = session_id?;
    let mut record = files::load(store, sid)?;
    if record.ended.take().is_none() && !buffered_transcript {
        return None;
    }
    Some(match files::save(store, &record) {
        Ok(_) => "record: resumed".into(),
        Err(e) => format!("record not updated: {e:#}"),
    })
}

/// Updates this session's record. `hooks_first_seen_ms`: when a hook first saw the session
/// (its per-session state, read once by the caller), None when no hook had. Returns a few
/// words for the debug log; never fails.
pub fn update(call: &Call, moment: Moment, hooks_first_seen_ms: Option<u64>) -> String {
    update_sharing(call, moment, hooks_first_seen_ms, None)
}

/// [`update`], taking the changed files from `scan` (a scan of this call's working tree that
/// the caller shares with another of its steps: PreCompact) instead of a scan of its own.
pub fn update_sharing(
    call: &Call,
    moment: Moment,
    hooks_first_seen_ms: Option<u64>,
    scan: Option<&Scan>,
) -> String {
    match try_update(call, moment, hooks_first_seen_ms, scan) {
        Ok(note) => note,
        Err(e) => format!("record not updated: {e:#}"),
    }
}

/// The longest SessionEnd waits for a client's buffered transcript (see
/// `Client::transcript_flush_delay`): once per session, never on a turn.
const FLUSH_WAIT_LIMIT: Duration = Duration::from_millis(400);

/// Waits until the client has written its transcript after this hook began (`started_ms`):
/// it records the hook's own start as an event, so the flush `delay` after it carries every
/// event before. At most [`FLUSH_WAIT_LIMIT`], never past `deadline`.
fn wait_for_flush(path: &Path, delay: Duration, started_ms: u64, deadline: std::time::Instant) {
    let until = std::time::Instant::now() + FLUSH_WAIT_LIMIT.max(delay * 2);
    while std::time::Instant::now() < until.min(deadline) {
        if written_since(path, started_ms) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The file was modified after `since_ms`.
fn written_since(path: &Path, since_ms: u64) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| handover_base::clock::millis(t) > since_ms)
}

/// SessionEnd of a client that writes its transcript some time after the events: how the
/// record waits for that write. The client waits for this hook before it exits, so unless the
/// transcript was already written after the hook began, a detached copy of the hook
/// (crate::call::detach) waits and updates the record, and this call answers at once.
/// In that copy, or when no copy could start, the wait is done here.
enum Flush {
    /// The copy (pid) finishes the record.
    Detached(u32),
    /// Waited here (or nothing to wait for); the note says why not detached, if it was tried.
    Waited(Option<String>),
}

fn await_flush(call: &Call, path: &Path, delay: Duration) -> Flush {
    if call.finishing_since_ms.is_none() && !written_since(path, call.now_ms) {
        match crate::call::detach::finish_later(call) {
            Ok(pid) => return Flush::Detached(pid),
            Err(why) => {
                wait_for_flush(path, delay, call.now_ms, call.deadline);
                return Flush::Waited(Some(why));
            }
        }
    }
    wait_for_flush(path, delay, call.now_ms, call.deadline);
    Flush::Waited(None)
}

/// A tool-failure event ([`handover_clients::HookEvent::ToolFailure`]): the failing command the
/// input reports goes into this session's record at once, under the id the transcript's own
/// line for it will carry (read later, it does not count twice). Reads nothing else: no
/// transcript, no working tree. Returns a few words for the debug log; never fails.
pub fn tool_failed(call: &Call) -> String {
    let Some(fact) = call.client().behaviour.failed_command(&call.input) else {
        return "record: not a failing command".into();
    };
    let Some(store) = &call.store else {
        return "record: no directory".into();
    };
    let Some(sid) = call.session_id() else {
        return "record: no session id".into();
    };
    if let Err(refused) = store.check() {
        return format!("record: store refused ({refused})");
    }
    if handover_handoff::worktree::find_root(store.root()).is_none() {
        return "record: not a git repository".into();
    }
    let mut record = files::load(store, sid).unwrap_or_else(|| SessionRecord::new(sid, call.agent));
    if fact.is_work() {
        record.work_since_handoff = true;
    }
    record.apply(fact);
    record.active_at(call.now_ms);
    record.last_activity_ms = record.last_activity_ms.min(call.now_ms);
    if record.updated_ms == 0 {
        // A new record: dated now. An existing one keeps its date, which the next Stop's read
        // starts its span from.
        record.updated = handover_base::clock::format_rfc3339(call.now_ms / 1000);
        record.updated_ms = call.now_ms;
    }
    match files::save(store, &record) {
        Ok(_) => "record: failing command added".into(),
        Err(e) => format!("record not updated: {e:#}"),
    }
}

fn try_update(
    call: &Call,
    moment: Moment,
    hooks_first_seen_ms: Option<u64>,
    scan: Option<&Scan>,
) -> anyhow::Result<String> {
    let Some(store) = &call.store else {
        return Ok("record: no directory".into());
    };
    let Some(sid) = call.session_id() else {
        return Ok("record: no session id".into());
    };
    let root = store.root();
    // Records live in the store: a store handover refuses (links, another user's directory)
    // gets no record, as it gets nothing else.
    if let Err(refused) = store.check() {
        return Ok(format!("record: store refused ({refused})"));
    }
    // Only in a git repository: the record is about work on one.
    if handover_handoff::worktree::find_root(root).is_none() {
        return Ok("record: not a git repository".into());
    }
    // A client that writes its transcript late: SessionEnd waits for that write, here or in a
    // detached copy of this hook (before the record is read, so the copy builds on whatever
    // was saved while it waited).
    let mut flush_note = None;
    if let (Moment::End, Some(path), Some(delay)) = (
        moment,
        call.input.transcript_path.as_deref(),
        call.client().transcript_flush_delay,
    ) {
        match await_flush(call, Path::new(path), delay) {
            Flush::Detached(pid) => {
                return Ok(format!(
                    "record: finished after the client's transcript write by process {pid}"
                ))
            }
            Flush::Waited(why) => flush_note = why.map(|w| format!(" (waited here: {w})")),
        }
    }
    let agent = call.agent;
    let mut record = files::load(store, sid).unwrap_or_else(|| SessionRecord::new(sid, agent));

    let mut read_note = String::from("no transcript");
    let mut ran_commands = false;
    let mut handoff_in_span = false;
    if let Some(path) = call.input.transcript_path.as_deref() {
        // Stored redacted, like every text from the hook input; compared in that form.
        let stored_path = stored_transcript_path(path);
        if record.transcript.path != stored_path {
            record.transcript.path = stored_path.clone();
            record.transcript.offset = 0;
        }
        record.transcript.started_in = started_in(call.input.cwd.as_deref(), root);
        // The client names the file, so a link is followed to a regular file.
        let opened = extract::open(Path::new(path), Links::Follow, record.transcript.offset);
        match opened {
            Ok(opened) => {
                // A read that fails midway leaves the record as it was (the next update reads
                // the same lines again), as a read that fails at once does.
                let unread = record.clone();
                if opened.restarted() {
                    // The transcript was replaced: its facts start over.
                    let kept = (record.ended.take(), record.git.take());
                    let started_in = std::mem::take(&mut record.transcript.started_in);
                    record = SessionRecord::new(sid, agent);
                    record.transcript.path = stored_path;
                    record.transcript.started_in = started_in;
                    (record.ended, record.git) = kept;
                }
                let span_handoff = handoff_written_since(store, span_start(&record, call));
                let from = record.transcript.offset;
                let (mut facts, mut work, mut commands) = (0usize, false, false);
                // Folded in as the lines are read: one line held at a time, and only what
                // the record keeps cleaned and redacted (`Fold`).
                let read = {
                    let mut fold = Fold::new(&mut record);
                    opened.read_each(call.client(), Some(root), |fact| {
                        facts += 1;
                        work |= fact.is_work();
                        commands |= fact.is_command();
                        fold.push(fact);
                    })
                };
                match read {
                    Ok(u) => {
                        read_note =
                            format!("{} bytes, {} facts", u.offset - from.min(u.offset), facts);
                        handoff_in_span = span_handoff;
                        ran_commands = commands;
                        // A handoff written in this span is taken to come after its work
                        // (agents save at the end of a turn); work in a span without one is
                        // news to it.
                        if handoff_in_span {
                            record.work_since_handoff = false;
                        } else if work {
                            record.work_since_handoff = true;
                        }
                        record.transcript.offset = u.offset;
                        record.transcript.skipped_bytes += u.skipped;
                    }
                    Err(e) => {
                        record = unread;
                        read_note = format!("transcript not read: {e}");
                    }
                }
            }
            // Not written yet (a brand-new Claude Code session): nothing to read.
            Err(e) => read_note = format!("transcript not read: {e}"),
        }
    }
    if let Some(answer) = call.input.last_assistant_message.as_deref() {
        record.apply(Fact::AgentMessage(answer.to_string()));
    }

    let now = handover_base::clock::format_rfc3339(call.now_ms / 1000);
    match moment {
        Moment::Turn => {
            // A session resumed after its end is running again.
            if record
                .ended
                .as_ref()
                .is_some_and(|e| e.how == HowEnded::SessionEnd)
            {
                record.ended = None;
            }
        }
        Moment::Compaction => {
            record.ended = Some(Ending {
                how: HowEnded::Compaction,
                reason: call.input.trigger.as_deref().map(hook_word),
                at: now.clone(),
            });
        }
        Moment::End => {
            let reason = call.input.reason.as_deref().map(hook_word);
            if !says_less_than_known(&record, reason.as_deref()) {
                record.ended = Some(Ending {
                    how: HowEnded::SessionEnd,
                    reason,
                    at: now.clone(),
                });
            }
        }
    }
    // Work means activity; SessionEnd does not (Codex's app-server sends it a minute late).
    if moment != Moment::End {
        record.active_at(call.now_ms);
    }
    // A transcript's clock is the client's word: never later than now.
    record.last_activity_ms = record.last_activity_ms.min(call.now_ms);

    // After a turn, only when it ran commands, and not in a repository whose last scan took
    // longer than a turn may wait (it is scanned at the compaction or the end instead).
    let slow_tree = record
        .scan_ms
        .is_some_and(|ms| ms >= TURN_STATUS_LIMIT.as_millis() as u64);
    let limit = match moment {
        Moment::Turn if !ran_commands || slow_tree => None,
        Moment::Turn => Some(TURN_STATUS_LIMIT),
        Moment::Compaction | Moment::End => Some(STATUS_LIMIT),
    };
    let scan_started = std::time::Instant::now();
    let (git, all_dirty, records_indexed) = git_state(root, limit, call.deadline, scan);
    if limit.is_some() {
        // A scan given up at its limit took at least that long.
        record.scan_ms = Some(scan_started.elapsed().as_millis() as u64);
    }
    record.git = Some(git);
    if let (Some(dirty), Some(since)) = (all_dirty, session_began_ms(&record, hooks_first_seen_ms))
    {
        let before = record.files_edited_total;
        // Up to the session's last activity: Codex's late SessionEnd of a thread left a minute
        // ago must not take the changes the next thread made in that minute.
        let until = record.activity_ms().max(since);
        record.add_changed_files(handover_record::tree::changed_between(
            root, &dirty, since, until,
        ));
        // Files changed through the shell are work the handoff may not know about.
        if record.files_edited_total > before && !handoff_in_span {
            record.work_since_handoff = true;
        }
    }
    record.updated = now;
    record.updated_ms = call.now_ms;

    // A detached copy finishing a SessionEnd: a record written since the session ended was
    // written by the session itself, resumed (`resumed` always writes it then), or by a start's
    // catch-up; it stands. The lines this copy read stay past its offset for the session's next
    // update or the next start's catch-up.
    if let Some(began) = call.finishing_since_ms {
        let path = files::path_for(&files::dir(&store.dir()), sid);
        if written_since(&path, began) {
            return Ok("record: written since the session ended (resumed?), left as it is".into());
        }
    }
    let created = files::save(store, &record)?;
    // Old records go at the compaction and the end, which read the working tree anyway; a turn
    // that made a new record prunes only past twice the limit (the index read it may need grows
    // with the repository: `files::prune`), so sessions without an end stay bounded.
    let slack = match moment {
        Moment::Turn if created => Some(1),
        Moment::Turn => None,
        Moment::Compaction | Moment::End => Some(0),
    };
    if let Some(slack) = slack {
        let keep = handover_handoff::config::load(root)
            .map(|c| c.records_keep)
            .unwrap_or(handover_handoff::config::Config::default().records_keep);
        files::prune(store, keep, keep * slack, records_indexed.as_ref());
    }
    let copy = if call.finishing_since_ms.is_some() {
        " after the client's transcript write"
    } else {
        ""
    };
    // The index costs most at scale (read and checksummed whole): one load per call at most.
    let loads = handover_git::index_loads();
    let index_note = if loads > 0 {
        format!("; git index loaded {loads}x")
    } else {
        String::new()
    };
    Ok(format!(
        "record updated{copy} ({read_note}){}{index_note}",
        flush_note.unwrap_or_default()
    ))
}

/// A SessionEnd's `reason` says less than the ending the record already holds: the record
/// ended by a SessionEnd with a known reason (not `other`), nothing ran since (a turn or a
/// resume clears the ending), and this one says `other` or nothing. Factory Droid 0.225.2's
/// `/new` ends the session it leaves twice, `clear` then `other`; the first, known reason stays
/// (with its time). docs/format.md, `ended`.
fn says_less_than_known(record: &SessionRecord, reason: Option<&str>) -> bool {
    let known = record
        .ended
        .as_ref()
        .filter(|e| e.how == HowEnded::SessionEnd)
        .and_then(|e| e.reason.as_deref())
        .is_some_and(|r| r != "other");
    known && matches!(reason, None | Some("other"))
}

/// A word the client sends (SessionEnd's reason, PreCompact's trigger) as a record stores it:
/// redacted, one line, short.
fn hook_word(text: &str) -> String {
    handover_record::untrusted(text, 40)
}

/// Where the span this update covers began: the previous update, or for a new record the
/// session's first transcript timestamp (else now).
fn span_start(record: &SessionRecord, call: &Call) -> u64 {
    if record.updated_ms > 0 {
        return record.updated_ms;
    }
    record
        .started
        .as_deref()
        .and_then(handover_base::clock::parse_rfc3339_ms)
        .unwrap_or(call.now_ms)
}

/// state.json was replaced at or after `since_ms`.
fn handoff_written_since(store: &Store, since_ms: u64) -> bool {
    std::fs::metadata(store.state_path())
        .and_then(|m| m.modified())
        .map(|t| handover_base::clock::millis(t) >= since_ms)
        .unwrap_or(false)
}

/// When the session began, as far as the hooks know: the first hook call seen for it
/// (`from_hooks`) or its transcript's first timestamp, whichever is earlier. None when neither
/// is known: then no change can be attributed to it.
fn session_began_ms(record: &SessionRecord, from_hooks: Option<u64>) -> Option<u64> {
    let from_transcript = record
        .started
        .as_deref()
        .and_then(handover_base::clock::parse_rfc3339_ms);
    match (from_transcript, from_hooks) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Branch and HEAD (cheap); with a `limit`, the changed files too (given up after it, and at
/// the call's deadline), also returned whole for the attribution of edits, and the index's
/// paths under the records directory (for the prune). From `scan` when the caller shares one,
/// else from a scan of its own.
fn git_state(
    root: &Path,
    limit: Option<Duration>,
    deadline: std::time::Instant,
    scan: Option<&Scan>,
) -> (
    GitState,
    Option<Vec<String>>,
    Option<handover_git::IndexedUnder>,
) {
    let (branch, head) = handover_git::head::head_of(root);
    let mut state = GitState {
        branch,
        head,
        dirty: None,
        dirty_total: 0,
    };
    let all = limit.and_then(|limit| {
        let limit = limit.min(crate::call::budget::remaining(deadline));
        let own;
        let scan = match scan {
            Some(shared) => shared,
            None => {
                own = Scan::new(root.to_path_buf(), None);
                &own
            }
        };
        // None when git fails or the scan takes longer than `limit`.
        let found = scan.wait(limit).ok()?.ok()?;
        Some((
            found.dirty_and_untracked.clone(),
            found.records_indexed.clone(),
        ))
    });
    let (all, records_indexed) = match all {
        Some((all, indexed)) => (Some(all), indexed),
        None => (None, None),
    };
    if let Some(all) = &all {
        state.dirty_total = all.len() as u64;
        state.dirty = Some(all.iter().take(MAX_DIRTY).cloned().collect());
    }
    (state, all, records_indexed)
}

/// The input's working directory relative to the top of the working tree `root`, `/`-separated;
/// empty when it is the top, outside it, or not plain (a `..`, a name that is not UTF-8), and
/// when the record's redaction would change it: like every text from the hook input it is
/// stored only as redacted, and a changed path would name no folder anyway.
fn started_in(cwd: Option<&str>, root: &Path) -> String {
    let relative = relative_dir(cwd, root);
    if relative.is_empty()
        || handover_record::untrusted(&relative, handover_record::MAX_TRANSCRIPT_PATH_CHARS)
            != relative
    {
        return String::new();
    }
    relative
}

/// [`started_in`] before the redaction check.
fn relative_dir(cwd: Option<&str>, root: &Path) -> String {
    let Some(cwd) = cwd.map(Path::new) else {
        return String::new();
    };
    let relative = cwd.strip_prefix(root).map(Path::to_path_buf).or_else(|_| {
        let (cwd, root) = (std::fs::canonicalize(cwd), std::fs::canonicalize(root));
        match (cwd, root) {
            (Ok(cwd), Ok(root)) => cwd.strip_prefix(&root).map(Path::to_path_buf),
            _ => Ok(PathBuf::new()),
        }
    });
    let Ok(relative) = relative else {
        return String::new();
    };
    let mut parts = Vec::new();
    for part in relative.components() {
        match part {
            std::path::Component::Normal(name) => match name.to_str() {
                Some(name) => parts.push(name),
                None => return String::new(),
            },
            _ => return String::new(),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod started_in_tests {
    use super::{relative_dir, started_in};
    use crate::temp_files::temp_folder;
    use std::path::Path;

    #[test]
    fn the_working_directory_is_kept_relative_to_the_top_and_only_inside_it() {
        let (tmp, _) = temp_folder("repo/src/app");
        let root = tmp.path().join("repo");
        let at = |cwd: &Path| started_in(cwd.to_str(), &root);
        assert_eq!(at(&root.join("src/app")), "src/app");
        assert_eq!(at(&root), "");
        assert_eq!(at(tmp.path()), "", "outside the working tree");
        assert_eq!(at(&root.join("src/../..")), "", "a `..` is not plain");
        assert_eq!(started_in(None, &root), "");
        // A directory named like a token: never stored as it is.
        let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4).get(..36).unwrap());
        std::fs::create_dir_all(root.join(&token)).unwrap();
        assert_eq!(relative_dir(root.join(&token).to_str(), &root), token);
        assert_eq!(at(&root.join(&token)), "", "a directory named like a token");
    }
}
