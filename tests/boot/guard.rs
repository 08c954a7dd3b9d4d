//! The .gitignore guard on real repositories: idempotent, byte-preserving, reports tracked
//! handoff files without touching them.

use crate::support::repo::{git, Repo};
use handover_core::guard::{ensure, status, with_block, GuardStatus, BEGIN_MARK, END_MARK};

const BLOCK: &str =
    "# >>> handover (private handoff files) >>>\n/handover.md\n/.handover/\n# <<< handover <<<\n";

fn read(repo: &Repo) -> Vec<u8> {
    std::fs::read(repo.path.join(".gitignore")).unwrap()
}

#[test]
fn creates_gitignore_and_git_then_ignores_the_handoff_files() {
    let repo = Repo::with_commit();
    assert_eq!(
        status(&repo.path),
        GuardStatus {
            present: false,
            tracked: vec![],
            problem: None,
        }
    );
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
    assert_eq!(String::from_utf8(read(&repo)).unwrap(), BLOCK);
    assert!(status(&repo.path).present);
    // git itself now ignores the files.
    repo.write("handover.md", "x\n");
    repo.write(".handover/state.json", "{}");
    repo.write(
        "sub/handover.md",
        "not ours: only the top-level file is ignored\n",
    );
    let out = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(out, "?? .gitignore\n?? sub/handover.md", "{out}");
}

#[test]
fn second_ensure_does_not_write() {
    let repo = Repo::with_commit();
    ensure(&repo.path).unwrap();
    let path = repo.path.join(".gitignore");
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
        let repo = Repo::with_commit();
        std::fs::write(repo.path.join(".gitignore"), original).unwrap();
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
    let repo = Repo::with_commit();
    let original = format!("keep me\n{BEGIN_MARK}\n/handover.md\n");
    std::fs::write(repo.path.join(".gitignore"), &original).unwrap();
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
fn non_utf8_content_is_preserved() {
    let repo = Repo::with_commit();
    let original: &[u8] = b"caf\xe9/\n\xff\xfe\n";
    std::fs::write(repo.path.join(".gitignore"), original).unwrap();
    ensure(&repo.path).unwrap();
    let new = read(&repo);
    assert!(new.starts_with(original));
    assert!(status(&repo.path).present);
}

#[test]
fn tracked_handoff_files_are_reported_not_untracked() {
    let repo = Repo::with_commit();
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
fn works_in_a_linked_worktree() {
    let repo = Repo::with_commit();
    let wt = repo.sibling("wt");
    repo.add_worktree(&wt, "feature");
    let (st, changed) = ensure(&wt).unwrap();
    assert!(changed && st.present);
    assert!(wt.join(".gitignore").exists());
    assert!(
        !repo.path.join(".gitignore").exists(),
        "the main worktree is not touched"
    );
    let _ = git;
}

#[test]
fn outside_git_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("plain");
    std::fs::create_dir(&dir).unwrap();
    if handover_core::git::find_root(&dir).is_some() {
        return; // the machine's temp dir is inside a repository: nothing to test here
    }
    assert_eq!(ensure(&dir).unwrap(), (GuardStatus::default(), false));
    assert!(!dir.join(".gitignore").exists());
    assert_eq!(status(&dir), GuardStatus::default());
}

#[test]
fn a_symlinked_gitignore_is_never_written_through() {
    // git does not follow a `.gitignore` link in the working tree (it opens it with O_NOFOLLOW:
    // "unable to access '.gitignore': Too many levels of symbolic links", git 2.47), so a block
    // written through it would protect nothing, and would change a file outside the repository.
    let repo = Repo::with_commit();
    let real = repo.sibling("dotfiles-gitignore");
    std::fs::write(&real, "target/\n").unwrap();
    std::os::unix::fs::symlink(&real, repo.path.join(".gitignore")).unwrap();
    let err = ensure(&repo.path).unwrap_err().to_string();
    insta::assert_snapshot!(
        "linked_gitignore",
        crate::support::snapshot::placeholders(&repo.path, &err)
    );
    assert!(std::fs::symlink_metadata(repo.path.join(".gitignore"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "target/\n");
}
