//! Atomic file replacement: write a temporary file beside the target, rename over it, keeping
//! the file's permissions. A crash at any moment leaves either the old or the new content,
//! never a mix. Two kinds: durable (fsynced; follows a symlink to the real file, for users'
//! config files that live in a dotfiles repository) and advisory (no fsync, never follows).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The file a path really names: symlinks resolved, so a link to a dotfiles repo keeps working.
pub fn real_target(path: &Path) -> PathBuf {
    match fs::canonicalize(path) {
        Ok(p) => p,
        // Dangling link: write where it points, relative to the link's directory.
        Err(_) => match fs::read_link(path) {
            Ok(t) if t.is_absolute() => t,
            Ok(t) => path.parent().map(|d| d.join(&t)).unwrap_or(t),
            Err(_) => path.to_path_buf(),
        },
    }
}

/// Replaces the file `path` names (through a symlink: the link stays a link), durably: the
/// content and the rename are fsynced before this returns.
pub fn write_atomic(path: &Path, contents: &[u8]) -> io::Result<()> {
    replace(&real_target(path), contents, Durability::Durable)
}

/// Replaces `path` itself (a symlink there is replaced, never followed) without fsync: for
/// advisory state whose loss in a power cut costs nothing, written where an fsync would cost an
/// agent milliseconds on every event.
pub fn replace_advisory(path: &Path, contents: &[u8]) -> io::Result<()> {
    replace(path, contents, Durability::Advisory)
}

/// Replaces `path` itself (a symlink there is replaced, never followed), durably: for files
/// inside a repository, where following a link could write outside it.
pub fn replace_durable(path: &Path, contents: &[u8]) -> io::Result<()> {
    replace(path, contents, Durability::Durable)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    Durable,
    Advisory,
}

/// Temporary file beside `target` (unique per process and call, so concurrent writers never
/// share one), then rename over `target`: readers see the old or the new content, never a mix.
fn replace(target: &Path, contents: &[u8], durability: Durability) -> io::Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = fs::metadata(target).ok().map(|m| m.permissions());
    let tmp = dir.join(format!(".{name}.tmp.{}.{}", std::process::id(), unique()));
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(contents)?;
        if let Some(p) = &permissions {
            f.set_permissions(p.clone())?;
        }
        if durability == Durability::Durable {
            f.sync_all()?;
        }
        drop(f);
        fs::rename(&tmp, target)?;
        if durability == Durability::Durable {
            // Make the rename itself durable.
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A number no other temporary file name of this process uses (a counter mixed with the
/// clock's nanoseconds, so names also differ across processes that reuse a pid).
pub fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    (COUNTER.fetch_add(1, Ordering::Relaxed) << 32) ^ nanos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temp_files::temp_file;

    #[test]
    fn replaces_content_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, p) = temp_file("settings.json", "old");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn writes_through_a_symlink_and_keeps_the_link() {
        let (_dir, real, link) = linked("real.json", "old", "link.json");
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn advisory_replace_replaces_a_symlink_instead_of_following_it() {
        let (_dir, real, link) = linked("elsewhere.json", "theirs", "state.json");
        replace_advisory(&link, b"ours").unwrap();
        assert_eq!(fs::read_to_string(&real).unwrap(), "theirs");
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_file());
        assert_eq!(fs::read_to_string(&link).unwrap(), "ours");
    }

    /// A file `real` holding `text` and a symlink `link` to it, in a temp dir: (dir, real, link).
    fn linked(real: &str, text: &str, link: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let (dir, real) = crate::temp_files::temp_file(real, text);
        let link = dir.path().join(link);
        std::os::unix::fs::symlink(&real, &link).unwrap();
        (dir, real, link)
    }
}
