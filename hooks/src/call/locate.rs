//! Which repository a hook call is about: the input's `cwd`, else `$CLAUDE_PROJECT_DIR`, else
//! the process directory; the first that is an existing directory. `Store::discover` then walks
//! up to the working tree's top, so a subdirectory or a linked worktree works.

use std::path::{Path, PathBuf};

pub fn start_dir(
    input_cwd: Option<&str>,
    project_dir_env: Option<&str>,
    process_dir: Option<&Path>,
) -> Option<PathBuf> {
    [
        input_cwd.map(PathBuf::from),
        project_dir_env.map(PathBuf::from),
    ]
    .into_iter()
    .flatten()
    .chain(process_dir.map(Path::to_path_buf))
    .find(|p| p.is_absolute() && p.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_existing_directory_wins() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let a_s = a.path().to_str().unwrap();
        let b_s = b.path().to_str().unwrap();
        assert_eq!(
            start_dir(Some(a_s), Some(b_s), None).as_deref(),
            Some(a.path())
        );
        assert_eq!(
            start_dir(Some("/nonexistent/x"), Some(b_s), None).as_deref(),
            Some(b.path())
        );
        assert_eq!(
            start_dir(Some("relative/dir"), None, Some(a.path())).as_deref(),
            Some(a.path())
        );
        assert_eq!(start_dir(None, Some("/nonexistent/y"), None), None);
    }
}
