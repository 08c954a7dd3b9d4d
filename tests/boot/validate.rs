//! Pre-write checks: each rule fires on what it should, and stays quiet on ordinary handoffs.

use handover_handoff::config::Config;
use handover_handoff::model::*;
use handover_handoff::validate::{check, estimate_tokens};
use std::collections::BTreeMap;

fn ok_content() -> Content {
    Content {
        goal: "Make the importer resumable".into(),
        narrative: Some(
            "The importer now checkpoints every 1,000 rows. Resuming works for CSV; JSON is next. \
             At 14:05 the staging run failed because the disk filled up, not because of the code. \
             See notes/2026-11-20.md for the numbers."
                .into(),
        ),
        status: Status {
            completed: vec!["checkpoint file written every 1,000 rows".into()],
            in_progress: vec!["resume for JSON input".into()],
            pending: vec!["delete checkpoints after success".into()],
        },
        decisions: vec![Decision {
            what: "checkpoint as JSON lines".into(),
            why: "appendable and readable by hand".into(),
            ..Decision::default()
        }],
        evidence: Evidence {
            commands_run: vec!["cargo test -p importer resume".into()],
            measurements: BTreeMap::from([("rows/s".to_string(), "41,000".to_string())]),
            artifacts: vec!["target/resume-run.log".into()],
        },
        next_action: Some(
            "Implement resume for JSON input: at line 2:14 of the spec, step 3.".into(),
        ),
        ..Content::default()
    }
}

fn has(list: &[String], needle: &str) -> bool {
    list.iter().any(|m| m.contains(needle))
}

#[test]
fn an_ordinary_handoff_passes_cleanly() {
    let f = check(&ok_content(), &Config::default());
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!(f.budget_tokens, 2000);
    assert!(
        f.estimated_tokens > 50 && f.estimated_tokens < 400,
        "{}",
        f.estimated_tokens
    );
}

#[test]
fn missing_or_blank_goal_is_an_error() {
    for goal in ["", "   \n "] {
        let c = Content {
            goal: goal.into(),
            ..ok_content()
        };
        let f = check(&c, &Config::default());
        assert!(has(&f.errors, "`goal` is missing"), "{:?}", f.errors);
    }
}

#[test]
fn token_estimate_is_ceil_of_json_chars_over_four() {
    let c = Content {
        goal: "é".repeat(10),
        ..Content::default()
    };
    let json = serde_json::to_string(&c).unwrap();
    assert_eq!(estimate_tokens(&c), json.chars().count().div_ceil(4));
    assert!(
        json.chars().count() < json.len(),
        "counts characters, not bytes"
    );
}

#[test]
fn over_budget_says_estimate_budget_and_what_to_cut() {
    let mut c = ok_content();
    c.status.pending = (0..200)
        .map(|i| format!("pending item number {i} with some words"))
        .collect();
    let f = check(&c, &Config::default());
    let msg = f
        .errors
        .iter()
        .find(|m| m.contains("budget"))
        .expect("a size error");
    assert!(msg.contains(&f.estimated_tokens.to_string()), "{msg}");
    // The estimate against the budget, the largest field, and `kind: heavy` as the way out.
    insta::assert_snapshot!("over_the_budget", msg);
    // The same content fits a heavy budget.
    c.kind = Kind::Heavy;
    let f = check(&c, &Config::default());
    assert!(!has(&f.errors, "budget"), "{:?}", f.errors);
    assert_eq!(f.budget_tokens, 5000);
    // And a configured budget is honoured.
    let small = Config {
        heavy_budget_tokens: 100,
        ..Config::default()
    };
    assert!(has(&check(&c, &small).errors, "budget is 100"));
}

#[test]
fn plan_on_a_standard_handoff_suggests_heavy() {
    let c = Content {
        plan: Some(Plan::default()),
        ..ok_content()
    };
    let f = check(&c, &Config::default());
    assert!(has(&f.warnings, "kind: heavy"), "{:?}", f.warnings);
    let c = Content {
        kind: Kind::Heavy,
        ..c
    };
    assert!(!has(&check(&c, &Config::default()).warnings, "kind: heavy"));
}

