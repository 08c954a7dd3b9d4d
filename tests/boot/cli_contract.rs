//! What scripts and CI may rely on (docs/cli.md): the exit codes of every command and of the
//! `--check` modes, the versioned `--json` shapes, `--quiet`. Real processes on real git
//! repositories, with a temporary HOME.

use crate::support::repo;

use crate::support::repo::{handover_in_home as run_in, Run, TestRepo};
use crate::support::snapshot::placeholders;
use serde_json::Value;
use std::path::Path;

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout_str()).unwrap_or_else(|e| panic!("{e}: {}", r.stdout_str()))
}

#[test]
fn boot_check_exits_with_the_verdict() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let boot = |args: &[&str]| run_in(&r.path, home.path(), args);
    // No handoff.
    assert_eq!(boot(&["boot", "--check"]).exit_code(), 6);
    assert_eq!(boot(&["boot"]).exit_code(), 0, "without --check: 0");
    assert_eq!(boot(&["boot", "--check", "--startup"]).exit_code(), 6);
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
        assert_eq!(boot(args).exit_code(), 0, "{args:?}");
    }
    // Drifted: one commit later.
    r.write("src/more.rs", "pub fn m() {}\n");
    r.commit_all("more");
    let drifted = boot(&["boot", "--check", "--json"]);
    assert_eq!(
        json(&drifted)["verdict"],
        "drifted",
        "{}",
        drifted.stdout_str()
    );
    assert_eq!(drifted.exit_code(), 3);
    assert_eq!(boot(&["boot"]).exit_code(), 0, "without --check: 0");
    // Stale: on another branch.
    r.git(&["checkout", "-q", "-b", "elsewhere"]);
    let stale = boot(&["boot", "--check", "--json"]);
    assert_eq!(json(&stale)["verdict"], "stale", "{}", stale.stdout_str());
    assert_eq!(stale.exit_code(), 4);
    // Damaged beyond recovery.
    // Damaged beyond recovery: no usable state.json, and no copy to recover from.
    std::fs::write(r.path.join(".handover/state.json"), "{").unwrap();
    std::fs::remove_file(r.path.join("handover.md")).unwrap();
    std::fs::remove_file(r.path.join(".handover/journal.jsonl")).unwrap();
    let _ = std::fs::remove_dir_all(r.path.join(".handover/archive"));
    let damaged = boot(&["boot", "--check"]);
    assert_eq!(damaged.exit_code(), 7, "{}", damaged.stdout_str());
    // Refused: `.handover` is a link.
    std::fs::remove_dir_all(r.path.join(".handover")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), r.path.join(".handover")).unwrap();
    assert_eq!(boot(&["boot", "--check"]).exit_code(), 8);
    assert_eq!(
        boot(&["boot"]).exit_code(),
        1,
        "without --check: 1, as before"
    );
}

#[test]
fn status_check_exits_3_when_something_is_to_fix() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    // Not installed for any agent: a problem.
    let s = run_in(&r.path, home.path(), &["status", "--check"]);
    assert_eq!(s.exit_code(), 3, "{}", s.stdout_str());
    let home_dir = home.path().display().to_string();
    insta::assert_snapshot!(
        "status_check_with_a_problem",
        placeholders(&r.path, &s.stdout_str().replace(&home_dir, "[HOME]"))
    );
    assert_eq!(run_in(&r.path, home.path(), &["status"]).exit_code(), 0);
    let j = run_in(&r.path, home.path(), &["status", "--check", "--json"]);
    assert_eq!(j.exit_code(), 3);
    let v = json(&j);
    assert_eq!(v["version"], 1);
    assert!(!v["problems"].as_array().unwrap().is_empty());
}

#[test]
fn json_shapes_are_versioned_for_every_reporting_command() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_handover")).parent().unwrap();
    let bin = bin.to_string_lossy().into_owned();
    let go = |args: &[&str]| {
        let out = run_in(&r.path, home.path(), args);
        assert_eq!(
            out.exit_code(),
            0,
            "{args:?}: {}{}",
            out.stdout_str(),
            out.stderr_str()
        );
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
    assert_eq!(
        placeholders(&r.path, d["archived"].as_str().unwrap()),
        "[REPO]/.handover/archive/[STAMP].json"
    );
    let d = go(&["done", "--json"]);
    assert_eq!(d["archived"], Value::Null);
    let a = go(&["ack", "--json"]);
    assert_eq!(a["acknowledged"], false);
    assert_eq!(a["reason"], "no handoff");
}

