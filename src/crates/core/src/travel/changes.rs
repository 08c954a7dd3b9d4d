//! Uncommitted work that travels with a handoff: `handover push --with-changes` snapshots it,
//! `handover pull --adopt --apply` puts it into the other checkout.
//!
//! What goes: the tracked files whose work-tree content differs from HEAD (staged or not), and
//! the untracked files the handoff lists (never an ignored file, never handover's own files).
//! The snapshot is a commit whose only parent is the handoff's HEAD and whose tree is HEAD's
//! tree with those files as they are on disk, what `git stash create` would make (but one
//! commit, not stash's two: the staged/unstaged split does not travel). It is built in a
//! private index in a temporary directory (`GIT_INDEX_FILE`, [`Git::index_file`]): the user's
//! index and working tree are never touched. Each file is read once; those exact bytes are
//! checked and then written as the blob, so what was checked is what leaves.
//!
//! Refused before any object is written, naming the file: a name that looks like a credential
//! ([`CREDENTIAL_NAMES`]), content in which the secret scanner (`handover_redact::locate`)
//! finds a secret (with its line), a binary file (the scanner cannot read it), a file over
//! [`MAX_FILE_BYTES`], or more than [`MAX_TOTAL_BYTES`] in all.
//!
//! Applying writes files only (`git restore --source=<snapshot> --worktree`, never the index),
//! when HEAD is the snapshot's base and none of the files it changes has a local change of its
//! own; otherwise nothing is written, and the message names the files (both sides are kept: the
//! local file as it is, the travelled one in the fetched commit).

use anyhow::{anyhow, bail, Context};
use handover_base::git_process::Git;
use handover_handoff::sanitize::quote;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A file over this size does not travel (commit it, or copy it another way).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// All files together.
pub const MAX_TOTAL_BYTES: u64 = 10 * 1024 * 1024;
/// The most files one snapshot carries.
pub const MAX_FILES: usize = 1000;

/// File names (the last path component, lower-cased) that hold credentials by convention:
/// `*` at the end matches any rest, at the start any beginning.
pub const CREDENTIAL_NAMES: &[&str] = &[
    ".env*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "credentials*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "secrets.*",
];

/// How a file differs from the snapshot's base.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Modified,
    Added,
    Deleted,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Modified => "modified",
            Change::Added => "added",
            Change::Deleted => "deleted",
        }
    }
}

/// One file of a snapshot.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Going {
    pub path: String,
    pub change: Change,
    /// Bytes on disk (0 for a deletion).
    pub size: u64,
}

