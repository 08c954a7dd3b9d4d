//! Verification on real repositories: every verdict and every reason code, full and quick.

use crate::support::repo::{commit_all_in, git, write_in, TestRepo};
use handover_git::{files_changed, snapshot};
use handover_handoff::model::{FileChange, Handoff, ImportantFile, Reason, Verdict, Verification};
use handover_verify::{verdict_of, verify, verify_quick};
use std::path::Path;

/// A handoff as `handover write` would record it at this moment in `root`.
fn handoff_at(root: &Path) -> Handoff {
    let (files, base) = files_changed(root, None).expect("files_changed");
    let mut h = Handoff {
        git: snapshot(root).expect("snapshot"),
        files_changed: files,
        files_changed_base: base,
        ..Handoff::default()
    };
    h.content.goal = "finish the parser".into();
    h
}

fn codes(v: &Verification) -> Vec<&str> {
    v.reasons.iter().map(|r| r.code.as_str()).collect()
}

fn find<'a>(v: &'a Verification, code: &str) -> &'a Reason {
    v.reasons
        .iter()
        .find(|r| r.code == code)
        .unwrap_or_else(|| panic!("no reason {code} in {v:#?}"))
}

fn short(id: &str) -> &str {
    &id[..7]
}

/// Both checks, and that quick reports the same branch/HEAD/file reasons as full, and a
/// working-tree reason (listed files that lost their changes) only when full has one too.
fn both(root: &Path, h: &Handoff) -> (Verification, Verification) {
    let full = verify(root, h);
    let quick = verify_quick(root, h);
    let tree = |c: &&str| *c == "working_tree_changed" || *c == "working_tree_unreadable";
    let without_tree = |v: &Verification| -> Vec<String> {
        codes(v)
            .into_iter()
            .filter(|c| !tree(c))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        without_tree(&quick),
        without_tree(&full),
        "quick vs full:\nfull {full:#?}\nquick {quick:#?}"
    );
    for r in &quick.reasons {
        let twin = full.reasons.iter().find(|f| f.code == r.code);
        let twin = twin.unwrap_or_else(|| panic!("quick's {} is not in full {full:#?}", r.code));
        if !tree(&r.code.as_str()) {
            assert_eq!(r, twin, "quick and full word the same reason identically");
        }
    }
    (full, quick)
}

#[test]
fn fresh_right_after_writing_even_with_uncommitted_work_and_the_handoff_files() {
    let repo = TestRepo::with_commit();
    repo.write("README.md", "dirty\n");
    repo.write("scratch.txt", "untracked\n");
    let h = handoff_at(&repo.path);
    // Writing the handoff itself must not change the verdict.
    repo.write("handover.md", "# Handoff\n");
    repo.write(".handover/state.json", "{}");
    repo.write(".handover/journal.jsonl", "{}\n");
    let (full, quick) = both(&repo.path, &h);
    assert_eq!(full.verdict, Verdict::Fresh, "{full:#?}");
    assert!(full.reasons.is_empty());
    assert_eq!(quick.verdict, Verdict::Fresh);
    assert!(quick.reasons.is_empty());
}

#[test]
fn drifted_by_commits_lists_their_subjects() {
    let repo = TestRepo::with_commit();
    let recorded = repo.head();
    let h = handoff_at(&repo.path);
    repo.write("a.txt", "a\n");
    let c1 = repo.commit_all("Add the lexer");
    repo.write("b.txt", "b\n");
    let c2 = repo.commit_all("Parse expressions");
    let (full, quick) = both(&repo.path, &h);
    assert_eq!(full.verdict, Verdict::Drifted);
    assert_eq!(quick.verdict, Verdict::Drifted);
    let r = find(&full, "head_moved");
    assert_eq!(r.severity, Verdict::Drifted);
    assert_eq!(
        r.message,
        format!(
            "HEAD moved 2 commits ahead of the recorded {} on «main».",
            short(&recorded)
        )
    );
    assert_eq!(
        r.details,
        vec![
            format!("{} «Parse expressions»", short(&c2)),
            format!("{} «Add the lexer»", short(&c1))
        ]
    );
    // The committed files were dirty/untracked? No: they were created after the handoff and
    // committed, so the working tree is as recorded.
    assert_eq!(codes(&full), vec!["head_moved"]);
}

