//! `scan_working_tree` against libgit2's own answers, on many generated repositories: its
//! changed and untracked files must be exactly what git's status gives (through the rule
//! `working_tree_status` had when it asked `Repository::statuses`), and its changes since a
//! commit exactly what `diff_tree_to_workdir_with_index` gives (what `files_changed` asked).
//! Every state a working tree can be in appears in some repository: staged only, staged and
//! changed again, deleted (from the disk, from the index, both), type changes both ways,
//! symlinks, intent-to-add, assume-unchanged, executable bits, ignored files and directories,
//! nested `.gitignore`s, untracked directories, renames, a nested repository (a gitlink), a
//! conflict, HEAD moved since the base, an unborn HEAD.

use super::{is_handover_file, scan_working_tree};
use crate::test_git::{git, git_output};
use git2::{Delta, DiffFindOptions, DiffOptions, Repository, Status, StatusOptions};
use std::path::Path;

/// For a change that applies only to some files (marking a file git does not track fails).
fn git_may_fail(root: &Path, args: &[&str]) {
    let _ = git_output(root, args);
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    std::fs::write(path, text).unwrap();
}

#[cfg(unix)]
fn symlink(root: &Path, target: &str, rel: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    std::os::unix::fs::symlink(target, path).unwrap();
}

#[cfg(unix)]
fn make_executable(root: &Path, rel: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = root.join(rel);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The rule `working_tree_status` applied to libgit2's status list before the scan replaced it.
fn status_oracle(repo: &Repository) -> (Vec<String>, Vec<String>) {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .renames_head_to_index(false);
    let statuses = repo.statuses(Some(&mut opts)).unwrap();
    let (mut dirty, mut untracked) = (Vec::new(), Vec::new());
    for entry in statuses.iter() {
        let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
        if is_handover_file(&path) {
            continue;
        }
        let s = entry.status();
        if s == Status::WT_NEW {
            untracked.push(path);
        } else if s.intersects(
            Status::INDEX_NEW
                | Status::INDEX_MODIFIED
                | Status::INDEX_DELETED
                | Status::INDEX_RENAMED
                | Status::INDEX_TYPECHANGE
                | Status::WT_MODIFIED
                | Status::WT_DELETED
                | Status::WT_RENAMED
                | Status::WT_TYPECHANGE
                | Status::CONFLICTED,
        ) {
            dirty.push(path);
        }
    }
    dirty.sort();
    dirty.dedup();
    untracked.sort();
    untracked.dedup();
    (dirty, untracked)
}

/// What `files_changed` computed before: libgit2's one-call diff from the commit's tree.
fn changes_oracle(repo: &Repository, since: &str) -> Vec<(String, Delta)> {
    let tree = repo.revparse_single(since).unwrap().peel_to_tree().unwrap();
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_typechange(true);
    let mut diff = repo
        .diff_tree_to_workdir_with_index(Some(&tree), Some(&mut opts))
        .unwrap();
    let mut find = DiffFindOptions::new();
    find.renames(true).for_untracked(true);
    let _ = diff.find_similar(Some(&mut find));
    let mut out: Vec<(String, Delta)> = diff
        .deltas()
        .filter(|d| {
            !matches!(
                d.status(),
                Delta::Unmodified | Delta::Ignored | Delta::Unreadable
            )
        })
        .filter_map(|d| {
            let path = d.new_file().path().or_else(|| d.old_file().path())?;
            let path = path.to_string_lossy().into_owned();
            (!is_handover_file(&path)).then_some((path, d.status()))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

fn kind_of(delta: Delta) -> &'static str {
    match delta {
        Delta::Added | Delta::Untracked | Delta::Copied => "added",
        Delta::Deleted => "deleted",
        Delta::Modified | Delta::Conflicted => "modified",
        Delta::Renamed => "renamed",
        Delta::Typechange => "typechange",
        _ => "other",
    }
}

fn assert_same(root: &Path, since: Option<&str>, case: &str) {
    let repo = Repository::open(root).unwrap();
    let scan = scan_working_tree(&repo, since, None).unwrap();
    let (dirty, untracked) = status_oracle(&repo);
    assert_eq!(scan.dirty, dirty, "{case}: dirty");
    assert_eq!(scan.untracked, untracked, "{case}: untracked");
    if let Some(since) = since {
        let ours: Vec<(String, String)> = scan
            .changed_since
            .expect("asked")
            .unwrap()
            .into_iter()
            .map(|c| {
                let kind = serde_json_kind(&c.change);
                (c.path, kind)
            })
            .collect();
        let theirs: Vec<(String, String)> = changes_oracle(&repo, since)
            .into_iter()
            .map(|(p, d)| (p, kind_of(d).to_string()))
            .collect();
        assert_eq!(ours, theirs, "{case}: changes since {since}");
    } else {
        assert!(scan.changed_since.is_none());
    }
}

fn serde_json_kind(kind: &handover_handoff::model::ChangeKind) -> String {
    use handover_handoff::model::ChangeKind;
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Deleted => "deleted",
        ChangeKind::Modified => "modified",
        ChangeKind::Renamed => "renamed",
        ChangeKind::Typechange => "typechange",
    }
    .to_string()
}

/// A small deterministic generator (no dependency): the same repositories on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const FILES: [&str; 12] = [
    "a.txt",
    "b.rs",
    "src/lib.rs",
    "src/main.rs",
    "src/deep/x.rs",
    "src/deep/y.rs",
    "docs/readme.md",
    "docs/guide.md",
    "build/out.o",
    "tools/run.sh",
    "tools/gen/z.py",
    "handover.md",
];

/// One change to the working tree or the index, picked by `op` for the file `rel`.
#[cfg(unix)]
fn apply(root: &Path, op: u64, rel: &str, n: u64) {
    let exists = root.join(rel).symlink_metadata().is_ok();
    match op {
        0 => write(root, rel, &format!("changed {n}\n")),
        1 => {
            write(root, rel, &format!("staged {n}\n"));
            git(root, &["add", "-f", "-A", "--", rel]);
        }
        2 => {
            // Staged, then changed again in the working tree.
            write(root, rel, &format!("staged {n}\n"));
            git(root, &["add", "-f", "-A", "--", rel]);
            write(root, rel, &format!("again {n}\n"));
        }
        3 if exists => std::fs::remove_file(root.join(rel)).unwrap(),
        4 if exists => git(
            root,
            &["rm", "-q", "--cached", "--ignore-unmatch", "--", rel],
        ),
        5 if exists => git(root, &["rm", "-q", "-f", "--ignore-unmatch", "--", rel]),
        6 => symlink(root, "a.txt", rel),
        7 => {
            let new = format!("{rel}.new{n}");
            write(root, &new, "brand new\n");
            if n.is_multiple_of(2) {
                git(root, &["add", "-f", "--", &new]);
            }
        }
        8 => {
            let new = format!("{rel}.ita{n}");
            write(root, &new, "intent to add\n");
            git(root, &["add", "-f", "-N", "--", &new]);
        }
        9 if exists => {
            git_may_fail(root, &["update-index", "--assume-unchanged", "--", rel]);
            write(root, rel, &format!("assumed unchanged {n}\n"));
        }
        10 if root.join(rel).symlink_metadata().is_ok_and(|m| m.is_file()) => {
            make_executable(root, rel)
        }
        11 => write(root, &format!("untracked{n}/inner/{n}.txt"), "u\n"),
        12 if exists => {
            let to = format!("moved{n}.txt");
            git_may_fail(root, &["mv", "-k", "--", rel, &to]);
        }
        13 => write(root, &format!("build/ignored{n}.o"), "ignored\n"),
        _ => write(root, rel, &format!("fallback {n}\n")),
    }
}

#[cfg(unix)]
fn generated(seed: u64) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let mut rng = Rng(seed);
    git(root, &["init", "-q"]);
    write(root, ".gitignore", "*.o\n/build/\n");
    write(root, "src/.gitignore", "deep/*.tmp\n");
    for rel in FILES {
        write(root, rel, &format!("{rel} first\n"));
    }
    symlink(root, "src/lib.rs", "link");
    write(root, ".handover/state.json", "{}\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "first"]);
    let moved = rng.below(2) == 0;
    if moved {
        // HEAD moves after the base: the changes since the base include committed ones.
        for i in 0..3 {
            let rel = FILES[rng.below(FILES.len() as u64) as usize];
            apply(root, rng.below(3), rel, 100 + i);
        }
        write(root, "committed-later.txt", "later\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", "second"]);
    }
    let base = if moved { "HEAD~1" } else { "HEAD" };
    for n in 0..(2 + rng.below(7)) {
        let rel = FILES[rng.below(FILES.len() as u64) as usize];
        apply(root, rng.below(15), rel, n);
    }
    write(
        root,
        "src/deep/scratch.tmp",
        "ignored by a nested .gitignore\n",
    );
    let case = format!("seed {seed}");
    assert_same(root, None, &case);
    assert_same(root, Some(base), &case);
    assert_same(root, Some("HEAD"), &case);
}

