//! `cargo bench -p handover --bench hooks`: what a hook costs the agent, measured end to end (spawn,
//! stdin, work, exit) against the floor of starting any process at all (`true`), and its peak
//! RSS (GNU time's `wait4` figure, from a separate run).
//!
//! Every hook that runs in a session (SessionStart, the context watch on PostToolUse and Stop,
//! PreCompact, SessionEnd) in every shape a user meets (tests/support/src/shapes.rs: no handoff; a
//! handoff on a clean tree; a handoff listing 10 or 100 uncommitted files; the last session's
//! record with edited files; a handoff and a record together), each in a 10-file and in a
//! 100,000-file repository. Printed: each case's median wall time, its ratio to the floor, the
//! 100,000 ÷ 10 ratio, and the peak RSS of the hook process. Also the context watch on a 200 MB
//! transcript against a 1 MB one, and SessionStart with a handoff listing 100 files twice
//! more: as the first start at a HEAD, with what the hooks remember of HEAD's trees in the git
//! directory (`git::head_entries`) taken away before each run, so it reads every tree along the
//! listed paths (the worst case); and as the first start after a commit of one of the listed
//! files, with the entries remembered for the commit before, which carry over where the
//! commit left the trees unchanged (every other case runs at a HEAD the hooks have seen, as
//! every start but the first after HEAD moves does); and SessionStart with a handoff listing
//! 10 files at HEAD one commit past the handoff's HEAD, HEAD's entries remembered (the steady
//! state once the user committed after the handoff: the verdict walks back to its commit).
//! The repositories are packed once built
//! (`git gc`), and no git command of the bench starts a background `gc --auto`. Beside the Stop
//! rows, a file-system control: the record's write alone (create, write, rename of a
//! record-sized file) in each shape's records directory, timed in the same rounds, because what
//! creating a file costs depends on where ext4 put that directory, not on the repository.
//!
//! The payloads are the ones Claude Code sends (captured in tests/fixtures/clients), with the
//! response that triggered PostToolUse and Stop not yet in the transcript, as in the client.
//!
//! Everything is generated in a temp dir at run time and removed afterwards. The cases run
//! round-robin, each round starting one case later, so that changes in the machine's load hit
//! every case alike. `HOOK_BENCH_RUNS` sets the rounds of the per-event hooks (default 21),
//! `HOOK_BENCH_SCAN_RUNS` those of PreCompact and SessionEnd, which scan the working tree
//! (default 5). `HOOK_BENCH_BIN_DIR=<dir>` runs the hook executables in `<dir>` instead (an
//! older build, for before/after figures on the same fixtures);
//! `HOOK_BENCH_COMPARE=<label>=<dir>,...` adds SessionStart of those builds beside this one's,
//! every shape, in the same rounds, each build with its own remembered HEAD entries (another
//! build's may be of another format). This build is `cargo bench`'s, with the features the
//! package's dev-dependencies switch on in shared crates: not byte for byte what `cargo install`
//! gives users (measured a few per cent slower). For a before/after of users' hooks, compare two
//! `cargo build --release` directories. Figures go in docs/benchmarks.md.
//!
//! `HOOK_BENCH_KEEP=<dir>` times nothing: it builds the two repositories in `<dir>` (once; a
//! later call reuses them), puts the shape `HOOK_BENCH_SHAPE` in place in both (`none`,
//! `clean`, `listed10`, `listed100` (the default), `records`, `both`; the shape put in place
//! before is taken out first) and writes each repository's SessionStart payload beside it
//! (`<dir>/small.json`, `<dir>/big.json`), for counting one hook run under callgrind, strace
//! or GNU time on exactly the bench's fixtures:
//! `valgrind --tool=callgrind <hook> --agent claude < <dir>/big.json`. It also makes the commit
//! the "after a commit" row moves HEAD to (`refs/bench/after`; HEAD stays where it was, its
//! branch's ref in `.git/refs/heads/main`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_testkit::shapes::{Fixture, Shape, SESSION};
use std::cell::RefCell;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

const SESSION_START: &str = env!("CARGO_BIN_EXE_handover-session-start");
const CONTEXT_WATCH: &str = env!("CARGO_BIN_EXE_handover-context-watch");
const PRE_COMPACT: &str = env!("CARGO_BIN_EXE_handover-pre-compact");

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hook {
    SessionStart,
    PostToolUse,
    Stop,
    PreCompact,
    SessionEnd,
}

