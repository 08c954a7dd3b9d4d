//! Where the hook executables are: a directory (the CLI passes the directory of the running
//! `handover` binary, since `cargo install` puts all binaries side by side, or `--hooks-dir`),
//! then PATH. Commands always use absolute paths.

use handover_base::HookExe;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub struct HookPaths {
    pub session_start: PathBuf,
    pub pre_compact: PathBuf,
    pub context_watch: PathBuf,
}

impl HookPaths {
    pub fn get(&self, exe: HookExe) -> &Path {
        match exe {
            HookExe::SessionStart => &self.session_start,
            HookExe::PreCompact => &self.pre_compact,
            HookExe::ContextWatch => &self.context_watch,
        }
    }

    /// All three in one directory (tests, and the common case).
    pub fn in_dir(dir: &Path) -> HookPaths {
        HookPaths {
            session_start: dir.join(HookExe::SessionStart.file_name()),
            pre_compact: dir.join(HookExe::PreCompact.file_name()),
            context_watch: dir.join(HookExe::ContextWatch.file_name()),
        }
    }
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Finds each executable in `dir`, else on `path_var` (a PATH value). `cwd` makes a relative
/// directory absolute. The error lists what is missing and how to install it.
pub fn locate(
    dir: Option<&Path>,
    path_var: Option<&OsStr>,
    cwd: &Path,
) -> Result<HookPaths, String> {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for exe in HookExe::ALL {
        let in_dir = dir.map(|d| {
            if d.is_absolute() {
                d.join(exe.file_name())
            } else {
                cwd.join(d).join(exe.file_name())
            }
        });
        let hit = in_dir.filter(|p| is_executable(p)).or_else(|| {
            path_var.and_then(|pv| {
                std::env::split_paths(pv)
                    .filter(|d| d.is_absolute())
                    .map(|d| d.join(exe.file_name()))
                    .find(|p| is_executable(p))
            })
        });
        match hit {
            Some(p) => found.push(p),
            None => missing.push(exe.file_name()),
        }
    }
    if !missing.is_empty() {
        let where_ = dir
            .map(|d| format!("{} or ", d.display()))
            .unwrap_or_default();
        return Err(format!(
            "hook executable(s) not found in {where_}PATH: {}. Install them from the handover checkout with \
             `cargo install --locked --path .` (it installs them next to `handover`), or point to them with `--hooks-dir DIR`.",
            missing.join(", ")
        ));
    }
    Ok(HookPaths {
        session_start: found[0].clone(),
        pre_compact: found[1].clone(),
        context_watch: found[2].clone(),
    })
}
