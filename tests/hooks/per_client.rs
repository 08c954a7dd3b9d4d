//! Every hook output of Gemini CLI, Qwen Code, GitHub Copilot CLI and Factory Droid, per event
//! they are wired on (Claude Code's and Codex's: golden.rs), through the real hook executables.
//!
//! Each case is a short session: the payloads captured from the real client
//! (tests/fixtures/clients/<client>-<version>/, with its paths moved to the test's repository
//! and a temporary home), run one after the other against one repository, with the transcript
//! the client captured filled to a given share of its window or marked compacted in between.
//! The snapshot (tests/hooks/snapshots/hooks__hooks__per_client__<case>.snap) is every call's
//! whole stdout in order, `(nothing)` where the hook printed nothing, then the journal's events;
//! `{handover}` stands for the command the hooks print and `[TIME]` for the clock.

use crate::support::hook::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One client as the cases drive it.
struct Client {
    /// `--agent`.
    agent: &'static str,
    /// The captured fixtures, under tests/fixtures/clients/.
    fixtures: &'static str,
    /// Copilot CLI's payloads do not name their event: its entries pass `--event <name>`.
    event_flag: bool,
    /// The captured transcript the session starts from (no compaction in it).
    transcript: &'static str,
    /// The fixture whose transcript path is the session's.
    session_fixture: &'static str,
    /// What the transcript's usage is measured against (tokens), as the hooks read it.
    window: u64,
}

const GEMINI: Client = Client {
    agent: "gemini",
    fixtures: "gemini-0.61.0",
    event_flag: false,
    transcript: "transcript-tools.jsonl",
    session_fixture: "after_agent",
    // gemini-2.5-pro in Gemini CLI 0.61.0.
    window: 1_048_576,
};

const QWEN: Client = Client {
    agent: "qwen",
    fixtures: "qwen-0.24.4",
    event_flag: false,
    transcript: "transcript-tools.jsonl",
    session_fixture: "stop",
    // The `contextWindowSize` its transcript states.
    window: 1_000_000,
};

const COPILOT: Client = Client {
    agent: "copilot",
    fixtures: "copilot-1.0.102",
    event_flag: true,
    transcript: "events-tools.jsonl",
    session_fixture: "agent_stop",
    // The `context_token_limit` its events state for claude-sonnet-4.5.
    window: 168_000,
};

const DROID: Client = Client {
    agent: "droid",
    fixtures: "droid-0.225.2",
    event_flag: false,
    transcript: "transcript-tools.jsonl",
    session_fixture: "stop",
    // Droid's compaction limit for a custom model, which the hooks measure against.
    window: 250_000,
};

#[derive(Clone, Copy, PartialEq)]
enum Setup {
    /// The standard handoff, fresh.
    Handoff,
    /// No handoff at all.
    Nothing,
    /// The standard handoff, then one more commit: drifted.
    Drifted,
}

enum Step {
    /// Run `exe` on the client's `event` with the captured payload `fixture` (file stem), with
    /// `fields` set over it.
    Hook {
        exe: &'static str,
        event: &'static str,
        fixture: &'static str,
        fields: Value,
    },
    /// The client's newest usage is now this % of its window.
    Fill(u64),
    /// The client compacted (as it marks it in its transcript).
    Compacted,
    /// The transcript holds only its first `n` captured lines (a session before its first
    /// request).
    FirstLines(usize),
}

fn hook(exe: &'static str, event: &'static str, fixture: &'static str) -> Step {
    with(exe, event, fixture, json!({}))
}

fn with(exe: &'static str, event: &'static str, fixture: &'static str, fields: Value) -> Step {
    Step::Hook {
        exe,
        event,
        fixture,
        fields,
    }
}

struct Case {
    name: &'static str,
    client: &'static Client,
    setup: Setup,
    steps: Vec<Step>,
}

/// The fixtures' own places, replaced by the test's.
const FIXTURE_PROJECT: &str = "/tmp/FIXTURE/project";

fn fixture_home(client: &Client) -> String {
    format!("/tmp/FIXTURE/home/{}", client.agent)
}

fn fixture_dir(client: &Client) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/clients")
        .join(client.fixtures)
}

/// A captured payload (or `fields`) with the fixture's project and home moved to the test's.
fn moved(client: &Client, text: &str, repo: &Path, home: &Path) -> String {
    text.replace(FIXTURE_PROJECT, repo.to_str().unwrap())
        .replace(&fixture_home(client), home.to_str().unwrap())
}

