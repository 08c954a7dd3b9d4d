//! `cargo bench -p handover --bench record`: what keeping the session record costs.
//!
//! Prints medians and ratios for:
//! - the record update after one turn (in process: read the appended bytes, fold the facts,
//!   read branch and HEAD, write the record) on a 1 MB and on a 200 MB transcript; each run
//!   appends one real turn (the Claude Code tool-call fixture, 172 KB) and times the update
//!   (the append itself is left out);
//! - the same through the `handover-context-watch` binary at Stop (spawn to exit, which also
//!   measures how full the context is);
//! - `handover-pre-compact` at SessionEnd on the 200 MB transcript, with the record kept up to
//!   date by the turns before (the usual case; it reads the two turns appended since) and with no record at all (hooks installed in
//!   the middle of a long session: the update reads at most its last 16 MiB). Both must finish
//!   well within the hook's 10 s timeout (and the hooks' own 2.5 s watchdog).
//!
//! - the working-tree scan that attributes shell edits (docs/hooks.md): the Stop hook after a
//!   turn that ran a command (a new session's first scan; and in a session whose earlier scan
//!   was slower than a turn may wait, where it is skipped), after one that did not, and
//!   SessionStart (which takes no snapshot), in a small repository and in one of
//!   `RECORD_BENCH_TREE_FILES` tracked files (default 100,000) with 5 dirty ones.
//!
//! `RECORD_BENCH_RUNS` sets the runs per case (default 31); cases run round-robin;
//! `RECORD_BENCH_ONLY=tree` runs only the working-tree cases.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "measure.rs"]
mod measure;

use handover_clients::HookInput;
use handover_hooks::call::Call;
use handover_hooks::events::session_record::{self, Moment};
use measure::{medians_interleaved, run};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CONTEXT_WATCH: &str = env!("CARGO_BIN_EXE_handover-context-watch");
const PRE_COMPACT: &str = env!("CARGO_BIN_EXE_handover-pre-compact");
const SESSION_START: &str = env!("CARGO_BIN_EXE_handover-session-start");

fn main() {
    let runs: usize = std::env::var("RECORD_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(31);
    let tmp = tempfile::tempdir().expect("temp dir");
    if std::env::var("RECORD_BENCH_ONLY").is_ok_and(|v| v == "tree") {
        tree_scan(runs, tmp.path());
        return;
    }
    let repo = tmp.path().join("repo");
    make_repo(&repo);
    let turn_bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/clients/claude-2.1.330/transcript-tools.jsonl"),
    )
    .expect("fixture");
    let turn: &[u8] = &turn_bytes;
    eprintln!("writing transcripts in {} ...", tmp.path().display());
    let t1 = grow(&tmp.path().join("t1.jsonl"), turn, 1 << 20);
    let t200 = grow(&tmp.path().join("t200.jsonl"), turn, 200 << 20);

    // The sessions' records start at the end of their transcripts (kept up to date so far).
    for (sid, t) in [("s1", &t1), ("s200", &t200), ("e200", &t200)] {
        update(&repo, sid, t, Moment::Turn, "Stop");
    }
    let in_process = |sid: &'static str, t: &PathBuf| {
        let (repo, t) = (repo.clone(), t.clone());
        move || {
            append(&t, turn);
            let start = Instant::now();
            update(&repo, sid, &t, Moment::Turn, "Stop");
            start.elapsed()
        }
    };
    let stop_hook = |sid: &'static str, t: &PathBuf| {
        let (repo, t) = (repo.clone(), t.clone());
        move || {
            append(&t, turn);
            let p = payload(&repo, sid, &t, "Stop");
            let start = Instant::now();
            let out = run(CONTEXT_WATCH, &["--agent", "claude"], &p);
            let took = start.elapsed();
            assert!(out.is_empty(), "{out}");
            took
        }
    };
    let mut fresh = 0u64;
    let session_end_fresh = {
        let (repo, t) = (repo.clone(), t200.clone());
        move || {
            fresh += 1;
            let p = payload(&repo, &format!("fresh-{fresh}"), &t, "SessionEnd");
            let start = Instant::now();
            run(PRE_COMPACT, &["--agent", "claude"], &p);
            start.elapsed()
        }
    };
    let session_end_kept = {
        let (repo, t) = (repo.clone(), t200.clone());
        // Appends nothing itself: it reads the two turns the Stop cases on this transcript
        // appended since its last run (an append here would be read by those cases too, and
        // make them read two turns instead of one).
        move || {
            let p = payload(&repo, "e200", &t, "SessionEnd");
            let start = Instant::now();
            run(PRE_COMPACT, &["--agent", "claude"], &p);
            start.elapsed()
        }
    };
    let fresh_cell = std::cell::RefCell::new(session_end_fresh);
    let kept_cell = std::cell::RefCell::new(session_end_kept);
    let cases: Vec<Box<dyn Fn() -> Duration + '_>> = vec![
        Box::new(in_process("s1", &t1)),
        Box::new(in_process("s200", &t200)),
        Box::new(stop_hook("s1", &t1)),
        Box::new(stop_hook("s200", &t200)),
        Box::new(|| (kept_cell.borrow_mut())()),
        Box::new(|| (fresh_cell.borrow_mut())()),
    ];
    let medians = medians_interleaved(runs, &cases);
    let [up_1, up_200, stop_1, stop_200, end_kept, end_fresh] = medians[..] else {
        unreachable!("six cases")
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let rec = session_record_size(&repo, "s200");
    println!();
    println!("session record benchmark: {runs} interleaved runs per case, median wall time");
    println!(
        "  record update after a turn, 1 MB transcript     {:8.3} ms",
        ms(up_1)
    );
    println!(
        "  record update after a turn, 200 MB transcript   {:8.3} ms",
        ms(up_200)
    );
    println!(
        "    ratio 200 MB / 1 MB                          {:8.2}",
        ms(up_200) / ms(up_1)
    );
    println!(
        "  Stop hook (spawn to exit), 1 MB transcript      {:8.3} ms",
        ms(stop_1)
    );
    println!(
        "  Stop hook (spawn to exit), 200 MB transcript    {:8.3} ms",
        ms(stop_200)
    );
    println!(
        "    ratio 200 MB / 1 MB                          {:8.2}",
        ms(stop_200) / ms(stop_1)
    );
    println!(
        "  SessionEnd, 200 MB, record up to date           {:8.3} ms",
        ms(end_kept)
    );
    println!(
        "  SessionEnd, 200 MB, no record (reads 16 MiB)    {:8.3} ms",
        ms(end_fresh)
    );
    println!("  hook timeout 10,000 ms; hooks' own watchdog 2,500 ms");
    println!("  record file after {} turns: {rec} bytes", runs + 2);
    tree_scan(runs, tmp.path());
}

