//! A scripted fake model server: the Anthropic Messages API (Claude Code, and GitHub Copilot
//! CLI with its `anthropic` provider type), the OpenAI Responses API (Codex), the Gemini API
//! (Gemini CLI) and the OpenAI chat-completions API (Qwen Code, Factory Droid and other
//! OpenAI-compatible clients, see [`chat_completions`]), all streaming, std only.
//!
//! It runs inside the same loopback-only network namespace as the client under test: the test
//! binary re-executes itself with `HANDOVER_FAKE_SERVER=<script.json>` (see [`serve_from_env`]),
//! binds 127.0.0.1:0 and writes its port to `<script>.port`. Every request is appended to the
//! script's `log` file as one JSON line, which is what the tests assert on.
//!
//! The script is a queue of turns. A conversation request takes the next turn whose `when` text
//! (if any) occurs in the request body. Compaction requests (Claude Code: the "Respond with TEXT
//! ONLY" summarization prompt; Codex: a request without tools; Gemini CLI: a `generateContent`
//! request that asks for a `<state_snapshot>`; chat completions: see
//! [`chat_completions::is_compaction`]) get the script's summary and never consume a turn; a
//! chat-completions side query (no tools offered, or a known helper's system message: see
//! [`chat_completions::is_side_query`]) never takes a turn either; requests after the queue ran dry get the default text answer. Everything is bounded: a request limit,
//! an idle timeout and a per-connection read timeout, so a script that loops can not hang a test.

mod chat_completions;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The environment variable that turns a test binary into the fake server.
pub const SERVER_ENV: &str = "HANDOVER_FAKE_SERVER";

/// What the fake model answers, in order.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Script {
    /// Conversation turns, consumed in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// The answer to every request no turn matched.
    #[serde(default = "default_text")]
    pub default_text: String,
    /// The answer to a compaction request (Claude Code wants `<summary>` tags, or it asks again).
    #[serde(default = "default_summary")]
    pub summary: String,
    /// Input tokens reported for default and compaction answers (keep it small after a
    /// compaction, or Codex compacts again).
    #[serde(default = "default_usage")]
    pub default_usage: u64,
    /// Where each request is logged (one JSON object per line).
    pub log: PathBuf,
    /// The server stops after this many requests (a runaway client loop ends here).
    #[serde(default = "default_max_requests")]
    pub max_requests: usize,
    /// The server stops after this long without a request.
    #[serde(default = "default_idle_secs")]
    pub idle_timeout_secs: u64,
    /// More turns appended while the server runs (one JSON [`Turn`] per line), read before
    /// every request: an interactive scenario plans the next prompt's answers between prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_turns: Option<PathBuf>,
    /// How long each answer takes, like a real model's (which never answers within 100 ms):
    /// Copilot CLI writes its transcript only after 100 ms without an event, so an instant
    /// answer would keep its transcript unwritten for a whole run.
    #[serde(default)]
    pub answer_delay_ms: u64,
}

fn default_text() -> String {
    "OK.".to_string()
}
impl Script {
    /// The default answer to a compaction request.
    pub fn default_summary_text() -> String {
        default_summary()
    }
}

fn default_summary() -> String {
    "<analysis>The conversation so far.</analysis>\n<summary>The user and the assistant worked on the task.</summary>".to_string()
}
fn default_usage() -> u64 {
    1000
}
fn default_max_requests() -> usize {
    60
}
fn default_idle_secs() -> u64 {
    120
}

/// One scripted model answer.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Turn {
    /// Only a request whose body contains this text takes the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// A text answer (ends the model's turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A shell command the model runs through the client's own shell tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// Tool calls the model makes in one answer (several = parallel calls), by the client's
    /// own tool names: Claude Code `Write`/`Edit`/`Bash`, Codex `exec_command`/`apply_patch`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolCall>,
    /// Input tokens the answer reports (what the client records as context in use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<u64>,
}

/// One tool call. `input` is the tool's JSON arguments; a string `input` is a freeform (custom)
/// tool call for Codex (its `apply_patch` takes the patch text).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct ToolCall {
    pub name: String,
    pub input: Value,
}

impl ToolCall {
    pub fn new(name: &str, input: Value) -> ToolCall {
        ToolCall {
            name: name.to_string(),
            input,
        }
    }

