//! Whether a file under the working tree came with the repository (a clone, a pull, a
//! checkout, a commit) rather than from a session here: the one rule behind a `foreign`
//! handoff, and the one session records use.
//!
//! The rule asks git, the way git itself would answer, never by hashing the raw bytes: a clone
//! with `core.autocrlf=true` or a `.gitattributes` `eol=crlf` checks the committed file out with
//! other line endings, so its bytes differ from the blob while it is still exactly what was
//! committed. So:
//! - **tracked** means HEAD's tree or the index holds the path at all (a session never makes
//!   git track its files: `.handover/` is ignored unless someone adds it);
//! - **unchanged since HEAD** means git's own status of the path (through the index's stat
//!   cache and git's line-ending and ident filters) shows no change, or the bytes equal the
//!   blob's once carriage returns are dropped from both (handover's JSON never holds a raw CR,
//!   so this undoes any line-ending conversion).
//!
//! No field of the file is consulted: what a file says about itself (`git.root`, `git: null`)
//! proves nothing about where it came from.

use crate::head_entries::HeadEntries;
use crate::{LazyRepo, RepoRef};
use anyhow::Context;
use git2::{Repository, Status};
use std::path::{Path, PathBuf};

/// How git holds one path of the working tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tracked {
    /// HEAD's tree has the path.
    pub in_head: bool,
    /// The index has the path (staged, or checked out with the rest of the tree).
    pub in_index: bool,
    /// In HEAD, and the working file is what HEAD holds (as git compares it, see the module
    /// documentation).
    pub unchanged_since_head: bool,
}

impl Tracked {
    /// git tracks the path at all: such a file is not one handover wrote for this tree alone.
    pub fn is_tracked(&self) -> bool {
        self.in_head || self.in_index
    }
}

/// The largest file compared byte for byte (the store's limit for state.json).
const MAX_COMPARED_BYTES: u64 = handover_handoff::store::MAX_STATE_BYTES;

/// How git holds `root/rel` (`rel` relative to `root`, which may be below the top of the
/// working tree). Not in a repository, or nothing git can tell: untracked (`Tracked::default`).
pub fn tracking(root: &Path, rel: &Path) -> Tracked {
    match crate::open(root) {
        Ok(Some(repo)) => tracking_git2(&repo, root, rel).unwrap_or_default(),
        Ok(None) => Tracked::default(),
        // A file under .git handover refuses: `git` would hang on it too.
        Err(e) if crate::refused(&e) => Tracked::default(),
        // libgit2 cannot read it (reftable, SHA-256): ask the git command line.
        Err(_) => tracking_cli(root, rel).unwrap_or_default(),
    }
}

/// [`Tracked::is_tracked`] for several paths under `root`, with the repository opened once and
/// the index read at most once (the record prune asks about every record file; one
/// [`tracking`] each opened the repository and parsed the whole index for each of them).
///
/// `known`: the index's paths under a directory, when the caller's working-tree scan read them
/// from the index it loaded (crate::IndexedUnder). A path it covers is answered from it, so the
/// index is not loaded a second time; HEAD is asked as before. A path it does not cover (or no
/// `known`) is answered by the index, loaded at most once.
pub fn tracked_each(root: &Path, rels: &[&Path], known: Option<&crate::IndexedUnder>) -> Vec<bool> {
    match crate::open(root) {
        Ok(Some(repo)) => {
            // Staged since the scan read it: the index answers instead.
            let known = known.filter(|k| k.is_current(&repo));
            let mut index: Option<Option<git2::Index>> = None;
            let head = HeadEntries::new(&repo);
            let tracked = rels
                .iter()
                .map(|rel| {
                    let Some(in_tree) = path_in_repository(&repo, root, rel) else {
                        return false;
                    };
                    if head
                        .as_ref()
                        .is_some_and(|head| head_blob(head, &in_tree).is_some())
                    {
                        return true;
                    }
                    if let Some(known) = known.filter(|k| k.covers(&in_tree)) {
                        return known.has(&in_tree);
                    }
                    index
                        .get_or_insert_with(|| crate::load_index(&repo).ok())
                        .as_ref()
                        .is_some_and(|index| index.get_path(&in_tree, 0).is_some())
                })
                .collect();
            if let Some(head) = head {
                head.remember();
            }
            tracked
        }
        Ok(None) => vec![false; rels.len()],
        // A file under .git handover refuses (`git` would hang on it too): nothing can be
        // told, so every path counts as tracked (what the record prune keeps).
        Err(e) if crate::refused(&e) => vec![true; rels.len()],
        Err(_) => rels
            .iter()
            .map(|rel| tracking_cli(root, rel).unwrap_or_default().is_tracked())
            .collect(),
    }
}

