//! handover.md: render, parse back, hand edits, errors, and a full rendering pinned as a snapshot.

use handover_handoff::markdown::{parse, render, ParseError};
use handover_handoff::model::*;
use std::collections::BTreeMap;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A handoff using every field, with ordinary text.
fn rich() -> Handoff {
    let content = Content {
        goal: "Ship `handover write` with atomic, locked writes".into(),
        narrative: Some(
            "The store writes state.json atomically. The lock works across processes.\n\n\
             Journal rotation is not started; the archive naming is settled."
                .into(),
        ),
        spec_ref: Some("docs/spec.md#write".into()),
        status: Status {
            completed: strings(&[
                "Atomic write via temp file + rename",
                "Lock file with retries",
            ]),
            in_progress: strings(&["Journal append (half done: no fsync yet)"]),
            pending: strings(&["Archive pruning", "Crash test"]),
        },
        decisions: vec![
            Decision {
                what: "Use a lock file, not flock on state.json".into(),
                why: "state.json is replaced by rename, so a lock on it would be lost".into(),
                alternatives: strings(&["flock on state.json", "a lock directory"]),
                reversible: Some(true),
                deferred: false,
            },
            Decision {
                what: "No async runtime".into(),
                why: String::new(),
                alternatives: vec![],
                reversible: Some(false),
                deferred: true,
            },
        ],
        assumptions: vec![Assumption {
            assumption: "rename is atomic on the target filesystems".into(),
            why: "POSIX guarantees it on one filesystem".into(),
            impact_if_wrong: "torn state.json after a crash".into(),
        }],
        blockers: strings(&["CI runner has no git 2.40"]),
        warnings: strings(&["tests/crash.rs is flaky under load"]),
        important_files: vec![
            ImportantFile {
                path: "src/store.rs".into(),
                why: "the atomic write and the lock".into(),
            },
            ImportantFile {
                path: "tests/crash.rs".into(),
                why: String::new(),
            },
        ],
        evidence: Evidence {
            commands_run: strings(&[
                "cargo test -p handover --test store",
                "git log --oneline -3",
            ]),
            measurements: BTreeMap::from([
                ("write p95".to_string(), "3.1 ms".to_string()),
                ("journal lines".to_string(), "200".to_string()),
            ]),
            artifacts: strings(&["target/crash-report.txt"]),
        },
        environment: BTreeMap::from([
            ("FEATURE_FAST_LOCK".to_string(), "on".to_string()),
            ("staging db".to_string(), "down since 01:00 UTC".to_string()),
        ]),
        next_action: Some(
            "Add fsync to the journal append, then run the crash test 200 times.".into(),
        ),
        priorities: vec![
            Priority {
                task: "fsync the journal".into(),
                urgency: Urgency::First,
            },
            Priority {
                task: "crash test".into(),
                urgency: Urgency::Primary,
            },
            Priority {
                task: "archive pruning".into(),
                urgency: Urgency::AfterPrimary,
            },
            Priority {
                task: "benchmarks".into(),
                urgency: Urgency::IfTimePermits,
            },
        ],
        stop_conditions: strings(&[
            "the crash test finds a torn file",
            "the spec changes the format",
        ]),
        kind: Kind::Heavy,
        plan: Some(Plan {
            work_items: strings(&["journal fsync", "crash test"]),
            key_interfaces: strings(&["Store::save(&Handoff) -> Result<SaveReport>"]),
            dependencies: strings(&["installer::atomic::write_atomic"]),
            test_strategy: strings(&["kill a writer at random moments, 200 times"]),
        }),
    };
    Handoff {
        schema_version: SCHEMA_VERSION,
        id: "20261122T021451Z-4f2a".into(),
        created_at: "2026-11-22T02:14:51Z".into(),
        agent: Some("claude-code".into()),
        session_id: Some("sess-123".into()),
        git: Some(GitSnapshot {
            root: "/home/dev/project".into(),
            linked_worktree: false,
            branch: Some("feature/store".into()),
            detached: false,
            head: Some("0123456789abcdef0123456789abcdef01234567".into()),
            upstream: Some("origin/feature/store".into()),
            dirty: strings(&["src/store.rs"]),
            untracked: strings(&["notes.txt"]),
            dirty_omitted: 0,
            untracked_omitted: 0,
            root_bytes: None,
            uncommitted_on: None,
        }),
        files_changed: vec![
            FileChange {
                path: "src/store.rs".into(),
                change: ChangeKind::Modified,
                path_bytes: None,
            },
            FileChange {
                path: "tests/crash.rs".into(),
                change: ChangeKind::Added,
                path_bytes: None,
            },
        ],
        files_changed_omitted: 0,
        files_changed_base: Some("fedcba9876543210fedcba9876543210fedcba98".into()),
        content,
        markdown_sha256: None,
        checksum: "sha256:00".into(),
    }
}

