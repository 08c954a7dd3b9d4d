//! The hook contract under bad conditions: every executable, fed every kind of bad input or
//! put in a broken repository, exits 0, prints valid output for its event or nothing, writes
//! nothing to stderr, and finishes in bounded time (generous bounds: a loaded test machine).

use crate::support::exe::{context_watch_exe, pre_compact_exe, session_start_exe};
use crate::support::hook::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The three hook executables.
fn all() -> [&'static str; 3] {
    [session_start_exe(), pre_compact_exe(), context_watch_exe()]
}

/// A representative event for each executable, so there is something it would like to say.
fn event_for(bin: &str) -> Value {
    if bin == session_start_exe() {
        json!({"hook_event_name": "SessionStart", "source": "startup"})
    } else if bin == pre_compact_exe() {
        json!({"hook_event_name": "PreCompact", "trigger": "auto"})
    } else {
        json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"})
    }
}

fn payload_in(bin: &str, cwd: &Path, transcript: &Path) -> Vec<u8> {
    let mut v = event_for(bin);
    v["session_id"] = json!("sess-1");
    v["cwd"] = json!(cwd.to_str().unwrap());
    v["transcript_path"] = json!(transcript.to_str().unwrap());
    payload(v)
}

/// Exit 0, no stderr, bounded time, and stdout either empty or in the form the event allows.
fn assert_contract(what: &str, bin: &str, run: &Run, event: Option<&str>) {
    run.assert_clean(what);
    if run.stdout.is_empty() {
        return;
    }
    match event {
        Some(e @ ("SessionStart" | "UserPromptSubmit" | "PostToolUse")) => {
            let text = run.context(e);
            assert!(!text.is_empty(), "{what}");
        }
        Some("Stop") => assert_eq!(run.json()["decision"], "block", "{what}"),
        Some("PreCompact") if bin == pre_compact_exe() => {
            // Claude Code's plain-text compaction instructions: must not look like JSON.
            assert!(
                serde_json::from_slice::<Value>(&run.stdout).is_err(),
                "{what}"
            );
        }
        _ => panic!("{what}: expected no output, got {}", run.stdout_str()),
    }
}

/// Runs `bin` for its representative event as Claude Code would, and checks the contract.
fn run_as_claude(what: &str, bin: &str, cwd: &Path, transcript: &Path) -> Run {
    let run = run_hook(
        bin,
        &["--agent", "claude"],
        payload_in(bin, cwd, transcript),
        &[],
    );
    let event = event_for(bin)["hook_event_name"]
        .as_str()
        .unwrap()
        .to_string();
    assert_contract(what, bin, &run, Some(&event));
    run
}

#[test]
fn garbage_on_stdin_is_silence() {
    let mut non_utf8 = b"{\"hook_event_name\": \"SessionStart\", \"cwd\": \"".to_vec();
    non_utf8.extend_from_slice(&[0xff, 0xfe, 0x80, b'"', b'}']);
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        (
            "malformed",
            b"{\"hook_event_name\": \"SessionStart\", ".to_vec(),
        ),
        ("not an object", b"[\"SessionStart\"]".to_vec()),
        ("non-UTF-8", non_utf8),
        ("binary", (0..=255u8).cycle().take(10_000).collect()),
    ];
    for bin in all() {
        for (name, bytes) in &inputs {
            let run = run_hook(bin, &[], bytes.clone(), &[]);
            // No cwd, the process directory is outside any repository: nothing to say, except
            // Claude's PreCompact, which always has instructions for the summary.
            assert_contract(&format!("{bin} / {name}"), bin, &run, Some("PreCompact"));
        }
    }
}

#[test]
fn a_100_mb_stdin_is_not_buffered_and_does_not_hang() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    // A 100 MB pasted prompt: the hook reads a few MiB, cannot parse them, reads past the rest.
    let mut v = event_for(session_start_exe());
    v["cwd"] = json!(repo.path().to_str().unwrap());
    v["prompt"] = json!("p".repeat(100 * 1024 * 1024));
    let huge = payload(v);
    for bin in all() {
        let run = run_hook(bin, &["--agent", "claude"], huge.clone(), &[]);
        assert_contract(&format!("{bin} / 100 MB"), bin, &run, Some("SessionStart"));
        assert!(
            run.stdout.is_empty(),
            "{bin}: an unparseable prefix is ignored"
        );
    }
    // A complete payload followed by 100 MB of whitespace is still that payload.
    let mut padded = payload_in(session_start_exe(), repo.path(), Path::new("/nonexistent"));
    padded.extend(std::iter::repeat_n(b' ', 100 * 1024 * 1024));
    let run = run_hook(session_start_exe(), &[], padded, &[]);
    assert_contract(
        "100 MB padding",
        session_start_exe(),
        &run,
        Some("SessionStart"),
    );
    insta::assert_snapshot!("fresh_startup", ours(&run.context("SessionStart")));
}

