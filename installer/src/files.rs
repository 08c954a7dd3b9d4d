//! The files an install reads and writes: which they are for each agent and scope, the home
//! directories they live under, how they are read, and how their paths are shown.

use crate::error::EditError;
use handover_clients::Agent;
use handover_clients::{Client, UserDirs};
use std::io;
use std::path::{Path, PathBuf};

/// Project, local or user: where an install writes (handover_clients::Scope).
use handover_clients::Scope;

/// The clients an install or uninstall acts on: a set of [`Agent`]s, iterated in
/// [`Agent::ALL`] order (the order install and status list them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Targets {
    /// Bit `i` set: `Agent::ALL[i]` is selected.
    bits: u32,
}

impl Targets {
    fn bit(agent: Agent) -> u32 {
        let i = Agent::ALL.iter().position(|a| *a == agent).unwrap_or(0);
        1 << i
    }

    /// Every client.
    pub fn all() -> Targets {
        Targets::of(Agent::ALL)
    }

    /// Exactly `agents`.
    pub fn of(agents: impl IntoIterator<Item = Agent>) -> Targets {
        Targets {
            bits: agents.into_iter().fold(0, |b, a| b | Targets::bit(a)),
        }
    }

    pub fn contains(self, agent: Agent) -> bool {
        self.bits & Targets::bit(agent) != 0
    }

    /// These targets without `agent`.
    pub fn without(self, agent: Agent) -> Targets {
        Targets {
            bits: self.bits & !Targets::bit(agent),
        }
    }

    pub fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// The selected clients, in [`Agent::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Agent> {
        Agent::ALL.into_iter().filter(move |a| self.contains(*a))
    }
}

/// Home directories, injected so tests never touch the real `~`.
#[derive(Clone, Debug, PartialEq)]
pub struct Homes {
    /// `~`.
    pub home: PathBuf,
    /// `~` and the variables the clients move their directories with, as read: each client's
    /// own directory is [`Homes::user_dir`], by its module's rule.
    pub dirs: UserDirs,
    /// `$CARGO_HOME`, default `~/.cargo`: the portable hook command looks in its `bin` when
    /// the executable is not on PATH (hook_exe::LAUNCHER).
    pub cargo_home: PathBuf,
    /// Where backups go (outside every repository): `$XDG_STATE_HOME/handover/backups`, default
    /// `~/.local/state/handover/backups` (see backup.rs).
    pub backups: PathBuf,
    /// Where install records what it added to each repository beyond its own entries (the
    /// `.gitignore` block, folders, trust entries), outside every repository:
    /// `$XDG_STATE_HOME/handover/installs`, default `~/.local/state/handover/installs` (see
    /// manifest.rs).
    pub installs: PathBuf,
}

impl Homes {
    /// From the environment: `$HOME` (via `dirs`), the clients' variables (`$CODEX_HOME`, ...),
    /// the state directory.
    pub fn from_env() -> Option<Homes> {
        let home = dirs::home_dir()?;
        // A relative value (or an empty one) names no place of the user's: it would be taken
        // relative to wherever install runs, and directories created there.
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        let cargo_home = var("CARGO_HOME").unwrap_or_else(|| home.join(".cargo"));
        // The clients' own directories by their own rules (CODEX_HOME, GEMINI_CLI_HOME, ...),
        // from absolute values only.
        let mut dirs = UserDirs::from_lookup(|name| var(name).map(PathBuf::into_os_string));
        dirs.home = Some(home.clone());
        let state = dirs::state_dir()
            .or_else(dirs::data_local_dir)
            .unwrap_or_else(|| home.join(".local").join("state"));
        Some(Homes {
            home,
            dirs,
            cargo_home,
            backups: state.join("handover").join("backups"),
            installs: state.join("handover").join("installs"),
        })
    }

    /// `home` with every client's default directory and the backups directory under it
    /// (tests, sandboxes).
    pub fn under(home: &Path) -> Homes {
        Homes {
            home: home.to_path_buf(),
            dirs: UserDirs::under(home),
            cargo_home: home.join(".cargo"),
            backups: home.join(".local/state/handover/backups"),
            installs: home.join(".local/state/handover/installs"),
        }
    }
}

impl Homes {
    /// `client`'s own user directory under these homes (`~/.claude`, the Codex home, ...), by
    /// the client module's rule.
    pub fn user_dir(&self, client: &Client) -> PathBuf {
        client
            .user_dir(&self.dirs)
            .unwrap_or_else(|| self.home.clone())
    }
}

/// The file holding `agent`'s hook entries for `scope` (the client module's rule).
pub fn hooks_path(agent: Agent, scope: Scope, repo: &Path, homes: &Homes) -> PathBuf {
    let client = handover_clients::of(agent);
    client.hooks_file(scope, repo, &homes.user_dir(client))
}

/// The largest settings, hooks, config or instruction file read: real ones are a few KiB.
pub const MAX_EDITED_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a file that may not exist. Not UTF-8, unreadable, not a regular file (a committed link
/// to `/dev/zero` or `/dev/stdin`, a FIFO) or larger than [`MAX_EDITED_FILE_BYTES`]: an error
/// naming it. Through the read gate: links are followed (the user's own files are often
/// links into a dotfiles repository), but only to a regular file, and never more than the cap
/// is read.
pub fn read_opt(path: &Path) -> Result<Option<String>, EditError> {
    use handover_base::read_gate::{self, Links};
    match read_gate::read(path, Links::Follow, MAX_EDITED_FILE_BYTES) {
        Ok(None) => Ok(None),
        Ok(Some(bytes)) => String::from_utf8(bytes).map(Some).map_err(|e| {
            EditError::new(
                path,
                format!(
                    "not UTF-8 text (byte {}); fix the file, then run again",
                    e.utf8_error().valid_up_to()
                ),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => match read_gate::rejection(&e) {
            Some(r) => Err(EditError::new(
                path,
                format!(
                    "not read: it is {}; replace it with a regular file, then run again",
                    r.what
                ),
            )),
            None => Err(EditError::new(path, format!("cannot read: {e}"))),
        },
    }
}

/// A path as the clients compare folders (Gemini CLI's and Copilot CLI's trusted folders,
/// Codex's hook sources): symlinks resolved where the path exists, else the path as given.
pub fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// How a path is shown to the user: relative to the repository when inside it.
pub fn display_path(repo: &Path, path: &Path) -> String {
    path.strip_prefix(repo)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Where the file lives: inside the repository (project and local scopes, AGENTS.md) or not.
pub(crate) fn confine_for(scope: Scope, repo: &Path) -> Option<PathBuf> {
    (scope != Scope::User).then(|| repo.to_path_buf())
}
