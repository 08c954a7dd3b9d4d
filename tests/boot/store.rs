//! The store on real temporary directories: round trips, damage and recovery, `done`, the
//! journal, many writer processes at once, and writers killed at random moments.
//!
//! Child processes: a test re-executes this test binary (`current_exe()`) to run one of the
//! `child_*` tests below with `CHILD_ENV` set; without that variable those tests return at once.

use crate::support;
use crate::support::snapshot::placeholders;
use handover_handoff::model::{Content, Handoff, Status, SCHEMA_VERSION};
use handover_handoff::store::{self, Event, LoadOutcome, Loaded, Source, Store};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "HANDOVER_STORE_TEST_CHILD";
const DIR_ENV: &str = "HANDOVER_STORE_TEST_DIR";

/// A sealed handoff; the same `n` always gives the same handoff.
fn handoff(n: u32, goal: &str) -> Handoff {
    let mut h = Handoff {
        schema_version: SCHEMA_VERSION,
        id: format!("h{n}"),
        // Distinct, ordered timestamps: many writes in one second would otherwise tie.
        created_at: format!(
            "2026-01-01T{:02}:{:02}:{:02}Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        ),
        agent: Some("claude-code".into()),
        content: Content {
            goal: goal.to_string(),
            status: Status {
                completed: vec![format!("step {n}")],
                ..Default::default()
            },
            next_action: Some("run the tests".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    store::seal(&mut h);
    h
}

fn loaded(outcome: LoadOutcome) -> Loaded {
    match outcome {
        LoadOutcome::Loaded(l) => l,
        other => panic!("expected a loaded handoff, got {other:?}"),
    }
}

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::at(dir.path());
    (dir, store)
}

fn write_events(store: &Store) -> Vec<Value> {
    store
        .journal()
        .into_iter()
        .filter(|e| e["event"] == "write")
        .collect()
}

#[test]
fn save_then_load_round_trips() {
    let (_dir, store) = temp_store();
    assert!(matches!(store.load(), LoadOutcome::Missing));
    let h = handoff(1, "ship the store");
    let report = store
        .save(&h, "# Handover\n\nGoal: ship the store\n")
        .unwrap();
    assert_eq!(
        report.archived, None,
        "nothing to archive on the first write"
    );

    let l = loaded(store.load());
    assert_eq!((l.source, l.problem.as_deref()), (Source::State, None));
    assert_eq!(l.handoff, h);
    assert!(store::is_sealed(&l.handoff));

    let text = fs::read_to_string(store.state_path()).unwrap();
    assert!(
        text.starts_with("{\n  \"schema_version\": 1,"),
        "pretty JSON in field order:\n{text}"
    );
    assert!(text.ends_with("}\n"));
    assert_eq!(
        fs::read_to_string(store.markdown_path()).unwrap(),
        "# Handover\n\nGoal: ship the store\n"
    );

    let writes = write_events(&store);
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0]["id"], "h1");
    assert_eq!(
        serde_json::from_value::<Handoff>(writes[0]["handoff"].clone()).unwrap(),
        h
    );
    assert!(writes[0]["ts"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn save_seals_an_unsealed_handoff() {
    let (_dir, store) = temp_store();
    let mut h = handoff(1, "g");
    h.content.goal = "changed after sealing".into();
    assert!(!store::is_sealed(&h));
    store.save(&h, "").unwrap();
    let l = loaded(store.load());
    assert_eq!(l.source, Source::State);
    assert_eq!(l.handoff.content.goal, "changed after sealing");
    assert!(store::is_sealed(&l.handoff));
}

#[test]
fn checksum_is_independent_of_key_order_and_detects_one_byte() {
    let h = handoff(7, "goal");
    let v = serde_json::to_value(&h).unwrap();
    // Same document with its keys in reverse order.
    let reversed: serde_json::Map<String, Value> =
        v.as_object().unwrap().clone().into_iter().rev().collect();
    assert_eq!(
        store::checksum_of_value(&Value::Object(reversed)),
        h.checksum
    );

    let (_dir, store) = temp_store();
    store.save(&h, "").unwrap();
    let text = fs::read_to_string(store.state_path()).unwrap();
    let edited = text.replacen("\"goal\": \"goal\"", "\"goal\": \"goaL\"", 1);
    assert_ne!(edited, text);
    fs::write(store.state_path(), edited).unwrap();
    let l = loaded(store.load());
    assert_eq!(l.source, Source::Journal);
    assert_eq!(
        l.problem.as_deref(),
        Some("state.json: checksum mismatch (edited by hand or damaged)")
    );
    assert_eq!(l.handoff, h);
}

#[test]
fn truncated_state_falls_back_at_every_cut() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "first"), "").unwrap();
    let latest = handoff(2, "second");
    store.save(&latest, "").unwrap();
    let full = fs::read(store.state_path()).unwrap();
    let n = full.len();
    let mut cuts = vec![0, 1, 2, 10, n / 4, n / 2, n - 3, n - 2];
    cuts.extend((0..n).step_by(37));
    for cut in cuts {
        fs::write(store.state_path(), &full[..cut]).unwrap();
        let l = loaded(store.load());
        assert_eq!(l.source, Source::Journal, "cut at {cut}");
        assert_eq!(l.handoff, latest, "cut at {cut}");
        let problem = l.problem.unwrap();
        assert!(problem.starts_with("state.json: "), "{problem}");
        assert!(
            problem.contains("truncated") || problem.contains("empty"),
            "cut at {cut} of {n}: {problem}"
        );
    }
    // Losing only the trailing newline loses nothing.
    fs::write(store.state_path(), &full[..n - 1]).unwrap();
    assert_eq!(loaded(store.load()).source, Source::State);
}

#[test]
fn invalid_json_and_non_handoffs_fall_back() {
    let (_dir, store) = temp_store();
    let h = handoff(1, "g");
    store.save(&h, "").unwrap();
    let cases = [
        ("{\"goal\": nope}", "not valid JSON"),
        ("\u{0}\u{1}binary", "not valid JSON"),
        ("[1, 2]", "not a handoff (the JSON is not an object)"),
        ("{\"goal\": \"g\"}", "no checksum"),
    ];
    for (text, expected) in cases {
        fs::write(store.state_path(), text).unwrap();
        let l = loaded(store.load());
        assert_eq!((l.source, &l.handoff), (Source::Journal, &h));
        let problem = l.problem.unwrap();
        assert!(
            problem.starts_with("state.json: ") && problem.contains(expected),
            "{text:?}: {problem}"
        );
    }
}

#[test]
fn a_checksum_valid_document_of_the_wrong_shape_is_not_a_handoff() {
    let (_dir, store) = temp_store();
    let h = handoff(1, "g");
    store.save(&h, "").unwrap();
    let mut v = json!({"schema_version": 1, "goal": 42});
    v["checksum"] = Value::String(store::checksum_of_value(&v));
    fs::write(store.state_path(), v.to_string()).unwrap();
    let l = loaded(store.load());
    assert_eq!(l.source, Source::Journal);
    insta::assert_snapshot!("state_not_a_handoff", l.problem.unwrap());
}

#[test]
fn tampered_state_recovers_from_the_journal_and_says_why() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "old goal"), "").unwrap();
    let latest = handoff(2, "real goal");
    store.save(&latest, "").unwrap();
    let mut v: Value = serde_json::from_slice(&fs::read(store.state_path()).unwrap()).unwrap();
    v["goal"] = json!("a goal someone typed in");
    fs::write(
        store.state_path(),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();

    let l = loaded(store.load());
    assert_eq!(l.source, Source::Journal);
    assert_eq!(
        l.handoff, latest,
        "the newest intact write, not an older one"
    );
    assert_eq!(
        l.problem.as_deref(),
        Some("state.json: checksum mismatch (edited by hand or damaged)")
    );
    // Loading never repairs or rewrites anything behind the user's back.
    let after: Value = serde_json::from_slice(&fs::read(store.state_path()).unwrap()).unwrap();
    assert_eq!(after["goal"], "a goal someone typed in");
}