#[test]
fn unknown_fields_and_wrong_types_are_ignored() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let mut v = event_for(session_start_exe());
    v["cwd"] = json!(repo.path().to_str().unwrap());
    v["session_id"] = json!(12345);
    v["future_field"] = json!({"nested": [1, 2, {"x": null}]});
    v["stop_hook_active"] = json!("maybe");
    v["transcript_path"] = json!(null);
    let run = run_hook(session_start_exe(), &[], payload(v), &[]);
    assert_contract(
        "unknown fields",
        session_start_exe(),
        &run,
        Some("SessionStart"),
    );
    insta::assert_snapshot!("fresh_startup", ours(&run.context("SessionStart")));
}

#[test]
fn missing_or_nonexistent_cwd_falls_back_then_stays_silent() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let project = repo.path().to_str().unwrap();
    for bin in all() {
        let mut v = event_for(bin);
        v["cwd"] = json!("/nonexistent/dir/for/sure");
        let run = run_hook(bin, &["--agent", "codex"], payload(v.clone()), &[]);
        assert_contract(&format!("{bin} / nonexistent cwd"), bin, &run, None);
        v.as_object_mut().unwrap().remove("cwd");
        let run = run_hook(bin, &["--agent", "codex"], payload(v), &[]);
        assert_contract(&format!("{bin} / no cwd"), bin, &run, None);
    }
    // $CLAUDE_PROJECT_DIR, then the process directory, are the fallbacks.
    let mut v = event_for(session_start_exe());
    v["cwd"] = json!("/nonexistent/dir");
    let run = run_hook(
        session_start_exe(),
        &[],
        payload(v.clone()),
        &[("CLAUDE_PROJECT_DIR", project)],
    );
    insta::assert_snapshot!("fresh_startup", ours(&run.context("SessionStart")));
    v.as_object_mut().unwrap().remove("cwd");
    let sub = repo.path().join("src");
    let run = run_hook_in(session_start_exe(), &[], payload(v), &[], Some(&sub));
    insta::assert_snapshot!("fresh_startup", ours(&run.context("SessionStart")));
}

#[test]
fn outside_git_and_with_a_locked_index() {
    let plain = TestRepo::without_git();
    let transcript = claude_transcript(plain.path(), 170_000);
    for bin in all() {
        run_as_claude(&format!("{bin} / no git"), bin, plain.path(), &transcript);
    }

    let repo = TestRepo::pinned();
    repo.save_handoff();
    std::fs::write(repo.path().join(".git/index.lock"), b"").unwrap();
    let transcript = claude_transcript(repo.path(), 1000);
    for bin in all() {
        let run = run_as_claude(
            &format!("{bin} / index.lock"),
            bin,
            repo.path(),
            &transcript,
        );
        if bin == session_start_exe() {
            insta::assert_snapshot!("fresh_startup", ours(&run.context("SessionStart")));
        }
    }
}

/// Tests run as root, where permission bits do not stop reads or writes: the store is made
/// unusable by replacing directories with files or dangling links instead.
#[test]
fn unreadable_or_unwritable_handover_dir() {
    type Breaker = fn(&Path);
    let breakers: [(&str, Breaker); 3] = [
        ("file", |dir| {
            std::fs::write(dir, b"not a directory").unwrap()
        }),
        ("dangling symlink", |dir| {
            std::os::unix::fs::symlink("/nonexistent/handover-target", dir).unwrap()
        }),
        ("sessions dir is a file", |dir| {
            std::fs::write(dir.join("sessions"), b"x").unwrap();
        }),
    ];
    for (name, brk) in breakers {
        let repo = TestRepo::pinned();
        let dir = repo.path().join(".handover");
        if name == "sessions dir is a file" {
            repo.save_handoff();
        }
        brk(&dir);
        let transcript = claude_transcript(repo.path(), 150_000);
        for bin in all() {
            let what = format!("{bin} / .handover {name}");
            let run = run_as_claude(&what, bin, repo.path(), &transcript);
            if bin == context_watch_exe() {
                // 75 % with state that cannot be recorded: a reminder would repeat forever.
                assert!(run.stdout.is_empty(), "{name}: {}", run.stdout_str());
            }
        }
    }
}

