//! The `handover` command end to end, on real git repositories in temporary directories.

use crate::support::repo;

use crate::support::repo::TestRepo;
use crate::support::snapshot::placeholders;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_handover");

fn handover(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CLAUDECODE")
        .env("HANDOVER_AGENT", "test")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("handover runs");
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn ok(dir: &Path, args: &[&str], stdin: Option<&str>) -> String {
    repo::succeeded(args, handover(dir, args, stdin))
}

fn boot_json(dir: &Path) -> Value {
    serde_json::from_str(&ok(dir, &["boot", "--json"], None)).expect("boot --json prints JSON")
}

fn state(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(".handover/state.json")).unwrap())
        .unwrap()
}

const SAMPLE: &str = r#"{
  "goal": "Add CSV export",
  "spec_ref": "docs/spec.md",
  "status": {"completed": ["rows"], "in_progress": ["quoting"], "pending": ["docs"]},
  "decisions": [{"what": "hand-written CSV", "why": "two columns", "alternatives": ["csv crate"], "reversible": true}],
  "important_files": [{"path": "src/lib.rs", "why": "the writer"}],
  "evidence": {"commands_run": ["cargo test"], "measurements": {"p50_ms": 12.5, "passed": true}},
  "environment": {"FEATURE_CSV": true},
  "next_action": "quote commas",
  "stop_conditions": ["spec and code disagree"]
}"#;

