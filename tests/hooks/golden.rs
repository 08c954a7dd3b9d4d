//! Golden tests: a client payload in, the exact stdout out, for every executable, agent, event
//! and source, against a real git repository holding a handoff stored through the core API.
//!
//! Expected outputs are snapshots in tests/hooks/snapshots/ (one per case, reviewed with
//! `cargo insta review`: tests/README.md); `{handover}` stands for the command the hooks print
//! (the `handover` binary beside them when cargo built it).
//!
//! Payloads are the ones captured from the real clients (tests/fixtures/claude-2.1.330/ and
//! tests/fixtures/codex-0.169.0/, see the README there) with `cwd` and `transcript_path`
//! pointed at the test's repository and transcript. The few events a client was not seen
//! sending in the capture (Codex's `clear` and manual compaction)
//! use a payload built the same way from the nearest captured one.

use crate::support::exe::{context_watch_exe, pre_compact_exe, session_start_exe};
use crate::support::hook::*;
use serde_json::{json, Value};
use std::path::Path;

#[derive(Clone, Copy, PartialEq)]
enum Agent {
    Claude,
    Codex,
}

struct Case {
    name: &'static str,
    /// The captured payload this case starts from (file stem in the client's fixture dir).
    fixture: &'static str,
    bin: &'static str,
    agent: Agent,
    /// Pass `--agent` (as the installer does); otherwise the hook must detect the agent.
    flag: bool,
    setup: Setup,
    /// Fields set over the captured payload (e.g. a source the capture did not include).
    fields: Value,
    transcript: Transcript,
}

#[derive(Clone, Copy, PartialEq)]
enum Transcript {
    /// The transcript the client wrote while the payloads were captured.
    Captured,
    /// A synthetic transcript at this % of a 200,000-token window.
    Percent(u64),
}

const CLAUDE_FIXTURES: &str = "tests/fixtures/clients/claude-2.1.330";
const CODEX_FIXTURES: &str = "tests/fixtures/clients/codex-0.169.0";

fn fixture_dir(agent: Agent) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(match agent {
        Agent::Claude => CLAUDE_FIXTURES,
        Agent::Codex => CODEX_FIXTURES,
    })
}

fn payload_for(case: &Case, repo: &Path, transcript: &Path) -> Vec<u8> {
    let file = fixture_dir(case.agent).join(format!("{}.json", case.fixture));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["cwd"] = json!(repo.to_str().unwrap());
    v["transcript_path"] = json!(transcript.to_str().unwrap());
    for (k, val) in case.fields.as_object().unwrap() {
        v[k] = val.clone();
    }
    payload(v)
}

