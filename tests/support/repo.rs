//! Real git repositories in temporary directories, built with the `git` command line.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `git` in `dir` with a fixed identity and no user or system configuration, so the
/// fixtures do not depend on the machine. Panics with git's output on failure (tests only).
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {:?} in {} failed: {}{}",
        args,
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub struct Repo {
    // Kept for its Drop: the directory is removed with the fixture.
    _tmp: tempfile::TempDir,
    /// The working tree's top, canonical (temp dirs may sit behind a symlink).
    pub path: PathBuf,
}

impl Repo {
    /// An empty repository on branch `main`, no commits.
    pub fn init() -> Repo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("repo");
        std::fs::create_dir(&path).expect("mkdir");
        let path = path.canonicalize().expect("canonical");
        git(&path, &["init", "-q", "-b", "main"]);
        Repo { _tmp: tmp, path }
    }

    /// A repository on `main` with one commit containing README.md and src/lib.rs.
    pub fn with_commit() -> Repo {
        let repo = Repo::init();
        repo.write("README.md", "hello\n");
        repo.write("src/lib.rs", "pub fn a() {}\n");
        repo.commit_all("initial commit");
        repo
    }

    /// A directory next to the repository (same temp dir), e.g. for a worktree or a clone.
    pub fn sibling(&self, name: &str) -> PathBuf {
        self.path.parent().expect("parent").join(name)
    }

    pub fn git(&self, args: &[&str]) -> String {
        git(&self.path, args)
    }

    pub fn write(&self, rel: &str, text: &str) {
        write_in(&self.path, rel, text)
    }

    pub fn commit_all(&self, subject: &str) -> String {
        commit_all_in(&self.path, subject)
    }

    /// `git worktree add -q -b <branch> <path>`: a linked worktree on a new branch.
    pub fn add_worktree(&self, path: &Path, branch: &str) {
        let path = path.to_string_lossy();
        self.git(&["worktree", "add", "-q", "-b", branch, &path]);
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }
}

pub fn write_in(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir -p");
    }
    std::fs::write(p, text).expect("write");
}

/// Stages everything and commits; returns the new HEAD.
pub fn commit_all_in(dir: &Path, subject: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", subject]);
    git(dir, &["rev-parse", "HEAD"])
}

/// `handover args` run in `dir` as a person would: the agent label fixed to `test`, none of
/// the variables the clients set, no standard input, output captured.
pub fn handover_command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_handover"));
    c.args(args)
        .current_dir(dir)
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("CODEX_SANDBOX")
        .env_remove("CODEX_SANDBOX_NETWORK_DISABLED")
        .env_remove("GEMINI_CLI")
        .env_remove("COPILOT_CLI")
        .env_remove("COPILOT_AGENT_SESSION_ID")
        .env("HANDOVER_AGENT", "test")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c
}

pub fn handover_run(dir: &Path, args: &[&str]) -> std::process::Output {
    handover_command(dir, args).output().expect("handover runs")
}

/// Stdout of a `handover` run that must succeed.
pub fn handover_ok(dir: &Path, args: &[&str]) -> String {
    succeeded(args, handover_run(dir, args))
}

/// The stdout of `handover args`, after checking that it succeeded (its output otherwise) and
/// that it is nothing or ends its last line (snapshots do not see a missing final newline).
pub fn succeeded(args: &[&str], out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "handover {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !stdout.is_empty() {
        super::snapshot::assert_final_newline(&format!("handover {args:?}"), &stdout);
    }
    stdout
}
