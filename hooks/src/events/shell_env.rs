//! The session id for the agent's own shell commands, where the client gives them none but
//! applies what a SessionStart hook exports (Factory Droid: `Quirks::takes_session_id_from_hook`).
//! `handover write`, run by the agent, then finds the writer's own record by that id.
//!
//! The file is the one the client named in this payload (`CLAUDE_ENV_FILE`); the client reads it
//! once the hook is done and deletes it. One line is appended, never more: a session id that is
//! not a plain token (letters, digits, `-`, `_`, `.`) is not written, so the line can not be
//! read as anything but one assignment, by the client's parser or by a shell. A link at the
//! file's name is not followed, and no directory is created.

use handover_clients::Client;
use std::io::Write;
use std::path::Path;

/// Appends `export <var>=<session id>` to `env_file`. A note for the debug log: what was done,
/// or why not (None when the client takes no session id this way).
pub fn export_session_id(
    client: &Client,
    env_file: Option<&str>,
    session_id: Option<&str>,
) -> Option<String> {
    if !client.quirks.takes_session_id_from_hook {
        return None;
    }
    let var = client.shell_session_id_var?;
    let file = env_file.map(Path::new).filter(|p| p.is_absolute());
    let Some(file) = file else {
        return Some("no env file: session id not exported".into());
    };
    let Some(sid) = session_id.filter(|s| is_plain_token(s)) else {
        return Some("session id not exported: not a plain token".into());
    };
    match append(file, &format!("export {var}={sid}\n")) {
        Ok(()) => Some(format!("exported {var}")),
        Err(e) => Some(format!("session id not exported: {e}")),
    }
}

/// At most 128 characters of `[A-Za-z0-9._-]`, not starting with `-`.
fn is_plain_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && !s.starts_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn append(file: &Path, line: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    // Anything already at the name must be a plain file (a FIFO would block the hook).
    if let Ok(m) = std::fs::symlink_metadata(file) {
        if !m.file_type().is_file() {
            return Err(std::io::Error::other("not a plain file"));
        }
    }
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(OPEN_FLAGS)
        .open(file)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a plain file"));
    }
    f.write_all(line.as_bytes())
}

/// A link swapped in after the check is not followed, and a FIFO does not block the open.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const OPEN_FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
const OPEN_FLAGS: i32 = 0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temp_files::temp_file;
    use handover_clients::{claude, droid};

    #[test]
    fn droid_gets_one_export_line_appended() {
        let (dir, file) = temp_file("droid-env-s1-x.sh", "export MINE=1\n");
        let note = export_session_id(&droid::CLIENT, file.to_str(), Some("52b2a7eb-84ec-4e60"));
        assert_eq!(note.as_deref(), Some("exported HANDOVER_DROID_SESSION_ID"));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "export MINE=1\nexport HANDOVER_DROID_SESSION_ID=52b2a7eb-84ec-4e60\n"
        );
        // A fresh file is created (the client only names it).
        let fresh = dir.path().join("fresh.sh");
        export_session_id(&droid::CLIENT, fresh.to_str(), Some("s2"));
        assert_eq!(
            std::fs::read_to_string(&fresh).unwrap(),
            "export HANDOVER_DROID_SESSION_ID=s2\n"
        );
    }

    #[test]
    fn other_clients_odd_ids_relative_paths_and_links_get_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("env.sh");
        // Claude Code sets its own variable for its commands.
        assert_eq!(
            export_session_id(&claude::CLIENT, file.to_str(), Some("s1")),
            None
        );
        assert!(!file.exists());
        for sid in [
            "a b",
            "x;rm -rf ~",
            "$(id)",
            "-n",
            "a\nexport PATH=/tmp",
            "",
        ] {
            let note = export_session_id(&droid::CLIENT, file.to_str(), Some(sid)).unwrap();
            assert!(note.contains("not a plain token"), "{sid:?}: {note}");
        }
        assert!(!file.exists());
        assert!(
            export_session_id(&droid::CLIENT, Some("env.sh"), Some("s1"))
                .unwrap()
                .contains("no env file")
        );
        assert!(!Path::new("env.sh").exists());
        // A link at the name is not followed: its target stays as it was.
        let target = dir.path().join("target");
        std::fs::write(&target, "keep\n").unwrap();
        let link = dir.path().join("link.sh");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let note = export_session_id(&droid::CLIENT, link.to_str(), Some("s1")).unwrap();
        assert!(note.starts_with("session id not exported"), "{note}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
        // A missing directory is not created.
        let deep = dir.path().join("no/such/dir/env.sh");
        export_session_id(&droid::CLIENT, deep.to_str(), Some("s1"));
        assert!(!dir.path().join("no").exists());
    }
}