#[test]
fn a_damaged_journal_line_is_skipped_in_recovery() {
    let (_dir, store) = temp_store();
    let first = handoff(1, "first");
    store.save(&first, "").unwrap();
    store.save(&handoff(2, "second"), "").unwrap();
    // Damage the last journal line (the second write), as a torn write would.
    let journal = fs::read_to_string(store.journal_path()).unwrap();
    let cut = journal.trim_end().rfind('\n').unwrap() + 1 + 40;
    fs::write(store.journal_path(), &journal[..cut]).unwrap();
    fs::write(store.state_path(), "garbage").unwrap();
    fs::remove_dir_all(store.archive_dir()).unwrap();
    let l = loaded(store.load());
    assert_eq!((l.source, l.handoff), (Source::Journal, first));
}

#[test]
fn recovers_from_the_archive_when_the_journal_is_gone() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "one"), "").unwrap();
    let second = handoff(2, "two");
    store.save(&second, "").unwrap();
    store.save(&handoff(3, "three"), "").unwrap();
    fs::remove_file(store.journal_path()).unwrap();
    fs::write(store.state_path(), "{\"truncated\": ").unwrap();
    let l = loaded(store.load());
    assert_eq!(l.source, Source::Archive);
    assert_eq!(
        l.handoff, second,
        "the archive holds the handoff each write replaced"
    );
    insta::assert_snapshot!("archive_after_truncated_state", l.problem.unwrap());
}

