//! The session record with the real clients: a session that edits a file, runs a failing test
//! and ends without a handoff is shown to the next one; a session that commits everything
//! leaves the next one nothing extra; a session killed mid-turn still leaves the facts of its
//! last completed turn; a session that edits only through the shell and whose last failing
//! command is not a test still leaves the next one its files and that failure, however it
//! ended. Asserted on what the next session's first model request carries.

use super::fake_server::{ToolCall, Turn};
use super::*;
use serde_json::json;
use std::process::{Command, Stdio};

/// The test suite the sessions run: it fails.
const FAILING_TESTS: &str = "#!/bin/sh\necho test_parse FAILED\nexit 1\n";
const OPENING: &str = "handover: no handoff was written";

/// One answer that creates `src/parse.py` and `run_tests.sh` with the client's own edit tool
/// (Claude Code: two parallel `Write` calls; Codex: one `apply_patch`).
fn write_files(sb: &Sandbox) -> Turn {
    let calls = match sb.agent {
        Agent::Claude => vec![
            ToolCall::new(
                "Write",
                json!({"file_path": sb.project.join("src/parse.py"),
                       "content": "def parse(s):\n    return s.strip()\n"}),
            ),
            ToolCall::new(
                "Write",
                json!({"file_path": sb.project.join("run_tests.sh"), "content": FAILING_TESTS}),
            ),
        ],
        Agent::Codex => {
            let tests: String = FAILING_TESTS.lines().map(|l| format!("+{l}\n")).collect();
            vec![ToolCall::new(
                "apply_patch",
                json!(format!(
                    "*** Begin Patch\n*** Add File: src/parse.py\n+def parse(s):\n+    return s.strip()\n*** Add File: run_tests.sh\n{tests}*** End Patch\n"
                )),
            )]
        }
        // Copilot CLI: two `create` calls in one answer.
        Agent::Copilot => vec![
            ToolCall::new(
                "create",
                json!({"path": sb.project.join("src/parse.py"),
                       "file_text": "def parse(s):\n    return s.strip()\n"}),
            ),
            ToolCall::new(
                "create",
                json!({"path": sb.project.join("run_tests.sh"), "file_text": FAILING_TESTS}),
            ),
        ],
        // Factory Droid: two `Create` calls in one answer.
        Agent::Droid => vec![
            ToolCall::new(
                "Create",
                json!({"file_path": sb.project.join("src/parse.py"),
                       "content": "def parse(s):\n    return s.strip()\n"}),
            ),
            ToolCall::new(
                "Create",
                json!({"file_path": sb.project.join("run_tests.sh"), "content": FAILING_TESTS}),
            ),
        ],
        // Gemini CLI and Qwen Code: two `write_file` calls in one answer.
        Agent::Gemini | Agent::Qwen => vec![
            ToolCall::new(
                "write_file",
                json!({"file_path": sb.project.join("src/parse.py"),
                       "content": "def parse(s):\n    return s.strip()\n"}),
            ),
            ToolCall::new(
                "write_file",
                json!({"file_path": sb.project.join("run_tests.sh"), "content": FAILING_TESTS}),
            ),
        ],
    };
    Turn::tools(calls).usage(3_000)
}

/// A shell script that SIGKILLs the client running it: the nearest ancestor process whose
/// executable is `claude` or `codex`, or `node` running Gemini CLI (never anything by name
/// elsewhere on the machine).
const KILL_MY_CLIENT: &str = r#"p=$PPID; i=0
while [ "$p" -gt 1 ] && [ $i -lt 30 ]; do
  e=$(readlink /proc/$p/exe)
  case "${e##*/}" in
    claude|codex) kill -9 "$p"; sleep 5; exit 0;;
    node) if tr '\0' ' ' </proc/$p/cmdline | grep -q gemini; then kill -9 "$p"; sleep 5; exit 0; fi;;
  esac
  p=$(awk '{print $4}' /proc/$p/stat); i=$((i+1))
done
exit 3
"#;

