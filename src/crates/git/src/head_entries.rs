//! HEAD's tree entry for one path (its object id and mode), remembered per commit in the git
//! directory, so that a hook asking about the same paths again at the same HEAD reads no tree,
//! and the first hook after HEAD moves reads only the trees the move changed.
//!
//! Why: a path's entry costs one tree object per directory level, inflated and parsed whole.
//! A handoff listing files in 50 directories of a 100,000-file repository costs 50 trees of
//! 100 entries and one of 1,000 (about 10 M instructions, three quarters of such a session
//! start), against one small tree in a 10-file repository: the one cost of a session start
//! that still grew with the repository (docs/benchmarks.md).
//!
//! What is remembered is a fact about a commit: the entry at a path of commit C is the same
//! forever (objects never change under their id). At HEAD C the remembered entries answer as
//! they are. When HEAD has moved to another commit D, they are carried over where the trees
//! prove them unchanged: the file also holds the directories' entries (tree ids) along every
//! path and C's top tree, and an entry whose directory has the same tree id in D as in C is
//! the same entry in D. So D's top tree is compared first (the same tree: every entry
//! carries), then each directory on the way down whose id differs is read, and only those: a
//! commit that touched a few files costs the top tree and the directories it changed, not
//! every directory listed. The file is then rewritten for D with what was carried (or proved
//! unchanged by the directories this call compared) and what was read.
//!
//! They live in the repository's git directory (`<git dir>/handover-head-entries`, the
//! per-worktree one for a linked worktree), which is exactly as trusted as the objects they
//! were read from: whoever can write there can write the objects too. Never in `.handover/`,
//! which a cloned repository can forge.
//!
//! The file is a hint of our own making, kept small and read through the same gate as any
//! repository file: a plain file (no link followed), at most [`MAX_FILE_BYTES`]; another
//! format version, ids of another length than HEAD's, a line that does not parse or lines out
//! of order and the whole file is ignored (HEAD's trees are read, and the file is rewritten).
//! It is replaced whole (a temporary file and a rename, never written through a link), only
//! when a call looked up or carried over paths the file did not hold for HEAD's commit; a git
//! directory that cannot be written just means the trees are read each time.

use super::objects::Objects;
use super::parsed::{TreeEntries, MODE_TREE};
use crate::{LazyRepo, RepoRef};
use git2::{ErrorCode, Oid, Repository, Tree};
use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The file's name in the git directory.
pub const FILE_NAME: &str = "handover-head-entries";
/// Its first line: the format, versioned. 2: the commit's top tree, and the directories'
/// entries along every path (for carrying entries over when HEAD moves).
const HEADER: &str = "handover HEAD entries 2";
/// The most entries kept (a handoff lists at most a few hundred paths, a record a few dozen;
/// with the directories along them).
const MAX_ENTRIES: usize = 4096;
/// The largest file read (4096 entries of a long path each).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The trees a call keeps (their bytes) before it lets go of those used longest ago: a
/// handoff listing files in 50 directories of 100 entries under one of 1,000 reads 220 KB of
/// trees, of which only the one being looked into and their parent are still needed when the
/// paths come in order. Two 36 KB directories' worth.
const KEPT_TREE_BYTES: usize = 64 * 1024;

/// An entry of HEAD's tree: object id and mode. None: HEAD has nothing at the path.
pub type Entry = Option<(Oid, i32)>;

/// HEAD's entries for one hook call: what the git directory remembers (for HEAD's commit, or
/// for an earlier one whose unchanged directories carry over), and what this call looked up in
/// HEAD's trees (each tree read at most once per call).
pub struct HeadEntries<'r> {
    /// The repository, for what the object reader leaves to libgit2; opened only then when
    /// HEAD was read from a plain layout (`crate::plain`).
    repo: RepoRef<'r>,
    /// The git directory: where the remembered entries live.
    git_dir: PathBuf,
    /// Its common directory: where the objects are.
    common_dir: PathBuf,
    /// HEAD's commit; None when HEAD has no commit yet (nothing is in HEAD).
    commit: Option<Oid>,
    /// The id of HEAD's top tree, read from the commit when first needed.
    top_id: OnceCell<Result<Oid, ()>>,
    /// HEAD's top tree, read on the first path that neither the file nor a carry answered.
    top: OnceCell<Result<Dir<'r>, ()>>,
    /// HEAD's trees by directory (not the top), read once each.
    trees: RefCell<HashMap<String, Cached<'r>>>,
    /// Uses of `trees` so far: each entry remembers its last ([`Cached::used`]).
    uses: Cell<u64>,
    /// The object database read without libgit2's mappings, opened on the first tree read
    /// (None: a layout left to libgit2).
    objects: OnceCell<Option<Objects>>,
    /// What the git directory remembers, for HEAD's commit or another.
    remembered: Option<Remembered>,
    /// Entries this call found for HEAD's commit: read from HEAD's trees, or carried over from
    /// the remembered commit.
    looked_up: RefCell<HashMap<String, Entry>>,
    /// How many of them the last [`HeadEntries::remember`] wrote (checks sharing one
    /// `HeadEntries` may each call it; only new lookups are worth a write).
    written: Cell<usize>,
    /// Tree objects read by this call (the tests' measure of what a carry saved).
    trees_read: Cell<usize>,
}

