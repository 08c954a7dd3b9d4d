//! Reading hook commands back: which of them run one of our executables. Our entries are
//! recognised by the NAME of the program a command runs, so an install from another directory
//! is found too. (What a command of ours looks like is handover_base::hook_exe::command_for.)

use handover_base::HookExe;

/// What a hook command is to us. This is the ONE definition of "ours"; every editor, `status`
/// and the Codex trust step go through [`recognise`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recognised {
    /// Exactly one of our executables and nothing else a user could have meant:
    ///
    /// `[NAME=value ...] [exec] <dir/>handover-<hook> [--agent <name> | --agent=<name>]`
    ///
    /// as one simple shell command of literal words (quoted or not), with no expansion (`$`,
    /// `` ` ``, `~`, globs), no operator (`;` `&` `|` `<` `>` `(` `)`), no comment and no second
    /// line. The assignments and `exec` are the user's `prefix`, kept when we update the rest.
    Ours(OurCommand),
    /// Names one of our executables but is more than the form above (a wrapper, a redirection,
    /// a second command, a variable in the path): the user's own command. Left alone, reported,
    /// and taken as the user's way of running that hook (so we do not add a second one).
    Mentions(HookExe),
    /// Nothing of ours.
    Foreign,
}

/// A command recognised as exactly ours, taken apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OurCommand {
    pub exe: HookExe,
    /// The program as the shell sees it (quotes removed).
    pub program: String,
    /// The `--agent` value, if any.
    pub agent: Option<String>,
    /// The command's text before the program: environment assignments and `exec`, verbatim
    /// (empty for the commands we write).
    pub prefix: String,
}

impl OurCommand {
    /// True when nothing but our own command is there (what install writes).
    pub fn is_plain(&self) -> bool {
        self.prefix.trim().is_empty()
    }

    /// The same command with the program and agent replaced and the user's prefix kept.
    pub fn with_core(&self, core: &str) -> String {
        format!("{}{core}", self.prefix)
    }
}

pub fn recognise(command: &str) -> Recognised {
    if let Some(ours) = exactly_ours(command) {
        return Recognised::Ours(ours);
    }
    match mentioned_exe(command) {
        Some(exe) => Recognised::Mentions(exe),
        None => Recognised::Foreign,
    }
}

/// The executable a command is exactly (see [`Recognised::Ours`]); None otherwise.
pub fn our_exe(command: &str) -> Option<HookExe> {
    match recognise(command) {
        Recognised::Ours(o) => Some(o.exe),
        _ => None,
    }
}

/// One shell word: where it is in the command, its value with quotes removed, and whether that
/// value is what the shell will use (no expansion of any kind).
struct Word {
    start: usize,
    end: usize,
    value: String,
    literal: bool,
}

impl Word {
    /// `NAME=value` with an unquoted, valid NAME: the shell takes it as an assignment.
    fn is_assignment(&self, command: &str) -> bool {
        let raw = &command[self.start..self.end];
        raw.split_once('=').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
                && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
        })
    }
}

