//! Our three hook executables, the events each one serves, and the shell commands that run them.
//!
//! Both clients run a hook's `command` through a shell, so the absolute path is POSIX
//! single-quoted when it holds anything but plainly safe characters. Our entries are recognised
//! by the NAME of the program a command runs, so an install from another directory is found too.

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
            HookExe::PreCompact => &["PreCompact", "PostCompact", "SessionEnd"],
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

/// The client a hook command is for: written as `--agent <as_str>` by the installer and read
/// back by the hook executables (`from_name`), so both directions live on this one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
}

impl Agent {
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }

    /// The `--agent` value, leniently: case and spacing ignored, `claude-code` accepted.
    pub fn from_name(name: &str) -> Option<Agent> {
        match name.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claude_code" => Some(Agent::Claude),
            "codex" => Some(Agent::Codex),
            _ => None,
        }
    }
}

/// POSIX shell quoting: left alone when every byte is safe, else single quotes with `'\''`.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The command line a client runs for `exe` at `path`.
pub fn command_for(path: &Path, agent: Agent) -> String {
    format!(
        "{} --agent {}",
        shell_quote(&path.to_string_lossy()),
        agent.as_str()
    )
}

/// The first word of a shell command, unquoted (single quotes, double quotes, backslashes).
/// Enough to read back what we and other installers write; not a full shell parser.
pub fn first_word(command: &str) -> Option<String> {
    let mut chars = command.trim_start().chars().peekable();
    let mut word = String::new();
    let mut any = false;
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => break,
            ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            '\'' => {
                any = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                any = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(n @ ('"' | '\\' | '$' | '`')) => word.push(n),
                            Some(n) => {
                                word.push('\\');
                                word.push(n);
                            }
                            None => {}
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                any = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            c => {
                any = true;
                word.push(c);
            }
        }
    }
    any.then_some(word)
}

/// Which of our executables a hook command runs, if any (by program name, any directory).
pub fn our_exe(command: &str) -> Option<HookExe> {
    let word = first_word(command)?;
    let name = word.rsplit('/').next().unwrap_or(&word);
    HookExe::from_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed_and_reads_back() {
        assert_eq!(
            shell_quote("/usr/local/bin/handover-session-start"),
            "/usr/local/bin/handover-session-start"
        );
        assert_eq!(shell_quote("/opt/my hooks/x"), "'/opt/my hooks/x'");
        assert_eq!(shell_quote("/o'q/x"), "'/o'\\''q/x'");
        for p in [
            "/opt/my hooks/handover-pre-compact",
            "/it's/handover-pre-compact",
            "/a/$HOME/\"q\"/handover-pre-compact",
        ] {
            let cmd = command_for(Path::new(p), Agent::Codex);
            assert_eq!(first_word(&cmd).as_deref(), Some(p), "{cmd}");
            assert_eq!(our_exe(&cmd), Some(HookExe::PreCompact));
        }
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

    #[test]
    fn recognises_other_forms_and_rejects_lookalikes() {
        assert_eq!(
            our_exe("handover-context-watch"),
            Some(HookExe::ContextWatch)
        );
        assert_eq!(
            our_exe("\"/x y/handover-session-start\" --agent claude"),
            Some(HookExe::SessionStart)
        );
        assert_eq!(our_exe("/x/handover-session-start.sh"), None);
        assert_eq!(our_exe("echo handover-session-start"), None);
        assert_eq!(our_exe(""), None);
    }
}
