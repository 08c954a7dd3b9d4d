//! The session record's extraction, on transcripts captured from the real clients
//! (tests/fixtures/clients, README there): edits, parallel calls, a failing test run, a passing
//! command, a multi-line command; read at once and in arbitrary appended pieces.

use handover_clients::Client;
use handover_clients::{claude, codex, gemini};
use handover_record::extract;
use handover_record::{SessionRecord, MAX_COMMANDS};
use std::io::Write;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients")
        .join(rel)
}

const ROOT: &str = "/tmp/FIXTURE/project";

fn record_of(path: &Path, format: &Client) -> SessionRecord {
    let mut r = SessionRecord::new("s", format.agent);
    let u = extract::read_from(path, 0, format, Some(Path::new(ROOT))).unwrap();
    assert_eq!(u.offset, std::fs::metadata(path).unwrap().len());
    for f in u.facts {
        r.apply(f);
    }
    r.transcript.offset = u.offset;
    r
}

fn commands(r: &SessionRecord) -> Vec<(String, String, Option<i64>)> {
    r.commands
        .iter()
        .map(|c| (c.command.clone(), c.status.clone(), c.exit_code))
        .collect()
}

fn expected_commands(first: &str) -> Vec<(String, String, Option<i64>)> {
    vec![
        (first.into(), "passed".into(), Some(0)),
        ("sh run_tests.sh".into(), "failed".into(), Some(1)),
        (
            "for f in src/*.py; do ⏎ wc -l \"$f\" ⏎ done".into(),
            "passed".into(),
            Some(0),
        ),
        ("echo all good".into(), "passed".into(), Some(0)),
    ]
}

#[test]
fn claude_code_tool_calls() {
    let r = record_of(
        &fixture("claude-2.1.330/transcript-tools.jsonl"),
        &claude::CLIENT,
    );
    assert_eq!(
        r.requests,
        ["make the parser strip whitespace and run the tests"]
    );
    // Write, Write (parallel), Edit of the first again: two files, the edited one newest.
    assert_eq!(r.files_edited, ["run_tests.sh", "src/parse.py"]);
    assert_eq!(r.files_edited_total, 2);
    assert_eq!(commands(&r), expected_commands("ls"));
    assert!(r.last_test_failed());
    assert_eq!(r.last_failure.as_ref().unwrap().command, "sh run_tests.sh");
    assert_eq!(
        r.last_message.as_deref(),
        Some("Parser edited; the test suite still fails on test_parse.")
    );
    assert!(
        r.transcript.pending.is_empty(),
        "{:?}",
        r.transcript.pending
    );
    assert!(r.started.as_deref().unwrap().starts_with("2026-11-23T"));
    assert_eq!(r.compactions, 0);
}

#[test]
fn codex_tool_calls() {
    let r = record_of(
        &fixture("codex-0.169.0/rollout-tools.jsonl"),
        &codex::CLIENT,
    );
    assert_eq!(
        r.requests,
        ["make the parser strip whitespace and run the tests"]
    );
    // apply_patch names them relative to the project, the FileChange item absolute: one each.
    let mut files = r.files_edited.clone();
    files.sort();
    assert_eq!(files, ["run_tests.sh", "src/parse.py"]);
    assert_eq!(commands(&r), expected_commands("ls"));
    assert!(r.last_test_failed());
    assert_eq!(
        r.last_message.as_deref(),
        Some("Parser edited; the test suite still fails on test_parse.")
    );
}

#[test]
fn the_first_fixtures_compactions_and_slash_commands() {
    let r = record_of(&fixture("claude-2.1.330/transcript.jsonl"), &claude::CLIENT);
    // `/compact` and the compaction summary are the client's, not requests.
    assert_eq!(
        r.requests,
        ["run the greeting command", "anything left?", "and now?"]
    );
    assert_eq!(r.compactions, 1);
    assert_eq!(
        commands(&r),
        [(
            "echo hello from the tool".to_string(),
            "passed".to_string(),
            Some(0)
        )]
    );
    let x = record_of(&fixture("codex-0.169.0/rollout.jsonl"), &codex::CLIENT);
    assert_eq!(x.requests, ["run the greeting command", "anything left?"]);
    assert_eq!(x.compactions, 1);
    assert_eq!(
        x.last_message.as_deref(),
        Some("Resumed: nothing left to do.")
    );
    assert!(!x.last_test_failed());
}

