//! Where the hook executables are: a directory (the CLI passes the directory of the running
//! `handover` binary, since `cargo install` puts all binaries side by side, or `--hooks-dir`),
//! then PATH. And where the portable hook command will find them when a client runs it
//! ([`at_run_time`]): PATH, then cargo's bin directory.

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

/// A regular file with an execute bit (through symlinks).
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The executable `name` in the first absolute directory of `path_var` that has one.
pub fn on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
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
        let where_ = match (dir, path_var) {
            (Some(d), Some(_)) => format!("{} or PATH", d.display()),
            (Some(d), None) => d.display().to_string(),
            (None, _) => "PATH".to_string(),
        };
        return Err(format!(
            "hook executable(s) not found in {where_}: {}. Install them from the handover checkout with \
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

/// Where the portable hook command (hook_exe::LAUNCHER) finds `exe` when a client runs it with
/// this PATH and `cargo_home`: the first executable on PATH, else `<cargo_home>/bin/<exe>`.
/// None when it finds nothing, and the hook does nothing on this machine.
pub fn at_run_time(exe: HookExe, path_var: Option<&OsStr>, cargo_home: &Path) -> Option<PathBuf> {
    path_var
        .into_iter()
        .flat_map(std::env::split_paths)
        .map(|d| {
            if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d
            }
        })
        .map(|d| d.join(exe.file_name()))
        .find(|p| is_executable(p))
        .or_else(|| {
            let p = cargo_home.join("bin").join(exe.file_name());
            is_executable(&p).then_some(p)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe_in(dir: &Path, exe: HookExe) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(exe.file_name());
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn run_time_lookup_is_path_first_then_cargo_bin() {
        let tmp = tempfile::tempdir().unwrap();
        let cargo = tmp.path().join("cargo");
        let on_path = tmp.path().join("p");
        let exe = HookExe::PreCompact;
        let path = std::env::join_paths([&on_path]).unwrap();
        assert_eq!(at_run_time(exe, Some(&path), &cargo), None);
        let in_cargo = exe_in(&cargo.join("bin"), exe);
        assert_eq!(
            at_run_time(exe, Some(&path), &cargo),
            Some(in_cargo.clone())
        );
        assert_eq!(at_run_time(exe, None, &cargo), Some(in_cargo));
        let first = exe_in(&on_path, exe);
        assert_eq!(at_run_time(exe, Some(&path), &cargo), Some(first));
        // Not executable: not found, as the shell's `command -v` and `[ -x ]` see it.
        std::fs::set_permissions(
            on_path.join(exe.file_name()),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        std::fs::remove_file(cargo.join("bin").join(exe.file_name())).unwrap();
        assert_eq!(at_run_time(exe, Some(&path), &cargo), None);
    }
}
