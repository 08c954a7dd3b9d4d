//! The privacy guard on real repositories: a marked block in the repository's own
//! `info/exclude` (no tracked file changes), added only when git does not already ignore the
//! handoff files, idempotent, byte-preserving, reporting tracked handoff files without touching
//! them, and never written through a link.

use crate::support::repo::TestRepo;
use handover_core::guard::{ensure, status, with_block, GuardStatus, BEGIN_MARK, END_MARK};

const BLOCK: &str =
    "# >>> handover (private handoff files) >>>\n/handover.md\n/.handover/\n# <<< handover <<<\n";

fn exclude(repo: &TestRepo) -> std::path::PathBuf {
    repo.path.join(".git/info/exclude")
}

fn read(repo: &TestRepo) -> Vec<u8> {
    std::fs::read(exclude(repo)).unwrap()
}

/// `git status --porcelain` over every untracked file, after a handoff's files are there.
fn status_with_handoff_files(repo: &TestRepo) -> String {
    repo.write("handover.md", "x\n");
    repo.write(".handover/state.json", "{}");
    repo.write(".handover/records/r.json", "{}");
    repo.git(&["status", "--porcelain", "--untracked-files=all"])
}

#[test]
fn adds_the_block_to_info_exclude_and_git_then_ignores_the_handoff_files() {
    let repo = TestRepo::with_commit();
    assert_eq!(
        status(&repo.path),
        GuardStatus {
            present: false,
            tracked: vec![],
            problem: None,
        }
    );
    let template = std::fs::read(exclude(&repo)).unwrap_or_default();
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(changed);
    assert_eq!(
        st,
        GuardStatus {
            present: true,
            tracked: vec![],
            problem: None,
        }
    );
    let now = read(&repo);
    assert!(now.starts_with(&template), "git's template lines are kept");
    assert!(String::from_utf8_lossy(&now).ends_with(BLOCK));
    assert!(status(&repo.path).present);
    assert!(!repo.path.join(".gitignore").exists(), "no tracked file");
    repo.write(
        "sub/handover.md",
        "not ours: only the top-level file is ignored\n",
    );
    let out = status_with_handoff_files(&repo);
    assert_eq!(out, "?? sub/handover.md", "{out}");
}

#[test]
fn nothing_is_written_when_git_already_ignores_the_handoff_files() {
    // The team's own .gitignore, the block an older handover put into .gitignore, the user's
    // global excludes: whatever the rule, git's answer decides.
    let cases = [
        ("the team's rules", "handover.md\n.handover/\n"),
        ("an older handover's block", BLOCK),
        ("one pattern for both", "*handover*\n"),
    ];
    for (name, gitignore) in cases {
        let repo = TestRepo::with_commit();
        repo.write(".gitignore", gitignore);
        repo.commit_all("ignore handoff files");
        let before = std::fs::read(exclude(&repo)).ok();
        let (st, changed) = ensure(&repo.path).unwrap();
        assert!(!changed, "{name}");
        assert!(st.present && st.problem.is_none(), "{name}: {st:?}");
        assert_eq!(std::fs::read(exclude(&repo)).ok(), before, "{name}");
        assert_eq!(status_with_handoff_files(&repo), "", "{name}");
    }
}

#[test]
fn a_rule_for_one_file_inside_handover_is_not_enough() {
    let repo = TestRepo::with_commit();
    repo.write(".gitignore", "handover.md\n.handover/state.json\n");
    repo.commit_all("half ignored");
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(changed && st.present, "{st:?}");
    assert_eq!(status_with_handoff_files(&repo), "");
}

#[test]
fn second_ensure_does_not_write() {
    let repo = TestRepo::with_commit();
    ensure(&repo.path).unwrap();
    let path = exclude(&repo);
    let before = std::fs::metadata(&path).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(!changed);
    assert!(st.present);
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        before.modified().unwrap(),
        after.modified().unwrap(),
        "file not rewritten"
    );
    use std::os::unix::fs::MetadataExt;
    assert_eq!(before.ino(), after.ino(), "not replaced either");
}

