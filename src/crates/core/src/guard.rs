//! Private by default: a marked block in the repository's own `info/exclude` (under the git
//! directory, shared by its linked worktrees; a submodule's in its own git directory) keeps
//! `handover.md` and `.handover/` out of git. It changes no tracked file, so a handoff never
//! lists handover's own edit as the session's work, a travelled handoff does not arrive with a
//! `.gitignore` change the other checkout lacks, and nothing is left for a teammate to review
//! (docs/storage.md, "Private by default"). Nothing is written when git already ignores both
//! paths, by whatever rule (a `.gitignore` the team committed, a block an older handover put
//! there, the user's global excludes). Tracked handoff files are reported, never untracked
//! behind the user's back.
//!
//! The edit itself (`with_block`) is a pure function from the file's bytes to the new bytes;
//! reading, the git check and the atomic write sit around it.

use anyhow::Context;
use handover_git as git;
use std::path::{Path, PathBuf};

pub const BEGIN_MARK: &str = "# >>> handover (private handoff files) >>>";
pub const END_MARK: &str = "# <<< handover <<<";
/// The lines between the marks.
pub const PATTERNS: [&str; 2] = ["/handover.md", "/.handover/"];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GuardStatus {
    /// git ignores `handover.md` and `.handover/` (through our block or the repository's own
    /// rules).
    pub present: bool,
    /// Handoff files git already tracks (repo-relative).
    pub tracked: Vec<String>,
    /// Why the handoff files are not private although we tried: a damaged block (a begin mark
    /// without an end mark, left alone rather than guessed at), or a `.gitignore` rule such as
    /// `!/handover.md` that makes git see them again. A warning, never a reason not to save.
    pub problem: Option<String>,
}

/// The exclude file as it was before `ensure`, to put back when the write it was part of fails.
pub struct Before {
    path: PathBuf,
    bytes: Option<Vec<u8>>,
}

impl Before {
    pub fn read(root: &Path) -> Before {
        let path = file(root);
        let bytes = read_gitignore(&path).ok().flatten();
        Before { path, bytes }
    }

    /// Best effort: a file we created is removed, a file we changed gets its bytes back.
    pub fn restore(&self) {
        let _ = match &self.bytes {
            None => std::fs::remove_file(&self.path),
            Some(bytes) => handover_base::atomic::write_atomic(&self.path, bytes),
        };
    }
}

/// Makes git ignore the handoff files: nothing when it already does, else the marked block is
/// added to (or brought up to date in) the exclude file, the rest of it untouched (atomic
/// write). Returns the status after the change and whether the file was changed.
///
/// Outside a git repository nothing is written (an exclude file means nothing there) and the
/// status is `present: false`; the next write after `git init` adds the block.
pub fn ensure(root: &Path) -> anyhow::Result<(GuardStatus, bool)> {
    if handover_handoff::worktree::find_root(root).is_none() {
        return Ok((GuardStatus::default(), false));
    }
    if ignored_by_git(root) == Some(true) {
        return Ok((
            GuardStatus {
                present: true,
                tracked: tracked_handoff_files(root),
                problem: None,
            },
            false,
        ));
    }
    let path = file(root);
    writable_place(&path)?;
    let old = read_gitignore(&path)?;
    let new = match with_block(old.as_deref().unwrap_or_default()) {
        Ok(new) => new,
        Err(e) => {
            return Ok((
                GuardStatus {
                    present: false,
                    tracked: tracked_handoff_files(root),
                    problem: Some(damaged(root, &e)),
                },
                false,
            ))
        }
    };
    let changed = old.as_deref() != Some(new.as_slice());
    if changed && old.is_none() {
        if let Some(dir) = path.parent() {
            // A new repository's git directory may have no `info/` yet. One level only, and
            // never through a link (`writable_place` checked the parent).
            match std::fs::create_dir(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", dir.display()))
                }
            }
        }
    }
    if changed {
        handover_base::atomic::write_atomic(&path, &new).with_context(|| {
            format!(
                "cannot write {}: check the directory's permissions",
                path.display()
            )
        })?;
    }
    let problem = reincluded(root);
    Ok((
        GuardStatus {
            present: problem.is_none(),
            tracked: tracked_handoff_files(root),
            problem,
        },
        changed,
    ))
}

