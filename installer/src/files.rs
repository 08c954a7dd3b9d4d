//! The files an install reads and writes: which they are for each agent and scope, the home
//! directories they live under, how they are read, and how their paths are shown.

use crate::error::EditError;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `.claude/settings.json`, `.codex/hooks.json` in the repository (shared, committed).
    Project,
    /// `.claude/settings.local.json` (private). Codex and Gemini CLI have no local layer:
    /// project is used.
    Local,
    /// `~/.claude/settings.json`, `$CODEX_HOME/hooks.json`.
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Targets {
    pub claude: bool,
    pub codex: bool,
    pub gemini: bool,
}

/// Home directories, injected so tests never touch the real `~`.
#[derive(Clone, Debug, PartialEq)]
pub struct Homes {
    /// `~` (Claude Code's user settings live in `~/.claude/`).
    pub home: PathBuf,
    /// `$CODEX_HOME`, default `~/.codex`.
    pub codex_home: PathBuf,
    /// Gemini CLI's user directory: `$GEMINI_CLI_HOME/.gemini`, default `~/.gemini`.
    pub gemini_home: PathBuf,
    /// `$CARGO_HOME`, default `~/.cargo`: the portable hook command looks in its `bin` when
    /// the executable is not on PATH (hook_exe::LAUNCHER).
    pub cargo_home: PathBuf,
    /// Where backups go (outside every repository): `$XDG_STATE_HOME/handover/backups`, default
    /// `~/.local/state/handover/backups` (see backup.rs).
    pub backups: PathBuf,
}

impl Homes {
    /// From the environment: `$HOME` (via `dirs`), `$CODEX_HOME`, `$GEMINI_CLI_HOME`, the
    /// state directory.
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
        let codex_home = var("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
        let cargo_home = var("CARGO_HOME").unwrap_or_else(|| home.join(".cargo"));
        let gemini_home = var("GEMINI_CLI_HOME")
            .unwrap_or_else(|| home.clone())
            .join(".gemini");
        let state = dirs::state_dir()
            .or_else(dirs::data_local_dir)
            .unwrap_or_else(|| home.join(".local").join("state"));
        Some(Homes {
            backups: state.join("handover").join("backups"),
            home,
            codex_home,
            gemini_home,
            cargo_home,
        })
    }

    /// `home` with the default Codex and Gemini homes and backups directory under it (tests,
    /// sandboxes).
    pub fn under(home: &Path) -> Homes {
        Homes {
            home: home.to_path_buf(),
            codex_home: home.join(".codex"),
            gemini_home: home.join(".gemini"),
            cargo_home: home.join(".cargo"),
            backups: home.join(".local/state/handover/backups"),
        }
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_home.join("config.toml")
    }
}

pub fn claude_settings_path(scope: Scope, repo: &Path, homes: &Homes) -> PathBuf {
    match scope {
        Scope::Project => repo.join(".claude").join("settings.json"),
        Scope::Local => repo.join(".claude").join("settings.local.json"),
        Scope::User => homes.home.join(".claude").join("settings.json"),
    }
}

pub fn codex_hooks_path(scope: Scope, repo: &Path, homes: &Homes) -> PathBuf {
    match scope {
        Scope::Project | Scope::Local => repo.join(".codex").join("hooks.json"),
        Scope::User => homes.codex_home.join("hooks.json"),
    }
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

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The instructions files to edit for these targets (AGENTS.md for Codex, CLAUDE.md for Claude;
/// only AGENTS.md when CLAUDE.md is a link to it).
pub fn instruction_files(repo: &Path, targets: Targets) -> Vec<PathBuf> {
    let agents = repo.join("AGENTS.md");
    let claude = repo.join("CLAUDE.md");
    let linked = same_file(&agents, &claude);
    let mut out = Vec::new();
    if targets.codex || (targets.claude && linked) {
        out.push(agents);
    }
    if targets.claude && !linked {
        out.push(claude);
    }
    out
}

/// The instructions files for these targets, with Gemini CLI's context file added when it is
/// not one of them already; plus a note when its configured name was not usable.
pub fn instruction_targets(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
) -> Result<(Vec<PathBuf>, Option<String>), EditError> {
    let mut files = instruction_files(repo, targets);
    let mut note = None;
    if targets.gemini {
        let (file, problem) = crate::gemini::context_file(repo, homes)?;
        note = problem;
        if !files.iter().any(|f| *f == file || same_file(f, &file)) {
            files.push(file);
        }
    }
    Ok((files, note))
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
