//! Where config files live: the scope an install writes to, and the user's directories the
//! client modules resolve their own homes from.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// In the repository (shared, committed): `.claude/settings.json`, `.codex/hooks.json`.
    Project,
    /// In the repository, private: `.claude/settings.local.json`. A client without a local
    /// layer uses its project file.
    Local,
    /// In the user's home: `~/.claude/settings.json`, `$CODEX_HOME/hooks.json`.
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

/// The home directory and the environment variables a client may move its user directory
/// with (`CODEX_HOME`, `GEMINI_CLI_HOME`), as the caller read them: the hooks from the process
/// environment, the installer with its own rules (absolute paths only), tests from a temp dir.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserDirs {
    pub home: Option<PathBuf>,
    vars: Vec<(String, PathBuf)>,
}

impl UserDirs {
    /// `$HOME` and the clients' variables from the process environment; empty values count as
    /// unset.
    pub fn from_env() -> UserDirs {
        UserDirs::from_lookup(|name| std::env::var_os(name))
    }

    /// Through `lookup` (a variable's value, or None); empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> UserDirs {
        let get = |name: &str| lookup(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        UserDirs {
            home: get("HOME"),
            vars: VARS
                .iter()
                .filter_map(|name| get(name).map(|v| (name.to_string(), v)))
                .collect(),
        }
    }

    /// `home` and nothing else set (tests, sandboxes).
    pub fn under(home: &Path) -> UserDirs {
        UserDirs {
            home: Some(home.to_path_buf()),
            vars: Vec::new(),
        }
    }

    /// The same with `name` set to `value`.
    pub fn with_var(mut self, name: &str, value: &Path) -> UserDirs {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_string(), value.to_path_buf()));
        self
    }

    /// The value of one of the clients' variables, if set.
    pub fn var(&self, name: &str) -> Option<&Path> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_path())
    }

    /// A client's user directory by the usual rule: the directory `var` names when set, else
    /// `in_home` under the home directory (Codex: `$CODEX_HOME`, else `~/.codex`).
    pub fn var_else_home(&self, var: &str, in_home: &str) -> Option<PathBuf> {
        self.var(var)
            .map(Path::to_path_buf)
            .or_else(|| self.home.as_ref().map(|h| h.join(in_home)))
    }
}

/// Every variable a client module reads its user directory from.
const VARS: [&str; 4] = [
    crate::codex::HOME_VAR,
    crate::gemini::HOME_VAR,
    crate::qwen::HOME_VAR,
    crate::copilot::HOME_VAR,
];