    /// A call of the tool the request offers whose name ends with `suffix`, by the name the
    /// client gives it (an MCP server's tools are prefixed: Claude Code's
    /// `mcp__handover__handover_save`; each client has its own rule): resolved per request
    /// from its tool list ([`OFFERED`] marks it until then).
    pub fn offered(suffix: &str, input: Value) -> ToolCall {
        ToolCall::new(&format!("{OFFERED}{suffix}"), input)
    }
}

/// The prefix of a tool call's name that [`ToolCall::offered`] resolves against the request.
const OFFERED: &str = "offered-tool-ending-with:";

/// Every tool name a request offers, whatever its wire (`tools[].name` of the Messages and
/// Responses APIs, `functionDeclarations[].name` of Gemini's, `tools[].function.name` of Chat
/// Completions). A tool inside a Responses API namespace (Codex's MCP tools, loaded by its
/// `tool_search` and returned in a `tool_search_output` input item) is named
/// `<namespace>::<name>`, as [`responses_sse`] calls it.
pub fn offered_tool_names(body: &Value) -> Vec<String> {
    fn walk(v: &Value, ns: Option<&str>, out: &mut Vec<String>, depth: usize) {
        if depth > 8 {
            return;
        }
        match v {
            Value::Object(m) => {
                let name = m.get("name").and_then(Value::as_str);
                let namespace = m.get("type").and_then(Value::as_str) == Some("namespace");
                match (name, namespace) {
                    (Some(n), true) => {
                        if let Some(tools) = m.get("tools") {
                            walk(tools, Some(n), out, depth + 1);
                        }
                        return;
                    }
                    (Some(n), false) => out.push(match ns {
                        Some(ns) => format!("{ns}{NAMESPACED}{n}"),
                        None => n.to_string(),
                    }),
                    _ => {}
                }
                for (k, child) in m {
                    if k != "name" && (child.is_object() || child.is_array()) {
                        walk(child, ns, out, depth + 1);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, ns, out, depth + 1)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(tools) = body.get("tools") {
        walk(tools, None, &mut out, 0);
    }
    let loaded = body
        .get("input")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("tool_search_output"));
    for item in loaded {
        if let Some(tools) = item.get("tools") {
            walk(tools, None, &mut out, 0);
        }
    }
    out
}

/// Between a Responses API namespace and a tool's name in [`offered_tool_names`].
const NAMESPACED: &str = "::";

impl Turn {
    /// Every tool call of this answer: the `shell` command first (Claude Code's `Bash`,
    /// Copilot CLI's `bash` — `messages_shell` names which the request offers — or Codex's
    /// `exec_command`), then `tools`.
    fn calls(&self, messages_shell: Option<&str>) -> Vec<ToolCall> {
        let mut calls = Vec::new();
        if let Some(cmd) = &self.shell {
            calls.push(if let Some(name) = messages_shell {
                ToolCall::new(
                    name,
                    json!({"command": cmd, "description": "Run a command"}),
                )
            } else {
                ToolCall::new("exec_command", json!({"cmd": cmd}))
            });
        }
        calls.extend(self.tools.iter().cloned());
        calls
    }

    /// This turn with every [`ToolCall::offered`] name replaced by the offered tool's name in
    /// `body` (left as it is when the request offers none: the client then reports an unknown
    /// tool, which the test sees).
    fn with_offered_names(mut self, body: &Value) -> Turn {
        let names = offered_tool_names(body);
        for call in &mut self.tools {
            if let Some(suffix) = call.name.strip_prefix(OFFERED) {
                if let Some(name) = names.iter().find(|n| n.ends_with(suffix)) {
                    call.name = name.clone();
                }
            }
        }
        self
    }

    pub fn text(text: &str) -> Turn {
        Turn {
            text: Some(text.to_string()),
            ..Turn::default()
        }
    }
    pub fn shell(command: &str) -> Turn {
        Turn {
            shell: Some(command.to_string()),
            ..Turn::default()
        }
    }
    pub fn tools(calls: Vec<ToolCall>) -> Turn {
        Turn {
            tools: calls,
            ..Turn::default()
        }
    }
    pub fn usage(mut self, tokens: u64) -> Turn {
        self.usage = Some(tokens);
        self
    }
    pub fn when(mut self, needle: &str) -> Turn {
        self.when = Some(needle.to_string());
        self
    }
}

/// One logged request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoggedRequest {
    pub n: usize,
    pub method: String,
    pub path: String,
    /// The JSON body, or the raw text as a string when it is not JSON.
    pub body: Value,
    /// Which scripted turn answered it (None: the default or compaction answer).
    pub turn: Option<usize>,
    /// Whether the server took it for a compaction request.
    #[serde(default)]
    pub compaction: bool,
    /// Whether the server took it for a client's side query (chat completions: no tools, or a
    /// known helper's system message), which is not the conversation.
    #[serde(default)]
    pub side: bool,
}

impl LoggedRequest {
    /// The body as text, for substring assertions.
    pub fn body_text(&self) -> String {
        self.body.to_string()
    }
}

/// Reads the request log a server wrote.
pub fn read_log(path: &Path) -> Vec<LoggedRequest> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Entry point of the server mode: returns false when this process is not meant to be a server.
pub fn serve_from_env() -> bool {
    let Ok(script_path) = std::env::var(SERVER_ENV) else {
        return false;
    };
    let script_path = PathBuf::from(script_path);
    let result = std::fs::read_to_string(&script_path)
        .map_err(|e| format!("read {}: {e}", script_path.display()))
        .and_then(|t| {
            serde_json::from_str::<Script>(&t)
                .map_err(|e| format!("parse {}: {e}", script_path.display()))
        })
        .and_then(|script| serve(script, &port_file(&script_path)));
    if let Err(e) = result {
        eprintln!("fake server: {e}");
        // The test binary re-executed as a server: end this process, not a test.
        #[allow(clippy::exit)]
        std::process::exit(1);
    }
    true
}

/// Where the server writes its port.
pub fn port_file(script_path: &Path) -> PathBuf {
    let mut p = script_path.as_os_str().to_owned();
    p.push(".port");
    PathBuf::from(p)
}

struct State {
    script: Script,
    used: Vec<bool>,
    /// How many lines of `script.more_turns` are already in `script.turns`.
    more_loaded: usize,
    count: usize,
    last_request: Instant,
    log: std::fs::File,
}

/// Serves `script` until its request limit or idle timeout; writes the port to `port_path`.
pub fn serve(script: Script, port_path: &Path) -> Result<(), String> {
    // A fixed port when asked (each client run has its own namespace), else any free one.
    let port: u16 = std::env::var("HANDOVER_FAKE_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("bind: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&script.log)
        .map_err(|e| format!("open log {}: {e}", script.log.display()))?;
    let idle = Duration::from_secs(script.idle_timeout_secs);
    let max = script.max_requests;
    let state = Arc::new(Mutex::new(State {
        used: vec![false; script.turns.len()],
        more_loaded: 0,
        script,
        count: 0,
        last_request: Instant::now(),
        log,
    }));
    // Write the port atomically: the wrapper polls for the file.
    let tmp = port_path.with_extension("port.tmp");
    std::fs::write(&tmp, port.to_string()).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, port_path).map_err(|e| e.to_string())?;

    listener
        .set_nonblocking(true)
        .map_err(|e| format!("nonblocking: {e}"))?;
    loop {
        {
            let st = state.lock().map_err(|_| "poisoned")?;
            if st.count >= max || st.last_request.elapsed() > idle {
                return Ok(());
            }
        }
        match listener.accept() {
            Ok((stream, _)) => {
                let state = Arc::clone(&state);
                std::thread::spawn(move || {
                    let _ = handle(stream, &state);
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(format!("accept: {e}")),
        }
    }
}

fn handle(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    // Keep-alive: serve requests on this connection until the client closes it.
    for _ in 0..1000 {
        let Some((method, path, body)) = read_request(&mut reader)? else {
            return Ok(());
        };
        let body_json: Value = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
        let (status, content_type, payload) = respond(state, &method, &path, body_json);
        let delay = state
            .lock()
            .map(|st| st.script.answer_delay_ms)
            .unwrap_or(0);
        if delay > 0 {
            std::thread::sleep(Duration::from_millis(delay));
        }
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncache-control: no-cache\r\ncontent-length: {}\r\n\r\n",
            payload.len()
        );
        out.write_all(head.as_bytes())?;
        out.write_all(payload.as_bytes())?;
        out.flush()?;
    }
    Ok(())
}

/// Reads one HTTP/1.1 request; None when the connection closed cleanly.
fn read_request(
    reader: &mut BufReader<TcpStream>,
) -> std::io::Result<Option<(String, String, Vec<u8>)>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut length = 0usize;
    let mut chunked = false;
    for _ in 0..200 {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            let k = k.trim().to_ascii_lowercase();
            let v = v.trim();
            if k == "content-length" {
                length = v.parse().unwrap_or(0);
            } else if k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        for _ in 0..100_000 {
            let mut size_line = String::new();
            reader.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 {
                let mut crlf = String::new();
                reader.read_line(&mut crlf)?;
                break;
            }
            let mut chunk = vec![0u8; size];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf)?;
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some((method, path, body)))
}

/// Chooses and renders the answer, and logs the request.
fn respond(
    state: &Mutex<State>,
    method: &str,
    path: &str,
    body: Value,
) -> (&'static str, &'static str, String) {
    let Ok(mut st) = state.lock() else {
        return ("500 Internal Server Error", "text/plain", String::new());
    };
    st.count += 1;
    st.last_request = Instant::now();
    load_more_turns(&mut st);
    let n = st.count;
    let is_messages = path.starts_with("/v1/messages") && !path.contains("count_tokens");
    let is_responses = path.starts_with("/v1/responses") || path.starts_with("/responses");
    let is_gemini = path.contains(":streamGenerateContent") || path.contains(":generateContent");
    let is_chat = chat_completions::is_request(path);
    let compaction = (is_messages && is_claude_compaction(&body))
        || (is_responses && !has_tools(&body))
        || (is_gemini && is_gemini_compaction(path, &body))
        || (is_chat && chat_completions::is_compaction(&body));
    let chat_side_query = is_chat && chat_completions::is_side_query(&body);
    let text_body = body.to_string();
    let mut chosen = None;
    if (is_messages || is_responses || is_gemini || is_chat) && !compaction && !chat_side_query {
        for i in 0..st.script.turns.len() {
            if st.used[i] {
                continue;
            }
            let t = &st.script.turns[i];
            if let Some(w) = &t.when {
                if !text_body.contains(w.as_str()) {
                    continue;
                }
            }
            chosen = Some(i);
            break;
        }
    }
    if let Some(i) = chosen {
        st.used[i] = true;
    }
    let entry = LoggedRequest {
        n,
        method: method.to_string(),
        path: path.to_string(),
        body,
        turn: chosen,
        compaction,
        side: chat_side_query,
    };
    if let Ok(line) = serde_json::to_string(&entry) {
        let _ = writeln!(st.log, "{line}");
        let _ = st.log.flush();
    }
    let turn = match chosen {
        Some(i) => st.script.turns[i].clone(),
        None if compaction && is_chat => Turn {
            text: Some(chat_completions::compaction_summary(
                &st.script.summary,
                &entry.body,
            )),
            usage: Some(st.script.default_usage),
            ..Turn::default()
        },
        None if compaction => Turn {
            text: Some(st.script.summary.clone()),
            usage: Some(st.script.default_usage),
            ..Turn::default()
        },
        None => Turn {
            text: Some(st.script.default_text.clone()),
            usage: Some(st.script.default_usage),
            ..Turn::default()
        },
    };
    let usage = turn.usage.unwrap_or(st.script.default_usage);
    drop(st);
    let body = &entry.body;
    let turn = turn.with_offered_names(body);
    if path.contains("count_tokens") {
        return (
            "200 OK",
            "application/json",
            json!({"input_tokens": usage}).to_string(),
        );
    }
    if path.contains(":countTokens") {
        return (
            "200 OK",
            "application/json",
            json!({"totalTokens": usage}).to_string(),
        );
    }
    if method == "GET" && path.contains("models") {
        return (
            "200 OK",
            "application/json",
            json!({"models": [], "data": []}).to_string(),
        );
    }
    let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    if is_messages {
        let model = body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or("claude");
        let shell = messages_shell_tool(body);
        if stream {
            (
                "200 OK",
                "text/event-stream",
                messages_sse(&turn, usage, model, n, shell),
            )
        } else {
            (
                "200 OK",
                "application/json",
                messages_json(&turn, usage, model, n, shell),
            )
        }
    } else if is_responses {
        (
            "200 OK",
            "text/event-stream",
            responses_sse(&turn, usage, n),
        )
    } else if is_chat {
        let (content_type, answer) = chat_completions::answer(&turn, usage, body, n);
        ("200 OK", content_type, answer)
    } else if is_gemini {
        let model = gemini_model(path);
        let answer = gemini_response(&turn, usage, &model, body);
        if path.contains(":streamGenerateContent") {
            ("200 OK", "text/event-stream", format!("data: {answer}\n\n"))
        } else {
            ("200 OK", "application/json", answer.to_string())
        }
    } else {
        (
            "404 Not Found",
            "application/json",
            json!({"error": "not found"}).to_string(),
        )
    }
}

/// Appends the turns added to `script.more_turns` since the last request. A line that does not
/// parse (e.g. half written) is left for the next request.
fn load_more_turns(st: &mut State) {
    let Some(path) = st.script.more_turns.clone() else {
        return;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    for line in text.split_inclusive('\n').skip(st.more_loaded) {
        if !line.ends_with('\n') {
            break;
        }
        match serde_json::from_str::<Turn>(line) {
            Ok(turn) => {
                st.script.turns.push(turn);
                st.used.push(false);
            }
            Err(_) if line.trim().is_empty() => {}
            Err(_) => break,
        }
        st.more_loaded += 1;
    }
}

/// A compaction request on the Messages API: its last user message is the summarization
/// prompt — Claude Code's ("Respond with TEXT ONLY") or GitHub Copilot CLI's ("The history is
/// being compacted").
fn is_claude_compaction(body: &Value) -> bool {
    body.get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .map(|m| m.get("content").map(Value::to_string).unwrap_or_default())
        .is_some_and(|c| {
            c.contains("Respond with TEXT ONLY") || c.contains("The history is being compacted")
        })
}

/// The shell tool a Messages API request offers: Claude Code's `Bash`, or GitHub Copilot CLI's
/// `bash` (same `command` / `description` arguments).
fn messages_shell_tool(body: &Value) -> &'static str {
    let offers = |name: &str| {
        body.get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
    };
    if !offers("Bash") && offers("bash") {
        "bash"
    } else {
        "Bash"
    }
}

/// Gemini CLI's compression: a non-streaming `generateContent` whose last user part asks for a
/// `<state_snapshot>` (the summary, then a verification of it: two requests per compression).
fn is_gemini_compaction(path: &str, body: &Value) -> bool {
    path.contains(":generateContent")
        && body
            .get("contents")
            .and_then(Value::as_array)
            .and_then(|c| c.last())
            .is_some_and(|c| c.to_string().contains("<state_snapshot>"))
}

/// `/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse` → `gemini-2.5-pro`.
fn gemini_model(path: &str) -> String {
    path.rsplit_once("/models/")
        .map(|(_, rest)| rest.split(':').next().unwrap_or(rest).to_string())
        .unwrap_or_else(|| "gemini-2.5-pro".to_string())
}

/// The name of the shell tool the request offers (Gemini CLI 0.61.0: `run_shell_command`).
fn gemini_shell_tool(body: &Value) -> String {
    body.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array))
        .flatten()
        .filter_map(|f| f.get("name").and_then(Value::as_str))
        .find(|n| n.contains("shell"))
        .unwrap_or("run_shell_command")
        .to_string()
}

