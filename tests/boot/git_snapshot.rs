//! git facts on real repositories: root discovery, snapshots (branches, detached HEAD,
//! linked worktrees, unborn), files changed since a commit or the default branch.

use crate::support;
use crate::support::repo::{commit_all_in, git, write_in, TestRepo};
use handover_git::{files_changed, read_head_files, snapshot};
use handover_handoff::worktree::find_root;
use std::path::Path;

fn changes(root: &Path, since: Option<&str>) -> (Vec<(String, String)>, Option<String>) {
    let (list, base) = files_changed(root, since).expect("files_changed");
    (
        list.into_iter()
            .map(|c| (c.path, c.change.as_str().to_string()))
            .collect(),
        base,
    )
}

fn pair(p: &str, c: &str) -> (String, String) {
    (p.to_string(), c.to_string())
}

#[test]
fn find_root_from_top_and_subdirectory() {
    let repo = TestRepo::with_commit();
    assert_eq!(find_root(&repo.path), Some(repo.path.clone()));
    let deep = repo.path.join("src/a/b");
    std::fs::create_dir_all(&deep).unwrap();
    assert_eq!(find_root(&deep), Some(repo.path.clone()));
}

#[test]
fn find_root_from_inside_a_linked_worktree_stops_at_the_worktree() {
    let repo = TestRepo::with_commit();
    let wt = repo.sibling("wt");
    repo.add_worktree(&wt, "feature");
    assert!(
        wt.join(".git").is_file(),
        "a linked worktree has a .git file"
    );
    assert_eq!(find_root(&wt.join("src")), Some(wt.clone()));
}

#[test]
fn find_root_outside_git_nonexistent_and_relative() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().canonicalize().unwrap();
    // A temp dir is normally outside any repository; if the machine's /tmp is inside one,
    // the answer must at least not be the temp dir itself.
    assert_ne!(find_root(&plain), Some(plain.clone()));
    assert_eq!(find_root(&plain.join("does/not/exist")), None);
    let file = plain.join("f.txt");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(find_root(&file), None, "a file is not a start directory");
}

/// Set in the child process of `find_root_from_a_relative_start`: the repository it runs in.
const RELATIVE_START_CHILD: &str = "HANDOVER_GIT_SNAPSHOT_RELATIVE_START";

#[test]
fn find_root_from_a_relative_start() {
    // The current directory belongs to the whole test process: the relative starts are resolved
    // in a child process (this test again) started in the repository's `src`.
    if let Ok(root) = std::env::var(RELATIVE_START_CHILD) {
        let root = std::path::PathBuf::from(root);
        assert_eq!(find_root(Path::new(".")), Some(root.clone()));
        assert_eq!(find_root(Path::new("deep")), Some(root.clone()));
        assert_eq!(find_root(Path::new("")), Some(root));
        assert_eq!(find_root(Path::new("nope")), None);
        return;
    }
    let repo = TestRepo::with_commit();
    std::fs::create_dir_all(repo.path.join("src/deep")).unwrap();
    let out = support::child::rerun(module_path!(), "find_root_from_a_relative_start")
        .current_dir(repo.path.join("src"))
        .env(RELATIVE_START_CHILD, &repo.path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test:\n{stdout}"
    );
}

#[test]
fn snapshot_on_a_branch_with_dirty_and_untracked_files() {
    let repo = TestRepo::with_commit();
    repo.write("README.md", "changed\n"); // unstaged change
    repo.write("src/lib.rs", "pub fn b() {}\n");
    repo.git(&["add", "src/lib.rs"]); // staged change
    repo.write("notes/todo.txt", "x\n"); // untracked, in a new directory
    repo.write(".gitignore", "*.log\n"); // untracked
    repo.write("build.log", "ignored\n"); // ignored
    let s = snapshot(&repo.path).unwrap().expect("in git");
    assert_eq!(Path::new(&s.root), repo.path.as_path());
    assert!(!s.linked_worktree);
    assert_eq!(s.branch.as_deref(), Some("main"));
    assert!(!s.detached);
    assert_eq!(s.head.as_deref(), Some(repo.head().as_str()));
    assert_eq!(s.head.as_ref().unwrap().len(), 40, "full id");
    assert_eq!(s.upstream, None);
    assert_eq!(s.dirty, vec!["README.md", "src/lib.rs"]);
    assert_eq!(s.untracked, vec![".gitignore", "notes/todo.txt"]);
}