#[test]
fn the_archive_wins_when_it_is_newer_than_the_journal() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "one"), "").unwrap();
    let second = handoff(2, "two");
    store.save(&second, "").unwrap();
    store.save(&handoff(3, "three"), "").unwrap();
    // Keep only the journal's first write: it is older than the archive's newest.
    let journal = fs::read_to_string(store.journal_path()).unwrap();
    fs::write(
        store.journal_path(),
        journal.lines().next().unwrap().to_string() + "\n",
    )
    .unwrap();
    fs::write(store.state_path(), "").unwrap();
    let l = loaded(store.load());
    assert_eq!((l.source, l.handoff), (Source::Archive, second));
}

#[test]
fn unrecoverable_when_nothing_is_intact() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "one"), "").unwrap();
    store.save(&handoff(2, "two"), "").unwrap();
    fs::write(store.journal_path(), "{\"torn\n").unwrap();
    for entry in fs::read_dir(store.archive_dir()).unwrap() {
        fs::write(entry.unwrap().path(), "{}").unwrap();
    }
    fs::write(
        store.state_path(),
        "{\"goal\": \"x\", \"checksum\": \"sha256:00\"}",
    )
    .unwrap();
    match store.load() {
        LoadOutcome::Unrecoverable { problem } => {
            insta::assert_snapshot!("nothing_intact", problem);
        }
        other => panic!("expected Unrecoverable, got {other:?}"),
    }
}

#[test]
fn missing_state_is_missing_even_with_a_journal() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "one"), "").unwrap();
    fs::remove_file(store.state_path()).unwrap();
    assert!(
        matches!(store.load(), LoadOutcome::Missing),
        "the journal is not resurrected"
    );
}

#[test]
fn a_newer_schema_loads_with_a_note() {
    let (_dir, store) = temp_store();
    let mut v = serde_json::to_value(handoff(1, "from the future")).unwrap();
    v["schema_version"] = json!(SCHEMA_VERSION + 1);
    v["field_from_the_future"] = json!({"x": [1, 2]});
    v["checksum"] = Value::String(store::checksum_of_value(&v));
    fs::create_dir_all(store.dir()).unwrap();
    fs::write(
        store.state_path(),
        serde_json::to_string_pretty(&v).unwrap(),
    )
    .unwrap();
    let l = loaded(store.load());
    assert_eq!(l.source, Source::State);
    assert_eq!(l.handoff.content.goal, "from the future");
    insta::assert_snapshot!("newer_schema", l.problem.unwrap());
}

