//! "Is this path uncommitted?" (`handover_core::git::uncommitted`), on real repositories: the
//! per-path answer agrees with libgit2's full status of the same path in every case git can see
//! from HEAD and the working tree, and differs only where the module says it does (changes that
//! live in the index alone).

use crate::support::repo::Repo;
use handover_core::git::uncommitted::{PathState, PathStates};
use std::path::Path;

/// libgit2's answer, the one the per-path check replaces (it reads the whole index).
fn by_status(repo: &git2::Repository, path: &str) -> PathState {
    match repo.status_file(Path::new(path)) {
        Ok(s) if s.is_empty() || s == git2::Status::IGNORED => PathState::Committed,
        Ok(_) => PathState::Uncommitted,
        Err(e) if e.code() == git2::ErrorCode::NotFound => PathState::Committed,
        Err(_) => PathState::Unknown,
    }
}

fn states(repo: &Repo, paths: &[&str]) -> Vec<(String, PathState, PathState)> {
    let git = git2::Repository::open(&repo.path).unwrap();
    let states = PathStates::new(&git).unwrap();
    paths
        .iter()
        .map(|p| (p.to_string(), states.state(p), by_status(&git, p)))
        .collect()
}

fn assert_agree(repo: &Repo, expected: &[(&str, PathState)]) {
    let paths: Vec<&str> = expected.iter().map(|(p, _)| *p).collect();
    for ((path, ours, git), (_, want)) in states(repo, &paths).into_iter().zip(expected) {
        assert_eq!(ours, *want, "{path}: per-path answer");
        assert_eq!(git, *want, "{path}: libgit2's status (the reference)");
    }
}

#[test]
fn changed_staged_deleted_untracked_ignored_and_clean_paths_agree_with_git_status() {
    let repo = Repo::with_commit();
    repo.write(".gitignore", "*.log\nbuild/\n");
    repo.write("src/clean.rs", "clean\n");
    repo.write("src/staged.rs", "one\n");
    repo.write("src/deleted.rs", "gone soon\n");
    repo.write("src/staged_deleted.rs", "gone soon\n");
    repo.write("deep/a/b/c/d.rs", "deep\n");
    repo.commit_all("files");
    repo.write("src/lib.rs", "pub fn a() { changed }\n");
    repo.write("src/staged.rs", "two\n");
    repo.git(&["add", "src/staged.rs"]);
    std::fs::remove_file(repo.path.join("src/deleted.rs")).unwrap();
    repo.git(&["rm", "-q", "src/staged_deleted.rs"]);
    repo.write("src/new.rs", "new\n");
    repo.write("src/added.rs", "added\n");
    repo.git(&["add", "src/added.rs"]);
    repo.write("debug.log", "ignored\n");
    repo.write("build/out.txt", "ignored dir\n");
    repo.write("deep/a/b/c/d.rs", "deep change\n");
    assert_agree(
        &repo,
        &[
            ("src/lib.rs", PathState::Uncommitted),
            ("src/staged.rs", PathState::Uncommitted),
            ("src/deleted.rs", PathState::Uncommitted),
            ("src/staged_deleted.rs", PathState::Uncommitted),
            ("src/new.rs", PathState::Uncommitted),
            ("src/added.rs", PathState::Uncommitted),
            ("deep/a/b/c/d.rs", PathState::Uncommitted),
            ("src/clean.rs", PathState::Committed),
            ("README.md", PathState::Committed),
            ("debug.log", PathState::Committed),
            ("build/out.txt", PathState::Committed),
            ("never/existed.rs", PathState::Committed),
        ],
    );
}