/// The exclude file is written only through plain directories: the git directory and its
/// `info/` (missing, or a directory, never a link), and the file itself missing or a plain
/// file. A repository that arrived as a tarball brings its own `.git`, and a link there could
/// otherwise make the guard write outside it.
fn writable_place(path: &Path) -> anyhow::Result<()> {
    use handover_handoff::safe_fs::{kind, Kind};
    let refuse = |what: &Path| {
        let edit = if what == path {
            "it".to_string()
        } else {
            path.display().to_string()
        };
        anyhow::anyhow!(
            "{} is not a plain {} (a symbolic link?), so handover will not edit {edit}: \
             replace it, or use --shared to skip keeping handoffs private",
            what.display(),
            if what == path { "file" } else { "directory" },
        )
    };
    let info = path.parent().ok_or_else(|| refuse(path))?;
    let git_dir = info.parent().ok_or_else(|| refuse(info))?;
    // A linked worktree's common directory is outside the working tree by design, and a
    // tarball's `.git` file may name any directory: it must at least be a git directory.
    let is_git_dir = matches!(kind(git_dir), Ok(Kind::Dir))
        && matches!(kind(&git_dir.join("HEAD")), Ok(Kind::File))
        && matches!(kind(&git_dir.join("objects")), Ok(Kind::Dir));
    if !is_git_dir {
        return Err(refuse(git_dir));
    }
    if !matches!(kind(info), Ok(Kind::Dir | Kind::Missing)) {
        return Err(refuse(info));
    }
    if !matches!(kind(path), Ok(Kind::File | Kind::Missing)) {
        return Err(refuse(path));
    }
    Ok(())
}

fn damaged(root: &Path, e: &anyhow::Error) -> String {
    format!(
        "{}: {e}, so handover.md and .handover/ may not be private: fix or remove the handover marker lines (the next `handover write` then adds the block)",
        label(root)
    )
}

/// The handoff paths git does not ignore here, by any of its rules (`.gitignore` files, the
/// exclude file, `core.excludesFile`) in git's own order of precedence (`git check-ignore`);
/// None when git cannot answer. `.handover/` is asked as a directory, so a rule for a file
/// inside it does not count.
fn visible_to_git(root: &Path) -> Option<Vec<&'static str>> {
    git::not_ignored(root, &["handover.md", ".handover/"])
}

fn ignored_by_git(root: &Path) -> Option<bool> {
    visible_to_git(root).map(|visible| visible.is_empty())
}

/// The block is there but git still sees a handoff file, because a rule of higher precedence
/// (`!/handover.md` in a `.gitignore`, which git reads after the exclude file) re-includes
/// it. Silent when git cannot be read.
fn reincluded(root: &Path) -> Option<String> {
    reincluded_as(root, visible_to_git(root))
}

/// [`reincluded`] from what git already said (`visible`: [`visible_to_git`]'s answer).
fn reincluded_as(root: &Path, visible: Option<Vec<&'static str>>) -> Option<String> {
    let visible = visible?;
    if visible.is_empty() {
        return None;
    }
    Some(format!(
        "git does not ignore {} although the handover block is in {}: a .gitignore rule (such as `!/handover.md`) re-includes it; remove that rule to keep handoffs private",
        visible.join(" and "),
        label(root)
    ))
}

pub fn status(root: &Path) -> GuardStatus {
    if handover_handoff::worktree::find_root(root).is_none() {
        return GuardStatus::default();
    }
    let tracked = tracked_handoff_files(root);
    // git is asked once: whether it ignores both paths, and which it sees if the block is there.
    let visible = visible_to_git(root);
    if visible.as_ref().is_some_and(Vec::is_empty) {
        return GuardStatus {
            present: true,
            tracked,
            problem: None,
        };
    }
    let problem = match read_gitignore(&file(root)) {
        Ok(Some(bytes)) => match with_block(&bytes) {
            Ok(new) if new == bytes => reincluded_as(root, visible),
            Ok(_) => None,
            Err(e) => Some(damaged(root, &e)),
        },
        _ => None,
    };
    GuardStatus {
        present: false,
        tracked,
        problem,
    }
}

/// The file the block goes in: `info/exclude` in the repository's common git directory (a
/// linked worktree shares its main repository's; a submodule has its own git directory), found
/// with file reads only. Where the layout cannot be read, `.git/info/exclude` under `root`,
/// which `writable_place` then refuses unless it is plain.
pub fn file(root: &Path) -> PathBuf {
    git::common_dir_files(root)
        .unwrap_or_else(|| root.join(".git"))
        .join("info")
        .join("exclude")
}

