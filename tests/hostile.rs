//! A hostile repository against the `handover` command: links under `.handover/` and in place
//! of handover.md or .gitignore, a committed handoff, a crafted state.json with a valid
//! checksum, secrets in ids and branch names. Nothing outside the repository is written, the
//! refusal is said clearly, nothing printed drives a terminal, and no secret reaches the files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::Repo;
use handover_core::model::{Content, Handoff};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_handover");
const TOKEN: &str = "ghp_7Kq2Zr9Xw4Lm8Tb1Nc6Vp3Hd5Js0Fg2Ya8QeU";

fn handover(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CLAUDECODE")
        .env("HANDOVER_AGENT", "test")
        .stdin(Stdio::null())
        .output()
        .expect("handover runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn write(dir: &Path, goal: &str) -> Output {
    handover(dir, &["write", "--goal", goal, "--in-progress", "step"])
}

/// A directory outside the repository with a file standing in for a shell rc file.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let rc = dir.path().join("bashrc");
    fs::write(&rc, "# rc\n").unwrap();
    (dir, rc)
}

/// The issue's chain: a committed journal link pointed at a shell rc file, and a branch name
/// carrying a command. Before the fix, `write` appended the branch name to the rc file.
#[test]
fn a_journal_link_is_refused_by_write_ack_and_done() {
    let (_out, rc) = outside();
    let repo = Repo::with_commit();
    repo.git(&["checkout", "-q", "-b", "x$(touch${IFS}pwned)"]);
    fs::create_dir(repo.path.join(".handover")).unwrap();
    symlink(&rc, repo.path.join(".handover/journal.jsonl")).unwrap();
    let out = write(&repo.path, "Ship it");
    assert!(!out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("journal.jsonl is a symbolic link"), "{said}");
    assert!(said.contains("will not use it"), "{said}");
    for args in [&["ack"][..], &["done"], &["boot"]] {
        let out = handover(&repo.path, args);
        assert!(!out.status.success(), "{args:?}: {}", text(&out));
    }
    assert_eq!(fs::read_to_string(&rc).unwrap(), "# rc\n");
    assert!(!repo.path.join(".handover/state.json").exists());
}

#[test]
fn a_dangling_lock_link_creates_nothing() {
    let (out_dir, _) = outside();
    let repo = Repo::with_commit();
    fs::create_dir(repo.path.join(".handover")).unwrap();
    let target = out_dir.path().join("created");
    symlink(&target, repo.path.join(".handover/journal.lock")).unwrap();
    assert!(!write(&repo.path, "Ship it").status.success());
    fs::remove_file(repo.path.join(".handover/journal.lock")).unwrap();
    symlink(&target, repo.path.join(".handover/lock")).unwrap();
    assert!(!write(&repo.path, "Ship it").status.success());
    assert!(
        !target.exists(),
        "a file was created through a dangling link"
    );
}

#[test]
fn links_to_the_store_or_handover_md_are_never_written_through() {
    let (out_dir, rc) = outside();
    // handover.md -> a file outside.
    let repo = Repo::with_commit();
    symlink(&rc, repo.path.join("handover.md")).unwrap();
    let out = write(&repo.path, "Ship it");
    assert!(!out.status.success());
    assert!(
        text(&out).contains("handover.md is a symbolic link"),
        "{}",
        text(&out)
    );
    assert_eq!(fs::read_to_string(&rc).unwrap(), "# rc\n");

    // .handover -> a directory outside.
    let repo = Repo::with_commit();
    symlink(out_dir.path(), repo.path.join(".handover")).unwrap();
    let out = write(&repo.path, "Ship it");
    assert!(!out.status.success());
    assert!(
        text(&out).contains(".handover is a symbolic link"),
        "{}",
        text(&out)
    );
    let names: Vec<_> = fs::read_dir(out_dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "something was written outside: {names:?}");

    // .gitignore -> a file outside: the guard does not write through it.
    let repo = Repo::with_commit();
    symlink(&rc, repo.path.join(".gitignore")).unwrap();
    let out = write(&repo.path, "Ship it");
    assert!(
        text(&out).contains(".gitignore is not a plain file"),
        "{}",
        text(&out)
    );
    assert_eq!(fs::read_to_string(&rc).unwrap(), "# rc\n");
}

/// `status` says what is refused and how to fix it; `boot --json` carries the refusal.
#[test]
fn status_and_boot_name_the_refusal() {
    let (out_dir, _) = outside();
    let repo = Repo::with_commit();
    fs::create_dir(repo.path.join(".handover")).unwrap();
    symlink(out_dir.path(), repo.path.join(".handover/archive")).unwrap();
    let status = text(&handover(&repo.path, &["status"]));
    assert!(status.contains("handoff: REFUSED"), "{status}");
    assert!(status.contains("archive is a symbolic link"), "{status}");
    let boot: Value =
        serde_json::from_slice(&handover(&repo.path, &["boot", "--json"]).stdout).unwrap();
    assert!(
        boot["refused"].as_str().unwrap().contains("archive"),
        "{boot}"
    );
}