/// The command that runs [`KILL_MY_CLIENT`], written beside the project (outside the working
/// tree): Gemini CLI refuses a command line holding `$(...)`, a script file it runs.
fn kill_my_client(sb: &Sandbox) -> String {
    let script = sb.root.join("kill-my-client.sh");
    std::fs::write(&script, KILL_MY_CLIENT).unwrap();
    format!("sh {}", shell_quote(&script.to_string_lossy()))
}

/// Session 1: edits two files, runs the failing tests, ends without a handoff.
fn unfinished_session(sb: &Sandbox) -> ClientRun {
    let mut turns = vec![
        write_files(sb),
        Turn::shell("sh run_tests.sh").usage(3_200),
        Turn::text("Parser edited; the test suite still fails on test_parse.").usage(3_400),
    ];
    if sb.agent == Agent::Qwen {
        // Qwen Code's transcript writes are queued: one more step before the end lets the
        // failing run's result reach the disk before the last Stop (see shell_only_session).
        turns.insert(2, Turn::shell("true").usage(3_300));
    }
    let run = sb.run(
        turns,
        RunOpts::prompt("Make the parser strip whitespace and run the tests."),
    );
    assert!(
        sb.project.join("src/parse.py").is_file(),
        "the edit tool did not run:\n{}",
        run.describe()
    );
    run
}

pub fn next_session(sb: &Sandbox) -> ClientRun {
    sb.run(
        vec![Turn::text("Looking at it.").usage(2_000)],
        RunOpts::prompt("Continue."),
    )
}

fn assert_carries(agent: Agent, text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            text.contains(needle),
            "{}: the next session's first request lacks {needle:?}; the hooks injected:\n{text}",
            agent.name()
        );
    }
}

/// Record scenario 1: the next session's first request carries the edited file, the failing
/// command and how the last session ended.
pub fn unfinished_work_reaches_next_session(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = unfinished_session(&sb);
    assert!(
        !sb.project.join(".handover/state.json").exists(),
        "no handoff was meant to be written"
    );
    let s2 = next_session(&sb);
    assert_ne!(s1.session_id(), s2.session_id());
    let text = injected(agent, s2.first_request());
    let ours = &text[text.find(OPENING).unwrap_or(0)..];
    // Each client's reason at the end of a headless run: Gemini CLI says `exit`; Qwen Code
    // sends no SessionEnd under `-p`, so its record says what is known instead.
    let ending = match agent {
        Agent::Gemini => "(SessionEnd, reason «exit»)",
        Agent::Claude | Agent::Codex | Agent::Droid => "(SessionEnd, reason «other»)",
        Agent::Qwen => "idle since then; no end recorded (quit, killed or still open)",
        // Copilot CLI ends a `-p` run with sessionEnd reason `complete`.
        Agent::Copilot => "(SessionEnd, reason «complete»)",
    };
    assert_carries(
        agent,
        ours,
        &[
            OPENING,
            "src/parse.py",
            "Last failing command: «sh run_tests.sh» (failed, exit 1)",
            ending,
            "Still uncommitted now:",
        ],
    );
    let ours_len = ours.split("\n\n").next().unwrap_or(ours).chars().count();
    assert!(ours_len <= 1_500, "{ours_len} characters:\n{ours}");
    // `handover boot` shows the record too.
    let boot = sb.handover(&["boot"]);
    let boot = String::from_utf8_lossy(&boot.stdout);
    assert!(
        boot.contains(&format!("Session «{}»", s1.session_id())),
        "{boot}"
    );
    assert_eq!(sb.hook_errors(&[&s1, &s2]), Vec::<String>::new());
}

