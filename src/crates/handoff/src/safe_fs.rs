//! The one set of rules for touching files under `.handover/` (and `handover.md`): a cloned
//! repository decides what is there, so nothing is followed through a symbolic link, nothing
//! that is not a plain file or directory is used, and nothing is removed unless it is a plain
//! file. The store, the journal and the hooks' session state all go through this module.
//!
//! How: every directory on the way is checked with `symlink_metadata` (which never follows a
//! link) before use; every file is opened with `O_NOFOLLOW` (a link in the last position fails
//! instead of being followed) and `O_NONBLOCK` (a FIFO planted there cannot hang us; on the
//! regular files we go on to use, the flag changes nothing), then checked with `fstat` on the
//! open descriptor to be a regular file. New files are created
//! with `O_EXCL` or `O_NOFOLLOW`, so a dangling link never makes us create its target.
//! What this does not stop: a local process swapping a checked directory for a link between
//! the check and the use (see docs/security.md).

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// A path handover refuses to use, and why. Shown to people as is, so it names the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub path: PathBuf,
    /// "a symbolic link", "not a directory", ...
    pub what: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        write!(
            f,
            "{path} is {}, so handover will not use it (it never follows links, or uses anything \
             under .handover/ it would not create itself); if you did not put it there, ",
            self.what
        )?;
        if self.what.starts_with("a symbolic link") {
            // Not `rm -r`: with a trailing slash that would go through the link.
            let quoted = handover_base::shell::shell_quote(&self.path.to_string_lossy());
            write!(
                f,
                "remove the link (`rm {quoted}` removes the link, not what it points to)"
            )?;
        } else {
            write!(f, "move it out of the way")?;
        }
        write!(f, " and run the command again")
    }
}

impl std::error::Error for Refused {}

impl Refused {
    fn new(path: &Path, what: impl Into<String>) -> Refused {
        Refused {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }

    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, self)
    }
}

/// What a path names, without following a link in its last component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Missing,
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

pub fn kind(path: &Path) -> io::Result<Kind> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Ok(Kind::Symlink),
        Ok(m) if m.is_dir() => Ok(Kind::Dir),
        Ok(m) if m.is_file() => Ok(Kind::File),
        Ok(_) => Ok(Kind::Other),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(e) => Err(e),
    }
}

fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Symlink => "a symbolic link",
        Kind::Dir => "a directory",
        Kind::File => "a file",
        Kind::Other => "a FIFO, socket or device",
        Kind::Missing => "missing",
    }
}

/// Checks that `path` is missing or of the `expected` kind (`Kind::File` or `Kind::Dir`).
/// Returns whether it exists.
pub fn expect(path: &Path, expected: Kind) -> Result<bool, Refused> {
    match kind(path) {
        Ok(Kind::Missing) => Ok(false),
        Ok(k) if k == expected => Ok(true),
        Ok(k) => Err(Refused::new(
            path,
            format!(
                "{}, not {}",
                describe(k),
                match expected {
                    Kind::Dir => "a plain directory",
                    _ => "a plain file",
                }
            ),
        )),
        // Not even lstat works (permissions): nothing can be checked, so nothing is used.
        Err(e) => Err(Refused::new(path, format!("unreadable ({e})"))),
    }
}

/// Like [`expect`] with `Kind::Dir`, and the directory must belong to the user running us:
/// on a shared machine another user's `.handover/` is neither ours to read as a handoff of
/// this user's nor to write into.
pub fn expect_own_dir(path: &Path) -> Result<bool, Refused> {
    if !expect(path, Kind::Dir)? {
        return Ok(false);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = fs::symlink_metadata(path) {
            let me = effective_uid();
            if m.uid() != me {
                return Err(Refused::new(
                    path,
                    format!("owned by another user (uid {}, you are {me})", m.uid()),
                ));
            }
        }
    }
    Ok(true)
}

/// Creates the directory `path` if it is missing (its parent must exist and have been
/// checked), then checks it is a plain directory: `mkdir` on a dangling link fails rather than
/// creating its target, and an existing link is refused.
pub fn ensure_dir(path: &Path) -> io::Result<()> {
    match fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match expect(path, Kind::Dir) {
            Ok(_) => Ok(()),
            Err(r) => Err(r.into_io()),
        },
        Err(e) => Err(e),
    }
}

/// The user we run as. The one `unsafe` here: std has no safe way to ask.
#[cfg(unix)]
#[allow(unsafe_code)] // geteuid(2) takes nothing, cannot fail and touches no memory of ours.
fn effective_uid() -> u32 {
    // SAFETY: see the allow above.
    unsafe { libc::geteuid() }
}