/// The words of a command that is a single simple command; None when anything else is there
/// (an operator, a comment, a newline, a command substitution, an unterminated quote).
fn simple_words(command: &str) -> Option<Vec<Word>> {
    let mut words: Vec<Word> = Vec::new();
    let mut chars = command.char_indices().peekable();
    let mut cur: Option<Word> = None;
    while let Some((i, c)) = chars.next() {
        if matches!(c, ' ' | '\t') {
            if let Some(mut w) = cur.take() {
                w.end = i;
                words.push(w);
            }
            continue;
        }
        let w = cur.get_or_insert_with(|| Word {
            start: i,
            end: command.len(),
            value: String::new(),
            literal: true,
        });
        match c {
            '#' if w.value.is_empty() && w.start == i => return None,
            '\n' | '\r' | ';' | '&' | '|' | '<' | '>' | '(' | ')' | '`' => return None,
            '$' | '*' | '?' | '[' | '{' => {
                w.literal = false;
                w.value.push(c);
            }
            '~' if w.start == i => {
                w.literal = false;
                w.value.push(c);
            }
            '\'' => loop {
                match chars.next() {
                    Some((_, '\'')) => break,
                    Some((_, ch)) => w.value.push(ch),
                    None => return None,
                }
            },
            '"' => loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((_, '\\')) => match chars.next() {
                        Some((_, n @ ('"' | '\\'))) => w.value.push(n),
                        Some((_, '$' | '`' | '\n')) | None => return None,
                        Some((_, n)) => {
                            w.value.push('\\');
                            w.value.push(n);
                        }
                    },
                    Some((_, '$' | '`')) => return None,
                    Some((_, ch)) => w.value.push(ch),
                    None => return None,
                }
            },
            '\\' => match chars.next() {
                Some((_, '\n')) | None => return None,
                Some((_, n)) => w.value.push(n),
            },
            c => w.value.push(c),
        }
    }
    words.extend(cur);
    Some(words)
}

fn exactly_ours(command: &str) -> Option<OurCommand> {
    let words = simple_words(command)?;
    if words.iter().any(|w| !w.literal) {
        return None;
    }
    let mut i = 0;
    while words.get(i).is_some_and(|w| w.is_assignment(command)) {
        i += 1;
    }
    if words
        .get(i)
        .is_some_and(|w| &command[w.start..w.end] == "exec")
    {
        i += 1;
    }
    let program = words.get(i)?;
    let name = program.value.rsplit('/').next().unwrap_or(&program.value);
    let exe = HookExe::from_file_name(name)?;
    let agent = match &words[i + 1..] {
        [] => None,
        [flag, value] if flag.value == "--agent" => Some(value.value.clone()),
        [one] => Some(one.value.strip_prefix("--agent=")?.to_string()),
        _ => return None,
    };
    Some(OurCommand {
        exe,
        program: program.value.clone(),
        agent,
        prefix: command[..program.start].to_string(),
    })
}