#[cfg(unix)]
#[test]
fn the_one_scan_answers_as_libgit2s_status_and_diff_in_generated_repositories() {
    for seed in 0..60 {
        generated(seed);
    }
}

#[cfg(unix)]
#[test]
fn the_one_scan_answers_as_libgit2_with_a_nested_repository_a_conflict_and_no_head() {
    // Unborn HEAD: everything is untracked or staged new.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q"]);
    write(root, "staged.txt", "s\n");
    git(root, &["add", "staged.txt"]);
    write(root, "loose.txt", "l\n");
    assert_same(root, None, "unborn");

    // A nested repository committed as a gitlink, then changed inside.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q"]);
    write(root, "top.txt", "t\n");
    let inner = root.join("inner");
    std::fs::create_dir(&inner).unwrap();
    git(&inner, &["init", "-q"]);
    write(&inner, "f.txt", "one\n");
    git(&inner, &["add", "-A"]);
    git(&inner, &["commit", "-q", "-m", "inner"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "with a gitlink"]);
    write(&inner, "f.txt", "two\n");
    git(&inner, &["commit", "-q", "-am", "inner moves"]);
    write(&inner, "untracked-inside.txt", "u\n");
    assert_same(root, None, "gitlink");
    assert_same(root, Some("HEAD"), "gitlink");

    // A merge conflict.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    git(root, &["init", "-q"]);
    write(root, "c.txt", "base\n");
    write(root, "other.txt", "o\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    git(root, &["checkout", "-q", "-b", "side"]);
    write(root, "c.txt", "side\n");
    git(root, &["commit", "-q", "-am", "side"]);
    git(root, &["checkout", "-q", "main"]);
    write(root, "c.txt", "main\n");
    git(root, &["commit", "-q", "-am", "main"]);
    let merge = git_output(root, &["merge", "-q", "side"]);
    assert!(!merge.status.success(), "the merge conflicts");
    assert_same(root, None, "conflict");
    assert_same(root, Some("HEAD~1"), "conflict");
}
