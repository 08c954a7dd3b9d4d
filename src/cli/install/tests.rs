//! The install adapter on its own: argument parsing, the environment it reads, the guard
//! call, exit codes and what it prints.

use super::Environment;
use crate::cli::{ClientFlags, InstallArgs, ScopeArg, Selection, UninstallArgs};
use clap::Parser;
use handover_clients::Agent;
use handover_core::guard::GuardStatus;
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
    assert!(sel.clients.0 == [Agent::Codex] && sel.dry_run);
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

/// `--all`: the tests that wire every client (a bare install wires the clients found).
fn every_client() -> Selection {
    Selection {
        all: true,
        ..Default::default()
    }
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
    let code = super::run_install_with(
        &InstallArgs {
            selection: Selection {
                clients: ClientFlags(vec![Agent::Claude]),
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
    // The guard's report (the exclude block added, the `git rm --cached` for the tracked
    // handover.md) and, found next to `handover` but neither on PATH nor in cargo's bin, the
    // problem: the hooks would find nothing at run time, and install says so.
    insta::assert_snapshot!("install_claude", pinned(&out, &env.cwd, "[ROOT]"));
    let settings = std::fs::read_to_string(repo.join(".claude/settings.json")).unwrap();
    // The shared file names no path of this machine: the portable command.
    let portable = handover_base::hook_exe::portable_command(
        handover_base::HookExe::SessionStart,
        handover_clients::Agent::Claude,
    );
    assert!(
        settings.contains(&serde_json::to_string(&portable).unwrap()),
        "{settings}"
    );
    assert!(!settings.contains(&env.exe_dir.as_ref().unwrap().display().to_string()));
    assert!(!repo.join(".codex").exists(), "--claude only");

    let s = super::status_section_with(&repo, &env);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(
        json["claude"]["project"]["up_to_date"],
        true,
        "{:?}",
        s.lines()
    );
    assert_eq!(
        json["claude"]["project"]["missing_executables"],
        serde_json::json!([
            "handover-session-start",
            "handover-pre-compact",
            "handover-context-watch"
        ])
    );
    assert!(
        s.problems()
            .iter()
            .any(|p| p.contains("not installed on this machine, so they do nothing here")),
        "{:?}",
        s.problems()
    );
    // Once they are in cargo's bin directory, the same file runs them.
    std::os::unix::fs::symlink(
        env.exe_dir.as_ref().unwrap(),
        env.homes.cargo_home.join("bin"),
    )
    .unwrap_or_else(|_| {
        std::fs::create_dir_all(&env.homes.cargo_home).unwrap();
        std::os::unix::fs::symlink(
            env.exe_dir.as_ref().unwrap(),
            env.homes.cargo_home.join("bin"),
        )
        .unwrap()
    });
    let s = super::status_section_with(&repo, &env);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(
        json["claude"]["project"]["missing_executables"],
        serde_json::json!([])
    );
    assert!(s.problems().is_empty(), "{:?}", s.problems());

    let mut out = Vec::new();
    let code = super::run_uninstall_with(
        &UninstallArgs {
            selection: Selection {
                clients: ClientFlags(vec![Agent::Claude]),
                ..Default::default()
            },
            ..Default::default()
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
    let code = super::run_install_with(
        &InstallArgs {
            selection: Selection {
                all: true,
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
    let err = super::run_install_with(
        &InstallArgs {
            selection: every_client(),
            ..Default::default()
        },
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
    let err = super::run_install_with(
        &InstallArgs {
            selection: Selection {
                clients: ClientFlags(vec![Agent::Codex]),
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

/// A read-only exclude file the guard would have to write stops the install before any
/// settings file is written (the guard runs after the installer's files).
#[test]
fn a_read_only_exclude_file_stops_the_install_before_the_first_write() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, repo, env) = setup();
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap()
        .success());
    let exclude = repo.join(".git/info/exclude");
    std::fs::write(&exclude, "target/\n").unwrap();
    std::fs::set_permissions(&exclude, std::fs::Permissions::from_mode(0o444)).unwrap();
    let guard =
        |_: &Path| -> anyhow::Result<(GuardStatus, bool)> { panic!("the guard must not run") };
    let err = super::run_install_with(
        &InstallArgs {
            selection: Selection {
                clients: ClientFlags(vec![Agent::Claude]),
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
            .contains(".git/info/exclude: is read-only (mode 444)"),
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
    assert!(sel.clients.0 == [Agent::Gemini] && a.trust);
    let (_tmp, repo, env) = setup();
    let guard = |_: &Path| Ok((GuardStatus::default(), false));
    let mut out = Vec::new();
    let code = super::run_install_with(&a, &repo, &env, &mut out, &guard).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let settings = std::fs::read_to_string(repo.join(".gemini/settings.json")).unwrap();
    assert!(
        settings.contains("--agent gemini\"") && settings.contains("\"timeout\": 10000"),
        "{settings}"
    );
    assert!(repo.join("GEMINI.md").is_file());
    assert!(!repo.join(".claude").exists() && !repo.join(".codex").exists());
    let trusted = std::fs::read_to_string(
        env.homes
            .user_dir(&handover_clients::gemini::CLIENT)
            .join("trustedFolders.json"),
    )
    .unwrap();
    assert!(trusted.contains(&format!("\"{}\": \"TRUST_FOLDER\"", repo.display())));
    let s = super::status_section_with(&repo, &env);
    assert_eq!(
        serde_json::to_value(&s).unwrap()["gemini"]["project"]["up_to_date"],
        true,
        "{:?}",
        s.lines()
    );
    assert_eq!(
        serde_json::to_value(&s).unwrap()["gemini"]["folder_trust"],
        "trusted"
    );

    let Cmd::Uninstall(u) = parse(&["uninstall", "--gemini"]) else {
        panic!()
    };
    let code = super::run_uninstall_with(&u, &repo, &env, &mut Vec::new()).unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    assert!(!repo.join(".gemini").exists() && !repo.join("GEMINI.md").exists());
}

#[test]
fn qwen_flag_installs_for_qwen_only_into_its_settings_and_agents_md() {
    let Cmd::Install(a) = parse(&["install", "--qwen", "--scope", "local"]) else {
        panic!()
    };
    let sel = &a.selection;
    assert!(sel.clients.0 == [Agent::Qwen]);
    let (_tmp, repo, env) = setup();
    // The user's own Qwen settings stay as they are, beside our hooks.
    std::fs::create_dir_all(repo.join(".qwen")).unwrap();
    std::fs::write(
        repo.join(".qwen/settings.json"),
        "{\n  \"model\": {\n    \"name\": \"qwen3-coder-plus\"\n  }\n}\n",
    )
    .unwrap();
    let (code, out) = install_quietly(&a, &repo, &env);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(
        out.contains("Qwen Code has no local scope"),
        "--scope local says where the hooks went:\n{out}"
    );
    // The user's model kept; our hooks beside it, UserPromptSubmit among them, timeouts in
    // seconds (the launcher every command starts with, pinned by the installer's goldens, as
    // `[LAUNCHER]`).
    let settings = std::fs::read_to_string(repo.join(".qwen/settings.json")).unwrap();
    insta::assert_snapshot!(
        "qwen_settings_beside_the_users",
        pinned(&settings, &env.cwd, "[ROOT]")
            .replace(&in_json(handover_base::hook_exe::LAUNCHER), "[LAUNCHER]")
    );
    // A local install leaves the shared instruction files alone; a project one uses AGENTS.md.
    assert!(!repo.join("AGENTS.md").exists() && !repo.join("QWEN.md").exists());
    let Cmd::Install(p) = parse(&["install", "--qwen"]) else {
        panic!()
    };
    assert_eq!(install_quietly(&p, &repo, &env).0, ExitCode::SUCCESS);
    assert!(repo.join("AGENTS.md").is_file() && !repo.join("QWEN.md").exists());
    assert!(!repo.join(".claude").exists() && !repo.join(".gemini").exists());
    let s = super::status_section_with(&repo, &env);
    assert_eq!(
        serde_json::to_value(&s).unwrap()["qwen"]["project"]["up_to_date"],
        true,
        "{:?}",
        s.lines()
    );

    let Cmd::Uninstall(u) = parse(&["uninstall", "--qwen"]) else {
        panic!()
    };
    let code = super::run_uninstall_with(&u, &repo, &env, &mut Vec::new()).unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    // The user's settings come back byte for byte; our section leaves AGENTS.md (created by us).
    assert_eq!(
        std::fs::read_to_string(repo.join(".qwen/settings.json")).unwrap(),
        "{\n  \"model\": {\n    \"name\": \"qwen3-coder-plus\"\n  }\n}\n"
    );
    assert!(!repo.join("AGENTS.md").exists());
}

/// `text` as it appears inside a JSON string (escaped, without the quotes).
fn in_json(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

/// `text` with the temporary directory `root` (from `setup`, or a second machine's) as
/// `name`, for a snapshot: the paths an install prints differ in every run.
fn pinned(text: &str, root: &Path, name: &str) -> String {
    text.replace(&root.display().to_string(), name)
}

fn install_quietly(args: &InstallArgs, repo: &Path, env: &Environment) -> (ExitCode, String) {
    let guard = |_: &Path| Ok((GuardStatus::default(), false));
    let mut out = Vec::new();
    let code = super::run_install_with(args, repo, env, &mut out, &guard).unwrap();
    (code, String::from_utf8(out).unwrap())
}

fn snapshot_files(repo: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![repo.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                files.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Two teammates share one repository. The first installs (an old install wrote absolute paths:
/// upgraded); the second, with another HOME and handover somewhere else, installs again and
/// nothing changes, byte for byte.
#[test]
fn a_second_machine_reinstalling_changes_nothing_and_old_absolute_entries_are_upgraded() {
    let (_tmp, repo, first) = setup();
    // The old install: the absolute paths of the first machine.
    let old = InstallArgs {
        selection: every_client(),
        hooks_dir: first.exe_dir.clone(),
        ..Default::default()
    };
    let (code, out) = install_quietly(&old, &repo, &first);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let bin = first.exe_dir.clone().unwrap();
    assert!(
        out.contains(&format!(
            "hooks run {}",
            bin.join("handover-session-start").display()
        )),
        "{out}"
    );
    let settings = std::fs::read_to_string(repo.join(".claude/settings.json")).unwrap();
    assert!(settings.contains(&bin.display().to_string()), "{settings}");

    let (code, out) = install_quietly(&InstallArgs::default(), &repo, &first);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    for file in [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
    ] {
        let text = std::fs::read_to_string(repo.join(file)).unwrap();
        assert!(!text.contains(&bin.display().to_string()), "{file}: {text}");
        assert!(text.contains("sh -c '"), "{file}: {text}");
    }
    let shared = snapshot_files(&repo);

    // The teammate: another home, handover installed elsewhere (on PATH).
    let other = tempfile::tempdir().unwrap();
    let other_root = other.path().canonicalize().unwrap();
    let other_bin = other_root.join("elsewhere");
    std::fs::create_dir_all(&other_bin).unwrap();
    for n in [
        "handover",
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        std::os::unix::fs::symlink(bin.join(n), other_bin.join(n)).unwrap();
    }
    let second = Environment {
        homes: handover_installer::Homes::under(&other_root.join("home")),
        path_var: Some(other_bin.clone().into_os_string()),
        exe_dir: Some(other_bin.clone()),
        cwd: other_root.clone(),
    };
    let (code, out) = install_quietly(&InstallArgs::default(), &repo, &second);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert_eq!(
        snapshot_files(&repo),
        shared,
        "the shared files did not change:\n{out}"
    );
    // Every shared file unchanged; the hooks run from the teammate's own directory, which is
    // on PATH: no problem said.
    insta::assert_snapshot!(
        "reinstall_on_a_second_machine",
        pinned(
            &pinned(&out, &first.cwd, "[ROOT]"),
            &other_root,
            "[OTHER ROOT]"
        )
    );
    assert!(!out.contains("problem: the hooks find"), "{out}");
    let s = super::status_section_with(&repo, &second);
    assert_eq!(
        serde_json::to_value(&s).unwrap()["claude"]["project"]["up_to_date"],
        true
    );
}

/// `--hooks-dir` is taken at its word: a directory without the executables is an error (no
/// quiet fall-back to PATH), and one in the home directory is never written into the shared
/// project files.
#[test]
fn hooks_dir_must_hold_the_executables_and_stays_out_of_shared_files_when_personal() {
    let (_tmp, repo, env) = setup();
    let guard = |_: &Path| -> anyhow::Result<(GuardStatus, bool)> { panic!("no guard") };
    let empty = env.cwd.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut with_path = Environment {
        homes: env.homes.clone(),
        path_var: Some(env.exe_dir.clone().unwrap().into_os_string()),
        exe_dir: env.exe_dir.clone(),
        cwd: env.cwd.clone(),
    };
    let err = super::run_install_with(
        &InstallArgs {
            selection: every_client(),
            hooks_dir: Some(empty.clone()),
            ..Default::default()
        },
        &repo,
        &with_path,
        &mut Vec::new(),
        &guard,
    )
    .unwrap_err()
    .to_string();
    // The directory named, the executables not in it; no fall-back to PATH.
    insta::assert_snapshot!(
        "hooks_dir_without_the_executables",
        pinned(&err, &env.cwd, "[ROOT]")
    );
    assert!(!err.contains("PATH:"), "{err}");
    let personal = env.homes.home.join(".cargo/bin");
    std::fs::create_dir_all(personal.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(env.exe_dir.as_ref().unwrap(), &personal).unwrap();
    with_path.cwd = env.homes.home.clone();
    let err = super::run_install_with(
        &InstallArgs {
            selection: every_client(),
            hooks_dir: Some(PathBuf::from(".cargo/bin")),
            ..Default::default()
        },
        &repo,
        &with_path,
        &mut Vec::new(),
        &guard,
    )
    .unwrap_err()
    .to_string();
    // A personal directory in shared files: the scopes that fit, and nothing written.
    insta::assert_snapshot!(
        "personal_hooks_dir_in_shared_files",
        pinned(&err, &env.cwd, "[ROOT]")
    );
    assert!(
        std::fs::read_dir(&repo).unwrap().next().is_none(),
        "nothing written"
    );
    // For yourself only, it is fine.
    let (code, out) = install_quietly(
        &InstallArgs {
            selection: Selection {
                clients: ClientFlags(vec![Agent::Claude]),
                scope: ScopeArg::Local,
                ..Default::default()
            },
            hooks_dir: Some(personal.clone()),
            ..Default::default()
        },
        &repo,
        &with_path,
    );
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let local = std::fs::read_to_string(repo.join(".claude/settings.local.json")).unwrap();
    assert!(local.contains(&personal.display().to_string()), "{local}");
}

#[test]
fn client_switches_come_from_the_registry_and_name_clients_in_its_order() {
    let Cmd::Install(a) = parse(&["install", "--droid", "--claude", "--qwen"]) else {
        panic!()
    };
    assert_eq!(
        a.selection.clients.0,
        [Agent::Claude, Agent::Qwen, Agent::Droid]
    );
    let Cmd::Uninstall(u) = parse(&["uninstall"]) else {
        panic!()
    };
    assert!(u.selection.clients.0.is_empty());
    assert_eq!(super::and_list(&["a"], "and"), "a");
    assert_eq!(super::and_list(&["a", "b", "c"], "or"), "a, b or c");
}

/// A bare install wires the clients this machine uses (here Claude Code's folder and a `qwen`
/// program on PATH), ends with one line naming the others and `--all`, and takes `--trust`
/// without Codex on PATH; with nothing found it is refused, nothing written.
#[test]
fn a_bare_install_wires_the_clients_found_and_names_the_others() {
    let (_tmp, repo, mut env) = setup();
    let args = |trust| InstallArgs {
        trust,
        ..Default::default()
    };
    let (code, _) = install_quietly(&args(false), &repo, &env);
    assert_eq!(code, ExitCode::from(2), "nothing found: refused");
    assert!(
        std::fs::read_dir(&repo).unwrap().next().is_none(),
        "nothing written"
    );
    // `--all` and a switch exclude each other.
    assert!(Cli::try_parse_from(["handover", "install", "--all", "--claude"]).is_err());

    std::fs::create_dir_all(env.homes.home.join(".claude")).unwrap();
    let programs = env.cwd.join("programs");
    std::fs::create_dir_all(&programs).unwrap();
    std::fs::write(programs.join("qwen"), "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        programs.join("qwen"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    env.path_var = Some(programs.into_os_string());
    let (code, out) = install_quietly(&args(true), &repo, &env);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let mut written: Vec<String> = snapshot_files(&repo)
        .into_iter()
        .map(|(p, _)| p.strip_prefix(&repo).unwrap().display().to_string())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            ".claude/settings.json",
            ".qwen/settings.json",
            "AGENTS.md",
            "CLAUDE.md"
        ]
    );
    // `--trust` had nothing to do; the last line names the clients found and where, then
    // the others with their switches and `--all`.
    insta::assert_snapshot!("bare_install_with_trust", pinned(&out, &env.cwd, "[ROOT]"));
    assert!(
        out.lines().last().unwrap().starts_with("clients: "),
        "the last line: {out}"
    );
}

/// A committed install whose hooks an earlier version wrote (the launcher that told teammates
/// to install an unpublished crate) is updated in place: the same bytes as a fresh install,
/// no second hook beside the old one.
#[test]
fn hooks_with_an_earlier_launcher_are_updated_in_place() {
    let (_tmp, repo, env) = setup();
    let claude = InstallArgs {
        selection: Selection {
            clients: ClientFlags(vec![Agent::Claude]),
            ..Default::default()
        },
        ..Default::default()
    };
    let (code, out) = install_quietly(&claude, &repo, &env);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let settings = repo.join(".claude/settings.json");
    let fresh = std::fs::read_to_string(&settings).unwrap();
    let old = fresh.replace(
        &in_json(handover_base::hook_exe::LAUNCHER),
        &in_json(handover_base::hook_exe::EARLIER_LAUNCHERS[0]),
    );
    assert_ne!(old, fresh);
    std::fs::write(&settings, &old).unwrap();
    let (code, out) = install_quietly(&claude, &repo, &env);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(
        out.contains(".claude/settings.json: changed (8 updated)"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), fresh);
}
