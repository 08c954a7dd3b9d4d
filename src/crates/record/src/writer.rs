//! Who runs `handover write` or `ack` — the agent and its session, from what the caller said,
//! else from the environment each client sets for the shell commands it runs — and, for a
//! write, the record of that session, so that `handover write` can fill in what the record
//! already knows (files edited, commands).

use crate::files;
use crate::SessionRecord;
use handover_clients::AgentName;
use handover_handoff::store::Store;
use std::path::Path;

/// The agent and session running a `handover` command from its shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    /// The caller's `--agent`, else HANDOVER_AGENT, else what the client's environment gives
    /// away.
    pub agent: Option<AgentName>,
    /// The session id the caller gave (`--session`), else `HANDOVER_SESSION_ID`: the only one
    /// a handoff or the journal names.
    pub session_id: Option<String>,
    /// The id that finds the session's record: `session_id`, else the one the detected agent's
    /// client sets for the commands it runs.
    record_session: Option<String>,
}

impl Writer {
    /// Who runs this command: `agent` and `session` are the caller's flags, if any.
    pub fn identify(agent: Option<&str>, session: Option<&str>) -> Writer {
        let agent = detect_agent(agent);
        let session_id = given_session(session);
        let record_session = session_id
            .clone()
            .or_else(|| client_session_id(agent.as_ref()));
        Writer {
            agent,
            session_id,
            record_session,
        }
    }

    /// The record of this writer's session, identified for sure: by the session id the caller
    /// has (given, `HANDOVER_SESSION_ID`, or set by the client for the commands it runs).
    /// Without one there is no record: the newest record may be another agent's. The record
    /// must be this working tree's own (`files::load_own`, record::provenance), of the same
    /// agent when the agent is known, and of a session that has not ended; files it edited
    /// that no longer exist are left out.
    pub fn record(&self, store: &Store, now_ms: u64) -> Option<SessionRecord> {
        let mut record = files::load_own(store, self.record_session.as_deref()?, now_ms)?;
        let ended = record
            .ended
            .as_ref()
            .is_some_and(|e| e.how == crate::HowEnded::SessionEnd);
        let other_agent = self
            .agent
            .as_ref()
            .is_some_and(|a| record.agent != crate::untrusted(a.as_str(), 20).as_str());
        if ended || other_agent {
            return None;
        }
        let root = store.root();
        record.files_edited.retain(|f| still_exists(root, f));
        Some(record)
    }
}

/// The agent, when the caller didn't say: HANDOVER_AGENT, else what the client's environment
/// gives away.
fn detect_agent(explicit: Option<&str>) -> Option<AgentName> {
    if let Some(a) = explicit {
        return Some(AgentName::parse(a));
    }
    if let Ok(a) = std::env::var("HANDOVER_AGENT") {
        if !a.is_empty() {
            return Some(AgentName::parse(&a));
        }
    }
    // Each client module says what it sets for the shell commands it runs; the precedence
    // when several match (a client's own name first) is running_the_shell's.
    handover_clients::running_the_shell(&|name| std::env::var_os(name)).map(AgentName::Known)
}

/// The session id the caller gave (`--session`), else `HANDOVER_SESSION_ID`.
fn given_session(explicit: Option<&str>) -> Option<String> {
    explicit.map(str::to_string).or_else(|| {
        std::env::var("HANDOVER_SESSION_ID")
            .ok()
            .filter(|s| !s.is_empty())
    })
}

/// The session id the detected agent's client sets for the commands it runs
/// (`Client::shell_session_id_var`: Claude Code, Codex, Qwen Code and Copilot CLI set one;
/// Factory Droid's is the one our SessionStart exports, `Quirks::takes_session_id_from_hook`).
/// Only the detected agent's own variable counts: another client's leftover says nothing about
/// who runs this.
fn client_session_id(agent: Option<&AgentName>) -> Option<String> {
    let AgentName::Known(agent) = agent? else {
        return None;
    };
    let variable = handover_clients::of(*agent).shell_session_id_var?;
    std::env::var(variable).ok().filter(|s| !s.is_empty())
}

/// A repository-relative path that names something in the working tree now (looked at without
/// following a link). Absolute paths and `..` are never looked at.
fn still_exists(root: &Path, rel: &str) -> bool {
    let path = Path::new(rel);
    !path.is_absolute()
        && !path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        && std::fs::symlink_metadata(root.join(path)).is_ok()
}