#[test]
fn long_commit_lists_are_capped_with_a_count() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    for i in 0..13 {
        repo.git(&["commit", "-q", "--allow-empty", "-m", &format!("step {i}")]);
    }
    let v = verify_quick(&repo.path, &h);
    let r = find(&v, "head_moved");
    assert!(
        r.message.starts_with("HEAD moved 13 commits ahead"),
        "{}",
        r.message
    );
    assert_eq!(r.details.len(), 11);
    assert!(r.details[0].ends_with(" «step 12»"));
    assert_eq!(r.details[10], "… and 3 more");
}

#[test]
fn drifted_by_a_newly_dirty_file_and_a_new_untracked_file() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    repo.write("README.md", "now dirty\n");
    repo.write("new.txt", "new\n");
    let (full, quick) = both(&repo.path, &h);
    assert_eq!(full.verdict, Verdict::Drifted);
    let r = find(&full, "working_tree_changed");
    assert_eq!(r.details, vec!["+ «README.md»", "+ «new.txt»"]);
    assert_eq!(
        r.message,
        "2 files have uncommitted changes that the handoff does not list."
    );
    // Quick does not look at the working tree at all.
    assert_eq!(quick.verdict, Verdict::Fresh, "{quick:#?}");
}

#[test]
fn drifted_by_a_file_no_longer_dirty() {
    let repo = TestRepo::with_commit();
    repo.write("README.md", "dirty at handoff\n");
    repo.write("src/lib.rs", "pub fn dirty() {}\n");
    let h = handoff_at(&repo.path);
    assert_eq!(
        h.git.as_ref().unwrap().dirty,
        vec!["README.md", "src/lib.rs"]
    );
    repo.git(&["checkout", "--", "README.md"]);
    let v = verify(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Drifted);
    let r = find(&v, "working_tree_changed");
    assert_eq!(r.details, vec!["- «README.md»"]);
    assert_eq!(
        r.message,
        "1 file the handoff listed as uncommitted has no changes any more (committed or reverted)."
    );
}

#[test]
fn stale_after_switching_branch() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    repo.git(&["checkout", "-q", "-b", "other"]);
    let (full, quick) = both(&repo.path, &h);
    assert_eq!(full.verdict, Verdict::Stale);
    assert_eq!(quick.verdict, Verdict::Stale);
    let r = find(&full, "branch_changed");
    assert_eq!(r.severity, Verdict::Stale);
    assert_eq!(
        r.message,
        "The handoff was written on branch «main», but HEAD is now on branch «other»."
    );
    assert_eq!(
        codes(&full),
        vec!["branch_changed"],
        "same commit: nothing else to say"
    );
}

#[test]
fn stale_between_detached_and_branch_both_ways() {
    let repo = TestRepo::with_commit();
    let head = repo.head();
    let on_main = handoff_at(&repo.path);
    repo.git(&["checkout", "-q", "--detach"]);
    let detached = handoff_at(&repo.path);
    assert!(detached.git.as_ref().unwrap().detached);

    let (v, _) = both(&repo.path, &on_main);
    assert_eq!(v.verdict, Verdict::Stale);
    assert_eq!(
        find(&v, "branch_changed").message,
        format!(
            "The handoff was written on branch «main», but HEAD is now on a detached HEAD at {}.",
            short(&head)
        )
    );
    assert_eq!(verify(&repo.path, &detached).verdict, Verdict::Fresh);

    repo.git(&["checkout", "-q", "main"]);
    let (v, _) = both(&repo.path, &detached);
    assert_eq!(v.verdict, Verdict::Stale);
    assert_eq!(
        find(&v, "branch_changed").message,
        format!(
            "The handoff was written on a detached HEAD at {}, but HEAD is now on branch «main».",
            short(&head)
        )
    );
}

#[test]
fn detached_head_moving_forward_is_drift() {
    let repo = TestRepo::with_commit();
    repo.git(&["checkout", "-q", "--detach"]);
    let h = handoff_at(&repo.path);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "experiment"]);
    let (v, _) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Drifted);
    let r = find(&v, "head_moved");
    assert!(r.message.ends_with("(detached HEAD)."), "{}", r.message);
    assert!(r.details[0].ends_with(" «experiment»"));
}