fn payload_of(client: &Client, fixture: &str, fields: &Value, repo: &Path, home: &Path) -> Value {
    let file = fixture_dir(client).join(format!("{fixture}.json"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut v: Value = serde_json::from_str(&moved(client, &text, repo, home)).unwrap();
    let fields: Value =
        serde_json::from_str(&moved(client, &fields.to_string(), repo, home)).unwrap();
    for (k, val) in fields.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

/// The session's transcript, where the client keeps it under `home`.
fn transcript_path(client: &Client, repo: &Path, home: &Path) -> PathBuf {
    let v = payload_of(client, client.session_fixture, &json!({}), repo, home);
    let path = v
        .get("transcript_path")
        .or_else(|| v.get("transcriptPath"))
        .and_then(Value::as_str)
        .unwrap();
    PathBuf::from(path)
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// Now with milliseconds, as the clients stamp their lines.
fn now_ms() -> String {
    let (secs, nanos) = handover_base::clock::unix_now();
    let whole = handover_base::clock::format_rfc3339(secs);
    format!("{}.{:03}Z", whole.trim_end_matches('Z'), nanos / 1_000_000)
}

/// Writes what the client writes when a request used `used` tokens.
fn fill(client: &Client, transcript: &Path, used: u64) {
    match client.agent {
        "gemini" => append(
            transcript,
            &format!(
                r#"{{"id":"fill-{used}","type":"gemini","content":"ok","thoughts":[],"tokens":{{"input":{used},"output":10,"cached":0,"thoughts":0,"tool":0,"total":{}}},"model":"gemini-2.5-pro"}}"#,
                used + 10
            ),
        ),
        "qwen" => append(
            transcript,
            &format!(
                r#"{{"type":"assistant","timestamp":"{}","model":"qwen3-coder-plus","message":{{"role":"model","parts":[{{"text":"ok"}}]}},"usageMetadata":{{"promptTokenCount":{used},"candidatesTokenCount":10}},"contextWindowSize":{}}}"#,
                now_ms(),
                client.window
            ),
        ),
        "copilot" => append(
            transcript,
            &format!(
                r#"{{"type":"session.usage_record","data":{{"usage":{{"model":"claude-sonnet-4.5","inputTokens":{used},"outputTokens":10,"cacheReadTokens":0,"cacheWriteTokens":0}}}},"timestamp":"{}"}}"#,
                now_ms()
            ),
        ),
        // Droid keeps the last request's usage in the session's settings file beside it.
        "droid" => {
            let file = fixture_dir(client).join("session-settings-tools.json");
            let mut v: Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            v["lastCallTokenUsage"] =
                json!({"inputTokens": used, "outputTokens": 10, "cacheReadTokens": 0});
            std::fs::write(
                transcript.with_extension("settings.json"),
                serde_json::to_vec_pretty(&v).unwrap(),
            )
            .unwrap();
        }
        other => panic!("no fill for {other}"),
    }
}

/// Writes what the client writes when it compacted the session.
fn compacted(client: &Client, transcript: &Path) {
    let line = match client.agent {
        // Gemini CLI rewrites the history.
        "gemini" => r#"{"$set":{"messages":[]}}"#.to_string(),
        "qwen" => format!(
            r#"{{"type":"system","subtype":"chat_compression","timestamp":"{}"}}"#,
            now_ms()
        ),
        "copilot" => format!(
            r#"{{"type":"session.compaction_complete","data":{{"success":true,"tokenLimit":{}}},"timestamp":"{}"}}"#,
            client.window,
            now_ms()
        ),
        "droid" => format!(
            r#"{{"type":"compaction_state","id":"compaction-1","timestamp":"{}","summaryText":"The user and the assistant worked on the task.","summaryTokens":12,"summaryKind":"llm_summary"}}"#,
            now_ms()
        ),
        other => panic!("no compaction for {other}"),
    };
    append(transcript, &line);
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(gemini_cases());
    cases.extend(qwen_cases());
    cases.extend(copilot_cases());
    cases.extend(droid_cases());
    cases
}

fn case(name: &'static str, client: &'static Client, setup: Setup, steps: Vec<Step>) -> Case {
    Case {
        name,
        client,
        setup,
        steps,
    }
}

fn gemini_cases() -> Vec<Case> {
    let c = &GEMINI;
    let start = || hook(SESSION_START, "SessionStart", "session_start-startup");
    let prompt = || hook(CONTEXT_WATCH, "BeforeAgent", "before_agent");
    let tool = || hook(CONTEXT_WATCH, "AfterTool", "after_tool");
    let stop = || hook(CONTEXT_WATCH, "AfterAgent", "after_agent");
    let continuing = || {
        with(
            CONTEXT_WATCH,
            "AfterAgent",
            "after_agent",
            json!({"stop_hook_active": true}),
        )
    };
    let compress = || hook(PRE_COMPACT, "PreCompress", "pre_compress-auto");
    let end = || hook(PRE_COMPACT, "SessionEnd", "session_end");
    vec![
        case(
            "gemini-no-handoff",
            c,
            Setup::Nothing,
            vec![start(), prompt(), tool(), compress(), stop(), end()],
        ),
        case("gemini-drifted", c, Setup::Drifted, vec![start()]),
        // Gemini CLI drops SessionStart `clear`'s context: the next prompt carries it.
        case(
            "gemini-clear",
            c,
            Setup::Handoff,
            vec![
                with(
                    SESSION_START,
                    "SessionStart",
                    "session_start-startup",
                    json!({"source": "clear"}),
                ),
                prompt(),
                prompt(),
            ],
        ),
        // Compression at 50 % by default: remind at 35 %, insist at 45 %.
        case(
            "gemini-watch",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(20),
                prompt(),
                tool(),
                stop(),
                Step::Fill(36),
                prompt(),
                tool(),
                stop(),
                Step::Fill(46),
                tool(),
                stop(),
                continuing(),
                stop(),
                end(),
            ],
        ),
        // PreCompress fires before every request: below the compression point it does
        // nothing; at it, it arms the re-injection the next BeforeAgent / AfterTool delivers.
        case(
            "gemini-compression",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(30),
                compress(),
                Step::Fill(52),
                compress(),
                Step::Compacted,
                tool(),
                prompt(),
                with(
                    PRE_COMPACT,
                    "PreCompress",
                    "pre_compress-auto",
                    json!({"trigger": "manual"}),
                ),
                end(),
            ],
        ),
    ]
}

fn qwen_cases() -> Vec<Case> {
    let c = &QWEN;
    let start = || hook(SESSION_START, "SessionStart", "session_start-startup");
    let prompt = || hook(CONTEXT_WATCH, "UserPromptSubmit", "user_prompt_submit");
    let tool = || hook(CONTEXT_WATCH, "PostToolUse", "post_tool_use");
    // The captured failure is of another session: moved into this one.
    let failure = || {
        with(
            CONTEXT_WATCH,
            "PostToolUseFailure",
            "post_tool_use_failure",
            json!({
                "session_id": "b816995a-9626-4b96-ac9f-c09ae265ae41",
                "transcript_path": "/tmp/FIXTURE/home/qwen/.qwen/projects/-tmp-FIXTURE-project/chats/b816995a-9626-4b96-ac9f-c09ae265ae41.jsonl",
            }),
        )
    };
    let stop = || hook(CONTEXT_WATCH, "Stop", "stop");
    let continuing = || {
        with(
            CONTEXT_WATCH,
            "Stop",
            "stop",
            json!({"stop_hook_active": true}),
        )
    };
    vec![
        case(
            "qwen-no-handoff",
            c,
            Setup::Nothing,
            vec![
                start(),
                prompt(),
                tool(),
                failure(),
                hook(PRE_COMPACT, "PreCompact", "pre_compact-auto"),
                hook(PRE_COMPACT, "PostCompact", "post_compact-auto"),
                stop(),
            ],
        ),
        case("qwen-drifted", c, Setup::Drifted, vec![start()]),
        case(
            "qwen-clear",
            c,
            Setup::Handoff,
            vec![
                with(
                    SESSION_START,
                    "SessionStart",
                    "session_start-startup",
                    json!({"source": "clear"}),
                ),
                prompt(),
            ],
        ),
        case(
            "qwen-watch",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(20),
                prompt(),
                tool(),
                failure(),
                stop(),
                Step::Fill(61),
                failure(),
                tool(),
                stop(),
                Step::Fill(76),
                prompt(),
                stop(),
                continuing(),
                stop(),
            ],
        ),
        // PreCompact's instructions go to the summarizer as additionalContext; SessionStart
        // `compact` follows in the same session and carries the handoff back.
        case(
            "qwen-compaction",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(80),
                hook(PRE_COMPACT, "PreCompact", "pre_compact-auto"),
                with(
                    PRE_COMPACT,
                    "PreCompact",
                    "pre_compact-auto",
                    json!({"trigger": "manual"}),
                ),
                Step::Compacted,
                hook(PRE_COMPACT, "PostCompact", "post_compact-auto"),
                hook(SESSION_START, "SessionStart", "session_start-compact"),
                prompt(),
                tool(),
            ],
        ),
    ]
}

