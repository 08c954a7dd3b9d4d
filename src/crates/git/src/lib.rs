//! handover-git: what git says about the working tree — its HEAD, the snapshot recorded in a
//! handoff, the files changed since a commit, whether a file came with the repository — read
//! from a repository handover does not trust.
//!
//! Stands on the handoff crate for the model it fills in (snapshot, file changes); the verdict
//! on a handoff (handover-verify) and everything above stand on it.
//!
//! Two ways in: `read_head_files` (and the store's `find_root`) are plain file reads (no libgit2, no index),
//! cheap enough for a hook that runs on every event; everything else opens the repository
//! with git2 and may scan the working tree.

use git2::{Delta, DiffFindOptions, DiffOptions, ErrorCode, Oid, Repository};
use handover_handoff::model::{ChangeKind, FileChange, GitSnapshot};
use std::path::{Path, PathBuf};

pub(crate) mod cli;
pub mod head;
pub mod head_entries;
pub mod history;
/// The hostile `.git` contents the integration tests write (FIFOs, bombs, a delta loop), for the
/// unit tests here too. Public in the test build, as the unit tests use only some of it.
#[cfg(test)]
#[cfg(unix)]
#[path = "../../../../tests/support/src/hostile_git.rs"]
pub mod hostile_git;
pub mod objects;
pub(crate) mod parsed;
pub mod plain;
pub mod preflight;
pub mod provenance;
#[cfg(test)]
mod scan_tests;
#[cfg(test)]
#[path = "../../../../tests/support/src/test_git.rs"]
pub mod test_git;
pub mod uncommitted;

/// handover's own files: writing a handoff must not make the repository look changed, so these
/// never count as dirty, untracked or changed.
pub fn is_handover_file(path: &str) -> bool {
    path == "handover.md" || path == ".handover" || path.starts_with(".handover/")
}

/// How many times this process loaded a repository's index through [`load_index`]: libgit2
/// reads and checksums the whole file (about 80 ms at 100,000 files), so a hook call should do
/// it at most once. The hooks' debug log reports it for the calls that scan the working tree.
static INDEX_LOADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// See [`INDEX_LOADS`].
pub fn index_loads() -> usize {
    INDEX_LOADS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The repository's index, counted ([`index_loads`]). Every index handover itself asks libgit2
/// for goes through here.
pub(crate) fn load_index(repo: &Repository) -> Result<git2::Index, git2::Error> {
    INDEX_LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    repo.index()
}

/// The repository was not read because of what it holds: a file under `.git` the
/// [`preflight`] refused, or an object too big or damaged to read ([`objects::Refusal`]). No
/// other reader (the git command line) is asked then: it would hang or load the same bytes.
pub fn refused(error: &anyhow::Error) -> bool {
    preflight::unreadable(error).is_some() || error.downcast_ref::<objects::Refusal>().is_some()
}

/// Where HEAD points, as recorded in a snapshot and compared by verification.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeadInfo {
    /// Branch short name (`main`), also for an unborn branch; None when detached.
    pub branch: Option<String>,
    pub detached: bool,
    /// Full commit id; None when the branch has no commits yet.
    pub head: Option<String>,
}

/// `.git` pointer files, HEAD, `commondir` and loose refs are a line each.
const SMALL_GIT_FILE: u64 = 64 * 1024;
/// packed-refs of the largest repositories are tens of MB; beyond this libgit2 answers.
const MAX_PACKED_REFS: u64 = 256 * 1024 * 1024;

/// A file of git's layout through the read gate: a regular file only (a `.git` that is a link
/// to `/dev/zero` or a FIFO in an unpacked tarball is refused, never read unbounded), at most
/// `cap` bytes. Missing: a `NotFound` error, as `fs::read_to_string` gives.
fn read_small(path: &Path, cap: u64) -> std::io::Result<String> {
    use handover_base::read_gate::{self, Links};
    read_gate::read_to_string(path, Links::Follow, cap)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
}

/// The `.git` file of a linked worktree or submodule (`gitdir: <path>`), through the read gate
/// like [`read_small`], and only when it is in `root` itself: a `.git` that is a link out of
/// the tree is not read here (libgit2 judges such a layout).
pub fn read_dot_git_file(root: &Path) -> std::io::Result<String> {
    use handover_base::read_gate::{self, Links};
    read_gate::read_to_string(&root.join(".git"), Links::Within(root), SMALL_GIT_FILE)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
}

