//! The last session's record brought up to date before it is shown, when its transcript grew
//! after the record's last update.
//!
//! Claude Code 2.1.330's terminal UI writes a turn's last lines to its transcript AFTER the
//! Stop hook ran, so the record written at Stop lags a turn. SessionEnd reads the rest at
//! `/exit` and `/clear`; a session killed right after a turn sends none, and its last turn (the
//! command that failed, its last answer) would be lost. So the next session's start compares
//! the transcript's length with the record's offset — one `stat` — and only when it grew reads
//! the appended lines, exactly as the session's own next update would have. The working tree
//! is not scanned here: the files were attributed by the scan at the turn's Stop (which ran
//! after the commands), and the next session's start must stay cheap.

use crate::extract;
use crate::{files, SessionRecord};
use handover_base::read_gate::Links;
use handover_clients::{Client, UserDirs};
use handover_handoff::store::Store;
use std::path::{Path, PathBuf};

/// More appended than this since the record's last update is left alone: a turn appends far
/// less, and the next session's start must not read a long unrecorded stretch (the session's
/// own next update or its end reads it).
pub const MAX_CATCH_UP: u64 = 4 << 20;

/// `record` with the lines its transcript gained since its last update applied and saved; the
/// record unchanged when the transcript did not grow (or cannot be read, or grew by more than
/// [`MAX_CATCH_UP`], or names no transcript of this project's in the client's own transcript
/// directory).
/// Never fails: a record that cannot be saved is still shown up to date.
pub fn transcript_grew(store: &Store, record: SessionRecord, now_ms: u64) -> SessionRecord {
    transcript_grew_in(store, record, now_ms, &UserDirs::from_env())
}

/// [`transcript_grew`] with the clients' user directories resolved from `dirs`.
pub fn transcript_grew_in(
    store: &Store,
    record: SessionRecord,
    now_ms: u64,
    dirs: &UserDirs,
) -> SessionRecord {
    catch_up(store, record, now_ms, dirs, || {})
}

/// [`transcript_grew_in`], running `after_check` between the check of the transcript's place
/// and its open (a test swaps a link there).
fn catch_up(
    store: &Store,
    record: SessionRecord,
    now_ms: u64,
    dirs: &UserDirs,
    after_check: impl FnOnce(),
) -> SessionRecord {
    let Some(agent) = record.agent.agent() else {
        return record;
    };
    let client = handover_clients::of(agent);
    let path = Path::new(&record.transcript.path);
    // The path is the record's: only an absolute path to a transcript file is followed (a
    // record is untrusted; the read gate refuses FIFOs and devices).
    if !path.is_absolute() || path.extension().is_none_or(|e| e != "jsonl") {
        return record;
    }
    let Ok(len) = std::fs::metadata(path).map(|m| m.len()) else {
        return record;
    };
    let offset = record.transcript.offset;
    if len <= offset || len - offset > MAX_CATCH_UP {
        return record;
    }
    // Only now, when there is something to read (the usual start pays the one `stat` above):
    // a record written into the repository could name any `.jsonl` on the machine, another
    // project's session among them. The client's own transcript directory is the only place
    // its sessions are, and where it files them by project, this project's folder.
    let started_in = record.transcript.started_in.as_str();
    let Some(transcript) = own_transcript(client, path, store.root(), started_in, dirs) else {
        return record;
    };
    after_check();
    // The path checked, not the record's: a link in the record's path swapped after the check
    // cannot redirect the read, and a link put in the last component since is refused.
    let Ok(opened) = extract::open(&transcript, Links::Refuse, offset) else {
        return record;
    };
    if opened.restarted() {
        return record;
    }
    let mut record = record;
    let before = record.clone();
    let mut facts = 0usize;
    let mut work = false;
    let read = {
        let mut fold = crate::Fold::new(&mut record);
        opened.read_each(client, Some(store.root()), |fact| {
            facts += 1;
            work |= fact.is_work();
            fold.push(fact);
        })
    };
    let Ok(update) = read else {
        return before;
    };
    if facts == 0 {
        return before;
    }
    if work && !handoff_written_since(store, record.updated_ms) {
        record.work_since_handoff = true;
    }
    record.transcript.offset = update.offset;
    record.transcript.skipped_bytes += update.skipped;
    // The transcript's clock is the client's word: never later than now.
    record.last_activity_ms = record.last_activity_ms.min(now_ms);
    record.updated = handover_base::clock::format_rfc3339(now_ms / 1000);
    record.updated_ms = now_ms;
    let _ = files::save(store, &record);
    record
}