fn wrap(content: Content) -> Handoff {
    Handoff {
        content,
        ..Handoff::default()
    }
}

#[track_caller]
fn assert_round_trip(content: &Content) {
    let md = render(&wrap(content.clone()));
    match parse(&md) {
        Ok(back) => assert_eq!(
            &back, content,
            "round trip changed the content; markdown was:\n{md}"
        ),
        Err(e) => panic!("parse failed: {e:#}\nmarkdown was:\n{md}"),
    }
}

fn parse_err(md: &str) -> ParseError {
    match parse(md) {
        Ok(c) => panic!("expected a parse error, got {c:?}"),
        Err(e) => e.downcast::<ParseError>().expect("a ParseError"),
    }
}

#[test]
fn rich_handoff_round_trips() {
    assert_round_trip(&rich().content);
}

#[test]
fn empty_content_round_trips() {
    assert_round_trip(&Content::default());
    let md = render(&wrap(Content::default()));
    assert!(
        !md.contains("## Current State"),
        "absent narrative must not be rendered:\n{md}"
    );
    insta::assert_snapshot!("empty_content", md);
}

#[test]
fn some_empty_differs_from_none() {
    let c = Content {
        narrative: Some(String::new()),
        spec_ref: Some(String::new()),
        next_action: Some(String::new()),
        plan: Some(Plan::default()),
        ..Content::default()
    };
    assert_round_trip(&c);
    let back = parse(&render(&wrap(c))).unwrap();
    assert_eq!(back.narrative.as_deref(), Some(""));
    assert_eq!(back.plan, Some(Plan::default()));
}

/// Strings that are hard for a line-based Markdown reader.
fn edge_strings() -> Vec<String> {
    let mut v = strings(&[
        "",
        " ",
        "  ",
        "\t",
        "trailing space ",
        "trailing tab\t",
        " leading space",
        "   three leading",
        "\\",
        "\\\\",
        "\\leading backslash",
        "trailing backslash\\",
        "\\both\\",
        "\\ ",
        "- leading dash",
        "-",
        "--",
        "* star",
        "+ plus",
        "1. numbered",
        "# hash",
        "## Goal",
        "### Why: nested",
        "#",
        "#no space",
        "what :: why",
        "a: b: c",
        ":",
        ": leading colon",
        "Why: looks like a field",
        "first: looks like a priority",
        "`code` and ``double`` and ```fence```",
        "```",
        "*emphasis* _under_ **bold** [link](http://x) <b>html</b>",
        "<!-- a comment -->",
        "<!--",
        "-->",
        "> quote",
        "| table | row |",
        "unicode: héllo wörld — 日本語 🚀 \u{200b}zero-width",
        "\u{a0}nbsp at both ends\u{a0}",
        "line one\nline two",
        "\nleading newline",
        "trailing newline\n",
        "\n",
        "\n\n",
        "a\n\nb",
        "a\n \nb",
        "a\n\\\nb",
        "multi\n- dash line\n# hash line\n  indented\n\ttabbed\nend ",
        "crlf\r\nline",
        "cr at end\r",
        "\r",
        "ends with\n- ",
        "yes",
        "no",
        "standard",
        "heavy",
        "  - indented dash",
        "Reversible: yes",
    ]);
    v.push("x".repeat(300));
    v
}

