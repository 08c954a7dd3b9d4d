//! Figures for the hook path (what every session start pays): `load()` of a typical handoff,
//! `append_journal`, and `save`. Not a pass/fail test; run with
//! `cargo test -p handover --release --test timing store_bench -- --ignored --nocapture`.

use handover_handoff::model::{Content, Handoff, Status, SCHEMA_VERSION};
use handover_handoff::store::{self, LoadOutcome, Store};
use serde_json::json;
use std::time::Instant;

fn typical_handoff(n: u32) -> Handoff {
    // Roughly a full standard handoff: about 2,000 tokens of text.
    let mut h = Handoff {
        schema_version: SCHEMA_VERSION,
        id: format!("bench{n}"),
        created_at: "2026-01-01T00:00:00Z".into(),
        content: Content {
            goal: "Make the store crash-safe and fast on the hook path".into(),
            status: Status {
                completed: (0..20)
                    .map(|i| format!("completed item {i}: {}", "word ".repeat(12)))
                    .collect(),
                in_progress: (0..10)
                    .map(|i| format!("in progress {i}: {}", "word ".repeat(12)))
                    .collect(),
                pending: (0..20)
                    .map(|i| format!("pending item {i}: {}", "word ".repeat(12)))
                    .collect(),
            },
            ..Default::default()
        },
        ..Default::default()
    };
    store::seal(&mut h);
    h
}

fn per_op(label: &str, n: u32, f: impl FnMut(u32)) {
    let mut f = f;
    let start = Instant::now();
    for i in 0..n {
        f(i);
    }
    let each = start.elapsed().as_secs_f64() * 1e6 / f64::from(n);
    eprintln!("{label}: {each:.1} µs each ({n} runs)");
}

#[test]
#[ignore = "benchmark: prints figures"]
fn store_figures() {
    let _alone = crate::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let s = Store::at(dir.path());
    let h = typical_handoff(0);
    s.save(&h, "# md\n").unwrap();
    let size = std::fs::metadata(s.state_path()).unwrap().len();
    eprintln!("state.json of a typical handoff: {size} bytes");
    per_op("load() from state.json", 2000, |_| {
        assert!(matches!(s.load(), LoadOutcome::Loaded(_)));
    });
    per_op("append_journal()", 2000, |i| {
        s.append_journal(
            handover_handoff::store::Event::ContextWatch,
            json!({ "i": i }),
        )
        .unwrap()
    });
    per_op(
        "save() (archive + journal + 2 atomic writes, fsynced)",
        200,
        |i| {
            s.save(&typical_handoff(i), "# md\n").unwrap();
        },
    );
    std::fs::write(s.state_path(), "damaged").unwrap();
    let journal = std::fs::metadata(s.journal_path()).unwrap().len();
    per_op(
        &format!("load() recovering from a {journal}-byte journal"),
        20,
        |_| {
            assert!(matches!(s.load(), LoadOutcome::Loaded(_)));
        },
    );
}