fn copilot_cases() -> Vec<Case> {
    let c = &COPILOT;
    let start = || hook(SESSION_START, "sessionStart", "session_start-new");
    let prompt = || {
        hook(
            CONTEXT_WATCH,
            "userPromptSubmitted",
            "user_prompt_submitted",
        )
    };
    let tool = || hook(CONTEXT_WATCH, "postToolUse", "post_tool_use");
    let stop = || hook(CONTEXT_WATCH, "agentStop", "agent_stop");
    let continuing = || {
        with(
            CONTEXT_WATCH,
            "agentStop",
            "agent_stop",
            json!({"stop_hook_active": true}),
        )
    };
    let compact = || hook(PRE_COMPACT, "preCompact", "pre_compact-auto");
    let end = || hook(PRE_COMPACT, "sessionEnd", "session_end-complete");
    vec![
        case(
            "copilot-no-handoff",
            c,
            Setup::Nothing,
            vec![start(), prompt(), tool(), compact(), stop(), end()],
        ),
        case("copilot-drifted", c, Setup::Drifted, vec![start()]),
        // A new session's sessionStart may come after its first prompt (after `/clear`, side
        // by side with it): the first prompt, before any request, delivers; sessionStart then
        // stays silent.
        case(
            "copilot-first-prompt",
            c,
            Setup::Handoff,
            vec![Step::FirstLines(2), prompt(), start(), prompt()],
        ),
        // Copilot compacts at 80 % of the prompt limit: remind at 60 %, insist at 75 %.
        case(
            "copilot-watch",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(20),
                prompt(),
                tool(),
                stop(),
                Step::Fill(61),
                tool(),
                prompt(),
                stop(),
                Step::Fill(76),
                prompt(),
                stop(),
                continuing(),
                stop(),
                end(),
            ],
        ),
        // No event after a compaction: the next userPromptSubmitted carries the handoff back.
        case(
            "copilot-compaction",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(79),
                compact(),
                Step::Compacted,
                tool(),
                prompt(),
                prompt(),
                hook(SESSION_START, "sessionStart", "session_start-resume"),
                end(),
            ],
        ),
    ]
}