#[test]
fn a_huge_state_is_not_read_and_is_reported() {
    let (_dir, store) = temp_store();
    let h = handoff(1, "small");
    store.save(&h, "").unwrap();
    let big = vec![b' '; 50 * 1024 * 1024];
    fs::write(store.state_path(), &big).unwrap();
    let start = Instant::now();
    let l = loaded(store.load());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!((l.source, &l.handoff), (Source::Journal, &h));
    insta::assert_snapshot!("huge_state", l.problem.unwrap());
}

#[test]
fn archive_files_accumulate_one_per_overwrite() {
    let (_dir, store) = temp_store();
    let all: Vec<Handoff> = (1..=5).map(|n| handoff(n, &format!("goal {n}"))).collect();
    let mut reported = Vec::new();
    for h in &all {
        reported.push(store.save(h, "").unwrap().archived);
    }
    // Only the handoffs: the fixture's handover.md ("") is no rendering of any handoff, so a
    // copy of it is kept beside each one (`<stamp>.md`).
    let mut names: Vec<String> = fs::read_dir(store.archive_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(reported[0].is_none() && reported[1..].iter().all(Option::is_some));
    // Each archive file is the handoff its write replaced, in order.
    for (i, name) in names.iter().enumerate() {
        let archived: Handoff =
            serde_json::from_slice(&fs::read(store.archive_dir().join(name)).unwrap()).unwrap();
        assert_eq!(archived, all[i], "{name}");
        assert!(
            name.ends_with(".json") && name.len() == "20260101T000000.000000000Z.json".len(),
            "{name}"
        );
    }
    // The journal names the file each write archived.
    let writes = write_events(&store);
    assert_eq!(
        writes[1]["archived"],
        format!(".handover/archive/{}", names[0])
    );
}

#[test]
fn done_archives_removes_and_journals() {
    let (_dir, store) = temp_store();
    let h = handoff(1, "finished work");
    store.save(&h, "# md\n").unwrap();
    let archived = store
        .finish()
        .unwrap()
        .expect("there was a handoff")
        .archived;
    assert!(!store.state_path().exists() && !store.markdown_path().exists());
    assert!(matches!(store.load(), LoadOutcome::Missing));
    let kept: Handoff = serde_json::from_slice(&fs::read(&archived).unwrap()).unwrap();
    assert_eq!(kept, h);
    let last = store.journal().pop().unwrap();
    assert_eq!(last["event"], "done");
    assert_eq!(last["id"], "h1");
    assert_eq!(
        store.root().join(last["archived"].as_str().unwrap()),
        archived
    );

    let journal_before = fs::read(store.journal_path()).unwrap();
    assert_eq!(store.finish().unwrap(), None, "nothing left to finish");
    assert_eq!(
        fs::read(store.journal_path()).unwrap(),
        journal_before,
        "and nothing changed"
    );
}

#[test]
fn done_without_any_handoff_creates_nothing() {
    let (dir, store) = temp_store();
    assert_eq!(store.finish().unwrap(), None);
    assert!(!dir.path().join(".handover").exists());
}

#[test]
fn done_keeps_a_damaged_state_in_the_archive() {
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "x"), "").unwrap();
    fs::write(store.state_path(), "damaged {").unwrap();
    let archived = store.finish().unwrap().unwrap().archived;
    assert_eq!(fs::read_to_string(archived).unwrap(), "damaged {");
    assert!(matches!(store.load(), LoadOutcome::Missing));
}

#[test]
fn journal_events_carry_ts_event_and_fields() {
    let (_dir, store) = temp_store();
    store
        .append_journal(
            Event::Delivered,
            json!({"agent": "codex", "verdict": "fresh"}),
        )
        .unwrap();
    store.append_journal(Event::Ack, Value::Null).unwrap();
    // A field cannot disguise the event or its time.
    store
        .append_journal(Event::PreCompact, json!({"event": "write", "ts": "never"}))
        .unwrap();
    let err = store
        .append_journal(Event::Ack, json!([1]))
        .unwrap_err()
        .to_string();
    insta::assert_snapshot!("journal_event_not_an_object", err);

    let events = store.journal();
    assert_eq!(events.len(), 3);
    assert_eq!(events[0]["event"], "delivered");
    assert_eq!(events[0]["agent"], "codex");
    assert_eq!(events[1]["event"], "ack");
    assert_eq!(events[2]["event"], "pre_compact");
    assert_ne!(events[2]["ts"], "never");
    assert!(events
        .iter()
        .all(|e| e["ts"].as_str().is_some_and(|t| t.len() == 20)));
}