#[test]
fn stale_after_reset_back_lists_the_lost_commits() {
    let repo = TestRepo::with_commit();
    repo.write("a.txt", "a\n");
    let second = repo.commit_all("Second commit");
    let h = handoff_at(&repo.path);
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let (v, quick) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Stale);
    assert_eq!(quick.verdict, Verdict::Stale);
    let r = find(&v, "head_behind");
    assert!(
        r.message.starts_with(&format!(
            "HEAD is 1 commit behind the recorded {} on «main»",
            short(&second)
        )),
        "{}",
        r.message
    );
    assert_eq!(
        r.details,
        vec![format!("{} «Second commit»", short(&second))]
    );
}

#[test]
fn stale_after_history_rewritten_by_amend() {
    let repo = TestRepo::with_commit();
    repo.write("a.txt", "a\n");
    let before = repo.commit_all("Original subject");
    let h = handoff_at(&repo.path);
    repo.git(&["commit", "-q", "--amend", "-m", "Amended subject"]);
    let after = repo.head();
    let (v, _) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Stale);
    let r = find(&v, "head_diverged");
    assert_eq!(
        r.message,
        format!(
            "History was rewritten on «main»: the recorded {} is not an ancestor of HEAD {} (1 recorded commit no longer on the branch, 1 new commit instead).",
            short(&before),
            short(&after)
        )
    );
    assert_eq!(
        r.details,
        vec![
            format!("+ {} «Amended subject»", short(&after)),
            format!("- {} «Original subject»", short(&before))
        ]
    );
}

#[test]
fn stale_after_a_rebase_onto_a_moved_main() {
    let repo = TestRepo::with_commit();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("f.txt", "f\n");
    repo.commit_all("Feature work");
    let h = handoff_at(&repo.path);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("m.txt", "m\n");
    repo.commit_all("Main moves");
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["rebase", "-q", "main"]);
    let (v, _) = both(&repo.path, &h);
    assert_eq!(codes(&v), vec!["head_diverged"]);
    let r = find(&v, "head_diverged");
    assert_eq!(
        r.details.len(),
        3,
        "two new (rebased + main's), one lost: {:?}",
        r.details
    );
    assert_eq!(r.details.iter().filter(|d| d.starts_with("- ")).count(), 1);
}

#[test]
fn stale_when_the_recorded_head_is_unknown() {
    let repo = TestRepo::with_commit();
    let mut h = handoff_at(&repo.path);
    h.git.as_mut().unwrap().head = Some("0123456789abcdef0123456789abcdef01234567".into());
    let (v, quick) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Stale);
    assert_eq!(quick.verdict, Verdict::Stale);
    assert_eq!(
        find(&v, "head_unknown").message,
        "The recorded HEAD 0123456 does not exist in this repository (history rewritten and pruned, or a different clone)."
    );
    // A malformed id is just as unknown.
    h.git.as_mut().unwrap().head = Some("not-a-commit".into());
    assert_eq!(codes(&verify_quick(&repo.path, &h)), vec!["head_unknown"]);
}

#[test]
fn stale_when_an_important_file_is_missing() {
    let repo = TestRepo::with_commit();
    let mut h = handoff_at(&repo.path);
    h.content.important_files = vec![
        ImportantFile {
            path: "src/lib.rs".into(),
            why: "the parser".into(),
        },
        ImportantFile {
            path: "README.md:3".into(),
            why: "a line pointer".into(),
        },
    ];
    assert_eq!(
        verify(&repo.path, &h).verdict,
        Verdict::Fresh,
        "a path:line pointer is fine while the file exists"
    );
    std::fs::remove_file(repo.path.join("src/lib.rs")).unwrap();
    let (v, quick) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Stale);
    assert_eq!(quick.verdict, Verdict::Stale);
    let r = find(&v, "important_file_missing");
    assert_eq!(
        r.message,
        "The important file «src/lib.rs» named in the handoff is missing."
    );
    assert_eq!(r.details, vec!["«src/lib.rs»"]);
    // Full also sees the deletion in the working tree.
    assert_eq!(
        codes(&v),
        vec!["working_tree_changed", "important_file_missing"]
    );
}

