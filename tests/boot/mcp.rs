//! `handover mcp`, the MCP server, spoken to as a client does: JSON-RPC over its standard
//! input and output, one message a line, in a real repository. Every read is bounded in time.

use crate::support::repo::{handover_command, handover_ok, TestRepo};
use crate::support::snapshot::{mask_ids, placeholders};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long one answer may take: far beyond what a call takes, short enough to fail a hang.
const ANSWER: Duration = Duration::from_secs(30);

// Assembled at run time, so this file itself does not trip secret scanners.
fn token() -> String {
    format!("{}{}", "ghp_", "R8c2Xq7Lm4Tz9Wb1Ny6Pk3Hd5Vs0Jf2Ga8Q")
}

/// A running `handover mcp` and the lines it writes.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Server {
    /// Started in `dir` and initialized, as a client starts a session.
    fn start(dir: &Path) -> Server {
        let mut server = Server::spawn(dir);
        let init = server.request("initialize", initialize_params());
        assert!(init.get("result").is_some(), "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        server
    }

    fn spawn(dir: &Path) -> Server {
        let mut child = handover_command(dir, &["mcp"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("handover mcp runs");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 1,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message the server writes.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER)
            .expect("the server answers in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a request and waits for its response (the server sends nothing else unasked).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let response = self.next();
        assert_eq!(response["id"], json!(id), "{response}");
        response
    }

    /// A tool call's result: (is it an error, its text).
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &response["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {response}"));
        (result["isError"] == json!(true), text.to_string())
    }

    /// Closes standard input: the server ends, with success, in time.
    fn finish(mut self) {
        drop(self.stdin.take());
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "handover mcp ended with {status}");
                return;
            }
            assert!(started.elapsed() < ANSWER, "handover mcp did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}
    })
}

/// The handoff the tests save: every kind of field, and a secret in one of them.
fn handoff() -> Value {
    json!({
        "goal": "Ship the MCP server",
        "narrative": "The server answers initialize and tools/list; saving is next.",
        "status": {"completed": ["initialize"], "in_progress": ["save"], "pending": ["search"]},
        "decisions": [{"what": "Use rmcp", "why": "the official SDK", "reversible": true}],
        "warnings": [format!("the deploy token {} is in the shell history", token())],
        "evidence": {"commands_run": ["cargo test"], "measurements": {"tools": 3}},
        "next_action": "Write the tests",
        "kind": "standard"
    })
}