/// Record scenario 2: a session that commits all it did and passes leaves nothing extra.
pub fn committed_work_stays_silent(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let mut first = write_files(&sb);
    // A passing suite instead of the failing one.
    for call in &mut first.tools {
        if let Some(c) = call.input.get_mut("content") {
            if c.as_str() == Some(FAILING_TESTS) {
                *c = json!("#!/bin/sh\necho ok\n");
            }
        }
        if let Some(p) = call.input.as_str() {
            call.input = json!(p.replace("+echo test_parse FAILED\n+exit 1\n", "+echo ok\n"));
        }
    }
    let mut turns = vec![first];
    if agent == Agent::Droid {
        // Droid-Shield refuses a commit whose index changes earlier in the same command.
        turns.push(Turn::shell("sh run_tests.sh && git add -A").usage(3_100));
        turns.push(Turn::shell("git commit -qm 'Strip whitespace'").usage(3_200));
    } else {
        turns.push(
            Turn::shell("sh run_tests.sh && git add -A && git commit -qm 'Strip whitespace'")
                .usage(3_200),
        );
    }
    turns.push(Turn::text("Done and committed.").usage(3_400));
    let s1 = sb.run(
        turns,
        RunOpts::prompt("Make the parser strip whitespace, test and commit."),
    );
    let status = sb.git(&["status", "--porcelain"]);
    assert!(
        status.trim().is_empty(),
        "session 1 left changes: {status}\n{}",
        s1.describe()
    );
    let s2 = next_session(&sb);
    for r in s2.conversation() {
        let text = injected(agent, r);
        assert!(
            !text.contains("handover:"),
            "{}: request {} got handover context after a clean session:\n{text}",
            agent.name(),
            r.n
        );
    }
    // The record exists (the hooks ran), it just had nothing to say.
    let records = sb.project.join(".handover/records");
    assert!(
        std::fs::read_dir(&records).is_ok_and(|d| d.count() >= 2),
        "no session record in {}",
        records.display()
    );
    assert_eq!(sb.hook_errors(&[&s1, &s2]), Vec::<String>::new());
}

/// Record scenario 3: the session is resumed and SIGKILLed in the middle of its next turn (no
/// Stop, no SessionEnd); the next session still gets the facts of the completed turn.
pub fn killed_session_leaves_its_last_turn(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = unfinished_session(&sb);
    let killed = sb.run(
        vec![Turn::shell(&kill_my_client(&sb)).usage(3_600)],
        RunOpts::prompt("Try once more.")
            .resume(&s1.session_id())
            .killed(),
    );
    assert_ne!(
        killed.status,
        Some(0),
        "the client was not killed:\n{}",
        killed.describe()
    );
    let s3 = next_session(&sb);
    let text = injected(agent, s3.first_request());
    assert_carries(
        agent,
        &text,
        &[
            OPENING,
            "src/parse.py",
            "Last failing command: «sh run_tests.sh» (failed, exit 1)",
            no_end_recorded(agent),
        ],
    );
}

/// Edits through the shell only (no edit tool): a new file by redirection, a tracked file by
/// `sed -i`; then a failing command that is not a test run (a code generator's stand-in: not
/// `grep`: a search without a match is an answer, not a failure, in every client).
const SHELL_CREATE: &str =
    "mkdir -p src && printf 'def parse(s):\\n    return s.strip()\\n' > src/parse.py";
const SHELL_CHANGE: &str = "sed -i 's/report()/report_csv()/' src/report.rs";
const FAILING_CHECK: &str = "sh -c 'echo codegen: 2 errors; exit 3'";
/// Dirty before the session began, and left alone by it.
const UNTOUCHED: &str = "notes-untouched.md";

/// Leaves `UNTOUCHED` dirty, last changed an hour before the session.
pub fn prepare_untouched(sb: &Sandbox) {
    let untouched = sb.project.join(UNTOUCHED);
    std::fs::write(&untouched, "the user's own notes\n").unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&untouched)
        .and_then(|f| f.set_modified(an_hour_ago))
        .unwrap();
}

/// The model's answers of a shell-only session, before its final text. Each answers only a
/// request that carries the previous call (interactive Codex also asks the model for a thread
/// title, which must not take a step).
pub fn shell_only_turns() -> Vec<Turn> {
    vec![
        Turn::shell(SHELL_CREATE).usage(3_000),
        Turn::shell(SHELL_CHANGE).usage(3_100).when("src/parse.py"),
        Turn::shell(FAILING_CHECK).usage(3_200).when("report_csv"),
    ]
}