#[test]
fn drifted_when_a_changed_file_is_gone() {
    let repo = TestRepo::with_commit();
    repo.write("draft.txt", "draft\n");
    let h = handoff_at(&repo.path);
    assert!(
        h.files_changed.contains(&FileChange {
            path: "draft.txt".into(),
            change: handover_handoff::model::ChangeKind::Added,
            path_bytes: None,
        }),
        "{:?}",
        h.files_changed
    );
    std::fs::remove_file(repo.path.join("draft.txt")).unwrap();
    let (v, quick) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Drifted);
    assert_eq!(quick.verdict, Verdict::Drifted);
    assert_eq!(
        find(&quick, "changed_file_missing").message,
        "The file «draft.txt», changed before the handoff, no longer exists."
    );
    // A file recorded as deleted is expected to be absent.
    let mut h2 = h.clone();
    h2.files_changed = vec![FileChange {
        path: "draft.txt".into(),
        change: handover_handoff::model::ChangeKind::Deleted,
        path_bytes: None,
    }];
    assert!(!codes(&verify_quick(&repo.path, &h2)).contains(&"changed_file_missing"));
}

#[test]
fn unverified_without_a_snapshot_or_outside_git() {
    let repo = TestRepo::with_commit();
    let mut h = handoff_at(&repo.path);
    h.git = None;
    let (v, _) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Unverified);
    // No snapshot in a repository git reads: a crafted `git: null` does not pass for here.
    assert_eq!(codes(&v), vec!["foreign", "no_git_snapshot"]);

    // A snapshot, but the directory is no longer a repository.
    let h = handoff_at(&repo.path);
    std::fs::remove_dir_all(repo.path.join(".git")).unwrap();
    if handover_handoff::worktree::find_root(&repo.path).is_none() {
        let (v, quick) = both(&repo.path, &h);
        assert_eq!(v.verdict, Verdict::Unverified);
        assert_eq!(quick.verdict, Verdict::Unverified);
        let r = find(&v, "not_a_repository");
        insta::assert_snapshot!(
            "not_a_repository",
            crate::support::snapshot::placeholders(&repo.path, &r.message)
        );
    }
}

#[test]
fn unverified_when_git_is_unreadable_and_nothing_panics() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    std::fs::write(repo.path.join(".git/HEAD"), "garbage\n").unwrap();
    let full = verify(&repo.path, &h);
    let quick = verify_quick(&repo.path, &h);
    for v in [&full, &quick] {
        assert_eq!(v.verdict, Verdict::Unverified, "{v:#?}");
        let r = find(v, "git_unreadable");
        insta::assert_snapshot!(
            "git_unreadable",
            crate::support::snapshot::placeholders(&repo.path, &r.message)
        );
    }
}

#[test]
fn unverified_part_when_the_index_is_corrupt_quick_unaffected() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    std::fs::write(repo.path.join(".git/index"), b"DIRC\0\0\0\x09garbage").unwrap();
    let full = verify(&repo.path, &h);
    assert_eq!(full.verdict, Verdict::Unverified, "{full:#?}");
    assert_eq!(codes(&full), vec!["working_tree_unreadable"]);
    assert_eq!(verify_quick(&repo.path, &h).verdict, Verdict::Fresh);
}

#[test]
fn a_locked_index_does_not_disturb_verification() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    std::fs::write(repo.path.join(".git/index.lock"), b"").unwrap();
    let (v, q) = both(&repo.path, &h);
    assert_eq!(
        (v.verdict, q.verdict),
        (Verdict::Fresh, Verdict::Fresh),
        "{v:#?}"
    );
    assert!(
        repo.path.join(".git/index.lock").exists(),
        "someone else's lock is left alone"
    );
}

#[test]
fn unborn_repository_fresh_then_drifted_by_the_first_commit() {
    let repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    let h = handoff_at(&repo.path);
    assert_eq!(h.git.as_ref().unwrap().head, None);
    let (v, _) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Fresh, "{v:#?}");
    let first = repo.commit_all("First commit");
    let (v, _) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Drifted);
    let r = find(&v, "head_moved");
    assert_eq!(
        r.message,
        "HEAD moved 1 commit ahead on «main»; the handoff was written before the first commit."
    );
    assert_eq!(r.details, vec![format!("{} «First commit»", short(&first))]);
    // a.txt was untracked at the handoff and is committed now.
    assert_eq!(find(&v, "working_tree_changed").details, vec!["- «a.txt»"]);
}