impl Hook {
    fn name(self) -> &'static str {
        match self {
            Hook::SessionStart => "SessionStart (startup)",
            Hook::PostToolUse => "context watch, PostToolUse",
            Hook::Stop => "context watch, Stop (record update)",
            Hook::PreCompact => "PreCompact (working-tree scans)",
            Hook::SessionEnd => "SessionEnd (working-tree scan)",
        }
    }
    fn exe(self) -> String {
        exe(match self {
            Hook::SessionStart => SESSION_START,
            Hook::PostToolUse | Hook::Stop => CONTEXT_WATCH,
            Hook::PreCompact | Hook::SessionEnd => PRE_COMPACT,
        })
    }
    fn fixture(self) -> &'static str {
        match self {
            Hook::SessionStart => "session_start-startup.json",
            Hook::PostToolUse => "post_tool_use.json",
            Hook::Stop => "stop.json",
            Hook::PreCompact => "pre_compact-auto.json",
            Hook::SessionEnd => "session_end-other.json",
        }
    }
    /// What the hook must answer, so a bench of a broken hook fails instead of timing it.
    fn check(self, shape: Shape, out: &str) {
        let speaks = match self {
            Hook::SessionStart => shape != Shape::NoHandoff,
            Hook::PreCompact => true,
            _ => false,
        };
        assert_eq!(
            !out.is_empty(),
            speaks,
            "{} in shape {}: {out}",
            self.name(),
            shape.name()
        );
    }
}

/// The hook executable to run: this build's, or with `HOOK_BENCH_BIN_DIR` the one of that name
/// in that directory (another build, e.g. before a change, measured on the same fixtures).
fn exe(built: &str) -> String {
    match std::env::var_os("HOOK_BENCH_BIN_DIR") {
        Some(dir) => {
            let name = Path::new(built).file_name().expect("file name");
            Path::new(&dir).join(name).to_string_lossy().into_owned()
        }
        None => built.to_string(),
    }
}

/// One case's figures: wall time from spawn to exit, and the process's peak RSS in KiB.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    rss_kib: u64,
}

impl Sample {
    fn ms(&self) -> f64 {
        self.wall.as_secs_f64() * 1000.0
    }

    fn mib(&self) -> f64 {
        self.rss_kib as f64 / 1024.0
    }
}

/// A case in the 10-file and the 100,000-file repository, as every row of the two prints it:
/// wall ms and its ratio to the process floor in each, 100k ÷ 10, and peak RSS MiB in each.
struct Pair {
    small_ms: f64,
    small_x: f64,
    big_ms: f64,
    big_x: f64,
    big_over_small: f64,
    small_mib: f64,
    big_mib: f64,
}

impl Pair {
    fn of(small: Sample, big: Sample, floor: Sample) -> Pair {
        Pair {
            small_ms: small.ms(),
            small_x: small.ms() / floor.ms(),
            big_ms: big.ms(),
            big_x: big.ms() / floor.ms(),
            big_over_small: big.ms() / small.ms(),
            small_mib: small.mib(),
            big_mib: big.mib(),
        }
    }
}