/// Whoever appends an event (a hook, `ack`, a push or a pull), a secret in any of its strings,
/// however deep, is redacted as the line is made; ids, commits and the field names stay.
#[test]
fn every_string_of_an_appended_event_is_redacted() {
    let (_dir, store) = temp_store();
    let token = "ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeU";
    let commit = "0123456789abcdef0123456789abcdef01234567";
    store
        .append_journal(
            Event::Push,
            json!({"remote": token, "branch": format!("fix/{token}"),
                   "commit": commit, "nested": {"list": [format!("ran {token}"), 3]}}),
        )
        .unwrap();
    let line = fs::read_to_string(store.journal_path()).unwrap();
    assert!(!line.contains(token), "{line}");
    let event = &store.journal()[0];
    assert_eq!(event["commit"], commit);
    assert_eq!(event["nested"]["list"][1], 3);
    assert!(event["branch"].as_str().unwrap().starts_with("fix/"));
}

#[test]
fn a_torn_journal_line_is_skipped_and_does_not_swallow_the_next_event() {
    let (_dir, store) = temp_store();
    store.append_journal(Event::Ack, json!({})).unwrap();
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(store.journal_path())
        .unwrap();
    std::io::Write::write_all(
        &mut file,
        b"{\"ts\": \"2026-01-01T00:00:00Z\", \"event\": \"to",
    )
    .unwrap();
    store.append_journal(Event::Done, json!({})).unwrap();
    let events: Vec<String> = store
        .journal()
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(events, ["ack", "done"]);
}