#[test]
fn write_from_json_creates_every_file_and_a_private_guard() {
    let r = TestRepo::with_commit();
    let out = ok(&r.path, &["write", "--from", "-"], Some(SAMPLE));
    insta::assert_snapshot!("write_from_json", placeholders(&r.path, &out));
    let s = state(&r.path);
    assert_eq!(s["goal"], "Add CSV export");
    assert_eq!(s["schema_version"], 1);
    assert_eq!(
        s["evidence"]["measurements"]["p50_ms"], "12.5",
        "numbers become text"
    );
    assert_eq!(s["environment"]["FEATURE_CSV"], "true");
    assert_eq!(s["git"]["branch"], "main");
    assert_eq!(s["git"]["head"], r.git(&["rev-parse", "HEAD"]));
    assert!(s["checksum"].as_str().unwrap().starts_with("sha256:"));
    assert!(r.path.join("handover.md").is_file());
    let journal = std::fs::read_to_string(r.path.join(".handover/journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1);
    // Private: git sees neither file.
    assert_eq!(
        r.git(&["status", "--porcelain", "--", "handover.md", ".handover"]),
        ""
    );
}

#[test]
fn unknown_or_misspelled_fields_are_refused_and_nothing_is_written() {
    let r = TestRepo::with_commit();
    let out = handover(
        &r.path,
        &["write", "--from", "-"],
        Some(r#"{"goal": "g", "next_actoin": "x", "status": {"complete": ["a"]}}"#),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    insta::assert_snapshot!("unknown_fields", placeholders(&r.path, &err));
    assert!(!r.path.join(".handover/state.json").exists());
    assert!(!r.path.join("handover.md").exists());
}

#[test]
fn invalid_json_names_line_and_column() {
    let r = TestRepo::with_commit();
    let out = handover(
        &r.path,
        &["write", "--from", "-"],
        Some("{\n  \"goal\": \"g\",\n}"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    insta::assert_snapshot!("trailing_comma_json", placeholders(&r.path, &err));
}

#[test]
fn missing_goal_is_refused() {
    let r = TestRepo::with_commit();
    let out = handover(&r.path, &["write", "--next", "do it"], None);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(
        "no_goal",
        placeholders(&r.path, &String::from_utf8_lossy(&out.stderr))
    );
}

#[test]
fn secrets_are_redacted_before_writing() {
    let r = TestRepo::with_commit();
    let input = r#"{"goal": "deploy", "evidence": {"commands_run": ["curl https://deploy:hunter2secret@example.com/api", "export GITHUB_TOKEN=ghp_Qx7RtLm2ZbN8cWvK4Hd9Js3Fp6Vy1Ge5Ua0T"]}}"#;
    let out = ok(&r.path, &["write", "--from", "-"], Some(input));
    insta::assert_snapshot!("write_redacted", placeholders(&r.path, &out));
    for f in [
        "handover.md",
        ".handover/state.json",
        ".handover/journal.jsonl",
    ] {
        let text = std::fs::read_to_string(r.path.join(f)).unwrap();
        assert!(
            !text.contains("hunter2secret") && !text.contains("ghp_Qx7RtL"),
            "{f} leaks a secret"
        );
    }
}

#[test]
fn flags_update_the_current_handoff_and_a_new_goal_starts_fresh() {
    let r = TestRepo::with_commit();
    ok(
        &r.path,
        &[
            "write",
            "--goal",
            "G1",
            "--in-progress",
            "parser",
            "--decision",
            "use serde :: it is everywhere",
        ],
        None,
    );
    ok(
        &r.path,
        &["write", "--completed", "parser", "--next", "lexer"],
        None,
    );
    let s = state(&r.path);
    assert_eq!(s["goal"], "G1");
    assert_eq!(s["status"]["completed"][0], "parser");
    assert_eq!(
        s["status"]["in_progress"].as_array().unwrap().len(),
        0,
        "completed moves it out"
    );
    assert_eq!(s["decisions"][0]["why"], "it is everywhere");
    ok(&r.path, &["write", "--goal", "G2"], None);
    let s = state(&r.path);
    assert_eq!(s["goal"], "G2");
    assert!(
        s["decisions"].as_array().unwrap().is_empty(),
        "a new goal starts fresh"
    );
    assert_eq!(
        std::fs::read_dir(r.path.join(".handover/archive"))
            .unwrap()
            .count(),
        2
    );
}

#[test]
fn decision_flag_without_reason_is_refused() {
    let r = TestRepo::with_commit();
    let out = handover(
        &r.path,
        &["write", "--goal", "g", "--decision", "no reason"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(
        "decision_without_reason",
        placeholders(&r.path, &String::from_utf8_lossy(&out.stderr))
    );
}

#[test]
fn hand_edited_markdown_round_trips() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--from", "-"], Some(SAMPLE));
    let before = state(&r.path);
    ok(&r.path, &["write", "--from", "handover.md"], None);
    let after = state(&r.path);
    for key in [
        "goal",
        "spec_ref",
        "status",
        "decisions",
        "important_files",
        "evidence",
        "environment",
        "next_action",
        "stop_conditions",
        "kind",
    ] {
        assert_eq!(
            before[key], after[key],
            "field {key} changed in the round trip"
        );
    }
    // A hand edit: add a completed item.
    let md = std::fs::read_to_string(r.path.join("handover.md")).unwrap();
    assert!(md.contains("- rows"), "{md}");
    std::fs::write(
        r.path.join("handover.md"),
        md.replacen("- rows", "- rows\n- escaping", 1),
    )
    .unwrap();
    ok(&r.path, &["write", "--from", "handover.md"], None);
    assert_eq!(
        state(&r.path)["status"]["completed"],
        serde_json::json!(["rows", "escaping"])
    );
}

#[test]
fn boot_verdicts_follow_the_repository() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--from", "-"], Some(SAMPLE));
    let b = boot_json(&r.path);
    assert_eq!(b["verdict"], "fresh", "{b}");

    std::fs::write(r.path.join("src/lib.rs"), "pub fn a() { 1; }\n").unwrap();
    r.git(&["commit", "-qam", "Make a do something"]);
    let b = boot_json(&r.path);
    assert_eq!(b["verdict"], "drifted", "{b}");
    // The commit's subject is listed.
    insta::assert_snapshot!(
        "drifted_reasons",
        placeholders(
            &r.path,
            &serde_json::to_string_pretty(&b["reasons"]).unwrap()
        )
    );

    r.git(&["checkout", "-q", "-b", "other"]);
    let b = boot_json(&r.path);
    assert_eq!(b["verdict"], "stale", "{b}");

    let text = ok(&r.path, &["boot"], None);
    insta::assert_snapshot!("boot_stale", placeholders(&r.path, &text));
}

#[test]
fn boot_without_a_handoff_says_so_in_one_line() {
    let r = TestRepo::with_commit();
    let out = ok(&r.path, &["boot"], None);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("No handoff"), "{out}");
}

#[test]
fn boot_works_from_a_subdirectory() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "from the top"], None);
    let b = boot_json(&r.path.join("src"));
    assert_eq!(b["handoff"]["goal"], "from the top");
}

#[test]
fn each_worktree_has_its_own_handoff() {
    let r = TestRepo::with_commit();
    let wt: PathBuf = r.path.join("wt");
    r.add_worktree(&wt, "feature");
    ok(&r.path, &["write", "--goal", "main work"], None);
    ok(&wt, &["write", "--goal", "feature work"], None);
    assert_eq!(boot_json(&r.path)["handoff"]["goal"], "main work");
    let b = boot_json(&wt);
    assert_eq!(b["handoff"]["goal"], "feature work");
    assert_eq!(b["verdict"], "fresh", "{b}");
}

#[test]
fn outside_git_the_verdict_is_unverified() {
    let d = tempfile::tempdir().unwrap();
    let out = ok(d.path(), &["write", "--goal", "no git here"], None);
    insta::assert_snapshot!(
        "write_outside_git",
        placeholders(&d.path().canonicalize().unwrap(), &out)
    );
    assert_eq!(boot_json(d.path())["verdict"], "unverified");
}

#[test]
fn corrupted_state_is_reported_and_recovered() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "survive corruption"], None);
    let p = r.path.join(".handover/state.json");
    let text = std::fs::read_to_string(&p).unwrap();
    // Cut where the goal starts: the same damage at the same place in every run.
    std::fs::write(&p, &text[..text.find("\"goal\"").unwrap()]).unwrap();
    let b = boot_json(&r.path);
    assert_eq!(b["recovered"], true, "{b}");
    assert_eq!(b["handoff"]["goal"], "survive corruption");
    let text = ok(&r.path, &["boot"], None);
    insta::assert_snapshot!("boot_recovered", placeholders(&r.path, &text));
}

