//! The session record in the clients' terminal UIs (interactive.rs drives them):
//! a session that edited through the shell and failed a command leaves the next session its
//! files and its last failure however it ended — quit (interactive Codex sends no SessionEnd
//! at quit), cleared (`/clear`, Codex `/new`), or SIGKILLed right after a turn; a Codex thread
//! left with `/new` gets its SessionEnd from the app-server daemon about a minute later, which
//! must not make it the "last session" over the newer thread.

use super::fake_server::Turn;
use super::interactive::{Tui, TuiOpts};
use super::record_scenarios::{
    assert_shell_work_told, next_session, prepare_untouched, shell_only_turns_for, AFTER_SHELL_ONLY,
};
use super::*;

/// Interactive Codex also asks the model for a thread title, at about the same time as the
/// thread's first request: this turn answers that request (whichever comes first), so it never
/// takes a step of the scenario.
fn title_turn() -> Turn {
    Turn::text("Shell work").when("task title")
}

/// How each client's terminal UI starts a fresh conversation, and the SessionEnd `reason` it
/// gives the one it leaves (None: Codex sends no SessionEnd then; its daemon ends the thread
/// about a minute later).
fn clear_command(agent: Agent) -> (&'static str, Option<&'static str>) {
    match agent {
        Agent::Claude | Agent::Gemini | Agent::Qwen => ("/clear", Some("clear")),
        Agent::Codex => ("/new", None),
        // Copilot CLI 1.0.102: "Abandon this session and start fresh".
        Agent::Copilot => ("/clear", Some("user_exit")),
        // Factory Droid 0.225.2 ends the session `/new` leaves twice, `clear` then `other`;
        // the record keeps `clear` (its other ends, `/quit` or a signal, say `other`).
        Agent::Droid => ("/new", Some("clear")),
    }
}

/// How each client's terminal UI is quit by its user.
fn quit_command(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude | Agent::Codex | Agent::Copilot => "/exit",
        Agent::Gemini | Agent::Qwen | Agent::Droid => "/quit",
    }
}

/// Interactive record scenario 1: shell-only edits and a failing command in one prompt, then the
/// user quits; the next session's first request carries the files and the failure. Gemini CLI
/// ends the session with SessionEnd `reason: exit`.
pub fn quit_after_a_shell_edit(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::Installed);
    {
        let tui = shell_work_in_a_tui(&sb);
        tui.send(quit_command(agent));
        tui.wait_exit(30);
    }
    if agent == Agent::Copilot {
        // Its SessionEnd is finished by a detached copy of the hook after the client exited
        // (hooks/src/call/detach.rs): the record says so within the harness's bounded wait.
        let until = std::time::Instant::now() + super::hook::RECORD_END_WAIT;
        let ended = loop {
            let ended = record_that_ran(&sb, "codegen").and_then(|r| r.ended);
            if ended
                .as_ref()
                .is_some_and(|e| e.how == handover_record::HowEnded::SessionEnd)
                || std::time::Instant::now() >= until
            {
                break ended;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(
            ended
                .as_ref()
                .is_some_and(|e| e.how == handover_record::HowEnded::SessionEnd),
            "the quit Copilot session's record does not say it ended: {ended:?}"
        );
    }
    if agent == Agent::Gemini {
        let ended = record_that_ran(&sb, "codegen").and_then(|r| r.ended);
        assert!(
            ended
                .as_ref()
                .is_some_and(|e| e.how == handover_record::HowEnded::SessionEnd
                    && e.reason.as_deref() == Some("exit")),
            "the quit Gemini session's record does not say it ended: {ended:?}"
        );
    }
    let s2 = next_session(&sb);
    let text = injected(agent, s2.first_request());
    assert_shell_work_told(agent, &text);
    if agent == Agent::Codex {
        // Interactive Codex runs no hook at `/exit` itself: its app-server reports the end
        // (here within seconds, as the harness stops its leftover processes; in use up to a
        // minute later). Either way the next session never reads a suggestion of a kill: the
        // end, or that the end is reported late.
        assert!(
            (text.contains("(SessionEnd, reason")
                || text.contains(super::record_scenarios::no_end_recorded(agent)))
                && !text.contains("quit, killed"),
            "the quit Codex session reads like a crash: {text}"
        );
    }
}

/// Shell-only edits and a failing command in one prompt, in a fresh terminal UI of the
/// sandbox's client; returns once the turn's Stop (Gemini CLI: AfterAgent) has updated the
/// record.
fn shell_work_in_a_tui(sb: &Sandbox) -> Tui<'_> {
    let agent = sb.agent;
    prepare_untouched(sb);
    let mut turns = vec![title_turn()];
    turns.extend(shell_only_turns_for(sb));
    turns.push(
        Turn::text("SHELL-WORK-DONE")
            .usage(3_300)
            .when(AFTER_SHELL_ONLY),
    );
    let tui = sb.tui(turns, TuiOpts::default());
    tui.send("Make the parser strip whitespace.");
    tui.wait_for("SHELL-WORK-DONE", 90);
    // Claude Code 2.1.330's terminal UI writes the turn to its transcript after Stop has run
    // (seen: the transcript ended at the second tool call), so its Stop-time record can lag a
    // turn behind; SessionEnd, or the next session's start (record::catch_up), reads the rest.
    // Qwen Code 0.24.4 queues its transcript writes: on a loaded machine (load 13) its Stop
    // measured the usage of the `sed` step and its record lacked the turn's last lines (seen
    // before PostToolUseFailure was wired; that hook now adds the failing command itself);
    // quit and clear send SessionEnd, which reads the rest, and a kill leaves it to the
    // next start's catch-up.
    // There, the record existing is the sign that Stop ran.
    let stop_ran = |text: &str| match agent {
        Agent::Claude | Agent::Qwen => text.contains("Make the parser strip whitespace."),
        Agent::Codex | Agent::Gemini | Agent::Copilot | Agent::Droid => text.contains("codegen"),
    };
    tui.wait_until("the turn's record", 30, || {
        stop_ran(&records_text(&sb.project))
    });
    tui
}

