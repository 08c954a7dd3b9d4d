//! `cargo bench -p handover --bench recall`: reading the history back, at the size of years of
//! work, against `grep` over the same files.
//!
//! Builds a store of `RECALL_BENCH_HANDOFFS` archived handoffs and `RECALL_BENCH_RECORDS`
//! session records (default 10,000 each), shaped like real ones: one handoff written by the
//! real `handover write` and one record kept by the real Stop hook from a captured Claude Code
//! transcript, then copied with their text, ids and times varied (handoffs re-sealed, so
//! every checksum holds). Then times, interleaved (`RECALL_BENCH_RUNS` rounds, default 11;
//! medians, warm page cache):
//! - `handover log` and `handover log --all` (when this build has `log`), each cold (its cache
//!   deleted first, as at a user's first `log`) and warm (the cache the run before left);
//! - `handover search <word>` (a word in about 2 % of the documents) and
//!   `handover search "<phrase>"` (a phrase in about 1 %, its words in many more);
//! - `grep -rlF <word>` and `grep -rliF <word>` over `.handover/` (the archive, the records,
//!   the journal), and `grep -rlF <phrase>`;
//!
//! and prints each median and its ratio to `grep -rlF` of the same word. `RECALL_BENCH_KEEP=1`
//! keeps the store and prints where it is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "measure.rs"]
mod measure;

use handover_handoff::model::{Decision, Handoff};
use measure::medians_interleaved;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HANDOVER: &str = env!("CARGO_BIN_EXE_handover");
const CONTEXT_WATCH: &str = env!("CARGO_BIN_EXE_handover-context-watch");

/// The word searched for: in every 50th document.
const WORD: &str = "tokenizer";
/// The phrase searched for: in every 100th document; its words apart in many others.
const PHRASE: &str = "token format";

fn main() {
    let number = |var: &str, default: usize| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let handoffs = number("RECALL_BENCH_HANDOFFS", 10_000);
    let records = number("RECALL_BENCH_RECORDS", 10_000);
    let runs = number("RECALL_BENCH_RUNS", 11);
    let tmp = tempfile::tempdir().expect("temp dir");
    let repo = tmp.path().join("repo");
    // RECALL_BENCH_KEEP=1: the store stays, to look into (its path on stderr).
    let _tmp = if std::env::var("RECALL_BENCH_KEEP").is_ok_and(|v| v == "1") {
        eprintln!("keeping {}", repo.display());
        Err(tmp.keep())
    } else {
        Ok(tmp)
    };
    make_repo(&repo);
    // `handover log`'s cache in this run's temp dir, not the user's.
    let cache = tmp_path(&repo).join("cache");
    CACHE.set(cache.clone()).expect("set once");
    let start = Instant::now();
    build_store(&repo, handoffs, records);
    // A user's history was written long before it is listed: files changed within the last
    // two seconds are never cached (their times could still be shared by a later change).
    std::thread::sleep(Duration::from_millis(2500));
    let store = repo.join(".handover");
    eprintln!(
        "store of {handoffs} archived handoffs and {records} records built in {:.1} s: {} files, {:.1} MB",
        start.elapsed().as_secs_f64(),
        count_files(&store),
        bytes_under(&store) as f64 / 1e6
    );

    let has_log = handover_status(&repo, &["log", "--limit", "1"]) == Some(0);
    let mut names: Vec<String> = Vec::new();
    let mut cases: Vec<Box<dyn Fn() -> Duration>> = Vec::new();
    let mut add = |name: String, program: &'static str, args: Vec<String>| {
        let dir = repo.clone();
        names.push(name);
        cases.push(Box::new(move || time(program, &args, &dir)));
    };
    let s = |v: &[&str]| -> Vec<String> { v.iter().map(|a| a.to_string()).collect() };
    add(
        format!("grep -rlF {WORD}"),
        "grep",
        s(&["-rlF", WORD, ".handover"]),
    );
    add(
        format!("grep -rliF {WORD}"),
        "grep",
        s(&["-rliF", WORD, ".handover"]),
    );
    add(
        format!("grep -rlF '{PHRASE}'"),
        "grep",
        s(&["-rlF", PHRASE, ".handover"]),
    );
    add(
        format!("handover search {WORD}"),
        HANDOVER,
        s(&["search", WORD]),
    );
    add(
        format!("handover search '{PHRASE}'"),
        HANDOVER,
        s(&["search", PHRASE]),
    );
    add(
        format!("handover search --json {WORD}"),
        HANDOVER,
        s(&["search", "--json", WORD]),
    );
    if has_log {
        // Cold: the cache deleted first (not timed), so the run reads every file and writes
        // the cache; warm: the cache that run left.
        for args in [vec!["log"], vec!["log", "--all"]] {
            let name = format!("handover {}", args.join(" "));
            let (dir, cold_args, cache) = (repo.clone(), s(&args), cache.clone());
            names.push(format!("{name} (cold cache)"));
            cases.push(Box::new(move || {
                let _ = std::fs::remove_dir_all(&cache);
                time(HANDOVER, &cold_args, &dir)
            }));
            let (dir, warm_args) = (repo.clone(), s(&args));
            names.push(format!("{name} (warm cache)"));
            cases.push(Box::new(move || time(HANDOVER, &warm_args, &dir)));
        }
    }

    // What each finds, once: the search must find what grep finds (grep -i, the same files).
    let grep_files = output("grep", &["-rliF", WORD, ".handover"], &repo)
        .lines()
        .count();
    let json = output(
        HANDOVER,
        &["search", "--json", "--limit", "100000", WORD],
        &repo,
    );
    eprintln!(
        "{WORD}: grep -rliF lists {grep_files} files; handover search finds {} hits",
        json.lines().count()
    );
    if !has_log {
        eprintln!("this build has no `handover log`: only search is measured");
    }

    let medians = medians_interleaved(runs, &cases);
    if has_log {
        eprintln!(
            "handover log's cache: {:.1} MB",
            bytes_under(&cache) as f64 / 1e6
        );
    }
    let grep_word = medians[0].as_secs_f64();
    let grep_phrase = medians[2].as_secs_f64();
    println!(
        "recall over {handoffs} archived handoffs and {records} session records, median of {runs} runs:"
    );
    for (name, median) in names.iter().zip(&medians) {
        let base = if name.contains(PHRASE) {
            grep_phrase
        } else {
            grep_word
        };
        println!(
            "  {name:<40} {:>8.1} ms   ×{:.2} of grep -rlF",
            median.as_secs_f64() * 1e3,
            median.as_secs_f64() / base
        );
    }
}

