//! The session record through the real hook binaries: Stop updates it from the transcript's new
//! bytes, SessionEnd and PreCompact close it with the working tree's state, and the next
//! session's SessionStart shows it (alone when the work looks unfinished, after the handoff
//! when it is newer), on the transcripts captured from both clients.

use crate::support::exe::{context_watch_exe, pre_compact_exe, session_start_exe};
use crate::support::hook::*;
use handover_record::SessionRecord;
use std::path::{Path, PathBuf};

const SID: &str = "0b1c2d3e-1111-2222-3333-444455556666";

/// The captured tool-call transcript of `client`, its project path replaced by `repo`'s.
fn transcript(repo: &TestRepo, client: &str) -> PathBuf {
    let (rel, name) = match client {
        "claude" => ("claude-2.1.330/transcript-tools.jsonl", "t.jsonl"),
        _ => ("codex-0.169.0/rollout-tools.jsonl", "rollout-x.jsonl"),
    };
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/clients")
            .join(rel),
    )
    .unwrap();
    let text = text.replace("/tmp/FIXTURE/project", &repo.path().to_string_lossy());
    // Beside the repository, named after it: one shared `transcripts-<client>` directory was
    // overwritten by tests running at the same time (and inside the repository it would be
    // part of the working tree the record describes).
    let repo_name = repo.path().file_name().unwrap().to_string_lossy();
    let dir = repo
        .path()
        .join("..")
        .join(format!("{repo_name}-transcripts-{client}"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// What the captured sessions did to the working tree.
fn do_the_work(repo: &TestRepo) {
    repo.write("src/parse.py", "def parse(s):\n    return s.strip()\n");
    repo.write("run_tests.sh", "#!/bin/sh\nexit 1\n");
}

fn hook(bin: &str, client: &str, v: serde_json::Value) -> Run {
    let run = run_hook(bin, &["--agent", client], payload(v), &[]);
    run.assert_clean(bin);
    run
}

fn stop(repo: &TestRepo, client: &str, t: &Path) -> Run {
    hook(
        context_watch_exe(),
        client,
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "Stop", "stop_hook_active": false,
            "last_assistant_message": "Parser edited; the test suite still fails on test_parse."}),
    )
}

fn session_end(repo: &TestRepo, client: &str, t: &Path) -> Run {
    hook(
        pre_compact_exe(),
        client,
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "SessionEnd", "reason": "other"}),
    )
}

fn next_session(repo: &TestRepo, client: &str) -> Run {
    hook(
        session_start_exe(),
        client,
        serde_json::json!({"session_id": "next-session", "cwd": repo.path(),
            "hook_event_name": "SessionStart", "source": "startup"}),
    )
}

/// [`next_session`] of Claude Code with `HOME` set to `home`.
fn next_session_with_home(repo: &TestRepo, home: &Path) -> Run {
    let v = serde_json::json!({"session_id": "next-session", "cwd": repo.path(),
        "hook_event_name": "SessionStart", "source": "startup"});
    let home = home.to_string_lossy();
    let run = run_hook(
        session_start_exe(),
        &["--agent", "claude"],
        payload(v),
        &[("HOME", &home)],
    );
    run.assert_clean(session_start_exe());
    run
}

fn record(repo: &TestRepo) -> SessionRecord {
    handover_record::files::load(&repo.store(), SID).expect("a record for the session")
}

#[test]
fn an_unfinished_session_without_handoff_is_shown_to_the_next_one() {
    for client in ["claude", "codex"] {
        let repo = TestRepo::pinned();
        let t = transcript(&repo, client);
        do_the_work(&repo);
        let run = stop(&repo, client, &t);
        assert!(run.stdout.is_empty(), "{client}: {}", run.stdout_str());
        let r = record(&repo);
        let mut files = r.files_edited.clone();
        files.sort();
        assert_eq!(files, ["run_tests.sh", "src/parse.py"], "{client}");
        assert!(r.last_test_failed(), "{client}");
        assert_eq!(r.ended, None);
        let git = r.git.clone().unwrap();
        assert_eq!(git.branch.as_deref(), Some("main"));
        assert_eq!(
            git.dirty.as_deref(),
            Some(&["run_tests.sh".to_string(), "src/parse.py".to_string()][..]),
            "{client}: a turn that ran commands scans the tree"
        );
        assert_eq!(
            r.transcript.offset,
            std::fs::metadata(&t).unwrap().len(),
            "{client}"
        );

        let run = session_end(&repo, client, &t);
        assert!(run.stdout.is_empty());
        let r = record(&repo);
        let ended = r.ended.clone().unwrap();
        assert_eq!(
            (ended.how.as_str(), ended.reason.as_deref()),
            ("session_end", Some("other"))
        );
        assert_eq!(
            r.git.unwrap().dirty.unwrap(),
            ["run_tests.sh", "src/parse.py"],
            "{client}"
        );
        assert_eq!(r.commands_total, 4, "{client}: no fact read twice");

        let text = next_session(&repo, client).context("SessionStart");
        insta::assert_snapshot!(format!("record_without_handoff_{client}"), ours(&text));
        assert!(text.chars().count() <= 1500);
    }
}