#[test]
fn pasted_output_is_refused_with_the_field_path() {
    let long_line = "word ".repeat(100);
    let cases: Vec<(Content, &str, &str)> = vec![
        (Content { blockers: vec![long_line.clone()], ..ok_content() }, "`blockers[0]`", "characters"),
        (Content { narrative: Some("x".repeat(1300)), ..ok_content() }, "`narrative`", "1300 characters"),
        (
            Content { warnings: vec!["one\ntwo\nthree\nfour\nfive\nsix".into()], ..ok_content() },
            "`warnings[0]`",
            "6 lines",
        ),
        (
            Content { status: Status { in_progress: vec!["fix it\nTraceback (most recent call last):\n  File \"a.py\", line 3".into()], ..Status::default() }, ..ok_content() },
            "`status.in_progress[0]`",
            "traceback",
        ),
        (
            Content { blockers: vec!["TypeError: x is undefined\n    at foo (src/a.js:1:2)\n    at bar (src/b.js:3:4)".into()], ..ok_content() },
            "`blockers[0]`",
            "stack trace",
        ),
        (
            Content {
                decisions: vec![Decision { what: "d".into(), why: "w".into(), alternatives: vec!["error[E0502]: cannot borrow\n  --> src/main.rs:4:5".into()], ..Decision::default() }],
                ..ok_content()
            },
            "`decisions[0].alternatives[0]`",
            "compiler error",
        ),
        (Content { warnings: vec!["\u{1b}[31mFAILED\u{1b}[0m".into()], ..ok_content() }, "`warnings[0]`", "escape codes"),
        (Content { blockers: vec!["npm ERR! code E404".into()], ..ok_content() }, "`blockers[0]`", "npm"),
        (
            Content {
                narrative: Some("2026-11-22T02:14:51Z INFO start\n2026-11-22T02:14:52Z WARN slow\n2026-11-22T02:14:53Z ERROR boom".into()),
                ..ok_content()
            },
            "`narrative`",
            "timestamp",
        ),
        (
            Content { environment: BTreeMap::from([("LOG".to_string(), "[12:00:01] a\n[12:00:02] b".to_string())]), ..ok_content() },
            "`environment[\"LOG\"]`",
            "timestamp",
        ),
    ];
    // Each message whole: the field, why it looks like pasted output, and where output goes.
    let mut said = String::new();
    for (c, path, reason) in cases {
        let f = check(&c, &Config::default());
        let msg = f
            .errors
            .iter()
            .find(|m| m.starts_with(path))
            .unwrap_or_else(|| panic!("no error for {path}: {:?}", f.errors));
        said.push_str(&format!("> {path} ({reason})\n{msg}\n"));
    }
    insta::assert_snapshot!("pasted_output", said);
}

#[test]
fn normal_prose_is_not_mistaken_for_logs() {
    let c = Content {
        narrative: Some(format!(
            "{}\n\nSecond paragraph: on 2026-11-20 we chose SQLite; at 14:05 the run finished.",
            "A normal sentence about the work, with a colon: and numbers 1:2. ".repeat(12)
        )),
        status: Status {
            completed: vec![
                "fixed error[E0502] in the parser (borrow of self.buf)".into(),
                "checked the at-rest encryption at src/crypto.rs:120".into(),
                "2026-11-21: migrated the schema\n2026-11-22: backfilled".into(),
            ],
            ..ok_content().status
        },
        blockers: vec!["waiting for npm registry access (ERR 403 in CI)".into()],
        warnings: vec![
            "line one\nline two\nline three\nline four\nline five".into(),
            "x".repeat(400),
        ],
        ..ok_content()
    };
    let f = check(&c, &Config::default());
    assert!(f.errors.is_empty(), "false positives: {:?}", f.errors);
}

#[test]
fn completed_without_evidence_is_a_warning() {
    let c = Content {
        evidence: Evidence::default(),
        ..ok_content()
    };
    let f = check(&c, &Config::default());
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    assert!(
        has(&f.warnings, "claims without evidence"),
        "{:?}",
        f.warnings
    );
    let c = Content {
        evidence: Evidence::default(),
        status: Status::default(),
        ..ok_content()
    };
    assert!(!has(
        &check(&c, &Config::default()).warnings,
        "claims without evidence"
    ));
}