/// `O_NOFOLLOW | O_NONBLOCK`, the read gate's flags (`handover_base::read_gate`). Without
/// O_NOFOLLOW (not Unix): look first. Racy, but no link is followed that was there when we looked.
fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    handover_base::read_gate::guarded_flags(options, true)
}

fn open_checked(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(not(unix))]
    if kind(path)? == Kind::Symlink {
        return Err(Refused::new(path, describe(Kind::Symlink)).into_io());
    }
    let file = match no_follow(options).open(path) {
        Ok(f) => f,
        // ELOOP: the last component is a link (O_NOFOLLOW did its job).
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Refused::new(path, describe(Kind::Symlink)).into_io())
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        let k = if meta.is_dir() {
            Kind::Dir
        } else {
            Kind::Other
        };
        return Err(Refused::new(path, format!("{}, not a plain file", describe(k))).into_io());
    }
    Ok(file)
}

/// Opens a plain file for reading. `Ok(None)`: it does not exist. A link, a directory or a
/// FIFO is an error (a [`Refused`] inside the `io::Error`).
pub fn open_read(path: &Path) -> io::Result<Option<File>> {
    match open_checked(path, OpenOptions::new().read(true)) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a whole plain file of at most `max` bytes. `Ok(None)`: it does not exist.
pub fn read_limited(path: &Path, max: u64) -> io::Result<Option<Vec<u8>>> {
    match open_read(path)? {
        Some(file) => read_open(&file, path, max).map(Some),
        None => Ok(None),
    }
}

/// [`read_limited`] under a shared lock on the file, for files that [`rewrite_in_place`]
/// rewrites: never read halfway through a rewrite.
pub fn read_limited_locked(path: &Path, max: u64) -> io::Result<Option<Vec<u8>>> {
    let Some(file) = open_read(path)? else {
        return Ok(None);
    };
    file.lock_shared()?;
    read_open(&file, path, max).map(Some)
}

/// The whole of an open file, or an error when it holds more than `max` bytes (at most
/// `max + 1` are read to tell).
fn read_open(file: &File, path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let bytes = handover_base::read_gate::read_capped(file, max)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {max} bytes, not read", path.display()),
        ));
    }
    Ok(bytes)
}

/// Rewrites an existing plain file with `bytes` in place, under an exclusive lock on it (one
/// write from offset 0, then the length cut to the new content's); never through a link.
/// `Ok(false)`: there is no file to rewrite (create it with [`replace`]). For small advisory
/// state rewritten on every hook call: on ext4, the temporary file and the rename of
/// [`replace`] each cost a journal transaction, and a rename over an existing file also starts
/// writing the data out (`auto_da_alloc`); under a busy disk that was most of a hook's time
/// (docs/benchmarks.md). Readers use [`read_limited_locked`]. A process killed between the
/// write and the cut leaves the new content followed by the old one's tail: a reader that
/// takes the first JSON value still gets the new content.
pub fn rewrite_in_place(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    use std::io::Write;
    let mut file = match open_checked(path, OpenOptions::new().write(true)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    // A hard link (an unpacked tarball can hold one to a file of the user's elsewhere) is
    // never written through: such a name is replaced instead, which leaves the other file
    // alone.
    if !single_link(&file)? {
        return Ok(false);
    }
    file.lock()?;
    // A file just opened (not for appending) is written from its start.
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)?;
    Ok(true)
}

#[cfg(unix)]
fn single_link(file: &File) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    Ok(file.metadata()?.nlink() == 1)
}

#[cfg(not(unix))]
fn single_link(_: &File) -> io::Result<bool> {
    Ok(true)
}

/// Opens a plain file for appending, creating it if missing; never through a link.
pub fn open_append(path: &Path) -> io::Result<File> {
    open_checked(
        path,
        OpenOptions::new().read(true).append(true).create(true),
    )
}

/// Opens (creating if missing) a lock file; never through a link, so a dangling link named
/// like our lock cannot make us create a file where it points.
pub fn open_lock(path: &Path) -> io::Result<File> {
    open_checked(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
    )
}

/// Replaces `path` with `bytes` (`handover_base::atomic`: a temporary file beside it created
/// with `O_EXCL`, then a rename, which replaces a directory entry and never writes through a
/// link). A link, directory or FIFO at `path` is refused first, not replaced. `durable`: fsync
/// the file and the rename.
pub fn replace(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    match kind(path)? {
        Kind::Missing | Kind::File => {}
        k => {
            return Err(Refused::new(path, format!("{}, not a plain file", describe(k))).into_io())
        }
    }
    if durable {
        handover_base::atomic::replace_durable(path, bytes)
    } else {
        handover_base::atomic::replace_advisory(path, bytes)
    }
}

