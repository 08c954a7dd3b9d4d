//! The quick verdict read from a plain layout's files (`handover_git::plain`, libgit2 opened
//! only for what those cannot answer) is the verdict libgit2 gives, over the repository shapes
//! a start meets and hostile ones: each shape is verified both ways, and the plain way again
//! once the remembered HEAD entries were written.

use super::*;
use crate::test_git::git;
use std::path::Path;
use std::process::Command;

fn write(dir: &Path, path: &str, text: &str) {
    let at = dir.join(path);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(at, text).unwrap();
}

/// A repository with a few committed files in two directories.
fn repository(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    write(dir, "a.txt", "a\n");
    write(dir, "src/lib.rs", "pub fn f() {}\n");
    write(dir, "src/deep/mod.rs", "mod x;\n");
    write(dir, ".gitignore", "*.log\n");
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "one"]);
}

/// A handoff as `handover write` records it in `root` now, naming `files` as changed.
fn handoff_at(root: &Path, files: &[&str]) -> Handoff {
    let (mut changed, base) = git::files_changed(root, None).unwrap_or_default();
    for f in files {
        changed.push(handover_handoff::model::FileChange {
            path: f.to_string(),
            ..Default::default()
        });
    }
    Handoff {
        git: git::snapshot(root).unwrap(),
        files_changed: changed,
        files_changed_base: base,
        ..Handoff::default()
    }
}

/// Whether the shape's layout is expected plain.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Layout {
    Plain,
    NotPlain,
}

/// Both ways agree in `root` for `h`; the layout is read as `layout` says. Returns the verdict.
fn agree(root: &Path, h: &Handoff, layout: Layout) -> Verification {
    let by_libgit2 = verify_quick_in(&LazyRepo::libgit2_only(root), h);
    let lazy = LazyRepo::new(root);
    assert_eq!(
        lazy.plain().is_some(),
        layout == Layout::Plain,
        "layout of {}",
        root.display()
    );
    let by_files = verify_quick_in(&lazy, h);
    assert_eq!(
        by_files,
        by_libgit2,
        "plain vs libgit2 in {}",
        root.display()
    );
    // Again, with the remembered entries the first calls wrote.
    let again = verify_quick_in(&LazyRepo::new(root), h);
    assert_eq!(again, by_libgit2, "again in {}", root.display());
    by_libgit2
}

/// The verdict in a plain layout, and how many times libgit2 opened the repository for it.
fn opens(root: &Path, h: &Handoff) -> usize {
    let before = git::opens_on_this_thread();
    let _ = verify_quick_in(&LazyRepo::new(root), h);
    git::opens_on_this_thread() - before
}

fn codes(v: &Verification) -> Vec<&str> {
    v.reasons.iter().map(|r| r.code.as_str()).collect()
}

#[test]
fn listed_files_in_every_state_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let root = &tmp.path().join("r");
    repository(root);
    write(root, "a.txt", "a changed\n");
    write(root, "src/lib.rs", "pub fn g() {}\n");
    git(root, &["add", "src/lib.rs"]);
    std::fs::remove_file(root.join("src/deep/mod.rs")).unwrap();
    write(root, "new.txt", "new\n");
    let h = handoff_at(root, &["a.txt"]);
    let recorded = h.git.as_ref().unwrap();
    assert_eq!(recorded.dirty, ["a.txt", "src/deep/mod.rs", "src/lib.rs"]);
    assert_eq!(recorded.untracked, ["new.txt"]);
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Fresh);

    // Each listed path back to HEAD or gone: drift, told the same both ways.
    git(root, &["checkout", "--", "a.txt"]);
    git(root, &["reset", "-q", "src/lib.rs"]);
    git(root, &["checkout", "--", "src/lib.rs", "src/deep/mod.rs"]);
    std::fs::rename(root.join("new.txt"), root.join("new.log")).unwrap();
    let v = agree(root, &h, Layout::Plain);
    assert_eq!(codes(&v), ["working_tree_changed", "changed_file_missing"]);

    // Untracked again, then ignored: the ignore rules are libgit2's.
    write(root, "new.txt", "new\n");
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Drifted);
    write(root, ".git/info/exclude", "new.txt\n");
    agree(root, &h, Layout::Plain);

    // The executable bit (core.fileMode, libgit2's config), and a file git would filter.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let a = root.join("a.txt");
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o755)).unwrap();
        agree(root, &h, Layout::Plain);
        git(root, &["config", "core.fileMode", "false"]);
        agree(root, &h, Layout::Plain);
    }
    write(root, "a.txt", "a\r\n");
    agree(root, &h, Layout::Plain);
    write(root, ".gitattributes", "*.txt text eol=lf\n");
    agree(root, &h, Layout::Plain);
    // A directory, a link and a FIFO where a listed file was.
    std::fs::remove_file(root.join("a.txt")).unwrap();
    std::fs::create_dir(root.join("a.txt")).unwrap();
    agree(root, &h, Layout::Plain);
    #[cfg(unix)]
    {
        std::fs::remove_dir(root.join("a.txt")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("a.txt")).unwrap();
        agree(root, &h, Layout::Plain);
        std::fs::remove_file(root.join("src/lib.rs")).unwrap();
        let fifo = Command::new("mkfifo").arg(root.join("src/lib.rs")).status();
        assert!(fifo.unwrap().success());
        agree(root, &h, Layout::Plain);
    }
}

