//! Our three hook executables, the events each one serves, and the shell command that runs one.
//!
//! Both clients run a hook's `command` through a shell, so the absolute path is POSIX
//! single-quoted when it holds anything but plainly safe characters.

use crate::agent::Agent;
use crate::shell::shell_quote;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookExe {
    SessionStart,
    PreCompact,
    ContextWatch,
}

impl HookExe {
    pub const ALL: [HookExe; 3] = [
        HookExe::SessionStart,
        HookExe::PreCompact,
        HookExe::ContextWatch,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            HookExe::SessionStart => "handover-session-start",
            HookExe::PreCompact => "handover-pre-compact",
            HookExe::ContextWatch => "handover-context-watch",
        }
    }

    /// The events this executable is registered on (same names in Claude Code and Codex).
    pub fn events(self) -> &'static [&'static str] {
        match self {
            HookExe::SessionStart => &["SessionStart"],
            HookExe::PreCompact => &["PreCompact", "PostCompact"],
            HookExe::ContextWatch => &["UserPromptSubmit", "PostToolUse", "Stop"],
        }
    }

    pub fn from_file_name(name: &str) -> Option<HookExe> {
        HookExe::ALL.into_iter().find(|e| e.file_name() == name)
    }
}

/// Seconds a client waits for one of our hooks. They answer in milliseconds; the bound only
/// matters if something hangs (a stuck network filesystem), and then the session must go on.
pub const TIMEOUT_SECS: u64 = 10;

/// The command line a client runs for the hook executable at `path`.
pub fn command_for(path: &Path, agent: Agent) -> String {
    format!(
        "{} --agent {}",
        shell_quote(&path.to_string_lossy()),
        agent.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip() {
        for exe in HookExe::ALL {
            assert_eq!(HookExe::from_file_name(exe.file_name()), Some(exe));
        }
        assert_eq!(HookExe::from_file_name("handover"), None);
    }

    #[test]
    fn quoted_paths_run_in_a_real_shell() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("it's a \"dir\" $HOME");
        std::fs::create_dir(&sub).unwrap();
        let exe = sub.join("handover-session-start");
        std::fs::write(&exe, "#!/bin/sh\necho \"ran $*\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command_for(&exe, Agent::Claude))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ran --agent claude\n");
    }
}
