//! Backups of the files we edit, kept OUTSIDE every repository so none is committed by accident:
//! `<backups>/<absolute path of the file>.handover-backup-<UTC stamp>` (the file's directories
//! mirrored under the backups directory, `~/.local/state/handover/backups` by default).
//!
//! A backup holds the file as it was before handover changed it. The newest backup of a file is
//! "its" backup only while the user's part of the file is still what the backup holds; once the
//! user changed the file, the next edit makes a new one (older ones stay, named by their stamp).
//! The newest backup is also the record that a file existed before install: uninstall never
//! deletes such a file.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

pub const MARK: &str = ".handover-backup-";

/// Backups are named by the UTC time of the run (`20261122T021500Z`).
pub fn stamp() -> String {
    handover_base::clock::format_compact(handover_base::clock::unix_now().0)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Backups {
    pub root: PathBuf,
}

impl Backups {
    pub fn new(root: impl Into<PathBuf>) -> Backups {
        Backups { root: root.into() }
    }

    /// True when the newest backup of `path` already holds the user's part of `text`, as
    /// `user_part` reads a version of the file (after the user changed the file, the old backup
    /// is stale and a new one is needed).
    pub fn hold(
        &self,
        path: &Path,
        text: &str,
        user_part: impl Fn(&str) -> Option<String>,
    ) -> bool {
        self.latest(path)
            .and_then(|b| crate::files::read_opt(&b).ok().flatten())
            .is_some_and(|old| {
                old == text || user_part(&old).is_some_and(|u| Some(u) == user_part(text))
            })
    }

    /// The directory holding the backups of `file` (its absolute directory mirrored under root).
    pub fn dir_for(&self, file: &Path) -> PathBuf {
        let mut dir = self.root.clone();
        for c in file.parent().unwrap_or(Path::new("")).components() {
            if let Component::Normal(part) = c {
                dir.push(part);
            }
        }
        dir
    }

    fn prefix(file: &Path) -> String {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{name}{MARK}")
    }

    /// The newest backup of `file` (stamps sort as time), if any.
    pub fn latest(&self, file: &Path) -> Option<PathBuf> {
        let prefix = Self::prefix(file);
        fs::read_dir(self.dir_for(file))
            .ok()?
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .max()
    }

    /// Writes `contents` as a new backup of `file` (never over an existing one; private to the
    /// user: settings files can hold secrets).
    pub fn make(&self, file: &Path, stamp: &str, contents: &[u8]) -> io::Result<PathBuf> {
        let dir = self.dir_for(file);
        fs::create_dir_all(&dir)?;
        let base = format!("{}{stamp}", Self::prefix(file));
        for n in 1..100 {
            let path = if n == 1 {
                dir.join(&base)
            } else {
                dir.join(format!("{base}-{n}"))
            };
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(mut f) => {
                    f.write_all(contents)?;
                    f.sync_all()?;
                    return Ok(path);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("too many backups named {base}"),
        ))
    }
}

/// Backups an older handover left beside `file` (inside the repository, where git may pick them
/// up): reported so the user can move them out.
pub fn beside(file: &Path) -> Vec<PathBuf> {
    let prefix = Backups::prefix(file);
    let Some(dir) = file.parent() else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_the_path_and_never_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let b = Backups::new(tmp.path());
        let file = Path::new("/home/ana/src/app/.claude/settings.json");
        assert_eq!(b.dir_for(file), tmp.path().join("home/ana/src/app/.claude"));
        assert_eq!(b.latest(file), None);
        let first = b.make(file, "20261122T021500Z", b"one").unwrap();
        let second = b.make(file, "20261122T021500Z", b"two").unwrap();
        assert_ne!(first, second);
        assert_eq!(fs::read(&first).unwrap(), b"one");
        let third = b.make(file, "20261123T000000Z", b"three").unwrap();
        assert_eq!(b.latest(file), Some(third));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&first).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