#[test]
fn initialize_names_the_server_and_its_tools() {
    let r = TestRepo::with_commit();
    let mut server = Server::spawn(&r.path);
    let init = server.request("initialize", initialize_params());
    let mut result = init["result"].clone();
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    result["serverInfo"]["version"] = json!("[VERSION]");
    insta::assert_snapshot!("initialize", serde_json::to_string_pretty(&result).unwrap());
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());

    let list = server.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "handover_status",
            "handover_save",
            "handover_ack",
            "handover_search",
            "handover_show"
        ]
    );
    for tool in tools {
        let description = tool["description"].as_str().unwrap();
        // Every model request carries them: one short sentence each.
        assert!(
            description.chars().count() <= 100,
            "too long: {description}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }
    let save = &tools[1]["inputSchema"];
    assert_eq!(save["required"], json!(["goal"]));
    assert_eq!(
        save["properties"]["decisions"]["items"]["properties"]["why"]["type"],
        "string"
    );
    insta::assert_snapshot!(
        "tools_list",
        serde_json::to_string_pretty(&list["result"]).unwrap()
    );
    server.finish();
}

/// handover_save writes what `write --from -` writes from the same JSON: state.json's fields
/// and handover.md the same, the secret redacted in both.
#[test]
fn save_writes_the_handoff_as_write_from_json_does() {
    let by_mcp = TestRepo::with_commit();
    let mut server = Server::start(&by_mcp.path);
    let (is_error, text) = server.call("handover_save", handoff());
    assert!(!is_error, "{text}");
    server.finish();
    insta::assert_snapshot!("save", mask_ids(&placeholders(&by_mcp.path, &text)));
    assert!(
        text.contains("Redacted 1 secret(s): warnings[0] (github_token)."),
        "{text}"
    );

    let by_cli = TestRepo::with_commit();
    let mut write = handover_command(&by_cli.path, &["write", "--from", "-"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    write
        .stdin
        .take()
        .unwrap()
        .write_all(handoff().to_string().as_bytes())
        .unwrap();
    assert!(write.wait_with_output().unwrap().status.success());

    let state = |r: &TestRepo| -> Value {
        let text = std::fs::read_to_string(r.path.join(".handover/state.json")).unwrap();
        assert!(
            !text.contains(&token()),
            "the secret reached state.json: {text}"
        );
        let mut state: Value = serde_json::from_str(&text).unwrap();
        let fields = state.as_object_mut().unwrap();
        // What differs between two writes: when, which, and the repository's own facts.
        for per_write in [
            "id",
            "created_at",
            "checksum",
            "markdown_sha256",
            "git",
            "files_changed",
            "files_changed_base",
        ] {
            fields.remove(per_write);
        }
        state
    };
    let written = state(&by_mcp);
    assert_eq!(written, state(&by_cli));
    assert!(written["warnings"][0]
        .as_str()
        .unwrap()
        .contains("[REDACTED:github_token]"));
    let markdown = |r: &TestRepo| {
        let text = std::fs::read_to_string(r.path.join("handover.md")).unwrap();
        assert!(!text.contains(&token()), "the secret reached handover.md");
        mask_ids(&placeholders(&r.path, &text))
    };
    assert_eq!(markdown(&by_mcp), markdown(&by_cli));
}

/// A handoff the checks refuse comes back as a tool error (isError) naming the field and the
/// fix, and nothing is written.
#[test]
fn a_refused_save_is_a_tool_error_that_names_the_field() {
    let r = TestRepo::with_commit();
    let mut server = Server::start(&r.path);
    let (is_error, wrong_type) = server.call(
        "handover_save",
        json!({"goal": "g", "status": {"completed": "tests"}}),
    );
    assert!(is_error, "{wrong_type}");
    let (is_error, unknown) = server.call("handover_save", json!({"goal": "g", "blockerz": ["x"]}));
    assert!(is_error, "{unknown}");
    let (is_error, no_goal) = server.call("handover_save", json!({"next_action": "x"}));
    assert!(is_error, "{no_goal}");
    // Over `write --from`'s cap (4 MiB), within the transport's (16 MiB).
    let huge = "x".repeat(5 * 1024 * 1024);
    let (is_error, too_large) =
        server.call("handover_save", json!({"goal": "g", "narrative": huge}));
    assert!(is_error, "{too_large}");
    server.finish();
    assert!(wrong_type.contains("status.completed"), "{wrong_type}");
    assert!(unknown.contains("blockerz"), "{unknown}");
    assert!(no_goal.contains("`goal` is missing"), "{no_goal}");
    insta::assert_snapshot!(
        "refused_save",
        [wrong_type, unknown, no_goal, too_large].join("\n---\n")
    );
    assert!(!r.path.join(".handover").exists(), "a refused save wrote");
}

/// handover_status is `handover boot`'s report, word for word, before and after a save.
#[test]
fn status_is_boots_report() {
    let r = TestRepo::with_commit();
    let mut server = Server::start(&r.path);
    let (is_error, before) = server.call("handover_status", json!({}));
    assert!(!is_error, "{before}");
    assert_eq!(before, handover_ok(&r.path, &["boot"]).trim_end());
    let (is_error, saved) = server.call("handover_save", handoff());
    assert!(!is_error, "{saved}");
    let (is_error, after) = server.call("handover_status", json!({}));
    assert!(!is_error, "{after}");
    assert_eq!(after, handover_ok(&r.path, &["boot"]).trim_end());
    assert!(after.contains("Ship the MCP server"), "{after}");
    server.finish();
}

/// handover_ack records the acknowledgement in the journal, as `handover ack` does.
#[test]
fn ack_records_the_acknowledgement() {
    let r = TestRepo::with_commit();
    let mut server = Server::start(&r.path);
    let (is_error, nothing) = server.call("handover_ack", json!({}));
    assert!(!is_error, "{nothing}");
    assert_eq!(
        placeholders(&r.path, &nothing),
        "No handoff in [REPO]: nothing to acknowledge."
    );
    server.call("handover_save", handoff());
    let (is_error, acked) = server.call("handover_ack", json!({"session_id": "s-1"}));
    assert!(!is_error, "{acked}");
    let (is_error, wrong) = server.call("handover_ack", json!({"session_id": 7}));
    assert!(is_error && wrong.contains("session_id"), "{wrong}");
    server.finish();
    assert!(acked.starts_with("Acknowledged handoff "), "{acked}");
    assert!(acked.ends_with("(goal: «Ship the MCP server»)."), "{acked}");
    let journal = std::fs::read_to_string(r.path.join(".handover/journal.jsonl")).unwrap();
    let ack: Value = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["event"] == "ack")
        .unwrap_or_else(|| panic!("no ack in the journal: {journal}"));
    assert_eq!(ack["session_id"], "s-1", "{ack}");
}

/// Input that is not a request gets an error response and the server goes on: a line that is
/// not JSON (parse error, id null), JSON that is not a message (invalid request), a tool that
/// does not exist (invalid params).
#[test]
fn malformed_input_is_answered_and_the_server_goes_on() {
    let r = TestRepo::with_commit();
    let mut server = Server::start(&r.path);
    server.send("{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": ");
    let parse_error = server.next();
    server.send("[1, 2, 3]");
    let invalid = server.next();
    server.send("\u{1b}[31m\u{0}\u{ff}");
    let control = server.next();
    let unknown = server.request(
        "tools/call",
        json!({"name": "handover_nothing", "arguments": {}}),
    );
    insta::assert_snapshot!(
        "malformed",
        [&parse_error, &invalid, &control, &unknown]
            .map(|v| v.to_string())
            .join("\n")
    );
    assert_eq!(parse_error["error"]["code"], -32700);
    assert_eq!(parse_error["id"], Value::Null);
    // Still serving.
    let (is_error, text) = server.call("handover_status", json!({}));
    assert!(!is_error, "{text}");
    server.finish();
}

/// A `.handover` that handover refuses (here a link to another directory): every tool says
/// so as a tool error, handover_status in boot's words, and nothing is written through it.
#[test]
fn a_refused_store_is_a_tool_error() {
    let r = TestRepo::with_commit();
    let elsewhere = r.sibling("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, r.path.join(".handover")).unwrap();
    let mut server = Server::start(&r.path);
    let (status_error, status) = server.call("handover_status", json!({}));
    let (save_error, save) = server.call("handover_save", handoff());
    let (ack_error, ack) = server.call("handover_ack", json!({}));
    server.finish();
    assert!(
        status_error && save_error && ack_error,
        "{status}\n{save}\n{ack}"
    );
    let boot = crate::support::repo::handover_run(&r.path, &["boot"]);
    assert_eq!(boot.status.code(), Some(1));
    assert_eq!(status, String::from_utf8_lossy(&boot.stdout).trim_end());
    insta::assert_snapshot!(
        "refused_store",
        placeholders(&r.path, &[status, save, ack].join("\n---\n"))
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(!r.path.join("handover.md").exists());
}

/// A client that stops reading: the server's writes fail, it does not panic, and it ends when
/// its input does.
#[test]
fn a_client_that_stops_reading_ends_nothing_badly() {
    let r = TestRepo::with_commit();
    let mut child = handover_command(&r.path, &["mcp"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let init =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params()});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    // The server may already have gone when a line is written: that is its answer too.
    let _ = writeln!(stdin, "{init}\n{list}");
    drop(stdin);
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < ANSWER, "handover mcp did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        out.status.code().is_some_and(|c| c != 101),
        "{:?}: {err}",
        out.status
    );
}

/// handover_search and handover_show answer what `handover search` and `handover show` print,
/// over a history of two handoffs (the first archived by the second); their argument errors
/// are tool errors naming the argument.
#[test]
fn search_and_show_answer_as_the_commands_print() {
    let r = TestRepo::with_commit();
    let mut server = Server::start(&r.path);
    let (is_error, text) = server.call("handover_save", handoff());
    assert!(!is_error, "{text}");
    let (is_error, text) = server.call(
        "handover_save",
        json!({"goal": "Document the server", "decisions": [{"what": "One page in docs/cli.md", "why": "the tools mirror commands"}]}),
    );
    assert!(!is_error, "{text}");

    let (is_error, found) = server.call("handover_search", json!({"query": "rmcp"}));
    assert!(!is_error, "{found}");
    assert_eq!(found, handover_ok(&r.path, &["search", "rmcp"]).trim_end());
    assert!(found.contains("⟦rmcp⟧"), "{found}");
    let (is_error, phrase) = server.call(
        "handover_search",
        json!({"query": "\"the tools mirror\"", "in": ["decisions"], "limit": 1}),
    );
    assert!(!is_error, "{phrase}");
    assert_eq!(
        phrase,
        handover_ok(
            &r.path,
            &[
                "search",
                "the tools mirror",
                "--in",
                "decisions",
                "--limit",
                "1"
            ]
        )
        .trim_end()
    );

    for which in ["-1", "-2"] {
        let (is_error, shown) = server.call("handover_show", json!({"id": which}));
        assert!(!is_error, "{shown}");
        assert_eq!(shown, handover_ok(&r.path, &["show", which]).trim_end());
    }
    let (_, newest) = server.call("handover_show", json!({"id": "-1"}));
    assert!(newest.contains("Document the server"), "{newest}");
    let (_, archived) = server.call("handover_show", json!({"id": "-2"}));
    assert!(archived.contains("Ship the MCP server"), "{archived}");

    let errors = [
        server.call("handover_search", json!({})),
        server.call("handover_search", json!({"query": "x", "in": ["nofield"]})),
        server.call("handover_search", json!({"query": "x", "limit": 0})),
        server.call("handover_show", json!({})),
        server.call("handover_show", json!({"id": "-9"})),
    ];
    server.finish();
    for (is_error, text) in &errors {
        assert!(is_error, "{text}");
    }
    let texts: Vec<String> = errors.into_iter().map(|(_, t)| t).collect();
    insta::assert_snapshot!(
        "search_show_errors",
        placeholders(&r.path, &texts.join("\n---\n"))
    );
}