#[test]
fn quiet_prints_nothing_and_keeps_the_exit_code() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    for args in [
        &["--quiet", "write", "--goal", "g", "--next", "n"][..],
        &["boot", "-q"],
        &["status", "--quiet", "--json"],
        &["ack", "--quiet"],
    ] {
        let out = run_in(&r.path, home.path(), args);
        assert_eq!(out.stdout_str(), "", "{args:?}");
        assert_eq!(out.exit_code(), 0, "{args:?}: {}", out.stderr_str());
    }
    let out = run_in(&r.path, home.path(), &["status", "--check", "-q"]);
    assert_eq!((out.exit_code(), out.stdout_str().as_str()), (3, ""));
    // Errors still reach stderr.
    let out = run_in(
        &r.path,
        home.path(),
        &["-q", "-C", "/nonexistent/x", "boot"],
    );
    assert_eq!(out.exit_code(), 1);
    insta::assert_snapshot!("quiet_still_says_errors", out.stderr_str());
    let out = run_in(&r.path, home.path(), &["-q", "boot", "--no-such-flag"]);
    assert_eq!(out.exit_code(), 2);
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

/// The subcommands, as `handover --help` lists them (clap's own `help` left out).
fn subcommands(home: &Path) -> Vec<String> {
    let help = run_in(Path::new("/"), home, &["--help"]).stdout_str();
    let list = help.split("Commands:\n").nth(1).unwrap();
    let list = &list[..list.find("\n\n").unwrap()];
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// An option a command ignores is neither offered (help, completion scripts) nor accepted:
/// `-C` is global, but the commands that work on no repository refuse it, before or after the
/// subcommand, with a usage error that says so.
#[test]
fn dir_is_offered_and_accepted_only_where_it_does_something() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let dir = r.path.to_str().unwrap();
    let without_dir = ["demo", "completions", "trust-plugin"];
    let fish = run_in(&r.path, home.path(), &["completions", "fish"]).stdout_str();
    let all = subcommands(home.path());
    assert!(all.len() >= 13, "{all:?}");
    for name in &all {
        let help = run_in(&r.path, home.path(), &[name, "--help"]).stdout_str();
        let offered_in_help = help.contains("--dir <DIR>");
        let completed = fish.lines().any(|l| {
            l.contains(&format!("__fish_handover_using_subcommand {name}\""))
                && l.contains("-l dir")
        });
        let takes_dir = !without_dir.contains(&name.as_str());
        assert_eq!(offered_in_help, takes_dir, "{name} --help:\n{help}");
        assert_eq!(completed, takes_dir, "{name} in the fish completions");
    }
    let mut refusals = String::new();
    for name in without_dir {
        let mut args = vec![name];
        if name == "completions" {
            args.push("bash");
        }
        for before in [true, false] {
            let mut line = args.clone();
            if before {
                line.splice(0..0, ["-C", dir]);
            } else {
                line.extend(["-C", dir]);
            }
            let out = run_in(&r.path, home.path(), &line);
            assert_eq!(out.exit_code(), 2, "{line:?}: {}", out.stderr_str());
            refusals.push_str(&format!("> {line:?}\n{}", out.stderr_str()));
            assert_eq!(out.stdout_str(), "", "{line:?}");
        }
    }
    insta::assert_snapshot!("dir_refused", placeholders(&r.path, &refusals));
    // Where it does something it still works in both places.
    for line in [["-C", dir, "status"], ["status", "-C", dir]] {
        let out = run_in(Path::new("/"), home.path(), &line);
        assert_eq!(out.exit_code(), 0, "{line:?}: {}", out.stderr_str());
    }
    // Completions no longer need a usable current directory.
    let gone = tempfile::tempdir().unwrap();
    let cwd = gone.path().join("removed");
    std::fs::create_dir(&cwd).unwrap();
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "cd \"$1\" && rmdir \"$1\" && exec \"$2\" completions bash",
        ])
        .arg("sh")
        .arg(&cwd)
        .arg(env!("CARGO_BIN_EXE_handover"))
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(!cwd.exists());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Options that would do nothing in combination are refused as bad usage (exit 2), with the
/// reason, and nothing is written.
#[test]
fn options_that_would_do_nothing_together_are_refused() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(r.path.join("h.json"), r#"{"goal": "g"}"#).unwrap();
    let mut said = String::new();
    for args in [
        &["boot", "--startup", "--json"][..],
        &["write", "--fresh", "--from", "h.json"],
        &["install", "--codex-bin", "/c"],
        &["install", "--claude", "--trust"],
        &["install", "--gemini", "--trust", "--codex-bin", "/c"],
        &["install", "--claude", "--enable-codex-hooks"],
    ] {
        let out = run_in(&r.path, home.path(), args);
        assert_eq!(out.exit_code(), 2, "{args:?}: {}", out.stderr_str());
        said.push_str(&format!("> {args:?}\n{}", out.stderr_str()));
        assert!(!r.path.join(".claude").exists() && !r.path.join("handover.md").exists());
    }
    // The whole of each refusal, clap's usage lines included.
    insta::assert_snapshot!("refused_combinations", placeholders(&r.path, &said));
}

