//! The agent a stored record names (a session record, a session's state): one of ours, or a
//! name we do not know, kept exactly as written. Such files are read back from a repository or
//! a state directory, so any string may stand there (a record written by another version, a
//! forged one); the typed value is made once where the file is read, and written back as the
//! same string.

use crate::Agent;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// See the module doc.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AgentName {
    /// Exactly one of our `--agent` names.
    Known(Agent),
    /// Anything else, as written (empty when the field was missing).
    Other(String),
}

impl AgentName {
    /// `name` as it is written: one of ours only when it is exactly its `--agent` name, so the
    /// string written back is the same.
    pub fn parse(name: &str) -> AgentName {
        match Agent::ALL.into_iter().find(|a| a.as_str() == name) {
            Some(agent) => AgentName::Known(agent),
            None => AgentName::Other(name.to_string()),
        }
    }

    /// The name as written.
    pub fn as_str(&self) -> &str {
        match self {
            AgentName::Known(agent) => agent.as_str(),
            AgentName::Other(name) => name,
        }
    }

    /// The client it names, read as leniently as `--agent` is (`claude-code` is Claude Code).
    pub fn agent(&self) -> Option<Agent> {
        match self {
            AgentName::Known(agent) => Some(*agent),
            AgentName::Other(name) => Agent::from_name(name),
        }
    }

    /// The same name with an unknown one passed through `bound` (a stored name is bounded and
    /// cleaned like every other string of the file); ours are kept as they are.
    pub fn bounded(self, bound: impl FnOnce(String) -> String) -> AgentName {
        match self {
            AgentName::Known(agent) => AgentName::Known(agent),
            AgentName::Other(name) => AgentName::parse(&bound(name)),
        }
    }
}

impl Default for AgentName {
    fn default() -> AgentName {
        AgentName::Other(String::new())
    }
}

impl From<Agent> for AgentName {
    fn from(agent: Agent) -> AgentName {
        AgentName::Known(agent)
    }
}

impl From<&str> for AgentName {
    fn from(name: &str) -> AgentName {
        AgentName::parse(name)
    }
}

impl From<String> for AgentName {
    fn from(name: String) -> AgentName {
        AgentName::parse(&name)
    }
}

impl PartialEq<&str> for AgentName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for AgentName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for AgentName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for AgentName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AgentName, D::Error> {
        String::deserialize(d).map(|name| AgentName::parse(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_written_back_as_it_was_read() {
        for written in [
            "claude",
            "codex",
            "droid",
            "Claude-Code",
            "",
            "a tool of mine",
        ] {
            let json = serde_json::to_string(written).unwrap();
            let name: AgentName = serde_json::from_str(&json).unwrap();
            assert_eq!(serde_json::to_string(&name).unwrap(), json);
            assert_eq!(name.as_str(), written);
        }
        assert_eq!(AgentName::parse("codex"), AgentName::Known(Agent::Codex));
        // Not exactly ours: kept as written, still read as the client it names.
        let lenient = AgentName::parse("Claude-Code");
        assert_eq!(lenient, AgentName::Other("Claude-Code".into()));
        assert_eq!(lenient.agent(), Some(Agent::Claude));
        assert_eq!(AgentName::parse("vim").agent(), None);
    }
}