#[test]
fn snapshot_leaves_out_handovers_own_files() {
    let repo = TestRepo::with_commit();
    repo.write("handover.md", "# Handoff\n");
    repo.write(".handover/state.json", "{}");
    repo.write(".handover/archive/1.json", "{}");
    let s = snapshot(&repo.path).unwrap().unwrap();
    assert!(s.dirty.is_empty() && s.untracked.is_empty(), "{s:?}");
    // Even when they are tracked and modified.
    repo.git(&["add", "-f", "handover.md"]);
    repo.commit_all("track the handoff");
    repo.write("handover.md", "# Handoff v2\n");
    let s = snapshot(&repo.path).unwrap().unwrap();
    assert!(s.dirty.is_empty(), "{s:?}");
}

#[test]
fn snapshot_of_detached_head() {
    let repo = TestRepo::with_commit();
    let first = repo.head();
    repo.write("a.txt", "a\n");
    repo.commit_all("second");
    repo.git(&["checkout", "-q", "--detach", &first]);
    let s = snapshot(&repo.path).unwrap().unwrap();
    assert!(s.detached);
    assert_eq!(s.branch, None);
    assert_eq!(s.head.as_deref(), Some(first.as_str()));
}

#[test]
fn snapshot_of_unborn_repository() {
    let repo = TestRepo::init();
    repo.write("new.txt", "x\n");
    let s = snapshot(&repo.path).unwrap().unwrap();
    assert_eq!(s.branch.as_deref(), Some("main"));
    assert!(!s.detached);
    assert_eq!(s.head, None);
    assert_eq!(s.untracked, vec!["new.txt"]);
    // And the cheap reader agrees.
    let h = read_head_files(&repo.path).unwrap();
    assert_eq!(
        (h.branch.as_deref(), h.detached, h.head),
        (Some("main"), false, None)
    );
}

#[test]
fn snapshot_outside_git_is_none() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("plain");
    std::fs::create_dir(&dir).unwrap();
    // Make sure no enclosing repository is found even if /tmp sits in one.
    std::fs::create_dir(dir.join("sub")).unwrap();
    if find_root(&dir).is_none() {
        assert_eq!(snapshot(&dir).unwrap(), None);
        assert_eq!(files_changed(&dir, None).unwrap(), (Vec::new(), None));
    }
}

#[test]
fn snapshots_of_linked_worktrees_differ() {
    let repo = TestRepo::with_commit();
    let wt = repo.sibling("wt-feature");
    repo.add_worktree(&wt, "feature");
    write_in(&wt, "feature.txt", "f\n");
    let feature_head = commit_all_in(&wt, "feature work");
    write_in(&wt, "wip.txt", "w\n");
    repo.write("README.md", "main edit\n");

    let main = snapshot(&repo.path).unwrap().unwrap();
    let feat = snapshot(&wt).unwrap().unwrap();
    assert!(!main.linked_worktree);
    assert!(feat.linked_worktree);
    assert_eq!(Path::new(&feat.root), wt.canonicalize().unwrap().as_path());
    assert_eq!(main.branch.as_deref(), Some("main"));
    assert_eq!(feat.branch.as_deref(), Some("feature"));
    assert_eq!(feat.head.as_deref(), Some(feature_head.as_str()));
    assert_ne!(main.head, feat.head);
    assert_eq!(main.dirty, vec!["README.md"]);
    assert!(main.untracked.is_empty());
    assert!(feat.dirty.is_empty());
    assert_eq!(feat.untracked, vec!["wip.txt"]);

    // The file-based HEAD reader follows the worktree's .git file and commondir.
    let h = read_head_files(&wt).unwrap();
    assert_eq!(h.branch.as_deref(), Some("feature"));
    assert_eq!(h.head.as_deref(), Some(feature_head.as_str()));
}

#[test]
fn read_head_files_handles_packed_refs_and_detached() {
    let repo = TestRepo::with_commit();
    repo.git(&["pack-refs", "--all"]);
    assert!(
        !repo.path.join(".git/refs/heads/main").exists(),
        "ref is packed"
    );
    let h = read_head_files(&repo.path).unwrap();
    assert_eq!(h.branch.as_deref(), Some("main"));
    assert_eq!(h.head.as_deref(), Some(repo.head().as_str()));
    repo.git(&["checkout", "-q", "--detach"]);
    let h = read_head_files(&repo.path).unwrap();
    assert!(h.detached);
    assert_eq!(h.branch, None);
    assert_eq!(h.head.as_deref(), Some(repo.head().as_str()));
}

