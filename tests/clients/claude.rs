//! End to end with the real Claude Code (pinned in tests/clients/package.json): a handoff
//! survives a real restart. The scenarios live in tests/support/src/scenarios.rs; the harness and
//! the fake model server in tests/support/. Needs node/npm and root (`unshare -n`); set
//! HANDOVER_SKIP_E2E=1 to skip them loudly.
use crate::support;

use crate::support::fake_server::Turn;
use crate::support::{
    clients, count_in, record_scenarios, scenarios, Agent, RunOpts, Sandbox, Trust,
};

#[test]
fn claude_1_handoff_reaches_next_session() {
    if clients("claude_1_handoff_reaches_next_session").is_some() {
        scenarios::handoff_reaches_next_session(Agent::Claude, Trust::BypassFlag);
    }
}

#[test]
fn claude_2_drift_and_stale_are_reported() {
    if clients("claude_2_drift_and_stale_are_reported").is_some() {
        scenarios::drift_and_stale_are_reported(Agent::Claude);
    }
}

#[test]
fn claude_3_save_progress_is_asked_once() {
    if clients("claude_3_save_progress_is_asked_once").is_some() {
        scenarios::save_progress_is_asked_once(Agent::Claude);
    }
}

#[test]
fn claude_4_compaction_keeps_the_handoff() {
    if clients("claude_4_compaction_keeps_the_handoff").is_some() {
        scenarios::compaction_claude();
    }
}

#[test]
fn claude_5_nothing_without_handoff() {
    if clients("claude_5_nothing_without_handoff").is_some() {
        scenarios::nothing_without_handoff(Agent::Claude);
    }
}

#[test]
fn claude_6_corrupted_state_is_recovered() {
    if clients("claude_6_corrupted_state_is_recovered").is_some() {
        scenarios::corrupted_state_is_recovered(Agent::Claude);
    }
}

#[test]
fn claude_7_stop_is_blocked_once_above_second_threshold() {
    if clients("claude_7_stop_is_blocked_once_above_second_threshold").is_some() {
        scenarios::stop_is_blocked_once_above_second_threshold(Agent::Claude);
    }
}