/// The transcript the client wrote during the capture, under a name like the original's.
fn captured_transcript(agent: Agent, dir: &Path) -> std::path::PathBuf {
    let (from, to) = match agent {
        Agent::Claude => (
            "transcript.jsonl",
            "56b8a2d7-8873-4ee5-afdd-4e90e809cdeb.jsonl",
        ),
        Agent::Codex => (
            "rollout.jsonl",
            "rollout-2026-11-22T02-28-32-01a20115.jsonl",
        ),
    };
    let dest = dir.join(to);
    std::fs::copy(fixture_dir(agent).join(from), &dest).unwrap();
    dest
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name: String, bin, agent, flag, setup, fixture, fields, transcript| {
        cases.push(Case {
            name: leak(name),
            bin,
            agent,
            flag,
            setup,
            fixture,
            fields,
            transcript,
        })
    };
    let none = || json!({});
    for (agent, prefix) in [(Agent::Claude, "claude"), (Agent::Codex, "codex")] {
        for source in ["startup", "resume", "clear", "compact"] {
            let captured = !(agent == Agent::Codex && source == "clear");
            let (fixture, fields) = if captured {
                (leak(format!("session_start-{source}")), none())
            } else {
                // `codex exec` never fires `clear`: the startup payload with that source.
                ("session_start-startup", json!({"source": source}))
            };
            let name = format!("{prefix}-session-start-{source}");
            add(
                name,
                session_start_exe(),
                agent,
                true,
                Setup::Handoff,
                fixture,
                fields,
                Transcript::Captured,
            );
        }
        let name = format!("{prefix}-session-start-no-handoff");
        add(
            name,
            session_start_exe(),
            agent,
            true,
            Setup::Nothing,
            "session_start-startup",
            none(),
            Transcript::Captured,
        );
        let name = format!("{prefix}-session-start-drifted");
        add(
            name,
            session_start_exe(),
            agent,
            false,
            Setup::Drifted,
            "session_start-startup",
            none(),
            Transcript::Captured,
        );

        // Claude was captured compacting both ways, Codex only automatically; Codex's manual
        // case is its auto payload with the trigger changed.
        let captured_trigger = "auto";
        for trigger in ["manual", "auto"] {
            let captured = agent == Agent::Claude || trigger == captured_trigger;
            for (event, stem) in [("pre", "pre_compact"), ("post", "post_compact")] {
                let fixture = if captured {
                    leak(format!("{stem}-{trigger}"))
                } else {
                    leak(format!("{stem}-{captured_trigger}"))
                };
                let fields = if captured {
                    none()
                } else {
                    json!({"trigger": trigger})
                };
                let name = format!("{prefix}-{event}-compact-{trigger}");
                add(
                    name,
                    pre_compact_exe(),
                    agent,
                    true,
                    Setup::Handoff,
                    fixture,
                    fields,
                    Transcript::Captured,
                );
            }
        }
        let fixture = leak(format!("pre_compact-{captured_trigger}"));
        let name = format!("{prefix}-pre-compact-no-handoff");
        add(
            name,
            pre_compact_exe(),
            agent,
            false,
            Setup::Nothing,
            fixture,
            none(),
            Transcript::Captured,
        );

        // The captured transcripts are nearly empty: the watch stays silent on them.
        for (label, fixture) in [
            ("user-prompt-submit", "user_prompt_submit"),
            ("post-tool-use", "post_tool_use"),
            ("stop", "stop"),
        ] {
            let name = format!("{prefix}-context-watch-{label}-captured");
            add(
                name,
                context_watch_exe(),
                agent,
                true,
                Setup::Handoff,
                fixture,
                none(),
                Transcript::Captured,
            );
        }
        for (label, fixture, fields, pct, flag) in [
            (
                "user-prompt-submit-below",
                "user_prompt_submit",
                none(),
                40,
                true,
            ),
            (
                "user-prompt-submit-remind",
                "user_prompt_submit",
                none(),
                65,
                true,
            ),
            ("post-tool-use-insist", "post_tool_use", none(), 80, false),
            ("stop-block", "stop", none(), 80, true),
            (
                "stop-active",
                "stop",
                json!({"stop_hook_active": true}),
                90,
                true,
            ),
        ] {
            let name = format!("{prefix}-context-watch-{label}");
            add(
                name,
                context_watch_exe(),
                agent,
                flag,
                Setup::Handoff,
                fixture,
                fields,
                Transcript::Percent(pct),
            );
        }
    }
    cases
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The snapshots' directory, and the file name insta gives a case's snapshot in it.
fn snapshot_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks/snapshots")
}

fn snapshot_file(case: &str) -> String {
    format!("integration__hooks__golden__{case}.snap")
}

#[test]
fn every_event_and_source_gives_the_recorded_stdout() {
    let cases = cases();
    for case in &cases {
        let repo = TestRepo::set_up(case.setup);
        let tdir = tempfile::tempdir().unwrap();
        // Handoff written "before" the session: the watch's per-session epoch starts now.
        let transcript = match (case.agent, case.transcript) {
            (Agent::Codex, Transcript::Percent(p)) => {
                codex_transcript(tdir.path(), 2000 * p, 200_000)
            }
            (Agent::Claude, Transcript::Percent(p)) => claude_transcript(tdir.path(), 2000 * p),
            (agent, Transcript::Captured) => captured_transcript(agent, tdir.path()),
        };
        let args: &[&str] = match (case.flag, case.agent) {
            (false, _) => &[],
            (true, Agent::Claude) => &["--agent", "claude"],
            (true, Agent::Codex) => &["--agent", "codex"],
        };
        // Make the handoff older than the session, as it is in real use.
        std::thread::sleep(std::time::Duration::from_millis(5));
        let run = run_hook(
            case.bin,
            args,
            payload_for(case, repo.path(), &transcript),
            &[],
        );
        run.assert_clean(case.name);
        let command = expected_command(case.bin);
        assert_ne!(
            command, "handover",
            "build the handover binary first (cargo build -p handover) so that the command can be told apart from the word"
        );
        // insta ignores the final newline; a client reads the answer as one line.
        if !run.stdout.is_empty() {
            crate::support::snapshot::assert_final_newline(case.name, &run.stdout_str());
        }
        insta::assert_snapshot!(case.name, run.stdout_str().replace(&command, "{handover}"));
        // Whatever the text, the form must be the one the client accepts.
        assert_form(case, &run);
    }
}

