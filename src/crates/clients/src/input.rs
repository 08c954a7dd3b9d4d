//! The hook's stdin as the hooks care about it: one JSON object, every field optional, the
//! union of the field names the clients use (a client that names a field differently reads it
//! here, so the rest of the hooks never see the difference).

use serde_json::Value;

/// What the client sent, as far as the hooks care. Fields of the wrong type count as absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear`, `compact`.
    pub source: Option<String>,
    pub model: Option<String>,
    /// PreCompact / PostCompact: `manual` or `auto`.
    pub trigger: Option<String>,
    /// Claude Code's PostCompact: the summary it produced.
    pub compact_summary: Option<String>,
    pub stop_hook_active: bool,
    /// Codex sends `turn_id` on turn-scoped events; Claude Code never does.
    pub has_turn_id: bool,
    /// Stop: the final answer (Gemini CLI's AfterAgent: `prompt_response`). The session record
    /// takes it as the agent's last message (Claude Code appends that line to its transcript
    /// only after the hook started).
    pub last_assistant_message: Option<String>,
    /// SessionEnd: why the session ended (Claude Code `clear`, `logout`, `prompt_input_exit`,
    /// `other`; Codex `other`; Copilot CLI `complete`, `user_exit`, ...).
    pub reason: Option<String>,
    /// The payload names its fields in camelCase (`sessionId`): GitHub Copilot CLI's own hooks,
    /// whose payloads carry no event name either.
    pub camel_case: bool,
    /// A tool event's tool (`tool_name`), its call's id as the transcript names it
    /// (`tool_call_id`), the shell command it was given (`tool_input.command`) and, for a
    /// failure, the client's error text (`error`): Qwen Code's PostToolUseFailure.
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    pub tool_command: Option<String>,
    pub tool_error: Option<String>,
    /// SessionStart (Claude Code, Factory Droid): `CLAUDE_ENV_FILE`, a file whose `export`
    /// lines the client applies to the session's later shell commands.
    pub env_file: Option<String>,
    /// The payload names the session's last message (Factory Droid's `message_id`, absent from
    /// a SessionStart of a session with no message yet).
    pub has_message_id: bool,
}

