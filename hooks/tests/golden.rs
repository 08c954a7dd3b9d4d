//! Golden tests: a client payload in, the exact stdout out, for every executable, agent, event
//! and source, against a real git repository holding a handoff stored through the core API.
//!
//! Expected outputs live in tests/golden/<case>.out; `{handover}` stands for the command the
//! hooks print (the `handover` binary beside them when cargo built it). To regenerate after a
//! deliberate change: `UPDATE_GOLDEN=1 cargo test -p handover-hooks --test golden`, then read
//! the diff.
//!
//! Payload shapes follow the captured ones of Claude Code 2.1.330 and Codex 0.169.0 (see
//! tests/fixtures/ when present and /work/shared/notes/agent-hooks.md).

mod support;

use serde_json::{json, Value};
use std::path::Path;
use support::*;

#[derive(Clone, Copy, PartialEq)]
enum Agent {
    Claude,
    Codex,
}

#[derive(Clone, Copy, PartialEq)]
enum Setup {
    /// The standard handoff, fresh.
    Handoff,
    /// No handoff at all.
    Nothing,
    /// The standard handoff, then one more commit: drifted.
    Drifted,
}

struct Case {
    name: &'static str,
    bin: &'static str,
    agent: Agent,
    /// Pass `--agent` (as the installer does); otherwise the hook must detect the agent.
    flag: bool,
    setup: Setup,
    /// The event-specific fields; the common ones are added by `payload_for`.
    fields: Value,
    /// Transcript fullness in tokens, for the context watch.
    used: Option<u64>,
}

