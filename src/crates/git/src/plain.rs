//! A repository in its plainest layout, read by our own readers of `.git` instead of libgit2:
//! what a SessionStart's verdict needs (where the git directory is, HEAD's branch and commit)
//! from a handful of small reads, so that a start whose answers all come from those reads and
//! from HEAD's remembered entries (`head_entries`) never opens the repository with libgit2
//! (its set-up, discovery and three config files were 16 % of a SessionStart's instructions
//! and 83 of its system calls: docs/benchmarks.md).
//!
//! Plain means: `.git` is a directory in the root itself (not a link, not a `gitdir:` file of
//! a linked worktree or submodule), owned like the root by the user running us (libgit2
//! refuses another user's repository), with `HEAD`, `objects` and `refs` as git makes them, a
//! config in the most ordinary syntax that asks for nothing unusual (no extensions, includes,
//! `core.worktree` or bare), no reftable, and HEAD either a 40-digit commit id or
//! `ref: refs/heads/<an ordinary branch name>` whose loose ref is a commit id or absent, and
//! then found in a well-formed packed-refs or nowhere (an unborn branch). And nothing
//! `preflight` refuses. Anything else is not plain: the caller opens the repository with
//! libgit2 as before, which then judges it. So every answer given from a plain layout is one
//! libgit2 would give the same (the verdict tests compare the two over many shapes).
//!
//! Every file is read through the read gate, bounded, and with no link followed on the way
//! (`read_in`): a link anywhere in `.git` that these reads meet makes the layout not plain,
//! and libgit2 judges it as before.

use crate::HeadInfo;
use git2::Oid;
use handover_base::read_gate::{self, Links};
use std::path::{Path, PathBuf};

/// The facts read from a plain layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plain {
    /// The git directory: `<root>/.git` (also the common directory: no worktrees here).
    pub git_dir: PathBuf,
    /// HEAD's branch and commit, as [`crate::head_info`] gives them.
    pub head: HeadInfo,
    /// HEAD's commit; None on an unborn branch.
    pub head_id: Option<Oid>,
}

/// The largest `HEAD` or loose ref read (a line).
const SMALL: u64 = crate::preflight::SMALL_CAP;
/// The largest config read (as the preflight's cap).
const CONFIG: u64 = crate::preflight::CONFIG_CAP;
/// The largest packed-refs read (as the preflight's cap).
const PACKED_REFS: u64 = crate::preflight::PACKED_REFS_CAP;

/// The plain layout at `root`, or None when it is anything else (see the module's comment).
pub fn read(root: &Path) -> Option<Plain> {
    let git_dir = root.join(".git");
    let own_dir = |p: &Path| matches!(handover_handoff::safe_fs::expect_own_dir(p), Ok(true));
    if !own_dir(&git_dir) || !own_dir(root) {
        return None;
    }
    let is_dir = |name: &str| {
        std::fs::symlink_metadata(git_dir.join(name)).is_ok_and(|m| m.file_type().is_dir())
    };
    let absent = |name: &str| {
        std::fs::symlink_metadata(git_dir.join(name))
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    };
    if !is_dir("objects") || !is_dir("refs") || !absent("commondir") || !absent("reftable") {
        return None;
    }
    let read = |rel: &str, cap: u64| read_in(&git_dir, rel, cap);
    if !ordinary_config(&read("config", CONFIG).ok()?.unwrap_or_default()) {
        return None;
    }
    // What libgit2 would be refused (a FIFO, an oversized file anywhere it reads) is refused
    // here too: such a repository's verdict says so, whichever way it is read.
    crate::preflight::check(root).ok()?;
    let head_text = read("HEAD", SMALL).ok()??;
    let head_line = one_line(&head_text)?;
    if let Some(id) = commit_id(head_line) {
        return Some(Plain {
            git_dir,
            head: HeadInfo {
                branch: None,
                detached: true,
                head: Some(id.to_string()),
            },
            head_id: Some(id),
        });
    }
    let refname = head_line.strip_prefix("ref: ")?;
    let branch = refname.strip_prefix("refs/heads/")?;
    if !ordinary_branch(branch) {
        return None;
    }
    let id = match read(refname, SMALL).ok()? {
        Some(text) => Some(commit_id(one_line(&text)?)?),
        None => match read("packed-refs", PACKED_REFS).ok()? {
            Some(packed) => packed_ref(&packed, refname)?,
            None => None,
        },
    };
    Some(Plain {
        git_dir,
        head: HeadInfo {
            branch: Some(branch.to_string()),
            detached: false,
            head: id.map(|id| id.to_string()),
        },
        head_id: id,
    })
}

/// The file `rel` (`/`-separated) under the git directory, through the read gate, bounded by
/// `cap`, following no link: not in its last component (`O_NOFOLLOW`), and not in a directory
/// on the way, each of which must be a plain directory (`.git` itself was checked to be one).
/// Ok(None): it, or a directory on the way, does not exist. Err: anything else stands there.
fn read_in(git_dir: &Path, rel: &str, cap: u64) -> Result<Option<String>, ()> {
    let mut at = git_dir.to_path_buf();
    let mut parts = rel.split('/').peekable();
    while let Some(part) = parts.next() {
        at.push(part);
        if parts.peek().is_none() {
            break;
        }
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_dir() => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => return Err(()),
        }
    }
    read_gate::read_to_string(&at, Links::Refuse, cap).map_err(|_| ())
}

