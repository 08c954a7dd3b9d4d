//! How the agent should run handover in the commands the hooks print: the `handover` binary
//! installed beside the hook executable when there is one (the agent's PATH may not have it),
//! else plain `handover`.

use handover_installer::command::shell_quote;
use std::path::Path;

pub fn handover_command(hook_exe: Option<&Path>) -> String {
    let beside = hook_exe
        .and_then(Path::parent)
        .map(|dir| dir.join("handover"))
        .filter(|p| p.is_file());
    match beside.as_deref().and_then(Path::to_str) {
        Some(path) => shell_quote(path),
        None => "handover".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_the_binary_beside_the_hook_when_present() {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("handover-session-start");
        assert_eq!(handover_command(Some(&hook)), "handover");
        std::fs::write(dir.path().join("handover"), b"").unwrap();
        assert_eq!(
            handover_command(Some(&hook)),
            shell_quote(dir.path().join("handover").to_str().unwrap())
        );
        assert_eq!(handover_command(None), "handover");
        let spaced = dir.path().join("my tools");
        std::fs::create_dir(&spaced).unwrap();
        std::fs::write(spaced.join("handover"), b"").unwrap();
        let cmd = handover_command(Some(&spaced.join("handover-context-watch")));
        assert!(
            cmd.starts_with('\'') && cmd.ends_with("/my tools/handover'"),
            "{cmd}"
        );
    }
}