fn payload_for(case: &Case, repo: &Path, transcript: &Path) -> Vec<u8> {
    let mut v = json!({
        "session_id": match case.agent {
            Agent::Claude => "8f3c2a1e-5b7d-4c9e-a0f1-2b3c4d5e6f70",
            Agent::Codex => "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        },
        "transcript_path": transcript.to_str().unwrap(),
        "cwd": repo.to_str().unwrap(),
    });
    if case.agent == Agent::Codex {
        v["model"] = json!("gpt-5-codex");
    }
    for (k, val) in case.fields.as_object().unwrap() {
        v[k] = val.clone();
    }
    payload(v)
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (agent, prefix) in [(Agent::Claude, "claude"), (Agent::Codex, "codex")] {
        for source in ["startup", "resume", "clear", "compact"] {
            let mut fields = json!({"hook_event_name": "SessionStart", "source": source});
            if agent == Agent::Claude && source == "resume" {
                fields["context_tokens"] = json!(41235);
            }
            if agent == Agent::Claude && source == "compact" {
                fields["model"] = json!("claude-sonnet-4-5-20250929");
            }
            cases.push(Case {
                name: leak(format!("{prefix}-session-start-{source}")),
                bin: SESSION_START,
                agent,
                flag: true,
                setup: Setup::Handoff,
                fields,
                used: None,
            });
        }
        cases.push(Case {
            name: leak(format!("{prefix}-session-start-no-handoff")),
            bin: SESSION_START,
            agent,
            flag: true,
            setup: Setup::Nothing,
            fields: json!({"hook_event_name": "SessionStart", "source": "startup"}),
            used: None,
        });
        cases.push(Case {
            name: leak(format!("{prefix}-session-start-drifted")),
            bin: SESSION_START,
            agent,
            flag: false,
            setup: Setup::Drifted,
            fields: json!({"hook_event_name": "SessionStart", "source": "startup"}),
            used: None,
        });
        for trigger in ["manual", "auto"] {
            let mut pre = json!({"hook_event_name": "PreCompact", "trigger": trigger});
            let mut post = json!({"hook_event_name": "PostCompact", "trigger": trigger});
            if agent == Agent::Claude {
                pre["custom_instructions"] = json!(if trigger == "manual" {
                    "keep the test names"
                } else {
                    ""
                });
                post["compact_summary"] = json!("The user asked to make the parser accept trailing commas. Work so far: lexer done.");
            } else {
                pre["turn_id"] = json!("turn-7");
                post["turn_id"] = json!("turn-7");
            }
            cases.push(Case {
                name: leak(format!("{prefix}-pre-compact-{trigger}")),
                bin: PRE_COMPACT,
                agent,
                flag: true,
                setup: Setup::Handoff,
                fields: pre,
                used: None,
            });
            cases.push(Case {
                name: leak(format!("{prefix}-post-compact-{trigger}")),
                bin: PRE_COMPACT,
                agent,
                flag: true,
                setup: Setup::Handoff,
                fields: post,
                used: None,
            });
        }
        cases.push(Case {
            name: leak(format!("{prefix}-pre-compact-no-handoff")),
            bin: PRE_COMPACT,
            agent,
            flag: false,
            setup: Setup::Nothing,
            fields: if agent == Agent::Codex {
                json!({"hook_event_name": "PreCompact", "trigger": "auto", "turn_id": "turn-2"})
            } else {
                json!({"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""})
            },
            used: None,
        });
        let turn = |mut v: Value| {
            if agent == Agent::Codex {
                v["turn_id"] = json!("turn-3");
            }
            v
        };
        let window = 200_000u64;
        for (label, fields, pct) in [
            (
                "user-prompt-submit-below",
                turn(json!({"hook_event_name": "UserPromptSubmit", "prompt": "go on"})),
                40,
            ),
            (
                "user-prompt-submit-remind",
                turn(json!({"hook_event_name": "UserPromptSubmit", "prompt": "go on"})),
                65,
            ),
            (
                "post-tool-use-insist",
                turn(
                    json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "cargo test"}, "tool_response": {"stdout": "ok"}}),
                ),
                80,
            ),
            (
                "stop-block",
                turn(
                    json!({"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Done for now."}),
                ),
                80,
            ),
            (
                "stop-active",
                turn(
                    json!({"hook_event_name": "Stop", "stop_hook_active": true, "last_assistant_message": "Done."}),
                ),
                90,
            ),
        ] {
            cases.push(Case {
                name: leak(format!("{prefix}-context-watch-{label}")),
                bin: CONTEXT_WATCH,
                agent,
                flag: label != "post-tool-use-insist",
                setup: Setup::Handoff,
                fields,
                used: Some(window * pct / 100),
            });
        }
    }
    cases
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn golden_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn every_event_and_source_gives_the_recorded_stdout() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let repo = Repo::new();
        match case.setup {
            Setup::Nothing => {}
            Setup::Handoff => {
                repo.save_handoff();
            }
            Setup::Drifted => {
                repo.save_handoff();
                repo.write("src/lib.rs", "pub fn f() {}\npub fn g() {}\n");
                repo.commit("Add g");
            }
        }
        let tdir = tempfile::tempdir().unwrap();
        // Handoff written "before" the session: the watch's per-session epoch starts now.
        let transcript = match (case.agent, case.used) {
            (Agent::Codex, Some(u)) => codex_transcript(tdir.path(), u, 200_000),
            (Agent::Claude, Some(u)) => claude_transcript(tdir.path(), u),
            (Agent::Codex, None) => codex_transcript(tdir.path(), 1000, 200_000),
            (Agent::Claude, None) => claude_transcript(tdir.path(), 1000),
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
        let actual = run.stdout_str();
        let file = golden_dir().join(format!("{}.out", case.name));
        if update {
            assert_ne!(
                command, "handover",
                "build the handover binary first (cargo build -p handover) so that the command can be told apart from the word"
            );
            std::fs::write(&file, actual.replace(&command, "{handover}")).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&file)
            .unwrap_or_else(|_| panic!("missing {}", file.display()))
            .replace("{handover}", &command);
        if actual != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                case.name
            ));
        }
        // Whatever the text, the form must be the one the client accepts.
        assert_form(case, &run);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn assert_form(case: &Case, run: &Run) {
    let event = case.fields["hook_event_name"].as_str().unwrap();
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

#[test]
fn golden_files_have_no_strays() {
    let names: Vec<String> = cases().iter().map(|c| format!("{}.out", c.name)).collect();
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".out") {
            assert!(
                names.contains(&name),
                "tests/golden/{name} belongs to no case"
            );
        }
    }
}
