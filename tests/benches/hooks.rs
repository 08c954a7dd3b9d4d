//! `cargo bench -p handover --bench hooks`: what a hook costs the agent, measured end to end (spawn,
//! stdin, work, exit) against the floor of starting any process at all.
//!
//! Prints, in one run, medians and ratios for:
//! - the process floor (`true`),
//! - `handover-session-start` on a 10-file and on a 100,000-file repository,
//! - `handover-context-watch` (PostToolUse) on a 1 MB and on a 200 MB transcript, and its Stop.
//!
//! The payloads are the ones Claude Code sends (captured in tests/fixtures/clients), with the
//! response that triggered PostToolUse and Stop not yet in the transcript, as in the client.
//!
//! Everything is generated in a temp dir at run time (the big repository takes a while to
//! commit) and removed afterwards. Figures go in docs/benchmarks.md.
//! `HOOK_BENCH_RUNS` sets the runs per case (default 51); the cases run round-robin so that
//! changes in the machine's load affect all of them alike.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "measure.rs"]
mod measure;

use handover_core::model::{Content, Handoff, ImportantFile, Status};
use handover_core::store::Store;
use measure::{measure_interleaved, run};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SESSION_START: &str = env!("CARGO_BIN_EXE_handover-session-start");
const CONTEXT_WATCH: &str = env!("CARGO_BIN_EXE_handover-context-watch");

fn main() {
    // cargo bench passes `--bench`; any other argument is a filter we do not support.
    let runs: usize = std::env::var("HOOK_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(51);
    let tmp = tempfile::tempdir().expect("temp dir");
    eprintln!("setting up in {} ...", tmp.path().display());

    let small = tmp.path().join("small");
    make_repo(&small, 10);
    save_handoff(&small);
    let big = tmp.path().join("big");
    let t = Instant::now();
    make_repo(&big, 100_000);
    save_handoff(&big);
    eprintln!(
        "100,000-file repository ready in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let t1 = write_transcript(&tmp.path().join("t1.jsonl"), 1 << 20);
    let t200 = write_transcript(&tmp.path().join("t200.jsonl"), 200 << 20);

    let p_small = payload("session_start-startup.json", &small, &t1);
    let p_big = payload("session_start-startup.json", &big, &t1);
    let p_t1 = payload("post_tool_use.json", &small, &t1);
    let p_t200 = payload("post_tool_use.json", &small, &t200);
    let p_stop = payload("stop.json", &small, &t1);
    let session_start = |p: &[u8]| {
        let out = run(SESSION_START, &["--agent", "claude"], p);
        assert!(
            out.contains("additionalContext"),
            "no context delivered: {out}"
        );
    };
    let watch = |p: &[u8]| {
        let out = run(CONTEXT_WATCH, &["--agent", "claude"], p);
        assert!(out.is_empty(), "the watch should be silent at 40 %: {out}");
    };
    let cases: Vec<Box<dyn Fn() + '_>> = vec![
        Box::new(|| {
            run("true", &[], b"");
        }),
        Box::new(|| session_start(&p_small)),
        Box::new(|| session_start(&p_big)),
        Box::new(|| watch(&p_t1)),
        Box::new(|| watch(&p_t200)),
        Box::new(|| watch(&p_stop)),
    ];
    let medians = measure_interleaved(runs, &cases);
    let [floor, ss_small, ss_big, cw_1, cw_200, cw_stop] = medians[..] else {
        unreachable!("six cases")
    };

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!();
    println!(
        "handover hooks benchmark: {runs} interleaved runs per case, median wall time (spawn to exit)"
    );
    println!("{:<52} {:>10} {:>10}", "case", "median ms", "x floor");
    for (name, d) in [
        ("process floor (`true`)", floor),
        ("session-start, 10-file repository", ss_small),
        ("session-start, 100,000-file repository", ss_big),
        ("context-watch, 1 MB transcript", cw_1),
        ("context-watch, 200 MB transcript", cw_200),
        ("context-watch Stop, 1 MB transcript", cw_stop),
    ] {
        println!("{name:<52} {:>10.2} {:>10.1}", ms(d), ms(d) / ms(floor));
    }
    println!();
    println!(
        "session-start 100,000 files / 10 files:   {:.2}",
        ms(ss_big) / ms(ss_small)
    );
    println!(
        "context-watch 200 MB / 1 MB transcript:   {:.2}",
        ms(cw_200) / ms(cw_1)
    );
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
    v["session_id"] = "bench-session".into();
    v["cwd"] = repo.to_string_lossy().into_owned().into();
    v["transcript_path"] = transcript.to_string_lossy().into_owned().into();
    serde_json::to_vec(&v).expect("json")
}

fn git(dir: &Path, args: &[&str]) {
    let st = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .stdout(Stdio::null())
        .status()
        .expect("git");
    assert!(st.success(), "git {args:?}");
}

/// A repository with `files` committed files, 100 per directory.
fn make_repo(dir: &Path, files: usize) {
    std::fs::create_dir_all(dir).expect("mkdir");
    git(dir, &["init", "-q", "-b", "main"]);
    for i in 0..files {
        let sub = dir.join(format!("src/d{:04}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&sub).expect("mkdir");
        }
        std::fs::write(
            sub.join(format!("f{i}.rs")),
            format!("pub const N: usize = {i};\n"),
        )
        .expect("write");
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "files"]);
}

fn save_handoff(repo: &Path) {
    let mut h = Handoff {
        schema_version: handover_core::model::SCHEMA_VERSION,
        id: "bench".into(),
        created_at: handover_base::clock::now_rfc3339(),
        git: handover_core::git::snapshot(repo).expect("snapshot"),
        content: Content {
            goal: "Benchmark the hooks".into(),
            status: Status {
                in_progress: vec!["Measure session-start".into()],
                ..Status::default()
            },
            important_files: vec![ImportantFile {
                path: "src/d0000/f1.rs".into(),
                why: "referenced, so verification checks it".into(),
            }],
            next_action: Some("Read the figures".into()),
            ..Content::default()
        },
        ..Handoff::default()
    };
    handover_core::store::seal(&mut h);
    Store::at(repo).save(&h, "# Handoff\n").expect("save");
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