impl<'r> HeadEntries<'r> {
    /// None when HEAD cannot be read (a commit that is missing is found out per path).
    pub fn new(repo: &'r Repository) -> Option<HeadEntries<'r>> {
        let commit = match repo.refname_to_id("HEAD") {
            Ok(id) => Some(id),
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
            Err(_) => return None,
        };
        Some(HeadEntries::at(
            RepoRef::Open(repo),
            repo.path().to_path_buf(),
            repo.commondir().to_path_buf(),
            commit,
        ))
    }

    /// HEAD's entries in the repository `lazy` stands for: from its plain layout's files when
    /// it has one (libgit2 opened only for what the object reader leaves to it), else as
    /// [`HeadEntries::new`] in the repository opened.
    pub fn of(lazy: &'r LazyRepo<'r>) -> Option<HeadEntries<'r>> {
        match lazy.plain() {
            Some(plain) => Some(HeadEntries::at(
                RepoRef::Lazy(lazy),
                plain.git_dir.clone(),
                plain.git_dir.clone(),
                plain.head_id,
            )),
            None => HeadEntries::new(lazy.get().ok().flatten()?),
        }
    }

    fn at(
        repo: RepoRef<'r>,
        git_dir: PathBuf,
        common_dir: PathBuf,
        commit: Option<Oid>,
    ) -> HeadEntries<'r> {
        let remembered =
            commit.and_then(|commit| Remembered::read(&git_dir.join(FILE_NAME), commit));
        HeadEntries {
            repo,
            git_dir,
            common_dir,
            commit,
            top_id: OnceCell::new(),
            top: OnceCell::new(),
            trees: RefCell::new(HashMap::new()),
            uses: Cell::new(0),
            objects: OnceCell::new(),
            remembered,
            looked_up: RefCell::new(HashMap::new()),
            written: Cell::new(0),
            trees_read: Cell::new(0),
        }
    }

    /// HEAD's entry at `path` (`/`-separated, relative to the top of the working tree). Err:
    /// a tree on the way could not be read.
    pub(crate) fn entry(&self, path: &str) -> Result<Entry, ()> {
        if self.commit.is_none() {
            return Ok(None);
        }
        if let Some(known) = self.for_head().and_then(|r| r.get(path)) {
            return Ok(known);
        }
        if let Some(known) = self.looked_up.borrow().get(path) {
            return Ok(*known);
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let found = match self.carried(path, dir)? {
            Some(carried) => carried,
            None => self.tree_at(dir)?.and_then(|tree| tree.get(name)),
        };
        self.looked_up.borrow_mut().insert(path.to_string(), found);
        Ok(found)
    }

    /// Writes what this call looked up or carried over to the git directory, for HEAD's
    /// commit, with what the file held that is still true of it: everything, when it was for
    /// HEAD's commit; when it was for another, the entries under a directory this call found
    /// unchanged (every one when the top tree is the same). Nothing when every answer came
    /// from the file as it is, or nothing was looked up since the last call. Best effort: a
    /// git directory that cannot be written is left as it is.
    pub fn remember(&self) {
        let Some(commit) = self.commit else {
            return;
        };
        let looked_up = self.looked_up.borrow();
        if looked_up.len() == self.written.get() {
            return;
        }
        self.written.set(looked_up.len());
        let top = match self.for_head() {
            Some(remembered) => remembered.tree,
            None => match self.top_id() {
                Ok(top) => top,
                Err(()) => return,
            },
        };
        let kept: Vec<(&str, &str)> = match &self.remembered {
            None => Vec::new(),
            Some(remembered) if remembered.commit == commit => remembered
                .lines()
                .filter(|(_, path)| !looked_up.contains_key(*path))
                .collect(),
            Some(remembered) => remembered
                .still_true(top, |path| self.known(path))
                .filter(|(_, path)| !looked_up.contains_key(*path))
                .collect(),
        };
        let mut lines: Vec<(&str, Cow<str>)> = kept
            .into_iter()
            .map(|(line, path)| (path, Cow::Borrowed(line)))
            .chain(
                looked_up
                    .iter()
                    .filter(|(path, _)| rememberable(path))
                    .map(|(path, entry)| (path.as_str(), Cow::Owned(line_of(path, *entry)))),
            )
            .collect();
        // Sorted, a directory comes before the paths under it (it is their prefix), so the
        // prefix kept below holds the directories along every path it holds.
        lines.sort_by(|a, b| a.0.cmp(b.0));
        lines.truncate(MAX_ENTRIES);
        let mut text = format!("{HEADER}\ncommit {commit}\ntree {top}\n");
        for (_, line) in lines {
            // A sorted prefix that a reader will take (very long paths could pass the cap).
            if (text.len() + line.len() + 1) as u64 > MAX_FILE_BYTES {
                break;
            }
            text.push_str(&line);
            text.push('\n');
        }
        let _ = handover_handoff::safe_fs::replace(
            &self.git_dir.join(FILE_NAME),
            text.as_bytes(),
            false,
        );
    }

    /// The bytes of the trees this call keeps.
    #[cfg(test)]
    fn kept_bytes(&self) -> usize {
        self.trees.borrow().values().map(Cached::bytes).sum()
    }

    /// Tree objects this call read.
    #[cfg(test)]
    fn trees_read(&self) -> usize {
        self.trees_read.get()
    }

    /// HEAD's entry at `path` if this call knows it without reading anything more: looked up,
    /// or in a tree it read.
    fn known(&self, path: &str) -> Option<Entry> {
        if let Some(found) = self.looked_up.borrow().get(path) {
            return Some(*found);
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let in_dir = |tree: &Dir| tree.get(name);
        if dir.is_empty() {
            return self.top.get()?.as_ref().ok().map(in_dir);
        }
        self.trees
            .borrow()
            .get(dir)
            .map(|cached| cached.dir.as_ref().and_then(in_dir))
    }

    /// The remembered entries when they are for HEAD's commit.
    fn for_head(&self) -> Option<&Remembered> {
        self.remembered
            .as_ref()
            .filter(|r| Some(r.commit) == self.commit)
    }

    /// The entry remembered for `path` (in directory `dir`) at another commit, when it is
    /// HEAD's too: the remembered commit's tree for `dir` is HEAD's (the top trees are the
    /// same, or `dir`'s entry in HEAD, found the same way or read, is the remembered one).
    /// None: nothing to carry, the trees are read.
    fn carried(&self, path: &str, dir: &str) -> Result<Option<Entry>, ()> {
        let Some(from) = self
            .remembered
            .as_ref()
            .filter(|r| Some(r.commit) != self.commit)
        else {
            return Ok(None);
        };
        let Some(known) = from.get(path) else {
            return Ok(None);
        };
        let same_dir = if dir.is_empty() {
            self.top_id()? == from.tree
        } else {
            match self.entry(dir)? {
                Some((id, MODE_TREE)) => from.get(dir) == Some(Some((id, MODE_TREE))),
                _ => false,
            }
        };
        Ok(same_dir.then_some(known))
    }

    /// The id of HEAD's top tree, from its commit (peeled as `Repository::head` would be:
    /// HEAD may name a tag of a commit).
    fn top_id(&self) -> Result<Oid, ()> {
        *self.top_id.get_or_init(|| {
            let commit = self.commit.ok_or(())?;
            // Too big or damaged: no entry can be told, and libgit2 is not asked.
            match self.objects().map(|o| o.commit(commit)) {
                Some(Ok(Some(fields))) => return Ok(fields.tree),
                Some(Err(_)) => return Err(()),
                Some(Ok(None)) | None => {}
            }
            self.repo
                .get()
                .ok_or(())?
                .find_object(commit, None)
                .and_then(|o| o.peel_to_commit())
                .map(|c| c.tree_id())
                .map_err(|_| ())
        })
    }

    /// HEAD's tree for directory `dir` ("" for the top), None when HEAD has no directory there.
    /// A directory's tree is found from its entry ([`HeadEntries::entry`]: remembered, carried
    /// over or read from its parent), so a known directory costs its own tree only.
    fn tree_at(&self, dir: &str) -> Result<Option<Dir<'r>>, ()> {
        if dir.is_empty() {
            let top = self.top.get_or_init(|| self.read_tree(self.top_id()?));
            return top.clone().map(Some);
        }
        let now = self.uses.get() + 1;
        self.uses.set(now);
        if let Some(cached) = self.trees.borrow_mut().get_mut(dir) {
            cached.used = now;
            return Ok(cached.dir.clone());
        }
        let tree = match self.entry(dir)? {
            Some((id, MODE_TREE)) => Some(self.read_tree(id)?),
            _ => None,
        };
        self.keep(dir, tree.clone(), now);
        Ok(tree)
    }

    /// Keeps `tree` for the rest of the call; when the trees kept hold more than
    /// [`KEPT_TREE_BYTES`], those used longest ago are let go (read again if asked again),
    /// unless entries may be carried over from another commit: then [`HeadEntries::known`]
    /// answers from every tree read, for the file's rewrite.
    fn keep(&self, dir: &str, tree: Option<Dir<'r>>, now: u64) {
        let mut trees = self.trees.borrow_mut();
        trees.insert(
            dir.to_string(),
            Cached {
                dir: tree,
                used: now,
            },
        );
        let carries = self
            .remembered
            .as_ref()
            .is_some_and(|r| Some(r.commit) != self.commit);
        if carries {
            return;
        }
        let mut kept: usize = trees.values().map(Cached::bytes).sum();
        while kept > KEPT_TREE_BYTES {
            let Some(oldest) = trees
                .iter()
                .filter(|(_, cached)| cached.used != now)
                .min_by_key(|(_, cached)| cached.used)
                .map(|(dir, _)| dir.clone())
            else {
                break;
            };
            kept -= trees.remove(&oldest).map_or(0, |c| c.bytes());
        }
    }

    /// The tree `id`: read here when the object database allows it, else by libgit2.
    fn read_tree(&self, id: Oid) -> Result<Dir<'r>, ()> {
        self.trees_read.set(self.trees_read.get() + 1);
        match self.objects().map(|o| o.tree(id)) {
            Some(Ok(Some(entries))) => return Ok(Dir::Read(Rc::new(entries))),
            Some(Err(_)) => return Err(()),
            Some(Ok(None)) | None => {}
        }
        let repo = self.repo.get().ok_or(())?;
        repo.find_tree(id).map(Dir::Git).map_err(|_| ())
    }

    /// The object database this call reads HEAD's trees from, opened on first use; shared
    /// with the verdict's HEAD check. None: a layout left to libgit2.
    pub fn objects(&self) -> Option<&Objects> {
        self.objects
            .get_or_init(|| Objects::in_common_dir(&self.common_dir))
            .as_ref()
    }
}