#[test]
fn a_modified_file_is_told_without_opening_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let root = &tmp.path().join("r");
    repository(root);
    write(root, "a.txt", "a changed\n");
    let h = handoff_at(root, &["a.txt"]);
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Fresh);
    assert_eq!(opens(root, &h), 0, "a plain layout's start opens nothing");
    // HEAD moved: its history is libgit2's to walk (when the object reader cannot tell).
    git(root, &["commit", "-q", "-am", "two"]);
    let v = agree(root, &h, Layout::Plain);
    assert_eq!(codes(&v), ["head_moved", "working_tree_changed"]);
    // An untracked listed path: the ignore rules open it.
    write(root, "new.txt", "n\n");
    let h = handoff_at(root, &[]);
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Fresh);
    assert_eq!(opens(root, &h), 1);
}

#[test]
fn heads_and_refs_of_every_kind_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let root = &tmp.path().join("r");
    // An unborn branch, then its first commit.
    std::fs::create_dir_all(root).unwrap();
    git(root, &["init", "-q"]);
    write(root, "a.txt", "a\n");
    let unborn = handoff_at(root, &[]);
    assert_eq!(agree(root, &unborn, Layout::Plain).verdict, Verdict::Fresh);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one"]);
    assert_eq!(
        agree(root, &unborn, Layout::Plain).verdict,
        Verdict::Drifted
    );
    let h = handoff_at(root, &[]);

    // Packed refs, then a packed-refs that does not parse.
    git(root, &["pack-refs", "--all"]);
    assert!(!root.join(".git/refs/heads/main").exists());
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Fresh);
    let packed = std::fs::read_to_string(root.join(".git/packed-refs")).unwrap();
    std::fs::write(root.join(".git/packed-refs"), format!("{packed}garbage\n")).unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::write(root.join(".git/packed-refs"), packed).unwrap();

    // Detached, on another branch, an orphan branch, a branch name beyond the ordinary.
    git(root, &["checkout", "-q", "--detach"]);
    agree(root, &h, Layout::Plain);
    let detached = handoff_at(root, &[]);
    assert_eq!(
        agree(root, &detached, Layout::Plain).verdict,
        Verdict::Fresh
    );
    git(root, &["checkout", "-q", "-b", "feature/x"]);
    agree(root, &detached, Layout::Plain);
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Stale);
    git(root, &["checkout", "-q", "-b", "ünïcode"]);
    agree(root, &h, Layout::NotPlain);
    git(root, &["checkout", "-q", "--orphan", "empty"]);
    agree(root, &h, Layout::Plain);
    git(root, &["checkout", "-q", "-f", "main"]);

    // History rewritten, and a recorded HEAD this repository never had.
    write(root, "b.txt", "b\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--amend", "-m", "one again"]);
    assert_eq!(agree(root, &h, Layout::Plain).verdict, Verdict::Stale);
    let mut unknown = h.clone();
    unknown.git.as_mut().unwrap().head = Some("1".repeat(40));
    agree(root, &unknown, Layout::Plain);
    // HEAD naming a symbolic ref other than a branch, and a loose ref that is symbolic.
    std::fs::write(root.join(".git/HEAD"), "ref: refs/remotes/x\n").unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/alias\n").unwrap();
    std::fs::write(root.join(".git/refs/heads/alias"), "ref: refs/heads/main\n").unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
}

