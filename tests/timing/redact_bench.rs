//! Figures for redaction (docs/benchmarks.md, "Redaction"): a typical 5 KB handoff redacted
//! in-process, the first call in a fresh process (what a hook would pay per event: there is no
//! rule compilation, so only cold caches), and a few-KB session record. Not a pass/fail test;
//! run with `cargo test -p handover --release --test timing redact_bench -- --ignored --nocapture`.

use handover_handoff::model::{Content, Evidence, Status};
use handover_handoff::redaction::redact;
use handover_redact::redact_text;
use std::time::{Duration, Instant};

const PROSE: &str = include_str!("../redaction_corpus/prose.txt");

/// About 5 KB of handoff text: corpus prose spread over the fields, with three pasted secrets.
fn typical_handoff() -> Content {
    let lines: Vec<String> = PROSE.lines().take(60).map(String::from).collect();
    let mut commands: Vec<String> = lines[36..60].to_vec();
    commands.push(format!(
        "export STRIPE_KEY={}{}",
        "sk_live_", "qsz1MtZ0c4pDlbuAIp026i0A"
    ));
    commands.push("psql postgres://app:wffalbpGp8cd2taO@db.internal:5432/app".into());
    Content {
        goal: lines[0].clone(),
        narrative: Some(lines[1..6].join(" ")),
        status: Status {
            completed: lines[6..16].to_vec(),
            in_progress: lines[16..22].to_vec(),
            pending: lines[22..30].to_vec(),
        },
        warnings: lines[30..36].to_vec(),
        evidence: Evidence {
            commands_run: commands,
            ..Evidence::default()
        },
        environment: [("DB_PASSWORD".to_string(), "hunter2hunter2".to_string())].into(),
        ..Content::default()
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore = "benchmark: prints figures, run with --release --ignored --nocapture"]
fn redaction_figures() {
    let _alone = crate::one_at_a_time();
    let content = typical_handoff();
    let bytes = serde_json::to_string(&content).unwrap().len();

    // First use in this process: nothing to compile, but cold caches.
    let mut first = content.clone();
    let t = Instant::now();
    let found = redact(&mut first);
    let first_call = t.elapsed();
    assert_eq!(found.len(), 3, "{found:?}");

    let runs: Vec<Duration> = (0..300)
        .map(|_| {
            let mut c = content.clone();
            let t = Instant::now();
            redact(&mut c);
            t.elapsed()
        })
        .collect();

    // A session record of a few KB, as the Stop hook redacts on every event.
    let record: String = PROSE
        .lines()
        .skip(100)
        .take(30)
        .collect::<Vec<_>>()
        .join("\n");
    let record_runs: Vec<Duration> = (0..300)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(redact_text(&record));
            t.elapsed()
        })
        .collect();

    println!(
        "\nredact() of a typical handoff ({bytes} bytes of JSON): first call {first_call:?}, median {:?} over 300",
        median(runs)
    );
    println!(
        "redact_text() of a {}-byte session record: median {:?} over 300",
        record.len(),
        median(record_runs)
    );
}