#[cfg(unix)]
#[test]
fn links_and_the_executable_bit_agree_with_git_status() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let repo = Repo::with_commit();
    repo.write("run.sh", "echo hi\n");
    repo.write("keep.sh", "echo keep\n");
    symlink("README.md", repo.path.join("link")).unwrap();
    symlink("README.md", repo.path.join("relinked")).unwrap();
    repo.commit_all("links and scripts");
    let exec = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(repo.path.join("run.sh"), exec).unwrap();
    std::fs::remove_file(repo.path.join("relinked")).unwrap();
    symlink("src/lib.rs", repo.path.join("relinked")).unwrap();
    // A new link pointing out of the tree: untracked, and never followed.
    symlink("/etc/passwd", repo.path.join("outside")).unwrap();
    assert_agree(
        &repo,
        &[
            ("run.sh", PathState::Uncommitted),
            ("keep.sh", PathState::Committed),
            ("link", PathState::Committed),
            ("relinked", PathState::Uncommitted),
            ("outside", PathState::Uncommitted),
        ],
    );
    // With core.fileMode off git ignores the executable bit, and so does the answer.
    repo.git(&["config", "core.fileMode", "false"]);
    assert_agree(&repo, &[("run.sh", PathState::Committed)]);
}

#[test]
fn line_ending_conversion_is_applied_like_git_does() {
    let repo = Repo::with_commit();
    repo.write(".gitattributes", "*.txt text=auto\n");
    // Checked out with CRLF endings (as on Windows): HEAD's blobs have LF, the working files
    // CRLF, and git sees them unchanged.
    repo.write("notes.txt", "one\r\ntwo\r\n");
    repo.write("other.txt", "one\r\ntwo\r\n");
    repo.commit_all("text files");
    // A real change, with CRLF endings too.
    repo.write("other.txt", "one\r\nthree\r\n");
    assert_agree(
        &repo,
        &[
            ("notes.txt", PathState::Committed),
            ("other.txt", PathState::Uncommitted),
        ],
    );
}

#[test]
fn an_unborn_head_makes_every_present_unignored_file_uncommitted() {
    let repo = Repo::init();
    repo.write(".gitignore", "*.tmp\n");
    repo.write("a.rs", "a\n");
    repo.write("b.tmp", "b\n");
    let paths = ["a.rs", "b.tmp", "missing.rs"];
    let got: Vec<PathState> = states(&repo, &paths).into_iter().map(|s| s.1).collect();
    assert_eq!(
        got,
        [
            PathState::Uncommitted,
            PathState::Committed,
            PathState::Committed
        ]
    );
}

#[cfg(unix)]
#[test]
fn paths_below_a_link_directories_fifos_and_escapes_are_never_followed_or_opened() {
    use std::os::unix::fs::symlink;
    let repo = Repo::with_commit();
    let outside = repo.sibling("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.rs"), "outside\n").unwrap();
    symlink(&outside, repo.path.join("via")).unwrap();
    let fifo = repo.path.join("pipe");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let git = git2::Repository::open(&repo.path).unwrap();
    let states = PathStates::new(&git).unwrap();
    // Below a link the path is not in the working tree (and was never in HEAD).
    assert_eq!(states.state("via/secret.rs"), PathState::Committed);
    // A FIFO would block a reader: it is never opened, and cannot be told.
    assert_eq!(states.state("pipe"), PathState::Unknown);
    assert_eq!(states.state("src"), PathState::Unknown);
    assert_eq!(states.state("../outside/secret.rs"), PathState::Unknown);
    assert_eq!(states.state("/etc/passwd"), PathState::Unknown);
    assert_eq!(states.state(""), PathState::Unknown);
    assert_eq!(states.state("src/./lib.rs"), PathState::Unknown);
    assert_eq!(states.state("src//lib.rs"), PathState::Unknown);
}

#[test]
fn index_only_changes_are_the_documented_difference() {
    let repo = Repo::with_commit();
    // A staged change whose working copy went back to HEAD's content: git status sees the
    // index; the per-path answer compares the working copy with HEAD, as documented.
    repo.write("README.md", "staged\n");
    repo.git(&["add", "README.md"]);
    repo.write("README.md", "hello\n");
    let got = states(&repo, &["README.md"]);
    assert_eq!(got[0].1, PathState::Committed);
    assert_eq!(got[0].2, PathState::Uncommitted);
}
