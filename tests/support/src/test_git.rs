//! The git command line for the unit tests of the crates (base, git, verify, core and hooks include
//! this file by path, as the object reader includes `hostile_git`): one configuration for every
//! test repository (an identity, `main`, no background gc, no line-ending conversion, no signing,
//! local submodules allowed, and neither the machine's nor the user's git configuration), so that a
//! test's repository is the same on every machine. Public in each crate's test build, as not every
//! crate uses every function.

use std::path::Path;
use std::process::{Command, Output};

/// `git <args>` in `dir`, whatever its outcome.
pub fn git_output(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "init.defaultBranch=main", "-c", "gc.auto=0"])
        .args(["-c", "core.autocrlf=false", "-c", "commit.gpgsign=false"])
        .args(["-c", "protocol.file.allow=always"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs")
}

/// `git <args>` in `dir`, which must succeed.
pub fn git(dir: &Path, args: &[&str]) {
    let out = git_output(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A new repository at `dir` (created, with its parents, when missing).
pub fn init_at(dir: &Path) {
    std::fs::create_dir_all(dir).expect("the repository's directory can be created");
    git(dir, &["init", "-q"]);
}

/// A new repository in a temp dir of its own.
pub fn temp_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    git(dir.path(), &["init", "-q"]);
    dir
}
