//! The edges: reading real files, atomic writes, backups, dry runs, refusal of malformed files,
//! symlinks, permissions, scopes and the status section, in temporary directories (a temporary
//! HOME / CODEX_HOME is injected; the real ~ is never touched).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_installer::flow::{self, InstallRequest, UninstallRequest};
use handover_installer::status::status;
use handover_installer::{locate, Homes, HookPaths, InstallOptions, Scope, Targets};
use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn fixture(name: &str) -> String {
    fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

struct Env {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    homes: Homes,
    bin: PathBuf,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let repo = root.join("repo");
    let home = root.join("home");
    let bin = root.join("bin");
    for d in [&repo, &home, &bin] {
        fs::create_dir_all(d).unwrap();
    }
    Env {
        homes: Homes {
            home: home.clone(),
            codex_home: home.join(".codex"),
        },
        _tmp: tmp,
        repo,
        bin,
    }
}

fn req(e: &Env, targets: Targets, scope: Scope) -> InstallRequest {
    InstallRequest {
        repo: e.repo.clone(),
        homes: e.homes.clone(),
        options: InstallOptions {
            targets,
            scope,
            watch: true,
            enable_codex_hooks: false,
            trust: false,
            hooks: HookPaths::in_dir(&e.bin),
        },
        dry_run: false,
        codex_bin: None,
        trust_timeout: Duration::from_secs(5),
    }
}

fn both() -> Targets {
    Targets {
        claude: true,
        codex: true,
    }
}

fn run(r: &InstallRequest) -> (flow::Outcome, String) {
    let mut out = Vec::new();
    let o = flow::install(r, &mut out).unwrap();
    (o, String::from_utf8(out).unwrap())
}

fn uninstall(e: &Env, targets: Targets, scope: Scope) -> flow::Outcome {
    let mut out = Vec::new();
    flow::uninstall(
        &UninstallRequest {
            repo: e.repo.clone(),
            homes: e.homes.clone(),
            targets,
            scope,
            dry_run: false,
        },
        &mut out,
    )
    .unwrap()
}

/// Every file under `dir` with its bytes (the whole tree, to prove "nothing changed").
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            let ft = fs::symlink_metadata(&p).unwrap().file_type();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_symlink() {
                out.insert(
                    p.clone(),
                    fs::read_link(&p)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                        .into_bytes(),
                );
            } else {
                out.insert(p.clone(), fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn backups_of(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{name}.handover-backup-"))
        })
        .collect()
}

#[test]
fn install_backs_up_once_keeps_permissions_and_twice_writes_nothing() {
    let e = env();
    let settings = e.repo.join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = fixture("claude-full.json");
    fs::write(&settings, &original).unwrap();
    fs::set_permissions(&settings, fs::Permissions::from_mode(0o640)).unwrap();
    fs::write(e.repo.join("AGENTS.md"), fixture("AGENTS.md")).unwrap();

    let (o, out) = run(&req(&e, both(), Scope::Project));
    assert!(o.ok, "{out}");
    assert_eq!(
        fs::metadata(&settings).unwrap().permissions().mode() & 0o777,
        0o640
    );
    let b = backups_of(&settings);
    assert_eq!(b.len(), 1);
    assert_eq!(
        fs::read_to_string(&b[0]).unwrap(),
        original,
        "the backup holds the original"
    );
    assert!(e.repo.join(".codex/hooks.json").exists());
    assert!(
        backups_of(&e.repo.join(".codex/hooks.json")).is_empty(),
        "nothing to back up for a new file"
    );
    assert!(
        out.contains("Codex runs a hook only when you trusted it"),
        "manual trust steps without --trust:\n{out}"
    );

    let before = snapshot(&e.repo);
    let inode = fs::metadata(&settings).unwrap().ino();
    let (o2, out2) = run(&req(&e, both(), Scope::Project));
    assert!(o2.wrote.is_empty() && o2.backups.is_empty(), "{out2}");
    assert_eq!(snapshot(&e.repo), before, "second install changes no byte");
    assert_eq!(
        fs::metadata(&settings).unwrap().ino(),
        inode,
        "not even rewritten"
    );

    // A later change (here: --no-watch) modifies the file but makes no second backup.
    let mut r = req(&e, both(), Scope::Project);
    r.options.watch = false;
    run(&r);
    assert_eq!(backups_of(&settings).len(), 1);

    let o3 = uninstall(&e, both(), Scope::Project);
    assert!(o3.ok);
    assert_eq!(
        fs::read_to_string(&settings).unwrap(),
        original,
        "uninstall restores the original bytes"
    );
    assert_eq!(
        fs::read_to_string(e.repo.join("AGENTS.md")).unwrap(),
        fixture("AGENTS.md")
    );
    assert!(
        !e.repo.join(".codex").exists(),
        "files and directory we created are gone"
    );
    assert!(!e.repo.join("CLAUDE.md").exists());
}

#[test]
fn dry_run_prints_diffs_and_changes_nothing() {
    let e = env();
    fs::create_dir_all(e.repo.join(".claude")).unwrap();
    fs::write(
        e.repo.join(".claude/settings.json"),
        fixture("claude-4space-crlf-nonl.json"),
    )
    .unwrap();
    let before = snapshot(e._tmp.path());
    let mut r = req(&e, both(), Scope::Project);
    r.dry_run = true;
    let (o, out) = run(&r);
    assert!(o.ok && o.wrote.is_empty());
    assert_eq!(snapshot(e._tmp.path()), before);
    assert!(
        out.contains("--- a/.claude/settings.json\n+++ b/.claude/settings.json\n"),
        "{out}"
    );
    assert!(
        out.contains("--- /dev/null\n+++ b/.codex/hooks.json\n"),
        "{out}"
    );
    assert!(out.contains(&format!("+                        \"command\": \"{}/handover-session-start --agent claude\",\r\n", e.bin.display())), "{out}");
    assert!(out.contains("dry run: nothing was written."));
}

#[test]
fn a_malformed_file_stops_everything_before_any_write() {
    let e = env();
    fs::create_dir_all(&e.homes.codex_home).unwrap();
    fs::write(
        e.homes.codex_config(),
        fixture("codex-config-malformed.toml"),
    )
    .unwrap();
    fs::create_dir_all(e.repo.join(".claude")).unwrap();
    fs::write(
        e.repo.join(".claude/settings.json"),
        fixture("claude-full.json"),
    )
    .unwrap();
    let before = snapshot(e._tmp.path());
    let err = flow::install(&req(&e, both(), Scope::Project), &mut Vec::new()).unwrap_err();
    assert_eq!(err.file, e.homes.codex_config());
    assert_eq!(err.position.map(|p| p.0), Some(3));
    assert_eq!(
        snapshot(e._tmp.path()),
        before,
        "no file written, no backup"
    );

    fs::write(e.homes.codex_config(), "").unwrap();
    fs::write(
        e.repo.join(".claude/settings.json"),
        fixture("claude-malformed.json"),
    )
    .unwrap();
    let before = snapshot(e._tmp.path());
    let err = flow::uninstall(
        &UninstallRequest {
            repo: e.repo.clone(),
            homes: e.homes.clone(),
            targets: both(),
            scope: Scope::Project,
            dry_run: false,
        },
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("settings.json:4:3"), "{err}");
    assert_eq!(snapshot(e._tmp.path()), before);
}

#[test]
fn symlinked_settings_are_written_through_and_claude_md_link_is_left_alone() {
    let e = env();
    // ~/.claude/settings.json is a link into a dotfiles checkout.
    let dotfiles = e.homes.home.join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    fs::create_dir_all(e.homes.home.join(".claude")).unwrap();
    fs::write(dotfiles.join("claude.json"), fixture("claude-full.json")).unwrap();
    std::os::unix::fs::symlink(
        dotfiles.join("claude.json"),
        e.homes.home.join(".claude/settings.json"),
    )
    .unwrap();
    let (o, out) = run(&req(
        &e,
        Targets {
            claude: true,
            codex: false,
        },
        Scope::User,
    ));
    assert!(o.ok, "{out}");
    assert!(
        fs::symlink_metadata(e.homes.home.join(".claude/settings.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(fs::read_to_string(dotfiles.join("claude.json"))
        .unwrap()
        .contains("handover-session-start"));
    assert!(
        snapshot(&e.repo).is_empty(),
        "user scope writes nothing into the repository"
    );

    // CLAUDE.md -> AGENTS.md: only AGENTS.md gets the section, the link stays a link.
    fs::write(e.repo.join("AGENTS.md"), "# Rules\n").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", e.repo.join("CLAUDE.md")).unwrap();
    run(&req(&e, both(), Scope::Project));
    let agents = fs::read_to_string(e.repo.join("AGENTS.md")).unwrap();
    assert_eq!(agents.matches("<!-- handover:begin -->").count(), 1);
    assert!(fs::symlink_metadata(e.repo.join("CLAUDE.md"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn local_scope_and_codex_feature_flag() {
    let e = env();
    fs::create_dir_all(&e.homes.codex_home).unwrap();
    fs::write(e.homes.codex_config(), fixture("codex-config.toml")).unwrap();
    let (o, out) = run(&req(&e, both(), Scope::Local));
    assert!(o.ok);
    assert!(e.repo.join(".claude/settings.local.json").exists());
    assert!(!e.repo.join(".claude/settings.json").exists());
    assert!(out.contains("Codex has no local scope"), "{out}");
    assert!(out.contains("problem: Codex hooks are turned off"), "{out}");
    assert_eq!(
        fs::read_to_string(e.homes.codex_config()).unwrap(),
        fixture("codex-config.toml"),
        "only reported"
    );
    let mut r = req(&e, both(), Scope::Local);
    r.options.enable_codex_hooks = true;
    let (o, out) = run(&r);
    assert!(o.problems.is_empty(), "{out}");
    let cfg = fs::read_to_string(e.homes.codex_config()).unwrap();
    assert!(
        cfg.contains("hooks = true # TODO: re-enable")
            && cfg.contains("# I turned hooks off while debugging"),
        "{cfg}"
    );
}

#[test]
fn trust_without_codex_prints_steps_and_fails() {
    let e = env();
    let mut r = req(
        &e,
        Targets {
            claude: false,
            codex: true,
        },
        Scope::Project,
    );
    r.options.trust = true;
    let (o, out) = run(&r);
    assert!(!o.ok);
    assert!(out.contains("--trust needs `codex` on PATH"), "{out}");
    assert!(
        out.contains(&format!("[projects.\"{}\"]", e.repo.display())),
        "{out}"
    );
    // The consent was given: the project trust entry is written even so.
    let cfg = fs::read_to_string(e.homes.codex_config()).unwrap();
    assert_eq!(
        cfg,
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            e.repo.display()
        )
    );
}

#[test]
fn locating_the_hook_executables() {
    let e = env();
    let err = locate(Some(&e.bin), Some(std::ffi::OsStr::new("")), &e.repo).unwrap_err();
    assert!(
        err.contains("cargo install --locked --path .") && err.contains("handover-session-start"),
        "{err}"
    );
    let other = e.homes.home.join("path bin");
    fs::create_dir_all(&other).unwrap();
    for n in [
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        let dir = if n == "handover-pre-compact" {
            &other
        } else {
            &e.bin
        };
        fs::write(dir.join(n), "#!/bin/sh\n").unwrap();
        fs::set_permissions(dir.join(n), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path_var = std::env::join_paths([&other]).unwrap();
    let found = locate(Some(&e.bin), Some(&path_var), &e.repo).unwrap();
    assert_eq!(found.session_start, e.bin.join("handover-session-start"));
    assert_eq!(
        found.pre_compact,
        other.join("handover-pre-compact"),
        "falls back to PATH"
    );
}

#[test]
fn status_reports_installed_duplicates_and_codex_trust() {
    let e = env();
    let s = status(&e.repo, &e.homes, Some(&HookPaths::in_dir(&e.bin)));
    assert_eq!(s.json["claude"]["project"]["installed"], false);
    assert!(s.problems.is_empty(), "{:?}", s.problems);

    run(&req(&e, both(), Scope::Project));
    let s = status(&e.repo, &e.homes, Some(&HookPaths::in_dir(&e.bin)));
    assert_eq!(s.json["claude"]["project"]["installed"], true);
    assert_eq!(s.json["claude"]["project"]["up_to_date"], true);
    assert_eq!(s.json["codex"]["project"]["hook_trust"]["recorded"], 0);
    assert!(
        s.lines
            .iter()
            .any(|l| l.starts_with("claude project: installed, up to date")),
        "{:?}",
        s.lines
    );
    assert!(
        s.problems
            .iter()
            .any(|p| p.contains("project is not trusted")),
        "{:?}",
        s.problems
    );
    assert!(
        s.problems
            .iter()
            .any(|p| p.contains("6 of our hooks have no trust entry")),
        "{:?}",
        s.problems
    );

    // The same hooks from another path in settings.local.json: they would run twice.
    let mut r = req(
        &e,
        Targets {
            claude: true,
            codex: false,
        },
        Scope::Local,
    );
    r.options.hooks = HookPaths::in_dir(Path::new("/elsewhere"));
    run(&r);
    let s = status(&e.repo, &e.homes, Some(&HookPaths::in_dir(&e.bin)));
    assert!(
        s.problems
            .iter()
            .any(|p| p.contains("several scopes (project, local)")),
        "{:?}",
        s.problems
    );
    assert!(
        s.problems
            .iter()
            .any(|p| p.starts_with("claude local: hooks in") && p.contains("another path")),
        "{:?}",
        s.problems
    );
    assert_eq!(s.json["instructions"]["AGENTS.md"], true);
}

#[test]
fn uninstall_through_a_link_empties_the_target_and_keeps_the_link() {
    let e = env();
    let dotfiles = e.homes.home.join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    fs::create_dir_all(e.homes.home.join(".claude")).unwrap();
    let link = e.homes.home.join(".claude/settings.json");
    std::os::unix::fs::symlink(dotfiles.join("claude.json"), &link).unwrap();
    run(&req(
        &e,
        Targets {
            claude: true,
            codex: false,
        },
        Scope::User,
    ));
    assert!(
        fs::read_to_string(dotfiles.join("claude.json"))
            .unwrap()
            .contains("handover-pre-compact"),
        "created through the dangling link"
    );
    uninstall(
        &e,
        Targets {
            claude: true,
            codex: false,
        },
        Scope::User,
    );
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(dotfiles.join("claude.json")).unwrap(),
        "{}\n"
    );
}

#[test]
fn broken_section_markers_stop_the_run() {
    let e = env();
    let text = "# Rules\n<!-- handover:begin -->\nhalf a section\n";
    fs::write(e.repo.join("AGENTS.md"), text).unwrap();
    let before = snapshot(e._tmp.path());
    let err = flow::install(&req(&e, both(), Scope::Project), &mut Vec::new()).unwrap_err();
    assert_eq!(err.file, e.repo.join("AGENTS.md"));
    assert_eq!(err.position, Some((2, 1)));
    assert_eq!(snapshot(e._tmp.path()), before);
}

#[test]
fn status_spots_a_plugin_copy_and_uninstall_dry_run_writes_nothing() {
    let e = env();
    run(&req(&e, both(), Scope::Project));
    let plugin = e
        .homes
        .home
        .join(".claude/plugins/cache/acme/handover/1.0/hooks");
    fs::create_dir_all(&plugin).unwrap();
    fs::write(
        plugin.join("hooks.json"),
        r#"{"description": "x", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/handover-session-start"}]}]}}"#,
    )
    .unwrap();
    let s = status(&e.repo, &e.homes, Some(&HookPaths::in_dir(&e.bin)));
    assert!(
        s.problems
            .iter()
            .any(|p| p.contains("a plugin also runs handover hooks") && p.contains("acme")),
        "{:?}",
        s.problems
    );

    let before = snapshot(e._tmp.path());
    let mut out = Vec::new();
    let o = flow::uninstall(
        &UninstallRequest {
            repo: e.repo.clone(),
            homes: e.homes.clone(),
            targets: both(),
            scope: Scope::Project,
            dry_run: true,
        },
        &mut out,
    )
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(o.wrote.is_empty());
    assert_eq!(snapshot(e._tmp.path()), before);
    assert!(
        out.contains("+++ /dev/null") && out.contains("-            \"command\": "),
        "{out}"
    );
}