/// One of our executables' names standing as a word of its own anywhere in the command (after a
/// `/`, a quote, an operator or a blank; followed by the end, a blank, a quote or an operator).
fn mentioned_exe(command: &str) -> Option<HookExe> {
    const BEFORE: &[u8] = b"/ \t\n'\";&|()<>{}=`$";
    const AFTER: &[u8] = b" \t\r\n'\";&|()<>}`";
    HookExe::ALL.into_iter().find(|exe| {
        command.match_indices(exe.file_name()).any(|(at, m)| {
            let before = command.as_bytes()[..at].last();
            let after = command.as_bytes().get(at + m.len());
            before.is_none_or(|b| BEFORE.contains(b)) && after.is_none_or(|b| AFTER.contains(b))
        })
    })
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
            let Recognised::Ours(o) = recognise(&cmd) else {
                panic!("{cmd} not recognised")
            };
            assert_eq!(
                (
                    o.exe,
                    o.program.as_str(),
                    o.agent.as_deref(),
                    o.prefix.as_str()
                ),
                (HookExe::PreCompact, p, Some("codex"), ""),
                "{cmd}"
            );
        }
    }

    /// The definition of "ours", command by command.
    #[test]
    fn what_counts_as_ours() {
        use HookExe::*;
        enum Want {
            /// Ours: executable, prefix kept on update, agent.
            Ours(HookExe, &'static str, Option<&'static str>),
            Mentions(HookExe),
            Foreign,
        }
        use Want::*;
        let table: &[(&str, Want)] = &[
            // What install writes, in every quoting.
            (
                "/opt/h/handover-session-start --agent claude",
                Ours(SessionStart, "", Some("claude")),
            ),
            (
                "'/my dir/handover-pre-compact' --agent codex",
                Ours(PreCompact, "", Some("codex")),
            ),
            (
                "\"/x y/handover-session-start\" --agent claude",
                Ours(SessionStart, "", Some("claude")),
            ),
            (
                "/x\\ y/handover-context-watch --agent=codex",
                Ours(ContextWatch, "", Some("codex")),
            ),
            ("handover-context-watch", Ours(ContextWatch, "", None)),
            (
                "  /o/handover-session-start   --agent   claude  ",
                Ours(SessionStart, "  ", Some("claude")),
            ),
            // Written by a user, still exactly ours: environment and exec.
            (
                "HANDOVER_HOOK_DEBUG=/tmp/log /o/handover-session-start --agent claude",
                Ours(
                    SessionStart,
                    "HANDOVER_HOOK_DEBUG=/tmp/log ",
                    Some("claude"),
                ),
            ),
            (
                "A=1 B='x y' /o/handover-pre-compact --agent codex",
                Ours(PreCompact, "A=1 B='x y' ", Some("codex")),
            ),
            (
                "exec /o/handover-session-start --agent claude",
                Ours(SessionStart, "exec ", Some("claude")),
            ),
            (
                "V=x exec /o/handover-context-watch --agent codex",
                Ours(ContextWatch, "V=x exec ", Some("codex")),
            ),
            // More than ours: the user's command, left alone.
            (
                "/o/handover-session-start --agent claude 2>>log; my-audit-hook",
                Mentions(SessionStart),
            ),
            (
                "/o/handover-session-start --agent claude 2>>/tmp/log",
                Mentions(SessionStart),
            ),
            (
                "/o/handover-session-start --agent claude && notify",
                Mentions(SessionStart),
            ),
            (
                "/o/handover-session-start --agent claude | tee x",
                Mentions(SessionStart),
            ),
            (
                "/o/handover-session-start --agent claude # note",
                Mentions(SessionStart),
            ),
            (
                "/o/handover-session-start --agent claude --verbose",
                Mentions(SessionStart),
            ),
            ("/o/handover-session-start extra", Mentions(SessionStart)),
            (
                "/o/handover-session-start --agent claude\nmy-hook",
                Mentions(SessionStart),
            ),
            (
                "my-audit-hook; /o/handover-pre-compact --agent claude",
                Mentions(PreCompact),
            ),
            (
                "bash -c '/o/handover-session-start --agent claude 2>/dev/null'",
                Mentions(SessionStart),
            ),
            (
                "env A=1 /o/handover-session-start --agent claude",
                Mentions(SessionStart),
            ),
            (
                "timeout 5 handover-context-watch --agent codex",
                Mentions(ContextWatch),
            ),
            (
                "$HOME/.cargo/bin/handover-session-start --agent claude",
                Mentions(SessionStart),
            ),
            (
                "\"${CLAUDE_PLUGIN_ROOT}/bin/handover-session-start\"",
                Mentions(SessionStart),
            ),
            (
                "~/.cargo/bin/handover-session-start --agent claude",
                Mentions(SessionStart),
            ),
            (
                "A=$(id) /o/handover-session-start --agent claude",
                Mentions(SessionStart),
            ),
            (
                "/o/handover-session-start --agent \"$AGENT\"",
                Mentions(SessionStart),
            ),
            (
                "'/o/handover-session-start --agent claude",
                Mentions(SessionStart),
            ),
            ("echo handover-session-start", Mentions(SessionStart)),
            // Not ours.
            ("/x/handover-session-start.sh --agent claude", Foreign),
            ("/x/my-handover-session-start", Foreign),
            ("handover-session-started", Foreign),
            ("handover boot", Foreign),
            ("notify-send 'Claude is done'", Foreign),
            ("", Foreign),
        ];
        for (cmd, want) in table {
            let got = recognise(cmd);
            let ok = match (want, &got) {
                (Ours(exe, prefix, agent), Recognised::Ours(o)) => {
                    o.exe == *exe && o.prefix == *prefix && o.agent.as_deref() == *agent
                }
                (Mentions(exe), Recognised::Mentions(e)) => e == exe,
                (Foreign, Recognised::Foreign) => true,
                _ => false,
            };
            assert!(ok, "{cmd:?} recognised as {got:?}");
        }
    }
}
