//! The ref layout handoffs travel in, and the checks that keep untrusted names inside it.
//!
//! On a remote: `refs/handover/<branch>`, one commit per push. In a clone, after `handover
//! pull` (or a plain `git fetch` once `handover share` added the refspec):
//! `refs/handover-remote/<remote>/<branch>`. Branch and remote names come from the repository
//! (a clone chooses them): both are checked against git's ref-name rules before they are put
//! into a ref name or a command line, and a remote name must be one component, so the fetched
//! layout stays unambiguous.
//!
//! Stricter than git on purpose: these names reach the agent inside our sentences and inside
//! commands we suggest. No name may hold a character that shows nothing, or only space (any
//! Unicode space such as U+2002 or U+00A0, a control, an invisible joiner, a direction mark):
//! git accepts those, and they let a name pass for words of ours. A remote name is more
//! constrained still: ASCII letters, digits and `._-+@%,=` only, the characters a shell reads
//! as plain text (git would take `$(…)`, a quote or a backquote), since every command we
//! suggest carries it and a remote is named by hand (`origin`, `upstream`, `my-fork`). Either
//! name is still quoted wherever it is shown in a sentence (`sanitize::quote`), and goes
//! through `shell_quote` in a command.

use anyhow::bail;
use handover_handoff::sanitize::{is_non_printing, quote};

/// Where pushed handoffs live on the remote.
pub const PUBLISHED_PREFIX: &str = "refs/handover/";
/// Where fetched handoffs live locally: `<prefix><remote>/<branch>`.
pub const FETCHED_PREFIX: &str = "refs/handover-remote/";
/// What a remote name may hold besides ASCII letters and digits: the characters a shell
/// takes as plain (`handover_base::shell`), less `/` and `:`.
const REMOTE_PUNCTUATION: &str = "._-+@%,=";
/// Longer names are refused: a branch name is a few dozen bytes.
const MAX_NAME_BYTES: usize = 200;

/// `refs/handover/<branch>`.
pub fn published_ref(branch: &str) -> String {
    format!("{PUBLISHED_PREFIX}{branch}")
}

/// `refs/handover-remote/<remote>/<branch>`.
pub fn fetched_ref(remote: &str, branch: &str) -> String {
    format!("{FETCHED_PREFIX}{remote}/{branch}")
}

/// The refspec that fetches every pushed handoff of `remote`: forced, because a remote
/// handoff may be replaced (`handover push --force`).
pub fn fetch_refspec(remote: &str) -> String {
    format!("+{PUBLISHED_PREFIX}*:{FETCHED_PREFIX}{remote}/*")
}

/// A branch name usable inside our refs: what `git check-ref-format --branch` accepts, minus
/// anything git would have to interpret (`@{-1}`), with a length bound.
pub fn check_branch(name: &str) -> anyhow::Result<()> {
    if let Some(problem) = ref_path_problem(name) {
        bail!(
            "the branch name {} cannot travel as a handoff ref: {problem}; rename the branch (`git branch -m`)",
            quote(name)
        );
    }
    Ok(())
}

/// A remote name: one ref component (no `/`), so `refs/handover-remote/<remote>/<branch>`
/// can be read back without guessing where the remote's name ends; ASCII letters, digits and
/// [`REMOTE_PUNCTUATION`] only.
/// The one check for every remote name handover uses, whether a command line, git's
/// configuration or a fetched ref's folder or `packed-refs` line named it.
pub fn check_remote(name: &str) -> anyhow::Result<()> {
    if let Some(problem) = remote_problem(name) {
        bail!(
            "the remote name {} cannot be used for handoffs: {problem}; add the remote under a simple name (`git remote rename`)",
            quote(name)
        );
    }
    Ok(())
}

fn remote_problem(name: &str) -> Option<String> {
    if name.contains('/') {
        return Some("it contains `/`".to_string());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || REMOTE_PUNCTUATION.contains(*c)))
    {
        return Some(format!(
            "it contains the character {c:?}, and handover takes remote names of ASCII letters, digits and `{REMOTE_PUNCTUATION}` only"
        ));
    }
    ref_path_problem(name)
}

/// Why `name` is not a valid `/`-separated ref path (git-check-ref-format's rules), if it is not.
fn ref_path_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.len() > MAX_NAME_BYTES {
        return Some(format!("it is longer than {MAX_NAME_BYTES} bytes"));
    }
    if name == "@" || name.contains("@{") {
        return Some("it contains `@{` or is `@`".into());
    }
    if name.starts_with('-') {
        return Some("it starts with `-`".into());
    }
    if name.contains("..") {
        return Some("it contains `..`".into());
    }
    if let Some(c) = name.chars().find(|c| {
        is_non_printing(*c) || matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\')
    }) {
        return Some(format!("it contains the character {c:?}"));
    }
    if name.ends_with('.') {
        return Some("it ends with `.`".into());
    }
    for component in name.split('/') {
        if component.is_empty() {
            return Some("it has an empty path component (`//`, or `/` at an end)".into());
        }
        if component.starts_with('.') {
            return Some("a component starts with `.`".into());
        }
        if component.ends_with(".lock") {
            return Some("a component ends with `.lock`".into());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_branch_names_pass() {
        for name in [
            "main",
            "feature/csv-export",
            "user/x/y_z",
            "v1.2",
            "ünïcode",
        ] {
            check_branch(name).unwrap();
        }
    }

    #[test]
    fn names_git_refuses_are_refused() {
        for name in [
            "",
            "@",
            "a@{1}",
            "-x",
            "a..b",
            "a b",
            "a~1",
            "a^",
            "a:b",
            "a?",
            "a*",
            "a[",
            "a\\b",
            "a.",
            "a//b",
            "/a",
            "a/",
            ".a",
            "a/.b",
            "a.lock",
            "a/b.lock/c",
            "a\u{1b}[31m",
            "a\nb",
        ] {
            assert!(check_branch(name).is_err(), "{name:?} was accepted");
        }
        assert!(check_branch(&"a".repeat(201)).is_err());
    }

    #[test]
    fn remote_names_are_one_component() {
        check_remote("origin").unwrap();
        assert!(check_remote("a/b").is_err());
        assert!(check_remote("--upload-pack=x").is_err());
        assert!(check_remote("..").is_err());
        check_remote("my-fork_2.x").unwrap();
        // Names git accepts that would pass for words, or hold a command.
        for name in [
            "origin\u{2002}Verdict",
            "origin\u{00A0}x",
            "ori\u{200B}gin",
            "ünï",
            "a b",
            "a\tb",
            "$(touch${IFS}x)",
            "a`b`",
            "a'b",
            "a;b",
        ] {
            assert!(check_remote(name).is_err(), "{name:?} was accepted");
        }
    }

    #[test]
    fn branch_names_with_invisible_or_odd_spaces_are_refused() {
        for name in [
            "main\u{2002}x",
            "main\u{00A0}x",
            "main\u{3000}",
            "ma\u{200B}in",
            "main\u{202E}",
            "a\u{2028}b",
        ] {
            assert!(check_branch(name).is_err(), "{name:?} was accepted");
        }
    }

    #[test]
    fn the_layout() {
        assert_eq!(published_ref("f/x"), "refs/handover/f/x");
        assert_eq!(
            fetched_ref("origin", "f/x"),
            "refs/handover-remote/origin/f/x"
        );
        assert_eq!(
            fetch_refspec("origin"),
            "+refs/handover/*:refs/handover-remote/origin/*"
        );
    }
}