#[test]
fn appends_keeping_existing_content_byte_for_byte() {
    let cases: [(&str, &[u8]); 4] = [
        ("trailing newline", b"target/\n*.log\n"),
        ("no trailing newline", b"target/\n*.log"),
        ("crlf", b"target/\r\n*.log\r\n"),
        ("crlf no trailing newline", b"target/\r\n*.log"),
    ];
    for (name, original) in cases {
        let repo = TestRepo::with_commit();
        std::fs::write(exclude(&repo), original).unwrap();
        let (_, changed) = ensure(&repo.path).unwrap();
        assert!(changed, "{name}");
        let new = read(&repo);
        assert!(
            new.starts_with(original),
            "{name}: original bytes are a prefix"
        );
        let crlf = name.starts_with("crlf");
        let eol = if crlf { "\r\n" } else { "\n" };
        let sep = if original.ends_with(b"\n") {
            eol.to_string()
        } else {
            format!("{eol}{eol}")
        };
        let expected_tail = format!("{sep}{}", BLOCK.replace('\n', eol));
        assert_eq!(
            String::from_utf8_lossy(&new[original.len()..]),
            expected_tail,
            "{name}"
        );
        assert!(!ensure(&repo.path).unwrap().1, "{name}: idempotent");
        assert_eq!(read(&repo), new, "{name}");
    }
}

#[test]
fn a_missing_info_directory_is_created() {
    let repo = TestRepo::with_commit();
    std::fs::remove_dir_all(repo.path.join(".git/info")).unwrap();
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(changed && st.present);
    assert_eq!(String::from_utf8(read(&repo)).unwrap(), BLOCK);
}

#[test]
fn an_outdated_block_is_replaced_in_place_and_the_rest_kept() {
    let old = format!("a\n{BEGIN_MARK}\n/handover.md\n/old-pattern\n{END_MARK}\nb\nc");
    let new = with_block(old.as_bytes()).unwrap();
    assert_eq!(String::from_utf8(new).unwrap(), format!("a\n{BLOCK}b\nc"));
    // End mark as the last line without a newline stays without one.
    let old = format!("a\n{BEGIN_MARK}\n/x\n{END_MARK}");
    let new = String::from_utf8(with_block(old.as_bytes()).unwrap()).unwrap();
    assert_eq!(new, format!("a\n{}", BLOCK.trim_end_matches('\n')));
    assert_eq!(
        with_block(new.as_bytes()).unwrap(),
        new.as_bytes(),
        "stable"
    );
}

#[test]
fn a_begin_mark_without_an_end_is_a_warning_and_nothing_is_written() {
    let repo = TestRepo::with_commit();
    let original = format!("keep me\n{BEGIN_MARK}\n/handover.md\n");
    std::fs::write(exclude(&repo), &original).unwrap();
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(!changed && !st.present);
    let text = st.problem.expect("the damage is reported");
    insta::assert_snapshot!(
        "begin_mark_without_end",
        crate::support::snapshot::placeholders(&repo.path, &text)
    );
    assert_eq!(read(&repo), original.as_bytes());
    let st = status(&repo.path);
    assert!(!st.present && st.problem.is_some());
}

#[test]
fn a_gitignore_rule_that_reincludes_a_handoff_file_is_reported() {
    let repo = TestRepo::with_commit();
    repo.write(".gitignore", "!/handover.md\n");
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(changed, "the block is added");
    assert!(!st.present);
    let problem = st.problem.expect("the re-inclusion is reported");
    assert!(problem.contains("!/handover.md"), "{problem}");
    assert_eq!(status(&repo.path).problem, Some(problem));
}

#[test]
fn non_utf8_content_is_preserved() {
    let repo = TestRepo::with_commit();
    let original: &[u8] = b"caf\xe9/\n\xff\xfe\n";
    std::fs::write(exclude(&repo), original).unwrap();
    ensure(&repo.path).unwrap();
    let new = read(&repo);
    assert!(new.starts_with(original));
    assert!(status(&repo.path).present);
}