/// The file is the one HEAD holds: it came with the repository. The `foreign` rule for a
/// handoff.
pub fn came_with_repository(root: &Path, rel: &Path) -> bool {
    tracking(root, rel).unchanged_since_head
}

/// [`came_with_repository`] in a repository already open (the SessionStart hook's one). Reads
/// HEAD's tree entry and hashes the file; never the index unless the file is in HEAD and its
/// bytes differ (then git's own status of that one path decides), so a start costs the same
/// in a repository of 100,000 files as in one of 10.
pub fn came_with_repository_in(repo: &Repository, root: &Path, rel: &Path) -> bool {
    let Some(head) = HeadEntries::new(repo) else {
        return false;
    };
    let came = came_with_repository_with(repo, &head, root, rel);
    head.remember();
    came
}

/// [`came_with_repository_in`] with HEAD's entries the caller shares between its checks (it
/// remembers them).
pub fn came_with_repository_with(
    repo: &Repository,
    head: &HeadEntries,
    root: &Path,
    rel: &Path,
) -> bool {
    let Some(in_tree) = path_in_repository(repo, root, rel) else {
        return false;
    };
    head_blob(head, &in_tree)
        .is_some_and(|blob_id| unchanged(RepoRef::Open(repo), root, rel, &in_tree, blob_id))
}

/// [`came_with_repository_with`] in the repository `lazy` stands for: with a plain layout
/// (`crate::plain`, whose root is the top of the working tree) libgit2 is opened only when the
/// file is in HEAD and its bytes differ from HEAD's (git's own status then decides).
pub fn came_with_repository_of(lazy: &LazyRepo, head: &HeadEntries, rel: &Path) -> bool {
    if lazy.plain().is_none() {
        return match lazy.get() {
            Ok(Some(repo)) => came_with_repository_with(repo, head, lazy.root(), rel),
            _ => false,
        };
    }
    head_blob(head, rel)
        .is_some_and(|blob_id| unchanged(RepoRef::Lazy(lazy), lazy.root(), rel, rel, blob_id))
}

/// HEAD's entries for the path questions of one caller about paths under `root` (the record
/// judge asks about every record it judges): the remembered-entries file is read once, each of
/// HEAD's trees at most once, and what was looked up is written back once, when it is dropped.
pub struct InHead<'r> {
    repo: &'r Repository,
    root: &'r Path,
    /// None when HEAD cannot be read: then nothing is in HEAD.
    head: Option<HeadEntries<'r>>,
    /// `root` relative to the top of the working tree (both canonicalized once); None when it
    /// is not inside it.
    prefix: std::cell::OnceCell<Option<PathBuf>>,
}