/// The exclude file as a person reads it: relative to `root` when it is inside it
/// (`.git/info/exclude`), else its whole path (a linked worktree's main repository).
pub fn label(root: &Path) -> String {
    let path = file(root);
    // A linked worktree's `commondir` is relative (`../..`): shown resolved, for reading only.
    let path = path
        .parent()
        .and_then(|info| info.parent())
        .and_then(|git_dir| std::fs::canonicalize(git_dir).ok())
        .map(|git_dir| git_dir.join("info").join("exclude"))
        .unwrap_or(path);
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let shown = path.strip_prefix(&root).unwrap_or(&path);
    shown.display().to_string()
}

/// The exclude file as it is, through the same guarded read the write uses (no link followed,
/// no FIFO waited on, at most 16 MiB). Ok(None) when the file does not exist.
pub fn read_gitignore(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    // Never through a link, never blocking on a FIFO.
    match handover_handoff::safe_fs::read_limited(path, 16 * 1024 * 1024) {
        Ok(bytes) => Ok(bytes),
        Err(e) => Err(anyhow::anyhow!(
            "cannot read {}: {e}; check its permissions",
            path.display()
        )),
    }
}

/// Handoff files in git's index, read from the index (no working-tree scan).
fn tracked_handoff_files(root: &Path) -> Vec<String> {
    let Ok(Some(repo)) = git::open(root) else {
        return Vec::new();
    };
    let Ok(index) = repo.index() else {
        return Vec::new();
    };
    // Paths in the index are relative to the repository top; `root` may be below it.
    let prefix = repo
        .workdir()
        .and_then(|top| {
            let top = std::fs::canonicalize(top).ok()?;
            let root = std::fs::canonicalize(root).ok()?;
            root.strip_prefix(&top)
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let mut tracked: Vec<String> = index
        .iter()
        .filter_map(|entry| {
            let path = String::from_utf8_lossy(&entry.path).into_owned();
            let relative = if prefix.is_empty() {
                Some(path.as_str())
            } else {
                path.strip_prefix(&format!("{prefix}/"))
            };
            relative
                .filter(|p| git::is_handover_file(p))
                .map(|_| path.clone())
        })
        .collect();
    tracked.sort();
    tracked.dedup();
    tracked
}

/// The file's bytes with the block present and up to date. Everything outside the block is
/// kept byte for byte; the block uses the file's line ending (CRLF if the file has any).
/// An existing block is replaced (lines a person added inside the marks are ours to manage);
/// a begin mark without an end mark is an error rather than a guess.
pub fn with_block(old: &[u8]) -> anyhow::Result<Vec<u8>> {
    let crlf = old.windows(2).any(|w| w == b"\r\n");
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut block = Vec::new();
    for line in std::iter::once(BEGIN_MARK)
        .chain(PATTERNS)
        .chain(std::iter::once(END_MARK))
    {
        block.extend_from_slice(line.as_bytes());
        block.extend_from_slice(eol);
    }
    // Lines with their terminators, as byte ranges.
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, b) in old.iter().enumerate() {
        if *b == b'\n' {
            lines.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < old.len() {
        lines.push(start..old.len());
    }
    let text = |r: &std::ops::Range<usize>| {
        let l = &old[r.clone()];
        let l = l.strip_suffix(b"\n").unwrap_or(l);
        l.strip_suffix(b"\r").unwrap_or(l).to_vec()
    };
    let begin = lines.iter().position(|r| text(r) == BEGIN_MARK.as_bytes());
    if let Some(b) = begin {
        let Some(e) = lines[b..]
            .iter()
            .position(|r| text(r) == END_MARK.as_bytes())
            .map(|i| b + i)
        else {
            anyhow::bail!("the line \"{BEGIN_MARK}\" has no \"{END_MARK}\" after it");
        };
        let mut new = old[..lines[b].start].to_vec();
        new.extend_from_slice(&block);
        let after = lines[e].end;
        if after == old.len() && !old[lines[e].clone()].ends_with(b"\n") {
            // The end mark was the last line without a newline: keep it that way.
            new.truncate(new.len() - eol.len());
        }
        new.extend_from_slice(&old[after..]);
        return Ok(new);
    }
    let mut new = old.to_vec();
    if !new.is_empty() {
        if !new.ends_with(b"\n") {
            new.extend_from_slice(eol);
        }
        new.extend_from_slice(eol);
    }
    new.extend_from_slice(&block);
    Ok(new)
}
