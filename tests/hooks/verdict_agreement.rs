//! The SessionStart hook tells what `boot` tells: its quick verdict agrees with the full one
//! where the handoff's own facts decide it (uncommitted work the handoff listed that was since
//! reverted: drifted; a repository git refuses to read because another user owns it:
//! unverified), and it says when handover.md holds edits that are not recorded.

use crate::support::exe::session_start_exe;
use crate::support::hook::*;
use handover_verify as verify;
use serde_json::json;
use std::process::Command;

fn session_start_context(repo: &TestRepo) -> String {
    let run = run_hook(
        session_start_exe(),
        &["--agent", "claude"],
        payload(json!({
            "session_id": "s1",
            "hook_event_name": "SessionStart",
            "source": "startup",
            "cwd": repo.path().to_str().unwrap(),
        })),
        &[],
    );
    run.assert_clean("SessionStart");
    run.context("SessionStart")
}

#[test]
fn reverted_uncommitted_work_is_drift_for_the_hook_too() {
    let repo = TestRepo::pinned();
    repo.write("src/lib.rs", "pub fn f() { todo!() }\n");
    let h = repo.save_handoff();
    assert_eq!(h.git.as_ref().unwrap().dirty, ["src/lib.rs"]);
    repo.git(&["checkout", "--", "src/lib.rs"]);

    let full = verify::verify(repo.path(), &h);
    assert_eq!(full.verdict.as_str(), "drifted", "{full:#?}");
    let text = session_start_context(&repo);
    insta::assert_snapshot!("reverted_work_drifted", ours(&text));
}

#[test]
fn a_repository_owned_by_another_user_is_unverified_for_the_hook_too() {
    let repo = TestRepo::pinned();
    let h = repo.save_handoff();
    let root = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&root.stdout).trim() != "0" {
        // Only root can hand a directory to another user; git's ownership check is the same.
        eprintln!("skipped: needs root to chown the repository");
        return;
    }
    let ok = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(repo.path())
        .status()
        .unwrap();
    assert!(ok.success());
    // The handoff's own directory stays ours (another user's `.handover/` is refused outright,
    // see tests/boot/hostile.rs): only git's ownership check is at stake here.
    let ok = Command::new("chown")
        .args(["-R", "0:0"])
        .arg(repo.path().join(".handover"))
        .status()
        .unwrap();
    assert!(ok.success());

    let full = verify::verify(repo.path(), &h);
    assert_eq!(full.verdict.as_str(), "unverified", "{full:#?}");
    let text = session_start_context(&repo);
    insta::assert_snapshot!(
        "another_users_repository",
        ours(&text).replace(&repo.path().display().to_string(), "[REPO]")
    );
    // Hand it back so the temporary directory can be removed.
    let _ = Command::new("chown")
        .args(["-R", "0:0"])
        .arg(repo.path())
        .status();
}

#[test]
fn the_hook_says_when_handover_md_holds_unrecorded_edits() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    assert!(!session_start_context(&repo).contains("handover.md was edited"));
    let md = repo.path().join("handover.md");
    let mut text = std::fs::read_to_string(&md).unwrap();
    text = text.replacen(
        "Write the failing test",
        "Ask the user, then write the failing test",
        1,
    );
    std::fs::write(&md, text).unwrap();
    let context = session_start_context(&repo);
    insta::assert_snapshot!("edited_handover_md", ours(&context));
}
