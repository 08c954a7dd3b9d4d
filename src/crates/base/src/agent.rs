//! The coding agents handover works with.

use std::fmt;

/// The client a hook command is for: written as `--agent <as_str>` by the installer and read
/// back by the hook executables (`from_name`), so both directions live on this one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Qwen,
    Copilot,
    Droid,
}

impl Agent {
    pub const ALL: [Agent; 6] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Copilot,
        Agent::Droid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Copilot => "copilot",
            Agent::Droid => "droid",
        }
    }

    /// The `--agent` value, leniently: case and spacing ignored, `claude-code`, `gemini-cli`,
    /// `copilot-cli` and `factory-droid` accepted.
    pub fn from_name(name: &str) -> Option<Agent> {
        match name.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claude_code" => Some(Agent::Claude),
            "codex" => Some(Agent::Codex),
            "gemini" | "gemini-cli" | "gemini_cli" => Some(Agent::Gemini),
            "droid" | "factory-droid" | "factory_droid" => Some(Agent::Droid),
            "qwen" | "qwen-code" | "qwen_code" => Some(Agent::Qwen),
            "copilot" | "copilot-cli" | "copilot_cli" => Some(Agent::Copilot),
            _ => None,
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_lenient_forms_are_accepted() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.as_str()), Some(agent));
        }
        assert_eq!(Agent::from_name(" Claude-Code "), Some(Agent::Claude));
        assert_eq!(Agent::from_name("CODEX"), Some(Agent::Codex));
        assert_eq!(Agent::from_name("gemini-cli"), Some(Agent::Gemini));
        assert_eq!(Agent::from_name("Factory-Droid"), Some(Agent::Droid));
        assert_eq!(Agent::from_name("Copilot-CLI"), Some(Agent::Copilot));
        assert_eq!(Agent::from_name("vim"), None);
    }
}