/// Uncommitted work as one file (with its content, unless deleted) ready to be checked.
struct Candidate {
    going: Going,
    /// `100644`, `100755` or `120000` with the bytes to store; None for a deletion.
    blob: Option<(&'static str, Vec<u8>)>,
}

/// Why a snapshot is refused, one line per file.
#[derive(Debug)]
pub struct Refused {
    pub problems: Vec<String>,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "refused: the uncommitted work cannot travel, so nothing was pushed:\n{}\nRemove or commit \
             those files (a secret belongs in no commit: move it out of the repository, or add its file to .gitignore), \
             or push without --with-changes (then the uncommitted work stays on this machine)",
            self.problems
                .iter()
                .map(|p| format!("  - {p}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    }
}

/// The uncommitted work of the working tree at `root` that would travel: tracked changes
/// against HEAD, and the untracked files in `listed_untracked` (the handoff's) that exist and
/// are not ignored. Only names and sizes; nothing is read but the metadata.
pub fn uncommitted(root: &Path, listed_untracked: &[String]) -> anyhow::Result<Vec<Going>> {
    Ok(candidates(root, listed_untracked, false)?
        .into_iter()
        .map(|c| c.going)
        .collect())
}

/// Reads every candidate (contents too when `read`).
fn candidates(
    root: &Path,
    listed_untracked: &[String],
    read: bool,
) -> anyhow::Result<Vec<Candidate>> {
    let diff = run(Git::local(root).reading_work_tree().args([
        "diff",
        "--name-status",
        "-z",
        "--no-renames",
        "--ignore-submodules",
        "HEAD",
        "--",
    ]))?;
    let mut out = Vec::new();
    let mut fields = diff.split(|&b| b == 0).filter(|f| !f.is_empty());
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let path = String::from_utf8_lossy(path).into_owned();
        if handover_git::is_handover_file(&path) {
            continue;
        }
        let change = match status.first() {
            Some(b'D') => Change::Deleted,
            Some(b'A') => Change::Added,
            _ => Change::Modified,
        };
        out.push(candidate(root, path, change, read)?);
    }
    let untracked: Vec<&String> = listed_untracked
        .iter()
        .filter(|p| !handover_git::is_handover_file(p) && !p.ends_with('/'))
        .filter(|p| !out.iter().any(|c| &c.going.path == *p))
        .collect();
    let ignored = ignored_of(root, &untracked)?;
    for path in untracked {
        if ignored.contains(path) || is_tracked(root, path)? {
            continue;
        }
        match std::fs::symlink_metadata(root.join(path)) {
            Ok(m) if m.is_file() || m.file_type().is_symlink() => {
                out.push(candidate(root, path.clone(), Change::Added, read)?);
            }
            // Gone since the handoff was written, or a directory: nothing to carry.
            _ => {}
        }
    }
    out.sort_by(|a, b| a.going.path.cmp(&b.going.path));
    Ok(out)
}

fn candidate(root: &Path, path: String, change: Change, read: bool) -> anyhow::Result<Candidate> {
    if change == Change::Deleted {
        return Ok(Candidate {
            going: Going {
                path,
                change,
                size: 0,
            },
            blob: None,
        });
    }
    let full = root.join(&path);
    let meta = std::fs::symlink_metadata(&full)
        .with_context(|| format!("cannot read {}", full.display()))?;
    let blob = if !read {
        None
    } else if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&full)
            .with_context(|| format!("cannot read the link {}", full.display()))?;
        Some(("120000", target.to_string_lossy().into_owned().into_bytes()))
    } else if meta.len() > MAX_FILE_BYTES {
        // Not read: refused by size.
        Some(("100644", Vec::new()))
    } else {
        let bytes =
            std::fs::read(&full).with_context(|| format!("cannot read {}", full.display()))?;
        Some((mode_of(&meta), bytes))
    };
    Ok(Candidate {
        going: Going {
            path,
            change,
            size: meta.len(),
        },
        blob,
    })
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 {
        "100755"
    } else {
        "100644"
    }
}

#[cfg(not(unix))]
fn mode_of(_: &std::fs::Metadata) -> &'static str {
    "100644"
}

/// The paths among `paths` that git ignores (`git check-ignore`: the repository's own rules).
fn ignored_of(root: &Path, paths: &[&String]) -> anyhow::Result<Vec<String>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut input = Vec::new();
    for p in paths {
        input.extend_from_slice(p.as_bytes());
        input.push(0);
    }
    let out = Git::local(root)
        .args(["check-ignore", "-z", "--stdin"])
        .input(&input)
        .output()?;
    // 1: none ignored.
    if !out.status.success() && out.status.code() != Some(1) {
        bail!(
            "`git check-ignore` failed; {}",
            super::git_said(&out.stderr)
        );
    }
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect())
}

fn is_tracked(root: &Path, path: &str) -> anyhow::Result<bool> {
    let out = Git::local(root)
        .args([
            "--literal-pathspecs",
            "ls-files",
            "--error-unmatch",
            "--",
            path,
        ])
        .output()?;
    Ok(out.status.success())
}