#[test]
fn every_edge_string_round_trips_in_every_field() {
    for s in edge_strings() {
        let c = Content {
            goal: s.clone(),
            narrative: Some(s.clone()),
            spec_ref: Some(s.clone()),
            status: Status {
                completed: vec![s.clone()],
                in_progress: vec![s.clone(), s.clone()],
                pending: vec![s.clone()],
            },
            decisions: vec![Decision {
                what: s.clone(),
                why: s.clone(),
                alternatives: vec![s.clone(), s.clone()],
                reversible: Some(true),
                deferred: true,
            }],
            assumptions: vec![Assumption {
                assumption: s.clone(),
                why: s.clone(),
                impact_if_wrong: s.clone(),
            }],
            blockers: vec![s.clone()],
            warnings: vec![s.clone()],
            important_files: vec![ImportantFile {
                path: s.clone(),
                why: s.clone(),
            }],
            evidence: Evidence {
                commands_run: vec![s.clone()],
                measurements: BTreeMap::from([(s.clone(), s.clone()), ("k".into(), s.clone())]),
                artifacts: vec![s.clone()],
            },
            environment: BTreeMap::from([(s.clone(), s.clone()), ("other".into(), s.clone())]),
            next_action: Some(s.clone()),
            priorities: vec![Priority {
                task: s.clone(),
                urgency: Urgency::AfterPrimary,
            }],
            stop_conditions: vec![s.clone()],
            kind: Kind::Heavy,
            plan: Some(Plan {
                work_items: vec![s.clone()],
                key_interfaces: vec![s.clone()],
                dependencies: vec![s.clone()],
                test_strategy: vec![s.clone()],
            }),
        };
        assert_round_trip(&c);
    }
}

