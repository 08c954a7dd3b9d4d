//! The OpenAI chat-completions wire (`POST …/chat/completions`): Qwen Code, and any client that
//! talks to an "OpenAI-compatible" endpoint (Factory Droid's generic provider, Copilot CLI).
//!
//! Streaming answers are SSE `data:` lines of `chat.completion.chunk` objects ending in
//! `data: [DONE]`; a text arrives as one `delta.content`, tool calls as `delta.tool_calls` with
//! their whole `arguments` in one piece, then a chunk with the `finish_reason`. Usage: when the
//! request asks for it (`stream_options.include_usage`, as the OpenAI API does) a last chunk with
//! empty `choices` and `usage`; otherwise the usage rides on the finish chunk, as many compatible
//! servers send it, so the client still learns the scripted context size. A request with
//! `stream: false` gets one `chat.completion` object.

use super::{call_id, Turn};
use serde_json::{json, Value};

/// Whether `path` (query string included) is a chat-completions request.
pub(super) fn is_request(path: &str) -> bool {
    path.split('?')
        .next()
        .is_some_and(|p| p.ends_with("/chat/completions"))
}

/// What a client's compaction (summarisation) request says in its last user message. Qwen Code
/// 0.24.4 ends it with "First, reason in your <analysis> block. Then, produce the
/// <state_snapshot> XML." (its cache-sharing variant offers the tools too, so tools can not tell).
/// Factory Droid 0.225.2 asks "Please summarize the following conversation:" (no tools offered).
/// OpenCode 1.18.33 gives its summarizer "Here is the conversation so far:" and the conversation.
const COMPACTION_MARKERS: &[&str] = &[
    "produce the <state_snapshot> XML",
    "Please summarize the following conversation:",
    "Here is the conversation so far:\n\n<conversation>",
];

/// Whether the request asks the model to summarise the conversation for a compaction.
pub(super) fn is_compaction(body: &Value) -> bool {
    let text = last_user_text(body);
    COMPACTION_MARKERS.iter().any(|m| text.contains(m))
}

/// How a client's background helper requests begin their system message: they offer tools but
/// are not the conversation, so they must not take its scripted turns. Qwen Code 0.24.4 runs a
/// "managed memory extraction subagent" after a session's turn (with six tools).
const SIDE_QUERY_SYSTEM_MARKERS: &[&str] =
    &["You are now acting as the managed memory extraction subagent"];

/// Whether the request is a client's side query rather than the conversation: it offers no
/// tools (a title, a check), or its system message is a known helper's.
pub(super) fn is_side_query(body: &Value) -> bool {
    let system = message_text(body, "system", false);
    tool_names(body).is_empty()
        || SIDE_QUERY_SYSTEM_MARKERS
            .iter()
            .any(|m| system.trim_start().starts_with(m))
}

/// The text of the last `user` message (a string, or the `text` of its content parts).
fn last_user_text(body: &Value) -> String {
    message_text(body, "user", true)
}

