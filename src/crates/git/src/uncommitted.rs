//! "Is this path uncommitted?", answered for one path at a time at a cost that depends on the
//! path, never on the size of the repository.
//!
//! libgit2's `status_file` loads and parses the whole index for every path it is asked about
//! (8 MB at 100,000 files), so a hook asking about ten paths paid for the index ten times. Here
//! the working file is compared with HEAD's tree entry for the same path instead: a tree lookup
//! by path (one tree object per directory level, each read once per call, and none at all when
//! the git directory remembers the entry for HEAD's commit: `git::head_entries`), the blob id
//! of the file's bytes, and the ignore rules for that path only. The index is never read,
//! except for the one case where git would filter the file's bytes before hashing them (below).
//!
//! What counts as uncommitted (docs/verification.md, "Uncommitted"):
//! - a file in HEAD whose working copy differs from it: other bytes, another type (file, link,
//!   directory), or the executable bit flipped when `core.fileMode` is on; staged or not;
//! - a file in HEAD that is gone from the working tree (deleted, staged or not);
//! - a file absent from HEAD that exists and is not ignored (untracked, or added to the index).
//!
//! Not seen, because they live only in the index: a staged change whose working copy is back
//! to HEAD's content, and a new file forced into the index over an ignore rule.
//!
//! Filters: git hashes a file after its clean filters (line-ending conversion, `ident`), so a
//! working file whose raw bytes differ from HEAD's blob may still be unchanged to git. When the
//! raw bytes differ and hold a carriage return or `$Id`, the answer comes from libgit2's own
//! status of that one path, which applies the filters exactly (and reads the index).

use super::head_entries::HeadEntries;
use super::parsed::{MODE_BLOB, MODE_BLOB_EXECUTABLE, MODE_COMMIT, MODE_LINK, MODE_TREE};
use crate::{LazyRepo, RepoRef};
use git2::{ErrorCode, ObjectType, Oid, Repository};
use std::cell::RefCell;
use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One path's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathState {
    /// Differs from HEAD (changed, deleted, or new and not ignored).
    Uncommitted,
    /// Same as HEAD, or absent from both HEAD and the working tree, or ignored.
    Committed,
    /// Could not be told: a directory, a submodule, a FIFO or device, an unreadable file, a
    /// path that leaves the working tree.
    Unknown,
}

/// Answers for one repository: HEAD's entries are read at most once per path and call, and
/// remembered per commit in the git directory (`git::head_entries`).
pub struct PathStates<'r> {
    /// For ignore rules, `core.fileMode` and filtered files: opened only for them when the
    /// repository's layout is plain (`crate::plain`).
    repo: RepoRef<'r>,
    workdir: PathBuf,
    head: HeadEntries<'r>,
    /// Working-tree directories already seen to be plain directories (not links).
    plain_dirs: RefCell<HashSet<PathBuf>>,
}

