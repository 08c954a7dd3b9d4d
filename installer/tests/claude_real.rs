//! Against the REAL Claude Code (pinned in tests/clients): the settings `handover install`
//! writes make Claude run our executables — no matcher, a path with a space and a quote — on
//! SessionStart (startup), UserPromptSubmit, PostToolUse and Stop.
//!
//! Everything runs inside `unshare -n` (loopback only): the outer test re-runs this test binary
//! in a fresh network namespace, where the inner part serves a fake Messages API on 127.0.0.1
//! and runs `claude -p` with a temporary HOME.

use handover_installer::flow::{self, InstallRequest};
use handover_installer::{Homes, HookPaths, InstallOptions, Scope, Targets};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn claude() -> Option<PathBuf> {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let out = Command::new("bash")
        .arg(ws.join("tests/clients/ensure.sh"))
        .output()
        .expect("run ensure.sh");
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        if std::env::var("HANDOVER_SKIP_E2E").as_deref() == Ok("1") {
            eprintln!("\n*** SKIPPED: real Claude Code install test (HANDOVER_SKIP_E2E=1): {msg}");
            return None;
        }
        panic!("cannot install the pinned Claude Code: {msg}\nInstall Node.js and npm (Debian: apt-get install -y nodejs npm), or set HANDOVER_SKIP_E2E=1 to skip.");
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("claude="))
        .map(PathBuf::from)
}

#[test]
fn claude_runs_the_installed_hooks() {
    let Some(claude) = claude() else { return };
    let me = std::env::current_exe().unwrap();
    let out = Command::new("timeout")
        .args([
            "120",
            "unshare",
            "-n",
            "sh",
            "-c",
            "ip link set lo up && exec \"$0\" --exact inner_claude_run --ignored --nocapture",
        ])
        .arg(&me)
        .env("HANDOVER_INNER_CLAUDE", &claude)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "inner run failed:\n{text}");
    assert!(text.contains("1 passed"), "{text}");
    assert!(
        text.contains("hooks.log:"),
        "the inner run really ran claude:\n{text}"
    );
    println!("{text}");
}

/// Answers Messages API requests: first a Bash `true` tool call, then a text reply.
fn serve(listener: TcpListener, deadline: Instant) {
    listener.set_nonblocking(true).unwrap();
    let mut served = 0;
    while Instant::now() < deadline && served < 20 {
        let Ok((stream, _)) = listener.accept() else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        served += 1;
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).is_err() {
            continue;
        }
        let mut len = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                break;
            }
            if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; len];
        let _ = reader.read_exact(&mut body);
        let mut stream = stream;
        let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        if !request_line.starts_with("POST /v1/messages") {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{\"data\":[]}");
            continue;
        }
        let last_is_tool_result = req["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_array())
            .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
        let offers_bash = req["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "Bash"));
        let model = req["model"].as_str().unwrap_or("claude");
        if req["stream"] != json!(true) {
            let msg = json!({"id": "m", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 1}})
            .to_string();
            let _ = write!(stream, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{msg}", msg.len());
            continue;
        }
        let mut sse = String::new();
        let mut ev =
            |name: &str, data: Value| sse.push_str(&format!("event: {name}\ndata: {data}\n\n"));
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": format!("msg_{served}"), "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "usage": {"input_tokens": 100, "output_tokens": 1}}}),
        );
        if offers_bash && !last_is_tool_result {
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}}),
            );
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"true\", \"description\": \"noop\"}"}}),
            );
            ev(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            );
            ev(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}),
            );
        } else {
            ev(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}}),
            );
            ev(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            );
            ev(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}),
            );
        }
        ev("message_stop", json!({"type": "message_stop"}));
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{sse}"
        );
    }
}

/// The part that runs inside the namespace (ignored unless run by the test above).
#[test]
#[ignore]
fn inner_claude_run() {
    let Some(claude) = std::env::var_os("HANDOVER_INNER_CLAUDE").map(PathBuf::from) else {
        eprintln!("inner_claude_run: nothing to do outside claude_runs_the_installed_hooks");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let repo = root.join("repo");
    let home = root.join("home");
    let bin = root.join("bin dir's");
    let log = root.join("hooks.log");
    for d in [&repo, &home, &bin] {
        std::fs::create_dir_all(d).unwrap();
    }
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    // Stand-ins for the hook executables: record arguments and the event they were given.
    for name in [
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        let p = bin.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\nin=$(cat)\nev=$(printf '%s' \"$in\" | grep -o '\"hook_event_name\":\"[A-Za-z]*\"')\nsrc=$(printf '%s' \"$in\" | grep -o '\"source\":\"[a-z]*\"')\necho \"{name} $* $ev $src\" >> '{}'\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let req = InstallRequest {
        repo: repo.clone(),
        homes: Homes {
            home: home.clone(),
            codex_home: home.join(".codex"),
        },
        options: InstallOptions {
            targets: Targets {
                claude: true,
                codex: false,
            },
            scope: Scope::Project,
            watch: true,
            enable_codex_hooks: false,
            trust: false,
            hooks: HookPaths::in_dir(&bin),
        },
        dry_run: false,
        codex_bin: None,
        trust_timeout: Duration::from_secs(5),
    };
    assert!(flow::install(&req, &mut Vec::new()).unwrap().ok);

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let deadline = Instant::now() + Duration::from_secs(60);
    let server = std::thread::spawn(move || serve(listener, deadline));
    let out = Command::new("timeout")
        .arg("60")
        .arg(&claude)
        .args([
            "-p",
            "run true",
            "--output-format",
            "json",
            "--max-turns",
            "3",
            "--allowedTools",
            "Bash",
        ])
        .current_dir(&repo)
        .env("HOME", &home)
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .output()
        .unwrap();
    drop(server);
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    println!(
        "claude: {}\nhooks.log:\n{logged}",
        String::from_utf8_lossy(&out.stdout)
    );
    for want in [
        "handover-session-start --agent claude \"hook_event_name\":\"SessionStart\" \"source\":\"startup\"",
        "handover-context-watch --agent claude \"hook_event_name\":\"UserPromptSubmit\"",
        "handover-context-watch --agent claude \"hook_event_name\":\"PostToolUse\"",
        "handover-context-watch --agent claude \"hook_event_name\":\"Stop\"",
    ] {
        assert!(logged.contains(want), "missing `{want}` in:\n{logged}");
    }
}
