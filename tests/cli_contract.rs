//! What scripts and CI may rely on (docs/cli.md): the exit codes of every command and of the
//! `--check` modes, the versioned `--json` shapes, `--quiet`. Real processes on real git
//! repositories, with a temporary HOME.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{handover_command as command, Repo};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(dir: &Path, home: &Path, args: &[&str]) -> Run {
    let out: Output = command(dir, args)
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("CARGO_HOME", home.join(".cargo"))
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn boot_check_exits_with_the_verdict() {
    let r = Repo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let boot = |args: &[&str]| run_in(&r.path, home.path(), args);
    // No handoff.
    assert_eq!(boot(&["boot", "--check"]).code, 6);
    assert_eq!(boot(&["boot"]).code, 0, "without --check: 0");
    assert_eq!(boot(&["boot", "--check", "--startup"]).code, 6);
    run_in(
        &r.path,
        home.path(),
        &["write", "--goal", "g", "--next", "n"],
    );
    // Fresh.
    for args in [
        &["boot", "--check"][..],
        &["boot", "--check", "--json"],
        &["boot", "--check", "--startup"],
    ] {
        assert_eq!(boot(args).code, 0, "{args:?}");
    }
    // Drifted: one commit later.
    r.write("src/more.rs", "pub fn m() {}\n");
    r.commit_all("more");
    let drifted = boot(&["boot", "--check", "--json"]);
    assert_eq!(json(&drifted)["verdict"], "drifted", "{}", drifted.stdout);
    assert_eq!(drifted.code, 3);
    assert_eq!(boot(&["boot"]).code, 0, "without --check: 0");
    // Stale: on another branch.
    r.git(&["checkout", "-q", "-b", "elsewhere"]);
    let stale = boot(&["boot", "--check", "--json"]);
    assert_eq!(json(&stale)["verdict"], "stale", "{}", stale.stdout);
    assert_eq!(stale.code, 4);
    // Damaged beyond recovery.
    // Damaged beyond recovery: no usable state.json, and no copy to recover from.
    std::fs::write(r.path.join(".handover/state.json"), "{").unwrap();
    std::fs::remove_file(r.path.join("handover.md")).unwrap();
    std::fs::remove_file(r.path.join(".handover/journal.jsonl")).unwrap();
    let _ = std::fs::remove_dir_all(r.path.join(".handover/archive"));
    let damaged = boot(&["boot", "--check"]);
    assert_eq!(damaged.code, 7, "{}", damaged.stdout);
    // Refused: `.handover` is a link.
    std::fs::remove_dir_all(r.path.join(".handover")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), r.path.join(".handover")).unwrap();
    assert_eq!(boot(&["boot", "--check"]).code, 8);
    assert_eq!(boot(&["boot"]).code, 1, "without --check: 1, as before");
}

#[test]
fn status_check_exits_3_when_something_is_to_fix() {
    let r = Repo::with_commit();
    let home = tempfile::tempdir().unwrap();
    // Not installed for any agent: a problem.
    let s = run_in(&r.path, home.path(), &["status", "--check"]);
    assert_eq!(s.code, 3, "{}", s.stdout);
    assert!(s.stdout.contains("To fix"), "{}", s.stdout);
    assert_eq!(run_in(&r.path, home.path(), &["status"]).code, 0);
    let j = run_in(&r.path, home.path(), &["status", "--check", "--json"]);
    assert_eq!(j.code, 3);
    let v = json(&j);
    assert_eq!(v["version"], 1);
    assert!(!v["problems"].as_array().unwrap().is_empty());
}

#[test]
fn json_shapes_are_versioned_for_every_reporting_command() {
    let r = Repo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
    let bin = bin.to_string_lossy().into_owned();
    let go = |args: &[&str]| {
        let out = run_in(&r.path, home.path(), args);
        assert_eq!(out.code, 0, "{args:?}: {}{}", out.stdout, out.stderr);
        let v = json(&out);
        assert_eq!(v["version"], 1, "{args:?}: {v}");
        v
    };
    let w = go(&["write", "--goal", "g", "--next", "n", "--json"]);
    let id = w["id"].as_str().unwrap().to_string();
    let b = go(&["boot", "--json"]);
    assert_eq!(b["verdict"], "fresh");
    let s = go(&["status", "--json"]);
    assert_eq!(s["handoff"]["present"], true);
    let a = go(&["ack", "--json"]);
    assert_eq!(
        (a["acknowledged"].clone(), a["handoff_id"].as_str()),
        (Value::Bool(true), Some(id.as_str()))
    );
    let i = go(&[
        "install",
        "--scope",
        "local",
        "--claude",
        "--hooks-dir",
        &bin,
        "--json",
    ]);
    assert_eq!(i["ok"], true);
    assert_eq!(i["portable"], false);
    let settings = r.path.join(".claude/settings.local.json");
    assert!(
        i["wrote"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str() == Some(settings.to_str().unwrap())),
        "{i}"
    );
    assert!(i["executables"]["handover-session-start"]
        .as_str()
        .unwrap()
        .ends_with("/handover-session-start"));
    let u = go(&["uninstall", "--scope", "local", "--claude", "--json"]);
    assert_eq!(u["ok"], true);
    assert!(!settings.exists());
    let d = go(&["done", "--json"]);
    assert!(d["archived"]
        .as_str()
        .unwrap()
        .contains(".handover/archive/"));
    let d = go(&["done", "--json"]);
    assert_eq!(d["archived"], Value::Null);
    let a = go(&["ack", "--json"]);
    assert_eq!(a["acknowledged"], false);
    assert_eq!(a["reason"], "no handoff");
}

#[test]
fn quiet_prints_nothing_and_keeps_the_exit_code() {
    let r = Repo::with_commit();
    let home = tempfile::tempdir().unwrap();
    for args in [
        &["--quiet", "write", "--goal", "g", "--next", "n"][..],
        &["boot", "-q"],
        &["status", "--quiet", "--json"],
        &["ack", "--quiet"],
    ] {
        let out = run_in(&r.path, home.path(), args);
        assert_eq!(out.stdout, "", "{args:?}");
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    }
    let out = run_in(&r.path, home.path(), &["status", "--check", "-q"]);
    assert_eq!((out.code, out.stdout.as_str()), (3, ""));
    // Errors still reach stderr.
    let out = run_in(
        &r.path,
        home.path(),
        &["-q", "-C", "/nonexistent/x", "boot"],
    );
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("is not a directory"), "{}", out.stderr);
    let out = run_in(&r.path, home.path(), &["-q", "boot", "--no-such-flag"]);
    assert_eq!(out.code, 2);
}

/// docs/cli.md lists every exit code the CLI uses, with the number the code returns.
#[test]
fn the_exit_code_table_in_the_docs_matches_the_code() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")).unwrap();
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli/exit.rs"))
            .unwrap();
    // `Name = N,` in exit.rs; `| N | ... |` rows in the docs.
    let mut codes: Vec<u32> = source
        .lines()
        .filter_map(|l| l.trim().split_once(" = "))
        .filter_map(|(_, n)| n.trim_end_matches(',').parse().ok())
        .collect();
    codes.sort();
    codes.dedup();
    assert_eq!(codes, (0..=8).collect::<Vec<_>>());
    for code in codes {
        assert!(
            docs.lines().any(|l| l.starts_with(&format!("| {code} |"))),
            "docs/cli.md has no row for exit code {code}"
        );
    }
}