impl<'r> PathStates<'r> {
    /// None for a bare repository (no working tree to compare) or a HEAD that cannot be read.
    pub fn new(repo: &'r Repository) -> Option<PathStates<'r>> {
        Some(PathStates {
            repo: RepoRef::Open(repo),
            workdir: repo.workdir()?.to_path_buf(),
            head: HeadEntries::new(repo)?,
            plain_dirs: RefCell::new(HashSet::new()),
        })
    }

    /// [`PathStates::with_head`] in the repository `lazy` stands for: with a plain layout
    /// (`crate::plain`), its root is the working tree and libgit2 is opened only for what
    /// only it answers (an untracked path's ignore rules, `core.fileMode`, a filtered file).
    /// None as for [`PathStates::new`].
    pub fn of(lazy: &'r LazyRepo<'r>, head: HeadEntries<'r>) -> Option<PathStates<'r>> {
        if lazy.plain().is_some() {
            return Some(PathStates {
                repo: RepoRef::Lazy(lazy),
                workdir: lazy.root().to_path_buf(),
                head,
                plain_dirs: RefCell::new(HashSet::new()),
            });
        }
        PathStates::with_head(lazy.get().ok().flatten()?, head)
    }

    /// [`PathStates::new`] with HEAD's entries a caller's earlier check already used (the
    /// remembered file read once per call, and written once).
    pub fn with_head(repo: &'r Repository, head: HeadEntries<'r>) -> Option<PathStates<'r>> {
        Some(PathStates {
            repo: RepoRef::Open(repo),
            workdir: repo.workdir()?.to_path_buf(),
            head,
            plain_dirs: RefCell::new(HashSet::new()),
        })
    }

    /// Keeps HEAD's entries this call had to read from HEAD's trees for the next call at the
    /// same HEAD (`HeadEntries::remember`). Call once the paths were asked about.
    pub fn remember(&self) {
        self.head.remember();
    }

    /// `path` is relative to the working tree's top, `/`-separated, as git lists it.
    pub fn state(&self, path: &str) -> PathState {
        // Plain names between single slashes: no `..`, `.`, empty or absolute paths.
        let plain = |c: &str| !c.is_empty() && c != "." && c != "..";
        if !path.split('/').all(plain) {
            return PathState::Unknown;
        }
        let rel = Path::new(path);
        let in_head = match self.head.entry(path) {
            Ok(found) => found,
            Err(()) => return PathState::Unknown,
        };
        let on_disk = match self.working_entry(rel) {
            Ok(found) => found,
            Err(()) => return PathState::Unknown,
        };
        match (on_disk, in_head) {
            (None, None) => PathState::Committed,
            (None, Some(_)) => PathState::Uncommitted,
            (Some(Working::Other), _) => PathState::Unknown,
            (Some(Working::Dir), Some((_, mode))) if mode == MODE_TREE || mode == MODE_COMMIT => {
                PathState::Unknown
            }
            (Some(Working::Dir), Some(_)) => PathState::Uncommitted,
            (Some(Working::Dir), None) => PathState::Unknown,
            (Some(_), None) => match self.repo.get().map(|repo| repo.is_path_ignored(rel)) {
                Some(Ok(true)) => PathState::Committed,
                Some(Ok(false)) => PathState::Uncommitted,
                Some(Err(_)) | None => PathState::Unknown,
            },
            (Some(Working::Link(target)), Some((id, mode))) => {
                let same = mode == MODE_LINK
                    && Oid::hash_object(ObjectType::Blob, &target).is_ok_and(|o| o == id);
                if same {
                    PathState::Committed
                } else {
                    PathState::Uncommitted
                }
            }
            (Some(Working::File { executable }), Some((id, mode))) => {
                if mode != MODE_BLOB && mode != MODE_BLOB_EXECUTABLE {
                    return PathState::Uncommitted;
                }
                self.compare_file(rel, id, executable != (mode == MODE_BLOB_EXECUTABLE))
            }
        }
    }

    /// What is at `rel` in the working tree, without following a link in any position: a
    /// path below a symbolic link is not in the working tree (git does not follow it either).
    fn working_entry(&self, rel: &Path) -> Result<Option<Working>, ()> {
        let mut at = self.workdir.to_path_buf();
        let parts: Vec<_> = rel.components().collect();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let last = i + 1 == parts.len();
            // A directory on the way is looked at once for all the paths asked about.
            if !last && self.plain_dirs.borrow().contains(&at) {
                continue;
            }
            let meta = match std::fs::symlink_metadata(&at) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok(None),
                Err(_) => return Err(()),
            };
            let kind = meta.file_type();
            if !last {
                if kind.is_dir() {
                    self.plain_dirs.borrow_mut().insert(at.clone());
                    continue;
                }
                // A file or a link where a directory should be: the path is not there.
                return Ok(None);
            }
            return Ok(Some(if kind.is_symlink() {
                let target = std::fs::read_link(&at).map_err(|_| ())?;
                Working::Link(link_bytes(&target))
            } else if kind.is_file() {
                Working::File {
                    executable: is_executable(&meta),
                }
            } else if kind.is_dir() {
                Working::Dir
            } else {
                Working::Other
            }));
        }
        Ok(None)
    }

    /// A regular file present in HEAD as a regular file with blob `id`.
    fn compare_file(&self, rel: &Path, id: Oid, mode_flipped: bool) -> PathState {
        let full = self.workdir.join(rel);
        // Opened without following a link and without blocking on a FIFO, and checked to be a
        // regular file, before anything is read. Something swapped in between is a race
        // against ourselves we accept.
        let file = match handover_handoff::safe_fs::open_read(&full) {
            Ok(Some(file)) => file,
            Ok(None) => return PathState::Uncommitted,
            Err(_) => return PathState::Unknown,
        };
        // A file of usual size is read once, through that handle, and hashed in memory; a larger
        // one is hashed by libgit2 as it streams (memory does not grow with the file) and
        // searched for filter markers in chunks.
        let small = file
            .metadata()
            .is_ok_and(|m| m.len() <= MAX_HASHED_IN_MEMORY);
        let mut bytes = Vec::new();
        let read_whole = small
            && (&file)
                .take(MAX_HASHED_IN_MEMORY + 1)
                .read_to_end(&mut bytes)
                .is_ok_and(|n| n as u64 <= MAX_HASHED_IN_MEMORY);
        let raw = if read_whole {
            Oid::hash_object(ObjectType::Blob, &bytes)
        } else {
            Oid::hash_file(ObjectType::Blob, &full)
        };
        let Ok(raw) = raw else {
            return PathState::Unknown;
        };
        if raw == id {
            let mode_counts = mode_flipped && self.file_mode_tracked();
            return if mode_counts {
                PathState::Uncommitted
            } else {
                PathState::Committed
            };
        }
        let filtered = if read_whole {
            Some(holds_filter_marker(&bytes))
        } else {
            may_be_filtered(&full)
        };
        match filtered {
            Some(false) => PathState::Uncommitted,
            Some(true) => self.exact(rel),
            None => PathState::Unknown,
        }
    }

    /// `core.fileMode` (on unless configured off): whether git sees the executable bit.
    fn file_mode_tracked(&self) -> bool {
        self.repo
            .get()
            .and_then(|repo| repo.config().and_then(|c| c.get_bool("core.filemode")).ok())
            .unwrap_or(true)
    }

    /// libgit2's own answer for this one path: filters applied, the index read.
    fn exact(&self, rel: &Path) -> PathState {
        let Some(repo) = self.repo.get() else {
            return PathState::Unknown;
        };
        match repo.status_file(rel) {
            Ok(s) if s.is_empty() || s == git2::Status::IGNORED => PathState::Committed,
            Ok(_) => PathState::Uncommitted,
            Err(e) if e.code() == ErrorCode::NotFound => PathState::Committed,
            Err(_) => PathState::Unknown,
        }
    }
}

