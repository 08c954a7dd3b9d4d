//! src/cli/install.rs on its own (the lead wires it into main): argument parsing, the
//! environment it reads, the guard call, exit codes and what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../src/cli/install.rs"]
#[allow(dead_code)]
mod install;

use clap::Parser;
use handover_core::guard::GuardStatus;
use install::{Environment, InstallArgs, ScopeArg, Selection, UninstallArgs};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand)]
enum Cmd {
    Install(InstallArgs),
    Uninstall(UninstallArgs),
}

fn parse(args: &[&str]) -> Cmd {
    Cli::try_parse_from(std::iter::once("handover").chain(args.iter().copied()))
        .unwrap()
        .cmd
}

#[test]
fn flags_parse() {
    let Cmd::Install(a) = parse(&[
        "install",
        "--codex",
        "--scope",
        "local",
        "--no-watch",
        "--trust",
        "--enable-codex-hooks",
        "--dry-run",
        "--hooks-dir",
        "/x y",
        "--codex-bin",
        "/c",
    ]) else {
        panic!()
    };
    let sel = &a.selection;
    assert!(sel.codex && !sel.claude && sel.dry_run);
    assert!(a.no_watch && a.trust && a.enable_codex_hooks);
    assert_eq!(sel.scope, ScopeArg::Local);
    assert_eq!(a.hooks_dir, Some(PathBuf::from("/x y")));
    assert_eq!(a.codex_bin, Some(PathBuf::from("/c")));
    let Cmd::Uninstall(u) = parse(&["uninstall", "--scope", "user"]) else {
        panic!()
    };
    assert_eq!(u.selection.scope, ScopeArg::User);
    assert!(Cli::try_parse_from(["handover", "install", "--scope", "global"]).is_err());
}

fn setup() -> (tempfile::TempDir, PathBuf, Environment) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let repo = root.join("repo");
    let bin = root.join("bin");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    for n in [
        "handover",
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        std::fs::write(bin.join(n), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join(n), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let env = Environment {
        homes: handover_installer::Homes::under(&root.join("home")),
        path_var: Some("".into()),
        exe_dir: Some(bin),
        cwd: root.clone(),
    };
    (tmp, repo, env)
}

#[test]
fn install_uses_the_binary_dir_calls_the_guard_and_uninstall_undoes_it() {
    let (_tmp, repo, env) = setup();
    let guarded = RefCell::new(Vec::<PathBuf>::new());
    let guard = |p: &Path| {
        guarded.borrow_mut().push(p.to_path_buf());
        Ok((
            GuardStatus {
                present: true,
                tracked: vec!["handover.md".into()],
                problem: None,
            },
            true,
        ))
    };
    let mut out = Vec::new();
    let code = install::run_install_with(
        &InstallArgs {
            selection: Selection {
                claude: true,
                ..Default::default()
            },
            ..Default::default()
        },
        &repo,
        &env,
        &mut out,
        &guard,
    )
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert_eq!(*guarded.borrow(), vec![repo.clone()]);
    assert!(
        out.contains(".gitignore: added the handover block"),
        "{out}"
    );
    assert!(out.contains("git rm --cached handover.md"), "{out}");
    let settings = std::fs::read_to_string(repo.join(".claude/settings.json")).unwrap();
    let exe = env.exe_dir.as_ref().unwrap().join("handover-session-start");
    assert!(
        settings.contains(&format!(
            "\"command\": \"{} --agent claude\"",
            exe.display()
        )),
        "{settings}"
    );
    assert!(!repo.join(".codex").exists(), "--claude only");

    let s = install::status_section_with(&repo, &env);
    assert_eq!(
        s.json["claude"]["project"]["up_to_date"], true,
        "{:?}",
        s.lines
    );

    let mut out = Vec::new();
    let code = install::run_uninstall_with(
        &UninstallArgs {
            selection: Selection {
                claude: true,
                ..Default::default()
            },
        },
        &repo,
        &env,
        &mut out,
    )
    .unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(!repo.join(".claude").exists() && !repo.join("CLAUDE.md").exists());
}

#[test]
fn dry_run_skips_the_guard_and_missing_hooks_fail_with_install_advice() {
    let (_tmp, repo, mut env) = setup();
    let guard = |_: &Path| -> anyhow::Result<(GuardStatus, bool)> {
        panic!("guard must not run in a dry run")
    };
    let mut out = Vec::new();
    let code = install::run_install_with(
        &InstallArgs {
            selection: Selection {
                dry_run: true,
                ..Default::default()
            },
            ..Default::default()
        },
        &repo,
        &env,
        &mut out,
        &guard,
    )
    .unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(
        std::fs::read_dir(&repo).unwrap().next().is_none(),
        "nothing written"
    );

    env.exe_dir = Some(PathBuf::from("/nonexistent"));
    let err = install::run_install_with(
        &InstallArgs::default(),
        &repo,
        &env,
        &mut Vec::new(),
        &guard,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("cargo install --locked --path ."),
        "{err}"
    );
}

/// `--trust` without Codex is an error before anything is written: no hooks.json, no AGENTS.md,
/// no project trust, and the guard is not run.
#[test]
fn trust_without_codex_fails_before_writing() {
    let (tmp, repo, env) = setup();
    let guarded = RefCell::new(false);
    let guard = |_: &Path| {
        *guarded.borrow_mut() = true;
        Ok((GuardStatus::default(), false))
    };
    let mut out = Vec::new();
    let err = install::run_install_with(
        &InstallArgs {
            selection: Selection {
                codex: true,
                ..Default::default()
            },
            trust: true,
            ..Default::default()
        },
        &repo,
        &env,
        &mut out,
        &guard,
    )
    .unwrap_err();
    assert!(err.to_string().contains("nothing was written"), "{err}");
    assert!(!*guarded.borrow());
    let mut left = Vec::new();
    let mut stack = vec![tmp.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if !e.path().starts_with(tmp.path().join("bin")) {
                left.push(e.path());
            }
        }
    }
    assert!(left.is_empty(), "{left:?}");
}

