//! Every hook output of Gemini CLI, Qwen Code, GitHub Copilot CLI and Factory Droid, per event
//! they are wired on (Claude Code's and Codex's: golden.rs), through the real hook executables.
//!
//! Each case is a short session: the payloads captured from the real client
//! (tests/fixtures/clients/<client>-<version>/, with its paths moved to the test's repository
//! and a temporary home), run one after the other against one repository, with the transcript
//! the client captured filled to a given share of its window or marked compacted in between.
//! The snapshot (tests/hooks/snapshots/integration__hooks__per_client__<case>.snap) is every call's
//! whole stdout in order, `(nothing)` where the hook printed nothing, then the journal's events;
//! `{handover}` stands for the command the hooks print and `[TIME]` for the clock.

use crate::support::exe::{context_watch_exe, pre_compact_exe, session_start_exe};
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

/// One of the client's hook calls as its entries make it: the executable, the client's event
/// name and the captured payload (with fields set over it).
#[derive(Clone)]
struct Call {
    exe: &'static str,
    event: &'static str,
    fixture: &'static str,
    fields: Value,
}

fn call(exe: &'static str, event: &'static str, fixture: &'static str, fields: Value) -> Call {
    Call {
        exe,
        event,
        fixture,
        fields,
    }
}

impl Call {
    fn step(&self) -> Step {
        self.with(json!({}))
    }

    /// This call with more fields set over its payload.
    fn with(&self, more: Value) -> Step {
        let mut fields = self.fields.clone();
        for (k, v) in more.as_object().unwrap() {
            fields[k] = v.clone();
        }
        Step::Hook {
            exe: self.exe,
            event: self.event,
            fixture: self.fixture,
            fields,
        }
    }
}

/// The calls every client makes: a new session, a prompt, a tool's result, the end of a turn,
/// a compaction, the end of the session (None where the capture has none).
struct Moments {
    start: Call,
    prompt: Call,
    tool: Call,
    stop: Call,
    compact: Call,
    end: Option<Call>,
}

/// What every client is run through: no handoff (all silent), a drifted handoff at startup,
/// and the context watch below, at and past its two thresholds (`remind`, `insist` in %) with
/// the Stop block once and never while the client is already continuing after one.
fn common_cases(client: &'static Client, m: &Moments, remind: u64, insist: u64) -> Vec<Case> {
    let name = |what: &str| leak(format!("{}-{what}", client.agent));
    let ends = || m.end.iter().map(Call::step).collect::<Vec<_>>();
    let mut quiet = vec![
        m.start.step(),
        m.prompt.step(),
        m.tool.step(),
        m.compact.step(),
        m.stop.step(),
    ];
    quiet.extend(ends());
    let mut watch = vec![
        m.start.step(),
        Step::Fill(20),
        m.prompt.step(),
        m.tool.step(),
        m.stop.step(),
        Step::Fill(remind),
        m.tool.step(),
        m.prompt.step(),
        m.stop.step(),
        Step::Fill(insist),
        m.prompt.step(),
        m.stop.step(),
        m.stop.with(json!({"stop_hook_active": true})),
        m.stop.step(),
    ];
    watch.extend(ends());
    vec![
        case(name("no-handoff"), client, Setup::Nothing, quiet),
        case(
            name("drifted"),
            client,
            Setup::Drifted,
            vec![m.start.step()],
        ),
        case(name("watch"), client, Setup::Handoff, watch),
    ]
}