#[test]
fn a_session_that_committed_its_work_and_passed_leaves_the_next_one_silent() {
    let repo = TestRepo::pinned();
    let dir = repo.path().join("../t-clean");
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("t.jsonl");
    let p = repo.path().join("src/lib.rs");
    let lines = [
        serde_json::json!({"type":"user","timestamp":"2026-11-23T10:00:00.000Z","message":{"role":"user","content":"tidy lib.rs"}}),
        serde_json::json!({"type":"assistant","timestamp":"2026-11-23T10:00:01.000Z","message":{"role":"assistant","content":[
            {"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":p,"old_string":"f","new_string":"g"}},
            {"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo test"}}]}}),
        serde_json::json!({"type":"user","timestamp":"2026-11-23T10:00:02.000Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t2","content":"ok","is_error":false}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&t, text).unwrap();
    repo.write("src/lib.rs", "pub fn g() {}\n");
    repo.commit("tidy");
    stop(&repo, "claude", &t);
    session_end(&repo, "claude", &t);
    let r = record(&repo);
    assert_eq!(r.files_edited, ["src/lib.rs"]);
    assert_eq!(r.last_test.as_ref().unwrap().status, "passed");
    let run = next_session(&repo, "claude");
    assert!(run.stdout.is_empty(), "{}", run.stdout_str());
    // `always` shows it anyway; `never` never does.
    repo.write(".handover/config.toml", "[records]\nstartup = \"always\"\n");
    let shown = next_session(&repo, "claude").context("SessionStart");
    insta::assert_snapshot!("record_shown_always", ours(&shown));
    repo.write(".handover/config.toml", "[records]\nstartup = \"never\"\n");
    // Leave work unfinished: still nothing with `never`.
    repo.write("src/lib.rs", "pub fn h() {}\n");
    assert!(next_session(&repo, "claude").stdout.is_empty());
}

#[test]
fn after_a_handoff_the_newer_record_is_added_and_a_handoff_written_last_is_not_repeated() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let t = transcript(&repo, "codex");
    do_the_work(&repo);
    stop(&repo, "codex", &t);
    session_end(&repo, "codex", &t);
    let text = next_session(&repo, "codex").context("SessionStart");
    insta::assert_snapshot!("handoff_then_newer_record", ours(&text));
    assert!(text.chars().count() <= 1500, "{}", text.chars().count());

    // The same session writes a new handoff in its last turn: the record adds nothing to it.
    repo.save_handoff();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&t)
        .and_then(|mut f| {
            std::io::Write::write_all(
                &mut f,
                b"{\"timestamp\":\"2026-11-23T11:00:00.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":{\"type\":\"CommandExecution\",\"command\":[\"bash\",\"-lc\",\"handover write --from -\"],\"exit_code\":0}}}\n",
            )
        })
        .unwrap();
    stop(&repo, "codex", &t);
    let text = next_session(&repo, "codex").context("SessionStart");
    insta::assert_snapshot!("handoff_written_last_no_record", ours(&text));
}

#[test]
fn updates_read_only_what_was_appended() {
    let repo = TestRepo::pinned();
    let t = transcript(&repo, "claude");
    stop(&repo, "claude", &t);
    let first = record(&repo);
    // Nothing appended: the same facts, nothing counted twice.
    stop(&repo, "claude", &t);
    let again = record(&repo);
    assert_eq!(again.commands_total, first.commands_total);
    assert_eq!(again.transcript.offset, first.transcript.offset);
    // One more failing command, appended: read, and only it.
    let more = [
        serde_json::json!({"type":"assistant","timestamp":"2026-11-23T12:00:00.000Z","message":{"role":"assistant","content":[
            {"type":"tool_use","id":"late","name":"Bash","input":{"command":"pytest -q"}}]}}),
        serde_json::json!({"type":"user","timestamp":"2026-11-23T12:00:01.000Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"late","content":"Exit code 2\nerror","is_error":true}]}}),
    ];
    let text: String = more.iter().map(|l| format!("{l}\n")).collect();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&t)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .unwrap();
    stop(&repo, "claude", &t);
    let r = record(&repo);
    assert_eq!(r.commands_total, first.commands_total + 1);
    let last = r.last_failure.unwrap();
    assert_eq!(
        (last.command.as_str(), last.exit_code),
        ("pytest -q", Some(2))
    );
}

#[test]
fn pre_compact_marks_the_compaction_and_a_later_turn_keeps_it() {
    let repo = TestRepo::pinned();
    let t = transcript(&repo, "claude");
    hook(
        pre_compact_exe(),
        "claude",
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "PreCompact", "trigger": "auto"}),
    );
    let r = record(&repo);
    let e = r.ended.unwrap();
    assert_eq!(
        (e.how.as_str(), e.reason.as_deref()),
        ("compaction", Some("auto"))
    );
    assert_eq!(r.git.unwrap().dirty, Some(vec![]));
}

