//! The one gate for reading a file that a repository (a clone, a tarball) or a hook's input
//! decides the path or the content of: the clients' settings files in a project, the
//! instruction files, `.git` pointer files and the files under `.git`, transcripts named by a
//! hook's input, archive copies, records, config.
//!
//! What it promises, whatever sits at the path:
//! - only a **regular file** is read: a FIFO, socket, device or directory is refused. The file
//!   is opened with `O_NONBLOCK` (a FIFO cannot hang the open; on a regular file the flag changes
//!   nothing) and its type is checked with `fstat` on the open descriptor, so a swap between a
//!   look and the open changes nothing;
//! - links are handled as the caller's [`Links`] says: refused, followed only while they stay
//!   inside a directory (a repository's `CLAUDE.md → AGENTS.md` is fine, `→ ~/.ssh/id_rsa` is
//!   not), or followed (the user's own files in their home, a transcript the client names);
//! - at most `cap + 1` bytes are ever read: a file larger than `cap` is an error, never a
//!   partial answer and never an unbounded read (`/dev/zero` behind a link is refused anyway).
//!
//! `handover_handoff::safe_fs` (everything under `.handover/`) opens files with the same flags.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// What to do with a symbolic link on the way to the file.
#[derive(Clone, Copy, Debug)]
pub enum Links<'a> {
    /// A link in the last component is refused (`O_NOFOLLOW`).
    Refuse,
    /// Links are followed only while the file they lead to is inside this directory (usually
    /// the repository's working tree).
    Within(&'a Path),
    /// Links are followed (files the user or the client chose, outside any repository); the
    /// file reached must still be a regular file.
    Follow,
}

/// A path the gate will not read, and why. Shown to people as is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub path: PathBuf,
    /// "a FIFO, socket or device", "larger than 1048576 bytes", ...
    pub what: String,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is {}, so handover does not read it",
            self.path.display(),
            self.what
        )
    }
}

impl std::error::Error for Rejected {}

fn rejected(path: &Path, what: impl Into<String>) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        Rejected {
            path: path.to_path_buf(),
            what: what.into(),
        },
    )
}

/// The [`Rejected`] behind an error, if that is what it is.
pub fn rejection(error: &io::Error) -> Option<&Rejected> {
    error.get_ref()?.downcast_ref::<Rejected>()
}

/// `O_NONBLOCK | O_CLOEXEC`, and `O_NOFOLLOW` when `no_follow`: the flags every open of a file
/// a repository controls uses (here and in `handover_handoff::safe_fs`).
#[cfg(unix)]
pub fn guarded_flags(options: &mut OpenOptions, no_follow: bool) -> &mut OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let follow = if no_follow { libc::O_NOFOLLOW } else { 0 };
    options.custom_flags(follow | libc::O_NONBLOCK | libc::O_CLOEXEC)
}

/// Without these flags: callers look at the path first (racy, but nothing that was a link or a
/// FIFO when we looked is opened).
#[cfg(not(unix))]
pub fn guarded_flags(options: &mut OpenOptions, _no_follow: bool) -> &mut OpenOptions {
    options
}

/// Opens the regular file at `path` for reading. `Ok(None)`: nothing is there (or a link
/// leads nowhere). A link the policy refuses, or anything but a regular file, is an error with
/// a [`Rejected`] inside.
pub fn open(path: &Path, links: Links) -> io::Result<Option<File>> {
    let (target, no_follow) = match links {
        Links::Refuse => (path.to_path_buf(), true),
        Links::Follow => (path.to_path_buf(), false),
        Links::Within(dir) => match resolve_within(path, dir)? {
            Some(resolved) => (resolved, true),
            None => return Ok(None),
        },
    };
    #[cfg(not(unix))]
    if no_follow && std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(rejected(path, "a symbolic link"));
    }
    #[cfg(not(unix))]
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file()) {
        return Err(rejected(path, "not a regular file"));
    }
    let file = match guarded_flags(OpenOptions::new().read(true), no_follow).open(&target) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // ELOOP: the last component is a link and O_NOFOLLOW refused it.
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(rejected(path, "a symbolic link"))
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(rejected(path, "a directory, not a regular file"));
    }
    if !meta.is_file() {
        return Err(rejected(
            path,
            "a FIFO, socket or device, not a regular file",
        ));
    }
    Ok(Some(file))
}

/// The real path of `path` when it lies inside `dir` (both resolved through every link).
/// `Ok(None)`: nothing is there.
fn resolve_within(path: &Path, dir: &Path) -> io::Result<Option<PathBuf>> {
    let resolved = match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let dir = std::fs::canonicalize(dir)?;
    if resolved.starts_with(&dir) {
        Ok(Some(resolved))
    } else {
        Err(rejected(
            path,
            format!(
                "a link to {}, outside {}",
                resolved.display(),
                dir.display()
            ),
        ))
    }
}