/// HEAD and branch read straight from the files under `.git`, without libgit2: a handful of
/// small reads whatever the size of the repository. Handles linked worktrees (`.git` file,
/// `commondir`), loose and packed refs. Returns None whenever the layout is anything else
/// (reftable, an unexpected format, an unreadable file): callers then fall back to git2.
pub fn read_head_files(root: &Path) -> Option<HeadInfo> {
    let (git_dir, common_dir) = git_dirs_from_files(root)?;
    if common_dir.join("reftable").exists() {
        return None;
    }
    let head = read_small(&git_dir.join("HEAD"), SMALL_GIT_FILE).ok()?;
    let head = head.trim();
    if let Some(refname) = head.strip_prefix("ref:") {
        let refname = refname.trim();
        let branch = refname.strip_prefix("refs/heads/")?.to_string();
        let id = resolve_ref_files(&git_dir, &common_dir, refname, 0)?;
        Some(HeadInfo {
            branch: Some(branch),
            detached: false,
            head: id,
        })
    } else if is_object_id(head) {
        Some(HeadInfo {
            branch: None,
            detached: true,
            head: Some(head.to_string()),
        })
    } else {
        None
    }
}

/// Some(Some(id)) when the ref resolves, Some(None) when it does not exist (unborn branch),
/// None when something could not be read or understood.
fn resolve_ref_files(
    git_dir: &Path,
    common_dir: &Path,
    refname: &str,
    depth: u32,
) -> Option<Option<String>> {
    if depth > 5 || refname.contains("..") {
        return None;
    }
    // Branch refs live in the common directory; only a few refs are per worktree.
    let per_worktree = !refname.starts_with("refs/")
        || refname.starts_with("refs/worktree/")
        || refname.starts_with("refs/bisect/");
    let dir = if per_worktree { git_dir } else { common_dir };
    match read_small(&dir.join(refname), SMALL_GIT_FILE) {
        Ok(text) => {
            let text = text.trim();
            if let Some(next) = text.strip_prefix("ref:") {
                return resolve_ref_files(git_dir, common_dir, next.trim(), depth + 1);
            }
            return is_object_id(text).then(|| Some(text.to_string()));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    match read_small(&common_dir.join("packed-refs"), MAX_PACKED_REFS) {
        Ok(packed) => {
            for line in packed.lines() {
                if line.starts_with('#') || line.starts_with('^') {
                    continue;
                }
                if let Some((id, name)) = line.split_once(' ') {
                    if name.trim() == refname && is_object_id(id) {
                        return Some(Some(id.to_string()));
                    }
                }
            }
            Some(None)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    }
}

fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

thread_local! {
    /// How many times [`open`] ran on this thread: what lets a test prove that a hook call
    /// opens the repository once (an increment per open, which costs a hook call far less
    /// than the open itself).
    static OPENS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread opened a repository through [`open`] (tests compare it before
/// and after a call).
pub fn opens_on_this_thread() -> usize {
    OPENS.with(std::cell::Cell::get)
}

/// The repository containing `path`, Ok(None) when there is none. Its files under `.git`
/// are looked at first ([`preflight`]): a FIFO or an oversized file there is an error with a
/// [`preflight::Unreadable`] inside, and libgit2 is not asked at all. Every repository
/// handover opens with libgit2 is opened here.
pub fn open(path: &Path) -> anyhow::Result<Option<Repository>> {
    preflight::check(path)?;
    discover(path)
}

/// [`open`] after its preflight: only where that same look at `path` has just passed (a plain
/// layout, [`plain::read`], runs it), so that a repository is not looked at twice.
fn discover(path: &Path) -> anyhow::Result<Option<Repository>> {
    OPENS.with(|opens| opens.set(opens.get() + 1));
    match Repository::discover(path) {
        Ok(repo) => Ok(Some(repo)),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
        Err(e) => Err(anyhow::anyhow!(
            "cannot open the git repository at {}: {}",
            path.display(),
            e.message()
        )),
    }
}

/// The repository at a root, opened the first time something asks for it and then shared:
/// one hook call opens the repository at most once, and only when a check needs it.
pub struct LazyRepo<'a> {
    root: &'a Path,
    repo: std::cell::OnceCell<Result<Option<Repository>, String>>,
    /// The layout read without libgit2 ([`plain`]), read once; None inside: not plain.
    plain: std::cell::OnceCell<Option<plain::Plain>>,
    /// Whether [`LazyRepo::plain`] may answer (off only to compare with libgit2's answers).
    plain_allowed: bool,
}

impl<'a> LazyRepo<'a> {
    pub fn new(root: &'a Path) -> Self {
        LazyRepo {
            root,
            repo: std::cell::OnceCell::new(),
            plain: std::cell::OnceCell::new(),
            plain_allowed: true,
        }
    }

    /// A repository every question of which goes to libgit2, never to the plain layout's
    /// readers: what the verdict tests compare the plain answers with.
    pub fn libgit2_only(root: &'a Path) -> Self {
        LazyRepo {
            plain_allowed: false,
            ..LazyRepo::new(root)
        }
    }

    /// The repository at the root read without libgit2, when its layout is plain enough
    /// ([`plain::read`]); None: ask [`LazyRepo::get`].
    pub fn plain(&self) -> Option<&plain::Plain> {
        if !self.plain_allowed {
            return None;
        }
        self.plain.get_or_init(|| plain::read(self.root)).as_ref()
    }

    pub fn root(&self) -> &'a Path {
        self.root
    }

    /// None when the layout is plain ([`LazyRepo::plain`]: libgit2 is not asked now), else
    /// [`LazyRepo::get`]'s answer.
    pub fn get_unless_plain(&self) -> Option<Result<Option<&Repository>, String>> {
        match self.plain() {
            Some(_) => None,
            None => Some(self.get()),
        }
    }

    /// The repository, Ok(None) when `root` is in none, Err with git's message when it cannot
    /// be opened (the same answer every time).
    pub fn get(&self) -> Result<Option<&Repository>, String> {
        let root = self.root;
        match self.repo.get_or_init(|| {
            // Every object read here is hashed again by default, to check it against its id:
            // SHA-1 with collision detection over each tree on the way to a path (delta bases
            // included), most of a hook's time in a large repository. It protects nothing here:
            // whoever controls the repository decides what its objects say, checked or not, and
            // these reads only compare the working tree with them. Process-wide, and only ever
            // switched off: this is the read-only side (verification, session start).
            git2::opts::strict_hash_verification(false);
            // A plain layout passed the preflight when it was read, moments ago.
            let preflighted = matches!(self.plain.get(), Some(Some(_)));
            if preflighted {
                discover(root).map_err(|e| e.to_string())
            } else {
                open(root).map_err(|e| e.to_string())
            }
        }) {
            Ok(found) => Ok(found.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }
}

/// A repository already open, or one [`LazyRepo`] opens the first time something asks: what
/// a reader that needs libgit2 only now and then (`head_entries`, `uncommitted`) holds.
#[derive(Clone, Copy)]
pub enum RepoRef<'r> {
    Open(&'r Repository),
    Lazy(&'r LazyRepo<'r>),
}

impl<'r> RepoRef<'r> {
    /// The repository, opened now if it was not; None when it cannot be.
    pub fn get(self) -> Option<&'r Repository> {
        match self {
            RepoRef::Open(repo) => Some(repo),
            RepoRef::Lazy(lazy) => lazy.get().ok().flatten(),
        }
    }
}

/// Process-wide, for a process that scans a working tree ([`scan_working_tree`]) and then
/// ends (the PreCompact / SessionEnd hook, a turn's record): libgit2 keeps every tree object
/// it reads in its object cache, and a scan reads every tree of HEAD once (its HEAD→index
/// half), so at 100,000 files the cache held 7.4 MB of trees (raw and parsed, 1,000 trees)
/// that nothing reads again: about a quarter of the scan's 32 MiB peak. Without the cache a
/// lookup reads the object from the pack each time; lookups still work. Only ever switched
/// off, like `strict_hash_verification` in [`LazyRepo::get`]: the other process-wide setting.
pub fn no_object_cache() {
    git2::opts::enable_caching(false);
}

/// HEAD and branch through git2 (same answer as `read_head_files`, any repository layout).
pub fn head_info(repo: &Repository) -> anyhow::Result<HeadInfo> {
    let detached = repo.head_detached().unwrap_or(false);
    match repo.head() {
        Ok(reference) => {
            let branch = if reference.is_branch() {
                reference.shorthand().map(str::to_string)
            } else {
                None
            };
            let head = reference.target().map(|oid| oid.to_string());
            Ok(HeadInfo {
                branch,
                detached,
                head,
            })
        }
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            // Unborn: HEAD names a branch that has no commit yet.
            let branch = repo
                .find_reference("HEAD")
                .ok()
                .and_then(|r| r.symbolic_target().map(str::to_string))
                .and_then(|t| t.strip_prefix("refs/heads/").map(str::to_string));
            Ok(HeadInfo {
                branch,
                detached: false,
                head: None,
            })
        }
        Err(e) => Err(anyhow::anyhow!("cannot read HEAD: {}", e.message())),
    }
}

/// The snapshot of the repository at `root`, or Ok(None) if `root` is not in a git repository
/// (or in a bare one, which has no working tree to describe). Read with libgit2, or with the
/// `git` command line when libgit2 cannot read the repository (reftable, SHA-256).
pub fn snapshot(root: &Path) -> anyhow::Result<Option<GitSnapshot>> {
    snapshot_git2(root).or_else(|libgit2| {
        // A file libgit2 was not let near would stall `git` just the same.
        if refused(&libgit2) {
            return Err(libgit2);
        }
        cli::snapshot(root).map_err(|cli| {
            anyhow::anyhow!("{libgit2:#}; the git command line could not read it either: {cli:#}")
        })
    })
}

fn snapshot_git2(root: &Path) -> anyhow::Result<Option<GitSnapshot>> {
    let Some(repo) = open(root)? else {
        return Ok(None);
    };
    let Some(workdir) = repo.workdir() else {
        return Ok(None);
    };
    let root_bytes =
        handover_handoff::os_path::bytes_form(&workdir.components().collect::<PathBuf>());
    let workdir = workdir.to_string_lossy();
    let root = workdir
        .strip_suffix('/')
        .filter(|s| !s.is_empty())
        .unwrap_or(&workdir)
        .to_string();
    let head = head_info(&repo)?;
    let upstream = head.branch.as_ref().and_then(|b| upstream_of(&repo, b));
    let (dirty, untracked) = working_tree_status(&repo)?;
    Ok(Some(GitSnapshot {
        root,
        root_bytes,
        linked_worktree: repo.is_worktree(),
        branch: head.branch,
        detached: head.detached,
        head: head.head,
        upstream,
        dirty,
        untracked,
        dirty_omitted: 0,
        untracked_omitted: 0,
        uncommitted_on: None,
    }))
}

/// The configured upstream of a local branch, short form (`origin/main`), even if it was
/// never fetched.
fn upstream_of(repo: &Repository, branch: &str) -> Option<String> {
    let buf = repo
        .branch_upstream_name(&format!("refs/heads/{branch}"))
        .ok()?;
    let name = buf.as_str()?;
    let short = name
        .strip_prefix("refs/remotes/")
        .or_else(|| name.strip_prefix("refs/heads/"))
        .unwrap_or(name);
    Some(short.to_string())
}

/// Tracked files with staged or unstaged changes, and untracked non-ignored files, both
/// repo-relative and sorted, handover's own files left out. Scans the working tree.
pub fn working_tree_status(repo: &Repository) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let scan = scan_working_tree(repo, None, None)?;
    Ok((scan.dirty, scan.untracked))
}

/// What one pass over the working tree found: [`working_tree_status`]'s two lists and, when
/// asked, the files changed since a commit ([`files_changed`]'s answer for it) and the index's
/// paths under a directory ([`IndexedUnder`]).
pub struct WorkingTree {
    pub dirty: Vec<String>,
    pub untracked: Vec<String>,
    /// The changes since the commit given to [`scan_working_tree`] (None when none was given).
    pub changed_since: Option<anyhow::Result<Vec<FileChange>>>,
    /// The index's paths under the directory given to [`scan_working_tree`]; None when
    /// none was given or the scan's index cannot answer exactly (see [`IndexedUnder::read`]).
    pub indexed_under: Option<IndexedUnder>,
}

/// The paths the index holds (stage 0, as `Index::get_path(path, 0)` finds them) under one
/// directory of the working tree, taken from an index already loaded: the working-tree scan
/// loads and checksums the whole index anyway, and the record prune's question "which record
/// files does git track?" is a question about a few entries of it
/// (provenance::tracked_each), not worth a second load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexedUnder {
    /// The directory, relative to the top of the working tree.
    pub dir: PathBuf,
    /// The index's paths below it, relative to the top of the working tree.
    pub paths: std::collections::BTreeSet<PathBuf>,
    /// The index file as it was before it was loaded ([`IndexStamp`]): a later `git add` makes
    /// the answer stale ([`IndexedUnder::is_current`]).
    stamp: Option<IndexStamp>,
}

/// An index file's identity and last change, taken with one stat: a file rewritten since
/// (git writes a new index and renames it over the old) has another inode, time or size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexStamp {
    modified: std::time::SystemTime,
    len: u64,
    #[cfg(unix)]
    inode: u64,
}

