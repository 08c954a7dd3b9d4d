//! The command line on a messy machine: output that cannot be
//! written, bounded input, typos in -C, bare repositories, odd paths, odd JSON, a broken
//! config, the agent label, submodules. Real processes on real git repositories.

use crate::support::repo::{
    git, handover_command as command, handover_ok as ok, handover_run as run, TestRepo,
};
use crate::support::snapshot::placeholders;
use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Stdout then stderr of a run in `root`, as a snapshot pins them.
fn said(root: &Path, out: &Output) -> String {
    let text = format!(
        "{}--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        stderr(out)
    );
    placeholders(root, &text)
}

fn with_handoff() -> TestRepo {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    r
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let r = with_handoff();
    for args in [&["status"][..], &["boot"], &["boot", "--json"]] {
        let mut child = command(&r.path, args).spawn().unwrap();
        drop(child.stdout.take()); // the reader is gone before anything is printed
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}

#[test]
fn a_full_stdout_is_one_clear_error() {
    let r = with_handoff();
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = command(&r.path, &["boot"]).stdout(full).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("cannot write the output"), "{err}");
}

/// Every subcommand (and clap's own help and version output), with a stdout whose reader is
/// gone and with a full disk: never a panic (exit 101, a backtrace); a closed pipe ends
/// quietly, a full disk is one clear line and exit 1 when anything was printed.
#[test]
fn no_subcommand_panics_on_a_closed_or_full_stdout() {
    let home = tempfile::tempdir().unwrap();
    let machine = tempfile::tempdir().unwrap();
    let bin = machine.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    for exe in [
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        fs::write(bin.join(exe), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(bin.join(exe), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let bin = bin.to_string_lossy().into_owned();
    let sweep: Vec<Vec<&str>> = vec![
        vec!["write", "--goal", "g", "--next", "n"],
        vec!["write", "--completed", "c", "--json"],
        vec!["boot"],
        vec!["boot", "--json"],
        vec!["boot", "--startup"],
        vec!["status"],
        vec!["status", "--json"],
        vec!["ack"],
        vec!["search", "g"],
        vec!["search", "g", "--json"],
        vec!["install", "--all", "--dry-run", "--hooks-dir", &bin],
        vec![
            "install",
            "--scope",
            "local",
            "--claude",
            "--hooks-dir",
            &bin,
        ],
        vec!["uninstall", "--dry-run"],
        vec!["uninstall", "--scope", "local", "--claude"],
        vec!["trust-plugin", "--codex-bin", "/nonexistent/codex"],
        vec!["completions", "bash"],
        vec!["completions", "zsh"],
        vec!["completions", "fish"],
        vec!["--help"],
        vec!["--version"],
        vec!["write", "--help"],
        vec!["done"],
        vec!["demo"],
        vec!["help"],
        vec!["help", "status"],
        vec!["boot", "--check"],
        vec!["status", "--check"],
        vec!["install", "--all", "--hooks-dir", &bin, "--scope", "local"],
        vec!["uninstall"],
        // Handoffs through a git remote (`origin`, a bare repository beside the clone): each
        // one doing its work and printing it; then a remote that does not exist (a failure,
        // on stderr). `done` above archived the handoff: a new one first.
        vec!["write", "--goal", "travel", "--next", "n"],
        vec!["push"],
        vec!["push", "--force"],
        vec!["pull"],
        vec!["pull", "--adopt"],
        vec!["share", "--yes"],
        vec!["share", "--off", "--yes"],
        vec!["share"],
        vec!["push", "nowhere"],
        vec!["pull", "nowhere"],
        vec!["share", "nowhere", "--yes"],
        // The history of all the above.
        vec!["log", "--all"],
        vec!["log", "--all", "--json"],
        vec!["log", "--stats"],
        vec!["show", "-1"],
        // No client (standard input at its end): no session, so nothing on stdout
        // (tests/boot/mcp.rs speaks to it).
        vec!["mcp"],
    ];
    // Every subcommand `handover --help` lists is in the sweep.
    let help =
        String::from_utf8(command(home.path(), &["--help"]).output().unwrap().stdout).unwrap();
    let commands = help.split("Commands:\n").nth(1).unwrap();
    for name in commands[..commands.find("\n\n").unwrap()]
        .lines()
        .filter_map(|l| l.split_whitespace().next())
    {
        assert!(
            sweep.iter().any(|args| args[0] == name),
            "`handover {name}` is missing from the sweep"
        );
    }
    for full in [false, true] {
        let r = with_handoff();
        let remote = r.sibling("origin.git");
        git(
            r.path.parent().unwrap(),
            &["init", "-q", "--bare", remote.to_str().unwrap()],
        );
        r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
        r.git(&["push", "-q", "-u", "origin", "main"]);
        for args in &sweep {
            let mut cmd = command(&r.path, args);
            cmd.env("HOME", home.path()).env("TMPDIR", home.path());
            let out = if full {
                let dev_full = fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap();
                cmd.stdout(dev_full).output().unwrap()
            } else {
                let mut child = cmd.spawn().unwrap();
                drop(child.stdout.take());
                child.wait_with_output().unwrap()
            };
            let err = stderr(&out);
            let what = format!(
                "{args:?} (stdout {}): {err}",
                if full { "/dev/full" } else { "closed" }
            );
            assert!(
                !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
                "{what}"
            );
            assert_ne!(out.status.code(), Some(101), "{what}");
            assert!(out.status.code().is_some(), "killed by a signal: {what}");
            if args.contains(&"nowhere") || args[0] == "mcp" {
                assert_eq!(out.status.code(), Some(1), "{what}");
            } else if matches!(args[0], "push" | "pull") || args.contains(&"--yes") {
                // Through a real remote they did their work; only the output could not go.
                assert_eq!(out.status.code(), Some(if full { 1 } else { 0 }), "{what}");
            }
            // A remote that does not exist: refused before anything is printed.
            let prints_nothing = args.contains(&"nowhere") || args[0] == "mcp";
            if full && !prints_nothing {
                // Everything else here prints something: a full disk is said, in one line.
                assert!(
                    err.contains("cannot write the output") || err.contains("No space left"),
                    "{what}"
                );
            } else {
                assert!(!err.contains("Broken pipe"), "{what}");
            }
        }
    }
}

#[test]
fn demo_removes_its_repository_even_when_its_output_is_cut() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = command(tmp.path(), &["demo"])
        .env("TMPDIR", tmp.path())
        .spawn()
        .unwrap();
    // The reader is gone before the first line: the tour stops on a closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    let left: Vec<_> = fs::read_dir(tmp.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn non_utf8_paths_do_not_panic_json_output() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(std::ffi::OsStr::from_bytes(b"r\xffepo"));
    fs::create_dir(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    fs::write(dir.join("a.txt"), "a\n").unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "i"]);
    let w: Value = serde_json::from_str(&ok(&dir, &["write", "--goal", "g", "--json"])).unwrap();
    assert!(w["id"].is_string());
    ok(&dir, &["write", "--completed", "x", "--json"]);
    let b: Value = serde_json::from_str(&ok(&dir, &["boot", "--json"])).unwrap();
    assert!(b["root"].as_str().unwrap().contains("r\u{fffd}epo"), "{b}");
    let s: Value = serde_json::from_str(&ok(&dir, &["status", "--json"])).unwrap();
    assert!(s["root"].is_string());
}

#[test]
fn input_is_bounded() {
    let r = TestRepo::with_commit();
    let started = Instant::now();
    // A device (or FIFO) is refused unread by the read gate, naming the way to pipe input.
    let out = run(&r.path, &["write", "--from", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("input_a_device", said(&r.path, &out));
    // A regular file over the cap: refused after reading at most the cap.
    let big = r.path.join("big.json");
    std::fs::write(&big, vec![b' '; 5 * 1024 * 1024]).unwrap();
    let out = run(&r.path, &["write", "--from", big.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("input_a_big_file", said(&r.path, &out));
    assert!(started.elapsed() < Duration::from_secs(20));

    // Standard input: 5 MiB of JSON-looking bytes are refused unread beyond the cap.
    let mut child = command(&r.path, &["write", "--from", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b' '; 1024 * 1024];
        for _ in 0..5 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("input_a_big_stdin", said(&r.path, &out));
    assert!(!r.path.join(".handover").exists(), "nothing written");
}

/// Runs `handover args`, killing it after `limit`; Some(output) when it finished in time.
fn within(dir: &Path, args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = command(dir, args).spawn().unwrap();
    let start = Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn a_fifo_state_json_does_not_hang_write() {
    let r = TestRepo::with_commit();
    fs::create_dir(r.path.join(".handover")).unwrap();
    let fifo = r.path.join(".handover/state.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = within(
        &r.path,
        &["write", "--goal", "g", "--next", "n"],
        Duration::from_secs(20),
    )
    .expect("write finishes instead of waiting on the FIFO");
    // Not ours, so refused with its name (hostile-repository rules), never opened.
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("fifo_state_json", said(&r.path, &out));
}

#[test]
fn a_typo_in_dash_c_creates_nothing() {
    let r = TestRepo::with_commit();
    let out = run(&r.path, &["-C", "sub/typo", "write", "--goal", "g"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!("dash_c_typo", said(&r.path, &out));
    assert!(!r.path.join("sub").exists());
    assert!(!r.path.join(".handover").exists());
}

#[test]
fn a_bare_repository_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let bare = tmp.path().join("bare.git");
    git(
        tmp.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    let before: Vec<_> = fs::read_dir(&bare)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    let mut all = String::new();
    for args in [&["write", "--goal", "g"][..], &["done"], &["status"]] {
        let out = run(&bare, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        all.push_str(&format!("> {args:?}\n{}", said(&bare, &out)));
    }
    insta::assert_snapshot!("bare_repository", all);
    let after: Vec<_> = fs::read_dir(&bare)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(before, after, "nothing written into the bare repository");
}

#[test]
fn a_handover_file_is_not_a_damaged_handoff() {
    let r = TestRepo::with_commit();
    fs::write(r.path.join(".handover"), "not our directory\n").unwrap();
    let out = run(&r.path, &["boot"]);
    insta::assert_snapshot!("handover_file_boot", said(&r.path, &out));
    // status names what HOME has installed too: only its lines on the store are ours here.
    let out = run(&r.path, &["status"]);
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(
        !all.contains("damaged") && !all.contains("DAMAGED"),
        "status: {all}"
    );
    assert!(all.contains(".handover is a file"), "status: {all}");
}

#[test]
fn an_invalid_config_is_reported_by_boot_and_status() {
    let r = with_handoff();
    fs::write(
        r.path.join(".handover/config.toml"),
        "[startup]\nbudget_chars = \"lots\"\n",
    )
    .unwrap();
    let boot = ok(&r.path, &["boot"]);
    insta::assert_snapshot!("invalid_config_boot", placeholders(&r.path, &boot));
    let startup = ok(&r.path, &["boot", "--startup"]);
    insta::assert_snapshot!("invalid_config_startup", placeholders(&r.path, &startup));
    let json: Value = serde_json::from_str(&ok(&r.path, &["boot", "--json"])).unwrap();
    insta::assert_snapshot!(
        "invalid_config_json_problem",
        placeholders(&r.path, json["config_problem"].as_str().unwrap())
    );
    let status = ok(&r.path, &["status"]);
    assert!(status.contains("config: INVALID"), "{status}");
}

#[test]
fn only_the_variables_codex_sets_label_a_write_as_codex() {
    let r = TestRepo::with_commit();
    let agent = |env: &[(&str, &str)]| {
        let mut c = command(&r.path, &["write", "--fresh", "--goal", "g", "--json"]);
        c.env_remove("HANDOVER_AGENT");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let state: Value =
            serde_json::from_slice(&fs::read(r.path.join(".handover/state.json")).unwrap())
                .unwrap();
        state["agent"].as_str().map(str::to_string)
    };
    assert_eq!(
        agent(&[("CODEX_HOME", "/tmp/x"), ("CODEX_API_KEY", "k")]),
        None
    );
    assert_eq!(
        agent(&[("CODEX_THREAD_ID", "019a-thread")]).as_deref(),
        Some("codex")
    );
    // GitHub Copilot CLI marks its shell commands with COPILOT_CLI=1; another value is not it.
    assert_eq!(agent(&[("COPILOT_CLI", "1")]).as_deref(), Some("copilot"));
    assert_eq!(agent(&[("COPILOT_CLI", "0")]), None);
}

#[test]
fn only_qwen_codes_own_mark_labels_a_write_as_qwen() {
    let r = TestRepo::with_commit();
    let agent = |env: &[(&str, &str)]| {
        let mut c = command(&r.path, &["write", "--fresh", "--goal", "g", "--json"]);
        c.env_remove("HANDOVER_AGENT").env_remove("QWEN_CODE");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let state: Value =
            serde_json::from_slice(&fs::read(r.path.join(".handover/state.json")).unwrap())
                .unwrap();
        state["agent"].as_str().map(str::to_string)
    };
    // A person's own Qwen settings say nothing about who runs this.
    assert_eq!(
        agent(&[
            ("QWEN_HOME", "/tmp/q"),
            ("QWEN_CODE_MODEL", "qwen3-coder-plus")
        ]),
        None
    );
    // What Qwen Code 0.24.4 sets for the commands its shell tool runs.
    assert_eq!(
        agent(&[("QWEN_CODE", "1"), ("QWEN_CODE_SESSION_ID", "828136ea")]).as_deref(),
        Some("qwen")
    );
}

#[test]
fn json_of_the_wrong_shape_gets_a_json_error() {
    let r = TestRepo::with_commit();
    let write_stdin = |text: &str| {
        let mut child = command(&r.path, &["write", "--from", "-"])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let mut all = String::new();
    for text in ["null", "[1, 2]", "42", " [{\"goal\": \"g\"}]"] {
        let out = write_stdin(text);
        assert_eq!(out.status.code(), Some(1), "{text}");
        all.push_str(&format!("> {text}\n{}", said(&r.path, &out)));
    }
    insta::assert_snapshot!("json_of_the_wrong_shape", all);
    let out = write_stdin("\u{feff}{\"goal\": \"with a byte order mark\"}");
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_first_write_in_a_submodule_leaves_the_superproject_clean() {
    let inner = TestRepo::with_commit();
    let outer = TestRepo::with_commit();
    git(
        &outer.path,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            inner.path.to_str().unwrap(),
            "sub",
        ],
    );
    outer.commit_all("add the submodule");
    let sub = outer.path.join("sub");
    let out = ok(&sub, &["write", "--goal", "g", "--next", "n"]);
    let out = placeholders(&sub, &out).replace(&outer.path.display().to_string(), "[OUTER]");
    insta::assert_snapshot!("submodule_first_write", out);
    assert_eq!(
        outer.git(&["status", "--porcelain"]),
        "",
        "superproject clean"
    );
    assert_eq!(git(&sub, &["status", "--porcelain"]), "", "submodule clean");
    let status = ok(&sub, &["status"]);
    assert!(status.contains("private: yes"), "{status}");
}

#[test]
fn a_fifo_config_is_reported_not_waited_on() {
    let r = with_handoff();
    let fifo = r.path.join(".handover/config.toml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = within(&r.path, &["boot"], Duration::from_secs(20)).expect("boot finishes");
    insta::assert_snapshot!("fifo_config_boot", said(&r.path, &out));
}
