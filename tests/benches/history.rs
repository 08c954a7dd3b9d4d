//! `cargo bench -p handover --bench history`: what a long history costs the readers that must
//! not read it. `handover status` and the SessionStart hook, each after one write and after
//! 3,000, in the same interleaved rounds (medians, spawn to exit), with the 3,000 ÷ 1 ratio:
//! flat is about 1.
//!
//! Two repositories are built in a temp dir (removed afterwards): one with a single handoff
//! written by `handover write`; one with 3,000 handoffs saved through the store before the
//! same write (each archives the one before it and journals a `write` line holding the whole
//! handoff, as `handover write` does), each followed by a delivery and an acknowledgement
//! line. The temp dir is on tmpfs (/dev/shm) when there is one: every save syncs its files,
//! which on a disk makes the setup take minutes instead of seconds. Reading is from the page
//! cache either way.
//!
//! `HISTORY_BENCH_RUNS` sets the rounds (default 21); `HISTORY_BENCH_WRITES` the longer
//! history (default 3,000); `HISTORY_BENCH_COMPARE=<label>=<dir>,...` runs the `handover` and
//! `handover-session-start` executables of other builds (e.g. before a change) beside this
//! one's, in the same rounds. Figures go in docs/benchmarks.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Shared with the record bench, which uses all of it.
#[allow(dead_code)]
mod measure;

use handover_handoff::model::Handoff;
use handover_handoff::store::{Event, Store};
use serde_json::json;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const HANDOVER: &str = env!("CARGO_BIN_EXE_handover");
const SESSION_START: &str = env!("CARGO_BIN_EXE_handover-session-start");

fn main() {
    let env_number = |name: &str, default: usize| -> usize {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let runs = env_number("HISTORY_BENCH_RUNS", 21);
    let writes = env_number("HISTORY_BENCH_WRITES", 3_000);
    let tmp = match Path::new("/dev/shm").is_dir() {
        true => tempfile::tempdir_in("/dev/shm").expect("temp dir"),
        false => tempfile::tempdir().expect("temp dir"),
    };
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let t = Instant::now();
    let one = repository(&tmp.path().join("one"), &home, 0);
    let long = repository(&tmp.path().join("long"), &home, writes);
    eprintln!(
        "set up in {:.1} s in {}: journal {} and {} bytes",
        t.elapsed().as_secs_f64(),
        tmp.path().display(),
        size(&one.join(".handover/journal.jsonl")),
        size(&long.join(".handover/journal.jsonl")),
    );

    let mut builds = vec![(
        "this build".to_string(),
        HANDOVER.to_string(),
        SESSION_START.to_string(),
    )];
    if let Ok(spec) = std::env::var("HISTORY_BENCH_COMPARE") {
        for item in spec.split(',').filter(|i| !i.is_empty()) {
            let (label, dir) = item
                .split_once('=')
                .expect("HISTORY_BENCH_COMPARE: <label>=<dir>");
            let exe = |name: &str| {
                let path = Path::new(dir).join(name);
                assert!(path.is_file(), "no {}", path.display());
                path.to_string_lossy().into_owned()
            };
            builds.push((
                label.to_string(),
                exe("handover"),
                exe("handover-session-start"),
            ));
        }
    }

    let session = Cell::new(0u64);
    let mut cases: Vec<Box<dyn Fn() -> Duration + '_>> =
        vec![Box::new(|| timed(Command::new("true"), b""))];
    for (_, cli, hook) in &builds {
        for repo in [&one, &long] {
            let home = &home;
            cases.push(Box::new(move || {
                let mut cmd = Command::new(cli);
                cmd.args(["status"]).current_dir(repo).env("HOME", home);
                timed(cmd, b"")
            }));
        }
        for repo in [&one, &long] {
            let session = &session;
            let home = &home;
            cases.push(Box::new(move || {
                // A new session each time: every run delivers the handoff (and journals it).
                session.set(session.get() + 1);
                let payload = json!({
                    "session_id": format!("bench-{}", session.get()),
                    "hook_event_name": "SessionStart",
                    "source": "startup",
                    "cwd": repo,
                    "transcript_path": repo.join("no-transcript.jsonl"),
                });
                let mut cmd = Command::new(hook);
                cmd.args(["--agent", "claude"])
                    .current_dir(repo)
                    .env("HOME", home);
                timed(cmd, &serde_json::to_vec(&payload).expect("json"))
            }));
        }
    }
    eprintln!("{} cases, {runs} rounds ...", cases.len());
    let medians = measure::medians_interleaved(runs, &cases);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!();
    println!(
        "handover history benchmark: {runs} interleaved rounds, median wall ms (spawn to exit), after 1 write and after {writes}"
    );
    println!("process floor (`true`): {:.2} ms", ms(medians[0]));
    println!(
        "{:<14} {:<26} {:>9} {:>9} {:>9}",
        "build", "command", "1 write", "history", "ratio"
    );
    for (b, (label, _, _)) in builds.iter().enumerate() {
        for (k, what) in ["handover status", "SessionStart hook"].iter().enumerate() {
            let i = 1 + b * 4 + k * 2;
            let (short, longer) = (medians[i], medians[i + 1]);
            println!(
                "{:<14} {:<26} {:>9.2} {:>9.2} {:>9.2}",
                label,
                what,
                ms(short),
                ms(longer),
                longer.as_secs_f64() / short.as_secs_f64()
            );
        }
    }
}

/// A repository whose store holds `earlier` handoffs saved through the store (each with a
/// delivery and an acknowledgement line after it), then one written by `handover write`.
fn repository(root: &Path, home: &Path, earlier: usize) -> PathBuf {
    std::fs::create_dir_all(root).expect("mkdir");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", home)
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.com")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.com")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    for i in 0..10 {
        std::fs::write(
            root.join(format!("file{i}.rs")),
            format!("fn f{i}() {{}}\n"),
        )
        .unwrap();
    }
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "initial"]);
    let write = |goal: &str| {
        let out = Command::new(HANDOVER)
            .args(["write", "-q", "--goal", goal])
            .args(["--next", "run the tests", "--completed", "the parser"])
            .args([
                "--decision",
                "keep the journal append-only :: recovery reads it",
            ])
            .args(["--in-progress", "the benchmark", "--pending", "the docs"])
            .args(["--agent", "claude"])
            .current_dir(root)
            .env("HOME", home)
            .output()
            .expect("handover write");
        assert!(out.status.success(), "handover write: {out:?}");
    };
    if earlier > 0 {
        write("the first of the history");
        let store = Store::at(root);
        let text = std::fs::read(store.state_path()).expect("state.json");
        let first: Handoff = serde_json::from_slice(&text).expect("handoff");
        for n in 0..earlier {
            let mut h = first.clone();
            h.id = format!("history-{n}");
            h.content.goal = format!("step {n} of the history");
            let markdown = handover_handoff::markdown::render(&h);
            store.save(&h, &markdown).expect("save");
            store
                .append_journal(
                    Event::Delivered,
                    json!({"source": "startup", "handoff_id": h.id, "verdict": "fresh"}),
                )
                .expect("delivered");
            store
                .append_journal(Event::Ack, json!({"handoff_id": h.id}))
                .expect("ack");
        }
    }
    write("the current task");
    root.to_path_buf()
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn timed(mut cmd: Command, stdin: &[u8]) -> Duration {
    let started = Instant::now();
    let out = measure::output(&mut cmd, stdin);
    let wall = started.elapsed();
    assert!(out.status.success(), "{cmd:?}: {out:?}");
    wall
}
