//! Our view of a client's events: the moments our hooks act on, whatever the client calls them
//! (Claude Code's `UserPromptSubmit` is Gemini CLI's `BeforeAgent`). Each client module names
//! them ([`crate::Client::event_name`]); each moment is served by one of our executables.

use handover_base::HookExe;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A session starts, resumes, is cleared or was compacted: the startup context.
    SessionStart,
    /// The client is about to compact: make sure progress is saved.
    PreCompact,
    /// The client compacted: put the handoff back in front of the model.
    PostCompact,
    /// The session ends: the session record.
    SessionEnd,
    /// The user sent a prompt: the context watch (and fallbacks).
    Prompt,
    /// A tool ran: the context watch (and fallbacks).
    Tool,
    /// A tool failed, where the client says so with an event of its own instead of the tool
    /// event (Qwen Code's PostToolUseFailure): the context watch as for [`HookEvent::Tool`], and
    /// the failing command into the session record from the hook input, before the client has
    /// written the failure to its transcript.
    ToolFailure,
    /// The agent finished its turn: the context watch may block once, the session record.
    Stop,
}

impl HookEvent {
    /// In install order: the order hook entries are written in.
    pub const ALL: [HookEvent; 8] = [
        HookEvent::SessionStart,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::SessionEnd,
        HookEvent::Prompt,
        HookEvent::Tool,
        HookEvent::ToolFailure,
        HookEvent::Stop,
    ];

    /// The names Claude Code gave these moments, which most clients copied (a declaration
    /// takes them through [`crate::EventNames::common_without`]).
    pub const COMMON_NAMES: [(HookEvent, &'static str); 8] = [
        (HookEvent::SessionStart, "SessionStart"),
        (HookEvent::PreCompact, "PreCompact"),
        (HookEvent::PostCompact, "PostCompact"),
        (HookEvent::SessionEnd, "SessionEnd"),
        (HookEvent::Prompt, "UserPromptSubmit"),
        (HookEvent::Tool, "PostToolUse"),
        (HookEvent::ToolFailure, "PostToolUseFailure"),
        (HookEvent::Stop, "Stop"),
    ];

    /// The executable that serves this moment.
    pub fn exe(self) -> HookExe {
        match self {
            HookEvent::SessionStart => HookExe::SessionStart,
            HookEvent::PreCompact | HookEvent::PostCompact | HookEvent::SessionEnd => {
                HookExe::PreCompact
            }
            HookEvent::Prompt | HookEvent::Tool | HookEvent::ToolFailure | HookEvent::Stop => {
                HookExe::ContextWatch
            }
        }
    }
}

/// What a SessionStart opens, as its payload's `source` names it. Parsed once, where the hook
/// input is read ([`crate::Client::session_start_source`]); the journal and the session file keep
/// the client's word ([`StartSource::as_str`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartSource {
    /// A new session (`startup`).
    Startup,
    /// A new session, in the word GitHub Copilot CLI uses (`new`).
    New,
    /// A session continued (`resume`).
    Resume,
    /// The conversation cleared (`clear`).
    Clear,
    /// The context compacted (`compact`).
    Compact,
    /// A word no client we know sends: kept as it came, treated as none of the above.
    Other(String),
}

impl StartSource {
    /// The client's word, exactly; nothing else turns one into a `StartSource`.
    pub fn parse(word: &str) -> StartSource {
        match word {
            "startup" => StartSource::Startup,
            "new" => StartSource::New,
            "resume" => StartSource::Resume,
            "clear" => StartSource::Clear,
            "compact" => StartSource::Compact,
            other => StartSource::Other(other.to_string()),
        }
    }

    /// The word as the client sent it (the journal's `source`, the session file's
    /// `startup_armed`).
    pub fn as_str(&self) -> &str {
        match self {
            StartSource::Startup => "startup",
            StartSource::New => "new",
            StartSource::Resume => "resume",
            StartSource::Clear => "clear",
            StartSource::Compact => "compact",
            StartSource::Other(word) => word,
        }
    }

    /// A session that did not exist before this SessionStart (`startup`, `new`).
    pub fn opens_session(&self) -> bool {
        matches!(self, StartSource::Startup | StartSource::New)
    }
}

impl std::fmt::Display for StartSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_source_reads_back_as_the_word_it_came_as() {
        for word in [
            "startup", "new", "resume", "clear", "compact", "", "fork", "Startup",
        ] {
            assert_eq!(StartSource::parse(word).as_str(), word);
        }
        assert_eq!(StartSource::parse("new"), StartSource::New);
        assert_eq!(
            StartSource::parse("Startup"),
            StartSource::Other("Startup".into())
        );
        let opens: Vec<bool> = ["startup", "new", "resume", "clear", "compact", "x"]
            .map(|w| StartSource::parse(w).opens_session())
            .into();
        assert_eq!(opens, [true, true, false, false, false, false]);
    }

    #[test]
    fn every_executable_serves_some_moment() {
        for exe in HookExe::ALL {
            assert!(HookEvent::ALL.iter().any(|e| e.exe() == exe), "{exe:?}");
        }
    }
}