fn droid_cases() -> Vec<Case> {
    let c = &DROID;
    let start = || hook(SESSION_START, "SessionStart", "session_start-startup");
    let prompt = || {
        // Droid's UserPromptSubmit was not captured (`droid exec` sends none): its Stop payload
        // with the event and prompt Claude Code's form gives it.
        with(
            CONTEXT_WATCH,
            "UserPromptSubmit",
            "stop",
            json!({"hook_event_name": "UserPromptSubmit", "prompt": "go on"}),
        )
    };
    let tool = || hook(CONTEXT_WATCH, "PostToolUse", "post_tool_use");
    let stop = || hook(CONTEXT_WATCH, "Stop", "stop");
    let continuing = || {
        with(
            CONTEXT_WATCH,
            "Stop",
            "stop",
            json!({"stop_hook_active": true}),
        )
    };
    // Only `/compress` runs PreCompact (its trigger says `auto`).
    let compact = || {
        with(
            PRE_COMPACT,
            "PreCompact",
            "stop",
            json!({"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""}),
        )
    };
    let end = || hook(PRE_COMPACT, "SessionEnd", "session_end-other");
    vec![
        case(
            "droid-no-handoff",
            c,
            Setup::Nothing,
            vec![start(), prompt(), tool(), compact(), stop(), end()],
        ),
        case("droid-drifted", c, Setup::Drifted, vec![start()]),
        // Measured against its compaction limit: remind at 60 %, insist at 75 %.
        case(
            "droid-watch",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(20),
                prompt(),
                tool(),
                stop(),
                Step::Fill(61),
                tool(),
                tool(),
                stop(),
                Step::Fill(76),
                tool(),
                stop(),
                continuing(),
                stop(),
                end(),
            ],
        ),
        // Its automatic compaction runs no hook: the next PostToolUse finds the transcript's
        // compaction_state and carries the handoff back, once.
        case(
            "droid-auto-compaction",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(50),
                tool(),
                Step::Compacted,
                tool(),
                tool(),
                end(),
            ],
        ),
        // `/compress`: PreCompact, the old session opened once more (SessionStart `resume`)
        // to be summarized, then the summary starts a new session with SessionStart `compact`.
        case(
            "droid-compress",
            c,
            Setup::Handoff,
            vec![
                start(),
                Step::Fill(50),
                compact(),
                with(
                    SESSION_START,
                    "SessionStart",
                    "session_start-startup",
                    json!({"source": "resume"}),
                ),
                with(
                    SESSION_START,
                    "SessionStart",
                    "session_start-resume",
                    json!({"source": "compact"}),
                ),
                end(),
            ],
        ),
    ]
}