/// A directory's tree as [`HeadEntries`] keeps it for the rest of a call.
struct Cached<'r> {
    /// None: HEAD has no directory there.
    dir: Option<Dir<'r>>,
    /// When it was last asked for ([`HeadEntries::uses`]).
    used: u64,
}

impl Cached<'_> {
    /// The bytes it holds (libgit2's trees are its own to count).
    fn bytes(&self) -> usize {
        match &self.dir {
            Some(Dir::Read(entries)) => entries.bytes(),
            _ => 0,
        }
    }
}

/// A tree of HEAD's, read without libgit2 ([`super::objects`]) or, in a layout that reader
/// leaves to libgit2, by it: the same entries either way.
#[derive(Clone)]
enum Dir<'r> {
    Read(Rc<TreeEntries>),
    Git(Tree<'r>),
}

impl Dir<'_> {
    /// The entry named `name`: its id and mode.
    fn get(&self, name: &str) -> Entry {
        match self {
            Dir::Read(entries) => entries.get(name),
            Dir::Git(tree) => tree.get_name(name).map(|e| (e.id(), e.filemode())),
        }
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
struct Remembered {
    /// The commit the entries are of, and its top tree.
    commit: Oid,
    tree: Oid,
    text: String,
    /// The entry lines in `text`: where each starts, where its path starts, where it ends
    /// (before its line break). The path found once, when the file is read.
    lines: Vec<(usize, usize, usize)>,
}

impl Remembered {
    /// What the file at `at` holds; None when there is no such file, it is not a plain file
    /// of at most [`MAX_FILE_BYTES`] in UTF-8, it is of another format, its ids are not as
    /// long as `head`'s (another object format), a line of it does not parse, or its lines
    /// are not sorted by path with a line break after the last.
    fn read(at: &Path, head: Oid) -> Option<Remembered> {
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
        Remembered::parse(String::from_utf8(bytes).ok()?, head)
    }

    fn parse(text: String, head: Oid) -> Option<Remembered> {
        let body = text.strip_suffix('\n')?;
        let mut at = 0;
        let mut lines = Vec::new();
        for line in body.split('\n') {
            lines.push((at, at + line.len()));
            at += line.len() + 1;
        }
        if lines.len() < 3 {
            return None;
        }
        let mut header = lines.drain(..3).map(|(a, b)| &body[a..b]);
        if header.next()? != HEADER {
            return None;
        }
        // Full length only, of HEAD's object format (`Oid::from_str` would take a prefix).
        let id = |field: &str| {
            (field.len() == head.as_bytes().len() * 2)
                .then(|| Oid::from_str(field).ok())
                .flatten()
        };
        let commit = id(header.next()?.strip_prefix("commit ")?)?;
        let tree = id(header.next()?.strip_prefix("tree ")?)?;
        drop(header);
        if lines.len() > MAX_ENTRIES {
            return None;
        }
        let mut entries = Vec::with_capacity(lines.len());
        let mut last = "";
        for (a, b) in lines {
            let line = &body[a..b];
            let path = path_of(line);
            // Well formed, and sorted: a binary search could miss a line out of order.
            if !well_formed(line, path) || (!last.is_empty() && path <= last) {
                return None;
            }
            last = path;
            entries.push((a, b - path.len(), b));
        }
        Some(Remembered {
            commit,
            tree,
            text,
            lines: entries,
        })
    }

    /// Each entry line with its path.
    fn lines(&self) -> impl Iterator<Item = (&str, &str)> {
        self.lines
            .iter()
            .map(|&(a, p, b)| (&self.text[a..b], &self.text[p..b]))
    }

    /// The entry remembered for `path`; None when the file does not hold it.
    fn get(&self, path: &str) -> Option<Entry> {
        let i = self
            .lines
            .binary_search_by(|&(_, p, b)| self.text[p..b].cmp(path))
            .ok()?;
        let (a, p, b) = self.lines[i];
        parse_line(&self.text[a..b], &self.text[p..b])
    }

    /// The lines of another commit's file that are true of HEAD's commit too (whose top tree
    /// is `top`), as far as `now` (HEAD's entry at a path, when the caller knows it without
    /// reading) shows: every line when the top trees are the same; else a line whose entry
    /// `now` knows to be the same, or whose directory is such a line (a directory sorts before
    /// the paths under it). Lines under a directory not known to be the same are dropped:
    /// they could have changed.
    fn still_true<'s>(
        &'s self,
        top: Oid,
        now: impl Fn(&str) -> Option<Entry> + 's,
    ) -> impl Iterator<Item = (&'s str, &'s str)> + 's {
        let same_top = top == self.tree;
        let mut same_dirs: HashSet<&str> = HashSet::new();
        self.lines().filter(move |&(line, path)| {
            // Parsed only when compared: the file is read at every call, rewritten rarely.
            let same = same_top
                || path
                    .rsplit_once('/')
                    .is_some_and(|(dir, _)| same_dirs.contains(dir))
                || now(path).is_some_and(|now| parse_line(line, path) == Some(now));
            if same && line.starts_with(TREE_PREFIX) {
                same_dirs.insert(path);
            }
            same
        })
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
fn well_formed(line: &str, path: &str) -> bool {
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

/// The start of a directory's line (`MODE_TREE` in octal).
const TREE_PREFIX: &str = "40000 ";

/// `<mode in octal> <id in hex> <path>`, or `- <path>`: written out by hand, since a start
/// after HEAD moved writes a line for every path and directory it asked about.
fn line_of(path: &str, entry: Entry) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let Some((id, mode)) = entry else {
        return format!("- {path}");
    };
    let mut line = String::with_capacity(8 + 2 * id.as_bytes().len() + path.len());
    let mut digits = [0u8; 11];
    let mut n = digits.len();
    let mut rest = mode as u32;
    loop {
        n -= 1;
        digits[n] = b'0' + (rest & 7) as u8;
        rest >>= 3;
        if rest == 0 {
            break;
        }
    }
    line.extend(digits[n..].iter().map(|&d| d as char));
    line.push(' ');
    for byte in id.as_bytes() {
        line.push(HEX[(byte >> 4) as usize] as char);
        line.push(HEX[(byte & 15) as usize] as char);
    }
    line.push(' ');
    line.push_str(path);
    line
}

fn parse_line(line: &str, path: &str) -> Option<Entry> {
    if line.starts_with("- ") {
        return Some(None);
    }
    let (mode, rest) = line.split_once(' ')?;
    let mode = i32::from_str_radix(mode, 8).ok()?;
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

    const TREE: &str = "fedcba9876543210fedcba9876543210fedcba98";

    #[test]
    fn reads_what_it_writes_and_nothing_else() {
        let blob = "89abcdef0123456789abcdef0123456789abcdef";
        let text = format!(
            "{HEADER}\ncommit {}\ntree {TREE}\n- src/new.rs\n100644 {blob} src/z b.rs\n",
            commit()
        );
        let read = Remembered::parse(text.clone(), commit()).unwrap();
        assert_eq!(read.commit, commit());
        assert_eq!(read.tree, Oid::from_str(TREE).unwrap());
        assert_eq!(
            read.get("src/z b.rs"),
            Some(Some((Oid::from_str(blob).unwrap(), 0o100644)))
        );
        assert_eq!(read.get("src/new.rs"), Some(None));
        assert_eq!(read.get("src/other.rs"), None);

        // Another commit's file is read (its entries may carry over); the caller decides.
        let other = Oid::from_str("1123456789abcdef0123456789abcdef01234567").unwrap();
        assert_eq!(
            Remembered::parse(text.clone(), other).unwrap().commit,
            commit()
        );
        let parse = |t: String| Remembered::parse(t, commit());
        assert!(
            parse(text.replace(" 2\n", " 1\n")).is_none(),
            "the format before (no tree, no directories)"
        );
        assert!(
            parse(text.replace(&format!("tree {TREE}\n"), "")).is_none(),
            "no tree line"
        );
        assert!(
            parse(text.replace(TREE, &TREE[..12])).is_none(),
            "a short tree id"
        );
        let sha256 = "ab".repeat(32);
        assert!(
            parse(text.replace(&commit().to_string(), &sha256)).is_none(),
            "ids of another object format than HEAD's"
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
    fn lines_written_by_hand_read_back() {
        let id = Oid::from_str("89abcdef0123456789abcdef0123456789abcdef").unwrap();
        for mode in [0o100644, 0o100755, 0o120000, MODE_TREE, 0o160000] {
            let line = line_of("src/a b.rs", Some((id, mode)));
            assert_eq!(line, format!("{mode:o} {id} src/a b.rs"));
            assert_eq!(parse_line(&line, path_of(&line)), Some(Some((id, mode))));
        }
        assert!(line_of("d", Some((id, MODE_TREE))).starts_with(TREE_PREFIX));
        let absent = line_of("src/new.rs", None);
        assert_eq!(parse_line(&absent, path_of(&absent)), Some(None));
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

    /// HEAD moving under remembered entries, on real repositories: every answer is checked
    /// against HEAD's tree read directly, and the trees a call read are counted.
    mod head_moves {
        use super::super::*;
        use crate::test_git::{git, temp_repo};
        use tempfile::TempDir;

        fn write(dir: &Path, path: &str, text: &str) {
            let at = dir.join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text).unwrap();
        }

        fn commit(dir: &Path) {
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "--allow-empty", "-m", "c"]);
        }

        /// A repository with `files` committed.
        fn repo(files: &[(&str, &str)]) -> TempDir {
            let dir = temp_repo();
            for (path, text) in files {
                write(dir.path(), path, text);
            }
            commit(dir.path());
            dir
        }

        /// HEAD's entry at `path`, read from HEAD's tree directly (the reference).
        fn truth(repo: &Repository, path: &str) -> Entry {
            let tree = repo.head().unwrap().peel_to_tree().unwrap();
            tree.get_path(Path::new(path))
                .ok()
                .map(|e| (e.id(), e.filemode()))
        }

        /// Asks `paths` as one hook call does (and remembers); checks every answer against
        /// HEAD's tree; returns how many trees the call read.
        fn ask(dir: &Path, paths: &[&str]) -> usize {
            let repo = Repository::open(dir).unwrap();
            let head = HeadEntries::new(&repo).unwrap();
            for path in paths {
                assert_eq!(head.entry(path), Ok(truth(&repo, path)), "{path}");
            }
            head.remember();
            head.trees_read()
        }

        fn file(dir: &Path) -> String {
            std::fs::read_to_string(dir.join(".git").join(FILE_NAME)).unwrap()
        }

        fn head(dir: &Path) -> String {
            Repository::open(dir)
                .unwrap()
                .refname_to_id("HEAD")
                .unwrap()
                .to_string()
        }

        const LISTED: [&str; 4] = ["a/x.rs", "b/y.rs", "c/deep/z.rs", "c/new.rs"];

        fn abc() -> TempDir {
            repo(&[
                ("a/x.rs", "x\n"),
                ("b/y.rs", "y\n"),
                ("c/deep/z.rs", "z\n"),
                ("other/o.rs", "o\n"),
            ])
        }

        #[test]
        fn at_the_same_head_no_tree_is_read() {
            let dir = abc();
            // top, a, b, c, c/deep.
            assert_eq!(ask(dir.path(), &LISTED), 5);
            assert_eq!(ask(dir.path(), &LISTED), 0);
            // The directories along the paths are remembered with them.
            let text = file(dir.path());
            for line in ["40000 ", " a\n", " c/deep\n", "- c/new.rs\n"] {
                assert!(text.contains(line), "{line:?} in {text}");
            }
        }

        /// Directories whose trees together pass what a call keeps: 12 of 300 entries (about
        /// 11 KB each) under one of 40.
        fn wide() -> (TempDir, Vec<String>) {
            let dir = temp_repo();
            for d in 0..40 {
                let files = if d < 12 { 300 } else { 1 };
                for f in 0..files {
                    write(
                        dir.path(),
                        &format!("src/d{d:02}/file-{f:04}.rs"),
                        &format!("{d} {f}\n"),
                    );
                }
            }
            commit(dir.path());
            let listed = (0..12)
                .flat_map(|d| {
                    [
                        format!("src/d{d:02}/file-0007.rs"),
                        format!("src/d{d:02}/file-0123.rs"),
                    ]
                })
                .collect();
            (dir, listed)
        }

        #[test]
        fn paths_in_order_read_each_tree_once_while_few_are_kept() {
            let (dir, listed) = wide();
            let repo = Repository::open(dir.path()).unwrap();
            let head = HeadEntries::new(&repo).unwrap();
            let mut most = 0;
            for path in &listed {
                assert_eq!(head.entry(path), Ok(truth(&repo, path)), "{path}");
                most = most.max(head.kept_bytes());
            }
            // The top, src/ and the twelve: each read once.
            assert_eq!(head.trees_read(), 14);
            assert!(most <= KEPT_TREE_BYTES + 12 * 1024, "{most} bytes kept");
            assert!(head.kept_bytes() < 12 * 11 * 1024);
            head.remember();
            // All remembered: nothing is read at the next start.
            assert_eq!(
                ask(
                    dir.path(),
                    &listed.iter().map(String::as_str).collect::<Vec<_>>()
                ),
                0
            );
        }

        #[test]
        fn paths_out_of_order_are_answered_the_same_reading_trees_again() {
            let (dir, mut listed) = wide();
            listed.sort_by_key(|p| p.rsplit('-').next().map(str::to_string));
            let paths: Vec<&str> = listed.iter().map(String::as_str).collect();
            // d00..d11 for file-0007, then again for file-0123: the first ones let go.
            assert!(ask(dir.path(), &paths) > 14);
        }

        #[test]
        fn every_tree_is_kept_while_entries_may_carry_over() {
            let (dir, listed) = wide();
            let paths: Vec<&str> = listed.iter().map(String::as_str).collect();
            ask(dir.path(), &paths);
            for d in 0..8 {
                write(
                    dir.path(),
                    &format!("src/d{d:02}/file-0007.rs"),
                    "changed\n",
                );
            }
            commit(dir.path());
            let repo = Repository::open(dir.path()).unwrap();
            let head = HeadEntries::new(&repo).unwrap();
            for path in &paths {
                assert_eq!(head.entry(path), Ok(truth(&repo, path)), "{path}");
            }
            // Top, src/ and the eight changed read; none let go (the rewrite may ask them).
            assert_eq!(head.trees_read(), 10);
            assert!(head.kept_bytes() > KEPT_TREE_BYTES);
        }

        /// [`abc`] with the listed paths asked (and remembered), then `path` changed in a new
        /// commit: the file still holds what the first call remembered.
        fn abc_asked_then_changed(path: &str) -> TempDir {
            let dir = abc();
            ask(dir.path(), &LISTED);
            write(dir.path(), path, "changed\n");
            commit(dir.path());
            dir
        }

        #[test]
        fn a_commit_touching_a_listed_file_reads_its_directory_again() {
            let dir = abc_asked_then_changed("a/x.rs");
            let before = file(dir.path());
            // The top tree and a/ (changed); b/, c/ and c/deep/ carried over.
            assert_eq!(ask(dir.path(), &LISTED), 2);
            let after = file(dir.path());
            assert!(after.contains(&format!("commit {}\n", head(dir.path()))));
            assert_ne!(
                before.lines().find(|l| l.ends_with(" a/x.rs")),
                after.lines().find(|l| l.ends_with(" a/x.rs")),
                "a/x.rs re-read: {after}"
            );
            assert_eq!(ask(dir.path(), &LISTED), 0, "rewritten for the new commit");
        }

        #[test]
        fn a_commit_elsewhere_carries_every_entry() {
            let dir = abc_asked_then_changed("other/o.rs");
            assert_eq!(ask(dir.path(), &LISTED), 1, "the top tree only");
            // A commit whose tree is the same (empty, amended message, another branch at the
            // same tree): nothing read at all.
            commit(dir.path());
            assert_eq!(ask(dir.path(), &LISTED), 0);
            git(
                dir.path(),
                &["commit", "-q", "--amend", "--allow-empty", "-m", "reworded"],
            );
            assert_eq!(ask(dir.path(), &LISTED), 0);
        }

        #[test]
        fn a_deeper_change_reads_only_the_changed_directories() {
            let dir = abc_asked_then_changed("c/deep/z.rs");
            // top, c, c/deep; a/ and b/ carried, c/new.rs re-read from c.
            assert_eq!(ask(dir.path(), &LISTED), 3);
            // A new file in c/ (c/new.rs, listed as absent before) now committed.
            write(dir.path(), "c/new.rs", "new\n");
            commit(dir.path());
            assert_eq!(ask(dir.path(), &LISTED), 2, "top and c; c/deep carried");
        }

        #[test]
        fn entries_not_asked_again_are_kept_while_provably_the_same() {
            let dir = abc_asked_then_changed("c/deep/z.rs");
            // Asks a/x.rs only: the top tree read shows b/ unchanged (kept with b/y.rs) and
            // c/ changed (c/ and everything under it dropped).
            assert_eq!(ask(dir.path(), &["a/x.rs"]), 1);
            let text = file(dir.path());
            assert!(text.contains(" b/y.rs\n"), "{text}");
            assert!(!text.contains(" c/"), "{text}");
            assert!(!text.contains(" c\n"), "{text}");
            assert_eq!(ask(dir.path(), &["a/x.rs", "b/y.rs"]), 0);
            // c/ was not kept: the top tree, c and c/deep are read again.
            assert_eq!(ask(dir.path(), &LISTED), 3);
        }

        #[test]
        fn a_directory_replaced_by_a_file_and_back() {
            let dir = abc();
            let paths = ["a", "a/x.rs", "b/y.rs"];
            ask(dir.path(), &paths);
            std::fs::remove_dir_all(dir.path().join("a")).unwrap();
            write(dir.path(), "a", "now a file\n");
            commit(dir.path());
            ask(dir.path(), &paths);
            assert!(file(dir.path()).contains("- a/x.rs\n"));
            std::fs::remove_file(dir.path().join("a")).unwrap();
            write(dir.path(), "a/x.rs", "x\n");
            commit(dir.path());
            // a/ has the first commit's tree id again, but what is remembered is of the
            // commit where a was a file: a/x.rs is read, not carried as absent.
            assert_eq!(ask(dir.path(), &paths), 2);
            assert!(!file(dir.path()).contains("- a/x.rs\n"));
        }

        #[test]
        fn a_rename_of_a_file_and_of_a_directory() {
            let dir = abc();
            let paths = ["a/x.rs", "a/moved.rs", "b/y.rs", "d/y.rs"];
            ask(dir.path(), &paths);
            git(dir.path(), &["mv", "a/x.rs", "a/moved.rs"]);
            commit(dir.path());
            assert_eq!(ask(dir.path(), &paths), 2, "top and a; b carried");
            git(dir.path(), &["mv", "b", "d"]);
            commit(dir.path());
            // d/ is the tree b/ was, but under another name: read, not carried.
            assert_eq!(ask(dir.path(), &paths), 2, "top and d");
        }

        #[test]
        fn a_checkout_of_an_unrelated_history_and_back() {
            let dir = abc();
            ask(dir.path(), &LISTED);
            let first = head(dir.path());
            git(dir.path(), &["checkout", "-q", "--orphan", "other"]);
            git(dir.path(), &["rm", "-rqf", "."]);
            write(dir.path(), "b/y.rs", "another y\n");
            commit(dir.path());
            ask(dir.path(), &LISTED);
            git(dir.path(), &["checkout", "-q", "-f", &first]);
            ask(dir.path(), &LISTED);
        }

        #[test]
        fn an_old_format_or_broken_file_is_ignored_and_rewritten() {
            let dir = abc();
            let repo = Repository::open(dir.path()).unwrap();
            let top = repo.head().unwrap().peel_to_tree().unwrap().id();
            let forged_id = "0123456789abcdef0123456789abcdef01234567";
            let at = dir.path().join(".git").join(FILE_NAME);
            let h = head(dir.path());
            for junk in [
                // The format before: no tree line, no directories.
                format!("handover HEAD entries 1\ncommit {h}\n100644 {forged_id} a/x.rs\n"),
                format!("{HEADER}\ncommit {h}\n100644 {forged_id} a/x.rs\n"),
                format!("{HEADER}\ncommit {h}\ntree {top}\n100644 {forged_id} a/x.rs\nzzz\n"),
                format!(
                    "{HEADER}\ncommit {h}\ntree {}\n- a/x.rs\n",
                    &top.to_string()[..20]
                ),
                format!("{HEADER}\ncommit {h}\ntree {top}\n- b/y.rs\n- a/x.rs\n"),
            ] {
                std::fs::write(&at, &junk).unwrap();
                assert!(ask(dir.path(), &LISTED) > 0, "{junk}");
                assert!(
                    file(dir.path()).starts_with(&format!("{HEADER}\n")),
                    "{junk}"
                );
            }
        }

        #[cfg(unix)]
        #[test]
        fn a_link_in_the_files_place_is_not_followed() {
            let dir = abc();
            let outside = tempfile::tempdir().unwrap();
            let target = outside.path().join("target");
            let repo = Repository::open(dir.path()).unwrap();
            let top = repo.head().unwrap().peel_to_tree().unwrap().id();
            let forged = format!(
                "{HEADER}\ncommit {}\ntree {top}\n- a/x.rs\n",
                head(dir.path())
            );
            std::fs::write(&target, &forged).unwrap();
            std::os::unix::fs::symlink(&target, dir.path().join(".git").join(FILE_NAME)).unwrap();
            // Read, a/x.rs would be absent: `ask` checks it is HEAD's entry.
            assert!(ask(dir.path(), &LISTED) > 0);
            assert_eq!(std::fs::read_to_string(&target).unwrap(), forged);
        }
    }
}
