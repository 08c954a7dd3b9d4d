//! Everything that could stop a write, checked for every file of a run before the first one is
//! written: the file stays inside the repository when it belongs there (no symlink out of it),
//! it is a regular file and not read-only, and the directories we would write in are writable.
//!
//! Read-only means the permission bits say so: a file or directory with no write bit is left
//! alone even for root, who could write it anyway (the bits are the user's intent).

use crate::error::EditError;
use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// What a run will do to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Create or replace the file (through a symlink: its target).
    Write,
    /// Remove the file (a symlink itself would be removed, not its target).
    Delete,
}

/// The path a write to `path` really lands on: every symlink resolved, at every level, even
/// when the final file (or a link's target) does not exist yet. Bounded against link loops.
pub fn resolved(path: &Path) -> PathBuf {
    resolve_depth(path, 0)
}

fn resolve_depth(path: &Path, depth: usize) -> PathBuf {
    if let Ok(p) = fs::canonicalize(path) {
        return p;
    }
    if depth > 40 {
        return path.to_path_buf();
    }
    if let Ok(target) = fs::read_link(path) {
        let target = match path.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
        return resolve_depth(&target, depth + 1);
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => {
            resolve_depth(dir, depth + 1).join(name)
        }
        _ => normalise(path),
    }
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// True when the permission bits allow writing and the system agrees (`access(2)`: ownership,
/// ACLs, read-only mounts).
// access(2) is the one question the standard library cannot ask.
#[allow(unsafe_code)]
pub fn writable(p: &Path) -> bool {
    let Ok(meta) = fs::metadata(p) else {
        return false;
    };
    if meta.permissions().mode() & 0o222 == 0 {
        return false;
    }
    let Ok(c) = CString::new(p.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call; access(2) only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// The nearest ancestor of `dir` (itself included) that exists.
fn existing_ancestor(dir: &Path) -> Option<&Path> {
    dir.ancestors()
        .find(|a| !a.as_os_str().is_empty() && fs::symlink_metadata(a).is_ok())
}

/// Checks that we may create files in `dir` (creating the missing part of it first).
pub fn check_dir(dir: &Path, for_file: &Path) -> Result<(), EditError> {
    let Some(existing) = existing_ancestor(dir) else {
        return Ok(());
    };
    let is_dir = fs::metadata(existing).map(|m| m.is_dir()).unwrap_or(false);
    if !is_dir {
        return Err(EditError::new(
            for_file,
            format!(
                "cannot create it: {} is not a directory; move that file away, then run again (nothing was written)",
                existing.display()
            ),
        ));
    }
    if !writable(existing) {
        return Err(EditError::new(
            for_file,
            format!(
                "cannot write in {}: the directory is read-only; make it writable (`chmod u+w {}`) and run again, or leave this client out (nothing was written)",
                existing.display(),
                existing.display()
            ),
        ));
    }
    Ok(())
}

/// Every check for one file of the run. `confine`: the repository root (canonical) when the
/// file belongs inside the repository.
pub fn check_file(path: &Path, access: Access, confine: Option<&Path>) -> Result<(), EditError> {
    let real = resolved(path);
    if let Some(root) = confine {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !real.starts_with(&root) {
            let how = if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                "is a symbolic link to"
            } else {
                "lies, through a symbolic link, at"
            };
            return Err(EditError::new(
                path,
                format!(
                    "{how} {}, outside the repository; handover does not write outside the repository. Replace the link with a regular file (or remove it), then run again (nothing was written)",
                    real.display()
                ),
            ));
        }
    }
    let target = match access {
        Access::Write => real.clone(),
        Access::Delete => path.to_path_buf(),
    };
    if let Ok(meta) = fs::symlink_metadata(&target) {
        if meta.is_dir() {
            return Err(EditError::new(
                path,
                "is a directory, not a file; move it away, then run again (nothing was written)",
            ));
        }
        if access == Access::Write && !writable(&target) {
            return Err(EditError::new(
                path,
                format!(
                    "is read-only (mode {:o}); handover does not change a read-only file. Make it writable (`chmod u+w {}`) and run again, or leave this client out (nothing was written)",
                    meta.permissions().mode() & 0o7777,
                    target.display()
                ),
            ));
        }
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    check_dir(dir, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_links_at_every_level_even_dangling_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let outside = root.join("outside");
        let repo = root.join("repo");
        fs::create_dir_all(&outside).unwrap();
        fs::create_dir_all(&repo).unwrap();
        std::os::unix::fs::symlink(&outside, repo.join(".claude")).unwrap();
        std::os::unix::fs::symlink("../outside/nope.md", repo.join("AGENTS.md")).unwrap();
        assert_eq!(
            resolved(&repo.join(".claude/settings.json")),
            outside.join("settings.json")
        );
        assert_eq!(resolved(&repo.join("AGENTS.md")), outside.join("nope.md"));
        assert_eq!(resolved(&repo.join("new/dir/x")), repo.join("new/dir/x"));
        let err = check_file(&repo.join("AGENTS.md"), Access::Write, Some(&repo)).unwrap_err();
        assert!(
            err.message.starts_with("is a symbolic link to")
                && err.message.contains("outside the repository"),
            "{err}"
        );
        assert!(check_file(&repo.join("CLAUDE.md"), Access::Write, Some(&repo)).is_ok());
    }

    #[test]
    fn read_only_files_and_directories_are_refused() {
        let (tmp, f) = crate::temp_files::temp_file("settings.json", "{}");
        fs::set_permissions(&f, fs::Permissions::from_mode(0o444)).unwrap();
        let err = check_file(&f, Access::Write, None).unwrap_err();
        assert!(err.message.starts_with("is read-only (mode 444)"), "{err}");
        let ro = tmp.path().join("ro");
        fs::create_dir(&ro).unwrap();
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
        let err = check_file(&ro.join("sub/hooks.json"), Access::Write, None).unwrap_err();
        assert!(err.message.contains("the directory is read-only"), "{err}");
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
    }
}