#[test]
fn append_journal_gives_up_on_a_held_lock_instead_of_hanging() {
    let (_dir, store) = temp_store();
    store
        .append_journal(Event::ContextWatch, json!({}))
        .unwrap();
    let holder = fs::File::open(store.journal_lock_path()).unwrap();
    holder.lock().unwrap();
    let start = Instant::now();
    let err = format!(
        "{:#}",
        store
            .append_journal(Event::ContextWatch, json!({}))
            .unwrap_err()
    );
    let waited = start.elapsed();
    insta::assert_snapshot!("journal_lock_held", placeholders(store.root(), &err));
    assert!(
        waited >= Duration::from_millis(1500) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    drop(holder);
    store
        .append_journal(Event::ContextWatch, json!({}))
        .unwrap();
    assert_eq!(store.journal().len(), 2);
}

#[test]
fn append_journal_does_not_wait_for_a_save_in_progress() {
    // A hook's event must not queue behind whole saves (archive copy, fsyncs, renames).
    let (_dir, store) = temp_store();
    store
        .append_journal(Event::ContextWatch, json!({}))
        .unwrap();
    let writer = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(store.lock_path())
        .unwrap();
    writer.lock().unwrap();
    let start = Instant::now();
    store
        .append_journal(Event::ContextWatch, json!({}))
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn load_reads_without_the_lock() {
    // A reader must not wait for a writer (or a stuck process) holding the lock.
    let (_dir, store) = temp_store();
    store.save(&handoff(1, "x"), "").unwrap();
    let holder = fs::File::open(store.lock_path()).unwrap();
    holder.lock().unwrap();
    assert_eq!(loaded(store.load()).source, Source::State);
    assert_eq!(store.journal().len(), 1);
}

// ---- many processes -------------------------------------------------------------------------

const WRITERS: u32 = 8;
const SAVES_EACH: u32 = 25;

fn concurrent_handoff(writer: u32, i: u32) -> Handoff {
    handoff(writer * 1000 + i, &format!("writer {writer} save {i}"))
}

fn spawn_child(test: &str, role: &str, dir: &Path, extra: &[(&str, String)]) -> Child {
    let mut cmd = support::child::rerun(module_path!(), test);
    cmd.env(CHILD_ENV, role)
        .env(DIR_ENV, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    for (k, v) in extra {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// Waits for a child, killing it after `limit`.
fn wait_bounded(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("child {} did not finish within {limit:?}", child.id());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn child_concurrent_writer() {
    if std::env::var(CHILD_ENV).as_deref() != Ok("concurrent") {
        return;
    }
    let store = Store::at(std::env::var(DIR_ENV).unwrap());
    let writer: u32 = std::env::var("WRITER").unwrap().parse().unwrap();
    for i in 0..SAVES_EACH {
        store
            .save(
                &concurrent_handoff(writer, i),
                &format!("# writer {writer} save {i}\n"),
            )
            .unwrap();
        // What a SessionStart hook does, racing the writers.
        store
            .append_journal(Event::ContextWatch, json!({"writer": writer, "i": i}))
            .unwrap();
    }
}

#[test]
fn many_processes_writing_at_once_lose_nothing() {
    let (dir, store) = temp_store();
    let start = Instant::now();
    let mut children: Vec<Child> = (0..WRITERS)
        .map(|w| {
            spawn_child(
                "child_concurrent_writer",
                "concurrent",
                dir.path(),
                &[("WRITER", w.to_string())],
            )
        })
        .collect();
    for child in &mut children {
        assert!(wait_bounded(child, Duration::from_secs(180)).success());
    }
    let elapsed = start.elapsed();
    let total = WRITERS * SAVES_EACH;

    let raw = fs::read_to_string(store.journal_path()).unwrap();
    let lines: Vec<&str> = raw.lines().collect();
    assert_eq!(
        lines.len() as u32,
        2 * total,
        "one write and one session_start line per save"
    );
    for line in &lines {
        serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("torn or mixed line ({e}): {line:.200}"));
    }
    let writes = write_events(&store);
    let ids: HashSet<String> = writes
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    let expected: HashSet<String> = (0..WRITERS)
        .flat_map(|w| (0..SAVES_EACH).map(move |i| concurrent_handoff(w, i).id))
        .collect();
    assert_eq!(writes.len() as u32, total);
    assert_eq!(ids, expected, "every save is in the journal exactly once");
    for e in &writes {
        let h: Handoff = serde_json::from_value(e["handoff"].clone()).unwrap();
        assert!(store::is_sealed(&h));
    }

    let l = loaded(store.load());
    assert_eq!((l.source, l.problem.as_deref()), (Source::State, None));
    let n: u32 = l.handoff.id[1..].parse().unwrap();
    assert_eq!(
        l.handoff,
        concurrent_handoff(n / 1000, n % 1000),
        "state.json is one of the written handoffs"
    );
    // The last write in the journal is the one in state.json: writes are serialized.
    assert_eq!(writes.last().unwrap()["id"], l.handoff.id.as_str());
    let md = fs::read_to_string(store.markdown_path()).unwrap();
    assert_eq!(
        md,
        format!("# writer {} save {}\n", n / 1000, n % 1000),
        "handover.md matches state.json"
    );
    // Handoffs only: the fixture's handover.md is no rendering, so copies of it are kept too.
    let archived = fs::read_dir(store.archive_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count() as u32;
    assert_eq!(
        archived,
        total - 1,
        "one archive file per overwrite, none clobbered"
    );
    eprintln!(
        "concurrent: {WRITERS} processes x {SAVES_EACH} saves (+ as many hook appends) in {elapsed:.2?} \
         ({:.2} ms per save, process start included)",
        elapsed.as_secs_f64() * 1000.0 / f64::from(total)
    );
}

// ---- crashes --------------------------------------------------------------------------------

const CRASH_ITERATIONS: u32 = 40;

#[test]
fn child_crash_writer() {
    if std::env::var(CHILD_ENV).as_deref() != Ok("crash") {
        return;
    }
    let store = Store::at(std::env::var(DIR_ENV).unwrap());
    let round: u32 = std::env::var("ROUND").unwrap().parse().unwrap();
    // Bounded: the parent kills us long before this ends.
    let deadline = Instant::now() + Duration::from_secs(30);
    for i in 0..100_000 {
        if Instant::now() > deadline {
            break;
        }
        let mut h = handoff(round * 100_000 + i, &format!("round {round} save {i}"));
        // Bigger documents make the kill land inside a write more often.
        h.content.warnings = (0..200)
            .map(|k| format!("warning {k} of save {i}: {}", "x".repeat(60)))
            .collect();
        store::seal(&mut h);
        store
            .save(&h, &format!("# round {round} save {i}\n"))
            .unwrap();
        let _ = store.append_journal(Event::ContextWatch, json!({"i": i}));
    }
}

/// Cheap randomness from the clock and the pid: no extra crate needed.
fn random_below(n: u64, salt: u64) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut x =
        nanos ^ (u64::from(std::process::id()) << 32) ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x % n
}

#[test]
fn a_writer_killed_at_random_moments_never_loses_the_handoff() {
    let (dir, store) = temp_store();
    let seed = handoff(1, "before any crash");
    store.save(&seed, "").unwrap();
    let mut torn_lines_seen = 0;
    let mut temp_files_seen = 0;
    let mut writes_journaled = 0u64;
    let mut killed_mid_save = 0;
    let start = Instant::now();
    for round in 1..=CRASH_ITERATIONS {
        let journal_len = fs::metadata(store.journal_path())
            .map(|m| m.len())
            .unwrap_or(0);
        let mut child = spawn_child(
            "child_crash_writer",
            "crash",
            dir.path(),
            &[("ROUND", round.to_string())],
        );
        // Wait until the child is writing (bounded), so the kill lands among saves.
        let started = Instant::now();
        while fs::metadata(store.journal_path())
            .map(|m| m.len())
            .unwrap_or(0)
            == journal_len
            && started.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(random_below(31, u64::from(round))));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        let l = match store.load() {
            LoadOutcome::Loaded(l) => l,
            other => panic!("round {round}: after a kill, load gave {other:?}"),
        };
        // state.json is only ever replaced by a rename: it is always the intact old or new one.
        assert_eq!(
            (l.source, l.problem.as_deref()),
            (Source::State, None),
            "round {round}"
        );
        assert!(store::is_sealed(&l.handoff), "round {round}");
        let raw: Value = serde_json::from_slice(&fs::read(store.state_path()).unwrap()).unwrap();
        assert!(store::checksum_matches(&raw), "round {round}");

        let raw_journal = fs::read_to_string(store.journal_path()).unwrap();
        torn_lines_seen += raw_journal
            .lines()
            .filter(|l| serde_json::from_str::<Value>(l).is_err())
            .count();
        let writes = write_events(&store);
        writes_journaled = writes.len() as u64;
        // The journal ahead of state.json: the kill landed between journaling a handoff and
        // renaming it into place, and state.json is still the intact previous one.
        if writes.last().unwrap()["id"] != l.handoff.id.as_str() {
            killed_mid_save += 1;
        }
        temp_files_seen += [store.dir(), store.archive_dir(), dir.path().to_path_buf()]
            .iter()
            .flat_map(|d| fs::read_dir(d).unwrap())
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".tmp.")
            })
            .count();
    }
    // After all that, a normal save works and sweeps the leftovers of killed writers.
    let last = handoff(2, "after the crashes");
    store.save(&last, "").unwrap();
    assert_eq!(loaded(store.load()).handoff, last);
    let leftovers = [store.dir(), store.archive_dir(), dir.path().to_path_buf()]
        .iter()
        .flat_map(|d| fs::read_dir(d).unwrap())
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".tmp.")
        })
        .count();
    assert_eq!(
        leftovers, 0,
        "temporary files of killed writers are swept by the next save"
    );
    eprintln!(
        "crash: {CRASH_ITERATIONS} kills in {:.2?}; {writes_journaled} writes journaled in total; \
         {killed_mid_save} kills left the journal ahead of state.json (killed mid-save); \
         torn journal lines seen {torn_lines_seen} (summed over rounds); leftover temp files seen \
         {temp_files_seen} (summed over rounds); load always gave the intact state.json",
        start.elapsed()
    );
}

