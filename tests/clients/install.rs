//! What `handover install` writes, checked against the REAL clients (pinned in
//! tests/clients/package.json): Claude Code runs the installed hooks from a directory whose path
//! has a space and a quote; `codex exec` skips freshly installed hooks until the trust step and
//! runs them after it; `codex app-server` reports exactly our hooks as trusted, and uninstall
//! takes back only what we wrote.
//!
//! Built on the end-to-end harness in tests/support/ (client lookup, HANDOVER_SKIP_E2E, the
//! loopback-only namespaces, the fake model server). The client runs use stand-in hook
//! executables that log the event they were given, so the tests see exactly which hooks ran.

use crate::support::fake_server::Turn;
use crate::support::{clients, install_hooks, shell_quote, Agent, RunOpts, Sandbox, Trust};
use handover_clients::Scope;
use handover_installer::plan::flow::{self, InstallRequest, UninstallRequest};
use handover_installer::wiring::codex::app_server::{self, TrustRequest, TrustStatus};
use handover_installer::{Homes, HookPaths, InstallOptions, Targets};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Creates `dir` with stand-ins for the three hook executables: each appends
/// `<name> <args> "hook_event_name":"<Event>" "source":"<source>"` to `log`.
fn stand_in_hooks(dir: &Path, log: &Path) {
    std::fs::create_dir_all(dir).expect("create the hooks dir");
    for name in [
        "handover-session-start",
        "handover-pre-compact",
        "handover-context-watch",
    ] {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\nin=$(cat)\nev=$(printf '%s' \"$in\" | grep -o '\"hook_event_name\":\"[A-Za-z]*\"')\nsrc=$(printf '%s' \"$in\" | grep -o '\"source\":\"[a-z]*\"')\necho \"{name} $* $ev $src\" >> {}\n",
                shell_quote(&log.to_string_lossy())
            ),
        )
        .expect("write a stand-in hook");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
            .expect("make a stand-in hook executable");
    }
}

/// A sandbox whose project has the stand-in hooks (in `<root>/<dir_name>`) installed for
/// `agent`, not yet trusted; returns the sandbox, the hooks directory and the stand-ins' log.
fn installed_stand_ins(agent: Agent, trust: Trust, dir_name: &str) -> (Sandbox, PathBuf, PathBuf) {
    let sb = Sandbox::unwired(agent, trust, "");
    let bin = sb.root.join(dir_name);
    let log = sb.root.join("stand-in-hooks.log");
    stand_in_hooks(&bin, &log);
    install_hooks(&sb, &bin, false);
    (sb, bin, log)
}

/// A git project `<tmp>/<name>` with an empty `.codex/`, and a temporary HOME / CODEX_HOME:
/// (the temp dir to keep, its canonical root, the project, the homes).
fn codex_project(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf, Homes) {
    let tmp = tempfile::tempdir().expect("create a temp dir");
    let root = tmp.path().canonicalize().expect("canonical temp dir");
    let repo = root.join(name);
    let homes = Homes::under(&root.join("home"));
    std::fs::create_dir_all(repo.join(".codex")).expect("create the project");
    std::fs::create_dir_all(homes.user_dir(&handover_clients::codex::CLIENT))
        .expect("create CODEX_HOME");
    assert!(Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .expect("run git init")
        .success());
    (tmp, root, repo, homes)
}

/// `install --codex --trust` in the project scope, with the hooks in `bin_dir`.
fn codex_trust_install(
    repo: &Path,
    homes: &Homes,
    bin_dir: &Path,
    codex_bin: &Path,
) -> InstallRequest {
    InstallRequest {
        repo: repo.to_path_buf(),
        homes: homes.clone(),
        options: InstallOptions {
            targets: Targets::of([handover_clients::Agent::Codex]),
            scope: Scope::Project,
            watch: true,
            enable_codex_hooks: false,
            trust: true,
            hooks: HookPaths::in_dir(bin_dir),
            portable: false,
            mcp: None,
        },
        dry_run: false,
        codex_bin: Some(codex_bin.to_path_buf()),
        trust_timeout: Duration::from_secs(60),
        also_writes: Vec::new(),
    }
}

