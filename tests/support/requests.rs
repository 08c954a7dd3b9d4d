//! Reading the fake server's request log: what the hooks injected into each model request.

use super::fake_server::LoggedRequest;
use super::*;

/// The texts hooks injected into one request: Claude Code sends them as `system` messages
/// inside `messages`; Codex as `developer` messages inside `input`.
pub fn injected_texts(agent: Agent, req: &LoggedRequest) -> Vec<String> {
    let (list, role) = match agent {
        Agent::Claude => ("messages", "system"),
        Agent::Codex => ("input", "developer"),
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

/// All injected text of one request, joined.
pub fn injected(agent: Agent, req: &LoggedRequest) -> String {
    injected_texts(agent, req).join("\n")
}

/// How many times `needle` occurs in the request body.
pub fn count_in(req: &LoggedRequest, needle: &str) -> usize {
    req.body_text().matches(needle).count()
}