impl IndexStamp {
    /// The repository's index file now; None when there is none (or it cannot be read).
    pub fn of(repo: &Repository) -> Option<IndexStamp> {
        let meta = std::fs::metadata(repo.path().join("index")).ok()?;
        Some(IndexStamp {
            modified: meta.modified().ok()?,
            len: meta.len(),
            #[cfg(unix)]
            inode: std::os::unix::fs::MetadataExt::ino(&meta),
        })
    }
}

impl IndexedUnder {
    /// The entries under `dir` (relative to the top of the working tree), found by prefix in
    /// the sorted index: a binary search, then only those entries. None when the answer could
    /// differ from `get_path`'s: a directory or an entry path that is not UTF-8, or an index
    /// compared without regard to case (`core.ignorecase`, where `get_path` finds other
    /// spellings of a path): then the caller asks the index itself.
    /// `stamp` is the index file's [`IndexStamp`] taken before `index` was loaded.
    pub fn read(
        repo: &Repository,
        index: &git2::Index,
        stamp: Option<IndexStamp>,
        dir: &Path,
    ) -> Option<IndexedUnder> {
        let ignore_case = repo
            .config()
            .ok()
            .and_then(|c| c.get_bool("core.ignorecase").ok())
            .unwrap_or(false);
        if ignore_case {
            return None;
        }
        let dir_text = dir.to_str()?.trim_end_matches('/');
        if dir_text.is_empty() || dir_text.contains('\\') {
            return None;
        }
        let prefix = format!("{dir_text}/");
        let mut paths = std::collections::BTreeSet::new();
        let start = match index.find_prefix(prefix.as_str()) {
            Ok(at) => at,
            Err(e) if e.code() == ErrorCode::NotFound => index.len(),
            Err(_) => return None,
        };
        for at in start..index.len() {
            let entry = index.get(at)?;
            if !entry.path.starts_with(prefix.as_bytes()) {
                break;
            }
            // The stage sits in bits 12 and 13 of the flags (libgit2's GIT_INDEX_ENTRY_STAGE).
            if (entry.flags >> 12) & 3 != 0 {
                continue;
            }
            paths.insert(PathBuf::from(String::from_utf8(entry.path).ok()?));
        }
        Some(IndexedUnder {
            dir: PathBuf::from(dir_text),
            paths,
            stamp,
        })
    }

