//! The fake model server's OpenAI chat-completions wire, through real HTTP requests on
//! 127.0.0.1: what a client parsing the stream would see (text, tool calls by the client's own
//! names, usage, the end marker), and which requests take scripted turns.

use crate::support::fake_server::{self, LoggedRequest, Script, ToolCall, Turn};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A server running `turns` in a thread; it stops after `max_requests`.
struct Server {
    _dir: tempfile::TempDir,
    port: u16,
    log: PathBuf,
}

impl Server {
    fn start(turns: Vec<Turn>, max_requests: usize) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("requests.jsonl");
        let script = Script {
            turns,
            default_text: "Default answer.".to_string(),
            summary: "The user and the assistant worked on the task.".to_string(),
            default_usage: 777,
            log: log.clone(),
            max_requests,
            idle_timeout_secs: 20,
            more_turns: None,
            answer_delay_ms: 0,
        };
        let port_path = fake_server::port_file(&dir.path().join("script.json"));
        let thread_port_path = port_path.clone();
        std::thread::spawn(move || fake_server::serve(script, &thread_port_path));
        let port = wait_for_port(&port_path);
        Server {
            _dir: dir,
            port,
            log,
        }
    }

    /// POSTs `body` to `path`; returns the status line, the content type and the body.
    fn post(&self, path: &str, body: &Value) -> (String, String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("read timeout");
        let body = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("send");
        stream
            .shutdown(std::net::Shutdown::Write)
            .expect("half close");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read answer");
        let (head, payload) = response
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no header end in {response:?}"));
        let status = head.lines().next().unwrap_or_default().to_string();
        let content_type = head
            .lines()
            .find_map(|l| l.strip_prefix("content-type: "))
            .unwrap_or_default()
            .to_string();
        (status, content_type, payload.to_string())
    }

    fn log(&self) -> Vec<LoggedRequest> {
        fake_server::read_log(&self.log)
    }
}

fn wait_for_port(port_path: &Path) -> u16 {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if let Some(port) = std::fs::read_to_string(port_path)
            .ok()
            .and_then(|p| p.trim().parse().ok())
        {
            return port;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the fake server wrote no port file");
}

/// The `data:` payloads of an SSE body, in order, `[DONE]` included as a string.
fn sse_data(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap_or_else(|_| Value::String(d.to_string())))
        .collect()
}

/// A request the way Qwen Code 0.24.4 sends one: streaming, usage asked for, its tools offered.
fn qwen_request(prompt: &str) -> Value {
    json!({
        "model": "qwen3-coder-plus",
        "messages": [
            {"role": "system", "content": "You are Qwen Code."},
            {"role": "user", "content": prompt}
        ],
        "stream": true,
        "stream_options": {"include_usage": true},
        "tools": [
            {"type": "function", "function": {"name": "read_file", "parameters": {}}},
            {"type": "function", "function": {"name": "run_shell_command", "parameters": {}}}
        ]
    })
}

/// The text a client assembles from the deltas, the tool calls, the finish reason and usage.
struct Streamed {
    text: String,
    calls: Vec<Value>,
    finish: Option<String>,
    prompt_tokens: Option<u64>,
    done: bool,
}

fn assemble(body: &str) -> Streamed {
    let mut s = Streamed {
        text: String::new(),
        calls: Vec::new(),
        finish: None,
        prompt_tokens: None,
        done: false,
    };
    for data in sse_data(body) {
        assert!(!s.done, "data after [DONE]:\n{body}");
        if data == json!("[DONE]") {
            s.done = true;
            continue;
        }
        assert_eq!(data["object"], "chat.completion.chunk", "{data}");
        for choice in data["choices"].as_array().expect("choices") {
            if let Some(t) = choice.pointer("/delta/content").and_then(Value::as_str) {
                s.text.push_str(t);
            }
            if let Some(calls) = choice
                .pointer("/delta/tool_calls")
                .and_then(Value::as_array)
            {
                s.calls.extend(calls.iter().cloned());
            }
            if let Some(f) = choice["finish_reason"].as_str() {
                s.finish = Some(f.to_string());
            }
        }
        if let Some(t) = data.pointer("/usage/prompt_tokens").and_then(Value::as_u64) {
            s.prompt_tokens = Some(t);
        }
    }
    s
}

