//! The few facts a snapshot needs, read with the `git` command line: the fallback for
//! repositories libgit2 cannot open (the reftable ref format, SHA-256 object ids, extensions
//! newer than it knows). Saving a handoff must work in any repository git itself supports.

use anyhow::bail;
use handover_base::git_process::Git;
use handover_handoff::model::GitSnapshot;
use std::path::Path;

/// `git -C root <args>`'s standard output, or its standard error as the failure. Started the
/// one way ([`handover_base::git_process`]): no transport, no hook, no fsmonitor, no lazy fetch,
/// and every filter driver emptied (`status` hashes files whose stat data changed); when the
/// configuration cannot be listed, nothing runs. Submodules are not looked into by `status`
/// (`--ignore-submodules=dirty` below: git would run in each one, under its own
/// configuration). Provenance asks its plumbing questions through this too.
pub fn git(root: &Path, args: &[&str]) -> anyhow::Result<Vec<u8>> {
    let out = Git::local(root).reading_work_tree().args(args).output()?;
    if !out.status.success() {
        bail!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// Which of `paths` (relative to `root`) git's ignore rules ignore, as `git check-ignore
/// --no-index` decides: every source in git's own order of precedence (a `.gitignore`'s
/// `!rule` beats the exclude file, which libgit2's `is_path_ignored` gets wrong), and whether
/// or not a path is tracked. None when git cannot answer. It hashes no file, so no filter
/// driver is listed for it.
pub fn ignored(root: &Path, paths: &[&str]) -> Option<Vec<String>> {
    // Paths as arguments, one answer per line: our paths hold no newline (`-z` needs `--stdin`).
    let out = Git::local(root)
        .args(["check-ignore", "--no-index", "--"])
        .args(paths)
        .output()
        .ok()?;
    // 0: some are ignored, 1: none is; anything else is an error.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// The snapshot as `git status --porcelain=v2` reports it; None when `root` is not in a
/// working tree.
pub fn snapshot(root: &Path) -> anyhow::Result<Option<GitSnapshot>> {
    let where_ = git(
        root,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--is-inside-work-tree",
            "--show-toplevel",
            "--git-dir",
            "--git-common-dir",
        ],
    )?;
    // The top directory's exact bytes, for a path that is not UTF-8 (handover_handoff::os_path).
    let top_bytes = where_
        .split(|&b| b == b'\n')
        .nth(1)
        .and_then(|line| handover_handoff::os_path::path_from_bytes(line.to_vec()))
        .and_then(|top| handover_handoff::os_path::bytes_form(&top));
    let where_ = String::from_utf8_lossy(&where_);
    let mut lines = where_.lines();
    if lines.next() != Some("true") {
        return Ok(None);
    }
    let (Some(top), Some(git_dir), Some(common_dir)) = (lines.next(), lines.next(), lines.next())
    else {
        bail!("`git rev-parse` gave an unexpected answer");
    };
    let status = git(
        root,
        &[
            "status",
            "--porcelain=v2",
            "--branch",
            "-z",
            "--untracked-files=all",
            "--ignored=no",
            "--ignore-submodules=dirty",
        ],
    )?;
    let mut snap = parse_status(&status);
    snap.root = top.to_string();
    snap.root_bytes = top_bytes;
    snap.linked_worktree = git_dir != common_dir;
    Ok(Some(snap))
}

/// Parses `git status --porcelain=v2 --branch -z`: headers, then one NUL-terminated record per
/// entry (a rename's original path is one more field).
pub fn parse_status(bytes: &[u8]) -> GitSnapshot {
    let mut snap = GitSnapshot::default();
    let mut fields = bytes.split(|b| *b == 0).map(String::from_utf8_lossy);
    while let Some(field) = fields.next() {
        if let Some(header) = field.strip_prefix("# ") {
            match header.split_once(' ') {
                Some(("branch.oid", oid)) if oid != "(initial)" => snap.head = Some(oid.into()),
                Some(("branch.head", "(detached)")) => snap.detached = true,
                Some(("branch.head", name)) => snap.branch = Some(name.into()),
                Some(("branch.upstream", up)) => snap.upstream = Some(up.into()),
                _ => {}
            }
            continue;
        }
        // Ordinary (1), renamed or copied (2), unmerged (u): the path is the last of a fixed
        // number of space-separated fields.
        let (path, extra) = match field.as_bytes().first() {
            Some(b'?') => {
                let path = field.get(2..).unwrap_or_default().to_string();
                if !crate::is_handover_file(&path) {
                    snap.untracked.push(path);
                }
                continue;
            }
            Some(b'1') => (field.splitn(9, ' ').nth(8), false),
            Some(b'2') => (field.splitn(10, ' ').nth(9), true),
            Some(b'u') => (field.splitn(11, ' ').nth(10), false),
            _ => continue,
        };
        if extra {
            fields.next(); // the original path of a rename
        }
        if let Some(path) = path.filter(|p| !crate::is_handover_file(p)) {
            snap.dirty.push(path.to_string());
        }
    }
    snap.dirty.sort();
    snap.dirty.dedup();
    snap.untracked.sort();
    snap.untracked.dedup();
    snap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_branch_entries_and_renames() {
        let out = b"# branch.oid 0123abcd\0# branch.head main\0# branch.upstream origin/main\0\
1 .M N... 100644 100644 100644 aa bb src/a b.rs\0\
2 R. N... 100644 100644 100644 aa bb R100 new.rs\0old.rs\0\
u UU N... 100644 100644 100644 100644 aa bb cc conflict.rs\0\
? notes/x.txt\0? handover.md\0";
        let s = parse_status(out);
        assert_eq!(s.head.as_deref(), Some("0123abcd"));
        assert_eq!(s.branch.as_deref(), Some("main"));
        assert_eq!(s.upstream.as_deref(), Some("origin/main"));
        assert!(!s.detached);
        assert_eq!(s.dirty, ["conflict.rs", "new.rs", "src/a b.rs"]);
        assert_eq!(s.untracked, ["notes/x.txt"]);
    }

    #[test]
    fn unborn_and_detached() {
        let s = parse_status(b"# branch.oid (initial)\0# branch.head main\0");
        assert_eq!((s.head, s.branch.as_deref()), (None, Some("main")));
        let s = parse_status(b"# branch.oid 0123\0# branch.head (detached)\0");
        assert!(s.detached && s.branch.is_none());
    }
}
