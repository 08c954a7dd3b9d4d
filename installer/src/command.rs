//! Reading hook commands back: which of them run one of our executables. Our entries are
//! recognised by the NAME of the program a command runs, so an install from another directory
//! is found too. (What a command of ours looks like is handover_base::hook_exe::command_for.)

use handover_base::HookExe;

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
    use handover_base::hook_exe::command_for;
    use handover_base::Agent;
    use std::path::Path;

    #[test]
    fn our_quoted_commands_read_back() {
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