/// One call's whole stdout, checked for the form every client of these four accepts: nothing,
/// or one JSON object on one line ending in one newline.
fn checked_stdout(label: &str, run: &Run) -> String {
    run.assert_clean(label);
    let out = run.stdout_str();
    if out.is_empty() {
        return "(nothing)\n".into();
    }
    crate::support::snapshot::assert_final_newline(label, &out);
    assert_eq!(out.matches('\n').count(), 1, "{label}: one line: {out}");
    let v: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{label}: not JSON ({e}): {out}"));
    assert!(v.is_object(), "{label}: {out}");
    ours(&out)
}

/// The journal's events in order, each with the fields that tell it apart.
fn journal(repo: &Repo) -> String {
    let mut out = String::new();
    for e in repo.journal_events() {
        let event = e["event"].as_str().unwrap_or("?").to_string();
        let detail: String = [
            "agent", "source", "trigger", "reason", "action", "percent", "window",
        ]
        .iter()
        .filter(|k| e[**k].is_string() || e[**k].is_number())
        .map(|k| format!(" {k}={}", e[*k].to_string().trim_matches('"')))
        .collect();
        out.push_str(&format!("{event}{detail}\n"));
    }
    out
}

fn run_case(case: &Case) -> String {
    let client = case.client;
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
    // The client's own files (settings, transcripts) under a home of the test's: the user's
    // real settings (a compaction point of theirs) never move the thresholds here.
    let tdir = tempfile::tempdir().unwrap();
    let home = tdir.path().join("home");
    let transcript = transcript_path(client, repo.path(), &home);
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(fixture_dir(client).join(client.transcript), &transcript).unwrap();
    // The handoff is older than the session, as in real use.
    std::thread::sleep(std::time::Duration::from_millis(5));
    let home_var = home.to_str().unwrap().to_string();
    let env = [("HOME", home_var.as_str())];
    let mut out = String::new();
    for (n, step) in case.steps.iter().enumerate() {
        match step {
            Step::Fill(percent) => {
                fill(client, &transcript, client.window * percent / 100);
                out.push_str(&format!("~ the transcript at {percent} %\n"));
            }
            Step::Compacted => {
                compacted(client, &transcript);
                out.push_str("~ the client compacted\n");
            }
            Step::FirstLines(n) => {
                let text = std::fs::read_to_string(&transcript).unwrap();
                let kept: String = text.split_inclusive('\n').take(*n).collect();
                std::fs::write(&transcript, kept).unwrap();
                out.push_str(&format!("~ the transcript's first {n} lines only\n"));
            }
            Step::Hook {
                exe,
                event,
                fixture,
                fields,
            } => {
                let v = payload_of(client, fixture, fields, repo.path(), &home);
                let mut args = vec!["--agent", client.agent];
                if client.event_flag {
                    args.extend(["--event", event]);
                }
                let run = run_hook(exe, &args, payload(v), &env);
                let label = format!("{} step {n} {event}", case.name);
                let note = fields
                    .as_object()
                    .unwrap()
                    .iter()
                    .filter(|(k, _)| {
                        ["source", "trigger", "stop_hook_active"].contains(&k.as_str())
                    })
                    .map(|(k, v)| format!(" {k}={v}"))
                    .collect::<String>();
                out.push_str(&format!("> {event}{note}\n"));
                out.push_str(&checked_stdout(&label, &run));
            }
        }
    }
    out.push_str("journal:\n");
    out.push_str(&journal(&repo));
    out
}

#[test]
fn every_event_of_the_other_clients_gives_the_recorded_stdout() {
    for case in cases() {
        let text = run_case(&case);
        insta::assert_snapshot!(case.name, text);
    }
}

#[test]
fn snapshots_have_no_strays() {
    let names: Vec<String> = cases()
        .iter()
        .map(|c| format!("hooks__hooks__per_client__{}.snap", c.name))
        .collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks/snapshots");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("hooks__hooks__per_client__") && name.ends_with(".snap") {
            assert!(
                names.contains(&name),
                "tests/hooks/snapshots/{name} belongs to no case"
            );
        }
    }
}