#[test]
fn tracked_handoff_files_are_reported_not_untracked() {
    let repo = TestRepo::with_commit();
    repo.write("handover.md", "# shared handoff\n");
    repo.write(".handover/state.json", "{}");
    repo.write(".handover/journal.jsonl", "{}\n");
    repo.commit_all("commit the handoff");
    let (st, changed) = ensure(&repo.path).unwrap();
    assert!(changed);
    assert_eq!(
        st.tracked,
        vec![
            ".handover/journal.jsonl",
            ".handover/state.json",
            "handover.md"
        ]
    );
    assert_eq!(status(&repo.path).tracked, st.tracked);
    // Still in the index afterwards.
    let ls = repo.git(&["ls-files"]);
    assert!(
        ls.contains("handover.md") && ls.contains(".handover/state.json"),
        "{ls}"
    );
    // Removing one from the index (as the user might) is seen.
    repo.git(&["rm", "-q", "--cached", "handover.md"]);
    assert_eq!(
        status(&repo.path).tracked,
        vec![".handover/journal.jsonl", ".handover/state.json"]
    );
}

#[test]
fn works_in_a_linked_worktree_through_the_common_directory() {
    // git reads info/exclude from the common directory only: one block serves every worktree.
    let repo = TestRepo::with_commit();
    let wt = repo.sibling("wt");
    repo.add_worktree(&wt, "feature");
    let (st, changed) = ensure(&wt).unwrap();
    assert!(changed && st.present);
    assert!(!wt.join(".gitignore").exists());
    assert!(String::from_utf8_lossy(&read(&repo)).ends_with(BLOCK));
    assert_eq!(
        handover_core::guard::label(&wt),
        repo.path.join(".git/info/exclude").display().to_string()
    );
    crate::support::repo::write_in(&wt, "handover.md", "x\n");
    let out = crate::support::repo::git(&wt, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(out, "");
    assert!(status(&repo.path).present, "the main worktree too");
}

#[test]
fn outside_git_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("plain");
    std::fs::create_dir(&dir).unwrap();
    if handover_handoff::worktree::find_root(&dir).is_some() {
        return; // the machine's temp dir is inside a repository: nothing to test here
    }
    assert_eq!(ensure(&dir).unwrap(), (GuardStatus::default(), false));
    assert!(!dir.join(".gitignore").exists());
    assert!(!dir.join(".git").exists());
    assert_eq!(status(&dir), GuardStatus::default());
}

#[test]
fn a_linked_exclude_file_is_never_written_through() {
    let repo = TestRepo::with_commit();
    let real = repo.sibling("dotfiles-exclude");
    std::fs::write(&real, "target/\n").unwrap();
    std::fs::remove_file(exclude(&repo)).ok();
    std::os::unix::fs::symlink(&real, exclude(&repo)).unwrap();
    let err = ensure(&repo.path).unwrap_err().to_string();
    insta::assert_snapshot!(
        "linked_exclude",
        crate::support::snapshot::placeholders(&repo.path, &err)
    );
    assert!(std::fs::symlink_metadata(exclude(&repo))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "target/\n");
}

#[test]
fn a_linked_info_directory_is_never_written_through() {
    let repo = TestRepo::with_commit();
    let elsewhere = repo.sibling("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::remove_dir_all(repo.path.join(".git/info")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.path.join(".git/info")).unwrap();
    assert!(ensure(&repo.path).is_err());
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_dot_git_file_naming_a_directory_that_is_no_git_directory_gets_nothing() {
    // An unpacked tarball's `.git` file may name any directory of the victim's: the guard
    // writes only into a git directory.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("tree");
    let victim = tmp.path().join("victim");
    std::fs::create_dir(&root).unwrap();
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(root.join(".git"), format!("gitdir: {}\n", victim.display())).unwrap();
    let _ = ensure(&root);
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0);
}