/// The Stop hook with and without the working-tree scan, and SessionStart, in a small
/// repository and in a large one.
fn tree_scan(runs: usize, tmp: &Path) {
    let files: usize = std::env::var("RECORD_BENCH_TREE_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let small = tmp.join("small");
    make_repo(&small);
    let large = tmp.join("large");
    eprintln!("writing a repository of {files} files ...");
    make_large_repo(&large, files);
    for repo in [&small, &large] {
        for i in 0..5 {
            std::fs::write(repo.join(format!("dirty-{i}.txt")), "x").expect("write");
        }
    }
    // One turn with a command (its result included), one with only a question and an answer.
    let with_command = [
        serde_json::json!({"type":"assistant","timestamp":"2026-11-25T10:00:00.000Z","message":{"role":"assistant","content":[
            {"type":"tool_use","id":"b1","name":"Bash","input":{"command":"printf x > dirty-0.txt"}}]}}),
        serde_json::json!({"type":"user","timestamp":"2026-11-25T10:00:01.000Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":"b1","content":"","is_error":false}]}}),
    ];
    let without = [
        serde_json::json!({"type":"user","timestamp":"2026-11-25T10:00:00.000Z","message":{"role":"user","content":"why?"}}),
        serde_json::json!({"type":"assistant","timestamp":"2026-11-25T10:00:01.000Z","message":{"role":"assistant","content":[
            {"type":"text","text":"Because."}]}}),
    ];
    let lines = |l: &[serde_json::Value]| -> Vec<u8> {
        l.iter()
            .map(|v| format!("{v}\n"))
            .collect::<String>()
            .into_bytes()
    };
    let (with_command, without) = (lines(&with_command), lines(&without));
    // `fresh`: a new session each run (its first scan); else one session throughout (after a
    // scan slower than a turn may wait, the turns skip it).
    let stop = |repo: &Path, name: &str, turn: Vec<u8>, fresh: bool| {
        let t = tmp.join(format!("{name}.jsonl"));
        std::fs::write(&t, &turn).expect("write");
        let (repo, name) = (repo.to_path_buf(), name.to_string());
        let n = std::cell::Cell::new(0u32);
        Box::new(move || {
            append(&t, &turn);
            n.set(n.get() + 1);
            let sid = if fresh {
                format!("{name}-{}", n.get())
            } else {
                name.clone()
            };
            let p = payload(&repo, &sid, &t, "Stop");
            let start = Instant::now();
            let out = run(CONTEXT_WATCH, &["--agent", "claude"], &p);
            let took = start.elapsed();
            assert!(out.is_empty(), "{out}");
            took
        }) as Box<dyn Fn() -> Duration>
    };
    let start_hook = |repo: &Path| {
        let repo = repo.to_path_buf();
        Box::new(move || {
            let p = serde_json::to_vec(&serde_json::json!({"session_id": "start", "cwd": repo,
                "hook_event_name": "SessionStart", "source": "startup"}))
            .expect("json");
            let start = Instant::now();
            run(SESSION_START, &["--agent", "claude"], &p);
            start.elapsed()
        }) as Box<dyn Fn() -> Duration>
    };
    let cases: Vec<Box<dyn Fn() -> Duration>> = vec![
        stop(&small, "small-cmd", with_command.clone(), true),
        stop(&small, "small-talk", without.clone(), false),
        stop(&large, "large-cmd", with_command.clone(), true),
        stop(&large, "large-talk", without, false),
        start_hook(&small),
        start_hook(&large),
        stop(&small, "small-cmd-again", with_command.clone(), false),
        stop(&large, "large-cmd-again", with_command, false),
    ];
    let medians = medians_interleaved(runs, &cases);
    let [s_cmd, s_talk, l_cmd, l_talk, s_start, l_start, s_again, l_again] = medians[..] else {
        unreachable!("eight cases")
    };
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!();
    println!("working-tree scan (shell edits): {files} files vs a small repository, 5 dirty files, median wall time");
    for (what, small, large) in [
        ("Stop after a turn that ran a command (scans)", s_cmd, l_cmd),
        (
            "the same in a session whose scans were slow ",
            s_again,
            l_again,
        ),
        (
            "Stop after a turn without commands          ",
            s_talk,
            l_talk,
        ),
        (
            "SessionStart (no snapshot taken)            ",
            s_start,
            l_start,
        ),
    ] {
        println!(
            "  {what}  small {:8.3} ms  large {:8.3} ms  ratio {:6.2}",
            ms(small),
            ms(large),
            ms(large) / ms(small)
        );
    }
    println!(
        "  the scan after a turn is given up after 300 ms, and skipped after one that took longer"
    );
}