/// Removes `path` only if it is a plain file (ours to remove); a link, a directory or anything
/// else is left alone. Returns whether a file was removed.
pub fn remove_file(path: &Path) -> io::Result<bool> {
    match kind(path)? {
        Kind::Missing => Ok(false),
        Kind::File => match fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        },
        k => Err(Refused::new(path, format!("{}, not a plain file", describe(k))).into_io()),
    }
}

/// The plain files directly in `dir` (a plain directory): links, directories and anything else
/// are skipped. At most `limit` entries are looked at. A missing or refused `dir` gives none.
pub fn plain_files(dir: &Path, limit: usize) -> Vec<(PathBuf, fs::Metadata)> {
    plain_files_by(dir, limit, |entries| {
        entries.iter().map(plain_file).collect()
    })
    .0
}

/// [`plain_files`], and whether `dir` held more than `limit` entries (the rest not looked at),
/// for a reader of the whole history that must say what it did not read: thousands of files,
/// each looked at (one `statx`, by name in the directory already open) on every core
/// (`handover_base::parallel`). Never on a hook's path.
pub fn plain_files_within(dir: &Path, limit: usize) -> (Vec<(PathBuf, fs::Metadata)>, bool) {
    plain_files_by(dir, limit, |entries| {
        handover_base::parallel::map(entries, plain_file)
    })
}

/// The entries of `dir` (a plain directory), at most `limit` of them, each looked at by
/// `look` (in the entries' order), keeping the plain files; and whether there were more.
fn plain_files_by(
    dir: &Path,
    limit: usize,
    look: impl FnOnce(&[fs::DirEntry]) -> Vec<Option<(PathBuf, fs::Metadata)>>,
) -> (Vec<(PathBuf, fs::Metadata)>, bool) {
    if !matches!(expect(dir, Kind::Dir), Ok(true)) {
        return (Vec::new(), false);
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return (Vec::new(), false);
    };
    let mut entries = entries.flatten();
    let taken: Vec<fs::DirEntry> = entries.by_ref().take(limit).collect();
    let files = look(&taken).into_iter().flatten().collect();
    (files, entries.next().is_some())
}

/// A directory entry that is a plain file, with its path and metadata (asked of the open
/// directory by name: `DirEntry::metadata` does not follow links).
fn plain_file(entry: &fs::DirEntry) -> Option<(PathBuf, fs::Metadata)> {
    let meta = entry.metadata().ok()?;
    meta.is_file().then(|| (entry.path(), meta))
}

/// The `Refused` behind an error, if that is what it is.
pub fn refused(error: &io::Error) -> Option<&Refused> {
    error.get_ref()?.downcast_ref::<Refused>()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_are_never_followed() {
        let (dir, outside) = crate::temp_files::temp_file("outside", "precious");
        let link = dir.path().join("link");
        symlink(&outside, &link).unwrap();

        let e = open_read(&link).unwrap_err();
        assert!(refused(&e).is_some(), "{e}");
        assert!(open_append(&link).is_err());
        assert!(open_lock(&link).is_err());
        assert!(replace(&link, b"evil", false).is_err());
        assert!(remove_file(&link).is_err());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_dangling_link_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("created-through-link");
        let link = dir.path().join("journal.lock");
        symlink(&target, &link).unwrap();
        assert!(open_lock(&link).is_err());
        assert!(open_append(&link).is_err());
        let sub = dir.path().join("sessions");
        symlink(dir.path().join("made-dir"), &sub).unwrap();
        assert!(ensure_dir(&sub).is_err());
        assert!(!target.exists() && !dir.path().join("made-dir").exists());
    }

    #[test]
    fn a_fifo_is_refused_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("state.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(open_read(&fifo).is_err());
        assert!(read_limited(&fifo, 10).is_err());
    }

    #[test]
    fn plain_files_are_read_written_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        assert_eq!(open_read(&p).unwrap().map(|_| ()), None);
        replace(&p, b"one", true).unwrap();
        assert_eq!(read_limited(&p, 10).unwrap().unwrap(), b"one");
        assert!(read_limited(&p, 2).is_err());
        open_append(&p).unwrap().write_all(b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"onetwo");
        assert!(remove_file(&p).unwrap());
        assert!(!remove_file(&p).unwrap());
    }

    #[test]
    fn only_plain_files_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.json"), "{}").unwrap();
        fs::create_dir(dir.path().join("d.json")).unwrap();
        symlink(dir.path().join("a.json"), dir.path().join("l.json")).unwrap();
        let names: Vec<String> = plain_files(dir.path(), 100)
            .into_iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.json"]);
        let link_dir = tempfile::tempdir().unwrap();
        let l = link_dir.path().join("sessions");
        symlink(dir.path(), &l).unwrap();
        assert!(plain_files(&l, 100).is_empty());
    }
}
