//! No silent surprises: what a person sees matches what happened. Decisions are written as
//! given, a new goal says what it archived, a dry run shows every change, uninstall notes only
//! what is true, the help names every client. Real processes on real git repositories.

use crate::support::repo::{handover_in_home as run_in, TestRepo};
use crate::support::snapshot::placeholders;
use std::path::Path;

/// An install screen as a snapshot pins it: HOME as `[HOME]` and the hooks' directory as
/// `[BIN]`, then the repository's placeholders (support::snapshot).
fn screen(root: &Path, home: &Path, text: &str) -> String {
    let canonical = |p: &Path| p.canonicalize().unwrap().display().to_string();
    let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
    // The longer path first: a directory inside HOME is `[REPO]`, HOME itself `[HOME]`.
    let text = if root == home {
        text.to_string()
    } else {
        text.replace(&canonical(root), "[REPO]")
    };
    let text = text
        .replace(&canonical(home), "[HOME]")
        .replace(&home.display().to_string(), "[HOME]")
        .replace(&canonical(bin), "[BIN]")
        .replace(&bin.display().to_string(), "[BIN]");
    placeholders(&root.canonicalize().unwrap(), &text)
}

#[test]
fn a_decision_needs_both_parts_and_reversible_is_shown_only_when_said() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let mut refusals = String::new();
    for bad in [":: why", "  :: why", "no reason"] {
        let out = run_in(
            &r.path,
            home.path(),
            &["write", "--goal", "g", "--decision", bad],
        );
        assert_eq!(out.exit_code(), 1, "{bad}: {}", out.stdout_str());
        refusals.push_str(&format!("> {bad}\n{}", out.stderr_str()));
        assert!(
            !r.path.join("handover.md").exists(),
            "{bad}: nothing written"
        );
    }
    insta::assert_snapshot!("decision_refusals", placeholders(&r.path, &refusals));
    let out = run_in(
        &r.path,
        home.path(),
        &[
            "write",
            "--goal",
            "g",
            "--decision",
            "CSV by hand :: two columns",
        ],
    );
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    let md = std::fs::read_to_string(r.path.join("handover.md")).unwrap();
    assert!(!md.contains("Reversible"), "not said, not shown:\n{md}");
    insta::assert_snapshot!("decision_from_flags_md", placeholders(&r.path, &md));
    let json = r#"{"goal": "g", "decisions": [{"what": "w", "why": "y", "reversible": true}]}"#;
    let input = r.path.join("in.json");
    std::fs::write(&input, json).unwrap();
    let out = run_in(
        &r.path,
        home.path(),
        &["write", "--from", input.to_str().unwrap()],
    );
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    let md = std::fs::read_to_string(r.path.join("handover.md")).unwrap();
    insta::assert_snapshot!("decision_reversible_md", placeholders(&r.path, &md));
    // The Markdown form reads back the same.
    let out = run_in(&r.path, home.path(), &["write", "--from", "handover.md"]);
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    let decisions = |md: &str| {
        md.split("## Decisions")
            .nth(1)
            .and_then(|s| s.split("## Assumptions").next())
            .unwrap()
            .to_string()
    };
    let again = std::fs::read_to_string(r.path.join("handover.md")).unwrap();
    assert_eq!(decisions(&again), decisions(&md));
}

#[test]
fn a_new_goal_says_where_the_previous_handoff_went() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let w = |args: &[&str]| {
        let out = run_in(&r.path, home.path(), args);
        assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
        out.stdout_str()
    };
    let first = w(&["write", "--goal", "first task", "--next", "n"]);
    assert!(!first.contains("goal changed"), "{first}");
    let same = w(&["write", "--completed", "step"]);
    assert!(!same.contains("goal changed"), "{same}");
    let other = w(&["write", "--goal", "second task"]);
    insta::assert_snapshot!("new_goal_write", placeholders(&r.path, &other));
    let line = other
        .lines()
        .find(|l| l.starts_with("The goal changed: the handoff for «first task» was archived to "))
        .unwrap_or_else(|| panic!("{other}"));
    let path = line
        .strip_prefix("The goal changed: the handoff for «first task» was archived to ")
        .unwrap()
        .split(" (the journal")
        .next()
        .unwrap();
    let archived = std::fs::read_to_string(path).unwrap();
    assert!(archived.contains("first task"), "{archived}");
}