/// What the final answer of a shell-only session waits for: the failing command in the request.
pub const AFTER_SHELL_ONLY: &str = "codegen";

/// [`shell_only_turns`] as the sandbox's client needs them (Qwen Code: one more step, and a read
/// before the edit), before the final text.
pub fn shell_only_turns_for(sb: &Sandbox) -> Vec<Turn> {
    let mut turns = shell_only_turns();
    if sb.agent == Agent::Qwen {
        // Qwen Code 0.24.4 queues its transcript writes: at the Stop right after the failing
        // command the line with its result may not be on disk yet, and `-p` sends no SessionEnd
        // to read it later (docs/hooks.md). One more step lets the queue drain first.
        turns.push(Turn::shell("true").usage(3_250).when(AFTER_SHELL_ONLY));
        // Qwen Code 0.24.4's shell tool refuses `sed -i` on a file the session has not read
        // ("has not been read in this session. Use the read_file tool first"): read it first,
        // as its model would.
        turns.insert(
            1,
            Turn::tools(vec![ToolCall::new(
                "read_file",
                json!({"file_path": sb.project.join("src/report.rs")}),
            )])
            .usage(3_050)
            .when("src/parse.py"),
        );
    }
    turns
}

fn shell_only_session(sb: &Sandbox) -> ClientRun {
    prepare_untouched(sb);
    let mut turns = shell_only_turns_for(sb);
    turns.push(
        Turn::text("The parser strips whitespace now; the check still fails.")
            .usage(3_300)
            .when(AFTER_SHELL_ONLY),
    );
    let run = sb.run(turns, RunOpts::prompt("Make the parser strip whitespace."));
    let report = std::fs::read_to_string(sb.project.join("src/report.rs")).unwrap_or_default();
    assert!(
        sb.project.join("src/parse.py").is_file() && report.contains("report_csv"),
        "the shell commands did not run:\n{}",
        run.describe()
    );
    run
}

/// The next session's context names the shell edits and the failure, and not the file left
/// dirty before the session.
pub fn assert_shell_work_told(agent: Agent, text: &str) {
    let ours = &text[text.find(OPENING).unwrap_or(0)..];
    assert_carries(
        agent,
        ours,
        &[
            OPENING,
            "its work looks unfinished",
            "Last failing command: «sh -c 'echo codegen: 2 errors; exit 3'» (failed, exit 3)",
            "Files it edited: ",
            "src/parse.py",
            "src/report.rs",
            "Still uncommitted now:",
        ],
    );
    assert!(
        !ours.contains(UNTOUCHED),
        "{}: a file dirty before the session and untouched by it was attributed:\n{ours}",
        agent.name()
    );
    assert!(
        !ours.contains("killed, or still running"),
        "{}: {ours}",
        agent.name()
    );
}

/// Record scenario 4: edits through the shell, a failing command that is not a test, the
/// session ends (the run exits): the next session is told the files and the failure.
pub fn shell_edits_reach_next_session(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = shell_only_session(&sb);
    let s2 = next_session(&sb);
    assert_ne!(s1.session_id(), s2.session_id());
    assert_shell_work_told(agent, &injected(agent, s2.first_request()));
    assert_eq!(sb.hook_errors(&[&s1, &s2]), Vec::<String>::new());
}

/// Record scenario 5: the same session resumed and SIGKILLed mid-turn: no Stop, no SessionEnd,
/// and still the next session is told the files and the failure of its completed turns.
pub fn shell_edits_survive_a_kill(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = shell_only_session(&sb);
    let killed = sb.run(
        vec![Turn::shell(&kill_my_client(&sb)).usage(3_600)],
        RunOpts::prompt("Try once more.")
            .resume(&s1.session_id())
            .killed(),
    );
    assert_ne!(
        killed.status,
        Some(0),
        "the client was not killed:\n{}",
        killed.describe()
    );
    let s3 = next_session(&sb);
    let text = injected(agent, s3.first_request());
    assert_shell_work_told(agent, &text);
    assert_carries(agent, &text, &[no_end_recorded(agent)]);
}

