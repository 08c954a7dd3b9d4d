//! Who runs a `handover` command: the agent and its session, from what the caller said, else
//! from the environment each client sets for the shell commands it runs. For `handover write`
//! and `ack`, which an agent runs from its own shell.

/// The agent writing or acknowledging, when the caller didn't say: HANDOVER_AGENT, else what
/// the client's environment gives away.
pub fn agent(explicit: Option<&str>) -> Option<crate::AgentName> {
    if let Some(a) = explicit {
        return Some(crate::AgentName::parse(a));
    }
    if let Ok(a) = std::env::var("HANDOVER_AGENT") {
        if !a.is_empty() {
            return Some(crate::AgentName::parse(&a));
        }
    }
    // Each client module says what it sets for the shell commands it runs; the precedence
    // when several match (a client's own name first) is running_the_shell's.
    crate::running_the_shell(&|name| std::env::var_os(name)).map(crate::AgentName::Known)
}

/// The session id the detected agent's client sets for the commands it runs
/// (`Client::shell_session_id_var`: Claude Code, Codex, Qwen Code and Copilot CLI set one;
/// Factory Droid's is the one our SessionStart exports, `Quirks::takes_session_id_from_hook`).
/// Only the detected agent's own variable counts: another client's leftover says nothing about
/// who runs this.
pub fn client_session_id(agent: Option<&crate::AgentName>) -> Option<String> {
    let crate::AgentName::Known(agent) = agent? else {
        return None;
    };
    let variable = crate::of(*agent).shell_session_id_var?;
    std::env::var(variable).ok().filter(|s| !s.is_empty())
}

/// The session id the caller gave (`--session`), else `HANDOVER_SESSION_ID`.
pub fn session(explicit: Option<&str>) -> Option<String> {
    explicit.map(str::to_string).or_else(|| {
        std::env::var("HANDOVER_SESSION_ID")
            .ok()
            .filter(|s| !s.is_empty())
    })
}