#[test]
fn handoffs_that_came_with_the_repository_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let root = &tmp.path().join("r");
    repository(root);
    let h = handoff_at(root, &[]);
    write(root, ".handover/state.json", "{\"v\": 1}\n");
    git(root, &["add", "-f", ".handover/state.json"]);
    git(root, &["commit", "-q", "-m", "with a handoff"]);
    let h = Handoff {
        git: git::snapshot(root).unwrap(),
        ..h
    };
    assert_eq!(codes(&agree(root, &h, Layout::Plain)), ["foreign"]);
    // Its bytes changed: git's own status decides (libgit2 opened).
    write(root, ".handover/state.json", "{\"v\": 1}\r\n");
    agree(root, &h, Layout::Plain);
    write(root, ".handover/state.json", "{\"v\": 2}\n");
    agree(root, &h, Layout::Plain);
    // Recorded elsewhere: foreign whichever way.
    let mut elsewhere = h.clone();
    elsewhere.git.as_mut().unwrap().root = "/somewhere/else".into();
    agree(root, &elsewhere, Layout::Plain);
}

#[test]
fn worktrees_submodules_and_unusual_configs_are_left_to_libgit2() {
    let tmp = tempfile::tempdir().unwrap();
    let root = &tmp.path().join("r");
    repository(root);
    // A linked worktree: `.git` is a file.
    let wt = tmp.path().join("wt");
    git(
        root,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "wt"],
    );
    write(&wt, "a.txt", "in the worktree\n");
    let h = handoff_at(&wt, &["a.txt"]);
    assert_eq!(agree(&wt, &h, Layout::NotPlain).verdict, Verdict::Fresh);
    // The main tree beside it is still plain (a `worktrees` directory in its `.git`).
    let main = handoff_at(root, &[]);
    assert_eq!(agree(root, &main, Layout::Plain).verdict, Verdict::Fresh);

    // A submodule: its `.git` is a file too.
    let sub_src = tmp.path().join("sub-src");
    repository(&sub_src);
    git(
        root,
        &["submodule", "add", "-q", sub_src.to_str().unwrap(), "sub"],
    );
    git(root, &["commit", "-q", "-m", "with a submodule"]);
    let sub = root.join("sub");
    write(&sub, "a.txt", "in the submodule\n");
    let h = handoff_at(&sub, &["a.txt"]);
    assert_eq!(agree(&sub, &h, Layout::NotPlain).verdict, Verdict::Fresh);
    let main = handoff_at(root, &["sub"]);
    agree(root, &main, Layout::Plain);

    // Config that asks for something unusual; a subdirectory as the root.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    for (key, value) in [
        ("extensions.worktreeConfig", "true"),
        ("extensions.handoverUnknown", "true"),
        ("core.repositoryFormatVersion", "2"),
        ("include.path", "missing-file"),
        ("core.bare", "true"),
        ("core.worktree", elsewhere.to_str().unwrap()),
    ] {
        let config = std::fs::read(root.join(".git/config")).unwrap();
        git(root, &["config", "core.repositoryFormatVersion", "1"]);
        git(root, &["config", key, value]);
        agree(root, &main, Layout::NotPlain);
        std::fs::write(root.join(".git/config"), config).unwrap();
    }
    agree(root, &main, Layout::Plain);
    let below = handoff_at(&root.join("src"), &[]);
    agree(&root.join("src"), &below, Layout::NotPlain);
}