/// Every client handover supports has its own switch in install and uninstall, and every help
/// text that names the clients names each of them (by the name its switch gives it), so a new
/// client cannot be added with help that still lists the old ones.
#[test]
fn help_texts_name_every_supported_client() {
    let home = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| run_in(Path::new("/"), home.path(), args).stdout_str();
    let install = help(&["install", "--help"]);
    let uninstall = help(&["uninstall", "--help"]);
    let top = help(&["--help"]);
    let install_line = top
        .lines()
        .find(|l| l.trim_start().starts_with("install "))
        .unwrap()
        .to_string();
    let about = install.lines().next().unwrap().to_string();
    let write = help(&["write", "--help"]);
    let agent_line = write
        .lines()
        .find(|l| l.trim_start().starts_with("--agent <AGENT>"))
        .unwrap()
        .to_string();
    for agent in handover_clients::Agent::ALL {
        assert!(
            agent_line.contains(&format!(" {}", agent.as_str())),
            "`write --help` does not name {agent}: {agent_line}"
        );
        let switch = format!("--{}\n", agent.as_str());
        assert!(uninstall.contains(&switch), "uninstall has no {switch}");
        // `--claude` then, on the next line, `Claude Code (every agent when none is named)`.
        let at = install
            .find(&format!("      {switch}"))
            .unwrap_or_else(|| panic!("install has no {switch}:\n{install}"));
        let described = install[at..].lines().nth(1).unwrap().trim();
        let name = described.split(" (").next().unwrap();
        assert_eq!(
            name,
            handover_clients::of(agent).display_name,
            "{switch}'s help names its client differently"
        );
        for (what, text) in [
            ("`handover --help` (install)", &install_line),
            ("`install --help`", &about),
        ] {
            assert!(text.contains(name), "{what} does not name {name}: {text}");
        }
        // `--scope`'s values name the client's hooks file in each scope.
        let client = handover_clients::of(agent);
        let user_dir = client
            .user_dir(&handover_clients::UserDirs::under(Path::new("~")))
            .unwrap();
        for (value, scope) in [
            ("project", handover_clients::Scope::Project),
            ("user", handover_clients::Scope::User),
        ] {
            let file = client.hooks_file(scope, Path::new(""), &user_dir);
            let line = install
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("- {value}:")))
                .unwrap_or_else(|| panic!("install --help has no --scope {value}:\n{install}"));
            assert!(
                line.contains(&file.display().to_string()),
                "--scope {value} does not name {}: {line}",
                file.display()
            );
        }
    }
}

/// `share` asks before it changes `.git/config`; with `--quiet` the change and the question
/// would go to a silenced stdout, so on a terminal it does not wait for an answer to a question
/// nobody saw: it changes nothing and says how to go on.
#[test]
fn quiet_share_on_a_terminal_asks_nothing_and_changes_nothing() {
    let r = TestRepo::with_commit();
    let home = tempfile::tempdir().unwrap();
    let remote = r.sibling("origin.git");
    repo::git(
        r.path.parent().unwrap(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    let config = std::fs::read(r.path.join(".git/config")).unwrap();
    // `script` gives the command a terminal; its own stdin is empty, so a prompt would read
    // an end of file (and, before, say nothing at all).
    let line = format!("{} -q share", env!("CARGO_BIN_EXE_handover"));
    let out = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(&r.path)
        .env("HOME", home.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(!shown.contains("Apply this change?"), "{shown}");
    // Through a terminal (`script`): its line ends are CRLF.
    insta::assert_snapshot!(
        "quiet_share_on_a_terminal",
        placeholders(&r.path, &shown.replace("\r\n", "\n"))
    );
    assert_eq!(std::fs::read(r.path.join(".git/config")).unwrap(), config);
}