fn main() {
    let env_runs = |name: &str, default: usize| -> usize {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let runs = env_runs("HOOK_BENCH_RUNS", 21);
    let scan_runs = env_runs("HOOK_BENCH_SCAN_RUNS", 5);
    if let Some(dir) = std::env::var_os("HOOK_BENCH_KEEP") {
        return keep(Path::new(&dir));
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    eprintln!("setting up in {} ...", tmp.path().display());
    let small = Fixture::build(&tmp.path().join("small"), 10);
    let t = Instant::now();
    let big = Fixture::build(&tmp.path().join("big"), 100_000);
    eprintln!(
        "100,000-file repository and its shapes ready in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let t1 = write_transcript(&tmp.path().join("t1.jsonl"), 1 << 20);
    let t200 = write_transcript(&tmp.path().join("t200.jsonl"), 200 << 20);
    let t20 = write_transcript(&tmp.path().join("t20.jsonl"), 20 << 20);
    // Written back before the first round: otherwise the rounds time the file system flushing
    // the fixtures (a record's create and rename in the 100,000-file repository waited 1-1.5 ms
    // on it, the same instructions and system calls as in the 10-file one).
    let _ = std::process::Command::new("sync").status();
    let sizes = [(&small, "10 files"), (&big, "100,000 files")];

    let floor = |pass| match pass {
        Pass::Time => measured("true", &[], b"").0,
        Pass::Memory => peak_rss("true", &[], b""),
    };
    for (group, hooks, rounds) in [
        (
            "per-event hooks",
            &[Hook::SessionStart, Hook::PostToolUse, Hook::Stop][..],
            runs,
        ),
        (
            "compaction and session end",
            &[Hook::PreCompact, Hook::SessionEnd][..],
            scan_runs,
        ),
    ] {
        let mut cases: Vec<Box<dyn Fn(Pass) -> Sample + '_>> = vec![Box::new(floor)];
        for &hook in hooks {
            for shape in Shape::ALL {
                for (fixture, _) in sizes {
                    cases.push(Box::new(case(hook, shape, fixture, &t1)));
                }
            }
        }
        // SessionStart as the first one at a new HEAD: HEAD's entries not remembered yet.
        let first = hooks.contains(&Hook::SessionStart);
        if first {
            for (fixture, _) in sizes {
                let case = case(Hook::SessionStart, Shape::Listed100, fixture, &t1);
                cases.push(Box::new(move |pass| {
                    let saved = fixture.forget_head_entries();
                    let sample = case(pass);
                    fixture.restore_head_entries(saved);
                    sample
                }));
            }
        }
        // SessionStart one commit past HEAD (a commit of one of the listed files): as the first
        // start there, with HEAD's entries remembered for the commit before (they carry over
        // where the commit left the trees unchanged); and as any later start there, its own
        // entries remembered from the run before (HEAD one commit past the handoff's HEAD, the
        // common steady state after committing once the handoff was written, where the
        // verdict walks from HEAD back to the handoff's commit).
        if first {
            for (shape, seen_before) in [(Shape::Listed100, false), (Shape::Listed10, true)] {
                for (fixture, _) in sizes {
                    let (before, after) = fixture.commit_after();
                    let case = case(Hook::SessionStart, shape, fixture, &t1);
                    let own: Rc<RefCell<Option<Vec<u8>>>> = Rc::default();
                    cases.push(Box::new(move |pass| {
                        let saved = fixture.head_entries();
                        fixture.move_head(&after);
                        if seen_before {
                            fixture.restore_head_entries(own.take());
                        }
                        let sample = case(pass);
                        if seen_before {
                            own.replace(fixture.head_entries());
                        }
                        fixture.move_head(&before);
                        fixture.restore_head_entries(saved);
                        sample
                    }));
                }
            }
        }
        let extra = hooks.contains(&Hook::PostToolUse);
        if extra {
            let p1 = payload("post_tool_use.json", &small.root, &t1);
            let p200 = payload("post_tool_use.json", &small.root, &t200);
            let watch = exe(CONTEXT_WATCH);
            for p in [p1, p200] {
                let watch = watch.clone();
                cases.push(Box::new(move |pass| match pass {
                    Pass::Time => {
                        let (sample, out) = measured(&watch, &["--agent", "claude"], &p);
                        assert!(out.is_empty(), "the watch should be silent at 40 %: {out}");
                        sample
                    }
                    Pass::Memory => peak_rss(&watch, &["--agent", "claude"], &p),
                }));
            }
        }
        // A session's first Stop: no record yet, so the whole transcript is read (as after a
        // resume of a long session). Run in the 10-file repository with no shape in place, as
        // a session of its own whose store is taken away after each run.
        if extra {
            for transcript in [&t1, &t20] {
                let mut p: serde_json::Value =
                    serde_json::from_slice(&payload("stop.json", &small.root, transcript))
                        .expect("payload");
                p["session_id"] = "bench-first-stop".into();
                let p = serde_json::to_vec(&p).expect("json");
                let watch = exe(CONTEXT_WATCH);
                let store = small.root.join(".handover");
                cases.push(Box::new(move |pass| {
                    assert!(!store.exists(), "no shape in place");
                    let sample = match pass {
                        Pass::Time => measured(&watch, &["--agent", "claude"], &p).0,
                        Pass::Memory => peak_rss(&watch, &["--agent", "claude"], &p),
                    };
                    std::fs::remove_dir_all(&store).expect("the first Stop's store");
                    sample
                }));
            }
        }
        // The file system's part of the Stop rows, without a hook: the record's write (create,
        // write, rename of a record-sized file) in each shape's records directory, where the
        // Stop writes. Which block group ext4 gave that directory decides what creating a file
        // in it costs (0.05-0.8 ms measured, the same in both repositories' directories of a
        // shape or not), so a Stop cell can differ between the repositories with identical
        // instructions and system calls in the hook; this row shows it in the same rounds.
        let control = hooks.contains(&Hook::Stop);
        if control {
            for shape in Shape::ALL {
                for (fixture, _) in sizes {
                    cases.push(Box::new(move |pass| record_write(fixture, shape, pass)));
                }
            }
        }
        eprintln!("{group}: {} cases, {rounds} rounds ...", cases.len());
        let results = interleaved(rounds, &cases);
        let floor = results[0];
        println!();
        println!(
            "handover hooks benchmark, {group}: {rounds} interleaved rounds, median wall ms (spawn to exit), x floor, peak RSS MiB"
        );
        println!(
            "process floor (`true`): {:.2} ms, {:.1} MiB",
            floor.ms(),
            floor.mib()
        );
        let mut i = 1;
        for &hook in hooks {
            println!();
            println!(
                "{:<36} {:>9} {:>6} {:>9} {:>6} {:>8} {:>6} {:>6}",
                hook.name(),
                "10 ms",
                "x fl",
                "100k ms",
                "x fl",
                "100k/10",
                "MiB",
                "MiB"
            );
            for shape in Shape::ALL {
                let p = Pair::of(results[i], results[i + 1], floor);
                i += 2;
                println!(
                    "{:<36} {:>9.2} {:>6.1} {:>9.2} {:>6.1} {:>8.2} {:>6.1} {:>6.1}",
                    shape.name(),
                    p.small_ms,
                    p.small_x,
                    p.big_ms,
                    p.big_x,
                    p.big_over_small,
                    p.small_mib,
                    p.big_mib,
                );
            }
        }
        if first {
            println!();
            for (shape, when) in [
                (
                    Shape::Listed100,
                    "first start at this HEAD (HEAD's entries not remembered)",
                ),
                (
                    Shape::Listed100,
                    "first start after a commit of one listed file (HEAD's entries remembered for the commit before)",
                ),
                (
                    Shape::Listed10,
                    "HEAD one commit past the handoff's HEAD (HEAD's entries remembered)",
                ),
            ] {
                let p = Pair::of(results[i], results[i + 1], floor);
                i += 2;
                println!(
                    "SessionStart, {}, {when}: {:.2} ms, x floor {:.1} / {:.2} ms, x floor {:.1}, 100k/10 {:.2}, {:.1} / {:.1} MiB",
                    shape.name(),
                    p.small_ms,
                    p.small_x,
                    p.big_ms,
                    p.big_x,
                    p.big_over_small,
                    p.small_mib,
                    p.big_mib,
                );
            }
        }
        if extra {
            let (a, b) = (results[i], results[i + 1]);
            println!();
            println!(
                "context watch, PostToolUse: 1 MB transcript {:.2} ms, 200 MB transcript {:.2} ms, 200 MB / 1 MB {:.2}",
                a.ms(),
                b.ms(),
                b.ms() / a.ms()
            );
            i += 2;
            let (a, b) = (results[i], results[i + 1]);
            println!(
                "context watch, a session's first Stop (no record yet, the transcript read from its start): 1 MB {:.2} ms, {:.1} MiB; 20 MB {:.2} ms, {:.1} MiB",
                a.ms(),
                a.mib(),
                b.ms(),
                b.mib()
            );
            i += 2;
        }
        if control {
            println!();
            println!(
                "{:<36} {:>9} {:>9} {:>8}",
                "file system control: the record's write, no hook", "10 us", "100k us", "100k/10"
            );
            for shape in Shape::ALL {
                let (s, b) = (results[i], results[i + 1]);
                i += 2;
                println!(
                    "{:<36} {:>9.0} {:>9.0} {:>8.2}",
                    shape.name(),
                    s.wall.as_secs_f64() * 1e6,
                    b.wall.as_secs_f64() * 1e6,
                    b.wall.as_secs_f64() / s.wall.as_secs_f64(),
                );
            }
        }
        assert_eq!(i, results.len(), "every case printed");
    }
    compare_builds(runs, &sizes, &t1, floor);
}

/// The control case: with `shape` in place, what the Stop's record write costs the file system
/// alone in that shape's records directory (a new file of a record's size written and renamed
/// over the last one, as `safe_fs::replace` does), timed in this process.
fn record_write(fixture: &Fixture, shape: Shape, pass: Pass) -> Sample {
    use std::io::Write;
    let dir = fixture.root.join(".handover/records");
    fixture.enter(shape);
    let wall = match pass {
        Pass::Memory => Duration::ZERO,
        Pass::Time => {
            let _ = std::fs::create_dir_all(&dir);
            let temp = dir.join(".bench-control.json.tmp");
            let started = Instant::now();
            let mut file = std::fs::File::create_new(&temp).expect("create");
            file.write_all(&[b' '; 2400]).expect("write");
            drop(file);
            let target = dir.join("bench-control.json");
            std::fs::rename(&temp, &target).expect("rename");
            let wall = started.elapsed();
            // Not left for the hooks to read as a record.
            std::fs::remove_file(&target).expect("remove");
            wall
        }
    };
    fixture.leave(shape);
    Sample { wall, rss_kib: 0 }
}

/// `HOOK_BENCH_KEEP=<dir>`: the fixtures left in `<dir>` with one shape in place, and the
/// SessionStart payloads that point at them (module docs).
fn keep(dir: &Path) {
    let shape = std::env::var("HOOK_BENCH_SHAPE").unwrap_or_else(|_| "listed100".into());
    let shape =
        Shape::from_key(&shape).unwrap_or_else(|| panic!("HOOK_BENCH_SHAPE: no shape {shape}"));
    let entered = dir.join("entered");
    for (name, files) in [("small", 10), ("big", 100_000)] {
        let at = dir.join(name);
        let fixture = if at.join("repo").is_dir() {
            let fixture = Fixture::reopen(&at, files);
            let before = std::fs::read_to_string(&entered).unwrap_or_default();
            if let Some(before) = Shape::from_key(before.trim()) {
                fixture.leave(before);
            }
            fixture
        } else {
            eprintln!("building {} ...", at.display());
            Fixture::build(&at, files)
        };
        fixture.enter(shape);
        // The commit the "first start after a commit" row moves HEAD to (`refs/bench/after`;
        // `.git/refs/heads/main` holds HEAD's commit).
        let (before, after) = fixture.commit_after();
        fixture.move_head(&before);
        eprintln!("{name}: HEAD {before}, the commit after it {after}");
        let transcript = write_transcript(&dir.join("t1.jsonl"), 1 << 20);
        let payload = payload(Hook::SessionStart.fixture(), &fixture.root, &transcript);
        std::fs::write(dir.join(format!("{name}.json")), payload).expect("payload");
    }
    std::fs::write(&entered, shape.key()).expect("entered");
    eprintln!(
        "shape \"{}\" in place in {dir}/{{small,big}}/repo; payloads {dir}/small.json, {dir}/big.json",
        shape.name(),
        dir = dir.display()
    );
}

/// `HOOK_BENCH_COMPARE=<label>=<dir>[,<label>=<dir>...]`: SessionStart of this build and of
/// the builds whose hook executables are in those directories, every shape in both
/// repositories, in the same interleaved rounds (one table from one run, whatever the load).
fn compare_builds(
    runs: usize,
    sizes: &[(&Fixture, &str); 2],
    transcript: &Path,
    floor: impl Fn(Pass) -> Sample,
) {
    let Ok(spec) = std::env::var("HOOK_BENCH_COMPARE") else {
        return;
    };
    let mut builds = vec![("this build".to_string(), SESSION_START.to_string())];
    for item in spec.split(',').filter(|i| !i.is_empty()) {
        let (label, dir) = item
            .split_once('=')
            .expect("HOOK_BENCH_COMPARE: <label>=<dir>");
        let exe = Path::new(dir).join("handover-session-start");
        assert!(exe.is_file(), "no {}", exe.display());
        builds.push((label.to_string(), exe.to_string_lossy().into_owned()));
    }
    let mut cases: Vec<Box<dyn Fn(Pass) -> Sample + '_>> = vec![Box::new(floor)];
    for (i, (_, exe)) in builds.iter().enumerate() {
        // Each build keeps its own remembered HEAD entries (`git::head_entries`) in each
        // repository, put in place for its runs: another build may write another format of
        // that file, which this one would ignore and rewrite, so that every run of both would
        // read HEAD's trees as the first start at a HEAD does.
        let own: Vec<Rc<RefCell<Option<Vec<u8>>>>> = sizes.iter().map(|_| Rc::default()).collect();
        for shape in Shape::ALL {
            for ((fixture, _), own) in sizes.iter().zip(&own) {
                let case = build_case(
                    Hook::SessionStart,
                    exe.clone(),
                    i == 0,
                    shape,
                    fixture,
                    transcript,
                );
                let own = Rc::clone(own);
                cases.push(Box::new(move |pass| {
                    let others = fixture.head_entries();
                    fixture.restore_head_entries(own.take());
                    let sample = case(pass);
                    own.replace(fixture.head_entries());
                    fixture.restore_head_entries(others);
                    sample
                }));
            }
        }
    }
    eprintln!("builds compared: {} cases, {runs} rounds ...", cases.len());
    let results = interleaved(runs, &cases);
    let floor = results[0];
    println!();
    println!(
        "SessionStart (startup), builds compared in the same {runs} interleaved rounds: median wall ms (10 files / 100,000 files), x floor (10 files), 100k/10, peak RSS MiB (10 / 100k); floor {:.2} ms, {:.1} MiB",
        floor.ms(),
        floor.mib()
    );
    let mut i = 1;
    for (label, exe) in &builds {
        println!();
        println!("{label} ({exe})");
        for shape in Shape::ALL {
            let p = Pair::of(results[i], results[i + 1], floor);
            i += 2;
            println!(
                "{:<36} {:>8.2} {:>8.2} {:>6.1} {:>7.2} {:>5.1} {:>5.1}",
                shape.name(),
                p.small_ms,
                p.big_ms,
                p.small_x,
                p.big_over_small,
                p.small_mib,
                p.big_mib,
            );
        }
    }
}

/// One hook in one shape of one repository: the shape put in place, the hook run and timed,
/// the repository put back (only the run is timed).
fn case<'a>(
    hook: Hook,
    shape: Shape,
    fixture: &'a Fixture,
    transcript: &Path,
) -> impl Fn(Pass) -> Sample + 'a {
    build_case(hook, hook.exe(), true, shape, fixture, transcript)
}

/// [`case`] with the executable `exe` (another build's, for the comparison); `check`: assert
/// what it answers (an older build may answer otherwise, or be ended by its watchdog).
fn build_case<'a>(
    hook: Hook,
    exe: String,
    check: bool,
    shape: Shape,
    fixture: &'a Fixture,
    transcript: &Path,
) -> impl Fn(Pass) -> Sample + 'a {
    let payload = payload(hook.fixture(), &fixture.root, transcript);
    move |pass| {
        fixture.enter(shape);
        let sample = match pass {
            Pass::Time => {
                let (sample, out) = measured(&exe, &["--agent", "claude"], &payload);
                if check {
                    hook.check(shape, &out);
                }
                sample
            }
            Pass::Memory => peak_rss(&exe, &["--agent", "claude"], &payload),
        };
        fixture.leave(shape);
        sample
    }
}