#[test]
fn corrupted_state_json_is_reported_not_fatal() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let state = repo.store().state_path();
    let text = std::fs::read_to_string(&state).unwrap();
    std::fs::write(&state, &text[..text.len() / 2]).unwrap();
    let t = claude_transcript(repo.path(), 1000);
    let run = run_hook(
        session_start_exe(),
        &[],
        payload_in(session_start_exe(), repo.path(), &t),
        &[],
    );
    assert_contract(
        "truncated state.json",
        session_start_exe(),
        &run,
        Some("SessionStart"),
    );
    // Recovered from the journal's copy of the same handoff, and says so.
    let ctx = run.context("SessionStart");
    insta::assert_snapshot!("recovered_from_the_journal", ours(&ctx));

    // Nothing to fall back on: the damage is reported instead of a handoff.
    std::fs::remove_file(repo.store().journal_path()).unwrap();
    std::fs::write(&state, b"{\"schema_version\": 1, \"goal\": ").unwrap();
    let run = run_hook(
        session_start_exe(),
        &[],
        payload_in(session_start_exe(), repo.path(), &t),
        &[],
    );
    assert_contract(
        "garbage state.json",
        session_start_exe(),
        &run,
        Some("SessionStart"),
    );
    insta::assert_snapshot!("damaged_everywhere", ours(&run.context("SessionStart")));

    // A damaged session state file counts as present, and is replaced.
    let sessions = repo.store().sessions_dir();
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(sessions.join("sess-1.json"), b"\x00\x01garbage").unwrap();
    let t = claude_transcript(repo.path(), 170_000);
    let run = run_hook(
        context_watch_exe(),
        &[],
        payload_in(context_watch_exe(), repo.path(), &t),
        &[],
    );
    assert_contract(
        "garbage session state",
        context_watch_exe(),
        &run,
        Some("UserPromptSubmit"),
    );
    insta::assert_snapshot!(
        "insist_after_a_damaged_state",
        ours(&run.context("UserPromptSubmit"))
    );
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success());
}

#[test]
fn a_fifo_transcript_is_never_opened() {
    // A FIFO nobody writes to: opening it would block until the watchdog ends the hook and
    // its answer is lost. It is not a transcript: the hook answers in its usual time.
    let repo = TestRepo::pinned();
    let fifo = repo.path().join("transcript.jsonl");
    mkfifo(&fifo);
    let mut v = event_for(context_watch_exe());
    v["session_id"] = json!("s");
    v["cwd"] = json!(repo.path().to_str().unwrap());
    v["transcript_path"] = json!(fifo.to_str().unwrap());
    let run = run_hook(context_watch_exe(), &[], payload(v), &[]);
    run.assert_clean("FIFO transcript");
    assert!(run.stdout.is_empty());
    assert!(
        run.elapsed < Duration::from_millis(1500),
        "{:?}",
        run.elapsed
    );
}

#[test]
fn a_fifo_debug_log_does_not_hang_the_hook() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let log = repo.path().join("hooks.log");
    mkfifo(&log);
    let t = claude_transcript(repo.path(), 1000);
    let run = run_hook(
        session_start_exe(),
        &[],
        payload_in(session_start_exe(), repo.path(), &t),
        &[("HANDOVER_HOOK_DEBUG", log.to_str().unwrap())],
    );
    run.assert_clean("FIFO debug log");
    run.context("SessionStart");
    assert!(
        run.elapsed < Duration::from_millis(1500),
        "{:?}",
        run.elapsed
    );
}

#[test]
fn a_stdin_left_open_does_not_hang_the_hook() {
    let neutral = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let mut child = hook_command(session_start_exe(), &[], neutral.path())
        .spawn()
        .unwrap();
    let _keep_open = child.stdin.take();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "hook hung");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(0));
    // One second waiting for the payload, then the answer: no further wait for a stdin that
    // was never going to close (it used to take 2.4 s).
    assert!(
        start.elapsed() < Duration::from_millis(1800),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn debug_log_only_when_asked_one_line_per_call() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let t = claude_transcript(repo.path(), 1000);
    let p = payload_in(session_start_exe(), repo.path(), &t);
    let run = run_hook(
        session_start_exe(),
        &[],
        p.clone(),
        &[("HANDOVER_HOOK_DEBUG", "1")],
    );
    assert_eq!(run.code, Some(0));
    let err = String::from_utf8(run.stderr.clone()).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("handover-session-start: agent=claude event=SessionStart"),
        "{err}"
    );
    assert!(err.contains("verdict=fresh"), "{err}");
    run.context("SessionStart");

    let log = repo.path().join("hooks.log");
    let run = run_hook(
        session_start_exe(),
        &[],
        b"not json".to_vec(),
        &[("HANDOVER_HOOK_DEBUG", log.to_str().unwrap())],
    );
    run.assert_clean("debug to file");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
}