/// The moments of a client that speaks Claude Code's event names, captured under the same file
/// names (Qwen Code, Factory Droid).
fn claude_named() -> Moments {
    let plain = |exe, event, fixture| call(exe, event, fixture, json!({}));
    Moments {
        start: plain(session_start_exe(), "SessionStart", "session_start-startup"),
        prompt: plain(
            context_watch_exe(),
            "UserPromptSubmit",
            "user_prompt_submit",
        ),
        tool: plain(context_watch_exe(), "PostToolUse", "post_tool_use"),
        stop: plain(context_watch_exe(), "Stop", "stop"),
        compact: plain(pre_compact_exe(), "PreCompact", "pre_compact-auto"),
        end: Some(plain(pre_compact_exe(), "SessionEnd", "session_end-other")),
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
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
    let m = Moments {
        start: call(
            session_start_exe(),
            "SessionStart",
            "session_start-startup",
            json!({}),
        ),
        prompt: call(
            context_watch_exe(),
            "BeforeAgent",
            "before_agent",
            json!({}),
        ),
        tool: call(context_watch_exe(), "AfterTool", "after_tool", json!({})),
        stop: call(context_watch_exe(), "AfterAgent", "after_agent", json!({})),
        compact: call(
            pre_compact_exe(),
            "PreCompress",
            "pre_compress-auto",
            json!({}),
        ),
        end: Some(call(
            pre_compact_exe(),
            "SessionEnd",
            "session_end",
            json!({}),
        )),
    };
    // Compression at 50 % by default: remind at 35 %, insist at 45 %.
    let mut cases = common_cases(c, &m, 36, 46);
    cases.extend([
        // Gemini CLI drops SessionStart `clear`'s context: the next prompt carries it.
        case(
            "gemini-clear",
            c,
            Setup::Handoff,
            vec![
                m.start.with(json!({"source": "clear"})),
                m.prompt.step(),
                m.prompt.step(),
            ],
        ),
        // PreCompress fires before every request: below the compression point it does
        // nothing; at it, it arms the re-injection the next BeforeAgent / AfterTool delivers.
        case(
            "gemini-compression",
            c,
            Setup::Handoff,
            vec![
                m.start.step(),
                Step::Fill(30),
                m.compact.step(),
                Step::Fill(52),
                m.compact.step(),
                Step::Compacted,
                m.tool.step(),
                m.prompt.step(),
                m.compact.with(json!({"trigger": "manual"})),
            ],
        ),
    ]);
    cases
}

fn qwen_cases() -> Vec<Case> {
    let c = &QWEN;
    // SessionEnd only in its terminal UI: not captured.
    let m = Moments {
        end: None,
        ..claude_named()
    };
    // The captured failure is of another session: moved into this one.
    let failure = call(
        context_watch_exe(),
        "PostToolUseFailure",
        "post_tool_use_failure",
        json!({
            "session_id": "b816995a-9626-4b96-ac9f-c09ae265ae41",
            "transcript_path": "/tmp/FIXTURE/home/qwen/.qwen/projects/-tmp-FIXTURE-project/chats/b816995a-9626-4b96-ac9f-c09ae265ae41.jsonl",
        }),
    );
    let post_compact = call(
        pre_compact_exe(),
        "PostCompact",
        "post_compact-auto",
        json!({}),
    );
    // Compaction at 85 % of its window: remind at 60 %, insist at 75 %.
    let mut cases = common_cases(c, &m, 61, 76);
    cases.extend([
        // Its own events without a handoff: nothing.
        case(
            "qwen-no-handoff-own-events",
            c,
            Setup::Nothing,
            vec![failure.step(), post_compact.step()],
        ),
        case(
            "qwen-clear",
            c,
            Setup::Handoff,
            vec![m.start.with(json!({"source": "clear"})), m.prompt.step()],
        ),
        // A failing tool fires PostToolUseFailure instead of PostToolUse: the watch speaks
        // there as at PostToolUse; without a handoff, nothing.
        case(
            "qwen-tool-failure",
            c,
            Setup::Handoff,
            vec![
                m.start.step(),
                Step::Fill(20),
                failure.step(),
                Step::Fill(61),
                failure.step(),
                m.tool.step(),
            ],
        ),
        // PreCompact's instructions go to the summarizer as additionalContext; SessionStart
        // `compact` follows in the same session and carries the handoff back.
        case(
            "qwen-compaction",
            c,
            Setup::Handoff,
            vec![
                m.start.step(),
                Step::Fill(80),
                m.compact.step(),
                m.compact.with(json!({"trigger": "manual"})),
                Step::Compacted,
                post_compact.step(),
                call(
                    session_start_exe(),
                    "SessionStart",
                    "session_start-compact",
                    json!({}),
                )
                .step(),
                m.prompt.step(),
                m.tool.step(),
            ],
        ),
    ]);
    cases
}

fn copilot_cases() -> Vec<Case> {
    let c = &COPILOT;
    let m = Moments {
        start: call(
            session_start_exe(),
            "sessionStart",
            "session_start-new",
            json!({}),
        ),
        prompt: call(
            context_watch_exe(),
            "userPromptSubmitted",
            "user_prompt_submitted",
            json!({}),
        ),
        tool: call(
            context_watch_exe(),
            "postToolUse",
            "post_tool_use",
            json!({}),
        ),
        stop: call(context_watch_exe(), "agentStop", "agent_stop", json!({})),
        compact: call(
            pre_compact_exe(),
            "preCompact",
            "pre_compact-auto",
            json!({}),
        ),
        end: Some(call(
            pre_compact_exe(),
            "sessionEnd",
            "session_end-complete",
            json!({}),
        )),
    };
    // Copilot compacts at 80 % of the prompt limit: remind at 60 %, insist at 75 %.
    let mut cases = common_cases(c, &m, 61, 76);
    cases.extend([
        // A new session's sessionStart may come after its first prompt (after `/clear`, side
        // by side with it): the first prompt, before any request, delivers; sessionStart then
        // stays silent.
        case(
            "copilot-first-prompt",
            c,
            Setup::Handoff,
            vec![
                Step::FirstLines(2),
                m.prompt.step(),
                m.start.step(),
                m.prompt.step(),
            ],
        ),
        // No event after a compaction: the next hook that can carry context brings the
        // handoff back, once.
        case(
            "copilot-compaction",
            c,
            Setup::Handoff,
            vec![
                m.start.step(),
                Step::Fill(79),
                m.compact.step(),
                Step::Compacted,
                m.tool.step(),
                m.prompt.step(),
                call(
                    session_start_exe(),
                    "sessionStart",
                    "session_start-resume",
                    json!({}),
                )
                .step(),
            ],
        ),
    ]);
    cases
}

fn droid_cases() -> Vec<Case> {
    let c = &DROID;
    let m = Moments {
        // Not captured (`droid exec` sends none): its Stop payload with the event and prompt
        // Claude Code's form gives it.
        prompt: call(
            context_watch_exe(),
            "UserPromptSubmit",
            "stop",
            json!({"hook_event_name": "UserPromptSubmit", "prompt": "go on"}),
        ),
        // Only `/compress` runs PreCompact (its trigger says `auto`); not captured either.
        compact: call(
            pre_compact_exe(),
            "PreCompact",
            "stop",
            json!({"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""}),
        ),
        ..claude_named()
    };
    // Measured against its compaction limit: remind at 60 %, insist at 75 %.
    let mut cases = common_cases(c, &m, 61, 76);
    let resume = call(
        session_start_exe(),
        "SessionStart",
        "session_start-resume",
        json!({}),
    );
    cases.extend([
        // Its automatic compaction runs no hook: the next PostToolUse finds the transcript's
        // compaction_state and carries the handoff back, once.
        case(
            "droid-auto-compaction",
            c,
            Setup::Handoff,
            vec![
                m.start.step(),
                Step::Fill(50),
                m.tool.step(),
                Step::Compacted,
                m.tool.step(),
                m.tool.step(),
            ],
        ),
        // A true resume (`--fork`: a new session holding the old one's history): its context
        // is journaled only once a tool result of that session shows a request went out.
        case(
            "droid-resume-journaled-at-a-request",
            c,
            Setup::Handoff,
            vec![
                resume.step(),
                m.tool
                    .with(json!({"session_id": "52b2a7eb-84ec-4e60-9ac5-0a0f07af2344"})),
                m.tool
                    .with(json!({"session_id": "52b2a7eb-84ec-4e60-9ac5-0a0f07af2344"})),
            ],
        ),
        // `/compress`, in the order the terminal UI runs it (captured 2026-11-28): the old
        // session opened once more (SessionStart `resume`, with its last `message_id`) to be
        // summarized, PreCompact, then the summary starts a new session with SessionStart
        // `compact`. The reopened session sends no request: its context is not journaled as
        // delivered.
        case(
            "droid-compress",
            c,
            Setup::Handoff,
            vec![
                m.start.step(),
                Step::Fill(50),
                m.start.with(json!({"source": "resume", "message_id": "7ff5886e-49ff-4a72-b3de-ee4995d6ebda"})),
                m.compact.step(),
                resume.with(json!({"source": "compact"})),
            ],
        ),
    ]);
    cases
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
fn journal(repo: &TestRepo) -> String {
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
    let repo = TestRepo::set_up(case.setup);
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
        .map(|c| format!("integration__hooks__per_client__{}.snap", c.name))
        .collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks/snapshots");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with("integration__hooks__per_client__") && name.ends_with(".snap") {
            assert!(
                names.contains(&name),
                "tests/hooks/snapshots/{name} belongs to no case"
            );
        }
    }
}