/// PreCompact answers before its save: its output ends while the save still waits (here for
/// the journal's lock, which the test holds), so a client that reads the answer to its end
/// (OpenCode's and Kilo Code's plugin, before the summarizer request) waits for none of the
/// save; the save is then done all the same. Before, the output ended with the process: after
/// the save had given up on the lock.
#[test]
fn pre_compact_answers_before_its_save_and_still_saves() {
    use std::io::{Read, Write};
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let t = transcript(&repo, "claude");
    let lock = std::fs::File::create(repo.store().journal_lock_path()).unwrap();
    lock.lock().unwrap();
    let neutral = tempfile::tempdir().unwrap();
    let mut child = hook_command(pre_compact_exe(), &["--agent", "claude"], neutral.path())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let input = payload(serde_json::json!({"session_id": SID, "transcript_path": t,
        "cwd": repo.path(), "hook_event_name": "PreCompact", "trigger": "auto"}));
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let mut answer = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut answer)
        .unwrap();
    // The whole answer is out, and the save has not journaled yet: it waits for the lock.
    assert!(answer.contains("handover"), "{answer}");
    assert!(repo.journal_events_named("pre_compact").is_empty());
    drop(lock);
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(repo.journal_events_named("pre_compact").len(), 1);
    let ended = record(&repo).ended.unwrap();
    assert_eq!(ended.how.as_str(), "compaction");
}

#[test]
fn nothing_is_recorded_outside_a_git_repository_or_without_a_session() {
    let repo = TestRepo::without_git();
    let t = transcript(&repo, "claude");
    stop(&repo, "claude", &t);
    assert!(!repo.path().join(".handover").exists());
    let repo = TestRepo::pinned();
    hook(
        context_watch_exe(),
        "claude",
        serde_json::json!({"transcript_path": t, "cwd": repo.path(), "hook_event_name": "Stop"}),
    );
    assert!(!repo.path().join(".handover/records").exists());
}

/// A Claude Code transcript of `lines` (JSON values), beside the repository.
fn transcript_of(repo: &TestRepo, name: &str, lines: &[serde_json::Value]) -> PathBuf {
    let dir = repo.path().join("..").join(format!(
        "{}-t-{name}",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("t.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&t, text).unwrap();
    t
}

/// A Claude Code session that ran `commands` through Bash (results: `(failed, output)`), the
/// first line dated `started`.
fn shell_session(started: &str, commands: &[(&str, bool, &str)]) -> Vec<serde_json::Value> {
    let mut lines = vec![serde_json::json!({"type":"user","timestamp":started,
        "message":{"role":"user","content":"make the parser strip whitespace"}})];
    for (i, (cmd, failed, out)) in commands.iter().enumerate() {
        let id = format!("b{i}");
        lines.push(serde_json::json!({"type":"assistant","timestamp":started,"message":{"role":"assistant","content":[
            {"type":"tool_use","id":id,"name":"Bash","input":{"command":cmd}}]}}));
        lines.push(serde_json::json!({"type":"user","timestamp":started,"message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":out,"is_error":failed}]}}));
    }
    lines
}