#[test]
fn bad_arguments_never_exit_non_zero() {
    for args in [
        vec!["--agent"],
        vec!["--agent", "emacs"],
        vec!["--help"],
        vec!["--version", "-x", "positional"],
    ] {
        for bin in all() {
            let run = run_hook(bin, &args, b"{}".to_vec(), &[]);
            run.assert_clean(&format!("{bin} {args:?}"));
            assert!(run.stdout.is_empty() || bin == pre_compact_exe());
        }
    }
}

/// Gemini CLI's events, one per (executable, event) pair the installer registers.
fn gemini() -> [(&'static str, &'static str); 6] {
    [
        (session_start_exe(), "SessionStart"),
        (pre_compact_exe(), "PreCompress"),
        (pre_compact_exe(), "SessionEnd"),
        (context_watch_exe(), "BeforeAgent"),
        (context_watch_exe(), "AfterTool"),
        (context_watch_exe(), "AfterAgent"),
    ]
}

/// The contract in Gemini CLI's form: context only where Gemini takes it, never a block (its
/// terminal UI shows any AfterAgent block as a failed request), never anything on PreCompress
/// (it is advisory) or SessionEnd.
fn assert_gemini_contract(what: &str, event: &str, run: &Run) {
    run.assert_clean(what);
    if run.stdout.is_empty() {
        return;
    }
    match event {
        "SessionStart" | "BeforeAgent" | "AfterTool" => {
            assert!(!run.context(event).is_empty(), "{what}")
        }
        _ => panic!("{what}: expected no output, got {}", run.stdout_str()),
    }
}

fn gemini_payload(event: &str, cwd: Option<&Path>, transcript: Option<&Path>) -> Value {
    let mut v = json!({"session_id": "gem-1", "hook_event_name": event,
                       "timestamp": "2026-11-23T16:52:06.454Z"});
    match event {
        "SessionStart" => v["source"] = json!("startup"),
        "PreCompress" => v["trigger"] = json!("auto"),
        "SessionEnd" => v["reason"] = json!("exit"),
        "BeforeAgent" => v["prompt"] = json!("hi"),
        "AfterTool" => {
            v["tool_name"] = json!("run_shell_command");
            v["tool_input"] = json!({"command": "ls"});
            v["tool_response"] = json!({"llmContent": "x"});
        }
        _ => {
            v["prompt_response"] = json!("done");
            v["stop_hook_active"] = json!(false);
        }
    }
    if let Some(c) = cwd {
        v["cwd"] = json!(c.to_str().unwrap());
    }
    if let Some(t) = transcript {
        v["transcript_path"] = json!(t.to_str().unwrap());
    }
    v
}