#[test]
fn install_dry_run_shows_the_guard_change_too() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
    let exclude = r.path.join(".git/info/exclude");
    let before = std::fs::read_to_string(&exclude).ok();
    let out = run_in(
        &r.path,
        home.path(),
        &[
            "install",
            "--claude",
            "--scope",
            "local",
            "--hooks-dir",
            bin.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    insta::assert_snapshot!(
        "install_dry_run_shows_the_gitignore_change",
        screen(&r.path, home.path(), &out.stdout_str())
    );
    assert_eq!(std::fs::read_to_string(&exclude).ok(), before);
    // The real run makes exactly that change, and no tracked file.
    let out = run_in(
        &r.path,
        home.path(),
        &[
            "install",
            "--claude",
            "--scope",
            "local",
            "--hooks-dir",
            bin.to_str().unwrap(),
        ],
    );
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    assert!(std::fs::read_to_string(&exclude)
        .unwrap()
        .contains("handover.md"));
    assert!(!r.path.join(".gitignore").exists());
}

#[test]
fn uninstall_notes_only_trust_that_is_there() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
    let hooks_dir = bin.to_str().unwrap();
    let install = ["install", "--codex", "--gemini", "--hooks-dir", hooks_dir];
    assert_eq!(run_in(&r.path, home.path(), &install).exit_code(), 0);
    let out = run_in(&r.path, home.path(), &["uninstall", "--codex", "--gemini"]);
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    assert!(
        !out.stdout_str().contains("trust"),
        "nothing was trusted, nothing to note:\n{}",
        out.stdout_str()
    );
    // Trusted (as `--trust` or the user would record it): both entries are named.
    let root = std::fs::canonicalize(&r.path).unwrap();
    std::fs::create_dir_all(home.path().join(".codex")).unwrap();
    std::fs::write(
        home.path().join(".codex/config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            root.display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(
        home.path().join(".gemini/trustedFolders.json"),
        format!("{{\"{}\": \"TRUST_FOLDER\"}}\n", root.display()),
    )
    .unwrap();
    assert_eq!(run_in(&r.path, home.path(), &install).exit_code(), 0);
    let out = run_in(&r.path, home.path(), &["uninstall", "--codex", "--gemini"]);
    insta::assert_snapshot!(
        "uninstall_notes_the_trust_left",
        screen(&r.path, home.path(), &out.stdout_str())
    );
}

#[test]
fn the_help_names_every_client() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, args) in [
        ("help", &["--help"][..]),
        ("install_help", &["install", "--help"]),
        ("uninstall_help", &["uninstall", "--help"]),
    ] {
        let out = run_in(tmp.path(), tmp.path(), args);
        assert_eq!(out.exit_code(), 0);
        crate::support::snapshot::assert_final_newline(name, &out.stdout_str());
        insta::assert_snapshot!(name, out.stdout_str());
    }
}

#[test]
fn install_outside_a_repository_or_in_home_warns() {
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
    let plain = home.path().join("not-a-repo");
    std::fs::create_dir_all(&plain).unwrap();
    let args = [
        "install",
        "--claude",
        "--scope",
        "local",
        "--hooks-dir",
        bin.to_str().unwrap(),
        "--dry-run",
    ];
    let out = run_in(&plain, home.path(), &args);
    assert_eq!(out.exit_code(), 0, "{}", out.stderr_str());
    insta::assert_snapshot!(
        "install_outside_a_repository",
        screen(&plain, home.path(), &out.stdout_str())
    );
    let out = run_in(home.path(), home.path(), &args);
    insta::assert_snapshot!(
        "install_in_the_home_directory",
        screen(home.path(), home.path(), &out.stdout_str())
    );
    let r = TestRepo::with_commit();
    let out = run_in(&r.path, home.path(), &args);
    assert!(
        !out.stdout_str().contains("warning:"),
        "{}",
        out.stdout_str()
    );
}

#[test]
fn a_json_type_error_names_the_field_path() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let mut said = String::new();
    for (json, path) in [
        (
            r#"{"goal": "g", "status": {"in_progress": "x"}}"#,
            "status.in_progress: ",
        ),
        (
            r#"{"goal": "g", "decisions": [{"what": "a", "why": "b"}, {"what": "a", "why": 3}]}"#,
            "decisions[1].why: ",
        ),
        (r#"{"goal": ["g"]}"#, "goal: "),
        (
            r#"{"goal": "g", "evidence": {"commands_run": [1]}}"#,
            "evidence.commands_run[0]: ",
        ),
    ] {
        let input = r.path.join("in.json");
        std::fs::write(&input, json).unwrap();
        let out = run_in(
            &r.path,
            home.path(),
            &["write", "--from", input.to_str().unwrap()],
        );
        assert_eq!(out.exit_code(), 1, "{json}");
        said.push_str(&format!("> {path}\n{}", out.stderr_str()));
        assert!(!r.path.join("handover.md").exists());
    }
    insta::assert_snapshot!("json_type_errors", placeholders(&r.path, &said));
}
