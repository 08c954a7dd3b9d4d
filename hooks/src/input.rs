//! The hook's stdin: one JSON object, every field optional, read with a size cap and a time
//! limit so that a huge or never-closed stdin can neither exhaust memory nor hang the hook.

use serde_json::Value;
use std::io::Read;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The most of stdin that is kept and parsed. Real payloads are a few KiB; a longer one (a
/// pasted 100 MB prompt) is read past and ignored, never buffered whole.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

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
    /// `other`; Codex `other`).
    pub reason: Option<String>,
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
            session_id: s("session_id"),
            transcript_path: s("transcript_path"),
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
        }
    }
}

/// What came in on stdin.
#[derive(Debug, Default)]
pub struct Payload {
    pub bytes: Vec<u8>,
    /// More than `MAX_INPUT_BYTES` arrived: `bytes` is a prefix, not a whole document.
    pub truncated: bool,
}

enum Msg {
    Payload(Payload),
    Drained,
}

/// Reads stdin on a helper thread: the first `cap` bytes are handed over, the rest is read and
/// thrown away so the client's write does not fail with a broken pipe.
pub struct StdinReader {
    rx: Receiver<Msg>,
}

impl StdinReader {
    pub fn spawn<R: Read + Send + 'static>(mut reader: R, cap: usize) -> StdinReader {
        let (tx, rx) = mpsc::channel();
        // If no thread can be started, the payload is empty: the hook then says nothing.
        let _ = std::thread::Builder::new().spawn(move || {
            let mut bytes = Vec::new();
            let mut chunk = vec![0u8; 64 * 1024];
            let mut truncated = false;
            loop {
                match reader.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = cap.saturating_sub(bytes.len());
                        bytes.extend_from_slice(&chunk[..n.min(room)]);
                        if n > room {
                            truncated = true;
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
            let _ = tx.send(Msg::Payload(Payload { bytes, truncated }));
            if truncated {
                loop {
                    match reader.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
            }
            let _ = tx.send(Msg::Drained);
        });
        StdinReader { rx }
    }

    /// The payload, or an empty one if stdin is not closed within `wait` (a terminal, a client
    /// that never closes the pipe).
    pub fn payload(&self, wait: Duration) -> Payload {
        match self.rx.recv_timeout(wait) {
            Ok(Msg::Payload(p)) => p,
            _ => Payload::default(),
        }
    }

    /// Waits, at most until `deadline`, for the rest of stdin to be read past.
    pub fn finish(&self, deadline: Instant) {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Msg::Drained) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Msg::Payload(_)) => continue,
                Err(RecvTimeoutError::Timeout) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

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
        let raw = include_bytes!("../../tests/fixtures/clients/gemini-0.61.0/after_agent.json");
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

    #[test]
    fn a_long_stdin_is_capped_and_drained() {
        let data = vec![b'x'; 1000];
        let reader = StdinReader::spawn(Cursor::new(data), 100);
        let p = reader.payload(Duration::from_secs(5));
        assert_eq!(p.bytes.len(), 100);
        assert!(p.truncated);
        reader.finish(Instant::now() + Duration::from_secs(5));
    }

    #[test]
    fn a_short_stdin_is_read_whole() {
        let reader = StdinReader::spawn(Cursor::new(b"{}".to_vec()), 100);
        let p = reader.payload(Duration::from_secs(5));
        assert_eq!(p.bytes, b"{}");
        assert!(!p.truncated);
    }

    #[test]
    fn a_stdin_that_never_closes_gives_an_empty_payload_in_time() {
        struct Never;
        impl Read for Never {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                std::thread::sleep(Duration::from_secs(3600));
                Ok(0)
            }
        }
        let start = Instant::now();
        let reader = StdinReader::spawn(Never, 100);
        let p = reader.payload(Duration::from_millis(100));
        assert!(p.bytes.is_empty());
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