    /// The index file is still the one this answer was read from (one stat): nothing was
    /// staged since. Otherwise the answer is not used.
    pub fn is_current(&self, repo: &Repository) -> bool {
        IndexStamp::of(repo) == self.stamp
    }

    /// The answer covers `in_repo` (a path relative to the top of the working tree).
    pub fn covers(&self, in_repo: &Path) -> bool {
        in_repo.starts_with(&self.dir) && in_repo != self.dir
    }

    /// The index holds `in_repo` (only meaningful where [`IndexedUnder::covers`] it).
    pub fn has(&self, in_repo: &Path) -> bool {
        self.paths.contains(in_repo)
    }
}

/// [`working_tree_status`], and with `since` (a commit id) also [`files_changed`] for that
/// commit, from ONE look at the working tree. Both questions are libgit2 diffs that share their
/// expensive half, the index against the working tree (a stat of every tracked file and a walk
/// for untracked ones): git's status is HEAD→index paired with index→working tree, and
/// `diff_tree_to_workdir_with_index` is the commit→index diff merged with the same
/// index→working tree diff. So that half is computed once, on the index loaded once, and only
/// the cheap tree→index halves are computed per question (one when `since` is HEAD).
/// A `since` the repository does not know falls back as [`files_changed`] does. With
/// `indexed_under` (a directory relative to the top of the working tree), also the index's paths
/// under it, read from the index loaded for the scan ([`IndexedUnder`]).
pub fn scan_working_tree(
    repo: &Repository,
    since: Option<&str>,
    indexed_under: Option<&Path>,
) -> anyhow::Result<WorkingTree> {
    let status_error =
        |e: git2::Error| anyhow::anyhow!("cannot read the working tree status: {}", e.message());
    // Before the load: a change after it shows as another stamp (IndexedUnder::is_current).
    let stamp = indexed_under.and_then(|_| IndexStamp::of(repo));
    let mut index = load_index(repo).map_err(status_error)?;
    // What git's status and the diffs do before they read it: the index again when the file
    // changed on disk since this repository loaded it.
    let _ = index.read(false);
    let head_commit = match repo.head() {
        Ok(reference) => {
            if let Some(id) = reference.target() {
                bounded_commit(repo, id)?;
            }
            Some(reference.peel_to_commit().map_err(status_error)?)
        }
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
        Err(e) => return Err(status_error(e)),
    };
    let head = match &head_commit {
        Some(commit) => Some(commit.tree().map_err(status_error)?),
        None => None,
    };
    let mut opts = scan_options();
    let to_workdir = repo
        .diff_index_to_workdir(Some(&index), Some(&mut opts))
        .map_err(status_error)?;
    let head_to_index = repo
        .diff_tree_to_index(head.as_ref(), Some(&index), Some(&mut opts))
        .map_err(status_error)?;
    let (dirty, untracked) = status_lists(&head_to_index, &to_workdir);
    let changed_since = since.map(|since| {
        let base = resolve_base(repo, Some(since));
        let same_as_head = base.is_some() && base == head_commit.as_ref().map(|c| c.id());
        let from_base = if same_as_head {
            Ok(head_to_index)
        } else {
            base_tree(repo, base).and_then(|tree| {
                repo.diff_tree_to_index(tree.as_ref(), Some(&index), Some(&mut opts))
                    .map_err(|e| compare_error(tree.as_ref().map(|t| t.id()), &e))
            })
        };
        from_base.and_then(|d| changes(d, &to_workdir, base))
    });
    let indexed_under = indexed_under.and_then(|dir| IndexedUnder::read(repo, &index, stamp, dir));
    Ok(WorkingTree {
        dirty,
        untracked,
        changed_since,
        indexed_under,
    })
}