/// One `GenerateContentResponse`: a text, or calls of the shell tool and of the turn's `tools`
/// (by their Gemini CLI names, e.g. `write_file`, `replace`), with `usageMetadata` (its
/// `promptTokenCount` is what Gemini CLI records as `tokens.input`).
fn gemini_response(turn: &Turn, usage: u64, model: &str, body: &Value) -> Value {
    let mut parts: Vec<Value> = turn
        .shell
        .iter()
        .map(|cmd| json!({"functionCall": {"name": gemini_shell_tool(body),
                                           "args": {"command": cmd, "description": "Run a command"}}}))
        .collect();
    parts.extend(
        turn.tools
            .iter()
            .map(|t| json!({"functionCall": {"name": t.name, "args": t.input}})),
    );
    if parts.is_empty() {
        parts.push(json!({"text": turn.text.clone().unwrap_or_default()}));
    }
    json!({"candidates": [{"content": {"role": "model", "parts": parts},
                           "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": usage, "candidatesTokenCount": 10,
                             "totalTokenCount": usage + 10},
           "modelVersion": model})
}

fn has_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

fn sse(out: &mut String, event: &str, data: Value) {
    out.push_str(&format!("event: {event}\ndata: {data}\n\n"));
}

fn messages_sse(turn: &Turn, usage: u64, model: &str, n: usize, shell: &str) -> String {
    let mut out = String::new();
    sse(
        &mut out,
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_fake_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": usage, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}}),
    );
    let calls = turn.calls(Some(shell));
    let stop_reason = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    if calls.is_empty() {
        let text = turn.text.clone().unwrap_or_default();
        sse(
            &mut out,
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "text", "text": ""}}),
        );
        sse(
            &mut out,
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": text}}),
        );
        sse(
            &mut out,
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        );
    }
    for (i, call) in calls.iter().enumerate() {
        sse(
            &mut out,
            "content_block_start",
            json!({"type": "content_block_start", "index": i, "content_block":
                {"type": "tool_use", "id": tool_id(n, i), "name": call.name, "input": {}}}),
        );
        sse(
            &mut out,
            "content_block_delta",
            json!({"type": "content_block_delta", "index": i,
                   "delta": {"type": "input_json_delta", "partial_json": call.input.to_string()}}),
        );
        sse(
            &mut out,
            "content_block_stop",
            json!({"type": "content_block_stop", "index": i}),
        );
    }
    sse(
        &mut out,
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 10}}),
    );
    sse(&mut out, "message_stop", json!({"type": "message_stop"}));
    out
}

