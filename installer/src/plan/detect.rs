//! Which clients a bare `handover install` wires: the ones this machine uses, plus the ones
//! already wired where the install writes. ONE rule, here, for install and its tests:
//!
//! - a client is used on this machine when its own user directory exists (`~/.claude`,
//!   `$CODEX_HOME` else `~/.codex`, `~/.gemini`, ...: the client module's
//!   [`handover_clients::Client::user_dir`]) or its program is on PATH
//!   ([`handover_clients::Client::executable`]);
//! - a client is wired when its hooks file for the scope has a hook of ours, or a command of
//!   the user's that runs one (an unreadable file counts as wired: refreshing it is the safe
//!   mistake, and install then says what is wrong with it).

use crate::files::{hooks_path, read_opt, Homes, Targets};
use crate::locate::on_path;
use handover_clients::Agent;
use handover_clients::Client;
use handover_clients::Scope;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Why a client counts as one this install is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sign {
    /// Its user directory exists.
    UserDir(PathBuf),
    /// Its program is on PATH.
    OnPath(PathBuf),
    /// Its hooks file for the scope already runs ours.
    Wired(PathBuf),
}

/// The clients a bare install is for, each with the sign that chose it, in registry order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detected {
    pub chosen: Vec<(Agent, Sign)>,
}

impl Detected {
    pub fn targets(&self) -> Targets {
        Targets::of(self.chosen.iter().map(|(a, _)| *a))
    }

    /// The clients left out, in registry order.
    pub fn others(&self) -> Targets {
        let chosen = self.targets();
        Targets::of(Agent::ALL.into_iter().filter(|a| !chosen.contains(*a)))
    }
}

/// The clients this machine uses or that are wired at `scope` for `repo` (see the module's
/// rule). `path_var` is the PATH the programs are looked up on.
pub fn detect(repo: &Path, homes: &Homes, scope: Scope, path_var: Option<&OsStr>) -> Detected {
    let chosen = handover_clients::ALL
        .into_iter()
        .filter_map(|c| {
            let sign = used_here(c, homes, path_var).or_else(|| {
                let file = hooks_path(c.agent, scope, repo, homes);
                wired(c.agent, &file).then_some(Sign::Wired(file))
            })?;
            Some((c.agent, sign))
        })
        .collect();
    Detected { chosen }
}

/// The sign that this machine uses `client`: its user directory, else its program on PATH.
pub fn used_here(client: &Client, homes: &Homes, path_var: Option<&OsStr>) -> Option<Sign> {
    if let Some(dir) = client.user_dir(&homes.dirs).filter(|d| d.is_dir()) {
        return Some(Sign::UserDir(dir));
    }
    on_path(client.executable, path_var).map(Sign::OnPath)
}

/// Whether `file` (a hooks file of `agent`) has a hook of ours, or a command of the user's
/// that runs one. Unreadable or unparseable: yes (see the module's rule).
pub fn wired(agent: Agent, file: &Path) -> bool {
    match read_opt(file) {
        Ok(None) => false,
        Ok(Some(text)) => match crate::edit::json_layout::parse(file, &text) {
            Ok(doc) => {
                let (ours, mentions) = crate::wiring::of(agent).find_ours(&doc);
                !ours.is_empty() || !mentions.is_empty()
            }
            Err(_) => true,
        },
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_user_folder_a_program_on_path_or_our_hooks_choose_a_client() {
        let (tmp, claude_home) = crate::temp_files::temp_folder("home/.claude");
        let root = tmp.path();
        let homes = Homes::under(&root.join("home"));
        let repo = root.join("repo");
        let bin = root.join("bin");
        for d in [&repo, &bin] {
            std::fs::create_dir_all(d).unwrap();
        }
        // A `gemini` program on PATH, a `qwen` that is not executable.
        for (name, mode) in [("gemini", 0o755), ("qwen", 0o644)] {
            std::fs::write(bin.join(name), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(mode))
                .unwrap();
        }
        // Droid wired in the repository already.
        std::fs::create_dir_all(repo.join(".factory")).unwrap();
        std::fs::write(
            repo.join(".factory/settings.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "handover-context-watch --agent droid"}]}]}}"#,
        )
        .unwrap();
        let path = std::env::join_paths([Path::new("relative"), &bin]).unwrap();
        let found = detect(&repo, &homes, Scope::Project, Some(&path));
        assert_eq!(
            found.chosen,
            [
                (Agent::Claude, Sign::UserDir(claude_home)),
                (Agent::Gemini, Sign::OnPath(bin.join("gemini"))),
                (
                    Agent::Droid,
                    Sign::Wired(repo.join(".factory/settings.json"))
                ),
            ]
        );
        assert_eq!(
            found.others().iter().collect::<Vec<_>>(),
            [
                Agent::Codex,
                Agent::Qwen,
                Agent::Copilot,
                Agent::OpenCode,
                Agent::Kilo
            ]
        );
        // At the user scope the repository's files do not count.
        let user = detect(&repo, &homes, Scope::User, None);
        assert_eq!(user.targets().iter().collect::<Vec<_>>(), [Agent::Claude]);
        // Nothing at all.
        let empty = Homes::under(&root.join("nobody"));
        assert!(detect(&repo.join("none"), &empty, Scope::Project, None)
            .targets()
            .is_empty());
    }
}
