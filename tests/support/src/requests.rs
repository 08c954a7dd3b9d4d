//! Reading the fake server's request log: what the hooks injected into each model request.

use super::fake_server::LoggedRequest;
use super::*;

/// The texts hooks injected into one request: Claude Code sends them as `system` messages
/// inside `messages`; Codex as `developer` messages inside `input`; Gemini CLI inside
/// `<hook_context>...</hook_context>` in the prompt's text or a tool result (escaping `<` and
/// `>` of the hook's text as `&lt;` and `&gt;`); Qwen Code see [`qwen_hook_contexts`]; Copilot
/// CLI in user messages (see [`copilot_hook_contexts`]).
pub fn injected_texts(agent: Agent, req: &LoggedRequest) -> Vec<String> {
    let (list, role) = match agent {
        Agent::Claude => ("messages", "system"),
        Agent::Codex => ("input", "developer"),
        Agent::Gemini => return gemini_hook_contexts(&req.body),
        Agent::Droid => return droid::hook_contexts(&req.body),
        Agent::Qwen => return qwen_hook_contexts(&req.body),
        Agent::Copilot => return copilot_hook_contexts(&req.body),
    };
    let mut texts = Vec::new();
    for m in req
        .body
        .get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if m.get("role").and_then(Value::as_str) != Some(role) {
            continue;
        }
        match m.get("content") {
            Some(Value::String(s)) => texts.push(s.clone()),
            Some(Value::Array(parts)) => texts.extend(
                parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str).map(String::from)),
            ),
            _ => {}
        }
    }
    texts
}

/// What Copilot CLI 1.0.102 put into a Messages API request from hooks: sessionStart's
/// `additionalContext` is a text part of its own in the first user message,
/// userPromptSubmitted's is a `<system_reminder>` inside the prompt's text, postToolUse's is
/// appended to the tool's result after "Additional guidance from postToolUse hooks:". The texts
/// of user messages and that tail of tool results, in order (never the model's own words).
fn copilot_hook_contexts(body: &Value) -> Vec<String> {
    const AFTER_TOOL: &str = "Additional guidance from postToolUse hooks:\n";
    let mut out = Vec::new();
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
    {
        let parts = match m.get("content") {
            Some(Value::String(s)) => {
                out.push(s.clone());
                continue;
            }
            Some(Value::Array(parts)) => parts,
            _ => continue,
        };
        for p in parts {
            match p.get("type").and_then(Value::as_str) {
                Some("text") => out.extend(p.get("text").and_then(Value::as_str).map(String::from)),
                Some("tool_result") => {
                    let content = match p.get("content") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Array(a)) => a
                            .iter()
                            .filter_map(|c| c.get("text").and_then(Value::as_str))
                            .collect::<Vec<_>>()
                            .join("\n"),
                        _ => String::new(),
                    };
                    if let Some((_, tail)) = content.split_once(AFTER_TOOL) {
                        out.push(tail.to_string());
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Every `<hook_context>` text in any string of the request body, in order.
fn gemini_hook_contexts(body: &Value) -> Vec<String> {
    const OPEN: &str = "<hook_context>";
    const CLOSE: &str = "</hook_context>";
    let mut out = Vec::new();
    let mut stack = vec![body];
    let mut strings = Vec::new();
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => strings.push(s.as_str()),
            Value::Array(a) => stack.extend(a.iter().rev()),
            Value::Object(o) => stack.extend(o.values().rev()),
            _ => {}
        }
    }
    for s in strings {
        let mut rest = s;
        while let Some(start) = rest.find(OPEN) {
            let after = &rest[start + OPEN.len()..];
            let Some(end) = after.find(CLOSE) else { break };
            out.push(after[..end].to_string());
            rest = &after[end + CLOSE.len()..];
        }
    }
    out
}

/// The texts Qwen Code 0.24.4 puts hook outputs in: the SessionStart context as a
/// `<qwen:session-start-context>` block at the end of the system message (replaced, not added
/// to, by the next SessionStart's), a UserPromptSubmit context as a
/// `<qwen:user-prompt-submit-context>` user text, a PostToolUse context appended to the tool
/// result (after a blank line), a Stop block's reason as a user text. Of tool results and user
/// texts only the paragraphs that start with "handover:" are taken (ours have no blank line
/// inside; the rest is Qwen Code's own or the tools' output).
fn qwen_hook_contexts(body: &Value) -> Vec<String> {
    const BLOCKS: [(&str, &str); 2] = [
        (
            "<qwen:session-start-context hidden=\"true\">\nSessionStart additional context:\n",
            "</qwen:session-start-context>",
        ),
        (
            "<qwen:user-prompt-submit-context>\n",
            "</qwen:user-prompt-submit-context>",
        ),
    ];
    let mut out = Vec::new();
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let texts: Vec<&str> = match m.get("content") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
            _ => Vec::new(),
        };
        for text in texts {
            let mut blocks = 0;
            for (open, close) in BLOCKS {
                let mut rest = text;
                while let Some(start) = rest.find(open) {
                    let after = &rest[start + open.len()..];
                    let Some(end) = after.find(close) else { break };
                    out.push(after[..end].trim_end().to_string());
                    rest = &after[end + close.len()..];
                    blocks += 1;
                }
            }
            if blocks == 0 && matches!(role, "tool" | "user") {
                out.extend(
                    text.split("\n\n")
                        .filter(|p| p.trim_start().starts_with("handover:"))
                        .map(str::to_string),
                );
            }
        }
    }
    out
}

/// All injected text of one request, joined.
pub fn injected(agent: Agent, req: &LoggedRequest) -> String {
    injected_texts(agent, req).join("\n")
}

/// How many times `needle` occurs in the request body.
pub fn count_in(req: &LoggedRequest, needle: &str) -> usize {
    req.body_text().matches(needle).count()
}