/// A checksum-valid state.json full of terminal escapes: `boot` and `status` print none.
#[test]
fn boot_and_status_print_no_escape_sequences_from_a_crafted_handoff() {
    let repo = Repo::with_commit();
    let esc = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31m";
    let mut h = Handoff {
        schema_version: handover_core::model::SCHEMA_VERSION,
        id: format!("id{esc}"),
        created_at: format!("2026-11-22T02:00:00Z{esc}"),
        agent: Some(format!("agent{esc}")),
        git: handover_core::git::snapshot(&repo.path).unwrap(),
        content: Content {
            goal: format!("Ship {esc}it\u{9b}2J \u{202E}gnp.exe"),
            narrative: Some(format!("line\r{esc}over")),
            next_action: Some(format!("next{esc}")),
            blockers: vec![format!("b{esc}")],
            ..Content::default()
        },
        ..Handoff::default()
    };
    if let Some(g) = &mut h.git {
        g.branch = Some(format!("main{esc}"));
    }
    handover_core::store::seal(&mut h);
    fs::create_dir(repo.path.join(".handover")).unwrap();
    fs::write(
        repo.path.join(".handover/state.json"),
        serde_json::to_vec(&h).unwrap(),
    )
    .unwrap();
    for args in [&["boot"][..], &["boot", "--startup"], &["status"], &["ack"]] {
        let out = handover(&repo.path, args);
        let all = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        for bad in ["\u{1b}", "\u{7}", "\u{9b}", "\u{202E}", "\r"] {
            assert!(
                !String::from_utf8_lossy(&all).contains(bad),
                "{args:?} printed {bad:?}: {:?}",
                String::from_utf8_lossy(&all)
            );
        }
        assert!(
            String::from_utf8_lossy(&all).contains("Ship it"),
            "{args:?}"
        );
    }
}

#[test]
fn a_committed_handoff_is_foreign_in_boot_and_status() {
    let upstream = Repo::with_commit();
    let out = write(&upstream.path, "Ship it");
    assert!(out.status.success(), "{}", text(&out));
    upstream.git(&["add", "-f", ".handover/state.json"]);
    upstream.git(&["commit", "-q", "-m", "share"]);
    let clone = upstream.sibling("clone");
    upstream.git(&[
        "clone",
        "-q",
        upstream.path.to_str().unwrap(),
        clone.to_str().unwrap(),
    ]);

    let boot = text(&handover(&clone, &["boot"]));
    assert!(
        boot.contains("Foreign: this handoff was not written in this working tree"),
        "{boot}"
    );
    assert!(boot.contains("Verdict: UNVERIFIED"), "{boot}");
    assert!(boot.contains("[foreign] This handoff was not written in this working tree: git has this .handover/state.json in the current commit"), "{boot}");
    let startup = text(&handover(&clone, &["boot", "--startup"]));
    assert!(!startup.contains("a previous session left"), "{startup}");
    assert!(
        startup.contains("treat it as foreign and unverified"),
        "{startup}"
    );
    let status = text(&handover(&clone, &["status"]));
    assert!(status.contains("FOREIGN"), "{status}");
    let json: Value =
        serde_json::from_slice(&handover(&clone, &["boot", "--json"]).stdout).unwrap();
    assert_eq!(json["verdict"], "unverified");
    assert_eq!(json["reasons"][0]["code"], "foreign");

    // A handoff written here is this tree's own again.
    assert!(write(&clone, "Ship it here").status.success());
    let json: Value =
        serde_json::from_slice(&handover(&clone, &["boot", "--json"]).stdout).unwrap();
    assert_eq!(json["verdict"], "fresh", "{json}");
}

/// `--session`, `--agent` and the branch name are text like any other: no token reaches
/// state.json or the journal, and the redacted branch still verifies as fresh.
#[test]
fn ids_names_and_branches_are_redacted_before_they_are_stored() {
    let repo = Repo::with_commit();
    repo.git(&["checkout", "-q", "-b", &format!("fix/{TOKEN}")]);
    let out = handover(
        &repo.path,
        &[
            "write",
            "--goal",
            "Ship it",
            "--session",
            &format!("s {TOKEN}"),
            "--agent",
            &format!("a {TOKEN}"),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let ack = handover(&repo.path, &["ack", "--session", &format!("s {TOKEN}")]);
    assert!(ack.status.success(), "{}", text(&ack));
    for file in [
        ".handover/state.json",
        ".handover/journal.jsonl",
        "handover.md",
    ] {
        let content = fs::read_to_string(repo.path.join(file)).unwrap();
        assert!(!content.contains(TOKEN), "{file}: {content}");
    }
    let state = fs::read_to_string(repo.path.join(".handover/state.json")).unwrap();
    assert!(state.contains("fix/[REDACTED:github_token]"), "{state}");
    let json: Value =
        serde_json::from_slice(&handover(&repo.path, &["boot", "--json"]).stdout).unwrap();
    assert_eq!(json["verdict"], "fresh", "{json}");
}

/// Control characters are stripped on write as on load (terminal escapes are refused as pasted
/// output, as before).
#[test]
fn control_characters_are_stripped_on_write() {
    let repo = Repo::with_commit();
    let out = handover(
        &repo.path,
        &[
            "write",
            "--goal",
            "Ship\u{202E} it\r",
            "--blocker",
            "a\u{7}b",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let state: Value =
        serde_json::from_str(&fs::read_to_string(repo.path.join(".handover/state.json")).unwrap())
            .unwrap();
    assert_eq!(state["goal"], "Ship it\n");
    assert_eq!(state["blockers"][0], "ab");
}

/// On a shared machine, another user's `.handover/` is not ours to read or write. (Needs root
/// to create one; skipped, and said so, otherwise.)
#[test]
fn another_users_store_is_refused() {
    let uid = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        eprintln!("skipped: needs root to give a directory to another user");
        return;
    }
    let repo = Repo::with_commit();
    assert!(write(&repo.path, "Ship it").status.success());
    std::os::unix::fs::chown(repo.path.join(".handover"), Some(65534), Some(65534)).unwrap();
    let status = text(&handover(&repo.path, &["status"]));
    assert!(
        status.contains("owned by another user (uid 65534"),
        "{status}"
    );
    let out = write(&repo.path, "Ship it again");
    assert!(!out.status.success());
    assert!(
        text(&out).contains("owned by another user"),
        "{}",
        text(&out)
    );
}
