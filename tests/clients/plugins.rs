//! The Claude Code and Codex plugin of this repository (plugin/, .claude-plugin/marketplace.json),
//! checked against the REAL clients (pinned in tests/clients/package.json), offline, in a
//! repository that never ran `handover install` unless a test says so:
//! - Claude Code loads it with `--plugin-dir` and the startup context reaches the model;
//! - Codex installs it from a local marketplace, skips its hooks until `handover trust-plugin`
//!   trusted them, then runs them;
//! - with the plugin and a per-repository install both active, the first request carries the
//!   startup context exactly once, in both clients.
//!
//! The plugin is copied to a directory whose path has a space (its hook commands must quote
//! `${CLAUDE_PLUGIN_ROOT}`), and finds our hook executables on PATH, as after `cargo install`.
use crate::support;

use crate::support::fake_server::Turn;
use crate::support::{clients, injected, run_offline_ok, Agent, RunOpts, Sandbox, Trust};
use std::path::{Path, PathBuf};

const STARTUP: &str = "handover: a previous session left a handoff for this repository.";

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// This repository's marketplace (its manifest and the plugin directory) copied to
/// `<sandbox root>/market place`; returns that directory.
fn marketplace_copy(sb: &Sandbox) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let market = sb.root.join("market place");
    copy_tree(&repo.join(".claude-plugin"), &market.join(".claude-plugin"));
    copy_tree(&repo.join("plugin"), &market.join("plugin"));
    market
}

/// A handoff in the sandbox's project, written the way an agent does.
fn write_handoff(sb: &Sandbox) {
    let out = sb.handover(&[
        "write",
        "--goal",
        "Add CSV export to the report command",
        "--next",
        "Quote fields containing commas, then add tests",
    ]);
    assert!(
        out.status.success(),
        "handover write failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Options for a run with the plugin: our hook executables first on PATH (where `cargo
/// install` puts them), plus the client's extra arguments.
fn with_plugin<'a>(sb: &Sandbox, prompt: &'a str, client_args: Vec<String>) -> RunOpts<'a> {
    RunOpts {
        client_args,
        path_first: sb.bins.session_start.parent().map(Path::to_path_buf),
        ..RunOpts::prompt(prompt)
    }
}

fn startup_count(sb: &Sandbox, run: &support::ClientRun) -> usize {
    injected(sb.agent, run.first_request())
        .matches(STARTUP)
        .count()
}

/// The run's first model request carries the startup context exactly once.
fn assert_startup_once(sb: &Sandbox, run: &support::ClientRun, what: &str) {
    assert_eq!(
        startup_count(sb, run),
        1,
        "{what} must deliver the startup context exactly once:\n{}",
        injected(sb.agent, run.first_request())
    );
}

fn claude_plugin_run(sb: &Sandbox) -> support::ClientRun {
    let market = marketplace_copy(sb);
    let plugin_dir = market.join("plugin").to_string_lossy().into_owned();
    sb.run(
        vec![Turn::text("I have read the handoff.")],
        with_plugin(
            sb,
            "Continue the task.",
            vec!["--plugin-dir".into(), plugin_dir],
        ),
    )
}

fn claude_plugin_dir_delivers_the_startup_context_without_install() {
    if clients("claude_plugin_dir_delivers_the_startup_context_without_install").is_none() {
        return;
    }
    let sb = Sandbox::unwired(Agent::Claude, Trust::BypassFlag, "");
    assert!(!sb.project.join(".claude").exists());
    write_handoff(&sb);
    let run = claude_plugin_run(&sb);
    assert_startup_once(&sb, &run, "the plugin alone");
}

/// The plugin root reaches the shell through the environment, never as command text: a plugin
/// directory whose path holds `$(…)` and backquotes runs neither, and the plugin still works.
fn claude_plugin_root_with_shell_syntax_runs_none_of_it() {
    if clients("claude_plugin_root_with_shell_syntax_runs_none_of_it").is_none() {
        return;
    }
    let sb = Sandbox::unwired(Agent::Claude, Trust::BypassFlag, "");
    write_handoff(&sb);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin = sb
        .root
        .join("p $(touch pwned-by-dollar) `touch pwned-by-backquote`")
        .join("plugin");
    copy_tree(&repo.join("plugin"), &plugin);
    let run = sb.run(
        vec![Turn::text("I have read the handoff.")],
        with_plugin(
            &sb,
            "Continue the task.",
            vec!["--plugin-dir".into(), plugin.to_string_lossy().into_owned()],
        ),
    );
    assert_startup_once(&sb, &run, "the plugin from a path with shell syntax");
    for dir in [&sb.project, &sb.root, &sb.home] {
        for name in ["pwned-by-dollar", "pwned-by-backquote"] {
            assert!(!dir.join(name).exists(), "{name} in {}", dir.display());
        }
    }
}

fn claude_plugin_and_project_install_deliver_once() {
    if clients("claude_plugin_and_project_install_deliver_once").is_none() {
        return;
    }
    // Sandbox::new runs `handover install --claude --scope project`.
    let sb = Sandbox::new(Agent::Claude, Trust::BypassFlag);
    write_handoff(&sb);
    let run = claude_plugin_run(&sb);
    assert_startup_once(&sb, &run, "plugin + settings");
    let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
    assert!(
        log.contains("plugin: the agent's settings run this hook too"),
        "the plugin's copy did not defer to the settings' one:\n{log}"
    );
}