/// Why `c` may not leave the machine, if it may not.
fn problems_of(c: &Candidate) -> Vec<String> {
    let path = &c.going.path;
    let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    if CREDENTIAL_NAMES.iter().any(|p| name_matches(p, &name)) {
        return vec![format!(
            "{}: its name looks like a credential file; such files never travel",
            quote(path)
        )];
    }
    // The path itself is stored in the snapshot's tree.
    if let Some((_, kind)) = handover_redact::locate(path).first() {
        return vec![format!(
            "a file whose path holds what the secret scanner takes for a secret ({kind}); rename it"
        )];
    }
    let Some((_, bytes)) = &c.blob else {
        return Vec::new();
    };
    if c.going.size > MAX_FILE_BYTES {
        return vec![format!(
            "{}: {} bytes, over the {MAX_FILE_BYTES}-byte limit for a travelling file",
            quote(path),
            c.going.size
        )];
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return vec![format!(
            "{}: a binary file (not UTF-8 text): the secret scanner cannot check it, so it does not travel",
            quote(path)
        )];
    };
    if text.contains('\0') {
        return vec![format!(
            "{}: a binary file (it holds NUL bytes): the secret scanner cannot check it, so it does not travel",
            quote(path)
        )];
    }
    let mut found: Vec<String> = handover_redact::locate(text)
        .into_iter()
        .map(|(at, kind)| {
            let line = text[..at].bytes().filter(|&b| b == b'\n').count() + 1;
            format!(
                "{} line {line}: the secret scanner finds a secret there ({kind})",
                quote(path)
            )
        })
        .collect();
    found.dedup();
    found
}

/// `pattern` (`*` at one end at most) matches the lower-cased file name.
fn name_matches(pattern: &str, name: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix('*') {
        name.starts_with(prefix)
    } else if let Some(suffix) = pattern.strip_prefix('*') {
        name.ends_with(suffix)
    } else {
        name == pattern
    }
}

/// A snapshot ready to be referenced by the handoff commit.
pub struct Snapshot {
    /// The snapshot commit (parent: `base`).
    pub commit: String,
    pub base: String,
    pub files: Vec<Going>,
}

/// Reads, checks and (when everything may travel) writes the snapshot of the uncommitted work
/// on top of `base`, which must be HEAD. `Ok(None)`: there is no uncommitted work. Any refusal
/// comes before a single object is written.
pub fn snapshot(
    root: &Path,
    base: &str,
    listed_untracked: &[String],
) -> anyhow::Result<Result<Option<Snapshot>, Refused>> {
    let candidates = candidates(root, listed_untracked, true)?;
    if candidates.is_empty() {
        return Ok(Ok(None));
    }
    let mut problems: Vec<String> = candidates.iter().flat_map(problems_of).collect();
    let total: u64 = candidates.iter().map(|c| c.going.size).sum();
    if total > MAX_TOTAL_BYTES {
        problems.push(format!(
            "{} files of {total} bytes in all, over the {MAX_TOTAL_BYTES}-byte limit",
            candidates.len()
        ));
    }
    if candidates.len() > MAX_FILES {
        problems.push(format!(
            "{} files, over the limit of {MAX_FILES}",
            candidates.len()
        ));
    }
    if !problems.is_empty() {
        return Ok(Err(Refused { problems }));
    }
    let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
    let index = dir.path().join("index");
    let git = |args: &[&str]| Git::local(root).index_file(&index).args(args);
    run(git(&["read-tree", base]))?;
    let mut info = Vec::new();
    let mut deleted = Vec::new();
    for c in &candidates {
        match &c.blob {
            None => {
                deleted.extend_from_slice(c.going.path.as_bytes());
                deleted.push(0);
            }
            Some((mode, bytes)) => {
                // `--stdin` without `--path`: the bytes as they are, no filter.
                let id = super::command::write_blob(root, bytes)?;
                info.extend_from_slice(format!("{mode} {id}\t").as_bytes());
                info.extend_from_slice(c.going.path.as_bytes());
                info.push(0);
            }
        }
    }
    if !info.is_empty() {
        run(git(&["update-index", "-z", "--index-info"]).input(&info))?;
    }
    if !deleted.is_empty() {
        run(git(&["update-index", "-z", "--force-remove", "--stdin"]).input(&deleted))?;
    }
    let tree = String::from_utf8_lossy(&run(git(&["write-tree"]))?)
        .trim()
        .to_string();
    let commit = super::command::commit(
        root,
        &tree,
        &[base],
        "handover: uncommitted work travelling with a handoff",
    )?;
    Ok(Ok(Some(Snapshot {
        commit,
        base: base.to_string(),
        files: candidates.into_iter().map(|c| c.going).collect(),
    })))
}

/// What `changes.json` in a handoff commit says (untrusted when read: applying uses the
/// commits, never this list).
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(default)]
pub struct Manifest {
    /// The snapshot commit: the handoff commit's second parent.
    pub commit: String,
    /// Its parent: the handoff's HEAD.
    pub base: String,
    pub files: Vec<Going>,
}