#[test]
fn facts_only_rejects_next_action_and_priorities() {
    let facts_only = Config {
        facts_only: true,
        ..Config::default()
    };
    let c = Content {
        priorities: vec![Priority {
            task: "t".into(),
            urgency: Urgency::First,
        }],
        ..ok_content()
    };
    let f = check(&c, &facts_only);
    assert!(
        has(&f.errors, "`next_action` is not allowed") && has(&f.errors, "facts_only"),
        "{:?}",
        f.errors
    );
    assert!(
        has(&f.errors, "`priorities` are not allowed"),
        "{:?}",
        f.errors
    );
    let c = Content {
        next_action: None,
        ..ok_content()
    };
    assert!(check(&c, &facts_only).errors.is_empty());
    // Without the policy both are fine.
    let c = Content {
        priorities: vec![Priority::default()],
        ..ok_content()
    };
    assert!(check(&c, &Config::default()).errors.is_empty());
}

#[test]
fn decisions_without_why_and_duplicates_are_warnings() {
    let c = Content {
        decisions: vec![Decision {
            what: "use tokio".into(),
            ..Decision::default()
        }],
        status: Status {
            completed: vec!["write tests".into(), "Write tests ".into()],
            pending: vec!["write tests".into()],
            ..Status::default()
        },
        ..ok_content()
    };
    let f = check(&c, &Config::default());
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    assert!(
        has(&f.warnings, "`decisions[0]` (\"use tokio\") has no `why`"),
        "{:?}",
        f.warnings
    );
    assert!(
        has(
            &f.warnings,
            "`status.completed[1]` duplicates `status.completed[0]`"
        ),
        "{:?}",
        f.warnings
    );
    assert!(
        has(&f.warnings, "both completed and still open"),
        "{:?}",
        f.warnings
    );
}

/// docs/handover.schema.json parses and describes every top-level key of a full state.json.
#[test]
fn json_schema_lists_every_top_level_field() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/handover.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let props = schema["properties"].as_object().expect("properties");
    let full = Handoff {
        agent: Some("a".into()),
        session_id: Some("s".into()),
        git: Some(GitSnapshot {
            branch: Some("b".into()),
            head: Some("h".into()),
            upstream: Some("u".into()),
            dirty_omitted: 1,
            untracked_omitted: 1,
            ..GitSnapshot::default()
        }),
        files_changed_base: Some("base".into()),
        files_changed_omitted: 1,
        markdown_sha256: Some("sha256:00".into()),
        content: Content {
            narrative: Some("n".into()),
            spec_ref: Some("s".into()),
            next_action: Some("n".into()),
            plan: Some(Plan::default()),
            ..Content::default()
        },
        ..Handoff::default()
    };
    let json = serde_json::to_value(&full).unwrap();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert!(
        keys.len() >= 25,
        "expected every field to be serialized: {keys:?}"
    );
    for key in &keys {
        assert!(
            props.contains_key(*key),
            "docs/handover.schema.json has no property `{key}`"
        );
    }
    for key in props.keys() {
        assert!(
            keys.contains(&key),
            "schema property `{key}` is not a Handoff field"
        );
    }
    // Nested objects too: every key of git and of each content struct is described.
    let defs_git = schema["$defs"]["git"]["properties"].as_object().unwrap();
    for key in json["git"].as_object().unwrap().keys() {
        assert!(
            defs_git.contains_key(key),
            "git.{key} missing from the schema"
        );
    }
    for parent in ["status", "evidence", "plan"] {
        let described = props[parent]["properties"].as_object().unwrap();
        for key in json[parent].as_object().unwrap().keys() {
            assert!(
                described.contains_key(key),
                "{parent}.{key} missing from the schema"
            );
        }
    }
    for required in schema["required"].as_array().unwrap() {
        let key = required.as_str().unwrap();
        assert!(
            json.get(key).is_some(),
            "required `{key}` is not always written"
        );
    }
}
