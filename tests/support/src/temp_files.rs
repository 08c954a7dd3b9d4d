//! A temporary folder with one file or folder made in it, for the unit tests of the crates
//! (included by path, as `test_git.rs` is): the set-up that most tests of files start with,
//! written once. Public in each crate's test build, as not every crate uses both.

use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A new temporary folder with the folder `rel` made inside it (and its parents): the temporary
/// folder, which goes when dropped, and `rel`'s path.
pub fn temp_folder(rel: &str) -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let folder = tmp.path().join(rel);
    std::fs::create_dir_all(&folder).expect("the folder made");
    (tmp, folder)
}

/// A new temporary folder with the file `rel` inside it (its folders made) holding `content`:
/// the temporary folder, which goes when dropped, and the file's path.
pub fn temp_file(rel: &str, content: &str) -> (TempDir, PathBuf) {
    let parent = Path::new(rel).parent().and_then(Path::to_str).unwrap_or("");
    let (tmp, _) = temp_folder(parent);
    let file = tmp.path().join(rel);
    std::fs::write(&file, content).expect("the file written");
    (tmp, file)
}
