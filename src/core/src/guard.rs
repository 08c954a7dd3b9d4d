//! Private by default: a marked block in `.gitignore` keeps `handover.md` and `.handover/`
//! out of git. Tracked handoff files are reported, never untracked behind the user's back.
//!
//! The edit itself (`with_block`) is a pure function from the file's bytes to the new bytes;
//! reading, the git check and the atomic write sit around it.

use crate::git;
use anyhow::Context;
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
    let path = root.join(".gitignore");
    // git itself does not follow a `.gitignore` link in the working tree, and writing through
    // one could change a file outside the repository.
    match crate::safe_fs::kind(&path) {
        Ok(crate::safe_fs::Kind::Missing | crate::safe_fs::Kind::File) => {}
        _ => anyhow::bail!(
            "{} is not a plain file (a symbolic link?), so handover will not edit it: replace it \
             with a plain file, or use --shared to skip the guard",
            path.display()
        ),
    }
    let old = read_gitignore(&path)?;
    let new = with_block(old.as_deref().unwrap_or_default()).with_context(|| {
        format!(
            "{}: fix or remove the handover marker lines, then run again",
            path.display()
        )
    })?;
    let changed = old.as_deref() != Some(new.as_slice());
    if changed {
        handover_base::atomic::write_atomic(&path, &new).with_context(|| {
            format!(
                "cannot write {}: check the directory's permissions",
                path.display()
            )
        })?;
    }
    Ok((
        GuardStatus {
            present: true,
            tracked: tracked_handoff_files(root),
        },
        changed,
    ))
}

pub fn status(root: &Path) -> GuardStatus {
    if git::find_root(root).is_none() {
        return GuardStatus::default();
    }
    let present = match read_gitignore(&root.join(".gitignore")) {
        Ok(Some(bytes)) => with_block(&bytes).map(|new| new == bytes).unwrap_or(false),
        _ => false,
    };
    GuardStatus {
        present,
        tracked: tracked_handoff_files(root),
    }
}

/// Ok(None) when the file does not exist.
fn read_gitignore(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    // Never through a link, never blocking on a FIFO.
    match crate::safe_fs::read_limited(path, 16 * 1024 * 1024) {
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
