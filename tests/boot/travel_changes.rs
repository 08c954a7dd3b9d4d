//! The uncommitted work and handoffs that travel (`handover push --with-changes`, `handover
//! pull --adopt --apply`), and what is said about the work that does not: real git, a bare
//! remote and two clones with their own HOMEs (the fixtures of `travel.rs`).

use super::travel::{stderr, Machine, World};
use crate::support::hook::ours;
use std::fs;
use std::path::Path;

const SECRET: &str = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8";

/// A's work in progress: a tracked change (unstaged), a deletion, a staged new file, an untracked file in
/// a new folder, an executable script.
fn work_in_progress(a: &Machine) {
    fs::write(a.root.join("gone.txt"), "to be deleted\n").unwrap();
    a.git(&["add", "gone.txt"]);
    a.git(&["commit", "-qm", "a file to delete"]);
    a.git(&["push", "-q", "origin", "main"]);
    fs::remove_file(a.root.join("gone.txt")).unwrap();
    fs::write(
        a.root.join("README.md"),
        "hello\ncallback handler, half done\n",
    )
    .unwrap();
    fs::write(a.root.join("plan.md"), "1. parse\n2. export\n").unwrap();
    a.git(&["add", "plan.md"]);
    fs::create_dir_all(a.root.join("src")).unwrap();
    fs::write(a.root.join("src/main.rs"), "fn main() {\n    todo!()\n}\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let script = a.root.join("run.sh");
        fs::write(&script, "#!/bin/sh\necho run\n").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn index_bytes(m: &Machine) -> Vec<u8> {
    fs::read(m.root.join(".git/index")).unwrap()
}

fn same_file(a: &Path, b: &Path) {
    assert_eq!(
        fs::read(a).unwrap(),
        fs::read(b).unwrap(),
        "{} differs from {}",
        b.display(),
        a.display()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o111;
        assert_eq!(mode(a), mode(b), "{}", b.display());
    }
}

#[test]
fn with_changes_the_work_arrives_byte_identical_and_the_handoff_fresh() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    work_in_progress(&a);
    a.write("Finish the callback handler");
    let status_before = a.git(&["status", "--porcelain"]);
    let index_before = index_bytes(&a);

    let pushed = a.ok(&["push", "--with-changes"]);
    // What goes is shown, with sizes, before the push line.
    insta::assert_snapshot!("push_with_changes", world.pin(&pushed, &[&a]));
    assert!(!pushed.contains("stay on this machine"), "{pushed}");
    // Nothing of A's checkout was touched: the index byte for byte, the status as it was.
    assert_eq!(index_bytes(&a), index_before);
    assert_eq!(a.git(&["status", "--porcelain"]), status_before);
    assert_eq!(a.git(&["stash", "list"]), "");

    let out = b.handover(&["pull", "--adopt", "--apply"]);
    assert!(
        !out.status.success(),
        "B's HEAD is behind the snapshot's base"
    );
    assert!(
        stderr(&out).contains("git fetch && git switch --detach"),
        "{}",
        stderr(&out)
    );
    let listed = b.ok(&["pull"]);
    insta::assert_snapshot!("pull_lists_the_work", world.pin(&listed, &[&a, &b]));
    b.git(&["pull", "-q", "--ff-only"]);
    assert!(b.root.join("gone.txt").exists());
    let boot = b.ok(&["boot"]);
    insta::assert_snapshot!("boot_with_work_that_travelled", world.pin(&boot, &[&a, &b]));
    let out = b.ok(&["pull", "--adopt", "--apply"]);
    insta::assert_snapshot!("pull_adopt_apply", world.pin(&out, &[&a, &b]));
    assert!(!b.root.join("gone.txt").exists());
    let index_b = index_bytes(&b);
    for file in ["README.md", "plan.md", "src/main.rs", "run.sh"] {
        same_file(&a.root.join(file), &b.root.join(file));
    }
    // The index is untouched: the work arrives as uncommitted changes.
    assert_eq!(b.git(&["diff", "--cached", "--name-only"]), "");
    assert_eq!(index_bytes(&b), index_b);
    let json: serde_json::Value = serde_json::from_str(&b.ok(&["boot", "--json"])).unwrap();
    assert_eq!(json["verdict"], "fresh", "{json}");
    assert_eq!(json["reasons"], serde_json::json!([]), "{json}");
    // A new session on B gets it fresh and names the work.
    let text = b.session_start().context("SessionStart");
    insta::assert_snapshot!("startup_after_apply", world.pin(&ours(&text), &[&a, &b]));
    // Applying again changes nothing and says so.
    let again = b.ok(&["pull", "--adopt", "--apply"]);
    insta::assert_snapshot!("pull_adopt_apply_again", world.pin(&again, &[&a, &b]));
}

#[test]
fn a_secret_in_the_uncommitted_work_refuses_the_push_and_reaches_no_object() {
    let world = World::new();
    let a = world.clone("laptop");
    fs::write(
        a.root.join("config.rs"),
        format!("fn token() -> &'static str {{\n    // for now\n    \"{SECRET}\"\n}}\n"),
    )
    .unwrap();
    fs::write(a.root.join("README.md"), "hello\nmore\n").unwrap();
    a.write("Rotate the deploy key");
    let out = a.handover(&["push", "--with-changes"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(!err.contains(SECRET), "{err}");
    insta::assert_snapshot!("push_refused_for_a_secret", world.pin(&err, &[&a]));
    // Nothing reached the remote, and no object holding the secret was even written here.
    assert_eq!(world.remote_ref("refs/handover/main"), None);
    assert!(!world.remote_objects().contains(SECRET));
    let local = a.git(&["cat-file", "--batch-all-objects", "--batch"]);
    assert!(!local.contains(SECRET));

    // A file named like a credential is refused whatever it holds.
    fs::remove_file(a.root.join("config.rs")).unwrap();
    fs::write(a.root.join(".env.local"), "MODE=dev\n").unwrap();
    a.write("Rotate the deploy key");
    let out = a.handover(&["push", "--with-changes"]);
    assert!(!out.status.success());
    insta::assert_snapshot!(
        "push_refused_for_a_credential_file",
        world.pin(&stderr(&out), &[&a])
    );
    assert_eq!(world.remote_ref("refs/handover/main"), None);

    // An ignored file never travels, even when listed nowhere else.
    fs::remove_file(a.root.join(".env.local")).unwrap();
    fs::write(a.root.join(".git/info/exclude"), "secret.txt\n").unwrap();
    fs::write(a.root.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    a.write("Rotate the deploy key");
    let pushed = a.ok(&["push", "--with-changes"]);
    assert!(!pushed.contains("secret.txt"), "{pushed}");
    insta::assert_snapshot!("push_without_an_ignored_file", world.pin(&pushed, &[&a]));
    assert!(!world.remote_objects().contains(SECRET));
}

#[test]
fn apply_keeps_both_sides_when_a_target_file_has_local_changes() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    fs::write(a.root.join("README.md"), "hello\nfrom the laptop\n").unwrap();
    fs::write(a.root.join("notes.md"), "laptop notes\n").unwrap();
    a.write("Two sides");
    a.ok(&["push", "--with-changes"]);

    fs::write(b.root.join("README.md"), "hello\nfrom the desktop\n").unwrap();
    let out = b.handover(&["pull", "--adopt", "--apply"]);
    assert!(!out.status.success());
    insta::assert_snapshot!(
        "apply_refused_over_local_changes",
        world.pin(&stderr(&out), &[&a, &b])
    );
    // Both sides: B's file as it was, A's in the fetched commit; nothing adopted or written.
    assert_eq!(
        fs::read_to_string(b.root.join("README.md")).unwrap(),
        "hello\nfrom the desktop\n"
    );
    assert!(!b.root.join("notes.md").exists());
    assert!(!b.root.join(".handover/state.json").exists());
    let fetched = b.fetched_ref("main").unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&b.git(&["show", &format!("{fetched}:changes.json")])).unwrap();
    let travelled = manifest["commit"].as_str().unwrap();
    assert_eq!(
        b.git(&["rev-parse", &format!("{travelled}^")]),
        a.git(&["rev-parse", "HEAD"]),
        "the snapshot is based on the handoff's HEAD"
    );
    assert_eq!(
        b.git(&["show", &format!("{travelled}:README.md")]),
        "hello\nfrom the laptop"
    );

    // A HEAD elsewhere: told how to get to the recorded commit.
    b.git(&["checkout", "-q", "README.md"]);
    fs::write(b.root.join("other.txt"), "x\n").unwrap();
    b.git(&["add", "other.txt"]);
    b.git(&["commit", "-qm", "desktop work"]);
    let out = b.handover(&["pull", "--adopt", "--apply"]);
    assert!(!out.status.success());
    insta::assert_snapshot!(
        "apply_refused_on_another_head",
        world.pin(&stderr(&out), &[&a, &b])
    );
    assert!(!b.root.join("notes.md").exists());
}

#[test]
fn without_changes_push_says_what_stays_and_the_arrival_says_where_it_is() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    fs::write(a.root.join("README.md"), "hello\nhalf done\n").unwrap();
    fs::create_dir_all(a.root.join("src")).unwrap();
    fs::write(a.root.join("src/main.rs"), "fn main() {}\n").unwrap();
    a.write("Finish the callback handler");
    let pushed = a.ok(&["push"]);
    insta::assert_snapshot!("push_without_changes", world.pin(&pushed, &[&a]));

    b.ok(&["pull"]);
    // status mentions the fetched handoff and how to adopt it.
    let status = b.ok(&["status"]);
    assert!(
        status.contains("fetched: a handoff for this branch from machine «laptop»"),
        "{status}"
    );
    assert!(
        status.contains("`handover pull origin --adopt`"),
        "{status}"
    );
    assert!(!status.contains("handoff: none (write one"), "{status}");
    let json: serde_json::Value = serde_json::from_str(&b.ok(&["status", "--json"])).unwrap();
    assert_eq!(json["fetched"][0]["machine"], "laptop", "{json}");

    // The session on B is told where the work is, and the handoff is not called drifted.
    let text = b.session_start().context("SessionStart");
    assert!(!text.contains("committed or reverted"), "{text}");
    assert!(!text.to_lowercase().contains("drifted"), "{text}");
    insta::assert_snapshot!(
        "startup_with_the_work_elsewhere",
        world.pin(&ours(&text), &[&a, &b])
    );

    // Adopted: it remembers where the work is.
    b.ok(&["pull", "--adopt"]);
    assert_eq!(
        b.state().git.unwrap().uncommitted_on.as_deref(),
        Some("laptop")
    );
    let json: serde_json::Value = serde_json::from_str(&b.ok(&["boot", "--json"])).unwrap();
    assert_eq!(json["verdict"], "fresh", "{json}");
    assert_eq!(
        json["reasons"][0]["code"], "uncommitted_elsewhere",
        "{json}"
    );
    let text = b.session_start().context("SessionStart");
    insta::assert_snapshot!(
        "startup_adopted_with_the_work_elsewhere",
        world.pin(&ours(&text), &[&a, &b])
    );
    // A pull with --apply of a handoff that carried nothing says so and adopts nothing new.
    let out = b.handover(&["pull", "--adopt", "--apply"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("carries no uncommitted work"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn push_pull_and_share_report_in_json() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    fs::write(a.root.join("README.md"), "hello\nedit\n").unwrap();
    a.write("JSON everywhere");
    let pushed: serde_json::Value = serde_json::from_str(&a.ok(&["push", "--json"])).unwrap();
    assert_eq!(pushed["pushed"], true, "{pushed}");
    assert_eq!(pushed["ref"], "refs/handover/main", "{pushed}");
    assert_eq!(pushed["stayed"][0]["path"], "README.md", "{pushed}");
    assert!(pushed["changes"].is_null(), "{pushed}");
    let pulled: serde_json::Value = serde_json::from_str(&b.ok(&["pull", "--json"])).unwrap();
    assert_eq!(pulled["fetched"]["machine"], "laptop", "{pulled}");
    assert_eq!(pulled["fetched"]["verdict"], "fresh", "{pulled}");
    assert_eq!(pulled["adopted"], false, "{pulled}");
    let shared: serde_json::Value =
        serde_json::from_str(&b.ok(&["share", "--json", "--yes"])).unwrap();
    assert_eq!(shared["applied"], true, "{shared}");
    assert_eq!(shared["add"], true, "{shared}");
}

#[test]
fn the_setting_makes_with_changes_the_default() {
    let world = World::new();
    let a = world.clone("laptop");
    fs::write(a.root.join("README.md"), "hello\nedit\n").unwrap();
    a.write("Setting");
    fs::write(
        a.root.join(".handover/config.toml"),
        "[travel]\nwith_changes = true\n",
    )
    .unwrap();
    let pushed = a.ok(&["push"]);
    insta::assert_snapshot!(
        "push_with_changes_by_the_setting",
        world.pin(&pushed, &[&a])
    );
    let pushed = a.ok(&["push", "--without-changes"]);
    insta::assert_snapshot!(
        "push_without_changes_by_the_flag",
        world.pin(&pushed, &[&a])
    );
}

#[test]
fn push_pull_and_share_outside_a_repository_name_the_problem_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    for command in ["pull", "push", "share"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_handover"))
            .arg(command)
            .current_dir(dir.path())
            .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains("is not in a git repository"), "{err}");
        assert!(
            err.contains(&format!(
                "Run `handover {command}` in the clone you work in"
            )),
            "{err}"
        );
        assert!(!err.contains("fatal:"), "{err}");
    }
}

/// A `changes.json` that names a commit the handoff commit does not carry (not one of its
/// parents) is ignored: nothing claims work travelled, nothing is applied.
#[test]
fn a_manifest_naming_a_commit_that_is_not_a_parent_is_ignored() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    fs::write(a.root.join("README.md"), "hello\nlaptop\n").unwrap();
    a.write("Forged manifest");
    a.ok(&["push", "--with-changes"]);
    // The same tree (changes.json included) in a commit without the snapshot parent.
    let pushed = world.remote_ref("refs/handover/main").unwrap();
    a.git(&["fetch", "-q", "origin", "refs/handover/main"]);
    let tree = a.git(&["rev-parse", &format!("{pushed}^{{tree}}")]);
    let forged = a.git(&["commit-tree", &tree, "-m", "forged"]);
    a.git(&[
        "push",
        "-q",
        "--force",
        "origin",
        &format!("{forged}:refs/handover/main"),
    ]);

    let pulled = b.ok(&["pull"]);
    assert!(!pulled.contains("travelled"), "{pulled}");
    let out = b.handover(&["pull", "--adopt", "--apply"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("carries no uncommitted work"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        fs::read_to_string(b.root.join("README.md")).unwrap(),
        "hello\n"
    );
}

/// A remote's snapshot is untrusted like the rest of a fetched handoff: one holding a link out
/// of the working tree or a file over the push limit (what `push` itself never sends) applies
/// nothing, names each, and its content is never written; the sizes come from the objects'
/// headers.
#[test]
fn a_hostile_snapshot_with_an_escaping_link_or_a_huge_file_applies_nothing() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    fs::write(a.root.join("README.md"), "hello\nlaptop\n").unwrap();
    a.write("Hostile snapshot");
    a.ok(&["push", "--with-changes"]);
    let pushed = world.remote_ref("refs/handover/main").unwrap();
    a.git(&["fetch", "-q", "origin", "refs/handover/main"]);
    let parents = a.git(&["rev-list", "--parents", "-n", "1", &pushed]);
    let parents: Vec<&str> = parents.split_whitespace().skip(1).collect();
    let snapshot = *parents.last().unwrap();
    let base = a.git(&["rev-parse", &format!("{snapshot}^")]);

    // The forged snapshot: the base's tree plus a link to /etc/passwd and a 2 MiB file.
    let hash = |bytes: &[u8]| a.git_with_input(&["hash-object", "-w", "--stdin"], bytes);
    let (link, big) = (hash(b"/etc/passwd"), hash(&vec![b'x'; 2 * 1024 * 1024]));
    let mut entries = a.git(&["ls-tree", &base]);
    entries.push_str(&format!(
        "\n120000 blob {link}\tevil\n100644 blob {big}\tbig.bin\n"
    ));
    let tree = a.git_with_input(&["mktree"], entries.as_bytes());
    let forged_snapshot = a.git(&["commit-tree", &tree, "-p", &base, "-m", "forged snapshot"]);

    // The handoff commit again, its changes.json naming the forged snapshot.
    let manifest = a.git(&["cat-file", "blob", &format!("{pushed}:changes.json")]);
    let manifest = hash(manifest.replace(snapshot, &forged_snapshot).as_bytes());
    let handoff_tree: String = a
        .git(&["ls-tree", &pushed])
        .lines()
        .map(|l| {
            if l.ends_with("\tchanges.json") {
                format!("100644 blob {manifest}\tchanges.json\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let handoff_tree = a.git_with_input(&["mktree"], handoff_tree.as_bytes());
    let mut args = vec!["commit-tree".to_string(), handoff_tree];
    for p in &parents[..parents.len() - 1] {
        args.extend(["-p".to_string(), p.to_string()]);
    }
    args.extend(["-p".into(), forged_snapshot, "-m".into(), "forged".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let forged = a.git(&args);
    a.git(&[
        "push",
        "-q",
        "--force",
        "origin",
        &format!("{forged}:refs/handover/main"),
    ]);

    b.git(&["pull", "-q", "origin", "main"]);
    let out = b.handover(&["pull", "--adopt", "--apply"]);
    let said = stderr(&out);
    assert!(!out.status.success(), "{said}");
    for needle in [
        "nothing was applied",
        "«evil»: a link out of the working tree («/etc/passwd»)",
        "«big.bin»: 2097152 bytes, over the 1048576-byte limit",
    ] {
        assert!(said.contains(needle), "{needle:?} in {said}");
    }
    for name in ["evil", "big.bin"] {
        assert!(fs::symlink_metadata(b.root.join(name)).is_err(), "{name}");
    }
    assert_eq!(
        fs::read_to_string(b.root.join("README.md")).unwrap(),
        "hello\n"
    );
}

/// Before it is adopted, the startup context of a fetched handoff that carries work points at
/// `pull --adopt --apply` (what brings the work too) and says how many files; one pushed
/// without its work points at `pull --adopt`.
#[test]
fn the_startup_context_of_a_fetched_handoff_with_work_names_apply() {
    let world = World::new();
    let a = world.clone("laptop");
    let b = world.clone("desktop");
    fs::write(a.root.join("README.md"), "hello\nlaptop\n").unwrap();
    fs::write(a.root.join("notes.md"), "half done\n").unwrap();
    a.write("Carry the work");
    a.ok(&["push", "--with-changes"]);
    b.ok(&["pull"]);
    let startup = b.ok(&["boot", "--startup"]);
    insta::assert_snapshot!(
        "fetched_startup_with_work",
        world.pin(&ours(&startup), &[&a, &b])
    );

    a.ok(&["push", "--without-changes", "--force"]);
    b.ok(&["pull"]);
    let startup = b.ok(&["boot", "--startup"]);
    assert!(!startup.contains("--apply"), "{startup}");
    insta::assert_snapshot!(
        "fetched_startup_without_work",
        world.pin(&ours(&startup), &[&a, &b])
    );
}