/// `path` with its links resolved, when that lies inside `client`'s transcript directory (links
/// resolved too) and, where the client files sessions by the directory they started in, in the
/// folder of the project at `root` or of the record's `started_in` below it (a session started
/// in a subdirectory); None otherwise. `started_in` is the record's word, so it is taken only
/// as a plain relative path that resolves inside `root`: a forged one can name no folder but
/// one of this working tree's own.
fn own_transcript(
    client: &Client,
    path: &Path,
    root: &Path,
    started_in: &str,
    dirs: &UserDirs,
) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(client.transcript_dir(dirs)?).ok()?;
    let path = std::fs::canonicalize(path).ok()?;
    if !path.starts_with(&dir) || path == dir {
        return None;
    }
    // The clients name the folder after their working directory as the system gives it, links
    // resolved.
    let project = std::fs::canonicalize(root).ok()?;
    if client.transcript_in_project(&dir, &path, &project) {
        return Some(path);
    }
    let below = subdirectory(&project, started_in)?;
    client
        .transcript_in_project(&dir, &path, &below)
        .then_some(path)
}

/// `project`/`relative` with its links resolved, when `relative` is a plain relative path (no
/// `..`, not absolute, not empty) and what it resolves to still lies inside `project`.
fn subdirectory(project: &Path, relative: &str) -> Option<PathBuf> {
    let relative = Path::new(relative);
    let plain = relative
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if relative.as_os_str().is_empty() || !plain {
        return None;
    }
    let below = std::fs::canonicalize(project.join(relative)).ok()?;
    (below.starts_with(project) && below != project).then_some(below)
}