/// The record of the session that ran `command`, when there is one.
fn record_that_ran(sb: &Sandbox, command: &str) -> Option<handover_record::SessionRecord> {
    let store = handover_handoff::store::Store::discover(&sb.project);
    let now = handover_base::clock::millis(std::time::SystemTime::now());
    handover_record::files::list_own(&store, now)
        .into_iter()
        .find(|r| r.commands.iter().any(|c| c.command.contains(command)))
}

/// Interactive record scenario 3: shell edits and a failing command, then the user clears the
/// conversation (Claude Code, Gemini CLI `/clear`; Codex `/new`): the new session's first
/// request carries the files and the failure of the cleared one. Claude Code and Gemini CLI
/// end the cleared session with SessionEnd `reason: clear`.
pub fn clear_after_a_shell_edit(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::Installed);
    let tui = shell_work_in_a_tui(&sb);
    let (clear, reason) = clear_command(agent);
    if agent == Agent::Codex {
        // The new thread asks for a title too.
        tui.add_turns(vec![title_turn()]);
    }
    tui.send(clear);
    if agent == Agent::Codex {
        tui.settle(5);
        tui.key("Enter");
    }
    tui.settle(10);
    let first = tui.exchange("Carry on from the last session.", "AFTER-CLEAR", 60);
    let text = injected(agent, &first);
    assert_shell_work_told(agent, &text);
    if let Some(reason) = reason {
        let ended = record_that_ran(&sb, "codegen").and_then(|r| r.ended);
        assert!(
            ended
                .as_ref()
                .is_some_and(|e| e.how == handover_record::HowEnded::SessionEnd
                    && e.reason.as_deref() == Some(reason)),
            "{}: the cleared session's record does not say it ended with {reason:?}: {ended:?}\n{}",
            agent.name(),
            tui.describe()
        );
    }
}

/// Interactive record scenario 4: the client is SIGKILLed right after a turn that edited
/// through the shell and failed (no SessionEnd): the next session is still told the files and
/// the failure. For Claude Code this can need the catch-up at the next start: its terminal UI
/// may write the turn's last lines (here the failing command's result, in 1 run of 3 seen) to
/// the transcript after Stop ran, and the Stop-time record then lags (record::catch_up; the
/// same case without the timing: tests/hooks/session_record.rs,
/// `lines_written_after_the_last_stop_reach_the_next_session`).
pub fn killed_after_a_turn(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::Installed);
    {
        let tui = shell_work_in_a_tui(&sb);
        // The turn is on disk in the client's transcript (Claude Code writes it a little after
        // Stop); the kill comes after that, as when a terminal is closed after a turn.
        tui.wait_until("the turn in the transcript", 30, || {
            transcripts_text(&sb).contains("SHELL-WORK-DONE")
        });
        eprintln!(
            "e2e tui {}: the record before the kill has the failing command's end: {}",
            agent.name(),
            record_that_ran(&sb, "codegen").is_some()
        );
        let killed = tui.kill_client();
        assert!(!killed.is_empty(), "no client process found to kill");
        tui.wait_exit(30);
    }
    let s2 = next_session(&sb);
    let text = injected(agent, s2.first_request());
    assert_shell_work_told(agent, &text);
    assert!(
        text.contains(super::record_scenarios::no_end_recorded(agent)),
        "{}: {text}",
        agent.name()
    );
}

