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
/// with ([`crate::Client::home_var`]: `CODEX_HOME`, `CLAUDE_CONFIG_DIR`, ...), as the caller
/// read them: the hooks from the process environment, the installer with its own rules
/// (absolute paths only), tests from a temp dir.
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
            vars: vars()
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

/// Every variable a client module reads its user directory from ([`crate::Client::home_var`]).
fn vars() -> impl Iterator<Item = &'static str> {
    crate::ALL.into_iter().filter_map(|c| c.home_var())
}

/// `path` as Claude Code and Qwen Code name the folder of a project's sessions: every
/// character but an ASCII letter or digit becomes `-`, one per UTF-16 unit as JavaScript's
/// `replace(/[^a-zA-Z0-9]/g, "-")` counts them. None for a path that is not UTF-8.
pub(crate) fn dashed(path: &Path) -> Option<String> {
    let mut out = String::new();
    for c in path.to_str()?.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashed_counts_utf16_units_like_javascript() {
        assert_eq!(
            dashed(Path::new("/tmp/my repo.x/é😀")).as_deref(),
            Some("-tmp-my-repo-x----")
        );
    }

    #[test]
    fn the_clients_variables_are_read_and_empty_counts_as_unset() {
        let dirs = UserDirs::from_lookup(|name| match name {
            "HOME" => Some("/h".into()),
            "CODEX_HOME" => Some("/c".into()),
            "CLAUDE_CONFIG_DIR" => Some("".into()),
            "UNRELATED" => Some("/u".into()),
            _ => None,
        });
        assert_eq!(dirs.var("CODEX_HOME"), Some(Path::new("/c")));
        assert_eq!(dirs.var("CLAUDE_CONFIG_DIR"), None);
        assert_eq!(dirs.var("UNRELATED"), None);
    }
}