/// Runs the cases round-robin, `rounds` rounds after one warm-up round, each round starting
/// one case later (a case never pays alone for what its neighbour leaves behind); returns each
/// case's median wall time, and its peak RSS from a separate run.
fn interleaved(rounds: usize, cases: &[Box<dyn Fn(Pass) -> Sample + '_>]) -> Vec<Sample> {
    for case in cases {
        case(Pass::Time);
    }
    let mut walls = vec![Vec::with_capacity(rounds); cases.len()];
    for round in 0..rounds {
        for k in 0..cases.len() {
            let i = (round + k) % cases.len();
            walls[i].push(cases[i](Pass::Time).wall);
        }
    }
    walls
        .into_iter()
        .zip(cases)
        .map(|(mut w, case)| {
            w.sort();
            Sample {
                wall: w[w.len() / 2],
                rss_kib: case(Pass::Memory).rss_kib,
            }
        })
        .collect()
}

/// Timed runs, or one run for the peak RSS.
#[derive(Clone, Copy)]
enum Pass {
    Time,
    Memory,
}

/// Spawns `bin`, writes `stdin`, reads its output and waits for it: the wall time of all that,
/// with what it printed.
fn measured(bin: &str, args: &[&str], stdin: &[u8]) -> (Sample, String) {
    let started = Instant::now();
    let out = spawn(Command::new(bin).args(args), stdin);
    let wall = started.elapsed();
    (
        Sample { wall, rss_kib: 0 },
        String::from_utf8_lossy(&out).into_owned(),
    )
}

/// The peak RSS of one run, as GNU time reports it (`/usr/bin/time -f %M`, from `wait4`). Not
/// measured from here: a child started by this process inherits its high-water mark (std
/// spawns with vfork, and Linux keeps the larger of the old and the new mark across exec), so
/// it would report this bench's own memory. GNU time forks from its own small image. 0 when
/// GNU time is not installed.
fn peak_rss(bin: &str, args: &[&str], stdin: &[u8]) -> Sample {
    let report = std::env::temp_dir().join(format!("hook-bench-rss-{}", std::process::id()));
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return Sample {
            wall: Duration::ZERO,
            rss_kib: 0,
        };
    }
    let mut cmd = Command::new(time);
    cmd.arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(bin)
        .args(args);
    spawn(&mut cmd, stdin);
    let rss_kib = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&report);
    Sample {
        wall: Duration::ZERO,
        rss_kib,
    }
}

