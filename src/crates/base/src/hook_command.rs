//! Reading hook commands back: which of them run one of our executables. Our entries are
//! recognised by the NAME of the program a command runs, so an install from another directory
//! is found too. (What a command of ours looks like is [`crate::hook_exe::command_for`] and
//! [`crate::hook_exe::portable_command`].)
//!
//! One rule for everyone who asks "is this ours": the installer's editors and `status`, the
//! Codex trust step, and the plugin's "never twice" check in the hook executables.

use crate::hook_exe::{EARLIER_LAUNCHERS, LAUNCHER};
use crate::HookExe;

/// What a hook command is to us. This is the ONE definition of "ours"; every editor, `status`
/// and the Codex trust step go through [`recognise`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recognised {
    /// Exactly one of our executables and nothing else a user could have meant:
    ///
    /// `[NAME=value ...] [exec] <dir/>handover-<hook> [--agent <name> | --agent=<name>]
    /// [--event <name> | --event=<name>]`
    ///
    /// or the portable form install writes, whose launcher finds the executable at run time:
    ///
    /// `[NAME=value ...] [exec] sh -c '<our launcher, exactly>' handover-<hook> [--agent ...]`
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
    /// The `--event` value, if any: written for a client whose hook input does not name the
    /// event (GitHub Copilot CLI).
    pub event: Option<String>,
    /// The command's text before the program: environment assignments and `exec`, verbatim
    /// (empty for the commands we write).
    pub prefix: String,
    /// The portable form (`sh -c '<launcher>' <name> ...`): the executable is looked up at run
    /// time, so `program` is its bare name.
    pub portable: bool,
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
    let portable = is_launcher(&words[i..]);
    if portable {
        i += 3;
    }
    let program = words.get(i)?;
    let name = if portable {
        program.value.as_str()
    } else {
        program.value.rsplit('/').next().unwrap_or(&program.value)
    };
    let exe = HookExe::from_file_name(name)?;
    let (agent, event) = flags(&words[i + 1..])?;
    Some(OurCommand {
        exe,
        program: program.value.clone(),
        agent,
        event,
        prefix: command[..words[if portable { i - 3 } else { i }].start].to_string(),
        portable,
    })
}

/// `--agent` then `--event`, each optional, each as `--flag value` or `--flag=value`; None
/// when anything else follows the program.
fn flags(mut words: &[Word]) -> Option<(Option<String>, Option<String>)> {
    let mut values = [None, None];
    for (slot, flag) in ["--agent", "--event"].into_iter().enumerate() {
        let joined = format!("{flag}=");
        match words {
            [f, value, rest @ ..] if f.value == flag => {
                values[slot] = Some(value.value.clone());
                words = rest;
            }
            [one, rest @ ..] if one.value.starts_with(&joined) => {
                values[slot] = Some(one.value[joined.len()..].to_string());
                words = rest;
            }
            _ => {}
        }
    }
    let [agent, event] = values;
    words.is_empty().then_some((agent, event))
}

