//! HEAD's tree entry for one path (its object id and mode), remembered per commit in the git
//! directory, so that a hook asking about the same paths again at the same HEAD reads no tree.
//!
//! Why: a path's entry costs one tree object per directory level, inflated and parsed whole.
//! A handoff listing files in 50 directories of a 100,000-file repository costs 50 trees of
//! 100 entries and one of 1,000 (about 10 M instructions, three quarters of such a session
//! start), against one small tree in a 10-file repository: the one cost of a session start
//! that still grew with the repository (docs/benchmarks.md).
//!
//! What is remembered is a fact about a commit: the entry at a path of commit C is the same
//! forever (objects never change under their id), so the answers stay valid for as long as
//! HEAD is C and are thrown away when it moves. They live in the repository's git directory
//! (`<git dir>/handover-head-entries`, the per-worktree one for a linked worktree), which is
//! exactly as trusted as the objects they were read from: whoever can write there can write
//! the objects too. Never in `.handover/`, which a cloned repository can forge.
//!
//! The file is a hint of our own making, kept small and read through the same gate as any
//! repository file: a plain file (no link followed), at most [`MAX_FILE_BYTES`]; another
//! commit, another format version, a line that does not parse or lines out of order and the
//! whole file is ignored (HEAD's trees are read, and the file is rewritten). It is replaced whole (a temporary file
//! and a rename, never written through a link), only when a call looked up paths it did not
//! hold; a git directory that cannot be written just means the trees are read each time.

use git2::{ErrorCode, Oid, Repository, Tree};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The file's name in the git directory.
pub const FILE_NAME: &str = "handover-head-entries";
/// Its first line: the format, versioned.
const HEADER: &str = "handover HEAD entries 1";
/// The most entries kept (a handoff lists at most a few hundred paths, a record a few dozen).
const MAX_ENTRIES: usize = 4096;
/// The largest file read (4096 entries of a long path each).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

pub const MODE_TREE: i32 = 0o040000;

/// An entry of HEAD's tree: object id and mode. None: HEAD has nothing at the path.
pub type Entry = Option<(Oid, i32)>;

/// HEAD's entries for one hook call: what the git directory remembers for HEAD's commit, and
/// what this call looked up in HEAD's trees (each tree read at most once per call).
pub(crate) struct HeadEntries<'r> {
    repo: &'r Repository,
    /// HEAD's commit; None when HEAD has no commit yet (nothing is in HEAD).
    commit: Option<Oid>,
    /// HEAD's top tree, read on the first path the file did not answer.
    top: OnceCell<Result<Tree<'r>, ()>>,
    /// HEAD's trees by directory ("" the top), read once each.
    trees: RefCell<HashMap<String, Option<Tree<'r>>>>,
    /// What the git directory remembers for HEAD's commit.
    remembered: Remembered,
    /// Entries looked up in HEAD's trees during this call.
    looked_up: RefCell<HashMap<String, Entry>>,
    /// How many of them the last [`HeadEntries::remember`] wrote (checks sharing one
    /// `HeadEntries` may each call it; only new lookups are worth a write).
    written: std::cell::Cell<usize>,
}