fn spawn(cmd: &mut Command, stdin: &[u8]) -> Vec<u8> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_remove("HANDOVER_HOOK_DEBUG")
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let _ = input.write_all(stdin);
    drop(input);
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_end(&mut out)
        .expect("read");
    let status = child.wait().expect("wait");
    assert!(status.success(), "{cmd:?} failed");
    out
}

/// The payload Claude Code 2.1.330 really sends for this event (tests/fixtures/clients), pointed
/// at `repo` and `transcript`. Its PostToolUse names a tool call (`toolu_fake_1`) whose line is
/// not in the transcript, and its Stop a final answer that is not either: Claude Code starts
/// those hooks before it writes the response (docs/compatibility.md).
fn payload(fixture: &str, repo: &Path, transcript: &Path) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients/claude-2.1.330")
        .join(fixture);
    let text = std::fs::read_to_string(&path).expect("fixture");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("fixture json");
    v["session_id"] = SESSION.into();
    v["cwd"] = repo.to_string_lossy().into_owned().into();
    v["transcript_path"] = transcript.to_string_lossy().into_owned().into();
    serde_json::to_vec(&v).expect("json")
}

/// A Claude Code transcript of about `size` bytes: user and tool lines with filler, an
/// assistant line with usage every few lines, and the last usage at 40 % of 200,000 tokens.
fn write_transcript(path: &Path, size: usize) -> PathBuf {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let filler = "x".repeat(2000);
    let mut written = 0;
    let mut i = 0u64;
    while written < size {
        let line = if i % 4 == 3 {
            format!(
                r#"{{"type":"assistant","isSidechain":false,"message":{{"model":"claude-sonnet-4-5","usage":{{"input_tokens":{},"cache_read_input_tokens":1000,"output_tokens":10}}}},"uuid":"{i}"}}"#,
                (i % 50_000) + 100
            )
        } else {
            format!(r#"{{"type":"user","message":{{"content":"{filler}"}},"uuid":"{i}"}}"#)
        };
        writeln!(f, "{line}").expect("write");
        written += line.len() + 1;
        i += 1;
    }
    writeln!(
        f,
        r#"{{"type":"assistant","isSidechain":false,"message":{{"model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"toolu_previous"}}],"usage":{{"input_tokens":79000,"cache_read_input_tokens":1000,"output_tokens":10}}}}}}"#
    )
    .expect("write");
    f.flush().expect("flush");
    path.to_path_buf()
}