#[test]
fn stale_when_head_has_no_commits_any_more() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    repo.git(&["checkout", "-q", "--orphan", "fresh-start"]);
    let (v, _) = both(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Stale);
    assert_eq!(codes(&v)[..2], ["branch_changed", "head_unborn"]);
    assert!(find(&v, "head_unborn")
        .message
        .starts_with("HEAD has no commits now on «fresh-start»"));
}

#[test]
fn linked_worktrees_each_verify_their_own_handoff() {
    let repo = TestRepo::with_commit();
    let wt = repo.sibling("wt");
    repo.add_worktree(&wt, "feature");
    let wt = wt.canonicalize().unwrap();
    let main_h = handoff_at(&repo.path);
    let wt_h = handoff_at(&wt);
    assert!(wt_h.git.as_ref().unwrap().linked_worktree);
    assert_eq!(both(&repo.path, &main_h).0.verdict, Verdict::Fresh);
    assert_eq!(both(&wt, &wt_h).0.verdict, Verdict::Fresh);

    // Work in the worktree drifts its handoff only.
    write_in(&wt, "f.txt", "f\n");
    commit_all_in(&wt, "Worktree commit");
    write_in(&wt, "wip.txt", "w\n");
    let (v, q) = both(&wt, &wt_h);
    assert_eq!(v.verdict, Verdict::Drifted);
    assert_eq!(codes(&v), vec!["head_moved", "working_tree_changed"]);
    assert_eq!(codes(&q), vec!["head_moved"]);
    assert_eq!(both(&repo.path, &main_h).0.verdict, Verdict::Fresh);

    // A handoff checked in the wrong worktree is foreign, and stale.
    let wrong = verify_quick(&wt, &main_h);
    assert_eq!(codes(&wrong)[..2], ["foreign", "branch_changed"]);
    assert_eq!(wrong.verdict, Verdict::Stale);
}

#[test]
fn verdict_is_the_worst_severity() {
    let r = |s| Reason {
        code: "x".into(),
        message: "x".into(),
        severity: s,
        details: vec![],
    };
    assert_eq!(verdict_of(&[]), Verdict::Fresh);
    assert_eq!(verdict_of(&[r(Verdict::Drifted)]), Verdict::Drifted);
    assert_eq!(
        verdict_of(&[r(Verdict::Drifted), r(Verdict::Unverified)]),
        Verdict::Unverified
    );
    assert_eq!(
        verdict_of(&[
            r(Verdict::Unverified),
            r(Verdict::Stale),
            r(Verdict::Drifted)
        ]),
        Verdict::Stale
    );
}

/// Prints figures; asserts only that the two agree. Run with
/// `cargo test --release -p handover --test integration -- --ignored --nocapture verify::measure`.
#[test]
#[ignore]
fn measure_quick_vs_full_on_20000_files() {
    use std::time::Instant;
    let repo = TestRepo::init();
    for i in 0..20_000 {
        write_in(
            &repo.path,
            &format!("d{:03}/f{i:05}.txt", i % 200),
            &format!("{i}\n"),
        );
    }
    repo.commit_all("20,000 files");
    repo.write("d000/f00000.txt", "dirty\n");
    let mut h = handoff_at(&repo.path);
    h.content.important_files = vec![ImportantFile {
        path: "d001/f00001.txt".into(),
        why: String::new(),
    }];
    repo.git(&["commit", "-q", "--allow-empty", "-m", "one more"]);
    let median = |f: &dyn Fn() -> Verification| {
        let mut times: Vec<f64> = (0..15)
            .map(|_| {
                let t = Instant::now();
                let v = f();
                let ms = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(v.verdict, Verdict::Drifted);
                ms
            })
            .collect();
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        times[times.len() / 2]
    };
    let full = median(&|| verify(&repo.path, &h));
    let quick = median(&|| verify_quick(&repo.path, &h));
    h.git.as_mut().unwrap().head = Some(repo.head());
    let quick_same_head = median(&|| {
        let mut v = verify_quick(&repo.path, &h);
        v.verdict = Verdict::Drifted; // fresh here; keep the shared assertion simple
        v
    });
    // The same two checks on a repository of 2 files, HEAD also 1 commit ahead.
    let small = TestRepo::with_commit();
    let hs = handoff_at(&small.path);
    small.git(&["commit", "-q", "--allow-empty", "-m", "one more"]);
    let small_full = median(&|| verify(&small.path, &hs));
    let small_quick = median(&|| verify_quick(&small.path, &hs));
    println!("verify_quick vs verify, median of 15 runs (HEAD 1 commit ahead of the handoff):");
    println!(
        "  20,000 files: verify {full:.2} ms, verify_quick {quick:.3} ms ({:.0}x)",
        full / quick
    );
    println!("  2 files:      verify {small_full:.2} ms, verify_quick {small_quick:.3} ms");
    println!(
        "  20,000 files, HEAD unchanged: verify_quick {quick_same_head:.3} ms (libgit2 opened for the origin check only)"
    );
    let _ = git;
}

