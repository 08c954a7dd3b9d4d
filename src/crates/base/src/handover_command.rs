//! How an agent is told to run handover, in every text we show it (the startup context the
//! SessionStart hook injects, the save-progress instruction, `handover boot --startup`).
//!
//! One rule for the CLI and the hooks, so `boot --startup` previews exactly what the hook says:
//! the `handover` binary installed beside our executables, by its absolute path, unless it is
//! the one the PATH finds (then plain `handover`, shorter and just as right). Without one beside
//! them, plain `handover`. The agent's shell may not have our PATH, hence the absolute path.

use crate::shell::shell_quote;
use std::path::{Path, PathBuf};

/// The command for the `handover` binary in `install_dir` (the directory holding the running
/// executable), judged against the PATH `path_var`.
pub fn handover_command_in(
    install_dir: Option<&Path>,
    path_var: Option<&std::ffi::OsStr>,
) -> String {
    let beside = install_dir
        .map(|dir| dir.join("handover"))
        .filter(|p| p.is_file());
    let Some(beside) = beside else {
        return "handover".to_string();
    };
    if on_path(path_var).as_deref().and_then(canonical) == canonical(&beside) {
        return "handover".to_string();
    }
    match beside.to_str() {
        Some(path) => shell_quote(path),
        None => "handover".to_string(),
    }
}

/// [`handover_command_in`] for the running executable and this process's PATH.
pub fn handover_command() -> String {
    let exe = std::env::current_exe().ok();
    handover_command_in(
        exe.as_deref().and_then(Path::parent),
        std::env::var_os("PATH").as_deref(),
    )
}

fn on_path(path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .map(|d| d.join("handover"))
        .find(|c| c.is_file())
}

fn canonical(p: &Path) -> Option<PathBuf> {
    p.canonicalize().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_binary_beside_us_by_path_unless_path_finds_the_same_one() {
        let dir = tempfile::tempdir().unwrap();
        let none = OsStr::new("");
        assert_eq!(
            handover_command_in(Some(dir.path()), Some(none)),
            "handover"
        );
        std::fs::write(dir.path().join("handover"), b"").unwrap();
        assert_eq!(
            handover_command_in(Some(dir.path()), Some(none)),
            shell_quote(dir.path().join("handover").to_str().unwrap())
        );
        assert_eq!(
            handover_command_in(Some(dir.path()), Some(dir.path().as_os_str())),
            "handover"
        );
        assert_eq!(handover_command_in(None, Some(none)), "handover");
        let spaced = dir.path().join("my tools");
        std::fs::create_dir(&spaced).unwrap();
        std::fs::write(spaced.join("handover"), b"").unwrap();
        let cmd = handover_command_in(Some(&spaced), None);
        assert!(
            cmd.starts_with('\'') && cmd.ends_with("/my tools/handover'"),
            "{cmd}"
        );
    }
}
