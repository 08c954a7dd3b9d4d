//! Real git repositories in temporary directories ([`TestRepo`]), built with the `git` command
//! line run the one way the tests run it ([`git_command`], [`git`]), and the `handover` command
//! run in a directory, finished as a [`Run`].

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// `git -C dir` as every test runs it ([`git_env`]). Add the arguments, then [`git_output`]
/// (or [`git_output_with_input`]).
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir);
    git_env(&mut cmd);
    cmd
}

/// The environment every test gives git, or a command that runs git (`handover`): a fixed
/// identity, no system or user configuration (GIT_CONFIG_GLOBAL=/dev/null; a test that gives
/// the command a HOME of its own removes that), none of the variables that would point git at
/// another repository; so the fixtures do not depend on the machine.
pub fn git_env(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
}

/// What a git command printed, trimmed, after checking that it succeeded; panics with git's
/// output otherwise (tests only).
pub fn git_output(cmd: &mut Command) -> String {
    let out = cmd.output().expect("git runs");
    git_succeeded(cmd, &out)
}

/// The trimmed stdout of a finished git command, after checking that it succeeded.
pub fn git_succeeded(cmd: &Command, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// [`git_output`] with `input` on the command's standard input (`hash-object --stdin`,
/// `mktree`, `index-pack`), written from a thread so that a large input cannot deadlock
/// against git's output.
pub fn git_output_with_input(cmd: &mut Command, input: &[u8]) -> String {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git runs");
    let mut stdin = child.stdin.take().expect("git's stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // git may stop reading early when it fails: its own message says why.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("git finishes");
    writer.join().expect("the writer thread");
    git_succeeded(cmd, &out)
}

/// Runs `git args` in `dir` ([`git_command`]); its trimmed output.
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_output(git_command(dir).args(args))
}

/// The date of every commit of a [`TestRepo::pinned`] repository.
const PINNED_DATE: &str = "2026-11-01T10:00:00Z";

/// A real git repository in a temporary directory (removed with it).
pub struct TestRepo {
    // Kept for its Drop: the directory is removed with the fixture (None: a directory the test
    // owns otherwise, see [`TestRepo::at`]).
    _tmp: Option<tempfile::TempDir>,
    /// The working tree's top.
    pub path: PathBuf,
    /// Its commits are made at [`PINNED_DATE`]: the same ids on every run.
    pinned: bool,
}

impl TestRepo {
    /// An empty repository on branch `main`, no commits, at a canonical path (temp dirs may sit
    /// behind a symlink).
    pub fn init() -> TestRepo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("repo");
        std::fs::create_dir(&path).expect("mkdir");
        let path = path.canonicalize().expect("canonical");
        git(&path, &["init", "-q", "-b", "main"]);
        TestRepo {
            _tmp: Some(tmp),
            path,
            pinned: false,
        }
    }

    /// A repository on `main` with one commit containing README.md and src/lib.rs.
    pub fn with_commit() -> TestRepo {
        let repo = TestRepo::init();
        repo.write("README.md", "hello\n");
        repo.write("src/lib.rs", "pub fn a() {}\n");
        repo.commit_all("initial commit");
        repo
    }

    /// A repository on `main` whose commits are made at a fixed date, so their ids are the same
    /// on every run (snapshots may name them), with one commit of README.md and src/lib.rs:
    /// what the hook tests start from.
    pub fn pinned() -> TestRepo {
        let repo = TestRepo::without_git();
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write("README.md", "hello\n");
        repo.write("src/lib.rs", "pub fn f() {}\n");
        repo.commit("initial commit");
        repo
    }

    /// An existing directory (e.g. a linked worktree inside another repository), not removed
    /// on drop; its commits pinned as [`TestRepo::pinned`]'s.
    pub fn at(path: &Path) -> TestRepo {
        TestRepo {
            _tmp: None,
            path: path.to_path_buf(),
            pinned: true,
        }
    }

    /// A temp dir that is not a git repository (yet).
    pub fn without_git() -> TestRepo {
        let tmp = tempfile::tempdir().expect("tempdir");
        TestRepo {
            path: tmp.path().to_path_buf(),
            _tmp: Some(tmp),
            pinned: true,
        }
    }

    /// The working tree's top (the same as the field).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A directory next to the repository (same temp dir), e.g. for a worktree or a clone.
    pub fn sibling(&self, name: &str) -> PathBuf {
        self.path.parent().expect("parent").join(name)
    }

    /// `git args` in the working tree; its trimmed output.
    pub fn git(&self, args: &[&str]) -> String {
        let mut cmd = git_command(&self.path);
        if self.pinned {
            cmd.env("GIT_AUTHOR_DATE", PINNED_DATE)
                .env("GIT_COMMITTER_DATE", PINNED_DATE);
        }
        git_output(cmd.args(args))
    }

    pub fn write(&self, rel: &str, text: &str) {
        write_in(&self.path, rel, text)
    }

    /// Stages everything and commits (empty commits too); returns the new HEAD.
    pub fn commit_all(&self, subject: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", subject]);
        self.head()
    }

    /// Stages everything but handover's own files (handover.md, .handover/) and commits.
    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A", "--", ".", ":!handover.md", ":!.handover"]);
        self.git(&["commit", "-q", "-m", message]);
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

/// A finished command: its exit code (None: ended by a signal), what it printed, how long it
/// took. Hook runs ([`crate::hook::run_hook`]) and `handover` runs ([`handover_in_home`]).
pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
}

impl Run {
    pub fn of(out: Output, elapsed: Duration) -> Run {
        Run {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
            elapsed,
        }
    }

    /// The exit code of a command that exited (a signal fails the test).
    pub fn exit_code(&self) -> i32 {
        self.code
            .expect("the command exited (not ended by a signal)")
    }

    /// Stdout as text (UTF-8, or the test fails).
    pub fn stdout_str(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// Stderr as text (UTF-8, or the test fails).
    pub fn stderr_str(&self) -> String {
        String::from_utf8(self.stderr.clone()).expect("stderr is UTF-8")
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
    let mut c = Command::new(crate::exe::handover_exe());
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
        // `handover log`'s cache in a directory of the tests', never the user's.
        .env("HANDOVER_CACHE_DIR", test_cache_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c
}

/// Where the `handover` commands the tests run keep `handover log`'s cache (one file per
/// working tree, so tests do not share one): the system's temporary directory, not the
/// user's cache.
pub fn test_cache_dir() -> PathBuf {
    std::env::temp_dir().join("handover-test-cache")
}

/// `handover args` in `dir` ([`handover_command`]) with `home` as HOME (and CODEX_HOME,
/// CARGO_HOME inside it): whatever it ends with.
pub fn handover_in_home(dir: &Path, home: &Path, args: &[&str]) -> Run {
    let start = std::time::Instant::now();
    let out = handover_command(dir, args)
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("CARGO_HOME", home.join(".cargo"))
        .output()
        .expect("handover runs");
    Run::of(out, start.elapsed())
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