/// The diff options both questions use, exactly git's status's (libgit2 `status.c`) and
/// [`files_changed`]'s: type changes, untracked files, untracked directories recursed into.
fn scan_options() -> DiffOptions {
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_typechange(true);
    opts
}

/// git's status from its two diffs, paired by path as libgit2's status pairs them: a path is
/// untracked when the only thing said of it is that the working tree has it and the index
/// does not (`WT_NEW` alone); dirty when anything else changed on either side (staged or not:
/// new, modified, deleted, type change, conflicted).
fn status_lists(head_to_index: &git2::Diff, to_workdir: &git2::Diff) -> (Vec<String>, Vec<String>) {
    use std::collections::BTreeMap;
    // Per path: (changed on the HEAD→index side, what the index→working tree side said).
    let mut paths: BTreeMap<Vec<u8>, (bool, Option<Delta>)> = BTreeMap::new();
    for delta in head_to_index.deltas() {
        let staged = matches!(
            delta.status(),
            Delta::Added
                | Delta::Copied
                | Delta::Deleted
                | Delta::Modified
                | Delta::Renamed
                | Delta::Typechange
                | Delta::Conflicted
        );
        if let Some(path) = delta_path(&delta).filter(|_| staged) {
            paths.entry(path.to_vec()).or_default().0 = true;
        }
    }
    for delta in to_workdir.deltas() {
        if let Some(path) = delta_path(&delta) {
            paths.entry(path.to_vec()).or_default().1 = Some(delta.status());
        }
    }
    let mut dirty = Vec::new();
    let mut untracked = Vec::new();
    for (path, (staged, in_workdir)) in paths {
        let path = String::from_utf8_lossy(&path).into_owned();
        if is_handover_file(&path) {
            continue;
        }
        let new_in_workdir = matches!(
            in_workdir,
            Some(Delta::Added | Delta::Copied | Delta::Untracked)
        );
        let changed_in_workdir = matches!(
            in_workdir,
            Some(
                Delta::Deleted
                    | Delta::Modified
                    | Delta::Renamed
                    | Delta::Typechange
                    | Delta::Conflicted
            )
        );
        if new_in_workdir && !staged {
            untracked.push(path);
        } else if staged || changed_in_workdir || new_in_workdir {
            dirty.push(path);
        }
    }
    (dirty, untracked)
}