/// A read-only `.gitignore` the guard would have to write stops the install before any settings
/// file is written (the guard runs after the installer's files).
#[test]
fn a_read_only_gitignore_stops_the_install_before_the_first_write() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, repo, env) = setup();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    let gitignore = repo.join(".gitignore");
    std::fs::write(&gitignore, "target/\n").unwrap();
    std::fs::set_permissions(&gitignore, std::fs::Permissions::from_mode(0o444)).unwrap();
    let guard =
        |_: &Path| -> anyhow::Result<(GuardStatus, bool)> { panic!("the guard must not run") };
    let err = install::run_install_with(
        &InstallArgs {
            selection: Selection {
                claude: true,
                ..Default::default()
            },
            ..Default::default()
        },
        &repo,
        &env,
        &mut Vec::new(),
        &guard,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains(".gitignore: is read-only (mode 444)"),
        "{err}"
    );
    assert!(!repo.join(".claude").exists());
    assert!(!repo.join("CLAUDE.md").exists());
}

#[test]
fn gemini_flag_installs_for_gemini_only_and_trust_writes_its_trusted_folders() {
    let Cmd::Install(a) = parse(&["install", "--gemini", "--trust"]) else {
        panic!()
    };
    let sel = &a.selection;
    assert!(sel.gemini && a.trust && !sel.claude && !sel.codex);
    let (_tmp, repo, env) = setup();
    let guard = |_: &Path| Ok((GuardStatus::default(), false));
    let mut out = Vec::new();
    let code = install::run_install_with(&a, &repo, &env, &mut out, &guard).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let settings = std::fs::read_to_string(repo.join(".gemini/settings.json")).unwrap();
    assert!(
        settings.contains("--agent gemini\"") && settings.contains("\"timeout\": 10000"),
        "{settings}"
    );
    assert!(repo.join("GEMINI.md").is_file());
    assert!(!repo.join(".claude").exists() && !repo.join(".codex").exists());
    let trusted =
        std::fs::read_to_string(env.homes.gemini_home.join("trustedFolders.json")).unwrap();
    assert!(trusted.contains(&format!("\"{}\": \"TRUST_FOLDER\"", repo.display())));
    let s = install::status_section_with(&repo, &env);
    assert_eq!(
        s.json["gemini"]["project"]["up_to_date"], true,
        "{:?}",
        s.lines
    );
    assert_eq!(s.json["gemini"]["folder_trust"], "trusted");

    let Cmd::Uninstall(u) = parse(&["uninstall", "--gemini"]) else {
        panic!()
    };
    let code = install::run_uninstall_with(&u, &repo, &env, &mut Vec::new()).unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(!repo.join(".gemini").exists() && !repo.join("GEMINI.md").exists());
}