impl<'r> InHead<'r> {
    /// Reads the remembered entries for HEAD's commit now (one small file).
    pub fn new(repo: &'r Repository, root: &'r Path) -> InHead<'r> {
        InHead {
            repo,
            root,
            head: HeadEntries::new(repo),
            prefix: std::cell::OnceCell::new(),
        }
    }

    /// `rel` (relative to `root`) is a path in HEAD's tree, whatever its content: what a
    /// clone brought. A few object reads, whatever the size of the repository, and none when
    /// the git directory remembers the entry for HEAD's commit (`crate::head_entries`).
    pub fn has(&self, rel: &Path) -> bool {
        self.prefix
            .get_or_init(|| crate::root_in_repo(self.repo, self.root))
            .as_ref()
            .is_some_and(|prefix| self.has_in_repo(&prefix.join(rel)))
    }

    fn has_in_repo(&self, in_repo: &Path) -> bool {
        let Some(path) = in_repo
            .to_str()
            .filter(|p| !cfg!(windows) || !p.contains('\\'))
        else {
            return self
                .repo
                .head()
                .and_then(|h| h.peel_to_tree())
                .is_ok_and(|tree| tree.get_path(in_repo).is_ok());
        };
        self.head
            .as_ref()
            .is_some_and(|head| head.entry(path).is_ok_and(|entry| entry.is_some()))
    }

    /// `rel` is the file HEAD holds: [`came_with_repository_in`] with the shared entries.
    pub fn came_with_repository(&self, rel: &Path) -> bool {
        self.head
            .as_ref()
            .is_some_and(|head| came_with_repository_with(self.repo, head, self.root, rel))
    }
}

impl Drop for InHead<'_> {
    fn drop(&mut self) {
        if let Some(head) = &self.head {
            head.remember();
        }
    }
}

/// HEAD's entry at `in_tree` (any kind: file, link, directory), through `crate::head_entries`:
/// no tree is read when the git directory remembers it for HEAD's commit.
fn head_blob(head: &HeadEntries, in_tree: &Path) -> Option<git2::Oid> {
    let path = in_tree.to_str()?;
    if cfg!(windows) && path.contains('\\') {
        return head_blob(head, Path::new(&path.replace('\\', "/")));
    }
    head.entry(path).ok()?.map(|(id, _)| id)
}

/// `rel` as a path from the top of the working tree, `/`-separated as git stores it.
fn path_in_repository(repo: &Repository, root: &Path, rel: &Path) -> Option<PathBuf> {
    Some(crate::root_in_repo(repo, root)?.join(rel))
}

fn tracking_git2(repo: &Repository, root: &Path, rel: &Path) -> Option<Tracked> {
    let in_tree = path_in_repository(repo, root, rel)?;
    let head = HeadEntries::new(repo);
    let head_entry = head.as_ref().and_then(|head| head_blob(head, &in_tree));
    if let Some(head) = head {
        head.remember();
    }
    // Only a tracked file costs the index read (a default .handover/ is ignored, never in HEAD).
    let in_index = head_entry.is_some()
        || crate::load_index(repo)
            .ok()
            .is_some_and(|index| index.get_path(&in_tree, 0).is_some());
    let mut tracked = Tracked {
        in_head: head_entry.is_some(),
        in_index,
        unchanged_since_head: false,
    };
    let Some(blob_id) = head_entry else {
        return Some(tracked);
    };
    tracked.unchanged_since_head = unchanged(RepoRef::Open(repo), root, rel, &in_tree, blob_id);
    Some(tracked)
}

/// The file at `rel` is HEAD's blob `blob_id`: by its bytes, else by git's status of that path
/// (filters applied), else by the content with line endings ignored.
fn unchanged(repo: RepoRef, root: &Path, rel: &Path, in_tree: &Path, blob_id: git2::Oid) -> bool {
    let on_disk = root.join(rel);
    // Cheapest first: the raw bytes hash to the blob (no conversion happened).
    git2::Oid::hash_file(git2::ObjectType::Blob, &on_disk).is_ok_and(|id| id == blob_id)
        // git's own comparison, through its stat cache and filters.
        || repo.get().is_some_and(|repo| repo.status_file(in_tree).is_ok_and(|s| {
            !s.intersects(
                Status::INDEX_NEW
                    | Status::INDEX_MODIFIED
                    | Status::INDEX_DELETED
                    | Status::INDEX_TYPECHANGE
                    | Status::WT_NEW
                    | Status::WT_MODIFIED
                    | Status::WT_DELETED
                    | Status::WT_TYPECHANGE,
            )
        }))
        || repo.get().is_some_and(|repo| {
            repo.find_blob(blob_id)
                .is_ok_and(|blob| same_but_line_endings(blob.content(), &on_disk))
        })
}