/// The fake server itself, without a client (runs even under HANDOVER_SKIP_E2E): scripted turns
/// in order, a `when` turn only for a matching request, compaction requests answered with the
/// summary without taking a turn, the event order of both streaming APIs, turns appended while
/// it runs, and the request log.
#[test]
fn fake_server_follows_its_script() {
    use std::io::{Read, Write};
    use support::fake_server::{read_log, serve, Script, Turn};
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("requests.jsonl");
    let port_path = dir.path().join("port");
    let more = dir.path().join("more.jsonl");
    let script = Script {
        turns: vec![
            Turn::shell("echo one").usage(5_000),
            Turn::text("second").when("MAGIC"),
            Turn::text("first text"),
        ],
        default_text: "default".into(),
        summary: "<summary>S</summary>".into(),
        default_usage: 7,
        log: log.clone(),
        max_requests: 7,
        idle_timeout_secs: 10,
        more_turns: Some(more.clone()),
        answer_delay_ms: 0,
    };
    let server = std::thread::spawn(move || serve(script, &port_path));
    let port_path = dir.path().join("port");
    let mut port = String::new();
    for _ in 0..200 {
        if let Ok(p) = std::fs::read_to_string(&port_path) {
            port = p;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(!port.is_empty(), "the server wrote no port file");
    let post = |path: &str, body: serde_json::Value| -> String {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap()))
            .expect("connect");
        let body = body.to_string();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let tools = serde_json::json!([{"name": "Bash"}]);
    let msg = |text: &str| {
        serde_json::json!({"model": "m", "stream": true, "tools": tools,
                           "messages": [{"role": "user", "content": text}]})
    };
    // 1: the first turn (a tool call), in Messages API event order.
    let r1 = post("/v1/messages?beta=true", msg("hello"));
    let order: Vec<&str> = r1
        .lines()
        .filter_map(|l| l.strip_prefix("event: "))
        .collect();
    assert_eq!(
        order,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(
        r1.contains("\"tool_use\"")
            && r1.contains("echo one")
            && r1.contains("\"input_tokens\":5000")
    );
    // 2: "second" waits for MAGIC, so this request gets "first text".
    let r2 = post("/v1/messages?beta=true", msg("plain"));
    assert!(r2.contains("first text") && r2.contains("end_turn"), "{r2}");
    // 3: a Claude Code compaction request: the summary, no turn taken.
    let r3 = post(
        "/v1/messages?beta=true",
        msg("CRITICAL: Respond with TEXT ONLY. Summarize."),
    );
    assert!(r3.contains("<summary>S</summary>"), "{r3}");
    // 4: the MAGIC turn, over the Responses API.
    let r4 = post(
        "/v1/responses",
        serde_json::json!({"model": "m", "stream": true, "tools": tools, "input": "MAGIC"}),
    );
    assert!(
        r4.contains("response.completed") && r4.contains("second"),
        "{r4}"
    );
    // 5: a Responses request without tools is Codex's compaction.
    let r5 = post(
        "/v1/responses",
        serde_json::json!({"model": "m", "stream": true, "input": "summarize"}),
    );
    assert!(
        r5.contains("<summary>S</summary>") && r5.contains("\"input_tokens\":7"),
        "{r5}"
    );
    // 6: the queue is empty: the default answer.
    let r6 = post("/v1/messages?beta=true", msg("more"));
    assert!(r6.contains("default"), "{r6}");
    // 7: a turn appended while the server runs answers the next request (a half-written line
    // waits); then the request limit stops the server.
    let appended = serde_json::to_string(&Turn::text("appended")).unwrap();
    std::fs::write(&more, format!("{appended}\n{{\"text\": \"half")).unwrap();
    let r7 = post("/v1/messages?beta=true", msg("again"));
    assert!(r7.contains("appended"), "{r7}");
    server.join().expect("server thread").expect("server ran");
    let logged = read_log(&log);
    let turns: Vec<Option<usize>> = logged.iter().map(|r| r.turn).collect();
    assert_eq!(
        turns,
        [Some(0), Some(2), None, Some(1), None, None, Some(3)]
    );
    let compactions: Vec<bool> = logged.iter().map(|r| r.compaction).collect();
    assert_eq!(compactions, [false, false, true, false, true, false, false]);
    assert_eq!(logged[0].body["messages"][0]["content"], "hello");
}

#[test]
fn claude_8_unfinished_work_reaches_next_session() {
    if clients("claude_8_unfinished_work_reaches_next_session").is_some() {
        record_scenarios::unfinished_work_reaches_next_session(Agent::Claude);
    }
}

#[test]
fn claude_9_committed_work_stays_silent() {
    if clients("claude_9_committed_work_stays_silent").is_some() {
        record_scenarios::committed_work_stays_silent(Agent::Claude);
    }
}

#[test]
fn claude_10_killed_session_leaves_its_last_turn() {
    if clients("claude_10_killed_session_leaves_its_last_turn").is_some() {
        record_scenarios::killed_session_leaves_its_last_turn(Agent::Claude);
    }
}

#[test]
fn claude_11_shell_edits_reach_next_session() {
    if clients("claude_11_shell_edits_reach_next_session").is_some() {
        record_scenarios::shell_edits_reach_next_session(Agent::Claude);
    }
}

#[test]
fn claude_12_shell_edits_survive_a_kill() {
    if clients("claude_12_shell_edits_survive_a_kill").is_some() {
        record_scenarios::shell_edits_survive_a_kill(Agent::Claude);
    }
}

#[test]
fn claude_record_write_fills_from_the_writers_own_record() {
    if clients("claude_record_write_fills_from_the_writers_own_record").is_some() {
        record_scenarios::write_fills_from_the_writers_own_record(Agent::Claude);
    }
}

#[test]
fn claude_13_cleared_session_reaches_next_session() {
    if clients("claude_13_cleared_session_reaches_next_session").is_some() {
        record_scenarios::cleared_session_reaches_next_session(Agent::Claude);
    }
}

/// A Claude Code session started from a GitHub Copilot CLI shell inherits `COPILOT_CLI=1` (and
/// `COPILOT_AGENT_SESSION_ID`), the mark Copilot's own runs of `.claude/settings.json` carry.
/// Claude Code's payloads name its transcript, so our entries know it is Claude Code running
/// them: the startup context arrives once, and none of them stood aside for Copilot.
#[test]
fn claude_started_from_a_copilot_shell_gets_its_context() {
    if clients("claude_started_from_a_copilot_shell_gets_its_context").is_none() {
        return;
    }
    let sb = Sandbox::new(Agent::Claude, Trust::BypassFlag);
    sb.write_handoff();
    let mut opts = RunOpts::prompt("Continue the task.");
    opts.client_env = vec![
        ("COPILOT_CLI", "1".into()),
        (
            "COPILOT_AGENT_SESSION_ID",
            "56a6ce40-714d-4cdf-96d0-5be2fcea3078".into(),
        ),
    ];
    let run = sb.run(
        vec![
            Turn::shell("echo working").usage(2_000),
            Turn::text("Done.").usage(2_500),
        ],
        opts,
    );
    let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
    assert_eq!(
        count_in(
            run.first_request(),
            "handover: a previous session left a handoff"
        ),
        1,
        "no startup context (or more than one) in the first request:\n{}\nhooks:\n{log}",
        run.describe()
    );
    assert!(
        log.contains("agent=claude event=SessionStart")
            && !log.contains("run by GitHub Copilot CLI"),
        "an entry stood aside for Copilot CLI:\n{log}"
    );
}

/// Claude Code moved with an absolute `CLAUDE_CONFIG_DIR` keeps its transcripts under it
/// (`$CLAUDE_CONFIG_DIR/projects/<cwd>/`, not `~/.claude/projects`), and the hooks it runs see
/// the variable: lines its transcript gained after the record's last update (as Claude Code's
/// terminal UI writes a turn's end after Stop) reach the next session through the catch-up.
/// Before, the catch-up looked only under `~/.claude/projects` and left them out.
#[test]
fn claude_moved_with_claude_config_dir_gets_the_catch_up() {
    if clients("claude_moved_with_claude_config_dir_gets_the_catch_up").is_none() {
        return;
    }
    let sb = Sandbox::new(Agent::Claude, Trust::BypassFlag);
    let moved = sb.home.join("moved-claude");
    std::fs::create_dir_all(&moved).unwrap();
    let env = vec![("CLAUDE_CONFIG_DIR", moved.to_string_lossy().into_owned())];
    let mut opts = RunOpts::prompt("Look at the repository.");
    opts.client_env = env.clone();
    let first = sb.run(
        vec![Turn::text("Nothing to change yet.").usage(2_000)],
        opts,
    );
    let under = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|project| std::fs::read_dir(project.path()).into_iter().flatten())
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect()
    };
    let transcripts = under(&moved.join("projects"));
    assert_eq!(transcripts.len(), 1, "{}", first.describe());
    assert!(under(&sb.home.join(".claude/projects")).is_empty());
    // A failing command and the answer to it, written after the session's last update.
    let now = handover_base::clock::format_rfc3339(handover_base::clock::unix_now().0);
    let line = |kind: &str, content: serde_json::Value| {
        format!(
            "{}\n",
            serde_json::json!({"type": kind, "timestamp": now, "sessionId": first.session_id(),
                "message": {"role": kind, "content": content}})
        )
    };
    let late = [
        line(
            "assistant",
            serde_json::json!([{"type": "tool_use", "id": "late1", "name": "Bash",
                "input": {"command": "sh gen.sh"}}]),
        ),
        line(
            "user",
            serde_json::json!([{"type": "tool_result", "tool_use_id": "late1",
                "content": "Exit code 3", "is_error": true}]),
        ),
    ]
    .concat();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&transcripts[0])
        .and_then(|mut f| std::io::Write::write_all(&mut f, late.as_bytes()))
        .unwrap();
    let mut opts = RunOpts::prompt("Continue.");
    opts.client_env = env;
    let next = sb.run(vec![Turn::text("Looking at it.").usage(2_000)], opts);
    let text = support::injected(Agent::Claude, next.first_request());
    assert!(
        text.contains("Last failing command: «sh gen.sh» (failed, exit 3)"),
        "the catch-up did not read the moved transcript; the hooks injected:\n{text}\n{}",
        next.describe()
    );
}