/// Every transcript file's text under the sandbox's HOME (Claude Code `~/.claude/projects/`,
/// Gemini CLI `~/.gemini/tmp/`, Qwen Code `~/.qwen/projects/`, Copilot CLI
/// `~/.copilot/session-state/`, Factory Droid `~/.factory/sessions/`).
fn transcripts_text(sb: &Sandbox) -> String {
    let mut text = String::new();
    let mut dirs = vec![
        sb.home.join(".claude/projects"),
        sb.home.join(".gemini/tmp"),
        sb.home.join(".qwen/projects"),
        sb.home.join(".copilot/session-state"),
        sb.home.join(".factory/sessions"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    text
}

/// Every record file's text in `project` (to wait for an update without parsing).
pub fn records_text(project: &Path) -> String {
    std::fs::read_dir(project.join(".handover/records"))
        .map(|d| {
            d.flatten()
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Seconds Codex's daemon keeps thread A loaded once the user left it: long enough that its
/// SessionEnd comes after thread B's turn (which took under 12 s at load 20), shorter than the
/// default minute every run would wait out.
const LEFT_THREAD_UNLOAD_SECS: u64 = 30;

/// Interactive record scenario 2 (Codex): thread A fails a command, the user starts a new
/// thread (`/new`) that fails another; the daemon ends thread A later, after thread B's turn
/// (it unloads a thread left without subscribers after `thread_unload_delay_secs`: 60 s by
/// default, [`LEFT_THREAD_UNLOAD_SECS`] here). The next session is told about thread B, not A.
pub fn codex_left_thread_late_session_end() {
    let agent = Agent::Codex;
    let sb = Sandbox::with_codex_config(
        agent,
        Trust::Installed,
        &format!("thread_unload_delay_secs = {LEFT_THREAD_UNLOAD_SECS}"),
    );
    const OLD: &str = "sh -c 'echo old thread; exit 4'";
    const NEW: &str = "sh -c 'echo new thread; exit 5'";
    let tui = sb.tui(
        vec![
            title_turn(),
            Turn::shell(OLD).usage(3_000),
            Turn::text("THREAD-A-DONE").usage(3_100).when("old thread"),
        ],
        TuiOpts::default(),
    );
    tui.send("Run the old check.");
    tui.wait_for("THREAD-A-DONE", 90);
    tui.add_turns(vec![
        title_turn(),
        Turn::shell(NEW).usage(3_000).when("Run the new check"),
        Turn::text("THREAD-B-DONE").usage(3_100).when("new thread"),
    ]);
    // Codex 0.169.0 asks where the new thread runs: Enter takes the default.
    tui.send("/new");
    tui.settle(5);
    tui.key("Enter");
    tui.settle(5);
    tui.send("Run the new check.");
    tui.wait_for("THREAD-B-DONE", 90);
    let left_thread_ended = || {
        let store = handover_handoff::store::Store::discover(&sb.project);
        let now = handover_base::clock::millis(std::time::SystemTime::now());
        handover_record::files::list_own(&store, now)
            .iter()
            .any(|r| {
                r.commands.iter().any(|c| c.command.contains("old thread"))
                    && r.ended
                        .as_ref()
                        .is_some_and(|e| e.how == handover_record::HowEnded::SessionEnd)
            })
    };
    assert!(
        !left_thread_ended(),
        "thread A ended before thread B's turn was done: not a late end\n{}",
        tui.describe()
    );
    // The daemon's late SessionEnd of thread A.
    tui.wait_until("the left thread's SessionEnd", 150, left_thread_ended);
    drop(tui);
    let s2 = next_session(&sb);
    let text = injected(agent, s2.first_request());
    assert!(
        text.contains("new thread; exit 5") && !text.contains("old thread"),
        "the next session was not told about the newer thread:\n{text}"
    );
}