#[test]
fn snapshot_records_the_upstream() {
    let origin = TestRepo::with_commit();
    let clone = origin.sibling("clone");
    git(
        &origin.path,
        &[
            "clone",
            "-q",
            origin.path.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    let s = snapshot(&clone).unwrap().unwrap();
    assert_eq!(s.branch.as_deref(), Some("main"));
    assert_eq!(s.upstream.as_deref(), Some("origin/main"));
}

#[test]
fn files_changed_since_a_commit_includes_index_worktree_and_untracked() {
    let repo = TestRepo::with_commit();
    let base = repo.head();
    repo.write("committed.txt", "c\n");
    repo.git(&["rm", "-q", "README.md"]);
    repo.commit_all("add committed.txt, drop README");
    repo.write("src/lib.rs", "pub fn changed() {}\n"); // unstaged
    repo.write("staged.txt", "s\n");
    repo.git(&["add", "staged.txt"]); // staged
    repo.write("untracked/new.txt", "u\n"); // untracked
    repo.write("handover.md", "mine\n"); // handover's own: excluded
    repo.write(".handover/state.json", "{}");
    let (list, used) = changes(&repo.path, Some(&base));
    assert_eq!(used.as_deref(), Some(base.as_str()));
    assert_eq!(
        list,
        vec![
            pair("README.md", "deleted"),
            pair("committed.txt", "added"),
            pair("src/lib.rs", "modified"),
            pair("staged.txt", "added"),
            pair("untracked/new.txt", "added"),
        ]
    );
}

#[test]
fn files_changed_detects_a_rename() {
    let repo = TestRepo::with_commit();
    let base = repo.head();
    repo.git(&["mv", "src/lib.rs", "src/core.rs"]);
    let (list, _) = changes(&repo.path, Some(&base));
    assert_eq!(list, vec![pair("src/core.rs", "renamed")]);
}

#[test]
fn files_changed_on_a_feature_branch_uses_the_merge_base_with_main() {
    let repo = TestRepo::with_commit();
    let fork = repo.head();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("feature.txt", "f\n");
    repo.commit_all("feature");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("main-only.txt", "m\n");
    repo.commit_all("main moves on");
    repo.git(&["checkout", "-q", "feature"]);
    repo.write("wip.txt", "w\n");
    // No `since`, and an unknown `since`, both fall back to the merge base.
    for since in [
        None,
        Some("0123456789abcdef0123456789abcdef01234567"),
        Some("not-a-ref"),
    ] {
        let (list, used) = changes(&repo.path, since);
        assert_eq!(used.as_deref(), Some(fork.as_str()), "since {since:?}");
        assert_eq!(
            list,
            vec![pair("feature.txt", "added"), pair("wip.txt", "added")],
            "since {since:?}"
        );
    }
}

#[test]
fn files_changed_on_the_default_branch_is_against_head() {
    let repo = TestRepo::with_commit();
    repo.write("b.txt", "b\n");
    let head = repo.commit_all("second");
    repo.write("README.md", "edited\n");
    let (list, used) = changes(&repo.path, None);
    assert_eq!(used.as_deref(), Some(head.as_str()));
    assert_eq!(list, vec![pair("README.md", "modified")]);
}

#[test]
fn files_changed_uses_origin_head_when_there_is_a_remote() {
    // The remote's default branch is `trunk`; there is no local main or master.
    let origin = TestRepo::init();
    origin.git(&["checkout", "-q", "-b", "trunk"]);
    origin.write("a.txt", "a\n");
    let fork = origin.commit_all("first on trunk");
    let clone = origin.sibling("clone");
    git(
        &origin.path,
        &[
            "clone",
            "-q",
            origin.path.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    assert_eq!(
        git(&clone, &["symbolic-ref", "refs/remotes/origin/HEAD"]),
        "refs/remotes/origin/trunk"
    );
    git(&clone, &["checkout", "-q", "-b", "topic"]);
    write_in(&clone, "topic.txt", "t\n");
    commit_all_in(&clone, "topic");
    let (list, used) = changes(&clone, None);
    assert_eq!(used.as_deref(), Some(fork.as_str()));
    assert_eq!(list, vec![pair("topic.txt", "added")]);
}

#[test]
fn files_changed_in_an_unborn_repository_lists_everything_with_no_base() {
    let repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    repo.write("b.txt", "b\n");
    repo.git(&["add", "a.txt"]);
    let (list, used) = changes(&repo.path, None);
    assert_eq!(used, None);
    assert_eq!(list, vec![pair("a.txt", "added"), pair("b.txt", "added")]);
}

#[test]
fn files_changed_in_a_linked_worktree() {
    let repo = TestRepo::with_commit();
    let base = repo.head();
    let wt = repo.sibling("wt");
    repo.add_worktree(&wt, "feature");
    write_in(&wt, "only-here.txt", "x\n");
    let (list, used) = changes(&wt, None);
    assert_eq!(used.as_deref(), Some(base.as_str()));
    assert_eq!(list, vec![pair("only-here.txt", "added")]);
    // The main worktree does not see it.
    assert!(changes(&repo.path, None).0.is_empty());
}