/// Reads the whole regular file at `path`, at most `cap` bytes of it (never more than
/// `cap + 1` are read). `Ok(None)`: nothing is there. Larger: an error with a [`Rejected`].
pub fn read(path: &Path, links: Links, cap: u64) -> io::Result<Option<Vec<u8>>> {
    let Some(file) = open(path, links)? else {
        return Ok(None);
    };
    let bytes = read_capped(file, cap)?;
    if bytes.len() as u64 > cap {
        return Err(rejected(path, format!("larger than {cap} bytes")));
    }
    Ok(Some(bytes))
}

/// What [`read_capped`] makes room for before the first read: a usual small file (HEAD, a
/// ref, a session's state, state.json, handover.md) in one read.
const FIRST_READ: u64 = 8 * 1024;

/// `file` from where it stands to its end, at most `cap + 1` bytes (the caller tells a file
/// over `cap` by the length). Behind `take`, `read_to_end` has no size hint: from an empty
/// buffer it reads 32 bytes first and then doubles, so a 1.2 KB state.json took 8 `read`
/// calls. With room for [`FIRST_READ`] bytes up front (not zeroed, not touched past what is
/// read) a small file takes one read and the read that sees its end; a larger one goes on
/// doubling from there. The one place the files of a hook call are read whole.
pub fn read_capped(file: impl Read, cap: u64) -> io::Result<Vec<u8>> {
    let limit = cap.saturating_add(1);
    let room = usize::try_from(limit.min(FIRST_READ)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(room);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read`], as UTF-8 text (anything else is an `InvalidData` error).
pub fn read_to_string(path: &Path, links: Links, cap: u64) -> io::Result<Option<String>> {
    match read(path, links, cap)? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| rejected(path, "not UTF-8 text")),
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn mkfifo(path: &Path) {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(made.success());
    }

    #[test]
    fn devices_fifos_and_directories_are_refused_in_every_mode() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let zero = dir.path().join("zero");
        symlink("/dev/zero", &zero).unwrap();
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        for links in [Links::Refuse, Links::Within(dir.path()), Links::Follow] {
            for p in [&fifo, &sub] {
                let e = read(p, links, 10).unwrap_err();
                assert!(rejection(&e).is_some(), "{e}");
            }
            // /dev/zero behind a link: refused as a link, as outside, or as a device.
            let e = read(&zero, links, 10).unwrap_err();
            assert!(rejection(&e).is_some(), "{e}");
        }
    }

    #[test]
    fn links_follow_the_policy() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("AGENTS.md"), "in").unwrap();
        fs::write(outside.path().join("secret"), "out").unwrap();
        let inside_link = dir.path().join("CLAUDE.md");
        symlink("AGENTS.md", &inside_link).unwrap();
        let outside_link = dir.path().join("GEMINI.md");
        symlink(outside.path().join("secret"), &outside_link).unwrap();

        let within = Links::Within(dir.path());
        assert_eq!(read(&inside_link, within, 10).unwrap().unwrap(), b"in");
        let e = read(&outside_link, within, 10).unwrap_err();
        assert!(rejection(&e).unwrap().what.contains("outside"), "{e}");
        assert!(read(&inside_link, Links::Refuse, 10).is_err());
        assert_eq!(
            read(&outside_link, Links::Follow, 10).unwrap().unwrap(),
            b"out"
        );
        // A dangling link is nothing there.
        let dangling = dir.path().join("gone");
        symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert_eq!(read(&dangling, within, 10).unwrap(), None);
        assert_eq!(
            read(&dir.path().join("missing"), Links::Refuse, 10).unwrap(),
            None
        );
    }

    #[test]
    fn the_cap_is_checked_before_anything_larger_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        fs::write(&p, "12345").unwrap();
        assert_eq!(read(&p, Links::Refuse, 5).unwrap().unwrap(), b"12345");
        let e = read(&p, Links::Refuse, 4).unwrap_err();
        assert_eq!(rejection(&e).unwrap().what, "larger than 4 bytes");
        fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(read_to_string(&p, Links::Refuse, 5).is_err());
    }

    #[test]
    fn files_around_the_first_read_come_whole_and_never_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let first = usize::try_from(FIRST_READ).unwrap();
        for len in [0, 1, first - 1, first, first + 1, 3 * first + 7] {
            let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            fs::write(&p, &bytes).unwrap();
            assert_eq!(read(&p, Links::Refuse, 1 << 20).unwrap().unwrap(), bytes);
            let file = fs::File::open(&p).unwrap();
            let capped = read_capped(file, 10).unwrap();
            assert_eq!(capped, bytes[..len.min(11)], "{len} bytes, cap 10");
        }
    }
}