#[test]
fn done_archives_and_ack_is_journaled() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "finish me"], None);
    let out = ok(&r.path, &["ack", "--session", "s-9"], None);
    insta::assert_snapshot!("ack", placeholders(&r.path, &out));
    let status: Value = serde_json::from_str(&ok(&r.path, &["status", "--json"], None)).unwrap();
    assert_eq!(status["handoff"]["acks"], 1, "{status}");
    assert_eq!(status["guard"]["present"], true, "{status}");
    ok(&r.path, &["done"], None);
    assert!(!r.path.join("handover.md").exists());
    assert!(!r.path.join(".handover/state.json").exists());
    assert!(ok(&r.path, &["boot"], None).starts_with("No handoff"));
    let journal = std::fs::read_to_string(r.path.join(".handover/journal.jsonl")).unwrap();
    let events: Vec<String> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| e["event"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(events, ["write", "ack", "done"]);
}

/// `status` counts the current handoff's deliveries and acknowledgements from the journal's end
/// back to the line that wrote it, and reads nothing older: the earlier handoffs' lines are
/// not counted, and a line that names the current id but stands before its write (which only
/// a hand-edited journal has) is not reached.
#[test]
fn status_counts_acks_since_the_handoff_was_written() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "the first task"], None);
    ok(&r.path, &["ack", "--session", "s-1"], None);
    ok(&r.path, &["ack", "--session", "s-2"], None);
    ok(&r.path, &["write", "--goal", "the second task"], None);
    ok(&r.path, &["ack", "--session", "s-3"], None);
    let id = state(&r.path)["id"].as_str().unwrap().to_string();
    let acks = |r: &TestRepo| -> Value {
        let status: Value =
            serde_json::from_str(&ok(&r.path, &["status", "--json"], None)).unwrap();
        status["handoff"]["acks"].clone()
    };
    assert_eq!(acks(&r), 1);
    // An acknowledgement of the current id put before its write line: not read any more.
    let path = r.path.join(".handover/journal.jsonl");
    let journal = std::fs::read_to_string(&path).unwrap();
    let forged =
        format!("{{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"ack\",\"handoff_id\":\"{id}\"}}\n");
    std::fs::write(&path, format!("{forged}{journal}")).unwrap();
    assert_eq!(acks(&r), 1);
}

