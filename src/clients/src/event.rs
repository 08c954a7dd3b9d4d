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

    /// The executable that serves this moment.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_executable_serves_some_moment() {
        for exe in HookExe::ALL {
            assert!(HookEvent::ALL.iter().any(|e| e.exe() == exe), "{exe:?}");
        }
    }
}