/// The failure corpus above, as Gemini CLI runs the hooks (`--agent gemini`, its events).
#[test]
fn the_corpus_as_gemini() {
    let mut non_utf8 = b"{\"hook_event_name\": \"BeforeAgent\", \"cwd\": \"".to_vec();
    non_utf8.extend_from_slice(&[0xff, 0xfe, 0x80, b'"', b'}']);
    let garbage: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        (
            "malformed",
            b"{\"hook_event_name\": \"AfterTool\", ".to_vec(),
        ),
        ("not an object", b"[\"PreCompress\"]".to_vec()),
        ("non-UTF-8", non_utf8),
        ("binary", (0..=255u8).cycle().take(10_000).collect()),
    ];
    for (bin, event) in gemini() {
        for (name, bytes) in &garbage {
            let run = run_hook(bin, &["--agent", "gemini"], bytes.clone(), &[]);
            assert_gemini_contract(&format!("{event} / {name}"), event, &run);
            assert!(run.stdout.is_empty(), "{event} / {name}: nothing to say");
        }
    }

    // Repositories in every broken state, with a transcript at 46 % (past the Gemini reminder
    // thresholds) and one at 60 % (past Gemini's compression point): every hook has a reason
    // to speak and to write.
    type Breaker = fn(&TestRepo);
    let states: [(&str, Breaker); 7] = [
        ("healthy", |r| {
            r.save_handoff();
        }),
        ("no git", |_| {}),
        ("index.lock", |r| {
            r.save_handoff();
            std::fs::write(r.path().join(".git/index.lock"), b"").unwrap();
        }),
        (".handover is a file", |r| {
            std::fs::write(r.path().join(".handover"), b"x").unwrap()
        }),
        ("sessions dir is a file", |r| {
            r.save_handoff();
            std::fs::write(r.path().join(".handover/sessions"), b"x").unwrap();
        }),
        ("truncated state.json", |r| {
            r.save_handoff();
            let state = r.store().state_path();
            let text = std::fs::read_to_string(&state).unwrap();
            std::fs::write(&state, &text[..text.len() / 2]).unwrap();
        }),
        ("garbage gemini settings", |r| {
            r.save_handoff();
            std::fs::create_dir_all(r.path().join(".gemini")).unwrap();
            std::fs::write(
                r.path().join(".gemini/settings.json"),
                b"{\"model\": {\"compressionThreshold\": \"\xff\"",
            )
            .unwrap();
        }),
    ];
    for (name, brk) in states {
        for used in [482_000, 630_000] {
            let repo = if name == "no git" {
                TestRepo::without_git()
            } else {
                TestRepo::pinned()
            };
            brk(&repo);
            let transcript = gemini_transcript(repo.path(), used);
            for (bin, event) in gemini() {
                let v = gemini_payload(event, Some(repo.path()), Some(&transcript));
                let run = run_hook(bin, &["--agent", "gemini"], payload(v), &[]);
                assert_gemini_contract(&format!("{event} / {name} / {used}"), event, &run);
            }
        }
    }

    // No cwd, a cwd that does not exist, a transcript that is garbage or a FIFO nobody writes.
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let garbage_transcript = repo.path().join("garbage.jsonl");
    std::fs::write(
        &garbage_transcript,
        b"\x00\x01{\"tokens\": [\n{\"$set\": 5}\n",
    )
    .unwrap();
    for (bin, event) in gemini() {
        for (what, v) in [
            ("no cwd", gemini_payload(event, None, None)),
            (
                "nonexistent cwd",
                gemini_payload(event, Some(Path::new("/nonexistent/dir")), None),
            ),
            (
                "garbage transcript",
                gemini_payload(event, Some(repo.path()), Some(&garbage_transcript)),
            ),
        ] {
            let run = run_hook(bin, &["--agent", "gemini"], payload(v), &[]);
            assert_gemini_contract(&format!("{event} / {what}"), event, &run);
        }
    }
}

/// A client that stops reading before the answer is written: the write fails and the hook still
/// exits 0. The hooks start without std's runtime start on Linux
/// (handover_hooks::call::process_start), so ignoring `SIGPIPE` is theirs: without it this
/// run would end by the signal, with no exit code.
#[test]
fn a_reader_gone_before_the_answer_is_not_a_signal() {
    let repo = TestRepo::pinned();
    repo.save_handoff();
    let transcript = claude_transcript(repo.path(), 150_000);
    for bin in all() {
        // Each of them answers this payload when it is read (run_as_claude checks it).
        let answered = run_as_claude(bin, bin, repo.path(), &transcript);
        assert!(!answered.stdout.is_empty(), "{bin}: nothing to write");
        let mut child = hook_command(bin, &["--agent", "claude"], repo.path())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The reader goes first; the hook only writes once its stdin is closed.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        use std::io::Write;
        stdin
            .write_all(&payload_in(bin, repo.path(), &transcript))
            .unwrap();
        drop(stdin);
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "{bin} hung");
            std::thread::sleep(Duration::from_millis(5));
        };
        assert_eq!(status.code(), Some(0), "{bin}: {status:?}");
    }
}

/// Started with stdout and stderr closed (a client's bug, or a shell's `>&-`): the hook exits
/// 0 and no file of the store gets the answer. The hooks open /dev/null on closed standard fds
/// first, as std's runtime start does (handover_hooks::call::process_start), so that a file
/// opened later cannot take stdout's number; no file is open while the answer is written today,
/// so this run does not depend on that alone.
#[test]
fn closed_stdout_and_stderr_exit_0_and_no_file_gets_the_answer() {
    for bin in all() {
        let repo = TestRepo::pinned();
        repo.save_handoff();
        let transcript = claude_transcript(repo.path(), 150_000);
        let input = repo.path().join("payload.json");
        std::fs::write(&input, payload_in(bin, repo.path(), &transcript)).unwrap();
        let status = Command::new("sh")
            .args(["-c", r#"exec "$0" --agent claude <"$1" >&- 2>&-"#, bin])
            .arg(&input)
            .current_dir(repo.path())
            .env_remove("HANDOVER_HOOK_DEBUG")
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{bin}: {status:?}");
        // Every file the hook may have written, none with an answer in it.
        let mut files = vec![repo.path().join(".handover")];
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else {
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                for answer in [
                    "hookSpecificOutput",
                    "additionalContext",
                    "=== handoff text",
                ] {
                    assert!(
                        !text.contains(answer),
                        "{bin}: {} holds {answer}",
                        path.display()
                    );
                }
            }
        }
    }
}