/// The path git's status files a delta under: the new side's, else the old side's.
fn delta_path<'a>(delta: &git2::DiffDelta<'a>) -> Option<&'a [u8]> {
    delta
        .new_file()
        .path_bytes()
        .or_else(|| delta.old_file().path_bytes())
}

/// The default branch: `origin/HEAD`'s target, else local `main`, else `master`. Returns its
/// local short name and its commit.
fn default_branch(repo: &Repository) -> Option<(String, Oid)> {
    if let Ok(reference) = repo.find_reference("refs/remotes/origin/HEAD") {
        if let Some(target) = reference.symbolic_target() {
            if let Ok(oid) = repo.refname_to_id(target) {
                let name = target
                    .strip_prefix("refs/remotes/origin/")
                    .unwrap_or(target);
                return Some((name.to_string(), oid));
            }
        }
    }
    ["main", "master"].into_iter().find_map(|name| {
        repo.refname_to_id(&format!("refs/heads/{name}"))
            .ok()
            .map(|oid| (name.to_string(), oid))
    })
}

/// The commit `files_changed` compares against when it is given none (or one the repository
/// does not know): the merge base of HEAD with the default branch; HEAD itself on the default
/// branch, when there is no default branch, or when the histories are unrelated; None when
/// HEAD has no commits.
fn default_base(repo: &Repository) -> Option<Oid> {
    let head = repo.head().ok()?.target()?;
    let current = head_info(repo).ok().and_then(|h| h.branch);
    match default_branch(repo) {
        Some((name, _)) if current.as_deref() == Some(name.as_str()) => Some(head),
        Some((_, tip)) => Some(repo.merge_base(head, tip).unwrap_or(head)),
        None => Some(head),
    }
}