fn read_log(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// The settings `handover install` writes make Claude Code run our executables — no matcher, a
/// path with a space and a quote — on SessionStart (startup), UserPromptSubmit, PostToolUse and
/// Stop.
fn claude_runs_the_installed_hooks_from_a_path_with_a_space_and_a_quote() {
    if clients("claude_runs_the_installed_hooks_from_a_path_with_a_space_and_a_quote").is_none() {
        return;
    }
    let (sb, _bin, log) = installed_stand_ins(Agent::Claude, Trust::BypassFlag, "bin dir's");
    // One Bash tool call (for PostToolUse), then a text answer.
    let run = sb.run(
        vec![Turn::shell("true"), Turn::text("done")],
        RunOpts::prompt("run true"),
    );
    let logged = read_log(&log);
    for want in [
        "handover-session-start --agent claude \"hook_event_name\":\"SessionStart\" \"source\":\"startup\"",
        "handover-context-watch --agent claude \"hook_event_name\":\"UserPromptSubmit\"",
        "handover-context-watch --agent claude \"hook_event_name\":\"PostToolUse\"",
        "handover-context-watch --agent claude \"hook_event_name\":\"Stop\"",
    ] {
        assert!(
            logged.contains(want),
            "missing `{want}` in:\n{logged}\n{}",
            run.describe()
        );
    }
}

/// The `.factory/settings.json` `handover install --droid` writes is accepted by the real
/// `droid exec` (no trust step): our executables run on SessionStart (startup), PostToolUse
/// after a command that succeeds, and Stop, from a path with a space and a quote. Under `exec`
/// Droid fires no UserPromptSubmit (docs/compatibility.md), so none is logged.
fn droid_exec_runs_the_installed_hooks_from_a_path_with_a_space_and_a_quote() {
    if clients("droid_exec_runs_the_installed_hooks_from_a_path_with_a_space_and_a_quote").is_none()
    {
        return;
    }
    let (sb, _bin, log) = installed_stand_ins(Agent::Droid, Trust::Installed, "bin dir's");
    let settings = std::fs::read_to_string(sb.project.join(".factory/settings.json"))
        .expect("install wrote .factory/settings.json");
    assert!(settings.contains("--agent droid"), "{settings}");
    let run = sb.run(
        vec![Turn::shell("true"), Turn::text("done")],
        RunOpts::prompt("run true"),
    );
    let logged = read_log(&log);
    for want in [
        "handover-session-start --agent droid \"hook_event_name\":\"SessionStart\" \"source\":\"startup\"",
        "handover-context-watch --agent droid \"hook_event_name\":\"PostToolUse\"",
        "handover-context-watch --agent droid \"hook_event_name\":\"Stop\"",
    ] {
        assert!(
            logged.contains(want),
            "missing `{want}` in:\n{logged}\n{}",
            run.describe()
        );
    }
    assert!(
        !logged.contains("UserPromptSubmit"),
        "droid exec fired UserPromptSubmit: docs/compatibility.md says it does not\n{logged}"
    );
}

/// Hooks `handover install` wrote are skipped by `codex exec` (no bypass flag) until trusted;
/// after `install --trust` the same `codex exec` runs them.
fn codex_exec_runs_our_hooks_only_after_install_trust() {
    if clients("codex_exec_runs_our_hooks_only_after_install_trust").is_none() {
        return;
    }
    // Trust::Installed: `codex exec` without --dangerously-bypass-hook-trust.
    let (sb, bin, log) = installed_stand_ins(Agent::Codex, Trust::Installed, "bin dir");

    // Installed but not trusted: Codex skips the hooks silently (and exits 0: `run` asserts it).
    let run1 = sb.run(vec![Turn::text("done")], RunOpts::prompt("say done"));
    let before = read_log(&log);
    assert_eq!(
        before,
        "",
        "untrusted hooks must not run\n{}",
        run1.describe()
    );

    install_hooks(&sb, &bin, true);
    let run2 = sb.run(vec![Turn::text("done")], RunOpts::prompt("say done"));
    let after = read_log(&log);
    for want in [
        "handover-session-start --agent codex \"hook_event_name\":\"SessionStart\"",
        "handover-context-watch --agent codex \"hook_event_name\":\"UserPromptSubmit\"",
        "handover-context-watch --agent codex \"hook_event_name\":\"Stop\"",
    ] {
        assert!(
            after.contains(want),
            "missing `{want}` in:\n{after}\n{}",
            run2.describe()
        );
    }
}

/// `install --trust` marks the project trusted and trusts exactly our hooks through
/// `codex app-server`; a fresh `hooks/list` then reports them as trusted while another tool's
/// hook in the same file stays untrusted; a second run changes nothing; uninstall removes our
/// entries and keeps the user's hook and comment. Through the installer's library API, with the
/// real Codex wrapped in a loopback-only namespace.
fn install_trust_makes_codex_report_exactly_our_hooks_as_trusted() {
    let Some(clients) = clients("install_trust_makes_codex_report_exactly_our_hooks_as_trusted")
    else {
        return;
    };
    let (_tmp, root, repo, homes) = codex_project("my project");
    let (home, codex_home) = (
        homes.home.clone(),
        homes.user_dir(&handover_clients::codex::CLIENT).clone(),
    );
    // Someone else's hook already in the project file, and a user config with a comment.
    std::fs::write(
        repo.join(".codex/hooks.json"),
        "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/usr/bin/true\"\n          }\n        ]\n      }\n    ]\n  }\n}\n",
    )
    .expect("write the other tool's hooks.json");
    let config = "# my codex settings\nmodel = \"gpt-5\"\n";
    std::fs::write(codex_home.join("config.toml"), config).expect("write the user's config");
    let bin_dir = root.join("bin dir");
    // The executables the hooks name exist (status reports missing ones).
    stand_in_hooks(&bin_dir, &root.join("stand-in-hooks.log"));
    let codex_bin: PathBuf = clients.netless(&root, "codex-netless", &clients.codex);
    let req = codex_trust_install(&repo, &homes, &bin_dir, &codex_bin);
    let started = Instant::now();
    let mut out = Vec::new();
    let outcome = flow::install(&req, &mut out).expect("install --trust");
    let out = String::from_utf8_lossy(&out);
    println!("{out}\n(install --trust took {:?})", started.elapsed());
    assert!(outcome.ok, "{out}");
    assert_eq!(
        out.matches("trusted: ").count() - out.matches("already trusted: ").count(),
        7,
        "{out}"
    );
    assert!(out.contains("verified with hooks/list: all 7"), "{out}");

    // A fresh server agrees: our seven handlers trusted, the other tool's Stop hook not.
    let listed = app_server::list_hooks(&TrustRequest {
        codex_bin: codex_bin.clone(),
        codex_home: codex_home.clone(),
        home: home.clone(),
        project: repo.clone(),
        hooks_json: repo.join(".codex/hooks.json"),
        commands: Vec::new(),
        timeout: Duration::from_secs(60),
    })
    .expect("hooks/list");
    let ours: Vec<_> = listed
        .iter()
        .filter(|h| h.command.contains("handover-"))
        .collect();
    assert_eq!(ours.len(), 7, "{listed:#?}");
    assert!(
        ours.iter().all(|h| h.trust_status == TrustStatus::Trusted),
        "{listed:#?}"
    );
    let other = listed
        .iter()
        .find(|h| h.command == "/usr/bin/true")
        .expect("the other tool's hook is listed");
    assert_eq!(
        other.trust_status,
        TrustStatus::Untrusted,
        "we trust only our own hooks"
    );
    let cfg = std::fs::read_to_string(codex_home.join("config.toml")).expect("read config");
    assert!(cfg.starts_with(config), "user's config kept:\n{cfg}");
    assert!(
        cfg.contains(&format!("[projects.\"{}\"]", repo.display())),
        "{cfg}"
    );

    // The opt-in live status asks Codex and agrees.
    let mut st = handover_installer::status::status(
        &repo,
        &req.homes,
        Some(&HookPaths::in_dir(&bin_dir)),
        None,
    );
    st.check_live_codex_trust(&repo, &req.homes, Some(&codex_bin), Duration::from_secs(60));
    assert!(
        st.lines()
            .iter()
            .any(|l| l == "codex project: Codex reports 7 of 7 of our hooks trusted"),
        "{:?}",
        st.lines()
    );
    assert_eq!(
        serde_json::to_value(&st).unwrap()["codex"]["project"]["hook_trust"]["recorded"],
        7
    );
    assert!(st.problems().is_empty(), "{:?}", st.problems());

    // Running install --trust again changes nothing and still verifies.
    let mut out2 = Vec::new();
    let again = flow::install(&req, &mut out2).expect("install --trust again");
    let out2 = String::from_utf8_lossy(&out2);
    assert!(again.ok && again.wrote.is_empty(), "{out2}");
    assert_eq!(out2.matches("already trusted: ").count(), 7, "{out2}");
    assert_eq!(
        std::fs::read_to_string(codex_home.join("config.toml")).expect("read config"),
        cfg
    );

    // Uninstall removes our handlers and our trust entries; the user's hook and comment stay.
    let mut out3 = Vec::new();
    let un = UninstallRequest {
        repo: repo.clone(),
        homes,
        targets: Targets::of([handover_clients::Agent::Codex]),
        scope: Scope::Project,
        dry_run: false,
    };
    assert!(flow::uninstall(&un, &mut out3).expect("uninstall").ok);
    let hooks = std::fs::read_to_string(repo.join(".codex/hooks.json")).expect("read hooks.json");
    assert!(
        !hooks.contains("handover-") && hooks.contains("/usr/bin/true"),
        "{hooks}"
    );
    let cfg = std::fs::read_to_string(codex_home.join("config.toml")).expect("read config");
    assert!(!cfg.contains("hooks.json:"), "{cfg}");
    assert!(cfg.starts_with(config), "{cfg}");
    // The project trust install added (recorded: installer/src/apply/manifest.rs) goes too.
    assert!(!cfg.contains("trust_level"), "{cfg}");
}

/// With the real Codex: a user's wrapper of our hook is left alone and not trusted by us; a CRLF
/// config.toml stays CRLF although Codex rewrites it with LF; and when uninstall removes our
/// Stop group, the user's Stop hook after it moves up and Codex still reports it trusted (its
/// trust entry moved with it: the hash does not depend on the place).
fn codex_keeps_a_moved_users_hook_trusted_and_a_crlf_config_after_install_and_uninstall() {
    let Some(clients) = clients(
        "codex_keeps_a_moved_users_hook_trusted_and_a_crlf_config_after_install_and_uninstall",
    ) else {
        return;
    };
    let (_tmp, root, repo, homes) = codex_project("proj");
    let (home, codex_home) = (
        homes.home.clone(),
        homes.user_dir(&handover_clients::codex::CLIENT).clone(),
    );
    let bin_dir = root.join("bin");
    std::fs::create_dir_all(&bin_dir).expect("create the hooks dir");
    let hooks_json = repo.join(".codex/hooks.json");
    let wrapper = format!(
        "{}/handover-session-start --agent codex 2>>/dev/null; true",
        bin_dir.display()
    );
    std::fs::write(
        &hooks_json,
        serde_json::to_string_pretty(&serde_json::json!({"hooks": {"SessionStart": [
            {"hooks": [{"type": "command", "command": wrapper, "timeout": 10}]}]}}))
        .expect("json")
            + "\n",
    )
    .expect("write hooks.json");
    let cfg_path = codex_home.join("config.toml");
    // The user trusted the project themselves: uninstall leaves that (install did not add it),
    // so Codex still loads the project's hooks and can report the moved one.
    std::fs::write(
        &cfg_path,
        format!(
            "# my codex settings\r\nmodel = \"gpt-5\"\r\n\r\n[projects.\"{}\"]\r\ntrust_level = \"trusted\"\r\n",
            repo.display()
        ),
    )
    .expect("write config");
    let codex_bin: PathBuf = clients.netless(&root, "codex-netless", &clients.codex);
    let codex_only = Targets::of([handover_clients::Agent::Codex]);
    let req = codex_trust_install(&repo, &homes, &bin_dir, &codex_bin);
    let mut out = Vec::new();
    let outcome = flow::install(&req, &mut out).expect("install --trust");
    let out = String::from_utf8_lossy(&out).into_owned();
    println!("{out}");
    assert!(outcome.ok, "{out}");
    assert!(out.contains("verified with hooks/list: all 6"), "{out}");
    assert!(
        out.contains("left alone: SessionStart: your command"),
        "{out}"
    );
    let list = || {
        app_server::list_hooks(&TrustRequest {
            codex_bin: codex_bin.clone(),
            codex_home: codex_home.clone(),
            home: home.clone(),
            project: repo.clone(),
            hooks_json: hooks_json.clone(),
            commands: Vec::new(),
            timeout: Duration::from_secs(60),
        })
        .expect("hooks/list")
    };
    let listed = list();
    let wrapped = listed
        .iter()
        .find(|h| h.command == wrapper)
        .expect("the wrapper is listed");
    assert_eq!(
        wrapped.trust_status,
        TrustStatus::Untrusted,
        "we never trust a wrapper"
    );
    let cfg = std::fs::read_to_string(&cfg_path).expect("read config");
    assert!(
        cfg.contains("[hooks.state") && !cfg.replace("\r\n", "").contains('\n'),
        "CRLF kept after Codex's rewrite:\n{cfg:?}"
    );

    // The user adds their own Stop hook after ours and trusts it with Codex's hash.
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&hooks_json).expect("read")).expect("json");
    v["hooks"]["Stop"]
        .as_array_mut()
        .expect("Stop groups")
        .push(serde_json::json!({"hooks": [{"type": "command", "command": "/usr/bin/true", "timeout": 5}]}));
    std::fs::write(
        &hooks_json,
        serde_json::to_string_pretty(&v).expect("json") + "\n",
    )
    .expect("write hooks.json");
    let mine = list()
        .into_iter()
        .find(|h| h.command == "/usr/bin/true")
        .expect("the user's Stop hook is listed");
    assert!(mine.key.ends_with(":stop:1:0"), "{}", mine.key);
    std::fs::write(
        &cfg_path,
        format!(
            "{cfg}\r\n[hooks.state.\"{}\"]\r\ntrusted_hash = \"{}\"\r\n",
            mine.key, mine.current_hash
        ),
    )
    .expect("trust the user's hook");
    assert_eq!(
        list()
            .iter()
            .find(|h| h.command == "/usr/bin/true")
            .map(|h| h.trust_status.clone()),
        Some(TrustStatus::Trusted)
    );

    let mut out = Vec::new();
    let un = UninstallRequest {
        repo: repo.clone(),
        homes,
        targets: codex_only,
        scope: Scope::Project,
        dry_run: false,
    };
    assert!(flow::uninstall(&un, &mut out).expect("uninstall").ok);
    let listed = list();
    let moved = listed
        .iter()
        .find(|h| h.command == "/usr/bin/true")
        .expect("the user's Stop hook stays");
    assert!(moved.key.ends_with(":stop:0:0"), "{}", moved.key);
    assert_eq!(
        moved.trust_status,
        TrustStatus::Trusted,
        "its trust moved with it:\n{}",
        String::from_utf8_lossy(&out)
    );
    assert!(listed.iter().any(|h| h.command == wrapper), "{listed:#?}");
    assert!(!listed
        .iter()
        .any(|h| h.command.contains("handover-pre-compact")));
    let cfg = std::fs::read_to_string(&cfg_path).expect("read config");
    assert!(!cfg.replace("\r\n", "").contains('\n'), "{cfg:?}");
}

