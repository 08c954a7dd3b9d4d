//! The CI guard for the hooks' hot path: SessionStart must cost the same in a 100,000-file
//! repository as in a 10-file one when the handoff lists uncommitted files and when the last
//! session's record names edited files (the per-path questions, `git::uncommitted`). Measured
//! in one run, interleaved, as a ratio of medians: a ratio, not a time, so a slow or busy
//! machine does not fail it; a hook that reads the index (8 MB at 100,000 files) for each path
//! gives 20-30 here. The full figures are the bench's (`cargo bench -p handover --bench hooks`,
//! docs/benchmarks.md). The big repository has its 100,000 files in the commit and the index
//! but not on disk (`Fixture::build_sparse`): built in seconds, removed at once.

use handover_testkit::shapes::{Fixture, Shape, SESSION};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SESSION_START: &str = env!("CARGO_BIN_EXE_handover-session-start");
/// The generous bound: the bench measures about 1.0.
const MAX_RATIO: f64 = 2.0;
const ROUNDS: usize = 15;

fn payload(repo: &Path) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "session_id": SESSION,
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": repo,
        "transcript_path": repo.join("no-transcript.jsonl"),
    }))
    .unwrap()
}

/// One SessionStart in `shape`, timed from spawn to exit; it must deliver a context. As the
/// first start at a new HEAD: what the last run remembered of HEAD's trees in the git
/// directory (`git::head_entries`) is taken away first, so every run reads the trees it needs
/// and the guard measures the per-path cost itself.
fn run(fixture: &Fixture, shape: Shape, payload: &[u8]) -> Duration {
    fixture.forget_head_entries();
    fixture.enter(shape);
    let started = Instant::now();
    let mut child = Command::new(SESSION_START)
        .args(["--agent", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_remove("HANDOVER_HOOK_DEBUG")
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload).unwrap();
    let out = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    fixture.leave(shape);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("additionalContext"),
        "{}: no context delivered: {text}",
        shape.name()
    );
    elapsed
}

#[test]
fn session_start_costs_the_same_in_a_100_000_file_repository() {
    let _alone = crate::one_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let shapes = [Shape::Listed10, Shape::Records];
    let t = Instant::now();
    let small = Fixture::build_sparse(&tmp.path().join("small"), 10, &shapes);
    let big = Fixture::build_sparse(&tmp.path().join("big"), 100_000, &shapes);
    eprintln!("repositories built in {:.1} s", t.elapsed().as_secs_f64());
    let (p_small, p_big) = (payload(&small.root), payload(&big.root));
    for shape in shapes {
        // Interleaved, after one warm-up each, so the machine's load hits both alike.
        run(&small, shape, &p_small);
        run(&big, shape, &p_big);
        let mut times = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            if round % 2 == 0 {
                times.0.push(run(&small, shape, &p_small));
                times.1.push(run(&big, shape, &p_big));
            } else {
                times.1.push(run(&big, shape, &p_big));
                times.0.push(run(&small, shape, &p_small));
            }
        }
        let median = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2].as_secs_f64()
        };
        let (s, b) = (median(&mut times.0), median(&mut times.1));
        let ratio = b / s;
        eprintln!(
            "SessionStart, {}: 10 files {:.2} ms, 100,000 files {:.2} ms, ratio {ratio:.2}",
            shape.name(),
            s * 1000.0,
            b * 1000.0
        );
        assert!(
            ratio <= MAX_RATIO,
            "SessionStart, {}: the 100,000-file repository took {ratio:.2} times as long as the \
             10-file one (bound {MAX_RATIO}): something on the hot path now grows with the \
             repository (docs/hooks.md, \"Nothing waits on the hot path\")",
            shape.name()
        );
    }
    eprintln!("guard finished in {:.1} s", t.elapsed().as_secs_f64());
}