/// Where `handover log` keeps its cache in this run.
static CACHE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The directory of the run's store (beside `repo`).
fn tmp_path(repo: &Path) -> PathBuf {
    repo.parent().expect("the temp dir").to_path_buf()
}

fn time(program: &str, args: &[String], dir: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("HANDOVER_CACHE_DIR", CACHE.get().expect("set"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    let elapsed = start.elapsed();
    // grep exits 1 when nothing matched; anything else is a failed run.
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{program} {args:?}: {status}"
    );
    elapsed
}

fn output(program: &str, args: &[&str], dir: &Path) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("HANDOVER_CACHE_DIR", CACHE.get().expect("set"))
        .output()
        .expect("spawn");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn handover_status(dir: &Path, args: &[&str]) -> Option<i32> {
    Command::new(HANDOVER)
        .args(args)
        .current_dir(dir)
        .env("HANDOVER_CACHE_DIR", CACHE.get().expect("set"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()
        .and_then(|s| s.code())
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .stdout(Stdio::null())
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

fn make_repo(repo: &Path) {
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("src/lib.rs"), "pub fn parse() {}\n").unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "initial"]);
}

/// Words of the generated text, most frequent first (picked with a skew, as words are).
const WORDS: &[&str] = &[
    "the",
    "parser",
    "test",
    "build",
    "config",
    "session",
    "cache",
    "error",
    "request",
    "token",
    "format",
    "handler",
    "schema",
    "migration",
    "index",
    "query",
    "review",
    "release",
    "client",
    "server",
    "retry",
    "timeout",
    "logging",
    "metrics",
    "deploy",
    "rollback",
    "branch",
    "merge",
    "snapshot",
    "fixture",
    "benchmark",
    "memory",
    "thread",
    "lock",
    "queue",
    "worker",
    "upload",
    "download",
    "export",
    "import",
    "report",
    "dashboard",
    "invoice",
    "customer",
    "account",
    "password",
    "payment",
    "webhook",
    "signature",
    "encoding",
    "unicode",
    "locale",
    "timezone",
    "calendar",
    "scheduler",
    "cron",
    "backup",
    "restore",
    "archive",
    "journal",
    "record",
];

/// A small deterministic generator, so every run builds the same store.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A word, the first ones more often than the last.
    fn word(&mut self) -> &'static str {
        let a = self.next() as usize % WORDS.len();
        let b = self.next() as usize % WORDS.len();
        WORDS[a.min(b)]
    }
    fn sentence(&mut self, words: usize) -> String {
        let mut s: Vec<&str> = (0..words).map(|_| self.word()).collect();
        // "token" and "format" apart, never as the phrase.
        for i in 1..s.len() {
            if s[i - 1] == "token" && s[i] == "format" {
                s[i] = "parser";
            }
        }
        let mut text = s.join(" ");
        if let Some(first) = text.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        text
    }
}