#[test]
fn odd_roots_give_reasons_not_panics() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    // A root that does not exist.
    let gone = repo.sibling("does-not-exist");
    for v in [verify(&gone, &h), verify_quick(&gone, &h)] {
        assert_eq!(v.verdict, Verdict::Unverified, "{v:#?}");
    }
    // A worktree whose .git file points nowhere.
    let broken = repo.sibling("broken-wt");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join(".git"), "gitdir: /nonexistent/worktrees/x\n").unwrap();
    for v in [verify(&broken, &h), verify_quick(&broken, &h)] {
        assert_eq!(v.verdict, Verdict::Unverified, "{v:#?}");
        // First: recorded elsewhere (this is not the handoff's directory).
        assert_eq!(v.reasons[0].code, "foreign", "{v:#?}");
        assert!(
            matches!(
                v.reasons[1].code.as_str(),
                "git_unreadable" | "not_a_repository"
            ),
            "{v:#?}"
        );
    }
    // An empty .git directory.
    let empty = repo.sibling("empty-git");
    std::fs::create_dir_all(empty.join(".git")).unwrap();
    for v in [verify(&empty, &h), verify_quick(&empty, &h)] {
        assert_eq!(v.verdict, Verdict::Unverified, "{v:#?}");
    }
    // A ref file with garbage in it.
    std::fs::write(repo.path.join(".git/refs/heads/main"), "zzzz\n").unwrap();
    let q = verify_quick(&repo.path, &h);
    assert_eq!(q.verdict, Verdict::Unverified, "{q:#?}");
}

/// handover's own guard is not the session's work: it changes no file of the working tree, so
/// a handoff taken before or after it verifies fresh either way (it used to add a `.gitignore`
/// block, which the other order reported as drift).
#[test]
fn the_guard_in_either_order_keeps_the_first_handoff_fresh() {
    let repo = TestRepo::with_commit();
    handover_core::guard::ensure(&repo.path).unwrap();
    let h = handoff_at(&repo.path);
    assert_eq!(verify(&repo.path, &h).verdict, Verdict::Fresh);

    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    assert!(handover_core::guard::ensure(&repo.path).unwrap().1);
    let v = verify(&repo.path, &h);
    assert_eq!(v.verdict, Verdict::Fresh, "{v:#?}");
}

#[test]
fn very_long_histories_are_counted_up_to_a_bound() {
    let repo = TestRepo::with_commit();
    let h = handoff_at(&repo.path);
    // 1,005 empty commits on top of HEAD in one go (fast-import, not 1,005 `git commit`s).
    let head = repo.head();
    let mut stream = String::new();
    for i in 0..1005 {
        let msg = format!("bulk {i}");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter T <t@example.invalid> {} +0000\ndata {}\n{msg}\n",
            1_700_000_000 + i,
            msg.len()
        ));
        if i == 0 {
            stream.push_str(&format!("from {head}\n"));
        }
        stream.push('\n');
    }
    let mut child = std::process::Command::new("git")
        .args([
            "-C",
            repo.path.to_str().unwrap(),
            "fast-import",
            "--quiet",
            "--force",
        ])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stream.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    repo.git(&["reset", "-q", "--hard"]);
    let v = verify_quick(&repo.path, &h);
    let r = find(&v, "head_moved");
    assert!(
        r.message
            .starts_with("HEAD moved at least 1000 commits ahead"),
        "{}",
        r.message
    );
    assert_eq!(r.details.len(), 11);
    assert!(r.details[0].ends_with(" «bulk 1004»"), "{:?}", r.details[0]);
    assert_eq!(r.details[10], "… and at least 990 more");
}
