//! Every update is a transaction, and saving always works: concurrent writers, a store that
//! cannot be written, the write lock held by someone else, handover.md edited by hand or owned
//! by the user, huge untracked trees, repositories libgit2 cannot read, a damaged guard.
//! Real processes on real git repositories.

use crate::support::repo::{
    handover_command as command, handover_ok as ok, handover_run as run, TestRepo,
};
use crate::support::snapshot::placeholders;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_handover");

fn state(dir: &Path) -> Value {
    serde_json::from_slice(&fs::read(dir.join(".handover/state.json")).unwrap()).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Every file under `.handover/` and handover.md with its bytes, to prove "nothing changed".
fn snapshot_files(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root.join(".handover"), &mut out);
    for name in ["handover.md", ".gitignore", ".git/info/exclude"] {
        if let Ok(bytes) = fs::read(root.join(name)) {
            out.push((root.join(name), bytes));
        }
    }
    out.sort();
    out
}

#[test]
fn concurrent_incremental_writes_keep_every_update() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "Ship it", "--next", "start"]);
    let items: Vec<String> = (0..8).map(|i| format!("item {i}")).collect();
    let children: Vec<_> = items
        .iter()
        .map(|item| {
            command(&r.path, &["write", "--completed", item])
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut completed = strings(&state(&r.path)["status"]["completed"]);
    completed.sort();
    assert_eq!(completed, items, "no concurrent update may be lost");
}

/// Runs `handover args` as an unprivileged user (uid 65534) when the tests run as root, so
/// that file permissions apply; the repository is handed to that user first.
fn run_unprivileged(root: &Path, args: &[&str]) -> Output {
    let euid = fs::metadata("/proc/self").map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    if euid.ok() != Some(0) {
        return run(root, args);
    }
    // The user must reach the repository: its temp directory is private to root.
    let mut dir = root.parent();
    while let Some(d) = dir {
        if d == Path::new("/tmp") || d.parent().is_none() {
            break;
        }
        let _ = Command::new("chmod").arg("o+x").arg(d).status();
        dir = d.parent();
    }
    let chown = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(root)
        .status()
        .unwrap();
    assert!(chown.success());
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
        .args(args)
        .current_dir(root)
        .env("HOME", root)
        .env("HANDOVER_AGENT", "test")
        .env_remove("CLAUDECODE")
        .stdin(Stdio::null())
        .output()
        .expect("setpriv runs (util-linux)");
    out
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn write_and_done_into_a_read_only_store_change_nothing() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "Ship it", "--next", "start"]);
    let dir = r.path.join(".handover");
    set_mode(&dir, 0o555);
    let before = snapshot_files(&r.path);

    let out = run_unprivileged(&r.path, &["write", "--completed", "x"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // It names the file and says what to do.
    let err = String::from_utf8_lossy(&out.stderr);
    insta::assert_snapshot!("read_only_store_write", placeholders(&r.path, &err));
    assert_eq!(
        snapshot_files(&r.path),
        before,
        "a failed write changes nothing"
    );

    let out = run_unprivileged(&r.path, &["done"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    insta::assert_snapshot!("read_only_store_done", placeholders(&r.path, &err));
    assert_eq!(
        snapshot_files(&r.path),
        before,
        "a failed done changes nothing"
    );
    set_mode(&dir, 0o755);
}

#[test]
fn a_failed_write_leaves_no_guard_block_and_no_archive() {
    let r = TestRepo::with_commit();
    let exclude = r.path.join(".git/info/exclude");
    let template = fs::read(&exclude).ok();
    // A first handoff without the guard, then a journal that cannot be appended to: the next
    // write fails at its commit point, after the guard, the snapshot and the archive copy.
    ok(
        &r.path,
        &["write", "--shared", "--goal", "g", "--next", "n"],
    );
    assert_eq!(fs::read(&exclude).ok(), template);
    let before = snapshot_files(&r.path);
    set_mode(&r.path.join(".handover/journal.jsonl"), 0o444);
    let out = run_unprivileged(&r.path, &["write", "--goal", "g2", "--next", "n"]);
    set_mode(&r.path.join(".handover/journal.jsonl"), 0o644);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        fs::read(&exclude).ok(),
        template,
        "the guard's block is taken out again"
    );
    assert_eq!(
        snapshot_files(&r.path),
        before,
        "no archive copy, nothing replaced"
    );
    let leftovers: Vec<String> = fs::read_dir(&r.path)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_writer_gives_up_on_a_held_lock_with_a_clear_error() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    let lock = fs::File::open(r.path.join(".handover/lock")).unwrap();
    lock.lock().unwrap();
    let started = Instant::now();
    let out = run(&r.path, &["write", "--completed", "x"]);
    let waited = started.elapsed();
    drop(lock);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    insta::assert_snapshot!("lock_held", placeholders(&r.path, &err));
    assert!(waited < Duration::from_secs(30), "bounded: {waited:?}");
    println!("write gave up on the held lock after {waited:?}");
}

#[test]
fn a_users_own_handover_md_is_kept_on_the_first_write() {
    let r = TestRepo::with_commit();
    r.write("handover.md", "# My own notes\n\nDo not lose me.\n");
    let out = ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    insta::assert_snapshot!("users_handover_md_kept", placeholders(&r.path, &out));
    let kept = kept_copies(&r.path);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        fs::read_to_string(&kept[0]).unwrap(),
        "# My own notes\n\nDo not lose me.\n"
    );
    // Our own handover.md is replaced without copies from then on.
    ok(&r.path, &["write", "--completed", "a"]);
    assert_eq!(kept_copies(&r.path).len(), 1);
}

fn kept_copies(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root.join(".handover/archive"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    v.sort();
    v
}

fn edit_markdown(root: &Path) {
    let path = root.join("handover.md");
    let text = fs::read_to_string(&path).unwrap();
    let edited = text.replacen("start the parser", "start the lexer instead", 1);
    assert_ne!(text, edited, "the fixture's next action is in handover.md");
    fs::write(&path, edited).unwrap();
}

#[test]
fn hand_edits_are_reported_and_never_dropped() {
    let r = TestRepo::with_commit();
    ok(
        &r.path,
        &["write", "--goal", "g", "--next", "start the parser"],
    );
    for args in [&["boot"][..], &["boot", "--startup"], &["status"]] {
        assert!(!ok(&r.path, args).contains("edited"), "{args:?}");
    }
    edit_markdown(&r.path);
    insta::assert_snapshot!(
        "edited_boot",
        placeholders(&r.path, &ok(&r.path, &["boot"]))
    );
    insta::assert_snapshot!(
        "edited_boot_startup",
        placeholders(&r.path, &ok(&r.path, &["boot", "--startup"]))
    );
    // status also names what HOME has installed: only its line on handover.md is ours here.
    let status = ok(&r.path, &["status"]);
    assert!(
        status.contains("handover.md was edited") && status.contains("write --from handover.md"),
        "{status}"
    );
    let json: Value = serde_json::from_str(&ok(&r.path, &["boot", "--json"])).unwrap();
    assert_eq!(json["handover_md_edited"], true);

    // A flag-form write replaces handover.md, but the edits are kept first.
    let out = ok(&r.path, &["write", "--completed", "a"]);
    insta::assert_snapshot!("edited_then_written", placeholders(&r.path, &out));
    let kept = kept_copies(&r.path);
    assert!(fs::read_to_string(&kept[0])
        .unwrap()
        .contains("start the lexer instead"));

    // `done` keeps them too.
    edit_markdown_again(&r.path);
    let out = ok(&r.path, &["done"]);
    insta::assert_snapshot!("edited_then_done", placeholders(&r.path, &out));
    let kept = kept_copies(&r.path);
    assert_eq!(kept.len(), 2);
    assert!(kept
        .iter()
        .any(|k| fs::read_to_string(k).unwrap().contains("second edit")));
}

fn edit_markdown_again(root: &Path) {
    let path = root.join("handover.md");
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("\nsecond edit\n");
    fs::write(&path, text).unwrap();
}

#[test]
fn recording_the_edits_clears_the_notice() {
    let r = TestRepo::with_commit();
    ok(
        &r.path,
        &["write", "--goal", "g", "--next", "start the parser"],
    );
    edit_markdown(&r.path);
    let out = ok(&r.path, &["write", "--from", "handover.md"]);
    assert!(!out.contains("kept a copy"), "{out}");
    assert_eq!(state(&r.path)["next_action"], "start the lexer instead");
    assert!(!ok(&r.path, &["status"]).contains("edited"));
}

#[test]
fn a_huge_untracked_tree_is_counted_not_listed() {
    let r = TestRepo::with_commit();
    for i in 0..1_500 {
        r.write(&format!("venv/lib/f{i:05}.py"), "x\n");
    }
    let out = ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    insta::assert_snapshot!("huge_untracked_write", placeholders(&r.path, &out));
    let s = state(&r.path);
    assert_eq!(s["git"]["untracked"].as_array().unwrap().len(), 200);
    assert_eq!(
        s["git"]["untracked_omitted"], 1_300,
        "1,500 files, and no handover file among them"
    );
    assert_eq!(s["files_changed"].as_array().unwrap().len(), 200);
    assert_eq!(s["files_changed_omitted"], 1_300);
    let size = fs::metadata(r.path.join(".handover/state.json"))
        .unwrap()
        .len();
    assert!(size < 64 * 1024, "state.json is {size} bytes");
    println!("state.json with 1,500 untracked files: {size} bytes");
    let md = fs::read_to_string(r.path.join("handover.md")).unwrap();
    assert!(md.contains("… and 1300 more"), "{md}");
    // The counted part is still verified: as it was, fresh; one more file, drifted.
    let boot: Value = serde_json::from_str(&ok(&r.path, &["boot", "--json"])).unwrap();
    assert_eq!(boot["verdict"], "fresh", "{boot}");
    r.write("venv/lib/zz-new.py", "x\n");
    let boot: Value = serde_json::from_str(&ok(&r.path, &["boot", "--json"])).unwrap();
    assert_eq!(boot["verdict"], "drifted", "{boot}");
}

fn git_init_with(args: &[&str]) -> Option<TestRepo> {
    let r = TestRepo::init();
    // Re-initialise in place with the requested format; skip when this git lacks it.
    fs::remove_dir_all(r.path.join(".git")).unwrap();
    let mut cmd = vec!["init", "-q", "-b", "main"];
    cmd.extend_from_slice(args);
    let status = Command::new("git")
        .arg("-C")
        .arg(&r.path)
        .args(&cmd)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    if !status.status.success() {
        eprintln!(
            "git cannot create {args:?} repositories here: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        return None;
    }
    r.write("README.md", "hi\n");
    r.commit_all("initial");
    Some(r)
}

#[test]
fn reftable_and_sha256_repositories_save_and_verify_as_unverified() {
    let formats: [&[&str]; 2] = [&["--ref-format=reftable"], &["--object-format=sha256"]];
    let mut tried = 0;
    for format in formats {
        let Some(r) = git_init_with(format) else {
            continue;
        };
        tried += 1;
        r.write("wip.rs", "x\n");
        let out = ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
        insta::assert_snapshot!(
            format!(
                "unreadable_format_write_{}",
                format[0].trim_start_matches('-').replace('=', "_")
            ),
            placeholders(&r.path, &out)
        );
        let s = state(&r.path);
        assert_eq!(s["git"]["head"].as_str().unwrap(), r.head(), "{format:?}");
        assert_eq!(strings(&s["git"]["untracked"]), ["wip.rs"]);
        let boot: Value = serde_json::from_str(&ok(&r.path, &["boot", "--json"])).unwrap();
        assert_eq!(boot["verdict"], "unverified", "{format:?}: {boot}");
        insta::assert_snapshot!(
            format!(
                "unreadable_format_reason_{}",
                format[0].trim_start_matches('-').replace('=', "_")
            ),
            placeholders(&r.path, boot["reasons"][0]["message"].as_str().unwrap())
        );
    }
    assert!(tried > 0, "this git supports neither format");
}

#[test]
fn a_begin_mark_without_an_end_mark_is_a_warning_not_a_failure() {
    let r = TestRepo::with_commit();
    let damaged = "target/\n# >>> handover (private handoff files) >>>\n/handover.md\n";
    let exclude = r.path.join(".git/info/exclude");
    fs::write(&exclude, damaged).unwrap();
    let out = ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    insta::assert_snapshot!("begin_mark_without_end", placeholders(&r.path, &out));
    assert_eq!(fs::read_to_string(&exclude).unwrap(), damaged);
    let status = ok(&r.path, &["status"]);
    assert!(status.contains("marker"), "{status}");
}

#[test]
fn a_reincluded_handover_md_is_not_reported_as_private() {
    let r = TestRepo::with_commit();
    ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    assert!(ok(&r.path, &["status"]).contains("private: yes"));
    r.write(".gitignore", "!/handover.md\n");
    let status = ok(&r.path, &["status"]);
    assert!(!status.contains("private: yes"), "{status}");
    assert!(status.contains("!/handover.md"), "{status}");
    let out = ok(&r.path, &["write", "--completed", "a"]);
    insta::assert_snapshot!("guard_overridden_write", placeholders(&r.path, &out));
}

#[test]
fn a_guard_that_cannot_be_written_is_a_warning() {
    let r = TestRepo::with_commit();
    let exclude = r.path.join(".git/info/exclude");
    fs::remove_file(&exclude).ok();
    fs::create_dir(&exclude).unwrap(); // not a file: cannot be read or replaced
    let out = ok(&r.path, &["write", "--goal", "g", "--next", "n"]);
    insta::assert_snapshot!("guard_not_writable", placeholders(&r.path, &out));
    assert_eq!(state(&r.path)["goal"], "g");
}

#[test]
fn a_refused_first_write_leaves_nothing_behind() {
    let r = TestRepo::with_commit();
    let out = run(&r.path, &["write", "--next", "n"]); // no goal: refused by the checks
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(
        "refused_first_write",
        placeholders(&r.path, &String::from_utf8_lossy(&out.stderr))
    );
    assert!(!r.path.join(".handover").exists());
    assert!(!r.path.join(".gitignore").exists());
}
