//! One file's planned edit: the data a plan is made of, which the backup rules (keep) and the
//! all-or-nothing write (transaction) work on.

use crate::report::Change;
use handover_clients::Agent;
use std::path::PathBuf;

/// What a file is, for the rules that keep the user's part of it (keep.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// The client's hooks file (its wiring's editor: the shared `hooks` shape, or its own).
    Hooks(Agent),
    /// A client's own configuration file beyond its hooks (Codex's user config.toml): its
    /// wiring says what of it is the user's (`Wiring::config_user_part`).
    Config(Agent),
    /// A client's record of the folders the user trusts (Gemini CLI's trustedFolders.json,
    /// GitHub Copilot CLI's config.json): ours there is the one rule the user consented to.
    FolderTrust,
    /// AGENTS.md, CLAUDE.md, GEMINI.md: the handover section.
    Instructions,
    /// A client's MCP configuration that is not also its hooks or config file (Claude Code's
    /// `.mcp.json`, Codex's project `.codex/config.toml`, ...): ours there is the `handover`
    /// server (wiring/mcp.rs).
    Mcp(Agent),
}

/// One file's planned edit. `None` = the file does not exist / is to be deleted.
#[derive(Clone, Debug, PartialEq)]
pub struct FileEdit {
    pub path: PathBuf,
    pub kind: FileKind,
    pub before: Option<String>,
    pub after: Option<String>,
    pub changes: Vec<Change>,
    /// Back up `before` when applying: false when the file holds nothing of the user's (we
    /// created it and only our content is in it), or its newest backup already holds the
    /// user's part of it as it is now.
    pub backup: bool,
    /// The repository root when the file belongs inside the repository: it must not resolve
    /// (through a symlink) to anywhere else.
    pub confine: Option<PathBuf>,
}

impl FileEdit {
    /// Whether `before` is backed up is decided once the plan is complete
    /// (`keep::mark_backups`): it depends on the other files and the backups already made.
    pub fn new(
        path: PathBuf,
        kind: FileKind,
        before: Option<String>,
        after: Option<String>,
        changes: Vec<Change>,
        confine: Option<PathBuf>,
    ) -> FileEdit {
        FileEdit {
            path,
            kind,
            before,
            after,
            changes,
            backup: false,
            confine,
        }
    }

    pub fn changed(&self) -> bool {
        self.before != self.after
    }
}
