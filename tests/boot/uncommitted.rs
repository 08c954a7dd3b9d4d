//! "Is this path uncommitted?" (`handover_git::uncommitted`), on real repositories: the
//! per-path answer agrees with libgit2's full status of the same path in every case git can see
//! from HEAD and the working tree, and differs only where the module says it does (changes that
//! live in the index alone).

use crate::support::repo::TestRepo;
use handover_git::head_entries;
use handover_git::uncommitted::{PathState, PathStates};
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

/// Each path's answer, libgit2's status beside it. Every answer is asked twice: from HEAD's
/// trees, then by a second call that finds HEAD's entries remembered in the git directory
/// (`git::head_entries`); both must be the same.
fn states(repo: &TestRepo, paths: &[&str]) -> Vec<(String, PathState, PathState)> {
    let git = git2::Repository::open(&repo.path).unwrap();
    let _ = std::fs::remove_file(remembered_file(repo));
    let states = PathStates::new(&git).unwrap();
    let answers: Vec<PathState> = paths.iter().map(|p| states.state(p)).collect();
    states.remember();
    let again = PathStates::new(&git).unwrap();
    for (path, first) in paths.iter().zip(&answers) {
        assert_eq!(again.state(path), *first, "{path}: remembered answer");
    }
    paths
        .iter()
        .zip(answers)
        .map(|(p, ours)| (p.to_string(), ours, by_status(&git, p)))
        .collect()
}

fn remembered_file(repo: &TestRepo) -> std::path::PathBuf {
    repo.path.join(".git").join(head_entries::FILE_NAME)
}

/// The id of HEAD's top tree (the remembered file's `tree` line).
fn head_tree(repo: &TestRepo) -> git2::Oid {
    let git = git2::Repository::open(&repo.path).unwrap();
    let tree = git.head().unwrap().peel_to_tree().unwrap();
    tree.id()
}

fn assert_agree(repo: &TestRepo, expected: &[(&str, PathState)]) {
    let paths: Vec<&str> = expected.iter().map(|(p, _)| *p).collect();
    for ((path, ours, git), (_, want)) in states(repo, &paths).into_iter().zip(expected) {
        assert_eq!(ours, *want, "{path}: per-path answer");
        assert_eq!(git, *want, "{path}: libgit2's status (the reference)");
    }
}

#[test]
fn changed_staged_deleted_untracked_ignored_and_clean_paths_agree_with_git_status() {
    let repo = TestRepo::with_commit();
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
    let repo = TestRepo::with_commit();
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
    let repo = TestRepo::with_commit();
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
    let repo = TestRepo::init();
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
    let repo = TestRepo::with_commit();
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
    let repo = TestRepo::with_commit();
    // A staged change whose working copy went back to HEAD's content: git status sees the
    // index; the per-path answer compares the working copy with HEAD, as documented.
    repo.write("README.md", "staged\n");
    repo.git(&["add", "README.md"]);
    repo.write("README.md", "hello\n");
    let got = states(&repo, &["README.md"]);
    assert_eq!(got[0].1, PathState::Committed);
    assert_eq!(got[0].2, PathState::Uncommitted);
}

#[test]
fn remembered_entries_are_for_one_commit_and_follow_head() {
    let repo = TestRepo::with_commit();
    repo.write("src/lib.rs", "pub fn a() { changed }\n");
    repo.write("src/new.rs", "new\n");
    let paths = ["src/lib.rs", "src/new.rs", "README.md"];
    let expected = [
        PathState::Uncommitted,
        PathState::Uncommitted,
        PathState::Committed,
    ];
    let got: Vec<PathState> = states(&repo, &paths).into_iter().map(|s| s.1).collect();
    assert_eq!(got, expected);
    // Remembered for HEAD's commit, the new file among the entries.
    let file = std::fs::read_to_string(remembered_file(&repo)).unwrap();
    insta::assert_snapshot!(
        "head_entries_before_the_commit",
        crate::support::snapshot::placeholders(&repo.path, &file)
    );
    // HEAD moves: what was remembered for the old commit must not answer for the new one.
    repo.commit_all("commit both");
    let git = git2::Repository::open(&repo.path).unwrap();
    let states = PathStates::new(&git).unwrap();
    for path in paths {
        assert_eq!(
            states.state(path),
            PathState::Committed,
            "{path} after the commit"
        );
    }
    states.remember();
    // Rewritten for the new commit: nothing of the old one's entries left.
    let file = std::fs::read_to_string(remembered_file(&repo)).unwrap();
    insta::assert_snapshot!(
        "head_entries_after_the_commit",
        crate::support::snapshot::placeholders(&repo.path, &file)
    );
    assert!(!file.contains("- src/new.rs"), "{file}");
}