fn messages_json(turn: &Turn, usage: u64, model: &str, n: usize, shell: &str) -> String {
    let calls = turn.calls(Some(shell));
    let content: Vec<Value> = if calls.is_empty() {
        vec![json!({"type": "text", "text": turn.text.clone().unwrap_or_default()})]
    } else {
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"type": "tool_use", "id": tool_id(n, i), "name": c.name, "input": c.input}))
            .collect()
    };
    json!({"id": format!("msg_fake_{n}"), "type": "message", "role": "assistant", "model": model,
           "content": content,
           "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
           "stop_sequence": null,
           "usage": {"input_tokens": usage, "output_tokens": 10,
                     "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
    .to_string()
}

/// The first call of answer `n` keeps the id the single-call fixtures were captured with.
fn tool_id(n: usize, i: usize) -> String {
    if i == 0 {
        format!("toolu_fake_{n}")
    } else {
        format!("toolu_fake_{n}_{i}")
    }
}

fn call_id(n: usize, i: usize) -> String {
    if i == 0 {
        format!("call_fake_{n}")
    } else {
        format!("call_fake_{n}_{i}")
    }
}

fn responses_sse(turn: &Turn, usage: u64, n: usize) -> String {
    let mut out = String::new();
    let id = format!("resp_fake_{n}");
    sse(
        &mut out,
        "response.created",
        json!({"type": "response.created", "response": {"id": id}}),
    );
    let calls = turn.calls(None);
    let items: Vec<Value> = if calls.is_empty() {
        vec![
            json!({"type": "message", "role": "assistant", "id": format!("msg_fake_{n}"),
                    "content": [{"type": "output_text",
                                 "text": turn.text.clone().unwrap_or_default()}]}),
        ]
    } else {
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| match &c.input {
                Value::String(text) => json!({"type": "custom_tool_call",
                    "id": format!("ctc_fake_{n}_{i}"), "call_id": call_id(n, i),
                    "name": c.name, "input": text}),
                // Codex's client-side tool discovery (a `tool_search` tool in the request).
                args if c.name == "tool_search" => json!({"type": "tool_search_call",
                    "id": format!("tsc_fake_{n}_{i}"), "call_id": call_id(n, i),
                    "execution": "client", "status": "completed", "arguments": args}),
                args => {
                    let id = if i == 0 {
                        format!("fc_fake_{n}")
                    } else {
                        format!("fc_fake_{n}_{i}")
                    };
                    let mut item = json!({"type": "function_call", "id": id,
                        "call_id": call_id(n, i), "name": c.name, "arguments": args.to_string()});
                    if let Some((ns, name)) = c.name.split_once(NAMESPACED) {
                        item["namespace"] = json!(ns);
                        item["name"] = json!(name);
                    }
                    item
                }
            })
            .collect()
    };
    for (i, item) in items.into_iter().enumerate() {
        sse(
            &mut out,
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": i, "item": item}),
        );
    }
    sse(
        &mut out,
        "response.completed",
        json!({"type": "response.completed", "response": {"id": id, "usage": {
            "input_tokens": usage, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage + 10}}}),
    );
    out
}