/// `install --trust` with no Codex config.toml yet: the file is created by this run (project
/// trust), then Codex adds the hook trust; nothing of the user's was in it, so nothing is backed
/// up.
fn install_trust_does_not_back_up_a_config_it_created() {
    let Some(clients) = clients("install_trust_does_not_back_up_a_config_it_created") else {
        return;
    };
    let (_tmp, root, repo, homes) = codex_project("fresh");
    assert!(!handover_installer::wiring::codex::config::config_path(&homes).exists());
    let bin_dir = root.join("bin");
    std::fs::create_dir_all(&bin_dir).expect("create the hooks dir");
    let codex_bin: PathBuf = clients.netless(&root, "codex-netless", &clients.codex);
    let req = codex_trust_install(&repo, &homes, &bin_dir, &codex_bin);
    let mut out = Vec::new();
    let outcome = flow::install(&req, &mut out).expect("install --trust");
    let out = String::from_utf8_lossy(&out);
    assert!(outcome.ok, "{out}");
    assert!(out.contains("verified with hooks/list: all 7"), "{out}");
    assert!(outcome.backups.is_empty(), "{:?}\n{out}", outcome.backups);
    assert!(!out.contains("backup:"), "{out}");
    assert!(!homes.backups.exists(), "{out}");
    // Uninstall takes out the project trust and the hook trust: the file install created
    // holds nothing else, and goes.
    let un = UninstallRequest {
        repo: repo.clone(),
        homes: homes.clone(),
        targets: Targets::of([handover_clients::Agent::Codex]),
        scope: Scope::Project,
        dry_run: false,
    };
    let mut out = Vec::new();
    assert!(flow::uninstall(&un, &mut out).expect("uninstall").ok);
    let cfg = handover_installer::wiring::codex::config::config_path(&homes);
    assert!(
        !cfg.exists(),
        "{:?}\n{}",
        std::fs::read_to_string(&cfg),
        String::from_utf8_lossy(&out)
    );
}

trials! {
    real: [
        claude_runs_the_installed_hooks_from_a_path_with_a_space_and_a_quote,
        droid_exec_runs_the_installed_hooks_from_a_path_with_a_space_and_a_quote,
        codex_exec_runs_our_hooks_only_after_install_trust,
        install_trust_makes_codex_report_exactly_our_hooks_as_trusted,
        codex_keeps_a_moved_users_hook_trusted_and_a_crlf_config_after_install_and_uninstall,
        install_trust_does_not_back_up_a_config_it_created,
    ],
}