/// The text without its one line break; None when it is not exactly one line.
fn one_line(text: &str) -> Option<&str> {
    let line = text.strip_suffix('\n').unwrap_or(text);
    (!line.contains(['\n', '\r'])).then_some(line)
}

/// A full SHA-1 commit id in lower-case hex, as git writes it.
fn commit_id(text: &str) -> Option<Oid> {
    let hex = text.len() == 40 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    hex.then(|| Oid::from_str(text).ok()).flatten()
}

/// A branch name git and libgit2 both take as it is: letters, digits, `-`, `_`, `.` and `/`
/// between non-empty components that do not start with `.` or end with `.lock`.
fn ordinary_branch(name: &str) -> bool {
    let chars = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'));
    chars
        && !name.contains("..")
        && !name.ends_with('.')
        && name
            .split('/')
            .all(|part| !part.is_empty() && !part.starts_with('.') && !part.ends_with(".lock"))
}

/// `refname`'s commit in a packed-refs file every line of which is well formed (a `#` header,
/// `<id> <name>`, `^<id>` for a peeled tag): Some(None) when it is not there, None when a line
/// is anything else (libgit2 would call the file corrupt).
fn packed_ref(text: &str, refname: &str) -> Option<Option<Oid>> {
    let mut found = None;
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(peeled) = line.strip_prefix('^') {
            commit_id(peeled)?;
            continue;
        }
        let (id, name) = line.split_once(' ')?;
        let id = commit_id(id)?;
        if !name.starts_with("refs/") || name.contains(char::is_whitespace) {
            return None;
        }
        if name == refname {
            found = Some(id);
        }
    }
    Some(found)
}

/// A config git writes itself and libgit2 reads without question: section headers `[name]` or
/// `[name "sub"]`, `key = value` lines with no line continuation, escape or unbalanced quote,
/// comments; and none of what changes where the repository or its working tree is or how it
/// is read (`[extensions]`, a format version other than 0, `[include]`, `[includeIf]`,
/// `core.worktree`, `core.bare` other than false).
fn ordinary_config(text: &str) -> bool {
    let mut section = String::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let Some(header) = header.strip_suffix(']') else {
                return false;
            };
            let (name, sub) = match header.split_once(' ') {
                Some((name, sub)) => (name, Some(sub)),
                None => (header, None),
            };
            let plain_name =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
            let plain_sub = sub.is_none_or(|s| {
                s.len() >= 2
                    && s.starts_with('"')
                    && s.ends_with('"')
                    && !s[1..s.len() - 1].contains(['"', '\\'])
            });
            if !plain_name || !plain_sub {
                return false;
            }
            section = name.to_ascii_lowercase();
            if matches!(section.as_str(), "extensions" | "include" | "includeif") {
                return false;
            }
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => (line, "true"),
        };
        let plain_key = key.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let plain_value =
            !value.contains('\\') && value.bytes().filter(|b| *b == b'"').count() % 2 == 0;
        if section.is_empty() || !plain_key || !plain_value {
            return false;
        }
        if section == "core" {
            let key = key.to_ascii_lowercase();
            let value = value.to_ascii_lowercase();
            let unusual = match key.as_str() {
                "repositoryformatversion" => value != "0",
                "bare" => value != "false",
                "worktree" => true,
                _ => false,
            };
            if unusual {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_git_writes_are_ordinary_and_the_rest_is_not() {
        let init = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";
        assert!(ordinary_config(init));
        assert!(ordinary_config(""));
        assert!(ordinary_config(&format!(
            "{init}[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n; a comment\n[branch \"main\"]\n\tremote = origin\n"
        )));
        for odd in [
            "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n",
            "[core]\n\tbare = true\n",
            "[core]\n\tworktree = /elsewhere\n",
            "[include]\n\tpath = other\n",
            "[includeIf \"gitdir:/x/\"]\n\tpath = other\n",
            "[core\n",
            "key = outside a section\n",
            "[core]\n\tx = a \\\n b\n",
            "[core]\n\tx = \"unbalanced\n",
            "[remote.origin]\n\turl = x\n",
            "[core]\n\t9key = x\n",
        ] {
            assert!(!ordinary_config(odd), "{odd:?}");
        }
    }

    #[test]
    fn branch_names_beyond_the_ordinary_are_left_to_libgit2() {
        for name in ["main", "feature/x-1", "v1.2", "a_b"] {
            assert!(ordinary_branch(name), "{name}");
        }
        for name in [
            "", "a..b", ".hidden", "a/.b", "a.lock", "a/", "/a", "a//b", "a b", "ä", "a.",
        ] {
            assert!(!ordinary_branch(name), "{name}");
        }
    }

    #[test]
    fn packed_refs_are_read_only_when_every_line_is_well_formed() {
        let a = "1".repeat(40);
        let b = "2".repeat(40);
        let text = format!("# pack-refs with: peeled fully-peeled sorted \n{a} refs/heads/main\n{b} refs/tags/v1\n^{a}\n");
        assert_eq!(
            packed_ref(&text, "refs/heads/main"),
            Some(Some(Oid::from_str(&a).unwrap()))
        );
        assert_eq!(packed_ref(&text, "refs/heads/other"), Some(None));
        assert_eq!(
            packed_ref(&format!("{text}garbage\n"), "refs/heads/main"),
            None
        );
        assert_eq!(
            packed_ref(&format!("{a}  refs/heads/main\n"), "refs/heads/main"),
            None
        );
    }
}
