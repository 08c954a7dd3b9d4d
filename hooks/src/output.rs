//! What a hook prints, in exactly the form its client expects for the event. Codex rejects
//! unknown keys and half-JSON, so only the documented fields are ever emitted.

/// The events whose answer can carry context for the model. Gemini CLI's BeforeAgent and
/// AfterTool take the same `hookSpecificOutput.additionalContext` answer as Claude Code's
/// UserPromptSubmit and PostToolUse (Gemini adds the text to the prompt, or to the tool
/// result, inside `<hook_context>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextEvent {
    SessionStart,
    UserPromptSubmit,
    PostToolUse,
    BeforeAgent,
    AfterTool,
}

impl ContextEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            ContextEvent::SessionStart => "SessionStart",
            ContextEvent::UserPromptSubmit => "UserPromptSubmit",
            ContextEvent::PostToolUse => "PostToolUse",
            ContextEvent::BeforeAgent => "BeforeAgent",
            ContextEvent::AfterTool => "AfterTool",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// Print nothing: the usual answer.
    Silent,
    /// `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`.
    Context { event: ContextEvent, text: String },
    /// Plain stdout: Claude Code's PreCompact appends it to the summarizer's instructions.
    Plain(String),
    /// `{"decision": "block", "reason": ...}`: Stop only, and only on purpose. With a
    /// `notice`, also `"systemMessage": notice`: what Gemini CLI shows the user instead of
    /// "This request failed" (Codex rejects keys it does not expect: never for Codex).
    Block {
        reason: String,
        notice: Option<String>,
    },
}

impl Response {
    pub fn encode(&self) -> Vec<u8> {
        // Written by hand so the key order is fixed whatever serde_json's features are.
        let line = match self {
            Response::Silent => return Vec::new(),
            Response::Plain(text) => return format!("{text}\n").into_bytes(),
            Response::Context { event, text } => format!(
                "{{\"hookSpecificOutput\":{{\"hookEventName\":{},\"additionalContext\":{}}}}}",
                quote(event.as_str()),
                quote(text)
            ),
            Response::Block {
                reason,
                notice: None,
            } => format!("{{\"decision\":\"block\",\"reason\":{}}}", quote(reason)),
            Response::Block {
                reason,
                notice: Some(notice),
            } => format!(
                "{{\"decision\":\"block\",\"reason\":{},\"systemMessage\":{}}}",
                quote(reason),
                quote(notice)
            ),
        };
        format!("{line}\n").into_bytes()
    }

    /// A few words for the debug log.
    pub fn describe(&self) -> String {
        match self {
            Response::Silent => "silent".into(),
            Response::Context { event, text } => {
                format!(
                    "context({}, {} chars)",
                    event.as_str(),
                    text.chars().count()
                )
            }
            Response::Plain(text) => format!("plain({} chars)", text.chars().count()),
            Response::Block { reason, .. } => format!("block({} chars)", reason.chars().count()),
        }
    }
}

fn quote(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_each_form_exactly() {
        assert!(Response::Silent.encode().is_empty());
        assert_eq!(
            Response::Context {
                event: ContextEvent::UserPromptSubmit,
                text: "a \"quoted\"\nline".into()
            }
            .encode(),
            b"{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"a \\\"quoted\\\"\\nline\"}}\n"
        );
        assert_eq!(
            Response::Block {
                reason: "save".into(),
                notice: None,
            }
            .encode(),
            b"{\"decision\":\"block\",\"reason\":\"save\"}\n"
        );
        assert_eq!(
            Response::Block {
                reason: "save".into(),
                notice: Some("saving".into()),
            }
            .encode(),
            b"{\"decision\":\"block\",\"reason\":\"save\",\"systemMessage\":\"saving\"}\n"
        );
        assert_eq!(Response::Plain("keep".into()).encode(), b"keep\n");
    }
}