/// `codex plugin marketplace add <copy>` and `codex plugin add handover@handover`, offline; and
/// our hook executables in `~/.cargo/bin` (where `cargo install` puts them), because Codex may
/// run hook commands in a login shell whose PATH is not the harness's.
fn codex_add_plugin(sb: &Sandbox) {
    let codex = &clients("codex_add_plugin").unwrap().codex;
    let cargo_bin = sb.home.join("user/.cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    for exe in [
        &sb.bins.session_start,
        &sb.bins.pre_compact,
        &sb.bins.context_watch,
    ] {
        std::os::unix::fs::symlink(exe, cargo_bin.join(exe.file_name().unwrap())).unwrap();
    }
    let market = marketplace_copy(sb);
    for args in [
        vec![
            "plugin".to_string(),
            "marketplace".into(),
            "add".into(),
            market.to_string_lossy().into_owned(),
        ],
        vec!["plugin".into(), "add".into(), "handover@handover".into()],
    ] {
        run_offline_ok(sb, codex, &args);
    }
}

fn trust_plugin(sb: &Sandbox) -> String {
    let codex = clients("trust_plugin").unwrap().codex.clone();
    let args = vec![
        "trust-plugin".to_string(),
        "--codex-bin".into(),
        codex.to_string_lossy().into_owned(),
    ];
    run_offline_ok(sb, &sb.bins.handover, &args)
}

fn codex_runs_the_plugin_from_a_local_marketplace_after_trust() {
    if clients("codex_runs_the_plugin_from_a_local_marketplace_after_trust").is_none() {
        return;
    }
    // Trust::Installed: no --dangerously-bypass-hook-trust; trust is what this test is about.
    let sb = Sandbox::unwired(Agent::Codex, Trust::Installed, "");
    write_handoff(&sb);
    codex_add_plugin(&sb);

    let before = sb.run(
        vec![Turn::text("OK.")],
        with_plugin(&sb, "Continue the task.", Vec::new()),
    );
    assert_eq!(
        startup_count(&sb, &before),
        0,
        "Codex ran the plugin's hooks before they were trusted"
    );

    let report = trust_plugin(&sb);
    assert!(
        report.contains("trusted: handover@handover:"),
        "trust-plugin did not trust the plugin's hooks:\n{report}"
    );
    let after = sb.run(
        vec![Turn::text("I have read the handoff.")],
        with_plugin(&sb, "Continue the task.", Vec::new()),
    );
    assert_startup_once(&sb, &after, "the trusted plugin");
}

fn codex_plugin_and_project_install_deliver_once() {
    if clients("codex_plugin_and_project_install_deliver_once").is_none() {
        return;
    }
    // Sandbox::new with Trust::Installed runs `handover install --codex --trust`.
    let sb = Sandbox::new(Agent::Codex, Trust::Installed);
    write_handoff(&sb);
    codex_add_plugin(&sb);
    trust_plugin(&sb);
    let run = sb.run(
        vec![Turn::text("I have read the handoff.")],
        with_plugin(&sb, "Continue the task.", Vec::new()),
    );
    assert_startup_once(&sb, &run, "plugin + settings");
}

/// `claude plugin marketplace add <copy>` and `claude plugin install handover@handover` (what
/// `/plugin marketplace add` and `/plugin install` do), offline; then `handover status` sees one
/// plugin copy, and with a per-repository install reports the double install once.
fn claude_installs_from_the_marketplace_and_status_sees_one_copy() {
    let Some(c) = clients("claude_installs_from_the_marketplace_and_status_sees_one_copy") else {
        return;
    };
    let sb = Sandbox::unwired(Agent::Claude, Trust::BypassFlag, "");
    let market = marketplace_copy(&sb);
    for args in [
        vec![
            "plugin".to_string(),
            "marketplace".into(),
            "add".into(),
            market.to_string_lossy().into_owned(),
        ],
        vec![
            "plugin".into(),
            "install".into(),
            "handover@handover".into(),
        ],
    ] {
        run_offline_ok(&sb, &c.claude, &args);
    }
    let status = |sb: &Sandbox| -> serde_json::Value {
        let out = run_offline_ok(sb, &sb.bins.handover, &["status".into(), "--json".into()]);
        serde_json::from_str(&out).unwrap()
    };
    let s = status(&sb);
    assert_eq!(
        s["agents"]["claude"]["plugins"].as_array().unwrap().len(),
        1,
        "{s}"
    );
    let problems = s["problems"].to_string();
    assert!(!problems.contains("not installed for any agent"), "{s}");
    assert!(!problems.contains("installed twice"), "{s}");

    support::wire_hooks(&sb);
    let s = status(&sb);
    let twice: Vec<_> = s["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p.as_str().unwrap().contains("installed twice"))
        .collect();
    assert_eq!(twice.len(), 1, "{s}");
}

trials! {
    real: [
        claude_plugin_dir_delivers_the_startup_context_without_install,
        claude_plugin_root_with_shell_syntax_runs_none_of_it,
        claude_plugin_and_project_install_deliver_once,
        codex_runs_the_plugin_from_a_local_marketplace_after_trust,
        codex_plugin_and_project_install_deliver_once,
        claude_installs_from_the_marketplace_and_status_sees_one_copy,
    ],
}
