//! Private by default: a marked block in `.gitignore` (in a submodule: its `info/exclude`, see
//! `file`) keeps `handover.md` and `.handover/`
//! out of git. Tracked handoff files are reported, never untracked behind the user's back.
//!
//! The edit itself (`with_block`) is a pure function from the file's bytes to the new bytes;
//! reading, the git check and the atomic write sit around it.

use anyhow::Context;
use handover_verify::git;
use std::path::Path;

pub const BEGIN_MARK: &str = "# >>> handover (private handoff files) >>>";
pub const END_MARK: &str = "# <<< handover <<<";
/// The lines between the marks.
pub const PATTERNS: [&str; 2] = ["/handover.md", "/.handover/"];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GuardStatus {
    /// The marked block is present in `<root>/.gitignore`.
    pub present: bool,
    /// Handoff files git already tracks (repo-relative).
    pub tracked: Vec<String>,
    /// Why the handoff files are not private although we tried: a damaged block (a begin mark
    /// without an end mark, left alone rather than guessed at), or a later rule such as
    /// `!/handover.md` that makes git see them again. A warning, never a reason not to save.
    pub problem: Option<String>,
}

/// `.gitignore` as it was before `ensure`, to put back when the write it was part of fails.
pub struct Before {
    path: std::path::PathBuf,
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

/// Adds the marked block if missing (atomic write, rest of the file untouched).
/// Returns the status after the change and whether the file was changed.
///
/// Outside a git repository nothing is written (a `.gitignore` means nothing there) and the
/// status is `present: false`; the next write after `git init` adds the block.
pub fn ensure(root: &Path) -> anyhow::Result<(GuardStatus, bool)> {
    if git::find_root(root).is_none() {
        return Ok((GuardStatus::default(), false));
    }
    let path = file(root);
    // git itself does not follow a `.gitignore` link in the working tree, and writing through
    // one could change a file outside the repository.
    match handover_handoff::safe_fs::kind(&path) {
        Ok(handover_handoff::safe_fs::Kind::Missing | handover_handoff::safe_fs::Kind::File) => {}
        _ => anyhow::bail!(
            "{} is not a plain file (a symbolic link?), so handover will not edit it: replace it \
             with a plain file, or use --shared to skip the guard",
            path.display()
        ),
    }
    let old = read_gitignore(&path)?;
    let new = match with_block(old.as_deref().unwrap_or_default()) {
        Ok(new) => new,
        Err(e) => {
            return Ok((
                GuardStatus {
                    present: false,
                    tracked: tracked_handoff_files(root),
                    problem: Some(damaged(&path, &e)),
                },
                false,
            ))
        }
    };
    let changed = old.as_deref() != Some(new.as_slice());
    if changed && old.is_none() {
        if let Some(dir) = path.parent() {
            // `info/` of a submodule's git directory may not exist yet.
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
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

fn damaged(path: &Path, e: &anyhow::Error) -> String {
    format!(
        "{}: {e}, so handover.md and .handover/ may not be private: fix or remove the handover marker lines (the next `handover write` then adds the block)",
        path.display()
    )
}

/// The block is there but git still sees a handoff file, because a rule after it (`!/handover.md`,
/// `!/.handover/`) re-includes it. Asks git's own ignore rules; silent when git cannot be read.
fn reincluded(root: &Path) -> Option<String> {
    let repo = git::open(root).ok().flatten()?;
    let top = repo.workdir()?.canonicalize().ok()?;
    let here = root.canonicalize().ok()?;
    let prefix = here.strip_prefix(&top).ok()?.to_path_buf();
    let visible: Vec<&str> = ["handover.md", ".handover/state.json"]
        .into_iter()
        .filter(|p| repo.is_path_ignored(prefix.join(p)).ok() == Some(false))
        .collect();
    if visible.is_empty() {
        return None;
    }
    Some(format!(
        "git does not ignore {} although the handover block is in .gitignore: a later rule (such as `!/handover.md`) re-includes it; remove that rule to keep handoffs private",
        visible.join(" and ")
    ))
}

pub fn status(root: &Path) -> GuardStatus {
    if git::find_root(root).is_none() {
        return GuardStatus::default();
    }
    let path = file(root);
    let (block, problem) = match read_gitignore(&path) {
        Ok(Some(bytes)) => match with_block(&bytes) {
            Ok(new) => (new == bytes, None),
            Err(e) => (false, Some(damaged(&path, &e))),
        },
        _ => (false, None),
    };
    let problem = problem.or_else(|| block.then(|| reincluded(root)).flatten());
    GuardStatus {
        present: block && problem.is_none(),
        tracked: tracked_handoff_files(root),
        problem,
    }
}

/// The file the block goes in: `.gitignore` at the top of the working tree; in a submodule, the
/// submodule's private `info/exclude`, so that the first write does not show the superproject
/// a submodule with new or modified content.
pub fn file(root: &Path) -> std::path::PathBuf {
    match submodule_git_dir(root) {
        Some(git_dir) => git_dir.join("info").join("exclude"),
        None => root.join(".gitignore"),
    }
}

/// The git directory of the submodule whose working tree is `root`: `.git` is a file naming a
/// directory under a `modules/` directory, without the `commondir` a linked worktree has.
fn submodule_git_dir(root: &Path) -> Option<std::path::PathBuf> {
    let text = git::read_dot_git_file(root).ok()?;
    let target = Path::new(text.lines().next()?.strip_prefix("gitdir:")?.trim());
    let dir = root.join(target);
    let in_modules = dir.components().any(|c| c.as_os_str() == "modules");
    (in_modules && !dir.join("commondir").exists()).then_some(dir)
}

/// The `.gitignore` as it is, through the same guarded read the write uses (no link followed,
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
