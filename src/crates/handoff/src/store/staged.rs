//! Two-phase file replacement for the store's transaction: every new file is first written in
//! full to a temporary name beside its target and synced (`stage`); only when everything has
//! been staged, archived and journaled are the temporaries renamed into place (`commit`).
//! A failure while staging therefore changes nothing the user can see: dropping a `Staged`
//! that was not committed removes its temporary file.
//!
//! Temporary names start with `.<target name>.tmp.`, the pattern the store sweeps under its
//! lock after a writer was killed mid-write.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub struct Staged {
    tmp: PathBuf,
    target: PathBuf,
    committed: bool,
}

/// Writes `contents` to a temporary file beside `target` and syncs it. The target keeps its
/// permissions when it exists. Nothing is followed: committing replaces `target` itself.
pub fn stage(target: &Path, contents: &[u8]) -> io::Result<Staged> {
    let dir = parent(target);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let staged = Staged {
        tmp,
        target: target.to_path_buf(),
        committed: false,
    };
    // A leftover of ours from an earlier run with the same pid: it is swept anyway.
    let _ = fs::remove_file(&staged.tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&staged.tmp)?;
    f.write_all(contents)?;
    if let Ok(m) = fs::symlink_metadata(target) {
        if m.is_file() {
            f.set_permissions(m.permissions())?;
        }
    }
    f.sync_all()?;
    Ok(staged)
}

impl Staged {
    /// Renames the temporary file over the target and makes the rename durable.
    pub fn commit(mut self) -> io::Result<()> {
        fs::rename(&self.tmp, &self.target)?;
        self.committed = true;
        if let Ok(d) = File::open(parent(&self.target)) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