impl HookInput {
    /// Lenient parse: anything that is not a JSON object gives the empty input. Invalid UTF-8
    /// is replaced rather than rejected, so one bad byte in a prompt does not lose the cwd.
    pub fn parse(bytes: &[u8]) -> HookInput {
        let text = String::from_utf8_lossy(bytes);
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => HookInput::from_value(&v),
            Err(_) => HookInput::default(),
        }
    }

    pub fn from_value(v: &Value) -> HookInput {
        let s = |key: &str| {
            v.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .filter(|s| !s.is_empty())
        };
        HookInput {
            // Copilot CLI: `sessionId`, and `transcriptPath` on agentStop and preCompact.
            session_id: s("session_id").or_else(|| s("sessionId")),
            transcript_path: s("transcript_path").or_else(|| s("transcriptPath")),
            cwd: s("cwd"),
            hook_event_name: s("hook_event_name"),
            source: s("source"),
            model: s("model"),
            trigger: s("trigger"),
            compact_summary: s("compact_summary"),
            stop_hook_active: match v.get("stop_hook_active") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s == "true",
                _ => false,
            },
            has_turn_id: v.get("turn_id").is_some_and(|t| !t.is_null()),
            // Gemini CLI's AfterAgent calls it `prompt_response`.
            last_assistant_message: s("last_assistant_message").or_else(|| s("prompt_response")),
            reason: s("reason"),
            camel_case: v.get("sessionId").is_some_and(Value::is_string),
            tool_name: s("tool_name"),
            // Claude Code: `tool_use_id`.
            tool_call_id: s("tool_call_id").or_else(|| s("tool_use_id")),
            tool_command: v
                .pointer("/tool_input/command")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
                .map(str::to_string),
            tool_error: s("error"),
            env_file: s("CLAUDE_ENV_FILE"),
            has_message_id: s("message_id").is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_known_field_and_ignores_unknown_ones() {
        let input = HookInput::parse(
            br#"{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"SessionStart",
                "source":"compact","model":"gpt-5","trigger":"auto","compact_summary":"sum",
                "stop_hook_active":true,"turn_id":"t1","surprise":{"deep":[1,2]}}"#,
        );
        assert_eq!(input.session_id.as_deref(), Some("s1"));
        assert_eq!(input.transcript_path.as_deref(), Some("/t.jsonl"));
        assert_eq!(input.cwd.as_deref(), Some("/w"));
        assert_eq!(input.hook_event_name.as_deref(), Some("SessionStart"));
        assert_eq!(input.source.as_deref(), Some("compact"));
        assert_eq!(input.model.as_deref(), Some("gpt-5"));
        assert_eq!(input.trigger.as_deref(), Some("auto"));
        assert_eq!(input.compact_summary.as_deref(), Some("sum"));
        assert!(input.stop_hook_active);
        assert!(input.has_turn_id);
    }

    #[test]
    fn gemini_after_agent_gives_its_prompt_response_as_the_last_message() {
        let raw =
            include_bytes!("../../../../tests/fixtures/clients/gemini-0.61.0/after_agent.json");
        let i = HookInput::parse(raw);
        assert_eq!(i.hook_event_name.as_deref(), Some("AfterAgent"));
        assert!(i.last_assistant_message.is_some_and(|m| !m.is_empty()));
        let both = br#"{"last_assistant_message": "a", "prompt_response": "b"}"#;
        assert_eq!(
            HookInput::parse(both).last_assistant_message.as_deref(),
            Some("a")
        );
    }

    #[test]
    fn copilot_camel_case_names_fill_the_same_fields() {
        let stop = HookInput::parse(include_bytes!(
            "../../../../tests/fixtures/clients/copilot-1.0.102/agent_stop.json"
        ));
        assert!(stop.camel_case);
        assert_eq!(
            stop.session_id.as_deref(),
            Some("56a6ce40-714d-4cdf-96d0-5be2fcea3078")
        );
        assert!(stop
            .transcript_path
            .is_some_and(|p| p.ends_with("/events.jsonl")));
        assert_eq!(stop.hook_event_name, None);
        let claude_form = HookInput::parse(include_bytes!(
            "../../../../tests/fixtures/clients/copilot-1.0.102/claude_format-stop.json"
        ));
        assert!(!claude_form.camel_case);
        assert_eq!(claude_form.session_id, stop.session_id);
    }

    #[test]
    fn qwen_tool_failure_names_the_call_its_command_and_the_error() {
        let failure = HookInput::parse(include_bytes!(
            "../../../../tests/fixtures/clients/qwen-0.24.4/post_tool_use_failure.json"
        ));
        assert_eq!(failure.tool_name.as_deref(), Some("run_shell_command"));
        assert_eq!(failure.tool_call_id.as_deref(), Some("call_fake_4"));
        assert_eq!(failure.tool_command.as_deref(), Some("sh run_tests.sh"));
        assert!(failure
            .tool_error
            .is_some_and(|e| e.contains("Exit Code: 1")));
    }

    #[test]
    fn wrong_types_and_garbage_become_absent() {
        let input = HookInput::parse(br#"{"session_id":42,"cwd":null,"stop_hook_active":"no"}"#);
        assert_eq!(input, HookInput::default());
        assert_eq!(HookInput::parse(b"[1,2]"), HookInput::default());
        assert_eq!(HookInput::parse(b"{\"cwd\": \"/tr"), HookInput::default());
        assert_eq!(HookInput::parse(b""), HookInput::default());
    }

    #[test]
    fn invalid_utf8_in_one_field_keeps_the_others() {
        let mut bytes = br#"{"cwd":"/w","prompt":"bad "#.to_vec();
        bytes.extend_from_slice(&[0xff, 0xfe]);
        bytes.extend_from_slice(br#""}"#);
        assert_eq!(HookInput::parse(&bytes).cwd.as_deref(), Some("/w"));
    }
}