#[test]
fn a_remembered_file_that_does_not_parse_is_read_past_and_rewritten() {
    let repo = TestRepo::with_commit();
    repo.write("src/lib.rs", "pub fn a() { changed }\n");
    let file = remembered_file(&repo);
    let (head, tree) = (repo.head(), head_tree(&repo));
    for junk in [
        "".to_string(),
        "not ours\n".to_string(),
        format!("handover HEAD entries 2\ncommit {head}\ntree {tree}\nzzz\n- src/lib.rs\n"),
        format!("handover HEAD entries 2\ncommit {head}\ntree {tree}\n100644 12ab src/lib.rs\n"),
        // The format before (no tree line): read past as a whole, though it held no error.
        format!("handover HEAD entries 1\ncommit {head}\n- src/lib.rs\n"),
    ] {
        std::fs::write(&file, &junk).unwrap();
        let git = git2::Repository::open(&repo.path).unwrap();
        let states = PathStates::new(&git).unwrap();
        assert_eq!(
            states.state("src/lib.rs"),
            PathState::Uncommitted,
            "{junk:?}"
        );
        states.remember();
        let now = std::fs::read_to_string(&file).unwrap();
        assert!(
            now.ends_with(" src/lib.rs\n") && now.contains("100644 "),
            "{junk:?}: {now}"
        );
    }
}

#[cfg(unix)]
#[test]
fn the_remembered_file_is_never_read_or_written_through_a_link() {
    use std::os::unix::fs::symlink;
    let repo = TestRepo::with_commit();
    repo.write("src/lib.rs", "pub fn a() { changed }\n");
    let outside = repo.sibling("victim");
    // What a forged entry would say: src/lib.rs is HEAD's blob of the changed content.
    let forged_id =
        git2::Oid::hash_object(git2::ObjectType::Blob, b"pub fn a() { changed }\n").unwrap();
    let forged = format!(
        "handover HEAD entries 2\ncommit {}\ntree {}\n100644 {forged_id} src/lib.rs\n",
        repo.head(),
        head_tree(&repo)
    );
    std::fs::write(&outside, &forged).unwrap();
    symlink(&outside, remembered_file(&repo)).unwrap();
    let git = git2::Repository::open(&repo.path).unwrap();
    let states = PathStates::new(&git).unwrap();
    assert_eq!(
        states.state("src/lib.rs"),
        PathState::Uncommitted,
        "the link is not read"
    );
    states.remember();
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        forged,
        "nor written through"
    );
    assert!(std::fs::symlink_metadata(remembered_file(&repo))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_handoff_write_leaves_head_entries_remembered_for_the_next_start() {
    let repo = TestRepo::with_commit();
    repo.write("src/lib.rs", "pub fn a() { changed }\n");
    repo.write("src/new.rs", "new\n");
    crate::support::repo::handover_ok(&repo.path, &["write", "--goal", "g", "--next", "n"]);
    let file = std::fs::read_to_string(remembered_file(&repo)).unwrap();
    // HEAD's commit, the listed paths, and the handoff's own state.json that the start's
    // provenance check asks about.
    insta::assert_snapshot!(
        "head_entries_after_a_write",
        crate::support::snapshot::placeholders(&repo.path, &file)
    );
}

#[test]
fn a_linked_worktree_remembers_in_its_own_git_directory() {
    let repo = TestRepo::with_commit();
    let linked = repo.sibling("linked");
    repo.add_worktree(&linked, "side");
    // The linked worktree moves on: src/lib.rs is committed there with other content.
    crate::support::repo::write_in(&linked, "src/lib.rs", "pub fn b() {}\n");
    let side_head = crate::support::repo::commit_all_in(&linked, "side change");
    // The main worktree's copy differs from its HEAD; the linked one's equals its own HEAD.
    repo.write("src/lib.rs", "pub fn b() {}\n");
    let ask = |dir: &Path| {
        let git = git2::Repository::open(dir).unwrap();
        let states = PathStates::new(&git).unwrap();
        let got = states.state("src/lib.rs");
        states.remember();
        (got, git.path().join(head_entries::FILE_NAME))
    };
    for _ in 0..2 {
        let (main_state, main_file) = ask(&repo.path);
        let (linked_state, linked_file) = ask(&linked);
        assert_eq!(main_state, PathState::Uncommitted);
        assert_eq!(linked_state, PathState::Committed);
        let canonical = |p: &Path| p.canonicalize().unwrap();
        assert_eq!(canonical(&main_file), canonical(&remembered_file(&repo)));
        assert!(
            canonical(&linked_file).starts_with(canonical(&repo.path.join(".git/worktrees"))),
            "the linked worktree's own git directory: {}",
            linked_file.display()
        );
        let text = std::fs::read_to_string(&linked_file).unwrap();
        assert!(
            text.contains(&format!("commit {}\n", side_head.trim())),
            "{text}"
        );
    }
}

#[test]
fn a_git_directory_that_cannot_take_the_file_changes_no_answer() {
    let repo = TestRepo::with_commit();
    repo.write("src/lib.rs", "pub fn a() { changed }\n");
    // A directory where the file would be: it can be neither read nor replaced.
    std::fs::create_dir(remembered_file(&repo)).unwrap();
    let got: Vec<PathState> = states(&repo, &["src/lib.rs", "README.md"])
        .into_iter()
        .map(|s| s.1)
        .collect();
    assert_eq!(got, [PathState::Uncommitted, PathState::Committed]);
    assert!(remembered_file(&repo).is_dir());
}