/// Deterministic pseudo-random strings built from the hard fragments (no extra crate).
#[test]
fn generated_strings_round_trip() {
    let fragments = [
        "", " ", "\n", "\\", "#", "- ", "##", "<!--", "-->", ":", "\\:", "::", "`", "\t", "\r",
        "é", "🚀", "word", "  ", "### ", "*", "\n\n",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..400 {
        let mut pick = || {
            let n = (next() % 6) as usize;
            (0..n)
                .map(|_| fragments[(next() % fragments.len() as u64) as usize])
                .collect::<String>()
        };
        let c = Content {
            goal: pick(),
            narrative: Some(pick()),
            status: Status {
                completed: vec![pick(), pick()],
                ..Status::default()
            },
            decisions: vec![Decision {
                what: pick(),
                why: pick(),
                alternatives: vec![pick()],
                reversible: Some(false),
                deferred: true,
            }],
            environment: BTreeMap::from([(pick(), pick())]),
            evidence: Evidence {
                measurements: BTreeMap::from([(pick(), pick())]),
                ..Evidence::default()
            },
            priorities: vec![Priority {
                task: pick(),
                urgency: Urgency::First,
            }],
            next_action: Some(pick()),
            ..Content::default()
        };
        assert_round_trip(&c);
    }
}

#[test]
fn hand_edit_adding_a_completed_item_and_editing_a_decision() {
    let h = rich();
    let md = render(&h);
    let md = md.replace(
        "- Lock file with retries\n",
        "- Lock file with retries\n- Journal append\n  (with fsync)\n",
    );
    let md = md.replace(
        "- Why: state.json is replaced by rename",
        "- Why: EDITED because rename replaces the file",
    );
    let md = md.replace("- Deferred: yes", "- Deferred: no");
    let back = parse(&md).unwrap();
    let mut want = h.content.clone();
    want.status
        .completed
        .push("Journal append\n(with fsync)".into());
    want.decisions[0].why =
        "EDITED because rename replaces the file, so a lock on it would be lost".into();
    want.decisions[1].deferred = false;
    assert_eq!(back, want);
}

#[test]
fn hand_written_file_with_loose_spacing_parses() {
    let md = "\
# Handoff

## goal
Fix the login bug
## completed

- reproduced it

- wrote a failing test
## Decisions
### Keep the session cookie
- why: the mobile app depends on it
- alternatives: JWT in local storage
- reversible: Yes
## spec
docs/auth.md
## Priorities
- After primary: clean up logging
- if-time-permits: docs
## Environment
- AUTH_MODE: legacy
## kind
heavy
";
    let c = parse(md).unwrap();
    assert_eq!(c.goal, "Fix the login bug");
    assert_eq!(
        c.status.completed,
        strings(&["reproduced it", "wrote a failing test"])
    );
    assert_eq!(c.decisions.len(), 1);
    assert_eq!(c.decisions[0].what, "Keep the session cookie");
    assert_eq!(c.decisions[0].why, "the mobile app depends on it");
    assert_eq!(
        c.decisions[0].alternatives,
        strings(&["JWT in local storage"])
    );
    assert_eq!(c.decisions[0].reversible, Some(true));
    assert!(!c.decisions[0].deferred);
    assert_eq!(c.spec_ref.as_deref(), Some("docs/auth.md"));
    assert_eq!(c.priorities[0].urgency, Urgency::AfterPrimary);
    assert_eq!(c.priorities[1].urgency, Urgency::IfTimePermits);
    assert_eq!(
        c.environment.get("AUTH_MODE").map(String::as_str),
        Some("legacy")
    );
    assert_eq!(c.kind, Kind::Heavy);
    assert_eq!(c.narrative, None);
}

#[test]
fn tool_filled_sections_are_ignored() {
    let md = render(&rich());
    let edited = md
        .replace("- Branch: feature/store", "- Branch: someone-typed-this")
        .replace(
            "- modified: src/store.rs",
            "- whatever: typed by hand\nfree text here",
        );
    assert_eq!(parse(&edited).unwrap(), rich().content);
    assert!(
        md.contains("tool-filled"),
        "the file must say which sections are ignored"
    );
}

#[test]
fn crlf_file_parses() {
    let md = render(&rich()).replace('\n', "\r\n");
    assert_eq!(parse(&md).unwrap(), rich().content);
}

#[test]
fn unknown_heading_is_an_error_listing_valid_ones() {
    let e = parse_err("# Handoff\n\n## Goal\n\ng\n\n## Complted\n\n- a\n");
    assert_eq!(e.line, 7);
    // It names the heading and lists the valid ones.
    insta::assert_snapshot!("unknown_heading", e.to_string());
}

#[test]
fn parse_errors_name_line_and_fix() {
    let cases: &[(&str, usize, &str)] = &[
        ("## Completed\n\nnot an item\n", 3, "expected a list item"),
        ("## Completed\n\n* star item\n", 3, "start with `- `"),
        (
            "## Completed\n\n- a\n\n  orphan continuation\n",
            5,
            "does not continue an item",
        ),
        ("## Decisions\n\n- Why: no heading\n", 3, "### <decision>"),
        (
            "## Assumptions\n\n- the API is stable\n",
            3,
            "to start an assumption",
        ),
        (
            "## Decisions\n\n### d\n- Because: x\n",
            4,
            "unknown decision field",
        ),
        (
            "## Decisions\n\n### d\n- Reversible: maybe\n",
            4,
            "`yes` or `no`",
        ),
        ("## Decisions\n\n### d\n- Why: a\n- Why: b\n", 5, "twice"),
        (
            "## Decisions\n\n### d\nno dash\n",
            4,
            "expected a list item",
        ),
        ("## Priorities\n\n- urgent: x\n", 3, "`first`"),
        ("## Environment\n\n- no colon here\n", 3, "KEY: value"),
        ("## Environment\n\n- A: 1\n- A: 2\n", 4, "twice"),
        ("## Evidence\n\n### Logs\n\n- x\n", 3, "`### Commands Run`"),
        ("## Evidence\n\n- x\n", 3, "subsection heading"),
        ("## Kind\n\nmedium\n", 3, "`standard` or `heavy`"),
        ("## Goal\n\na\n\n## Goal\n\nb\n", 5, "twice"),
        ("## Goal\n\ntext\n# Title again\n", 4, "unexpected heading"),
        ("## Blockers\n\n### sub\n", 3, "not used"),
        (
            "stray text\n\n## Goal\n\ng\n",
            1,
            "expected a `## Section` heading",
        ),
        ("## Goal\n\ng\n<!-- never closed\n", 4, "never closed"),
        ("## Completed\n\n#### deep\n", 3, "unexpected heading"),
        ("## Goal\n\n<!-- note --> real goal\n", 3, "would be lost"),
        ("## Goal\n\n<!-- a\nb --> tail\n", 4, "would be lost"),
    ];
    // Each message whole, after the input and what it must say.
    let mut said = String::new();
    for (md, line, what) in cases {
        let e = parse_err(md);
        assert_eq!(e.line, *line, "wrong line for {md:?}: {e}");
        assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
        said.push_str(&format!("> {md:?} ({what})\n{e}\n"));
    }
    insta::assert_snapshot!("parse_errors", said);
}

#[test]
fn missing_sections_are_empty() {
    let c = parse("## Goal\n\nonly a goal\n").unwrap();
    assert_eq!(
        c,
        Content {
            goal: "only a goal".into(),
            ..Content::default()
        }
    );
    assert_eq!(parse("").unwrap(), Content::default());
}

#[test]
fn full_render_matches_snapshot() {
    let md = render(&rich());
    // insta compares text without its last newline: the file ends with exactly one.
    assert!(md.ends_with('\n') && !md.ends_with("\n\n"), "{md:?}");
    insta::assert_snapshot!("handover_md_heavy_with_plan", md);
}

/// The complete example in docs/format.md is true: its Markdown parses to its JSON, and
/// rendering that JSON gives the same writer sections.
#[test]
fn docs_example_markdown_matches_its_json() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/format.md")).unwrap();
    let example = &doc[doc.find("## Complete example").expect("example section")..];
    let block = |fence: &str| {
        let start = example
            .find(fence)
            .unwrap_or_else(|| panic!("no {fence} block"))
            + fence.len()
            + 1;
        let end = start + example[start..].find("\n```\n").expect("closing fence");
        example[start..end + 1].to_string()
    };
    let from_json: Content =
        serde_json::from_str(&block("```json")).expect("the JSON example parses");
    let md = block("```markdown");
    assert_eq!(parse(&md).unwrap(), from_json);
    // Outside the tool-filled sections, the example is exactly what render writes.
    let rendered = render(&wrap(from_json));
    let writer_part = |text: &str| {
        text.split("\n## ")
            .filter(|s| !s.starts_with("Metadata") && !s.starts_with("Files Changed"))
            .collect::<Vec<_>>()
            .join("\n## ")
    };
    assert_eq!(writer_part(&rendered), writer_part(&md));
}