fn set_mtime(path: &Path, t: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn stop_as(repo: &TestRepo, client: &str, sid: &str, t: &Path) -> Run {
    hook(
        context_watch_exe(),
        client,
        serde_json::json!({"session_id": sid, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": if client == "gemini" { "AfterAgent" } else { "Stop" },
            "stop_hook_active": false}),
    )
}

#[test]
fn files_changed_through_the_shell_count_and_files_dirty_before_the_session_do_not() {
    let repo = TestRepo::pinned();
    // Dirty before the session began, and untouched by it.
    repo.write("src/lib.rs", "pub fn user_edit() {}\n");
    let before = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    set_mtime(&repo.path().join("src/lib.rs"), before);
    // Dirty before too, and changed again by the session.
    repo.write("README.md", "draft\n");
    set_mtime(&repo.path().join("README.md"), before);
    let started = handover_base::clock::format_rfc3339(
        handover_base::clock::millis(std::time::SystemTime::now()) / 1000 - 60,
    );
    let t = transcript_of(
        &repo,
        "shell",
        &shell_session(
            &started,
            &[
                (
                    "printf 'def parse(s):\\n    return s.strip()\\n' > src/parse.py",
                    false,
                    "",
                ),
                ("sed -i 's/draft/final/' README.md", false, ""),
                ("sh gen.sh", true, "Exit code 3"),
            ],
        ),
    );
    // What those commands did.
    repo.write("src/parse.py", "def parse(s):\n    return s.strip()\n");
    repo.write("README.md", "final\n");
    stop_as(&repo, "claude", SID, &t);
    let r = record(&repo);
    let mut files = r.files_edited.clone();
    files.sort();
    assert_eq!(files, ["README.md", "src/parse.py"]);
    assert!(r.work_since_handoff);
    assert_eq!(
        r.last_failure.as_ref().map(|c| c.command.as_str()),
        Some("sh gen.sh")
    );
    assert!(!r.last_test_failed(), "no test ran");
    // No SessionEnd: the next session is told the files, the failure, and what is known of the
    // end, without a claim that the session was killed.
    repo.commit("the agent's work, committed by the user");
    let text = next_session(&repo, "claude").context("SessionStart");
    insta::assert_snapshot!("record_no_end_recorded", ours(&text));
}

#[test]
fn a_failure_fixed_later_leaves_a_clean_session_silent_and_one_left_behind_does_not() {
    let started = "2026-11-23T10:00:00.000Z";
    for (commands, shown) in [
        (
            vec![
                ("./gen.sh", true, "Exit code 2"),
                ("./gen.sh", false, "generated"),
            ],
            false,
        ),
        (
            vec![
                ("./gen.sh", false, "generated"),
                ("./gen.sh --check", true, "Exit code 2"),
                ("ls", false, "x"),
            ],
            true,
        ),
    ] {
        let repo = TestRepo::pinned();
        let t = transcript_of(&repo, "fixed", &shell_session(started, &commands));
        stop_as(&repo, "claude", SID, &t);
        let run = next_session(&repo, "claude");
        if shown {
            let text = run.context("SessionStart");
            insta::assert_snapshot!("record_failure_left_behind", ours(&text));
        } else {
            assert!(run.stdout.is_empty(), "{}", run.stdout_str());
        }
    }
}

#[test]
fn a_late_session_end_of_an_older_session_does_not_make_it_the_newest() {
    let repo = TestRepo::pinned();
    let old = transcript_of(
        &repo,
        "old",
        &shell_session(
            "2026-11-23T10:00:00.000Z",
            &[("cargo test old_thread", true, "Exit code 101")],
        ),
    );
    let new = transcript_of(
        &repo,
        "new",
        &shell_session(
            "2026-11-23T10:05:00.000Z",
            &[("cargo test new_thread", true, "Exit code 101")],
        ),
    );
    stop_as(&repo, "claude", "old-thread", &old);
    std::thread::sleep(std::time::Duration::from_millis(30));
    // The new thread's shell edit, after the old thread's last activity.
    repo.write("src/new_thread.rs", "pub fn n() {}\n");
    stop_as(&repo, "claude", "new-thread", &new);
    std::thread::sleep(std::time::Duration::from_millis(30));
    // The thread left first ends a minute later (Codex's app-server; the transcripts here
    // are Claude Code's format, the ranking is the same for every client).
    hook(
        pre_compact_exe(),
        "claude",
        serde_json::json!({"session_id": "old-thread", "transcript_path": old, "cwd": repo.path(),
            "hook_event_name": "SessionEnd", "reason": "other"}),
    );
    let store = repo.store();
    let now = handover_base::clock::millis(std::time::SystemTime::now());
    let ranked: Vec<String> = handover_record::files::list_own(&store, now)
        .into_iter()
        .map(|r| r.session_id)
        .collect();
    assert_eq!(ranked, ["new-thread", "old-thread"]);
    let text = next_session(&repo, "claude").context("SessionStart");
    insta::assert_snapshot!("record_of_the_newest_thread", ours(&text));
    // The late end is recorded, but not as activity.
    let old = handover_record::files::load(&store, "old-thread").unwrap();
    assert_eq!(
        old.ended.unwrap().how,
        handover_record::HowEnded::SessionEnd
    );
    let new = handover_record::files::load(&store, "new-thread").unwrap();
    assert!(old.last_activity_ms < new.last_activity_ms);
    // Its end-of-session scan does not take the newer thread's edit.
    assert_eq!(new.files_edited, ["src/new_thread.rs"]);
    assert!(old.files_edited.is_empty(), "{:?}", old.files_edited);
}

/// Gemini CLI: the record comes from its transcript (`chats/session-*.jsonl`), updated at
/// AfterAgent; a reply written twice (before and after its tool calls completed) counts once.
#[test]
fn gemini_sessions_are_recorded_from_their_transcript() {
    let repo = TestRepo::pinned();
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/clients/gemini-0.61.0/transcript-tools.jsonl"),
    )
    .unwrap()
    .replace("/tmp/FIXTURE/project", &repo.path().to_string_lossy());
    let dir = repo.path().join("..").join(format!(
        "{}-gemini-chats",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("session-x.jsonl");
    std::fs::write(&t, &fixture).unwrap();
    // What the captured session did to the working tree.
    repo.write("src/parse.py", "def parse(s):\n    return s.strip()\n");
    repo.write("run_tests.sh", "#!/bin/sh\nexit 1\n");
    repo.write("notes.txt", "written by the shell\n");
    let run = stop_as(&repo, "gemini", SID, &t);
    assert!(run.stdout.is_empty() || run.stdout_str().starts_with('{'));
    let r = record(&repo);
    assert_eq!(r.agent, "gemini");
    let mut files = r.files_edited.clone();
    files.sort();
    assert_eq!(files, ["notes.txt", "run_tests.sh", "src/parse.py"]);
    assert_eq!(
        r.last_failure
            .as_ref()
            .map(|c| (c.command.as_str(), c.exit_code)),
        Some(("sh run_tests.sh", Some(1)))
    );
    assert!(r.last_test_failed());
    let once = r.commands_total;
    // Nothing new: nothing counted twice; the whole file written again (as Gemini CLI does
    // on a resume) neither.
    stop_as(&repo, "gemini", SID, &t);
    assert_eq!(record(&repo).commands_total, once);
    // Gemini CLI's SessionEnd (`/quit`, Ctrl-C, the end of `-p`) says how it ended.
    hook(
        pre_compact_exe(),
        "gemini",
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "SessionEnd", "reason": "exit"}),
    );
    let text = next_session(&repo, "gemini").context("SessionStart");
    insta::assert_snapshot!("record_without_handoff_gemini", ours(&text));
}