/// Files changed between `since` (a commit id; when None, the merge base of HEAD with the
/// default branch) and the working tree, including uncommitted and untracked files.
/// Returns the changes and the commit actually used as base (None when none was found).
pub fn files_changed(
    root: &Path,
    since: Option<&str>,
) -> anyhow::Result<(Vec<FileChange>, Option<String>)> {
    let Some(repo) = open(root)? else {
        return Ok((Vec::new(), None));
    };
    let base = resolve_base(&repo, since);
    let tree = base_tree(&repo, base)?;
    let compare = |e: git2::Error| compare_error(base, &e);
    let mut index = load_index(&repo).map_err(compare)?;
    let _ = index.read(false);
    let mut opts = scan_options();
    let from_base = repo
        .diff_tree_to_index(tree.as_ref(), Some(&index), Some(&mut opts))
        .map_err(compare)?;
    let to_workdir = repo
        .diff_index_to_workdir(Some(&index), Some(&mut opts))
        .map_err(compare)?;
    let changes = changes(from_base, &to_workdir, base)?;
    Ok((changes, base.map(|o| o.to_string())))
}

/// The commit `since` names, or when it names none the default base ([`default_base`]).
/// A commit id is looked at by the object reader before libgit2 resolves it, and so is HEAD
/// before the default base is computed from it: one too big or damaged is no base at all,
/// and the diff from it then fails on the same refusal ([`bounded_commit`] in `base_tree`).
fn resolve_base(repo: &Repository, since: Option<&str>) -> Option<Oid> {
    let refused = |id: Oid| bounded_commit(repo, id).is_err();
    if let Some(id) = since
        .and_then(|s| Oid::from_str(s).ok())
        .filter(|id| refused(*id))
    {
        return Some(id);
    }
    if since.is_none() {
        if let Some(head) = repo
            .head()
            .ok()
            .and_then(|h| h.target())
            .filter(|id| refused(*id))
        {
            return Some(head);
        }
    }
    let given = since
        .and_then(|s| repo.revparse_single(s).ok())
        .and_then(|o| o.peel_to_commit().ok())
        .map(|c| c.id());
    given.or_else(|| default_base(repo))
}

/// The tree of the base commit (None: the empty tree, when there is no base).
fn base_tree(repo: &Repository, base: Option<Oid>) -> anyhow::Result<Option<git2::Tree<'_>>> {
    let Some(oid) = base else {
        return Ok(None);
    };
    bounded_commit(repo, oid)?;
    repo.find_commit(oid)
        .and_then(|c| c.tree())
        .map(Some)
        .map_err(|e| anyhow::anyhow!("cannot read commit {oid}: {}", e.message()))
}

/// The commit `id` and its tree, looked at by the object reader before libgit2 reads them
/// whole: either one too big or damaged is an error with its [`objects::Refusal`] inside
/// (libgit2 has no cap of its own). Trees below the top one are libgit2's to read in a scan.
pub fn bounded_commit(repo: &Repository, id: Oid) -> anyhow::Result<()> {
    let Some(objects) = objects::Objects::of(repo) else {
        return Ok(());
    };
    if let Some(commit) = objects.commit(id)? {
        objects.look(commit.tree)?;
    }
    Ok(())
}

/// The size of object `id` as the object reader finds it, before libgit2 reads it or its
/// header (whose delta walk has no bound of its own): Ok(Some) its size (declared, for one
/// too big to read), Ok(None) when the reader leaves it to libgit2, an error with its
/// [`objects::Refusal`] inside when it is damaged.
pub fn object_size(repo: &Repository, id: Oid) -> anyhow::Result<Option<u64>> {
    let Some(objects) = objects::Objects::of(repo) else {
        return Ok(None);
    };
    match objects.look(id) {
        Ok(found) => Ok(found.map(|o| o.data.len() as u64)),
        Err(objects::Refusal::TooBig { size, .. }) => Ok(Some(size)),
        Err(damaged) => Err(damaged.into()),
    }
}