/// Arbitrary line soup never panics the parser, and whatever it accepts renders and parses
/// back to the same content.
#[test]
fn arbitrary_input_never_panics_and_accepted_input_is_stable() {
    let lines = [
        "## Goal",
        "## Completed",
        "## Decisions",
        "## Environment",
        "## Priorities",
        "## Evidence",
        "## Plan",
        "## Kind",
        "## Metadata",
        "## Current State",
        "### x",
        "### Measurements",
        "### Work Items",
        "###",
        "# T",
        "- a",
        "-",
        "- \\",
        "- Why: w",
        "- first: t",
        "- k\\: v: w",
        "- Reversible: yes",
        "  cont",
        "  \\",
        "",
        " ",
        "text",
        "\\# h",
        "<!-- c -->",
        "<!--",
        "-->",
        "é🚀",
        "- :",
        "heavy",
        "\r",
        "\t- x",
        "####",
        "- Alternative: \\a\\",
    ];
    let mut seed: u64 = 0xdead_beef_cafe_f00d;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut accepted = 0;
    for _ in 0..4000 {
        let n = (next() % 14) as usize;
        let md: Vec<&str> = (0..n)
            .map(|_| lines[(next() % lines.len() as u64) as usize])
            .collect();
        let md = md.join("\n");
        if let Ok(c) = parse(&md) {
            accepted += 1;
            assert_round_trip(&c);
        }
    }
    assert!(
        accepted > 100,
        "the soup should sometimes be valid ({accepted})"
    );
}

#[test]
fn hostile_tool_filled_values_cannot_break_the_file() {
    let mut h = rich();
    if let Some(g) = h.git.as_mut() {
        g.branch = Some("evil\n## Goal\n\nreplaced".into());
        g.root = "/tmp/<!--".into();
    }
    h.agent = Some("a\r\n# x".into());
    h.files_changed_base = Some("base\n## Kind\n\nstandard".into());
    h.files_changed.push(FileChange {
        path: "odd\n## Blockers\n- injected".into(),
        change: ChangeKind::Added,
        path_bytes: None,
    });
    assert_eq!(parse(&render(&h)).unwrap(), h.content);
}
