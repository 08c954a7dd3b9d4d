//! What a person reads, whole: `handover status` (human and JSON) before and after an install
//! and a handoff, and the reports of `install` and `uninstall` (dry run, real run, repeated run),
//! for every client at once. Pinned as snapshots (tests/install/snapshots/, reviewed with
//! `cargo insta review`: tests/README.md), with the run's own paths, handoff id and times, and
//! commits replaced by placeholders: `[REPO]`, `[HOME]`, `[BIN]`, `[ID]`, `[TIME]`, `[commit N]`.

use crate::support::repo::TestRepo;
use crate::support::snapshot::placeholders;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A repository with one commit and a HOME of its own; `handover` runs with an empty environment
/// apart from PATH (the hook executables' directory first, so that the screens show them found),
/// HOME and the agent label.
struct Screens {
    repo: TestRepo,
    home: tempfile::TempDir,
}

impl Screens {
    fn new() -> Screens {
        Screens {
            repo: TestRepo::with_commit(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn home(&self) -> PathBuf {
        self.home.path().canonicalize().unwrap()
    }

    fn bin_dir() -> PathBuf {
        Path::new(env!("CARGO_BIN_EXE_handover"))
            .parent()
            .unwrap()
            .to_path_buf()
    }

    /// Stdout of `handover args`, which must succeed, with the placeholders put in.
    fn run(&self, args: &[&str]) -> String {
        let (code, stdout) = self.run_with_code(args);
        assert_eq!(code, Some(0), "handover {args:?} failed:\n{stdout}");
        stdout
    }

    /// Exit code and stdout (placeholders put in) of `handover args`, whatever the outcome.
    /// The PATH holds no AI coding client (unless the system directories do).
    fn run_with_code(&self, args: &[&str]) -> (Option<i32>, String) {
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", Self::bin_dir().display());
        let out = Command::new(env!("CARGO_BIN_EXE_handover"))
            .args(args)
            .current_dir(&self.repo.path)
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home())
            .env("HANDOVER_AGENT", "test")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let mut stdout = String::from_utf8(out.stdout).unwrap();
        if !out.status.success() {
            stdout.push_str(&String::from_utf8_lossy(&out.stderr));
            return (out.status.code(), stdout);
        }
        crate::support::snapshot::assert_final_newline(&format!("handover {args:?}"), &stdout);
        (out.status.code(), self.placeholders(&stdout))
    }

    fn placeholders(&self, text: &str) -> String {
        let text = text
            .replace(&self.home().display().to_string(), "[HOME]")
            .replace(&Self::bin_dir().display().to_string(), "[BIN]");
        placeholders(&self.repo.path, &text)
    }

    fn write_handoff(&self) {
        self.run(&[
            "write",
            "--goal",
            "Add CSV export to the report command",
            "--in-progress",
            "CSV writer: quoting",
            "--next",
            "Quote fields with commas, then add tests",
        ]);
    }
}

#[test]
fn status_of_a_repository_without_handover() {
    let s = Screens::new();
    insta::assert_snapshot!("status_new", s.run(&["status"]));
    insta::assert_snapshot!("status_new_json", s.run(&["status", "--json"]));
}

#[test]
fn install_reports_dry_run_then_changes_then_nothing_to_do() {
    let s = Screens::new();
    insta::assert_snapshot!("install_dry_run", s.run(&["install", "--all", "--dry-run"]));
    assert!(
        !s.repo.path.join(".claude").exists(),
        "a dry run writes nothing"
    );
    insta::assert_snapshot!("install", s.run(&["install", "--all"]));
    insta::assert_snapshot!("install_again", s.run(&["install", "--all"]));
}

#[test]
fn status_after_install_and_a_handoff() {
    let s = Screens::new();
    s.run(&["install", "--all"]);
    s.write_handoff();
    insta::assert_snapshot!("status_installed_fresh", s.run(&["status"]));
    insta::assert_snapshot!("status_installed_fresh_json", s.run(&["status", "--json"]));
}

#[test]
fn uninstall_reports_dry_run_then_removal() {
    let s = Screens::new();
    s.run(&["install", "--all"]);
    insta::assert_snapshot!("uninstall_dry_run", s.run(&["uninstall", "--dry-run"]));
    insta::assert_snapshot!("uninstall", s.run(&["uninstall"]));
}

/// On a machine with only Claude Code (its `~/.claude`, no other client's folder or program),
/// a bare install writes Claude Code's settings and CLAUDE.md (and the guard in
/// `.git/info/exclude`), and nothing else; it names the clients it left out and `--all`; `status --check` is content
/// right after it.
#[test]
fn a_bare_install_on_a_machine_with_only_claude_code() {
    let s = Screens::new();
    let (code, refused) = s.run_with_code(&["install"]);
    assert_eq!(code, Some(2), "no client found: refused\n{refused}");
    insta::assert_snapshot!("install_with_no_client_found", s.placeholders(&refused));
    assert_eq!(
        s.repo.git(&["status", "--porcelain", "-uall"]),
        "",
        "nothing written"
    );

    std::fs::create_dir(s.home().join(".claude")).unwrap();
    insta::assert_snapshot!("install_only_claude", s.run(&["install"]));
    assert_eq!(
        s.repo.git(&["status", "--porcelain", "-uall"]),
        "?? .claude/settings.json\n?? CLAUDE.md"
    );
    let (code, status) = s.run_with_code(&["status", "--check"]);
    assert_eq!(code, Some(0), "{status}");
}

/// Every file of the repository outside `.git`, with its bytes.
fn files_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_name() == ".git" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                files.push((e.path(), Vec::new()));
                stack.push(e.path());
            } else {
                files.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Install then uninstall gives the repository back byte for byte: every client's files, the
/// instruction files, the guard's block in `.git/info/exclude`, the folders it created
/// (`.github/hooks/`); in a repository with a `.gitignore` of its own (no final newline) and
/// in one without.
#[test]
fn install_then_uninstall_leaves_the_repository_as_it_was() {
    for gitignore in [None, Some("target")] {
        let s = Screens::new();
        if let Some(text) = gitignore {
            s.repo.write(".gitignore", text);
            s.repo.commit_all("Ignore target");
        }
        let exclude = s.repo.path.join(".git/info/exclude");
        let before = (files_of(&s.repo.path), std::fs::read(&exclude).ok());
        s.run(&["install", "--all"]);
        assert!(s.repo.path.join(".github/hooks").is_dir());
        assert_ne!(std::fs::read(&exclude).ok(), before.1, "the guard is there");
        let out = s.run(&["uninstall"]);
        assert_eq!(s.repo.git(&["status", "--porcelain", "-uall"]), "", "{out}");
        assert_eq!(
            (files_of(&s.repo.path), std::fs::read(&exclude).ok()),
            before,
            "{out}"
        );
    }
}

/// `install --all --mcp`: the report names each client's MCP file, `status` lists the server
/// per client and counts the MCP files among those to commit, and uninstall leaves the
/// repository as it was.
#[test]
fn install_mcp_status_and_uninstall() {
    let s = Screens::new();
    let before = files_of(&s.repo.path);
    insta::assert_snapshot!("install_mcp", s.run(&["install", "--all", "--mcp"]));
    let status = s.run(&["status"]);
    insta::assert_snapshot!("status_installed_mcp", status);
    assert!(
        status.contains(".mcp.json, ") && status.contains(".github/mcp.json"),
        "{status}"
    );
    s.run(&["uninstall"]);
    assert_eq!(files_of(&s.repo.path), before);
}

/// A line the user added to `.git/info/exclude` after install stays, and uninstall says so; a
/// handoff written meanwhile keeps the block (git would show it otherwise), said too.
#[test]
fn uninstall_keeps_what_the_user_changed_since_and_says_so() {
    let s = Screens::new();
    let exclude = s.repo.path.join(".git/info/exclude");
    let before = std::fs::read_to_string(&exclude).unwrap_or_default();
    s.run(&["install", "--claude"]);
    let installed = std::fs::read_to_string(&exclude).unwrap();
    std::fs::write(&exclude, format!("{installed}*.log\n")).unwrap();
    let out = s.run(&["uninstall"]);
    assert_eq!(
        std::fs::read_to_string(&exclude).unwrap(),
        format!("{before}*.log\n")
    );
    insta::assert_snapshot!("uninstall_after_the_user_changed_the_exclude", out);

    let s = Screens::new();
    s.run(&["install", "--claude"]);
    s.write_handoff();
    let out = s.run(&["uninstall"]);
    insta::assert_snapshot!("uninstall_with_a_handoff_here", out);
    assert_eq!(
        s.repo.git(&["status", "--porcelain", "-uall"]),
        "",
        "the handoff stays private"
    );
}

/// `handover status` outside any git repository says so first, and how to fix it (a problem:
/// `--check` exits 3).
#[test]
fn status_outside_a_git_repository_says_so() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    let plain = home.join("notes");
    std::fs::create_dir(&plain).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_handover"))
            .args(args)
            .current_dir(&plain)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &home)
            .env("GIT_CEILING_DIRECTORIES", &home)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["status"]);
    let text = String::from_utf8(out.stdout)
        .unwrap()
        .replace(&home.display().to_string(), "[HOME]");
    insta::assert_snapshot!("status_outside_a_git_repository", text);
    assert_eq!(run(&["status", "--check"]).status.code(), Some(3));
}