fn compare_error(base: Option<Oid>, e: &git2::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "cannot compare the working tree with {}: {}",
        base.map(|o| o.to_string())
            .unwrap_or_else(|| "the empty tree".into()),
        e.message()
    )
}

/// The changes from the base to the working tree: the base→index diff merged with the
/// index→working tree one (what libgit2's `diff_tree_to_workdir_with_index` does), renames
/// found, as [`FileChange`]s sorted by path, handover's own files left out.
fn changes<'r>(
    mut diff: git2::Diff<'r>,
    to_workdir: &git2::Diff<'r>,
    base: Option<Oid>,
) -> anyhow::Result<Vec<FileChange>> {
    diff.merge(to_workdir)
        .map_err(|e| compare_error(base, &e))?;
    let mut find = DiffFindOptions::new();
    find.renames(true).for_untracked(true);
    // Rename detection is a nicety: without it a rename shows as a deletion and an addition.
    let _ = diff.find_similar(Some(&mut find));
    let mut changes: Vec<FileChange> = Vec::new();
    for delta in diff.deltas() {
        let change = match delta.status() {
            Delta::Added | Delta::Untracked | Delta::Copied => ChangeKind::Added,
            Delta::Deleted => ChangeKind::Deleted,
            Delta::Modified | Delta::Conflicted => ChangeKind::Modified,
            Delta::Renamed => ChangeKind::Renamed,
            Delta::Typechange => ChangeKind::Typechange,
            _ => continue,
        };
        let Some(path) = delta.new_file().path().or_else(|| delta.old_file().path()) else {
            continue;
        };
        let path_bytes = handover_handoff::os_path::bytes_form(path);
        let path = path.to_string_lossy().into_owned();
        if is_handover_file(&path) {
            continue;
        }
        changes.push(FileChange {
            path,
            path_bytes,
            change,
        });
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes.dedup_by(|a, b| a.path == b.path);
    Ok(changes)
}

/// `root` as a path inside the repository's working directory ("" at its top).
pub fn root_in_repo(repo: &Repository, root: &Path) -> Option<PathBuf> {
    let top = repo.workdir().and_then(|w| std::fs::canonicalize(w).ok())?;
    let here = std::fs::canonicalize(root).ok()?;
    Some(here.strip_prefix(&top).ok()?.to_path_buf())
}

/// The repository's common directory (where shared refs and packed-refs live) for the working
/// tree at `root`, found with file reads only: `.git` itself, or for a linked worktree the
/// `gitdir:` its `.git` file names and that directory's `commondir`. None when the layout is
/// anything else.
pub fn common_dir_files(root: &Path) -> Option<PathBuf> {
    git_dirs_from_files(root).map(|(_, common_dir)| common_dir)
}

/// The git directory and the common directory of the working tree at `root`, with file reads
/// only: `.git` itself, or for a linked worktree the `gitdir:` its `.git` file names (read
/// through the read gate: a `.git` link to a device is not read), and that directory's
/// `commondir` (itself when it has none). None when the layout is anything else.
fn git_dirs_from_files(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else {
        let text = read_dot_git_file(root).ok()?;
        from_git_file(root, text.lines().next()?.strip_prefix("gitdir:")?)
    };
    let common_dir = match read_small(&git_dir.join("commondir"), SMALL_GIT_FILE) {
        Ok(text) => from_git_file(&git_dir, &text),
        Err(_) => git_dir.clone(),
    };
    Some((git_dir, common_dir))
}

/// The directory a git file (`.git`'s `gitdir:`, `commondir`) names by `text` (surrounding
/// white space trimmed): an absolute path as it is, a relative one from `base`.
pub(crate) fn from_git_file(base: &Path, text: &str) -> PathBuf {
    let named = Path::new(text.trim());
    if named.is_absolute() {
        named.to_path_buf()
    } else {
        base.join(named)
    }
}

/// Which of `paths` (relative to `root`, a directory with a trailing `/`) git does not ignore,
/// by git's own rules and precedence (`git check-ignore`); None when git cannot answer.
pub fn not_ignored<'p>(root: &Path, paths: &[&'p str]) -> Option<Vec<&'p str>> {
    // git reads the exclude file, the config and what it names as libgit2 does: a FIFO there
    // would hang it ([`preflight`]).
    preflight::check(root).ok()?;
    let ignored = cli::ignored(root, paths)?;
    Some(
        paths
            .iter()
            .copied()
            .filter(|p| !ignored.iter().any(|i| i == p))
            .collect(),
    )
}

/// A 40- or 64-digit hex object id.
pub fn looks_like_object_id(s: &str) -> bool {
    is_object_id(s)
}