/// Appending the transcript piece by piece (cut anywhere, even inside a line or a UTF-8
/// character) and updating after each piece gives the same record as one read.
#[test]
fn incremental_updates_equal_one_read() {
    for (rel, format) in [
        ("claude-2.1.330/transcript-tools.jsonl", &claude::CLIENT),
        ("codex-0.169.0/rollout-tools.jsonl", &codex::CLIENT),
        ("claude-2.1.330/transcript.jsonl", &claude::CLIENT),
    ] {
        let whole = std::fs::read(fixture(rel)).unwrap();
        let once = record_of(&fixture(rel), format);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut file = std::fs::File::create(&path).unwrap();
        let mut r = SessionRecord::new("s", format.agent);
        let mut written = 0;
        for cut in [1, 777, 5_000, 20_011, 60_000, 61_234, whole.len()] {
            let cut = cut.min(whole.len());
            if cut <= written {
                continue;
            }
            file.write_all(&whole[written..cut]).unwrap();
            file.flush().unwrap();
            written = cut;
            let u = extract::read_from(&path, r.transcript.offset, format, Some(Path::new(ROOT)))
                .unwrap();
            assert!(!u.restarted);
            for f in u.facts {
                r.apply(f);
            }
            r.transcript.offset = u.offset;
        }
        assert_eq!(r, once, "{rel}");
    }
}

#[test]
fn a_long_session_keeps_a_small_record() {
    // The tool-call session repeated 200 times: the record stays bounded.
    let one = std::fs::read(fixture("codex-0.169.0/rollout-tools.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for _ in 0..200 {
        f.write_all(&one).unwrap();
    }
    drop(f);
    let r = record_of(&path, &codex::CLIENT);
    assert_eq!(r.commands.len(), MAX_COMMANDS);
    assert_eq!(r.commands_total, 800);
    assert_eq!(r.requests_total, 200);
    let bytes = serde_json::to_vec_pretty(&r).unwrap();
    assert!(bytes.len() < 8 * 1024, "{} bytes", bytes.len());
}

#[test]
fn gemini_cli_tool_calls() {
    let r = record_of(
        &fixture("gemini-0.61.0/transcript-tools.jsonl"),
        &gemini::CLIENT,
    );
    assert_eq!(
        r.requests,
        ["make the parser strip whitespace and run the tests"],
        "the CLI's own <session_context> is not a request"
    );
    // write_file twice, replace of the first: two files (the shell's notes.txt is in no
    // transcript; the working tree shows it, see tests/hooks/session_record.rs).
    assert_eq!(r.files_edited, ["run_tests.sh", "src/parse.py"]);
    // Each reply is written twice (before and after its calls completed): each call once.
    assert_eq!(
        commands(&r),
        vec![
            (
                "printf 'written by the shell\\n' > notes.txt".to_string(),
                "passed".to_string(),
                Some(0)
            ),
            ("sh run_tests.sh".into(), "failed".into(), Some(1)),
        ]
    );
    assert!(r.last_test_failed());
    assert_eq!(
        r.last_message.as_deref(),
        Some("Parser edited; the test suite still fails on test_parse.")
    );
    assert!(r
        .started
        .as_deref()
        .unwrap()
        .starts_with("2026-11-25T13:04"));
    // The first fixture's resumes and compression rewrite the history ($set messages): no
    // message is read twice from them.
    let r = record_of(&fixture("gemini-0.61.0/transcript.jsonl"), &gemini::CLIENT);
    assert_eq!(
        r.requests,
        [
            "run the greeting command",
            "anything left?",
            "one more big step"
        ]
    );
    assert_eq!(r.commands_total, 2);
    assert_eq!(
        r.last_message.as_deref(),
        Some("Done after the compression.")
    );
}