/// `sh -c '<LAUNCHER>'` at the start of `words`, the launcher exactly as we write it or as an
/// earlier version wrote it ([`EARLIER_LAUNCHERS`]: then the command is ours, out of date).
fn is_launcher(words: &[Word]) -> bool {
    matches!(words, [sh, c, script, ..] if sh.value == "sh" && c.value == "-c"
        && (script.value == LAUNCHER || EARLIER_LAUNCHERS.contains(&script.value.as_str())))
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
    use crate::hook_exe::{command_for, portable_command};
    use std::path::Path;

    #[test]
    fn our_quoted_commands_read_back() {
        for p in [
            "/opt/my hooks/handover-pre-compact",
            "/it's/handover-pre-compact",
            "/a/$HOME/\"q\"/handover-pre-compact",
        ] {
            let cmd = command_for(Path::new(p), "codex");
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

    #[test]
    fn the_portable_command_reads_back_with_its_prefix() {
        for exe in HookExe::ALL {
            let cmd = portable_command(exe, "gemini");
            for prefix in ["", "HANDOVER_HOOK_DEBUG=/tmp/l ", "exec "] {
                let full = format!("{prefix}{cmd}");
                let Recognised::Ours(o) = recognise(&full) else {
                    panic!("{full} not recognised")
                };
                assert!(o.portable, "{full}");
                assert_eq!(
                    (
                        o.exe,
                        o.program.as_str(),
                        o.agent.as_deref(),
                        o.prefix.as_str()
                    ),
                    (exe, exe.file_name(), Some("gemini"), prefix)
                );
                assert_eq!(o.with_core(&cmd), full);
            }
        }
    }

    #[test]
    fn an_event_flag_after_the_agent_reads_back() {
        let cmd = format!(
            "{} --event postToolUse",
            command_for(Path::new("/b/handover-context-watch"), "copilot")
        );
        let Recognised::Ours(o) = recognise(&cmd) else {
            panic!("{cmd} not recognised")
        };
        assert_eq!(
            (o.agent.as_deref(), o.event.as_deref()),
            (Some("copilot"), Some("postToolUse"))
        );
        let Recognised::Ours(o) = recognise("handover-pre-compact --event=sessionEnd") else {
            panic!("--event= alone not recognised")
        };
        assert_eq!((o.agent, o.event.as_deref()), (None, Some("sessionEnd")));
        // Out of order, twice, or with anything after it: the user's own command.
        for other in [
            "/b/handover-pre-compact --event x --agent copilot",
            "/b/handover-pre-compact --agent copilot --event x --event y",
            "/b/handover-pre-compact --agent copilot --event",
            "/b/handover-pre-compact --agent copilot --event x more",
        ] {
            assert_eq!(
                recognise(other),
                Recognised::Mentions(HookExe::PreCompact),
                "{other}"
            );
        }
    }

    /// A launcher that is not ours byte for byte, or a path in the portable form, is the
    /// user's command: never rewritten, never taken for ours.
    #[test]
    fn a_changed_launcher_is_not_ours() {
        let cmd = portable_command(HookExe::SessionStart, "claude");
        for changed in [
            cmd.replacen("exit 0", "exit 1", 1),
            cmd.replacen("sh -c", "bash -c", 1),
            cmd.replacen(
                " handover-session-start --agent",
                " /x/handover-session-start --agent",
                1,
            ),
            format!("{cmd} extra"),
            format!("{cmd}; rm -rf x"),
        ] {
            assert_eq!(
                recognise(&changed),
                Recognised::Mentions(HookExe::SessionStart),
                "{changed}"
            );
        }
    }

    /// The portable command in a real shell: found on PATH, else in cargo's bin directory,
    /// else nothing at all (exit 0), except the session-start hint.
    #[test]
    fn the_portable_command_finds_the_executable_or_does_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let on_path = tmp.path().join("on path");
        let cargo_home = tmp.path().join("cargo $HOME `x`");
        for (dir, tag) in [(&on_path, "path"), (&cargo_home.join("bin"), "cargo")] {
            std::fs::create_dir_all(dir).unwrap();
            for exe in HookExe::ALL {
                let p = dir.join(exe.file_name());
                let text = format!("#!/bin/sh\necho \"{tag} $*\"\n");
                std::fs::write(&p, text).unwrap();
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        let run = |exe: HookExe, path: &std::ffi::OsStr, cargo: &Path| {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(portable_command(exe, "codex"))
                .env("PATH", path)
                .env("CARGO_HOME", cargo)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0));
            assert!(
                out.stderr.is_empty(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        let base_path = std::env::join_paths(["/usr/bin", "/bin"]).unwrap();
        let with_ours =
            std::env::join_paths([on_path.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
                .unwrap();
        let nowhere = tmp.path().join("no cargo");
        assert_eq!(
            run(HookExe::PreCompact, &with_ours, &cargo_home),
            "path --agent codex\n"
        );
        assert_eq!(
            run(HookExe::PreCompact, &base_path, &cargo_home),
            "cargo --agent codex\n"
        );
        assert_eq!(run(HookExe::PreCompact, &base_path, &nowhere), "");
        assert_eq!(run(HookExe::ContextWatch, &base_path, &nowhere), "");
        let hint = run(HookExe::SessionStart, &base_path, &nowhere);
        let v: std::collections::BTreeMap<String, String> = parse_flat_json(&hint);
        assert_eq!(v.keys().collect::<Vec<_>>(), ["systemMessage"], "{hint}");
        let said = v["systemMessage"].as_str();
        assert!(
            said.contains("cargo install --locked --path <that checkout>")
                && said.contains("docs/install.md")
                && !said.contains("install --locked handover"),
            "{said}"
        );
    }

    /// `{"k": "v"}` on one line (the hint), without a JSON dependency in this crate.
    fn parse_flat_json(text: &str) -> std::collections::BTreeMap<String, String> {
        let inner = text
            .trim()
            .strip_prefix('{')
            .unwrap()
            .strip_suffix('}')
            .unwrap();
        let (k, v) = inner.split_once("\": \"").unwrap();
        let k = k.strip_prefix('"').unwrap();
        let v = v.strip_suffix('"').unwrap();
        assert!(!v.contains('"') && !v.contains('\\'), "{v}");
        [(k.to_string(), v.to_string())].into_iter().collect()
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
            // A comment naming our executable is not ours (a repository could otherwise pass
            // `true` for our hook and silence the plugin's copy).
            ("true # handover-session-start", Mentions(SessionStart)),
            ("true #handover-session-start --agent claude", Foreign),
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
