//! How the agent should run handover in the commands the hooks print: the `handover` binary
//! installed beside the hook executable when there is one (the agent's PATH may not have it),
//! else plain `handover`.

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

/// POSIX shell quoting, only when needed: `/usr/bin/handover` stays as is, a path with a space
/// becomes `'/my tools/handover'`.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(
            shell_quote("/usr/local/bin/handover"),
            "/usr/local/bin/handover"
        );
        assert_eq!(shell_quote("/my tools/handover"), "'/my tools/handover'");
        assert_eq!(shell_quote("/it's/handover"), r"'/it'\''s/handover'");
    }

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
    }
}
