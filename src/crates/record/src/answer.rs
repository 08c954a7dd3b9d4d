//! When a non-zero exit is an answer, not a failure: `grep` that found nothing, `diff` that
//! found a difference, `test` that was false. The record's "last failing command" is what the
//! next session is told to look at, so a search with no match must not become it.
//!
//! One rule for every client: Claude Code 2.1.330 already reports these as no error (its Bash
//! tool's own table: `grep`, `egrep`, `fgrep`, `rg`, `git grep` "No matches found"; `diff`,
//! `git diff` "Files differ"; `test`, `[` "Condition is false"; all for exit 1 only), while
//! Codex and Gemini CLI report the bare exit code. The same list applies to all three. Exit 2
//! and above stays a failure (`grep` on a missing file, a `diff` that could not read).
//! `find`'s exit 1 (some directories unreadable) is a failure here: part of the answer is
//! missing.
//!
//! The command line's LAST simple command decides, as the shell's exit status comes from it:
//! `cat log | grep ERROR` found nothing; `grep -q x f && cargo test` failed in `cargo test`
//! or in `grep` — the line is cut at `|`, `;`, `&&`, `||`, `&` and line breaks outside
//! quotes, and only the last part is looked at.

/// Exit 1 of a search, a comparison or a condition: an answer, not a failure.
pub fn is_answer(command: &str, exit_code: Option<i64>) -> bool {
    exit_code == Some(1) && answers_with_exit_1(last_simple_command(command))
}

/// The part of a command line after its last unquoted `|`, `;`, `&` or line break.
fn last_simple_command(command: &str) -> &str {
    let mut start = 0;
    let (mut single, mut double, mut escaped) = (false, false, false);
    for (i, c) in command.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '|' | ';' | '&' | '\n' if !single && !double => start = i + c.len_utf8(),
            _ => {}
        }
    }
    command[start..].trim()
}

fn answers_with_exit_1(simple: &str) -> bool {
    let mut words = simple
        .split_whitespace()
        // Leading `NAME=value` assignments are not the program.
        .skip_while(|w| is_assignment(w));
    let Some(program) = words.next() else {
        return false;
    };
    let program = program.trim_matches(|c| c == '\'' || c == '"');
    let name = program.rsplit('/').next().unwrap_or(program);
    match name {
        "grep" | "egrep" | "fgrep" | "rg" | "diff" | "test" | "[" => true,
        // `git -C dir grep ...`: the first word that is not an option names the subcommand
        // (options taking a separate value, `-C dir` and `-c name=value`, skip it too).
        "git" => {
            let mut words = words;
            while let Some(w) = words.next() {
                if matches!(w, "-C" | "-c") {
                    words.next();
                } else if !w.starts_with('-') {
                    return matches!(w, "grep" | "diff");
                }
            }
            false
        }
        _ => false,
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_without_a_match_is_an_answer() {
        for command in [
            "grep -rn TODO src",
            "rg 'fn main'",
            "/usr/bin/grep x f",
            "egrep 'a|b' f",
            "cat log | grep ERROR",
            "cd src && grep -q 'a;b' lib.rs",
            "LC_ALL=C grep x f",
            "git grep needle",
            "git -C sub diff --quiet",
            "diff -u a b",
            "test -f done.txt",
            "[ -f done.txt ]",
        ] {
            assert!(is_answer(command, Some(1)), "{command}");
        }
    }

    #[test]
    fn other_exits_and_other_commands_stay_failures() {
        // A search that could not run (exit 2: a missing file, a bad pattern).
        assert!(!is_answer("grep x missing.txt", Some(2)));
        assert!(!is_answer("grep x f", None));
        for command in [
            "cargo test",
            "sh -c 'echo codegen: 2 errors; exit 3'",
            // The last command decides: here the tests failed, not the search.
            "grep -q x f && cargo test",
            "grep x f; false",
            // A quoted `|` does not split: the program is `echo`.
            "echo 'a | grep b'",
            "find . -name x",
            "git commit -m grep",
            "grepx foo",
            "",
        ] {
            assert!(!is_answer(command, Some(1)), "{command}");
        }
    }
}