#[test]
fn a_tree_too_slow_to_scan_after_a_turn_is_left_to_the_end() {
    let repo = TestRepo::pinned();
    let t = transcript_of(
        &repo,
        "slow",
        &shell_session(
            "2026-11-23T10:00:00.000Z",
            &[("printf x > made.txt", false, "")],
        ),
    );
    repo.write("made.txt", "x");
    // The record of a session whose last scan took 2 s.
    let mut r = SessionRecord::new(SID, handover_clients::Agent::Claude);
    r.scan_ms = Some(2_000);
    handover_record::files::save(&repo.store(), &r).unwrap();
    stop_as(&repo, "claude", SID, &t);
    let r = record(&repo);
    assert_eq!(r.git.unwrap().dirty, None, "no scan after the turn");
    assert!(r.files_edited.is_empty());
    assert_eq!(r.scan_ms, Some(2_000));
    // SessionEnd scans anyway, and keeps how long it took (a quick scan lets the turns scan
    // again).
    session_end(&repo, "claude", &t);
    let r = record(&repo);
    assert_eq!(r.files_edited, ["made.txt"]);
    assert!(r.scan_ms.is_some_and(|ms| ms < 2_000), "{:?}", r.scan_ms);
}

/// A committed file at the top of the tree removed through the shell is the session's edit,
/// like one in a subdirectory: dated by the top directory, which the removal changed.
#[test]
fn a_file_removed_at_the_top_of_the_tree_is_attributed() {
    let repo = TestRepo::pinned();
    repo.write("OLD_NOTES.md", "obsolete\n");
    repo.commit("notes");
    let started = handover_base::clock::format_rfc3339(
        handover_base::clock::millis(std::time::SystemTime::now()) / 1000 - 60,
    );
    let t = transcript_of(
        &repo,
        "removal",
        &shell_session(&started, &[("rm OLD_NOTES.md", false, "")]),
    );
    std::fs::remove_file(repo.path().join("OLD_NOTES.md")).unwrap();
    stop_as(&repo, "claude", SID, &t);
    assert_eq!(record(&repo).files_edited, ["OLD_NOTES.md"]);
}

/// Claude Code's terminal UI writes a turn's last lines to its transcript after Stop ran, and a
/// session killed right after that turn sends no SessionEnd: the next session's start reads
/// what the transcript gained since the record's last update (record::catch_up).
#[test]
fn lines_written_after_the_last_stop_reach_the_next_session() {
    let repo = TestRepo::pinned();
    let started = handover_base::clock::format_rfc3339(
        handover_base::clock::millis(std::time::SystemTime::now()) / 1000 - 60,
    );
    let lines = shell_session(
        &started,
        &[
            ("printf 'x' > src/gen.rs", false, ""),
            ("sh gen.sh", true, "Exit code 3"),
        ],
    );
    // At Stop the transcript ends before the failing command's call. It lies where Claude
    // Code keeps this project's transcripts, under the home the next session's hook runs with.
    let outside = transcript_of(&repo, "late", &lines[..3]);
    let home = outside.parent().unwrap().join("home");
    let folder = std::fs::canonicalize(repo.path())
        .unwrap()
        .to_string_lossy()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    let dir = home.join(".claude/projects").join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("late.jsonl");
    std::fs::rename(&outside, &t).unwrap();
    repo.write("src/gen.rs", "x");
    stop_as(&repo, "claude", SID, &t);
    assert_eq!(record(&repo).last_failure, None);
    // Then the client writes the rest, and is killed.
    let rest: String = lines[3..].iter().map(|l| format!("{l}\n")).collect();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&t)
        .and_then(|mut f| std::io::Write::write_all(&mut f, rest.as_bytes()))
        .unwrap();
    // Under another home the transcript is not Claude Code's: the record does not follow its
    // path there (a record is the repository's word, and could name any file).
    let elsewhere = home.with_file_name("other-home");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let text = next_session_with_home(&repo, &elsewhere).context("SessionStart");
    assert!(!text.contains("sh gen.sh"), "{text}");
    assert_eq!(record(&repo).last_failure, None);
    let text = next_session_with_home(&repo, &home).context("SessionStart");
    insta::assert_snapshot!("record_caught_up_after_the_stop", ours(&text));
    // Brought up to date on disk too: read once.
    let r = record(&repo);
    assert_eq!(r.transcript.offset, std::fs::metadata(&t).unwrap().len());
    assert_eq!(r.commands.len(), 2);
}