fn assert_form(case: &Case, run: &Run) {
    let sent: Value =
        serde_json::from_slice(&payload_for(case, Path::new("/"), Path::new("/"))).unwrap();
    let event = sent["hook_event_name"].as_str().unwrap();
    if run.stdout.is_empty() {
        return;
    }
    match event {
        "SessionStart" | "UserPromptSubmit" | "PostToolUse" => {
            run.context(event);
        }
        "Stop" => {
            let v = run.json();
            assert_eq!(v["decision"], "block");
            assert_eq!(v.as_object().unwrap().len(), 2);
        }
        "PreCompact" => {
            assert!(
                case.agent == Agent::Claude,
                "{}: Codex PreCompact accepts no output",
                case.name
            );
            assert!(
                serde_json::from_slice::<Value>(&run.stdout).is_err(),
                "plain text expected"
            );
        }
        _ => panic!("{}: {event} must print nothing", case.name),
    }
}

/// Every client's captured SessionStart payloads (fixture dir, file stem, `--agent` name), for the
/// startup context each client's sessions get with a fresh handoff.
const SESSION_STARTS: &[(&str, &str, &str)] = &[
    ("claude-2.1.330", "session_start-startup", "claude"),
    ("claude-2.1.330", "session_start-resume", "claude"),
    ("codex-0.169.0", "session_start-startup", "codex"),
    ("codex-0.169.0", "session_start-resume", "codex"),
    ("gemini-0.61.0", "session_start-startup", "gemini"),
    ("gemini-0.61.0", "session_start-resume", "gemini"),
    ("qwen-0.24.4", "session_start-startup", "qwen"),
    ("qwen-0.24.4", "session_start-resume", "qwen"),
    ("copilot-1.0.102", "session_start-new", "copilot"),
    ("copilot-1.0.102", "session_start-resume", "copilot"),
    ("droid-0.225.2", "session_start-startup", "droid"),
    ("droid-0.225.2", "session_start-resume", "droid"),
];

fn session_start_case(agent: &str, stem: &str) -> String {
    format!("per-client-{agent}-{}", stem.replace('_', "-"))
}

#[test]
fn every_client_gets_the_recorded_startup_context() {
    for (dir, stem, agent) in SESSION_STARTS {
        let repo = TestRepo::pinned();
        repo.save_handoff();
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/clients")
            .join(dir)
            .join(format!("{stem}.json"));
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        v["cwd"] = json!(repo.path().to_str().unwrap());
        // No transcript: the handoff alone, not a record of the captured session.
        if v.get("transcript_path").is_some() {
            v["transcript_path"] = json!(repo.path().join("no-transcript.jsonl").to_str().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
        let run = run_hook(session_start_exe(), &["--agent", agent], payload(v), &[]);
        let name = session_start_case(agent, stem);
        run.assert_clean(&name);
        let command = expected_command(session_start_exe());
        // Gemini CLI's `resume` answer is nothing (the next prompt carries it: gemini.rs).
        if !run.stdout.is_empty() {
            crate::support::snapshot::assert_final_newline(&name, &run.stdout_str());
        }
        insta::assert_snapshot!(name, run.stdout_str().replace(&command, "{handover}"));
    }
}

#[test]
fn snapshots_have_no_strays() {
    let mut names: Vec<String> = cases().iter().map(|c| snapshot_file(c.name)).collect();
    names.extend(
        SESSION_STARTS
            .iter()
            .map(|(_, stem, agent)| snapshot_file(&session_start_case(agent, stem))),
    );
    for entry in std::fs::read_dir(snapshot_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("integration__hooks__golden__") && name.ends_with(".snap") {
            assert!(
                names.contains(&name),
                "tests/hooks/snapshots/{name} belongs to no case"
            );
        }
    }
}
