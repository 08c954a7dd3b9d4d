//! Which repository and which handoff a hook works on: from a subdirectory, in a linked
//! worktree (each has its own handoff), with a configured budget; and sessions that share a
//! repository without sharing state.

use crate::support::exe::{context_watch_exe, session_start_exe};
use crate::support::hook::*;
use serde_json::json;
use std::path::Path;

fn session_start(cwd: &Path, session: &str) -> Run {
    session_start_with(cwd, session, &[])
}

fn session_start_with(cwd: &Path, session: &str, env: &[(&str, &str)]) -> Run {
    let run = run_hook(
        session_start_exe(),
        &["--agent", "claude"],
        payload(json!({
            "session_id": session,
            "cwd": cwd.to_str().unwrap(),
            "hook_event_name": "SessionStart",
            "source": "startup",
        })),
        env,
    );
    run.assert_clean("session start");
    run
}

/// A PATH on which the `handover` beside the hooks is found, so that the startup context names
/// it as plain `handover`: a context cut to a budget must not depend on how long the checkout's
/// path is (the absolute command counts against the budget).
fn path_with_the_hooks_dir() -> String {
    let dir = Path::new(session_start_exe()).parent().unwrap();
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", dir.display())
}

#[test]
fn from_a_subdirectory_the_repository_handoff_is_found() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let text = session_start(&repo.path().join("src"), "s").context("SessionStart");
    insta::assert_snapshot!("fresh_startup", ours(&text));
}

#[test]
fn each_worktree_has_its_own_handoff() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let wt = repo.path().join("wt-feature");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "feature",
        wt.to_str().unwrap(),
    ]);
    // The main worktree's handoff is not the linked worktree's.
    assert!(session_start(&wt, "a").stdout.is_empty());
    let linked = TestRepo::at(&wt);
    let mut content = handoff_content();
    content.goal = "Finish the feature branch".into();
    linked.save(content);
    let text = session_start(&wt.join("src"), "b").context("SessionStart");
    insta::assert_snapshot!("linked_worktree_startup", ours(&text));
    let main_text = session_start(repo.path(), "c").context("SessionStart");
    insta::assert_snapshot!("fresh_startup", ours(&main_text));
}

#[test]
fn the_configured_budget_bounds_the_startup_context() {
    let repo = TestRepo::pinned();
    let mut content = handoff_content();
    content.status.in_progress = (1..=30)
        .map(|i| format!("Work item number {i} with a description long enough to matter"))
        .collect();
    repo.save(content);
    let path = path_with_the_hooks_dir();
    let session_start =
        |cwd: &Path, session: &str| session_start_with(cwd, session, &[("PATH", &path)]);
    let full = session_start(repo.path(), "s1").context("SessionStart");
    assert!(
        full.chars().count() <= 1500,
        "default budget: {}",
        full.chars().count()
    );
    insta::assert_snapshot!("budget_default", ours(&full));
    repo.write(".handover/config.toml", "[startup]\nbudget_chars = 600\n");
    let short = session_start(repo.path(), "s2").context("SessionStart");
    assert!(short.chars().count() <= 600, "{}", short.chars().count());
    // The verdict, the goal and where the full handoff is are kept.
    insta::assert_snapshot!("budget_600", ours(&short));
    // A config that does not parse: the default budget, not a failure.
    repo.write(".handover/config.toml", "[startup\nbudget_chars = ");
    let fallback = session_start(repo.path(), "s3").context("SessionStart");
    assert_eq!(fallback, full);
}

#[test]
fn sessions_in_one_repository_keep_separate_state() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let tdir = tempfile::tempdir().unwrap();
    let t = claude_transcript(tdir.path(), 130_000);
    let prompt = |session: &str| {
        let run = run_hook(
            context_watch_exe(),
            &[],
            payload(json!({
                "session_id": session,
                "cwd": repo.path().to_str().unwrap(),
                "transcript_path": t.to_str().unwrap(),
                "hook_event_name": "UserPromptSubmit",
            })),
            &[],
        );
        run.assert_clean(session);
        run
    };
    prompt("session-a").context("UserPromptSubmit");
    assert!(prompt("session-a").stdout.is_empty());
    // Another session at the same fullness gets its own reminder.
    prompt("session-b").context("UserPromptSubmit");
    // Ids that are not file-name-safe stay apart too.
    prompt("../x/y").context("UserPromptSubmit");
    prompt("../x_y").context("UserPromptSubmit");
    let files = std::fs::read_dir(repo.store().sessions_dir())
        .unwrap()
        .count();
    assert_eq!(files, 5, "four sessions and the .gitignore");
}
