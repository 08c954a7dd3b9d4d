//! Our three hook executables and the shell command that runs one (which client events each
//! one serves, and with which timeout, is each client's knowledge: handover_clients).
//!
//! Both clients run a hook's `command` through a shell, so the absolute path is POSIX
//! single-quoted when it holds anything but plainly safe characters.

use crate::shell::shell_quote;
use std::fmt::Display;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookExe {
    SessionStart,
    PreCompact,
    ContextWatch,
}

impl HookExe {
    pub const ALL: [HookExe; 3] = [
        HookExe::SessionStart,
        HookExe::PreCompact,
        HookExe::ContextWatch,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            HookExe::SessionStart => "handover-session-start",
            HookExe::PreCompact => "handover-pre-compact",
            HookExe::ContextWatch => "handover-context-watch",
        }
    }

    pub fn from_file_name(name: &str) -> Option<HookExe> {
        HookExe::ALL.into_iter().find(|e| e.file_name() == name)
    }
}

/// Seconds a client waits for one of our hooks (each client module writes it in its own unit). They answer in milliseconds; the bound only
/// matters if something hangs (a stuck network filesystem), and then the session must go on.
pub const TIMEOUT_SECS: u64 = 10;

/// The shell program of the portable hook command (see [`portable_command`]). `$0` is the
/// executable's name, the rest of the arguments are passed on. It looks the executable up at
/// run time, on PATH first, then in cargo's bin directory (`${CARGO_HOME:-$HOME/.cargo}/bin`,
/// which a client started from a desktop launcher may not have on PATH), like the plugin's
/// launcher does. When it is in neither place the hook fails open: exit 0 and no output,
/// except at a session start one `systemMessage` to the user (both clients show it without
/// calling it an error) saying why nothing happens and how to install handover.
///
/// Recognised by its exact text (hook_command::recognise): changing one byte of it makes
/// every committed install "out of date" until `handover install` runs again, so keep it
/// stable, and when it must change, move the old text to [`EARLIER_LAUNCHERS`]. It holds no single quote (it is single-quoted in the command) and no backslash
/// pair (fish, a login shell Codex may use, reads `\\` inside single quotes).
pub const LAUNCHER: &str = concat!(
    "e=$0; c=${CARGO_HOME:-$HOME/.cargo}/bin/$e; ",
    "if command -v \"$e\" >/dev/null 2>&1; then exec \"$e\" \"$@\"; ",
    "elif [ -x \"$c\" ]; then exec \"$c\" \"$@\"; fi; ",
    "[ \"$e\" != handover-session-start ] || echo \"{\\\"systemMessage\\\": \\\"",
    "handover is set up in this repository but not installed on this machine, so its hooks do nothing. ",
    "To use it: get the source of handover (ask whoever set it up here), ",
    "run cargo install --locked --path <that checkout> (its docs/install.md says more), ",
    "then start a new session.",
    "\\\"}\"; exit 0"
);

/// The launcher texts earlier versions wrote, still recognised as ours (hook_command::recognise)
/// so that a committed install made with one is updated in place by the next `handover install`
/// and `status` calls it out of date, instead of taking it for a user's own command and adding
/// a second hook beside it. Oldest first.
pub const EARLIER_LAUNCHERS: [&str; 1] = [concat!(
    "e=$0; c=${CARGO_HOME:-$HOME/.cargo}/bin/$e; ",
    "if command -v \"$e\" >/dev/null 2>&1; then exec \"$e\" \"$@\"; ",
    "elif [ -x \"$c\" ]; then exec \"$c\" \"$@\"; fi; ",
    "[ \"$e\" != handover-session-start ] || echo \"{\\\"systemMessage\\\": \\\"",
    "handover is set up in this repository but not installed on this machine, so its hooks do nothing. ",
    // An unpublished crate's name: the advice failed (or would install a stranger's crate).
    "To use it: cargo install --locked handover, then start a new session.",
    "\\\"}\"; exit 0"
)];

/// The command a client runs for `exe` (`agent`: its `--agent` name, the client registry's
/// `Agent` or the name itself), the same on every machine: no path of the machine
/// that installed it, so a committed settings file works for every teammate (and does
/// nothing, without an error, for one who has not installed handover).
pub fn portable_command(exe: HookExe, agent: impl Display) -> String {
    format!("sh -c '{LAUNCHER}' {} --agent {agent}", exe.file_name())
}

/// The command line a client runs for the hook executable at `path`.
pub fn command_for(path: &Path, agent: impl Display) -> String {
    format!("{} --agent {agent}", shell_quote(&path.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip() {
        for exe in HookExe::ALL {
            assert_eq!(HookExe::from_file_name(exe.file_name()), Some(exe));
        }
        assert_eq!(HookExe::from_file_name("handover"), None);
    }

    #[test]
    fn quoted_paths_run_in_a_real_shell() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("it's a \"dir\" $HOME");
        std::fs::create_dir(&sub).unwrap();
        let exe = sub.join("handover-session-start");
        std::fs::write(&exe, "#!/bin/sh\necho \"ran $*\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Another test thread that forks while the script is still open for writing holds it
        // open in its child until that child's exec: running the script then fails with "Text
        // file busy" for a moment. A few bounded tries tell that race from a wrong command.
        let mut out = None;
        for _ in 0..20 {
            let run = std::process::Command::new("sh")
                .arg("-c")
                .arg(command_for(&exe, "claude"))
                .output()
                .unwrap();
            let busy = String::from_utf8_lossy(&run.stderr).contains("busy");
            out = Some(run);
            if !busy {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = out.unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "ran --agent claude\n",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