/// The store: one real handoff and one real record as templates, copied and varied.
fn build_store(repo: &Path, handoffs: usize, records: usize) {
    let write = Command::new(HANDOVER)
        .current_dir(repo)
        .env("HANDOVER_AGENT", "claude")
        .args([
            "write",
            "--goal",
            "Make the report export stream large files",
            "--next",
            "Run the export test against the 2 GB fixture",
            "--decision",
            "Stream rows instead of building the file in memory :: the 2 GB export ran out of memory",
            "--decision",
            "Keep the CSV dialect of the old exporter :: customers parse it with Excel macros",
            "--warning",
            "The staging bucket deletes files after one hour",
            "--blocker",
            "Waiting for the storage quota increase",
            "--completed",
            "Row iterator over the query cursor",
            "--completed",
            "Chunked upload of the export",
            "--in-progress",
            "Progress events for the dashboard",
            "--pending",
            "Retry a failed chunk upload",
            "--ran",
            "cargo test -p export",
            "--ran",
            "cargo bench --bench export -- 2gb",
            "--artifact",
            "target/criterion/export/report/index.html",
            "--narrative",
            "The exporter used to build the whole file in memory and failed on the largest customers. \
             It now streams rows from the query cursor into chunked uploads; the tests pass and the \
             2 GB export stays under 200 MB of memory. Progress events are half done.",
        ])
        .output()
        .expect("handover write");
    assert!(
        write.status.success(),
        "{}",
        String::from_utf8_lossy(&write.stderr)
    );
    let store = repo.join(".handover");
    let template: Handoff =
        serde_json::from_slice(&std::fs::read(store.join("state.json")).unwrap()).unwrap();
    let archive = store.join("archive");
    std::fs::create_dir_all(&archive).unwrap();
    let now = handover_base::clock::unix_now().0;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..handoffs {
        let secs = now - 3600 - i as u64 * 600;
        let mut h = template.clone();
        h.id = format!(
            "{}-{:04x}",
            handover_base::clock::format_compact(secs).replace('Z', ".000000000Z"),
            i & 0xffff
        );
        h.created_at = handover_base::clock::format_rfc3339(secs);
        let c = &mut h.content;
        c.goal = rng.sentence(7);
        c.decisions = (0..3)
            .map(|_| Decision {
                what: rng.sentence(9),
                why: rng.sentence(12),
                ..Decision::default()
            })
            .collect();
        c.warnings = vec![rng.sentence(10)];
        c.narrative = Some(
            (0..4)
                .map(|_| rng.sentence(14))
                .collect::<Vec<_>>()
                .join(". "),
        );
        c.status.completed = (0..3).map(|_| rng.sentence(6)).collect();
        c.status.pending = (0..2).map(|_| rng.sentence(6)).collect();
        c.evidence.commands_run = (0..3)
            .map(|_| format!("cargo test -p {} -- {}", rng.word(), rng.word()))
            .collect();
        if i % 50 == 7 {
            c.decisions[1].what = format!("Replace the {WORD} with a hand-written one");
        }
        if i % 100 == 3 {
            c.narrative = Some(format!(
                "The {PHRASE} changed in the last release. {}",
                rng.sentence(12)
            ));
        }
        handover_handoff::store::seal(&mut h);
        let name = format!("{}.json", handover_base::clock::format_compact(secs));
        std::fs::write(archive.join(name), serde_json::to_vec_pretty(&h).unwrap()).unwrap();
    }
    let template = real_record(repo);
    let dir = store.join("records");
    for i in 0..records {
        let ms = (now - 1800 - i as u64 * 600) * 1000;
        let mut r = template.clone();
        let sid = format!("bench-{i:05}-{:08x}", rng.next() as u32);
        r["session_id"] = sid.clone().into();
        r["requests"] = vec![rng.sentence(12), rng.sentence(8)].into();
        r["last_message"] = rng.sentence(20).into();
        r["last_activity_ms"] = ms.into();
        r["updated_ms"] = ms.into();
        r["updated"] = handover_base::clock::format_rfc3339(ms / 1000).into();
        r["last_activity"] = handover_base::clock::format_rfc3339(ms / 1000).into();
        if i % 50 == 11 {
            r["requests"][0] = format!("why does the {WORD} split on dashes").into();
        }
        if i % 100 == 13 {
            r["last_message"] =
                format!("The {PHRASE} is documented now. {}", rng.sentence(8)).into();
        }
        let path = handover_record::files::path_for(&dir, &sid);
        std::fs::write(path, serde_json::to_vec_pretty(&r).unwrap()).unwrap();
    }
}

/// A session record kept by the real Stop hook from the captured Claude Code transcript, as
/// JSON.
fn real_record(repo: &Path) -> serde_json::Value {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients/claude-2.1.330/transcript-tools.jsonl");
    let text = std::fs::read_to_string(fixture)
        .unwrap()
        .replace("/tmp/FIXTURE/project", &repo.to_string_lossy());
    let transcript = repo.parent().unwrap().join("transcript.jsonl");
    std::fs::write(&transcript, text).unwrap();
    let sid = "bench-template";
    let payload = serde_json::json!({"session_id": sid, "transcript_path": transcript,
        "cwd": repo, "hook_event_name": "Stop", "stop_hook_active": false});
    let out = measure::run(
        CONTEXT_WATCH,
        &["--agent", "claude"],
        payload.to_string().as_bytes(),
    );
    let _ = out;
    let path: PathBuf = handover_record::files::path_for(&repo.join(".handover/records"), sid);
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("the template record")).unwrap();
    std::fs::remove_file(path).unwrap();
    record
}

fn count_files(dir: &Path) -> usize {
    walk(dir).len()
}

fn bytes_under(dir: &Path) -> u64 {
    walk(dir)
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}