/// Runs `f` on a thread and fails the test (instead of hanging it) if it takes over 10 s.
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(Duration::from_secs(10))
        .expect("hung for 10 s")
}

#[test]
fn special_files_in_place_of_state_or_journal_never_hang_load() {
    let (_dir, store) = temp_store();
    let h = handoff(1, "x");
    store.save(&h, "").unwrap();
    fs::remove_file(store.state_path()).unwrap();
    let fifo = |path: &Path| {
        let status = Command::new("mkfifo").arg(path).status().unwrap();
        assert!(status.success());
    };
    fifo(&store.state_path());
    // A store keeps the verdict of its layout check (one check per hook call): each change
    // below is looked at by a new one, as by the next command.
    let store = Store::at(store.root());
    // Not a file handover creates: the store is refused (never opened, so never blocked on).
    let refused = |outcome: LoadOutcome| match outcome {
        LoadOutcome::Refused(r) => r.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    let s = store.clone();
    let why = refused(within_10s(move || s.load()));
    insta::assert_snapshot!("fifo_state", placeholders(store.root(), &why));
    assert!(
        store.save(&h, "").is_err(),
        "a refused store is not written"
    );

    fs::remove_file(store.state_path()).unwrap();
    fs::create_dir(store.state_path()).unwrap();
    let store = Store::at(store.root());
    let why = refused(store.load());
    insta::assert_snapshot!("directory_state", placeholders(store.root(), &why));
    fs::remove_dir(store.state_path()).unwrap();

    fs::remove_file(store.journal_path()).unwrap();
    fifo(&store.journal_path());
    let store = Store::at(store.root());
    let s = store.clone();
    assert!(within_10s(move || s.journal()).is_empty());
    let s = store.clone();
    let why = refused(within_10s(move || s.load()));
    insta::assert_snapshot!("fifo_journal", placeholders(store.root(), &why));
}

/// Recovery from a damaged state.json looks for the newest `write` event in the journal's last
/// `MAX_RECOVERY_READ` bytes only (a hook meets the damage, and used to parse up to 64 MiB of
/// journal): found behind 1 MiB of later events, not behind more than the bound.
#[test]
fn journal_recovery_reads_a_bounded_tail() {
    for (filler, found) in [
        (1024 * 1024, true),
        (store::MAX_RECOVERY_READ as usize + 1024 * 1024, false),
    ] {
        let (_dir, writer) = temp_store();
        let h = handoff(1, "recoverable");
        writer.save(&h, "").unwrap();
        let event = format!(
            "{{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"ack\",\"note\":\"{}\"}}\n",
            "x".repeat(1000)
        );
        let mut lines = String::new();
        while lines.len() < filler {
            lines.push_str(&event);
        }
        let mut journal = fs::OpenOptions::new()
            .append(true)
            .open(writer.journal_path())
            .unwrap();
        std::io::Write::write_all(&mut journal, lines.as_bytes()).unwrap();
        for entry in fs::read_dir(writer.archive_dir()).unwrap() {
            fs::remove_file(entry.unwrap().path()).unwrap();
        }
        fs::write(writer.state_path(), "{").unwrap();
        let store = Store::at(writer.root());
        match (store.load(), found) {
            (LoadOutcome::Loaded(l), true) => {
                assert_eq!(l.source, Source::Journal);
                assert_eq!(l.handoff, h);
            }
            (LoadOutcome::Unrecoverable { problem }, false) => {
                assert!(problem.contains("no intact handoff"), "{problem}")
            }
            (other, _) => panic!("{filler} bytes of later events: {other:?}"),
        }
    }
}