impl<'r> HeadEntries<'r> {
    /// None when HEAD cannot be read (a commit that is missing is found out per path).
    pub(crate) fn new(repo: &'r Repository) -> Option<HeadEntries<'r>> {
        let commit = match repo.refname_to_id("HEAD") {
            Ok(id) => Some(id),
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
            Err(_) => return None,
        };
        let remembered = commit
            .and_then(|commit| Remembered::read(&file_path(repo), commit))
            .unwrap_or_default();
        Some(HeadEntries {
            repo,
            commit,
            top: OnceCell::new(),
            trees: RefCell::new(HashMap::new()),
            remembered,
            looked_up: RefCell::new(HashMap::new()),
            written: std::cell::Cell::new(0),
        })
    }

    /// HEAD's entry at `path` (`/`-separated, relative to the top of the working tree). Err:
    /// a tree on the way could not be read.
    pub(crate) fn entry(&self, path: &str) -> Result<Entry, ()> {
        if self.commit.is_none() {
            return Ok(None);
        }
        if let Some(known) = self.remembered.get(path) {
            return Ok(known);
        }
        if let Some(known) = self.looked_up.borrow().get(path) {
            return Ok(*known);
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let found = self
            .tree_at(dir)?
            .and_then(|tree| tree.get_name(name).map(|e| (e.id(), e.filemode())));
        self.looked_up.borrow_mut().insert(path.to_string(), found);
        Ok(found)
    }

    /// Writes what this call looked up to the git directory, with what was remembered
    /// already for the same commit. Nothing when every answer came from there, or nothing
    /// was looked up since the last call. Best effort: a git directory that cannot be written
    /// is left as it is.
    pub(crate) fn remember(&self) {
        let Some(commit) = self.commit else {
            return;
        };
        let looked_up = self.looked_up.borrow();
        if looked_up.len() == self.written.get() {
            return;
        }
        self.written.set(looked_up.len());
        let mut lines: Vec<(&str, String)> = self
            .remembered
            .lines()
            .filter(|line| !looked_up.contains_key(path_of(line)))
            .map(|line| (path_of(line), line.to_string()))
            .chain(
                looked_up
                    .iter()
                    .filter(|(path, _)| rememberable(path))
                    .map(|(path, entry)| (path.as_str(), line_of(path, *entry))),
            )
            .collect();
        lines.sort_by(|a, b| a.0.cmp(b.0));
        lines.truncate(MAX_ENTRIES);
        let mut text = format!("{HEADER}\ncommit {commit}\n");
        for (_, line) in lines {
            // A sorted prefix that a reader will take (very long paths could pass the cap).
            if (text.len() + line.len() + 1) as u64 > MAX_FILE_BYTES {
                break;
            }
            text.push_str(&line);
            text.push('\n');
        }
        let _ = handover_handoff::safe_fs::replace(&file_path(self.repo), text.as_bytes(), false);
    }

    /// HEAD's tree for directory `dir` ("" for the top), None when HEAD has no directory there.
    fn tree_at(&self, dir: &str) -> Result<Option<Tree<'r>>, ()> {
        if dir.is_empty() {
            let top = self.top.get_or_init(|| {
                // Peeled as `Repository::head` would be: HEAD may name a tag of a commit.
                let commit = self.commit.ok_or(())?;
                self.repo
                    .find_object(commit, None)
                    .and_then(|o| o.peel_to_tree())
                    .map_err(|_| ())
            });
            return top.clone().map(Some);
        }
        if let Some(cached) = self.trees.borrow().get(dir) {
            return Ok(cached.clone());
        }
        let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
        let tree = match self.tree_at(parent)? {
            None => None,
            Some(parent) => match parent.get_name(name) {
                Some(entry) if entry.filemode() == MODE_TREE => {
                    Some(self.repo.find_tree(entry.id()).map_err(|_| ())?)
                }
                _ => None,
            },
        };
        self.trees
            .borrow_mut()
            .insert(dir.to_string(), tree.clone());
        Ok(tree)
    }
}

/// `<git dir>/handover-head-entries`.
pub fn file_path(repo: &Repository) -> PathBuf {
    repo.path().join(FILE_NAME)
}

/// A path the file can hold: one line, no leading or trailing space (the line's own
/// separators).
fn rememberable(path: &str) -> bool {
    !path.is_empty()
        && !path.contains(['\n', '\r'])
        && !path.starts_with(' ')
        && !path.ends_with(' ')
}

/// The file's entry lines for one commit, sorted by path, looked up by binary search.
#[derive(Default)]
struct Remembered {
    text: String,
    /// Byte ranges of the entry lines in `text` (without their line break).
    lines: Vec<(usize, usize)>,
}

impl Remembered {
    /// What the file at `at` holds for `commit`; None when there is no such file, it is not a
    /// plain file of at most [`MAX_FILE_BYTES`] in UTF-8, it is for another commit or format,
    /// a line of it does not parse, or its lines are not sorted by path with a line break
    /// after the last.
    fn read(at: &Path, commit: Oid) -> Option<Remembered> {
        use std::io::Read;
        let file = handover_handoff::safe_fs::open_read(at).ok()??;
        let len = file.metadata().ok()?.len();
        if len > MAX_FILE_BYTES {
            return None;
        }
        // Sized from the file's length: one read instead of a doubling buffer's dozen.
        let mut bytes = Vec::with_capacity(len as usize + 1);
        (&file)
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        Remembered::parse(String::from_utf8(bytes).ok()?, commit)
    }

    fn parse(text: String, commit: Oid) -> Option<Remembered> {
        let body = text.strip_suffix('\n')?;
        let mut at = 0;
        let mut lines = Vec::new();
        for line in body.split('\n') {
            lines.push((at, at + line.len()));
            at += line.len() + 1;
        }
        let mut head = lines.drain(..2.min(lines.len())).map(|(a, b)| &body[a..b]);
        if head.next()? != HEADER {
            return None;
        }
        let for_commit = head.next()?.strip_prefix("commit ")?;
        if for_commit.len() != commit.as_bytes().len() * 2
            || Oid::from_str(for_commit).ok()? != commit
        {
            return None;
        }
        drop(head);
        let remembered = Remembered { text, lines };
        let well_formed = remembered.lines().all(well_formed);
        let sorted = remembered
            .lines()
            .zip(remembered.lines().skip(1))
            .all(|(a, b)| path_of(a) < path_of(b));
        (well_formed && sorted && remembered.lines.len() <= MAX_ENTRIES).then_some(remembered)
    }