/// `archive.keep` at write time: the oldest handoffs go, with the handover.md copy kept beside
/// one; what handover did not name is never touched; history.json counts what is left.
#[test]
fn archive_keep_removes_the_oldest_handoffs_and_only_files_handover_wrote() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "task 0"], None);
    let archive = r.path.join(".handover/archive");
    std::fs::create_dir_all(&archive).unwrap();
    // Not ours: a note, a name of our shape that is a link, a name that is not a stamp.
    std::fs::write(archive.join("notes.txt"), "mine").unwrap();
    std::fs::write(archive.join("2026-old.json"), "{}").unwrap();
    std::os::unix::fs::symlink(
        r.path.join("README.md"),
        archive.join("20000101T000000.000000000Z.json"),
    )
    .unwrap();
    for n in 1..=4 {
        ok(&r.path, &["write", "--goal", &format!("task {n}")], None);
    }
    let handoffs = |r: &TestRepo| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(r.path.join(".handover/archive"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json") && n.contains('T') && !n.starts_with("2000"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(handoffs(&r).len(), 4, "default: every handoff kept");
    let counts = |r: &TestRepo| -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(r.path.join(".handover/history.json")).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(counts(&r)["archived"]["main"], 4);

    std::fs::write(
        r.path.join(".handover/config.toml"),
        "[archive]\nkeep = 2\n",
    )
    .unwrap();
    let before = handoffs(&r);
    ok(&r.path, &["write", "--goal", "task 5"], None);
    let after = handoffs(&r);
    assert_eq!(after.len(), 2, "{after:?}");
    assert_eq!(after[0], before[3], "the newest kept, the oldest gone");
    assert_eq!(counts(&r)["archived"]["main"], 2);
    for name in [
        "notes.txt",
        "2026-old.json",
        "20000101T000000.000000000Z.json",
    ] {
        assert!(
            std::fs::symlink_metadata(archive.join(name)).is_ok(),
            "{name} is not handover's to remove"
        );
    }
    // `done` archives the last one and keeps to the setting too.
    ok(&r.path, &["done"], None);
    assert_eq!(handoffs(&r).len(), 2);
    assert_eq!(counts(&r)["archived"]["main"], 2);
    // A store without the counts (an older handover's, or the file lost): the next write that
    // archives counts the archive once.
    ok(&r.path, &["write", "--goal", "task 6"], None);
    std::fs::remove_file(r.path.join(".handover/history.json")).unwrap();
    ok(&r.path, &["write", "--goal", "task 7"], None);
    assert_eq!(handoffs(&r).len(), 2);
    assert_eq!(counts(&r)["archived"]["main"], 2);
}

#[test]
fn a_bad_archive_setting_stops_the_write_naming_the_key_and_the_fix() {
    let r = TestRepo::with_commit();
    std::fs::create_dir_all(r.path.join(".handover")).unwrap();
    std::fs::write(
        r.path.join(".handover/config.toml"),
        "[archive]\nkeep = 0\n",
    )
    .unwrap();
    let out = handover(&r.path, &["write", "--goal", "g"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "line 2: `archive.keep` is 0 (integer); expected an integer from 1 to 1000000"
        ),
        "{err}"
    );
    assert!(!r.path.join(".handover/state.json").exists());
}

/// The startup context names the history of the handoff's branch (one line, counted at write
/// time), not on a first handoff, not for another branch's history, within the budget.
#[test]
fn the_startup_context_says_how_many_earlier_handoffs_the_branch_has() {
    let r = TestRepo::with_commit();
    let startup = |r: &TestRepo| ok(&r.path, &["boot", "--startup"], None);
    ok(&r.path, &["write", "--goal", "first"], None);
    assert!(!startup(&r).contains("earlier handoff"), "{}", startup(&r));
    ok(&r.path, &["write", "--goal", "second"], None);
    assert!(
        startup(&r).contains("\n1 earlier handoff on this branch: `")
            && startup(&r).contains(" log` lists it."),
        "{}",
        startup(&r)
    );
    ok(&r.path, &["done"], None);
    ok(&r.path, &["write", "--goal", "third"], None);
    assert!(
        startup(&r).contains("\n2 earlier handoffs on this branch"),
        "{}",
        startup(&r)
    );
    // The hook says the same (its journal line aside).
    r.git(&["checkout", "-q", "-b", "other"]);
    ok(&r.path, &["write", "--goal", "elsewhere"], None);
    assert!(!startup(&r).contains("earlier handoff"), "{}", startup(&r));
    r.git(&["checkout", "-q", "main"]);
    ok(&r.path, &["write", "--goal", "back on main"], None);
    assert!(
        startup(&r).contains("\n3 earlier handoffs on this branch"),
        "{}",
        startup(&r)
    );
    // A tight budget: the handoff's text first, the line only where it fits.
    std::fs::write(
        r.path.join(".handover/config.toml"),
        "[startup]\nbudget_chars = 300\n",
    )
    .unwrap();
    let text = startup(&r);
    assert!(!text.contains("earlier handoff"), "{text}");
    assert!(text.trim_end().chars().count() <= 300, "{text}");
}

#[test]
fn facts_only_policy_refuses_a_plan() {
    let r = TestRepo::with_commit();
    std::fs::create_dir_all(r.path.join(".handover")).unwrap();
    std::fs::write(
        r.path.join(".handover/config.toml"),
        "[policy]\nfacts_only = true\n",
    )
    .unwrap();
    let out = handover(
        &r.path,
        &["write", "--goal", "g", "--next", "my plan"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(
        "facts_only_refusal",
        placeholders(&r.path, &String::from_utf8_lossy(&out.stderr))
    );
    ok(&r.path, &["write", "--goal", "g"], None);
}

#[test]
fn demo_runs_the_tour_and_cleans_up() {
    let d = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .arg("demo")
        .env("TMPDIR", d.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!("demo", demo_placeholders(&text));
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "the demo repository is removed"
    );
}

/// The demo's tour as a snapshot pins it: its repository (a new temporary directory, gone when
/// the demo ends) as `[DEMO]`, its two commits as `[commit N]` (read from the tour itself: the
/// first is handover.md's `HEAD:`, the second the one that moved HEAD), the handoff's id and the
/// archive's stamp as `[ID]` and `[STAMP]`, the executable as `[BIN]`, and the sizes that
/// depend on the lengths of those paths (the files' bytes, the context's characters) as `[N]`.
fn demo_placeholders(text: &str) -> String {
    let after = |marker: &str| -> String {
        let line = text.lines().find(|l| l.contains(marker)).unwrap();
        line[line.find(marker).unwrap() + marker.len()..].to_string()
    };
    let before = |marker: &str| -> String {
        let line = text.lines().find(|l| l.contains(marker)).unwrap();
        line[..line.find(marker).unwrap()].trim().to_string()
    };
    let demo = before(": one commit");
    let first = after("- HEAD: ");
    let second = before(" «Write the CSV header»");
    let mut text = text
        .replace(&demo, "[DEMO]")
        .replace(&first, "[commit 1]")
        .replace(&first[..7], "[commit 1]")
        .replace(&second, "[commit 2]");
    if let Ok(canonical) = Path::new(BIN).canonicalize() {
        text = text.replace(&canonical.display().to_string(), "[BIN]");
    }
    // A number before one of these units, with the padding that right-aligns it.
    let sized = |line: &str| -> String {
        for unit in [" bytes", " characters;"] {
            if let Some(at) = line.find(unit) {
                let head = line[..at].trim_end_matches(|c: char| c.is_ascii_digit());
                let space = if head.ends_with(' ') { " " } else { "" };
                return format!("{}{space}[N]{}", head.trim_end(), &line[at..]);
            }
        }
        line.to_string()
    };
    let text: Vec<String> = text.replace(BIN, "[BIN]").lines().map(sized).collect();
    crate::support::snapshot::mask_ids(&(text.join("\n") + "\n"))
}

/// The handover CLI with a home of its own (HOME, CODEX_HOME): the user's real settings must
/// not decide what a test sees. Panics unless it succeeds; returns its stdout.
fn ok_at_home(dir: &Path, home: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "handover {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn status_in(dir: &Path, home: &Path) -> Value {
    serde_json::from_slice(&ok_at_home(dir, home, &["status", "--json"])).unwrap()
}

/// status's problems, one a line, as a snapshot pins them.
fn problems(status: &Value, dir: &Path, home: &Path) -> String {
    let lines: String = status["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("- {}\n", p.as_str().unwrap()))
        .collect();
    placeholders(dir, &lines.replace(&home.display().to_string(), "[HOME]"))
}

#[test]
fn status_calls_a_repository_wired_for_no_agent_a_problem() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let mut seen = String::from("> nothing installed\n");
    let s = status_in(&r.path, home.path());
    seen.push_str(&problems(&s, &r.path, home.path()));

    // The Codex plugin alone counts as wired (its trust is a problem of its own).
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    std::fs::write(
        home.path().join(".codex/config.toml"),
        "[plugins.\"handover@handover\"]\nenabled = true\n",
    )
    .unwrap();
    let s = status_in(&r.path, home.path());
    seen.push_str("> the Codex plugin, untrusted\n");
    seen.push_str(&problems(&s, &r.path, home.path()));
    assert_eq!(
        s["agents"]["codex"]["plugins"][0], "handover@handover",
        "{s}"
    );

    // So does a per-repository install.
    std::fs::remove_file(home.path().join(".codex/config.toml")).unwrap();
    let bin_dir = Path::new(BIN)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    ok_at_home(
        &r.path,
        home.path(),
        &["install", "--all", "--hooks-dir", &bin_dir],
    );
    let s = status_in(&r.path, home.path());
    seen.push_str("> installed in the repository\n");
    seen.push_str(&problems(&s, &r.path, home.path()));

    // Plugin and per-repository install together: reported, with how to remove one.
    let config = home.path().join(".codex/config.toml");
    let before = std::fs::read_to_string(&config).unwrap_or_default();
    std::fs::write(
        &config,
        format!("{before}\n[plugins.\"handover@handover\"]\nenabled = true\n"),
    )
    .unwrap();
    let s = status_in(&r.path, home.path());
    seen.push_str("> the plugin and the repository's install\n");
    seen.push_str(&problems(&s, &r.path, home.path()));
    insta::assert_snapshot!("status_problems_by_wiring", seen);
}

/// A relative (or empty) CODEX_HOME / GEMINI_CLI_HOME / CLAUDE_CONFIG_DIR names no place of
/// the user's: install would otherwise create it relative to wherever it runs. It is ignored,
/// the default homes are used; absolute values are honoured.
#[test]
fn a_relative_codex_home_or_gemini_cli_home_is_ignored_by_install() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let bin_dir = Path::new(BIN)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let install = |codex_home: &Path, gemini_cli_home: &Path, claude_config_dir: &Path| {
        let out = Command::new(BIN)
            .args([
                "install", "--claude", "--codex", "--gemini", "--scope", "user",
            ])
            .args(["--hooks-dir", &bin_dir])
            .current_dir(&r.path)
            .env("HOME", home)
            .env("CODEX_HOME", codex_home)
            .env("GEMINI_CLI_HOME", gemini_cli_home)
            .env("CLAUDE_CONFIG_DIR", claude_config_dir)
            .env_remove("XDG_STATE_HOME")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    install(
        Path::new("rel-codex"),
        Path::new("rel-gemini"),
        Path::new("rel-claude"),
    );
    assert!(home.join(".codex/hooks.json").is_file());
    assert!(home.join(".gemini/settings.json").is_file());
    assert!(home.join(".claude/settings.json").is_file());
    for rel in ["rel-codex", "rel-gemini", "rel-claude"] {
        assert!(
            !r.path.join(rel).exists(),
            "{rel} created in the repository"
        );
    }
    let codex_home = home.join("moved-codex");
    let gemini_cli_home = home.join("moved-gemini");
    let claude_config_dir = home.join("moved-claude");
    install(&codex_home, &gemini_cli_home, &claude_config_dir);
    assert!(codex_home.join("hooks.json").is_file());
    assert!(gemini_cli_home.join(".gemini/settings.json").is_file());
    assert!(claude_config_dir.join("settings.json").is_file());
}

#[test]
fn completions_come_from_the_cli_definition_for_each_shell() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let script = ok(dir.path(), &["completions", shell], None);
        // Subcommands and flags of the real definition, not a hand-written list.
        for word in ["install", "trust-plugin", "no-watch", "scope"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
    }
    let out = handover(dir.path(), &["completions", "tcsh"], None);
    assert_eq!(out.status.code(), Some(2));
}

/// A session record as the hooks leave it, updated now.
fn save_record(dir: &Path, session: &str, agent: &str) -> handover_record::SessionRecord {
    use handover_clients::transcript::Fact;
    use handover_record::SessionRecord;
    let mut r = SessionRecord::new(session, handover_clients::Agent::Claude);
    // Any name, as a record on disk may hold it.
    r.agent = agent.into();
    r.apply(Fact::Request("make the parser strip whitespace".into()));
    r.apply(Fact::Edited("src/parse.py".into()));
    r.apply(Fact::CommandRan {
        command: "sh run_tests.sh".into(),
        exit_code: Some(1),
    });
    r.updated = handover_base::clock::now_rfc3339();
    r.updated_ms = handover_base::clock::unix_now().0 * 1000;
    handover_record::files::save(&handover_handoff::store::Store::at(dir), &r).unwrap();
    r
}

#[test]
fn write_fills_empty_commands_and_files_from_the_session_record() {
    let r = TestRepo::with_commit();
    // Another agent's record is not this writer's.
    save_record(&r.path, "other-agent-session", "someone-else");
    let out = ok(&r.path, &["write", "--goal", "strip whitespace"], None);
    assert!(!out.contains("Filled"), "{out}");
    assert!(state(&r.path)["evidence"]["commands_run"]
        .as_array()
        .is_none_or(|a| a.is_empty()));

    // The file the session edited is there (a file that no longer is would not be filled).
    r.write("src/parse.py", "x = 1\n");
    save_record(&r.path, "s-1", "test");
    // The newest record of the same agent is not enough: the writer names its session.
    let out = ok(&r.path, &["write", "--goal", "strip whitespace"], None);
    assert!(!out.contains("Filled"), "{out}");
    let out = ok(
        &r.path,
        &["write", "--goal", "strip whitespace", "--session", "s-1"],
        None,
    );
    insta::assert_snapshot!("write_filled_from_the_record", placeholders(&r.path, &out));
    let s = state(&r.path);
    assert_eq!(
        s["evidence"]["commands_run"][0],
        "sh run_tests.sh (failed, exit 1; recorded by handover)"
    );
    assert_eq!(s["important_files"][0]["path"], "src/parse.py");
    // What the writer wrote is kept as written.
    ok(&r.path, &["write", "--from", "-"], Some(SAMPLE));
    let s = state(&r.path);
    assert_eq!(s["evidence"]["commands_run"][0], "cargo test");
    assert_eq!(s["important_files"][0]["path"], "src/lib.rs");
}

#[test]
fn boot_and_status_show_the_session_records() {
    let r = TestRepo::with_commit();
    save_record(&r.path, "s-rec", "codex");
    let out = ok(&r.path, &["boot"], None);
    insta::assert_snapshot!("boot_records_without_handoff", placeholders(&r.path, &out));
    let b = boot_json(&r.path);
    assert_eq!(b["records"][0]["session_id"], "s-rec");
    assert_eq!(b["records"][0]["last_failure"]["exit_code"], 1);
    // The whole screen is tests/install/screens.rs's (it depends on this machine's HOME here):
    // the records' line, whole.
    let status = ok(&r.path, &["status"], None);
    let line = status
        .lines()
        .find(|l| l.starts_with("session records:"))
        .unwrap_or_else(|| panic!("{status}"));
    insta::assert_snapshot!("status_records_line", placeholders(&r.path, line));
    let s: Value = serde_json::from_str(&ok(&r.path, &["status", "--json"], None)).unwrap();
    assert_eq!(s["records"][0]["files_edited"][0], "src/parse.py");
}
