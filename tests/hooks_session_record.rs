//! The session record through the real hook binaries: Stop updates it from the transcript's new
//! bytes, SessionEnd and PreCompact close it with the working tree's state, and the next
//! session's SessionStart shows it (alone when the work looks unfinished, after the handoff
//! when it is newer), on the transcripts captured from both clients.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hook_harness;

use handover_core::record::SessionRecord;
use hook_harness::*;
use std::path::{Path, PathBuf};

const SID: &str = "0b1c2d3e-1111-2222-3333-444455556666";

/// The captured tool-call transcript of `client`, its project path replaced by `repo`'s.
fn transcript(repo: &Repo, client: &str) -> PathBuf {
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
fn do_the_work(repo: &Repo) {
    repo.write("src/parse.py", "def parse(s):\n    return s.strip()\n");
    repo.write("run_tests.sh", "#!/bin/sh\nexit 1\n");
}

fn hook(bin: &str, client: &str, v: serde_json::Value) -> Run {
    let run = run_hook(bin, &["--agent", client], payload(v), &[]);
    run.assert_clean(bin);
    run
}

fn stop(repo: &Repo, client: &str, t: &Path) -> Run {
    hook(
        CONTEXT_WATCH,
        client,
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "Stop", "stop_hook_active": false,
            "last_assistant_message": "Parser edited; the test suite still fails on test_parse."}),
    )
}

fn session_end(repo: &Repo, client: &str, t: &Path) -> Run {
    hook(
        PRE_COMPACT,
        client,
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "SessionEnd", "reason": "other"}),
    )
}

fn next_session(repo: &Repo, client: &str) -> Run {
    hook(
        SESSION_START,
        client,
        serde_json::json!({"session_id": "next-session", "cwd": repo.path(),
            "hook_event_name": "SessionStart", "source": "startup"}),
    )
}

fn record(repo: &Repo) -> SessionRecord {
    handover_core::record::files::load(&repo.store(), SID).expect("a record for the session")
}

#[test]
fn an_unfinished_session_without_handoff_is_shown_to_the_next_one() {
    for client in ["claude", "codex"] {
        let repo = Repo::new();
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
            git.dirty, None,
            "the per-turn update does not scan the tree"
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
        assert!(
            text.starts_with("handover: no handoff was written"),
            "{text}"
        );
        for needle in [
            "Last failing command: «sh run_tests.sh» (failed, exit 1)",
            "src/parse.py",
            "(SessionEnd, reason «other»)",
            "Still uncommitted now:",
            "Last request (the user's words): «make the parser strip whitespace and run the tests»",
        ] {
            assert!(text.contains(needle), "{client}: {needle}: {text}");
        }
        assert!(text.chars().count() <= 1500);
    }
}

#[test]
fn a_session_that_committed_its_work_and_passed_leaves_the_next_one_silent() {
    let repo = Repo::new();
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
    assert!(shown.contains("its facts follow"), "{shown}");
    repo.write(".handover/config.toml", "[records]\nstartup = \"never\"\n");
    // Leave work unfinished: still nothing with `never`.
    repo.write("src/lib.rs", "pub fn h() {}\n");
    assert!(next_session(&repo, "claude").stdout.is_empty());
}

#[test]
fn after_a_handoff_the_newer_record_is_added_and_a_handoff_written_last_is_not_repeated() {
    let repo = Repo::new();
    repo.save_handoff();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let t = transcript(&repo, "codex");
    do_the_work(&repo);
    stop(&repo, "codex", &t);
    session_end(&repo, "codex", &t);
    let text = next_session(&repo, "codex").context("SessionStart");
    assert!(
        text.starts_with("handover: a previous session left a handoff"),
        "{text}"
    );
    assert!(
        text.contains("Goal: Make the parser accept trailing commas"),
        "{text}"
    );
    let since = text
        .find("Since this handoff, a later session ran here")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(text[since..].contains("- Agent: «codex»"), "{text}");
    assert!(text[since..].contains("«sh run_tests.sh»"), "{text}");
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
    assert!(!text.contains("Since this handoff"), "{text}");
}

#[test]
fn updates_read_only_what_was_appended() {
    let repo = Repo::new();
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
    let repo = Repo::new();
    let t = transcript(&repo, "claude");
    hook(
        PRE_COMPACT,
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

#[test]
fn nothing_is_recorded_outside_a_git_repository_or_without_a_session() {
    let repo = Repo::without_git();
    let t = transcript(&repo, "claude");
    stop(&repo, "claude", &t);
    assert!(!repo.path().join(".handover").exists());
    let repo = Repo::new();
    hook(
        CONTEXT_WATCH,
        "claude",
        serde_json::json!({"transcript_path": t, "cwd": repo.path(), "hook_event_name": "Stop"}),
    );
    assert!(!repo.path().join(".handover/records").exists());
    // Gemini CLI's transcripts are another format: no record is kept for it.
    hook(
        CONTEXT_WATCH,
        "gemini",
        serde_json::json!({"session_id": SID, "transcript_path": t, "cwd": repo.path(),
            "hook_event_name": "AfterAgent"}),
    );
    assert!(!repo.path().join(".handover/records").exists());
}