impl Manifest {
    /// Untrusted text from a fetched commit: paths on one line without controls, at most
    /// [`MAX_FILES`] of them.
    pub fn sanitized(mut self) -> Manifest {
        self.files.truncate(MAX_FILES);
        for f in &mut self.files {
            f.path = handover_handoff::sanitize::one_line(&f.path);
        }
        self.commit = handover_handoff::sanitize::one_line(&self.commit);
        self.base = handover_handoff::sanitize::one_line(&self.base);
        self
    }
}

/// What applying did.
#[derive(Debug)]
pub struct Applied {
    pub files: Vec<Going>,
    /// Files that already had the travelled content.
    pub already: Vec<String>,
}

/// Puts the work of the snapshot `commit` into the working tree at `root`: only when HEAD is
/// the snapshot's parent, and only when no file it changes has a local change that differs
/// from it; the index is not touched.
pub fn apply(root: &Path, commit: &str) -> anyhow::Result<Applied> {
    let parents = run(Git::local(root).args(["rev-list", "--parents", "-n", "1", commit]))?;
    let parents = String::from_utf8_lossy(&parents);
    let ids: Vec<&str> = parents.split_whitespace().collect();
    let [_, base] = ids.as_slice() else {
        bail!("the travelled changes are not a snapshot on one commit (commit {commit})");
    };
    let head = super::command::resolve(root, "HEAD")?;
    if head.as_deref() != Some(*base) {
        bail!(
            "the travelled changes were made on commit {base}, but HEAD here is {}: nothing was applied. Get that commit first \
             (`git fetch && git switch --detach {base}`, or pull the branch up to it), then run `handover pull --adopt --apply` again",
            head.as_deref().unwrap_or("unborn")
        );
    }
    let mut files = travelled(root, base, commit)?;
    // The local state of each target: a tracked file changed against HEAD, or a file on disk
    // that HEAD does not have. Equal to the travelled content: already applied.
    let locally_changed = local_changes(root, &files)?;
    let mut conflicts = Vec::new();
    let mut already = Vec::new();
    for f in &files {
        if !locally_changed.contains(&f.path) {
            continue;
        }
        if same_as_travelled(root, commit, f)? {
            already.push(f.path.clone());
        } else {
            conflicts.push(f.path.clone());
        }
    }
    if !conflicts.is_empty() {
        bail!(
            "nothing was applied: {} the travelled changes touch {} local changes of {} own here: {}. Both sides are kept: \
             your files as they are, the travelled ones in commit {commit} (see them with `git diff HEAD {commit} -- <file>`). \
             Commit or stash yours (`git stash`), then run `handover pull --adopt --apply` again; or take one file with \
             `git restore --source={commit} --worktree -- <file>`",
            if conflicts.len() == 1 { "a file" } else { "files" },
            if conflicts.len() == 1 { "has" } else { "have" },
            if conflicts.len() == 1 { "its" } else { "their" },
            conflicts
                .iter()
                .map(|p| quote(p))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let todo: Vec<&Going> = files
        .iter()
        .filter(|f| !already.contains(&f.path))
        .collect();
    if !todo.is_empty() {
        let source = format!("--source={commit}");
        let mut git = Git::local(root).reading_work_tree().args([
            "--literal-pathspecs",
            "restore",
            &source,
            "--worktree",
            "--",
        ]);
        for f in &todo {
            git = git.arg(&f.path);
        }
        run(git)?;
    }
    for f in &mut files {
        f.size = std::fs::symlink_metadata(root.join(&f.path)).map_or(0, |m| m.len());
    }
    Ok(Applied { files, already })
}

/// The files the snapshot changes against its base, checked before anything is written: the
/// snapshot came from a remote, and what the sender's `push` refuses (a file over
/// [`MAX_FILE_BYTES`], more than [`MAX_TOTAL_BYTES`] or [`MAX_FILES`] in all) is refused here
/// too, from the objects' headers (`cat-file --batch-check`: a compressed bomb is never
/// inflated). Only plain files, executables and links that stay inside the working tree are
/// written: a submodule entry, a link to an absolute path or one climbing out with `..`, or a
/// path through a `.git` directory refuses the whole apply, naming the path.
fn travelled(root: &Path, base: &str, commit: &str) -> anyhow::Result<Vec<Going>> {
    let raw = run(Git::local(root).args([
        "diff-tree",
        "-r",
        "-z",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        base,
        commit,
    ]))?;
    // `:<old mode> <new mode> <old id> <new id> <status>` NUL `<path>` NUL, per file.
    let mut entries = Vec::new();
    let mut fields = raw.split(|&b| b == 0).filter(|f| !f.is_empty());
    while let (Some(head), Some(path)) = (fields.next(), fields.next()) {
        let head = String::from_utf8_lossy(head);
        let parts: Vec<&str> = head.trim_start_matches(':').split(' ').collect();
        let [_, mode, _, id, status] = parts.as_slice() else {
            bail!(
                "cannot read the travelled changes of commit {commit}: {}",
                quote(&head)
            );
        };
        let path = String::from_utf8_lossy(path).into_owned();
        if handover_git::is_handover_file(&path) {
            continue;
        }
        let change = match status.chars().next() {
            Some('D') => Change::Deleted,
            Some('A') => Change::Added,
            _ => Change::Modified,
        };
        entries.push((path, change, mode.to_string(), id.to_string()));
    }
    if entries.len() > MAX_FILES {
        bail!(
            "nothing was applied: the travelled changes hold {} files, over the {MAX_FILES}-file limit a push keeps to",
            entries.len()
        );
    }
    let written: Vec<&(String, Change, String, String)> = entries
        .iter()
        .filter(|(_, change, _, _)| *change != Change::Deleted)
        .collect();
    let mut ids = Vec::new();
    for (_, _, _, id) in &written {
        ids.extend_from_slice(id.as_bytes());
        ids.push(b'\n');
    }
    let sizes = if written.is_empty() {
        Vec::new()
    } else {
        run(Git::local(root)
            .args(["cat-file", "--batch-check=%(objecttype) %(objectsize)"])
            .input(&ids))?
    };
    let sizes = String::from_utf8_lossy(&sizes);
    let mut sizes = sizes.lines();
    let mut total = 0u64;
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for (path, change, mode, id) in &entries {
        let mut size = 0;
        if *change != Change::Deleted {
            let line = sizes.next().unwrap_or_default();
            let (kind, bytes) = line.split_once(' ').unwrap_or((line, ""));
            size = bytes.parse::<u64>().unwrap_or(u64::MAX);
            total = total.saturating_add(size);
            if path.split('/').any(|c| c.eq_ignore_ascii_case(".git")) {
                problems.push(format!("{}: a path inside a .git directory", quote(path)));
            } else if !matches!(mode.as_str(), "100644" | "100755" | "120000") || kind != "blob" {
                problems.push(format!(
                    "{}: not a file (mode {}, {})",
                    quote(path),
                    quote(mode),
                    quote(kind)
                ));
            } else if size > MAX_FILE_BYTES {
                problems.push(format!(
                    "{}: {size} bytes, over the {MAX_FILE_BYTES}-byte limit",
                    quote(path)
                ));
            } else if mode == "120000" {
                let target = run(Git::local(root).args(["cat-file", "blob", id]))?;
                if !link_stays_inside(path, &String::from_utf8_lossy(&target)) {
                    problems.push(format!(
                        "{}: a link out of the working tree ({})",
                        quote(path),
                        quote(&String::from_utf8_lossy(&target))
                    ));
                }
            }
        }
        files.push(Going {
            path: path.clone(),
            change: *change,
            size,
        });
    }
    if total > MAX_TOTAL_BYTES {
        problems.push(format!(
            "{total} bytes in all, over the {MAX_TOTAL_BYTES}-byte limit"
        ));
    }
    if !problems.is_empty() {
        bail!(
            "nothing was applied: the travelled changes in commit {commit} hold what a push never sends: {}",
            problems.join("; ")
        );
    }
    Ok(files)
}

/// Whether a link at `path` (relative to the top of the working tree) naming `target` resolves
/// inside the working tree, by its words alone: relative, and never climbing above the top.
fn link_stays_inside(path: &str, target: &str) -> bool {
    if target.is_empty() || target.starts_with('/') {
        return false;
    }
    let mut depth = path.split('/').count() as i64 - 1;
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => depth -= 1,
            _ => depth += 1,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// The paths among `files` with a local change: differing from HEAD (tracked), or present on
/// disk while HEAD does not have them.
fn local_changes(root: &Path, files: &[Going]) -> anyhow::Result<Vec<String>> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let mut git = Git::local(root).reading_work_tree().args([
        "--literal-pathspecs",
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "HEAD",
        "--",
    ]);
    for f in files {
        git = git.arg(&f.path);
    }
    let mut changed: Vec<String> = run(git)?
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    for f in files {
        if f.change == Change::Added
            && !changed.contains(&f.path)
            && std::fs::symlink_metadata(root.join(&f.path)).is_ok()
        {
            changed.push(f.path.clone());
        }
    }
    Ok(changed)
}

/// The file on disk already is what the snapshot holds (or is absent where it deletes it).
fn same_as_travelled(root: &Path, commit: &str, f: &Going) -> anyhow::Result<bool> {
    let on_disk = std::fs::symlink_metadata(root.join(&f.path));
    if f.change == Change::Deleted {
        return Ok(on_disk.is_err());
    }
    let Ok(meta) = on_disk else {
        return Ok(false);
    };
    if !meta.is_file() {
        return Ok(false);
    }
    let travelled =
        run(Git::local(root).args(["cat-file", "blob", &format!("{commit}:{}", f.path)]))?;
    let here = std::fs::read(root.join(&f.path)).unwrap_or_default();
    Ok(here == travelled)
}

/// Runs `git`; its stdout when it succeeds, else an error quoting git's words.
fn run(git: Git) -> anyhow::Result<Vec<u8>> {
    let shown = git.shown();
    let out = git.output()?;
    if !out.status.success() {
        return Err(anyhow!(
            "`{shown}` failed; {}",
            super::git_said(&out.stderr)
        ));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_stays_inside_only_by_relative_steps_that_never_climb_above_the_top() {
        assert!(link_stays_inside("a/link", "../b"));
        assert!(link_stays_inside("a/b/link", "../../c/./d"));
        assert!(link_stays_inside("link", "a/../b"));
        assert!(!link_stays_inside("link", "../outside"));
        assert!(!link_stays_inside("a/link", "../../outside"));
        assert!(!link_stays_inside("link", "a/../../x"));
        assert!(!link_stays_inside("link", "/etc/passwd"));
        assert!(!link_stays_inside("link", ""));
    }

    #[test]
    fn credential_names_are_recognised_by_their_last_component() {
        for name in [
            ".env",
            ".env.local",
            "server.pem",
            "TLS.KEY",
            "id_rsa",
            "id_ed25519.pub",
            "cert.p12",
            "credentials.json",
        ] {
            assert!(
                CREDENTIAL_NAMES
                    .iter()
                    .any(|p| name_matches(p, &name.to_lowercase())),
                "{name}"
            );
        }
        for name in ["main.rs", "environment.md", "keyboard.rs", "README"] {
            assert!(
                !CREDENTIAL_NAMES.iter().any(|p| name_matches(p, name)),
                "{name}"
            );
        }
    }

    #[test]
    fn a_path_holding_a_secret_is_refused_without_repeating_it() {
        let path = "notes/ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8.txt";
        let c = Candidate {
            going: Going {
                path: path.into(),
                change: Change::Added,
                size: 3,
            },
            blob: Some(("100644", b"ok\n".to_vec())),
        };
        let problems = problems_of(&c);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(!problems[0].contains("ghp_"), "{problems:?}");
    }

    #[test]
    fn a_secret_is_named_with_its_file_and_line() {
        let c = Candidate {
            going: Going {
                path: "src/config.rs".into(),
                change: Change::Modified,
                size: 60,
            },
            blob: Some((
                "100644",
                b"fn main() {}\n// ok\nlet token = \"ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8\";\n"
                    .to_vec(),
            )),
        };
        let problems = problems_of(&c);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("«src/config.rs» line 3: the secret scanner finds a secret"),
            "{problems:?}"
        );
    }
}