fn streamed_text_turn_then_shell_call_by_the_offered_tool_name() {
    let server = Server::start(
        vec![
            Turn::text("Hello from the script.").usage(4242),
            Turn::shell("echo hi > out.txt"),
        ],
        2,
    );
    let (status, content_type, body) =
        server.post("/v1/chat/completions", &qwen_request("say hello"));
    assert!(status.contains("200"), "{status}");
    assert_eq!(content_type, "text/event-stream");
    let first = assemble(&body);
    assert_eq!(first.text, "Hello from the script.");
    assert_eq!(first.finish.as_deref(), Some("stop"));
    assert_eq!(first.prompt_tokens, Some(4242));
    assert!(first.done, "no [DONE]:\n{body}");
    // Asked for usage: it comes in its own last chunk with no choices, as the OpenAI API sends it.
    let data = sse_data(&body);
    let usage_chunk = &data[data.len() - 2];
    assert_eq!(usage_chunk["choices"], json!([]), "{body}");

    let (_, _, body) = server.post("/v1/chat/completions", &qwen_request("run it"));
    let second = assemble(&body);
    assert_eq!(second.finish.as_deref(), Some("tool_calls"));
    assert_eq!(second.calls.len(), 1, "{body}");
    let call = &second.calls[0];
    assert_eq!(call["index"], 0);
    assert_eq!(call["type"], "function");
    assert!(call["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(call["function"]["name"], "run_shell_command");
    let args: Value = serde_json::from_str(call["function"]["arguments"].as_str().expect("text"))
        .expect("arguments are JSON text");
    assert_eq!(args["command"], "echo hi > out.txt");
    // Not scripted: the default usage.
    assert_eq!(second.prompt_tokens, Some(777));

    let log = server.log();
    assert_eq!(
        log.iter().map(|r| r.turn).collect::<Vec<_>>(),
        [Some(0), Some(1)]
    );
    assert!(log.iter().all(|r| !r.compaction));
}

fn parallel_tool_calls_without_usage_option_and_non_streaming() {
    let server = Server::start(
        vec![
            Turn::tools(vec![
                ToolCall::new("write_file", json!({"file_path": "a.txt", "content": "A"})),
                ToolCall::new("write_file", json!({"file_path": "b.txt", "content": "B"})),
            ])
            .when("write both")
            .usage(900),
            Turn::text("Plain answer.").usage(321),
        ],
        2,
    );
    // The `when` turn waits for its text: the plain answer comes first.
    let mut request = qwen_request("something else");
    request["stream"] = json!(false);
    request
        .as_object_mut()
        .expect("object")
        .remove("stream_options");
    let (_, content_type, body) = server.post("/chat/completions", &request);
    assert_eq!(content_type, "application/json");
    let whole: Value = serde_json::from_str(&body).expect("one JSON answer");
    assert_eq!(whole["object"], "chat.completion");
    assert_eq!(whole["choices"][0]["message"]["content"], "Plain answer.");
    assert_eq!(whole["choices"][0]["finish_reason"], "stop");
    assert_eq!(whole["usage"]["prompt_tokens"], 321);

    // Streaming without `stream_options.include_usage`: the usage rides on the finish chunk.
    let mut request = qwen_request("now write both files");
    request
        .as_object_mut()
        .expect("object")
        .remove("stream_options");
    let (_, _, body) = server.post("/v1/chat/completions", &request);
    let streamed = assemble(&body);
    assert_eq!(streamed.prompt_tokens, Some(900));
    assert!(
        sse_data(&body)
            .iter()
            .all(|d| d.get("choices") != Some(&json!([]))),
        "no usage-only chunk when usage was not asked for:\n{body}"
    );
    let names: Vec<_> = streamed
        .calls
        .iter()
        .map(|c| c["function"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("write_file"), json!("write_file")]);
    assert_eq!(
        streamed
            .calls
            .iter()
            .map(|c| c["index"].clone())
            .collect::<Vec<_>>(),
        [json!(0), json!(1)]
    );
    let ids: Vec<_> = streamed.calls.iter().map(|c| c["id"].clone()).collect();
    assert_ne!(ids[0], ids[1], "each call has its own id");
    let args: Value = serde_json::from_str(
        streamed.calls[1]["function"]["arguments"]
            .as_str()
            .expect("text"),
    )
    .expect("JSON");
    assert_eq!(args, json!({"file_path": "b.txt", "content": "B"}));
    assert_eq!(
        server.log().iter().map(|r| r.turn).collect::<Vec<_>>(),
        [Some(1), Some(0)]
    );
}

fn compaction_and_side_queries_take_no_turn() {
    let server = Server::start(vec![Turn::text("The scripted turn.")], 4);
    // Qwen Code's compaction request: the history, then its directive as the last user message.
    let mut compaction = qwen_request("earlier work");
    compaction["messages"]
        .as_array_mut()
        .expect("messages")
        .extend([
            json!({"role": "assistant", "content": "Done."}),
            json!({"role": "user", "content": [{"type": "text", "text":
                "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML."}]}),
        ]);
    let (_, _, body) = server.post("/v1/chat/completions", &compaction);
    let summary = assemble(&body);
    // Wrapped the way the request asks, or Qwen Code drops the summary.
    assert_eq!(
        summary.text,
        "<state_snapshot>\nThe user and the assistant worked on the task.\n</state_snapshot>"
    );
    assert_eq!(summary.prompt_tokens, Some(777));

    // A side query (no tools offered) gets the default answer.
    let mut side = qwen_request("Generate a short title for this session");
    side.as_object_mut().expect("object").remove("tools");
    let (_, _, body) = server.post("/v1/chat/completions", &side);
    assert_eq!(assemble(&body).text, "Default answer.");

    // Qwen Code's memory extraction helper offers tools, yet is no conversation turn.
    let mut memory = qwen_request("Managed memory has TWO directories.");
    memory["messages"][0]["content"] = json!(
        "You are now acting as the managed memory extraction subagent for an AI coding assistant."
    );
    let (_, _, body) = server.post("/v1/chat/completions", &memory);
    assert_eq!(assemble(&body).text, "Default answer.");

    // The scripted turn is still there for the conversation.
    let (_, _, body) = server.post("/v1/chat/completions", &qwen_request("go on"));
    assert_eq!(assemble(&body).text, "The scripted turn.");

    let log = server.log();
    assert_eq!(
        log.iter()
            .map(|r| (r.turn, r.compaction))
            .collect::<Vec<_>>(),
        [(None, true), (None, false), (None, false), (Some(0), false)]
    );
    assert!(log[0].path.ends_with("/chat/completions"));
}

trials! {
    plain: [
        streamed_text_turn_then_shell_call_by_the_offered_tool_name,
        parallel_tool_calls_without_usage_option_and_non_streaming,
        compaction_and_side_queries_take_no_turn,
    ],
}