/// How git holds `root/rel`, asked of the command line (crate::cli runs it). Only
/// plumbing that runs no filter, hook or fsmonitor (`ls-files`, `ls-tree`, `cat-file`): the
/// comparison with HEAD's blob drops carriage returns instead of running git's filters.
fn tracking_cli(root: &Path, rel: &Path) -> anyhow::Result<Tracked> {
    let rel_text = rel
        .to_str()
        .context("a path that is not UTF-8 is not passed to `git`")?;
    let listed = |args: &[&str]| -> anyhow::Result<bool> {
        let mut all = vec!["--literal-pathspecs"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--", rel_text]);
        Ok(!crate::cli::git(root, &all)?.is_empty())
    };
    let in_index = listed(&["ls-files", "-z"])?;
    let in_head = listed(&["ls-tree", "-z", "HEAD"]).unwrap_or(false);
    let unchanged_since_head = in_head
        && crate::cli::git(root, &["cat-file", "blob", &format!("HEAD:./{rel_text}")])
            .is_ok_and(|blob| same_but_line_endings(&blob, &root.join(rel)));
    Ok(Tracked {
        in_head,
        in_index,
        unchanged_since_head,
    })
}

/// The file at `on_disk` (a regular file, read through the read gate) says `committed` once
/// every carriage return is dropped from both.
fn same_but_line_endings(committed: &[u8], on_disk: &Path) -> bool {
    use handover_base::read_gate::{self, Links};
    let Ok(Some(bytes)) = read_gate::read(on_disk, Links::Refuse, MAX_COMPARED_BYTES) else {
        return false;
    };
    let strip = |b: &[u8]| -> Vec<u8> { b.iter().copied().filter(|&c| c != b'\r').collect() };
    strip(committed) == strip(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_git::{git, temp_repo};

    fn committed_repo() -> tempfile::TempDir {
        let dir = temp_repo();
        std::fs::create_dir(dir.path().join(".handover")).unwrap();
        std::fs::write(
            dir.path().join(".handover/state.json"),
            "{\n  \"a\": 1\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(".gitattributes"),
            ".handover/state.json text eol=crlf\n",
        )
        .unwrap();
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-qm", "x"]);
        dir
    }

    #[test]
    fn a_committed_file_checked_out_with_crlf_still_came_with_the_repository() {
        let upstream = committed_repo();
        let clone = tempfile::tempdir().unwrap();
        let to = clone.path().join("c");
        git(
            clone.path(),
            &[
                "clone",
                "-q",
                upstream.path().to_str().unwrap(),
                to.to_str().unwrap(),
            ],
        );
        let state = Path::new(".handover/state.json");
        let bytes = std::fs::read(to.join(state)).unwrap();
        assert!(
            bytes.windows(2).any(|w| w == b"\r\n"),
            "checked out with CRLF"
        );
        let t = tracking(&to, state);
        assert!(t.in_head && t.in_index && t.unchanged_since_head, "{t:?}");
        // Also when git's stat cache cannot tell (the file rewritten with the same bytes).
        std::fs::write(to.join(state), &bytes).unwrap();
        assert!(came_with_repository(&to, state));
        // Changed here: no longer what came with the repository, but still tracked.
        std::fs::write(to.join(state), "{\"a\": 2}\r\n").unwrap();
        let t = tracking(&to, state);
        assert!(t.is_tracked() && !t.unchanged_since_head, "{t:?}");
    }

    /// The scan's answer (the index's paths under the records directory, read from the index it
    /// loaded) gives what asking the index gives, for every kind of path: in HEAD and the index,
    /// staged only, deleted from the index but in HEAD, untracked, a sibling directory sharing
    /// the prefix, and in a store below the top of the working tree; a path it does not cover
    /// still gets the index's answer. `core.ignorecase` repositories
    /// get no such answer (the index matches other spellings there).
    #[test]
    fn the_scans_index_entries_answer_as_the_index_does() {
        let dir = temp_repo();
        let top = dir.path();
        let write = |rel: &str| {
            let p = top.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "{}\n").unwrap();
        };
        for rel in [
            "sub/.handover/records/committed.json",
            "sub/.handover/records/removed.json",
            "sub/.handover/records-old/x.json",
            "sub/.handover/recordsx.json",
            "other.json",
        ] {
            write(rel);
        }
        git(top, &["add", "-f", "-A"]);
        git(top, &["commit", "-qm", "x"]);
        git(
            top,
            &["rm", "-q", "--cached", "sub/.handover/records/removed.json"],
        );
        write("sub/.handover/records/staged.json");
        git(top, &["add", "-f", "sub/.handover/records/staged.json"]);
        write("sub/.handover/records/untracked.json");
        let root = top.join("sub");
        let rels: Vec<&Path> = [
            ".handover/records/committed.json",
            ".handover/records/removed.json",
            ".handover/records/staged.json",
            ".handover/records/untracked.json",
            ".handover/records-old/x.json",
            ".handover/recordsx.json",
        ]
        .iter()
        .map(Path::new)
        .collect();
        let repo = crate::open(&root).unwrap().unwrap();
        let stamp = crate::IndexStamp::of(&repo);
        let index = repo.index().unwrap();
        let in_repo = crate::root_in_repo(&repo, &root)
            .unwrap()
            .join(".handover/records");
        let known = crate::IndexedUnder::read(&repo, &index, stamp, &in_repo).unwrap();
        assert!(known.is_current(&repo));
        assert_eq!(
            known.paths.iter().collect::<Vec<_>>(),
            [
                Path::new("sub/.handover/records/committed.json"),
                Path::new("sub/.handover/records/staged.json")
            ]
        );
        let asked = tracked_each(&root, &rels, None);
        assert_eq!(asked, [true, true, true, false, true, true]);
        // (That the covered paths cost no index load is counted per process, by the hook test
        // of the prune: tests/hooks hostile.rs, L15; tests here run in parallel.)
        assert_eq!(tracked_each(&root, &rels[..4], Some(&known)), asked[..4]);
        assert_eq!(tracked_each(&root, &rels, Some(&known)), asked);
        // Staged after the scan read the index: its answer is stale and not used.
        git(top, &["add", "-f", "sub/.handover/records/untracked.json"]);
        assert!(!known.is_current(&repo));
        assert_eq!(tracked_each(&root, &rels[3..4], Some(&known)), [true]);

        git(top, &["config", "core.ignorecase", "true"]);
        let repo = crate::open(&root).unwrap().unwrap();
        assert_eq!(
            crate::IndexedUnder::read(&repo, &index, stamp, &in_repo),
            None
        );
    }

    #[test]
    fn an_untracked_or_ignored_file_is_not_tracked() {
        let dir = committed_repo();
        let t = tracking(dir.path(), Path::new(".handover/other.json"));
        assert_eq!(t, Tracked::default());
        let none = tempfile::tempdir().unwrap();
        assert_eq!(tracking(none.path(), Path::new("x")), Tracked::default());
    }

    #[test]
    fn a_staged_file_is_tracked_but_not_from_head() {
        let dir = committed_repo();
        std::fs::write(dir.path().join(".handover/r.json"), "{}").unwrap();
        git(dir.path(), &["add", "-f", ".handover/r.json"]);
        let t = tracking(dir.path(), Path::new(".handover/r.json"));
        assert!(t.in_index && !t.in_head && !t.unchanged_since_head, "{t:?}");
    }
}