/// Qwen Code writes its transcript through a queue and sends no SessionEnd under `-p`: a
/// session whose last step fails can reach its last Stop with the failure not yet written. Its
/// PostToolUseFailure (fired instead of PostToolUse) records the failing command from the hook
/// input, under the call's id, so the transcript's own line for it, read later, adds nothing.
#[test]
fn a_qwen_failure_reaches_the_record_from_its_hook_before_the_transcript_has_it() {
    let repo = TestRepo::pinned();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clients/qwen-0.24.4");
    let text = std::fs::read_to_string(fixtures.join("transcript-tools.jsonl"))
        .unwrap()
        .replace("/tmp/FIXTURE/project", &repo.path().to_string_lossy());
    let lines: Vec<&str> = text.lines().collect();
    let call = lines
        .iter()
        .position(|l| l.contains("\"functionCall\"") && l.contains("call_fake_4"))
        .unwrap();
    // The transcript as the hooks find it: the failing call is in, its result is not.
    let dir = repo.path().with_file_name(format!(
        "{}-qwen",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("q.jsonl");
    std::fs::write(&t, lines[..=call].join("\n") + "\n").unwrap();
    do_the_work(&repo);
    let mut failure: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures.join("post_tool_use_failure.json")).unwrap(),
    )
    .unwrap();
    failure["session_id"] = SID.into();
    failure["cwd"] = repo.path().to_string_lossy().into_owned().into();
    failure["transcript_path"] = t.to_string_lossy().into_owned().into();
    let run = hook(context_watch_exe(), "qwen", failure);
    assert!(
        run.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let r = record(&repo);
    assert_eq!(
        r.last_failure
            .as_ref()
            .map(|c| (c.command.as_str(), c.exit_code)),
        Some(("sh run_tests.sh", Some(1)))
    );
    // The last Stop still finds no result in the transcript; the next session is told.
    stop(&repo, "qwen", &t);
    let text = next_session(&repo, "qwen").context("SessionStart");
    insta::assert_snapshot!(
        "qwen_failure_from_the_hook",
        crate::support::snapshot::placeholders(repo.path(), &ours(&text))
    );
    // Then the queue writes the rest: read at the next update, the result counts once.
    std::fs::write(&t, lines.join("\n") + "\n").unwrap();
    stop(&repo, "qwen", &t);
    let r = record(&repo);
    assert_eq!(
        r.commands
            .iter()
            .filter(|c| c.command == "sh run_tests.sh")
            .count(),
        1,
        "{:?}",
        r.commands
    );
    assert!(
        r.transcript.pending.is_empty(),
        "{:?}",
        r.transcript.pending
    );
}

/// GitHub Copilot CLI's captured tool-call transcript in `repo`'s place, holding only its first
/// `kept` lines (what the client had written when a hook began); returns it and the rest.
fn copilot_transcript_cut(repo: &TestRepo, kept: usize) -> (PathBuf, String) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/clients/copilot-1.0.102/events-tools.jsonl"),
    )
    .unwrap()
    .replace("/tmp/FIXTURE/project", &repo.path().to_string_lossy());
    let lines: Vec<&str> = text.lines().collect();
    let repo_name = repo.path().file_name().unwrap().to_string_lossy();
    let dir = repo
        .path()
        .join("..")
        .join(format!("{repo_name}-transcripts-copilot"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.jsonl");
    std::fs::write(&path, lines[..kept].join("\n") + "\n").unwrap();
    (path, lines[kept..].join("\n") + "\n")
}

/// One Copilot CLI hook call (its payloads name no event: the installed command does), with
/// the debug log going to `log`.
fn copilot_hook(bin: &str, event: &str, v: serde_json::Value, log: &Path) -> Run {
    let log = log.to_string_lossy();
    let run = run_hook(
        bin,
        &["--agent", "copilot", "--event", event],
        payload(v),
        &[("HANDOVER_HOOK_DEBUG", &log)],
    );
    run.assert_clean(bin);
    run
}

fn now_ms() -> u64 {
    handover_base::clock::millis(std::time::SystemTime::now())
}

/// Copilot CLI writes its transcript once no event came for 100 ms, and waits for sessionEnd
/// before it exits: the hook answers at once and a detached copy of it finishes the record
/// after the write. The lines appended only after the hook exited are in the record, so the
/// copy outlived the hook and waited for them; the hook's own answer is empty, as before.
#[test]
fn copilot_session_end_answers_at_once_and_a_detached_copy_finishes_after_the_write() {
    let repo = TestRepo::pinned();
    do_the_work(&repo);
    // Cut before the turn that runs the failing tests.
    let (t, rest) = copilot_transcript_cut(&repo, 41);
    let log = t.with_file_name("hooks.log");
    // The turn before: agentStop (Copilot runs it before sessionEnd) starts the record.
    copilot_hook(
        context_watch_exe(),
        "agentStop",
        serde_json::json!({"sessionId": SID, "cwd": repo.path(), "transcriptPath": t,
            "stopReason": "end_turn"}),
        &log,
    );
    let began = now_ms();
    let run = copilot_hook(
        pre_compact_exe(),
        "sessionEnd",
        serde_json::json!({"sessionId": SID, "timestamp": began, "cwd": repo.path(),
            "reason": "complete", "transcriptPath": t}),
        &log,
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout_str());
    // The client's write of the session's last turn, after the hook ended.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&t)
        .and_then(|mut f| std::io::Write::write_all(&mut f, rest.as_bytes()))
        .unwrap();
    let r = wait_for_record_end(repo.path(), SID, began).unwrap_or_else(|| {
        panic!(
            "no ended record within the wait; log: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    assert_eq!(
        r.ended.as_ref().unwrap().reason.as_deref(),
        Some("complete")
    );
    assert_eq!(
        r.commands
            .iter()
            .map(|c| (c.command.as_str(), c.exit_code))
            .collect::<Vec<_>>(),
        [
            ("printf 'written by the shell\\n' > notes.txt", Some(0)),
            ("sh run_tests.sh", Some(1))
        ],
        "the failing command was written after the hook ended"
    );
    assert!(r.last_test_failed());
    assert_eq!(r.transcript.offset, std::fs::metadata(&t).unwrap().len());
    let log = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 3, "agentStop, sessionEnd and its copy: {log}");
    assert!(
        lines[1].contains("finished after the client's transcript write by process"),
        "{log}"
    );
    assert!(
        lines[2].contains("record updated after the client's transcript write"),
        "{log}"
    );
}

/// A session resumed while the copy that finishes its SessionEnd still waits: the resume writes
/// the record, the copy finds it written after the session ended and leaves it, so the resumed
/// session is not marked ended.
#[test]
fn copilot_session_resumed_while_its_end_is_finished_stays_open() {
    let repo = TestRepo::pinned();
    do_the_work(&repo);
    let (t, rest) = copilot_transcript_cut(&repo, 41);
    let log = t.with_file_name("hooks.log");
    let base = serde_json::json!({"sessionId": SID, "cwd": repo.path(), "transcriptPath": t});
    let with = |more: serde_json::Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(more.as_object().unwrap().clone());
        v
    };
    copilot_hook(
        context_watch_exe(),
        "agentStop",
        with(serde_json::json!({"stopReason": "end_turn"})),
        &log,
    );
    assert!(record(&repo).ended.is_none());
    copilot_hook(
        pre_compact_exe(),
        "sessionEnd",
        with(serde_json::json!({"reason": "complete"})),
        &log,
    );
    let run = copilot_hook(
        session_start_exe(),
        "sessionStart",
        with(serde_json::json!({"source": "resume"})),
        &log,
    );
    assert!(run.stdout.is_empty() || run.json().is_object());
    std::fs::OpenOptions::new()
        .append(true)
        .open(&t)
        .and_then(|mut f| std::io::Write::write_all(&mut f, rest.as_bytes()))
        .unwrap();
    let until = std::time::Instant::now() + RECORD_END_WAIT;
    let log_text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.lines().count() >= 4 || std::time::Instant::now() >= until {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(log_text.contains("record: resumed"), "{log_text}");
    assert!(
        log_text.contains("written since the session ended (resumed?), left as it is"),
        "{log_text}"
    );
    assert_eq!(record(&repo).ended, None, "{log_text}");
}

/// Factory Droid gives the commands its shell tool runs no session id: the model's
/// `handover write` found no record of its own. Its SessionStart applies the `export` lines a
/// hook writes to the payload's `CLAUDE_ENV_FILE` to the session's later commands, so ours
/// exports the session id there; the write, in the environment Droid 0.225.2's shell tool gives
/// (captured with `env` through its `Execute` tool), then fills from its own record. Without
/// the exported id (a person's shell, or a Droid before this) it fills nothing.
#[test]
fn a_write_from_droids_shell_finds_its_record_by_the_id_its_session_start_exported() {
    let repo = TestRepo::pinned();
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clients/droid-0.225.2");
    let t = transcript_of_fixture(&repo, &fixtures.join("transcript-tools.jsonl"), "droid");
    let env_dir = tempfile::tempdir().unwrap();
    let env_file = env_dir.path().join(format!("droid-env-{SID}-1.sh"));
    let mut start: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures.join("session_start-startup.json")).unwrap(),
    )
    .unwrap();
    start["session_id"] = SID.into();
    start["cwd"] = repo.path().to_string_lossy().into_owned().into();
    start["transcript_path"] = t.to_string_lossy().into_owned().into();
    start["CLAUDE_ENV_FILE"] = env_file.to_string_lossy().into_owned().into();
    hook(session_start_exe(), "droid", start);
    let exported = std::fs::read_to_string(&env_file).unwrap();
    assert_eq!(
        exported,
        format!("export HANDOVER_DROID_SESSION_ID={SID}\n")
    );
    // What Droid does with the file: each `export NAME=value` line set for later commands.
    let (name, value) = exported
        .trim_end()
        .strip_prefix("export ")
        .and_then(|l| l.split_once('='))
        .unwrap();

    do_the_work(&repo);
    stop(&repo, "droid", &t);
    let write = |extra: &[(&str, &str)]| {
        let home = env_dir.path().join("home");
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_handover"));
        c.args([
            "write",
            "--goal",
            "Strip whitespace in the parser",
            "--json",
        ])
        .current_dir(repo.path())
        .env_clear()
        .env("HOME", &home)
        .env(
            "PATH",
            format!(
                "{}/.factory/bin:/usr/local/bin:/usr/bin:/bin",
                home.display()
            ),
        )
        .envs([
            ("GIT_EDITOR", "true"),
            ("GIT_SEQUENCE_EDITOR", "true"),
            ("GIT_TERMINAL_PROMPT", "0"),
            ("GCM_INTERACTIVE", "never"),
            ("GIT_ASKPASS", ""),
            ("PYTHONUNBUFFERED", "1"),
            ("FORCE_COLOR", "0"),
            ("FACTORY_UPSTREAM_CLIENT_TYPE", "cli"),
        ])
        .envs(extra.iter().copied());
        let out = c.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let state: serde_json::Value = serde_json::from_slice(
            &std::fs::read(repo.path().join(".handover/state.json")).unwrap(),
        )
        .unwrap();
        (summary, state)
    };

    let (summary, state) = write(&[]);
    assert_eq!(state["agent"], "droid", "{state}");
    assert_eq!(
        summary["filled_from_record"],
        serde_json::json!([]),
        "{summary}"
    );

    let (summary, state) = write(&[(name, value)]);
    assert_eq!(
        summary["filled_from_record"],
        serde_json::json!(["important_files", "evidence.commands_run"]),
        "{summary}"
    );
    let files: Vec<&str> = state["important_files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files, ["run_tests.sh", "src/parse.py"], "{state}");
    assert_eq!(
        state["evidence"]["commands_run"][1],
        "sh run_tests.sh (failed, exit 1; recorded by handover)",
        "{state}"
    );
    // Another client's id in that variable is not Droid's: the detected agent decides.
    let (summary, _) = write(&[(name, value), ("CODEX_THREAD_ID", "019a-thread")]);
    assert_eq!(
        summary["filled_from_record"],
        serde_json::json!([]),
        "{summary}"
    );
}

/// `fixture` with its project path replaced by `repo`'s, beside the repository.
fn transcript_of_fixture(repo: &TestRepo, fixture: &Path, client: &str) -> PathBuf {
    let text = std::fs::read_to_string(fixture)
        .unwrap()
        .replace("/tmp/FIXTURE/project", &repo.path().to_string_lossy());
    let dir = repo.path().with_file_name(format!(
        "{}-{client}",
        repo.path().file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("t.jsonl");
    std::fs::write(&t, text).unwrap();
    t
}

/// Claude Code 2.1.330 runs PostToolUseFailure for a failing `Bash` call (captured under `-p`):
/// the failing command reaches the record from the hook input, before the transcript's line for
/// it, which Claude Code may write after the turn's Stop; read later, the transcript's result
/// does not count it again.
#[test]
fn a_claude_failure_reaches_the_record_from_its_hook_and_counts_once() {
    let repo = TestRepo::pinned();
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clients/claude-2.1.330");
    let t = transcript(&repo, "claude");
    let full = std::fs::read_to_string(&t).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    // The transcript as the hook finds it: the failing call is in, its result is not.
    let result = lines
        .iter()
        .position(|l| l.contains("\"tool_result\"") && l.contains("toolu_fake_4"))
        .unwrap();
    std::fs::write(&t, lines[..result].join("\n") + "\n").unwrap();
    do_the_work(&repo);
    let mut failure: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures.join("post_tool_use_failure.json")).unwrap(),
    )
    .unwrap();
    failure["session_id"] = SID.into();
    failure["cwd"] = repo.path().to_string_lossy().into_owned().into();
    failure["transcript_path"] = t.to_string_lossy().into_owned().into();
    let run = hook(context_watch_exe(), "claude", failure);
    assert!(run.stdout.is_empty(), "{}", run.stdout_str());
    let r = record(&repo);
    assert_eq!(
        r.last_failure
            .as_ref()
            .map(|c| (c.command.as_str(), c.exit_code)),
        Some(("sh run_tests.sh", Some(1)))
    );
    // The whole transcript, read at Stop: the result is there too, and counts once.
    std::fs::write(&t, &full).unwrap();
    stop(&repo, "claude", &t);
    let r = record(&repo);
    assert_eq!(
        r.commands
            .iter()
            .filter(|c| c.command == "sh run_tests.sh")
            .count(),
        1,
        "{:?}",
        r.commands
    );
}

/// Factory Droid 0.225.2's `/new` ends the session it leaves twice: SessionEnd `reason: clear`,
/// then `reason: other` (tests/clients/interactive.rs sees both). The record keeps `clear`: a
/// later `other` says less about the same ending (docs/format.md, `ended`). The payloads are
/// the captured SessionEnd with its `reason` set. Once the session runs again its ending is
/// over, and its next end says its own reason, `other` included.
#[test]
fn droids_second_session_end_at_new_keeps_the_clear_reason() {
    let repo = TestRepo::pinned();
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clients/droid-0.225.2");
    let t = transcript_of_fixture(&repo, &fixtures.join("transcript-tools.jsonl"), "droid");
    let end = |reason: &str| {
        let mut v: serde_json::Value = serde_json::from_slice(
            &std::fs::read(fixtures.join("session_end-other.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(v["reason"], "other", "the captured payload");
        v["session_id"] = SID.into();
        v["cwd"] = repo.path().to_string_lossy().into_owned().into();
        v["transcript_path"] = t.to_string_lossy().into_owned().into();
        v["reason"] = reason.into();
        hook(pre_compact_exe(), "droid", v);
        let ended = record(&repo).ended.expect("ended");
        assert_eq!(ended.how, handover_record::HowEnded::SessionEnd);
        ended.reason
    };
    stop(&repo, "droid", &t);
    assert_eq!(end("clear").as_deref(), Some("clear"));
    assert_eq!(
        end("other").as_deref(),
        Some("clear"),
        "`other` after `clear`"
    );
    // A more specific reason still replaces a known one.
    assert_eq!(end("logout").as_deref(), Some("logout"));
    // The session runs again: the ending is over, and the next one says `other`.
    stop(&repo, "droid", &t);
    assert_eq!(record(&repo).ended, None);
    assert_eq!(end("other").as_deref(), Some("other"));
    assert_eq!(
        end("clear").as_deref(),
        Some("clear"),
        "`other` is not kept"
    );
}
