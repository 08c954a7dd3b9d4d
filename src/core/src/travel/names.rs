//! The ref layout handoffs travel in, and the checks that keep untrusted names inside it.
//!
//! On a remote: `refs/handover/<branch>`, one commit per push. In a clone, after `handover
//! pull` (or a plain `git fetch` once `handover share` added the refspec):
//! `refs/handover-remote/<remote>/<branch>`. Branch and remote names come from the repository
//! (a clone chooses them): both are checked against git's ref-name rules before they are put
//! into a ref name or a command line, and a remote name must be one component, so the fetched
//! layout stays unambiguous.

use anyhow::bail;

/// Where pushed handoffs live on the remote.
pub const PUBLISHED_PREFIX: &str = "refs/handover/";
/// Where fetched handoffs live locally: `<prefix><remote>/<branch>`.
pub const FETCHED_PREFIX: &str = "refs/handover-remote/";
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
            "the branch name «{}» cannot travel as a handoff ref: {problem}; rename the branch (`git branch -m`)",
            handover_handoff::sanitize::one_line(name)
        );
    }
    Ok(())
}

/// A remote name: one ref component (no `/`), so `refs/handover-remote/<remote>/<branch>`
/// can be read back without guessing where the remote's name ends.
pub fn check_remote(name: &str) -> anyhow::Result<()> {
    let problem = if name.contains('/') {
        Some("it contains `/`".to_string())
    } else if name.starts_with('-') {
        Some("it starts with `-`".to_string())
    } else {
        ref_path_problem(name)
    };
    if let Some(problem) = problem {
        bail!(
            "the remote name «{}» cannot be used for handoffs: {problem}; add the remote under a simple name (`git remote rename`)",
            handover_handoff::sanitize::one_line(name)
        );
    }
    Ok(())
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
    if let Some(c) = name
        .chars()
        .find(|c| c.is_control() || matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\'))
    {
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