#[test]
#[cfg(unix)]
fn hostile_git_directories_agree() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let root = &tmp.path().join("r");
    repository(root);
    write(root, "a.txt", "changed\n");
    let h = handoff_at(root, &["a.txt"]);
    let other = tmp.path().join("other");
    repository(&other);
    let dot_git = root.join(".git");

    // HEAD, a loose ref, objects and `.git` itself as links out of the tree.
    let head = std::fs::read_to_string(dot_git.join("HEAD")).unwrap();
    std::fs::write(tmp.path().join("HEAD"), &head).unwrap();
    std::fs::remove_file(dot_git.join("HEAD")).unwrap();
    symlink(tmp.path().join("HEAD"), dot_git.join("HEAD")).unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::remove_file(dot_git.join("HEAD")).unwrap();
    std::fs::write(dot_git.join("HEAD"), &head).unwrap();

    let main_ref = dot_git.join("refs/heads/main");
    let id = std::fs::read_to_string(&main_ref).unwrap();
    std::fs::write(tmp.path().join("main-ref"), &id).unwrap();
    std::fs::remove_file(&main_ref).unwrap();
    symlink(tmp.path().join("main-ref"), &main_ref).unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::remove_file(&main_ref).unwrap();
    std::fs::write(&main_ref, &id).unwrap();
    agree(root, &h, Layout::Plain);

    std::fs::rename(dot_git.join("objects"), tmp.path().join("objects")).unwrap();
    symlink(tmp.path().join("objects"), dot_git.join("objects")).unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::remove_file(dot_git.join("objects")).unwrap();
    std::fs::rename(tmp.path().join("objects"), dot_git.join("objects")).unwrap();

    std::fs::rename(&dot_git, tmp.path().join("dot-git")).unwrap();
    symlink(tmp.path().join("dot-git"), &dot_git).unwrap();
    agree(root, &h, Layout::NotPlain);
    std::fs::remove_file(&dot_git).unwrap();
    std::fs::rename(tmp.path().join("dot-git"), &dot_git).unwrap();
    agree(root, &h, Layout::Plain);

    // A huge HEAD (sparse), a huge loose ref, a FIFO for the index, a config that is a FIFO.
    let sparse = |path: &Path| {
        let file = std::fs::File::create(path).unwrap();
        file.set_len(300 * 1024 * 1024).unwrap();
    };
    sparse(&dot_git.join("HEAD"));
    let v = agree(root, &h, Layout::NotPlain);
    assert_eq!(v.verdict, Verdict::Unverified, "{v:#?}");
    std::fs::write(dot_git.join("HEAD"), &head).unwrap();
    sparse(&main_ref);
    agree(root, &h, Layout::NotPlain);
    std::fs::write(&main_ref, &id).unwrap();
    for fifo in ["index", "config", "info/exclude"] {
        let at = dot_git.join(fifo);
        let saved = std::fs::read(&at).ok();
        let _ = std::fs::remove_file(&at);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        assert!(Command::new("mkfifo").arg(&at).status().unwrap().success());
        let v = agree(root, &h, Layout::NotPlain);
        assert_eq!(v.verdict, Verdict::Unverified, "{fifo}: {v:#?}");
        std::fs::remove_file(&at).unwrap();
        if let Some(saved) = saved {
            std::fs::write(&at, saved).unwrap();
        }
    }
    // A HEAD with garbage, an upper-case id, two lines.
    for odd in ["garbage\n", &id.to_uppercase(), &format!("{id}{id}")] {
        std::fs::write(dot_git.join("HEAD"), odd).unwrap();
        agree(root, &h, Layout::NotPlain);
    }
    std::fs::write(dot_git.join("HEAD"), &head).unwrap();
    // The remembered entries forged: another format, a link out of the tree.
    std::fs::write(
        dot_git.join("handover-head-entries"),
        "handover HEAD entries 9\n",
    )
    .unwrap();
    agree(root, &h, Layout::Plain);
    std::fs::remove_file(dot_git.join("handover-head-entries")).unwrap();
    let target = tmp.path().join("forged");
    std::fs::write(&target, "forged\n").unwrap();
    symlink(&target, dot_git.join("handover-head-entries")).unwrap();
    agree(root, &h, Layout::Plain);
    let forged = std::fs::read_to_string(&target).unwrap();
    assert_eq!(forged, "forged\n", "a link is never written through");

    // Another user's repository (libgit2 refuses it): only root can hand it over.
    let me = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&me.stdout).trim() == "0" {
        let chown = |owner: &str| {
            let ok = Command::new("chown").args(["-R", owner]).arg(root).status();
            assert!(ok.unwrap().success());
        };
        chown("65534:65534");
        let v = agree(root, &h, Layout::NotPlain);
        assert_eq!(v.verdict, Verdict::Unverified, "{v:#?}");
        chown("0:0");
    }
}