/// A committed repository of `files` small files in directories of 100.
fn make_large_repo(dir: &Path, files: usize) {
    for i in 0..files {
        let d = dir.join(format!("d{:04}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&d).expect("mkdir");
        }
        std::fs::write(d.join(format!("f{i}.txt")), i.to_string()).expect("write");
    }
    make_repo(dir);
}

fn update(repo: &Path, sid: &str, t: &Path, moment: Moment, event: &str) {
    let input = HookInput::from_value(&serde_json::json!({
        "session_id": sid, "transcript_path": t, "cwd": repo, "hook_event_name": event,
    }));
    let call = Call::new(
        Some(handover_clients::Agent::Claude),
        input,
        None,
        None,
        None,
    );
    let first_seen = call
        .session()
        .and_then(|(_, loaded)| loaded.first_seen_ms());
    let note = session_record::update(&call, moment, first_seen);
    assert!(note.starts_with("record updated"), "{note}");
}

fn session_record_size(repo: &Path, sid: &str) -> u64 {
    let dir = handover_record::files::dir(&repo.join(".handover"));
    std::fs::metadata(handover_record::files::path_for(&dir, sid))
        .map(|m| m.len())
        .unwrap_or(0)
}

fn payload(repo: &Path, sid: &str, t: &Path, event: &str) -> Vec<u8> {
    let mut v = serde_json::json!({"session_id": sid, "transcript_path": t, "cwd": repo,
        "hook_event_name": event});
    if event == "SessionEnd" {
        v["reason"] = "other".into();
    }
    serde_json::to_vec(&v).expect("json")
}

/// The transcript: the captured session repeated until it is `size` bytes long.
fn grow(path: &Path, turn: &[u8], size: usize) -> PathBuf {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let mut written = 0;
    while written < size {
        f.write_all(turn).expect("write");
        written += turn.len();
    }
    // On disk before measuring: writeback of 200 MB would otherwise compete with the runs.
    f.into_inner().expect("flush").sync_all().expect("sync");
    path.to_path_buf()
}

fn append(path: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .expect("append");
}

fn make_repo(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(dir.join("src/parse.py"), "def parse(s):\n    return s\n").expect("write");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@example.com",
            "commit",
            "-q",
            "-m",
            "init",
        ],
    ] {
        let st = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(Stdio::null())
            .status()
            .expect("git");
        assert!(st.success(), "git {args:?}");
    }
}