    fn lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().map(|&(a, b)| &self.text[a..b])
    }

    /// The entry remembered for `path`; None when the file does not hold it.
    fn get(&self, path: &str) -> Option<Entry> {
        let i = self
            .lines
            .binary_search_by(|&(a, b)| path_of(&self.text[a..b]).cmp(path))
            .ok()?;
        let (a, b) = self.lines[i];
        parse_line(&self.text[a..b])
    }
}

/// The path an entry line is about: `<mode> <id> <path>` or `- <path>` (absent from HEAD);
/// "" for a line of neither form. Called at every step of a lookup's binary search, so it
/// finds the path by position (the id is 40 or 64 digits) rather than by scanning.
fn path_of(line: &str) -> &str {
    if let Some(path) = line.strip_prefix("- ") {
        return path;
    }
    let Some(mode_end) = line.as_bytes().iter().take(7).position(|&b| b == b' ') else {
        return "";
    };
    [40, 64]
        .into_iter()
        .map(|id_len| mode_end + 1 + id_len)
        .find(|&id_end| line.as_bytes().get(id_end) == Some(&b' '))
        .and_then(|id_end| line.get(id_end + 1..))
        .unwrap_or("")
}

/// A line [`parse_line`] would read (checked without decoding the id: the file is read whole
/// at every call, the lines are parsed only when looked up).
fn well_formed(line: &str) -> bool {
    let path = path_of(line);
    if !rememberable(path) {
        return false;
    }
    if line.starts_with("- ") {
        return true;
    }
    let Some((mode, rest)) = line.split_once(' ') else {
        return false;
    };
    let id = &rest[..rest.len() - path.len() - 1];
    !mode.is_empty()
        && mode.bytes().all(|b| (b'0'..=b'7').contains(&b))
        && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn line_of(path: &str, entry: Entry) -> String {
    match entry {
        Some((id, mode)) => format!("{mode:o} {id} {path}"),
        None => format!("- {path}"),
    }
}

fn parse_line(line: &str) -> Option<Entry> {
    if line.starts_with("- ") {
        return Some(None);
    }
    let (mode, rest) = line.split_once(' ')?;
    let mode = i32::from_str_radix(mode, 8).ok()?;
    let path = path_of(line);
    // The id between: full length only (`Oid::from_str` would take a prefix and pad it).
    let id = rest.get(..rest.len().checked_sub(path.len() + 1)?)?;
    if path.is_empty() || (id.len() != 40 && id.len() != 64) {
        return None;
    }
    Some(Some((Oid::from_str(id).ok()?, mode)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit() -> Oid {
        Oid::from_str("0123456789abcdef0123456789abcdef01234567").unwrap()
    }

    #[test]
    fn reads_what_it_writes_and_nothing_else() {
        let blob = "89abcdef0123456789abcdef0123456789abcdef";
        let text = format!(
            "{HEADER}\ncommit {}\n- src/new.rs\n100644 {blob} src/z b.rs\n",
            commit()
        );
        let read = Remembered::parse(text.clone(), commit()).unwrap();
        assert_eq!(
            read.get("src/z b.rs"),
            Some(Some((Oid::from_str(blob).unwrap(), 0o100644)))
        );
        assert_eq!(read.get("src/new.rs"), Some(None));
        assert_eq!(read.get("src/other.rs"), None);

        let other = Oid::from_str("1123456789abcdef0123456789abcdef01234567").unwrap();
        assert!(
            Remembered::parse(text.clone(), other).is_none(),
            "another commit"
        );
        let parse = |t: String| Remembered::parse(t, commit());
        assert!(
            parse(text.replace(" 1\n", " 2\n")).is_none(),
            "another version"
        );
        assert!(parse(text.trim_end().to_string()).is_none(), "cut short");
        assert!(
            parse(format!("{text}- src/a.rs\n")).is_none(),
            "out of order: a binary search could miss a line"
        );
        assert!(
            parse(text.replace(blob, &blob[..12])).is_none(),
            "a short id"
        );
        assert!(
            parse(text.replace("100644", "10064x")).is_none(),
            "a bad mode"
        );
        assert!(
            parse(text.replace("- src/new.rs", "zzz")).is_none(),
            "a stray line"
        );
    }

    #[test]
    fn paths_that_cannot_be_one_line_are_not_remembered() {
        assert!(rememberable("src/a b.rs"));
        assert!(!rememberable("src/a\nb.rs"));
        assert!(!rememberable("src/a\rb.rs"));
        assert!(!rememberable(" lead"));
        assert!(!rememberable("trail "));
        assert!(!rememberable(""));
    }
}
