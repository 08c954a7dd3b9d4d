//! What a hook answers, neutrally ([`Response`]), and the JSON most clients accept for it
//! ([`encode`], Claude Code's form). A client that wants another form gives it in
//! [`crate::Behaviour::own_output`]. Some clients reject unknown keys and half-JSON, so only the
//! documented fields are ever emitted.

use crate::{Client, HookEvent};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// Print nothing: the usual answer.
    Silent,
    /// Context for the model on `event` (SessionStart, Prompt or Tool): Claude Code's form is
    /// `{"hookSpecificOutput": {"hookEventName": <the client's name>, "additionalContext": ...}}`.
    Context { event: HookEvent, text: String },
    /// Plain stdout: Claude Code's PreCompact appends it to the summarizer's instructions.
    Plain(String),
    /// `{"decision": "block", "reason": ...}`: Stop only, and only on purpose. `notice` is
    /// what the user should see, for a client that shows a block as a failure without one
    /// (Gemini CLI's `systemMessage`); a client that rejects keys it does not expect drops it.
    Block {
        reason: String,
        notice: Option<String>,
    },
}

impl Response {
    /// A few words for the debug log.
    pub fn describe(&self) -> String {
        match self {
            Response::Silent => "silent".into(),
            Response::Context { event, text } => {
                format!("context({event:?}, {} chars)", text.chars().count())
            }
            Response::Plain(text) => format!("plain({} chars)", text.chars().count()),
            Response::Block { reason, .. } => format!("block({} chars)", reason.chars().count()),
        }
    }
}

/// Claude Code's form of `response`, with `client`'s event names; `with_notice` keeps a
/// block's notice as `systemMessage`. Written by hand so the key order is fixed whatever
/// serde_json's features are. A context for an event the client does not have prints nothing.
pub fn encode(client: &Client, response: &Response, with_notice: bool) -> Vec<u8> {
    let line = match response {
        Response::Silent => return Vec::new(),
        Response::Plain(text) => return format!("{text}\n").into_bytes(),
        Response::Context { event, text } => {
            let Some(name) = client.event_name(*event) else {
                return Vec::new();
            };
            format!(
                "{{\"hookSpecificOutput\":{{\"hookEventName\":{},\"additionalContext\":{}}}}}",
                quote(name),
                quote(text)
            )
        }
        Response::Block { reason, notice } => match notice.as_ref().filter(|_| with_notice) {
            None => format!("{{\"decision\":\"block\",\"reason\":{}}}", quote(reason)),
            Some(notice) => format!(
                "{{\"decision\":\"block\",\"reason\":{},\"systemMessage\":{}}}",
                quote(reason),
                quote(notice)
            ),
        },
    };
    format!("{line}\n").into_bytes()
}

/// A JSON string literal.
pub fn quote(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{claude, codex, copilot, gemini, opencode, qwen};

    /// Each client's bytes for each form of answer, exactly: Claude Code's form, or the
    /// client's own where it has one.
    #[test]
    fn encodes_each_form_exactly() {
        let context = |event, text: &str| Response::Context {
            event,
            text: text.into(),
        };
        let plain = |text: &str| Response::Plain(text.into());
        let block = Response::Block {
            reason: "save".into(),
            notice: Some("saving".into()),
        };
        let cases: [(&Client, Response, &[u8]); 18] = [
            (&claude::CLIENT, Response::Silent, b""),
            (
                &claude::CLIENT,
                context(HookEvent::Prompt, "a \"quoted\"\nline"),
                b"{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"a \\\"quoted\\\"\\nline\"}}\n",
            ),
            (&claude::CLIENT, plain("keep"), b"keep\n"),
            (
                &gemini::CLIENT,
                context(HookEvent::Tool, "t"),
                b"{\"hookSpecificOutput\":{\"hookEventName\":\"AfterTool\",\"additionalContext\":\"t\"}}\n",
            ),
            (
                &gemini::CLIENT,
                block.clone(),
                b"{\"decision\":\"block\",\"reason\":\"save\",\"systemMessage\":\"saving\"}\n",
            ),
            // Gemini CLI has no PostCompact: nothing rather than a name it does not know.
            (&gemini::CLIENT, context(HookEvent::PostCompact, "x"), b""),
            // Codex rejects keys it does not expect; Claude Code shows no notice.
            (
                &codex::CLIENT,
                block.clone(),
                b"{\"decision\":\"block\",\"reason\":\"save\"}\n",
            ),
            (
                &claude::CLIENT,
                block.clone(),
                b"{\"decision\":\"block\",\"reason\":\"save\"}\n",
            ),
            // GitHub Copilot CLI: only a top-level additionalContext and the stop block.
            (
                &copilot::CLIENT,
                context(HookEvent::Tool, "a \"b\"\nc"),
                b"{\"additionalContext\":\"a \\\"b\\\"\\nc\"}\n",
            ),
            (
                &copilot::CLIENT,
                block.clone(),
                b"{\"decision\":\"block\",\"reason\":\"save\"}\n",
            ),
            (&copilot::CLIENT, plain("keep"), b""),
            (&copilot::CLIENT, Response::Silent, b""),
            // Qwen Code: PreCompact's text goes out as additionalContext.
            (
                &qwen::CLIENT,
                plain("keep the goal"),
                b"{\"hookSpecificOutput\":{\"hookEventName\":\"PreCompact\",\"additionalContext\":\"keep the goal\"}}\n",
            ),
            (
                &qwen::CLIENT,
                context(HookEvent::Tool, "t"),
                b"{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"t\"}}\n",
            ),
            (
                &qwen::CLIENT,
                block,
                b"{\"decision\":\"block\",\"reason\":\"save\"}\n",
            ),
            // OpenCode's plugin reads plain text.
            (
                &opencode::CLIENT,
                context(HookEvent::SessionStart, "the handoff"),
                b"the handoff\n",
            ),
            (&opencode::CLIENT, plain("keep"), b"keep\n"),
            (&opencode::CLIENT, Response::Silent, b""),
        ];
        for (client, response, expected) in cases {
            assert_eq!(
                String::from_utf8_lossy(&client.encode(&response)),
                String::from_utf8_lossy(expected),
                "{} {response:?}",
                client.name
            );
        }
    }
}