enum Working {
    File {
        executable: bool,
    },
    /// The link's target, as git stores it (the blob of a symbolic link).
    Link(Vec<u8>),
    Dir,
    /// A FIFO, socket or device: never opened.
    Other,
}

#[cfg(unix)]
fn link_bytes(target: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    target.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn link_bytes(target: &Path) -> Vec<u8> {
    target.to_string_lossy().replace('\\', "/").into_bytes()
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}

/// Files up to this size are read once and hashed in memory; larger ones are streamed.
const MAX_HASHED_IN_MEMORY: u64 = 256 * 1024;

/// Whether git's clean filters could change these bytes: a carriage return (line-ending
/// conversion) or `$Id` (the `ident` attribute).
fn holds_filter_marker(bytes: &[u8]) -> bool {
    bytes.contains(&b'\r') || bytes.windows(3).any(|w| w == b"$Id")
}

/// [`holds_filter_marker`] for a file too large to hold: read in chunks, so memory stays
/// bounded. None when the file cannot be read.
fn may_be_filtered(path: &Path) -> Option<bool> {
    let mut file = handover_handoff::safe_fs::open_read(path).ok()??;
    let mut buf = vec![0u8; 64 * 1024];
    // Carries the last bytes of a chunk over, so `$Id` split across two reads is found.
    let mut carry = 0usize;
    loop {
        let n = file.read(&mut buf[carry..]).ok()?;
        if n == 0 {
            return Some(false);
        }
        let seen = &buf[..carry + n];
        if holds_filter_marker(seen) {
            return Some(true);
        }
        carry = seen.len().min(2);
        let start = seen.len() - carry;
        buf.copy_within(start..start + carry, 0);
    }
}