/// The text of the first (or the last) message with `role`.
fn message_text(body: &Value, role: &str, last: bool) -> String {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let with_role = |m: &&Value| m.get("role").and_then(Value::as_str) == Some(role);
    let found = if last {
        messages.iter().rev().find(with_role)
    } else {
        messages.iter().find(with_role)
    };
    let Some(message) = found else {
        return String::new();
    };
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The summary in the shape the compaction request asks for: Qwen Code drops a summary without
/// a non-empty `<state_snapshot>` element (and counts the compaction as failed).
pub(super) fn compaction_summary(summary: &str, body: &Value) -> String {
    if last_user_text(body).contains("<state_snapshot>") && !summary.contains("<state_snapshot>") {
        format!("<state_snapshot>\n{summary}\n</state_snapshot>")
    } else {
        summary.to_string()
    }
}

/// The name of the shell tool the request offers: Qwen Code's `run_shell_command`, or any
/// tool named like a shell (`bash`, `shell`, `execute`, case aside).
fn shell_tool(body: &Value) -> String {
    tool_names(body)
        .into_iter()
        .find(|n| {
            let n = n.to_ascii_lowercase();
            n.contains("shell") || n == "bash" || n == "execute"
        })
        .unwrap_or_else(|| "run_shell_command".to_string())
}

/// The names of the function tools a request offers.
pub(super) fn tool_names(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .map(String::from)
        .collect()
}

/// The turn's tool calls as chat-completions `tool_calls` (`arguments` is a JSON string; a
/// string `input` is passed through as the arguments text).
fn tool_calls(turn: &Turn, body: &Value, n: usize) -> Vec<Value> {
    let shell = turn.shell.iter().map(|cmd| {
        let tool = shell_tool(body);
        let args = if tool == "Execute" {
            // Factory Droid 0.225.2 rejects an `Execute` call without its risk fields.
            json!({"summary": "Run the requested command", "command": cmd,
                   "riskLevelReason": "It only touches the scratch project.", "riskLevel": "low"})
        } else {
            json!({"command": cmd, "description": "Run a command"})
        };
        (tool, args)
    });
    let tools = turn.tools.iter().map(|t| (t.name.clone(), t.input.clone()));
    shell
        .chain(tools)
        .enumerate()
        .map(|(i, (name, input))| {
            let arguments = match input {
                Value::String(text) => text,
                args => args.to_string(),
            };
            json!({"index": i, "id": call_id(n, i), "type": "function",
                   "function": {"name": name, "arguments": arguments}})
        })
        .collect()
}

fn usage_json(usage: u64) -> Value {
    json!({"prompt_tokens": usage, "completion_tokens": 10, "total_tokens": usage + 10,
           "prompt_tokens_details": {"cached_tokens": 0}})
}

fn model(body: &Value) -> &str {
    body.get("model")
        .and_then(Value::as_str)
        .unwrap_or("gpt-4o")
}

/// The answer to a chat-completions request: `(content type, body)`.
pub(super) fn answer(turn: &Turn, usage: u64, body: &Value, n: usize) -> (&'static str, String) {
    if body.get("stream").and_then(Value::as_bool).unwrap_or(false) {
        ("text/event-stream", stream(turn, usage, body, n))
    } else {
        ("application/json", whole(turn, usage, body, n).to_string())
    }
}

/// The streamed answer: role and content (or tool calls), the finish, the usage, `[DONE]`.
fn stream(turn: &Turn, usage: u64, body: &Value, n: usize) -> String {
    let id = format!("chatcmpl-fake-{n}");
    let model = model(body);
    let chunk = |choices: Value, usage: Option<Value>| {
        let mut c = json!({"id": id, "object": "chat.completion.chunk", "created": 0,
                           "model": model, "choices": choices});
        if let Some(u) = usage {
            c["usage"] = u;
        }
        format!("data: {c}\n\n")
    };
    let calls = tool_calls(turn, body, n);
    let include_usage = body
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut out = String::new();
    let (delta, finish) = if calls.is_empty() {
        (
            json!({"role": "assistant", "content": turn.text.clone().unwrap_or_default()}),
            "stop",
        )
    } else {
        (
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        )
    };
    out.push_str(&chunk(
        json!([{"index": 0, "delta": delta, "finish_reason": null}]),
        None,
    ));
    out.push_str(&chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        (!include_usage).then(|| usage_json(usage)),
    ));
    if include_usage {
        out.push_str(&chunk(json!([]), Some(usage_json(usage))));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

/// The non-streaming answer: one `chat.completion`.
fn whole(turn: &Turn, usage: u64, body: &Value, n: usize) -> Value {
    let calls = tool_calls(turn, body, n);
    let (message, finish) = if calls.is_empty() {
        (
            json!({"role": "assistant", "content": turn.text.clone().unwrap_or_default()}),
            "stop",
        )
    } else {
        (
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        )
    };
    json!({"id": format!("chatcmpl-fake-{n}"), "object": "chat.completion", "created": 0,
           "model": model(body),
           "choices": [{"index": 0, "message": message, "finish_reason": finish}],
           "usage": usage_json(usage)})
}