/// Record scenario: the session's own model writes a handoff through the client's shell tool
/// in a later turn; `handover write` finds the writer's record by the id the client sets for
/// its commands (Claude Code `CLAUDE_CODE_SESSION_ID`, Codex `CODEX_THREAD_ID`), which must be
/// the hooks' session id, and fills the empty fields from it. The same write from a plain
/// shell (no id) fills nothing: the newest record may be another agent's.
pub fn write_fills_from_the_writers_own_record(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = unfinished_session(&sb);
    let write = format!(
        "{} write --goal {}",
        shell_quote(&sb.bins.handover.to_string_lossy()),
        shell_quote("Strip whitespace in the parser")
    );
    let again = sb.run(
        vec![
            Turn::shell(&write).usage(3_600),
            Turn::text("Saved.").usage(3_700),
        ],
        RunOpts::prompt("Save a handoff for the next session.").resume(&s1.session_id()),
    );
    let state: serde_json::Value = serde_json::from_slice(
        &std::fs::read(sb.project.join(".handover/state.json")).unwrap_or_else(|e| {
            panic!(
                "{}: no handoff written ({e}):\n{}",
                agent.name(),
                again.describe()
            )
        }),
    )
    .unwrap();
    let files: Vec<&str> = state["important_files"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["path"].as_str()).collect())
        .unwrap_or_default();
    assert!(
        files.contains(&"src/parse.py"),
        "{}: the writer's own record did not fill important_files: {state}",
        agent.name()
    );
    assert!(
        state["evidence"]["commands_run"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c
                .as_str()
                .is_some_and(|c| c.starts_with("sh run_tests.sh (failed, exit 1")))),
        "{}: {state}",
        agent.name()
    );

    // A person's shell: no client variable, no session id.
    let plain = Command::new(&sb.bins.handover)
        .args(["write", "--goal", "Another task", "--fresh"])
        .current_dir(&sb.project)
        .env("HOME", &sb.home)
        .env_remove("CLAUDECODE")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("HANDOVER_DROID_SESSION_ID")
        .env_remove("HANDOVER_SESSION_ID")
        .env("HANDOVER_AGENT", agent.name())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let state = std::fs::read_to_string(sb.project.join(".handover/state.json")).unwrap();
    assert!(!state.contains("recorded by handover"), "{state}");
    assert_eq!(sb.hook_errors(&[&s1, &again]), Vec::<String>::new());
}

/// Record scenario 6 (Claude Code; the only client whose headless mode can clear: `-p /clear`
/// on a resumed session — `codex exec` has no clear or new thread, Gemini CLI's `-p` runs no
/// `/clear`; their interactive clear and new thread are in tests/clients/interactive.rs): the
/// session edited through the shell and failed a command, then it is cleared (SessionEnd
/// `reason: clear`, then SessionStart `clear` for a new session id); the next session is told
/// the cleared session's files and failure, and how it ended.
pub fn cleared_session_reaches_next_session(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = shell_only_session(&sb);
    let clear = sb.run(vec![], RunOpts::prompt("/clear").resume(&s1.session_id()));
    assert_eq!(clear.status, Some(0), "{}", clear.describe());
    let s3 = next_session(&sb);
    let text = injected(agent, s3.first_request());
    assert_shell_work_told(agent, &text);
    assert_carries(agent, &text, &["(SessionEnd, reason «clear»)"]);
    assert_eq!(sb.hook_errors(&[&s1, &clear, &s3]), Vec::<String>::new());
}

/// How a session's record ends when no end came: Codex says its end comes late rather than
/// suggesting a kill (`Client::late_end`).
pub fn no_end_recorded(agent: Agent) -> &'static str {
    match agent {
        Agent::Codex => "idle since then; no end recorded yet (Codex reports the end of an interactive session about a minute after it is quit or left; a killed one never reports it)",
        _ => "idle since then; no end recorded (quit, killed or still open)",
    }
}