/// state.json was replaced at or after `since_ms`: a handoff written after the record's last
/// update knows its work.
fn handoff_written_since(store: &Store, since_ms: u64) -> bool {
    std::fs::metadata(store.state_path())
        .and_then(|m| m.modified())
        .map(|t| handover_base::clock::millis(t) >= since_ms)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use handover_clients::Agent::{Claude, Codex};
    use std::io::Write;

    fn claude_line(kind: &str, content: serde_json::Value) -> String {
        format!(
            "{}\n",
            serde_json::json!({"type": kind, "timestamp": "2026-11-25T10:00:00Z",
                "message": {"role": kind, "content": content}})
        )
    }

    fn repo() -> (tempfile::TempDir, Store) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir(&root).unwrap();
        git2::Repository::init(&root).unwrap();
        let store = Store::discover(&root);
        (tmp, store)
    }

    /// Claude Code's folder for the sessions started in `root` (an ASCII path here).
    fn claude_folder(root: &Path) -> String {
        std::fs::canonicalize(root)
            .unwrap()
            .to_str()
            .unwrap()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    }

    /// A home whose Claude Code transcript directory holds `<the repository's folder>/<name>`.
    fn claude_transcript(tmp: &Path, name: &str) -> (UserDirs, PathBuf) {
        let home = tmp.join("home");
        let dir = home
            .join(".claude/projects")
            .join(claude_folder(&tmp.join("repo")));
        std::fs::create_dir_all(&dir).unwrap();
        (UserDirs::under(&home), dir.join(name))
    }

    /// A failing `cat secrets` and a request, as Claude Code writes them.
    fn secret_lines() -> String {
        [
            claude_line("user", serde_json::json!("read it")),
            claude_line(
                "assistant",
                serde_json::json!([{"type": "tool_use", "id": "b1", "name": "Bash",
                "input": {"command": "cat secrets"}}]),
            ),
            claude_line(
                "user",
                serde_json::json!([{"type": "tool_result", "tool_use_id": "b1",
                "content": "Exit code 1", "is_error": true}]),
            ),
        ]
        .concat()
    }

    /// The working tree of another project, beside this one's `repo`.
    fn other_project(tmp: &Path) -> PathBuf {
        let root = tmp.join("other");
        std::fs::create_dir(&root).unwrap();
        root
    }

    /// A Claude Code transcript at `path` holding one request: `fix the parser`.
    fn write_request(path: &Path) {
        std::fs::write(
            path,
            claude_line("user", serde_json::json!("fix the parser")),
        )
        .unwrap();
    }

    fn now() -> u64 {
        handover_base::clock::millis(std::time::SystemTime::now())
    }

    /// A record of session `s1` of `agent`, its transcript at `path`.
    fn record_at(agent: handover_clients::Agent, path: &Path) -> SessionRecord {
        let mut record = SessionRecord::new("s1", agent);
        record.transcript.path = path.to_string_lossy().into_owned();
        record
    }

    /// `record`'s transcript is not followed: the record comes back as it was.
    fn assert_not_followed(store: &Store, record: SessionRecord, now: u64, dirs: &UserDirs) {
        let what = format!("{:?}", record.transcript);
        assert_eq!(
            transcript_grew_in(store, record.clone(), now, dirs),
            record,
            "{what}"
        );
    }

    /// `record`'s transcript is followed: [`secret_lines`]' failed command is read.
    fn assert_failure_read(store: &Store, record: SessionRecord, now: u64, dirs: &UserDirs) {
        let read = transcript_grew_in(store, record, now, dirs);
        assert_eq!(
            read.last_failure.as_ref().map(|c| c.command.as_str()),
            Some("cat secrets")
        );
    }

    #[test]
    fn a_turn_written_after_the_last_update_is_read_before_the_record_is_shown() {
        let (tmp, store) = repo();
        let (dirs, transcript) = claude_transcript(tmp.path(), "t.jsonl");
        write_request(&transcript);
        let mut record = record_at(Claude, &transcript);
        record.transcript.offset = std::fs::metadata(&transcript).unwrap().len();
        // Nothing appended: the record comes back as it was, and nothing is written.
        let same = transcript_grew_in(&store, record.clone(), 1_000, &dirs);
        assert_eq!(same, record);
        assert!(files::load(&store, "s1").is_none());

        // The turn's last lines, written after Stop: a failing command and the last answer.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        f.write_all(
            claude_line(
                "assistant",
                serde_json::json!([{"type": "tool_use", "id": "b1", "name": "Bash",
                "input": {"command": "sh gen.sh"}}]),
            )
            .as_bytes(),
        )
        .unwrap();
        f.write_all(
            claude_line(
                "user",
                serde_json::json!([{"type": "tool_result", "tool_use_id": "b1",
                "content": "Exit code 3", "is_error": true}]),
            )
            .as_bytes(),
        )
        .unwrap();
        f.write_all(
            claude_line(
                "assistant",
                serde_json::json!([{"type": "text", "text": "gen.sh still fails"}]),
            )
            .as_bytes(),
        )
        .unwrap();
        let now = handover_base::clock::millis(std::time::SystemTime::now());
        let fresh = transcript_grew_in(&store, record, now, &dirs);
        assert_eq!(
            fresh.last_failure.as_ref().map(|c| c.command.as_str()),
            Some("sh gen.sh")
        );
        assert_eq!(fresh.last_message.as_deref(), Some("gen.sh still fails"));
        assert!(fresh.work_since_handoff);
        assert_eq!(
            fresh.transcript.offset,
            std::fs::metadata(&transcript).unwrap().len()
        );
        // Saved: the next reader starts from the new offset.
        let saved = files::load(&store, "s1").unwrap();
        assert_eq!(saved.transcript.offset, fresh.transcript.offset);
    }

    #[test]
    fn a_path_that_is_not_a_transcript_or_a_huge_growth_is_left_alone() {
        let (tmp, store) = repo();
        let mut record = SessionRecord::new("s1", handover_clients::Agent::Claude);
        for path in ["relative.jsonl", "/dev/zero", "/etc/passwd"] {
            record.transcript.path = path.into();
            assert_eq!(transcript_grew(&store, record.clone(), 1), record, "{path}");
        }
        let big = tmp.path().join("big.jsonl");
        let line = claude_line("user", serde_json::json!("x"));
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_CATCH_UP + line.len() as u64 + 1).unwrap();
        record.transcript.path = big.to_string_lossy().into_owned();
        assert_eq!(transcript_grew(&store, record.clone(), 1), record);
    }

    /// A record is the repository's word: one that names a transcript outside the client's own
    /// transcript directory (another project's file, through `..` or a link) is not followed,
    /// however well its offset matches.
    #[test]
    fn a_record_naming_a_transcript_elsewhere_is_not_followed() {
        let (tmp, store) = repo();
        let (dirs, inside) = claude_transcript(tmp.path(), "own.jsonl");
        let failing = secret_lines();
        let elsewhere = tmp.path().join("other-project");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let outside = elsewhere.join("t.jsonl");
        std::fs::write(&outside, &failing).unwrap();
        std::fs::write(&inside, &failing).unwrap();
        let link = inside.with_file_name("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let dotdot = inside
            .parent()
            .unwrap()
            .join("../../../../other-project/t.jsonl");
        assert!(dotdot.exists(), "{}", dotdot.display());
        let now = handover_base::clock::millis(std::time::SystemTime::now());
        for path in [&outside, &link, &dotdot] {
            assert_not_followed(&store, record_at(Claude, path), now, &dirs);
        }
        assert!(files::load(&store, "s1").is_none(), "nothing saved");
        // The same lines in the client's own directory are read (the check above is the place,
        // not the content).
        assert_failure_read(&store, record_at(Claude, &inside), now, &dirs);
        // Another client's directory is not this client's.
        assert_not_followed(&store, record_at(Codex, &inside), now, &dirs);
    }

    /// A forged record naming another project's session, inside the same Claude Code
    /// directory: not followed. The same lines in this project's folder are.
    #[test]
    fn a_record_naming_another_projects_transcript_is_not_followed() {
        let (tmp, store) = repo();
        let (dirs, own) = claude_transcript(tmp.path(), "own.jsonl");
        let projects = own.parent().unwrap().parent().unwrap().to_path_buf();
        let other_root = other_project(tmp.path());
        let other = projects.join(claude_folder(&other_root)).join("t.jsonl");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        // A session started in a subdirectory, and one directly in projects/: no one's.
        let sub = projects
            .join(format!("{}-src", claude_folder(&tmp.path().join("repo"))))
            .join("t.jsonl");
        std::fs::create_dir_all(sub.parent().unwrap()).unwrap();
        let loose = projects.join("t.jsonl");
        for path in [&own, &other, &sub, &loose] {
            std::fs::write(path, secret_lines()).unwrap();
        }
        for path in [&other, &sub, &loose] {
            assert_not_followed(&store, record_at(Claude, path), now(), &dirs);
        }
        assert!(files::load(&store, "s1").is_none(), "nothing saved");
        assert_failure_read(&store, record_at(Claude, &own), now(), &dirs);
    }

    /// A session started in a subdirectory of the working tree has its transcript in that
    /// directory's folder: followed when the record says it started there. A `started_in` that
    /// leaves the working tree (`..`, an absolute path, a link out) names no folder.
    #[test]
    fn a_session_started_in_a_subdirectory_is_caught_up_from_its_folder() {
        let (tmp, store) = repo();
        let (dirs, own) = claude_transcript(tmp.path(), "own.jsonl");
        let projects = own.parent().unwrap().parent().unwrap().to_path_buf();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join("src/app")).unwrap();
        let other_root = other_project(tmp.path());
        std::os::unix::fs::symlink(&other_root, root.join("out")).unwrap();
        let sub = projects
            .join(claude_folder(&root.join("src/app")))
            .join("t.jsonl");
        let other = projects.join(claude_folder(&other_root)).join("t.jsonl");
        for path in [&sub, &other] {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, secret_lines()).unwrap();
        }
        let record_of = |path: &Path, started_in: &str| {
            let mut record = record_at(Claude, path);
            record.transcript.started_in = started_in.into();
            record
        };
        for (path, started_in) in [
            (&sub, ""),
            (&sub, "src"),
            (&other, "../other"),
            (&other, other_root.to_str().unwrap()),
            (&other, "out"),
        ] {
            assert_not_followed(&store, record_of(path, started_in), now(), &dirs);
        }
        assert!(files::load(&store, "s1").is_none(), "nothing saved");
        assert_failure_read(&store, record_of(&sub, "src/app"), now(), &dirs);
    }

    /// Codex files sessions by date, not by project: a rollout in its sessions directory is
    /// this project's by the working directory its `session_meta` names; nothing outside the
    /// directory is followed.
    #[test]
    fn a_codex_rollout_is_this_projects_by_its_session_meta() {
        let (tmp, day) = crate::temp_files::temp_folder("home/.codex/sessions/2026/11/22");
        let home = tmp.path().join("home");
        let root = tmp.path().join("repo");
        let other = tmp.path().join("other");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let rollout = |name: &str, cwd: &Path| {
            let path = day.join(name);
            let meta = serde_json::json!({"type": "session_meta", "payload": {"cwd": cwd}});
            std::fs::write(&path, format!("{meta}\n")).unwrap();
            path
        };
        let own = rollout("rollout-own.jsonl", &root);
        let others = rollout("rollout-other.jsonl", &other);
        let outside = tmp.path().join("rollout-y.jsonl");
        std::fs::copy(&own, &outside).unwrap();
        let dirs = UserDirs::under(&home);
        let codex = handover_clients::of(handover_clients::Agent::Codex);
        assert_eq!(
            own_transcript(codex, &own, &root, "", &dirs),
            Some(std::fs::canonicalize(&own).unwrap())
        );
        assert_eq!(own_transcript(codex, &others, &root, "", &dirs), None);
        assert_eq!(own_transcript(codex, &outside, &root, "", &dirs), None);
    }

    /// The record names a link that leads into this project's folder when it is checked, and
    /// elsewhere once it is opened: the file checked is the file read.
    #[test]
    fn a_link_swapped_between_the_check_and_the_open_does_not_redirect_the_read() {
        let (tmp, store) = repo();
        let (dirs, own) = claude_transcript(tmp.path(), "own.jsonl");
        write_request(&own);
        let outside = tmp.path().join("outside.jsonl");
        std::fs::write(&outside, secret_lines()).unwrap();
        let link = tmp.path().join("repo/link.jsonl");
        std::os::unix::fs::symlink(&own, &link).unwrap();
        let record = record_at(Claude, &link);
        let swap = || {
            std::fs::remove_file(&link).unwrap();
            std::os::unix::fs::symlink(&outside, &link).unwrap();
        };
        let read = catch_up(&store, record, now(), &dirs, swap);
        assert_eq!(read.last_failure, None, "the swapped-in file was read");
        assert_eq!(read.requests, ["fix the parser"]);
    }

    /// Claude Code moved with an absolute `CLAUDE_CONFIG_DIR` keeps its transcripts there:
    /// followed there, and no longer under `~/.claude`.
    #[test]
    fn claude_config_dir_moves_the_transcript_directory() {
        let (tmp, store) = repo();
        let (home_dirs, in_home) = claude_transcript(tmp.path(), "t.jsonl");
        std::fs::write(&in_home, secret_lines()).unwrap();
        let moved = tmp.path().join("moved-claude");
        let in_moved = moved
            .join("projects")
            .join(claude_folder(&tmp.path().join("repo")))
            .join("t.jsonl");
        std::fs::create_dir_all(in_moved.parent().unwrap()).unwrap();
        std::fs::write(&in_moved, secret_lines()).unwrap();
        let dirs = UserDirs::from_lookup(|name| match name {
            "HOME" => home_dirs.home.clone().map(Into::into),
            "CLAUDE_CONFIG_DIR" => Some(moved.clone().into()),
            _ => None,
        });
        assert_failure_read(&store, record_at(Claude, &in_moved), now(), &dirs);
        assert_not_followed(&store, record_at(Claude, &in_home), now(), &dirs);
    }
}
