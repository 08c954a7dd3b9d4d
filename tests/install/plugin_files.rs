//! The plugin's files (plugin/, .claude-plugin/marketplace.json) agree with the hook contract in
//! handover-base, and its launcher (plugin/run-hook.sh) finds the executables, quotes paths and
//! fails open. The real clients loading it: tests/clients/plugins.rs.

use handover_base::hook_exe::HookExe;
use handover_clients::Agent;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The command the plugin runs for `exe` in `agent`'s hooks file.
fn plugin_command(exe: HookExe, agent: &str) -> String {
    format!(
        "sh \"$CLAUDE_PLUGIN_ROOT/run-hook.sh\" {} --agent {agent} --via plugin",
        exe.file_name()
    )
}

#[test]
fn the_marketplace_lists_the_plugin_directory() {
    let m = json(&repo().join(".claude-plugin/marketplace.json"));
    assert_eq!(m["name"], "handover");
    let plugins = m["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    assert_eq!(plugins[0]["name"], "handover");
    assert_eq!(plugins[0]["source"], "./plugin");
}

#[test]
fn each_client_manifest_wires_every_hook_once_with_its_own_agent() {
    for (manifest, agent) in [
        (".claude-plugin/plugin.json", "claude"),
        (".codex-plugin/plugin.json", "codex"),
    ] {
        let m = json(&repo().join("plugin").join(manifest));
        assert_eq!(m["name"], "handover");
        assert_eq!(m["version"], env!("CARGO_PKG_VERSION"), "{manifest}");
        let hooks_rel = m["hooks"].as_str().unwrap();
        assert_eq!(hooks_rel, format!("./{agent}/hooks.json"));
        let doc = json(&repo().join("plugin").join(hooks_rel));
        let events = doc["hooks"].as_object().unwrap();
        let mut expected_events = 0;
        let agent_kind = if agent == "codex" {
            Agent::Codex
        } else {
            Agent::Claude
        };
        let client = handover_clients::of(agent_kind);
        for exe in HookExe::ALL {
            for event in client.events(exe) {
                expected_events += 1;
                let handlers: Vec<&Value> = events[event]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|g| g["hooks"].as_array().unwrap())
                    .collect();
                assert_eq!(handlers.len(), 1, "{agent} {event}");
                assert_eq!(handlers[0]["type"], "command");
                assert_eq!(handlers[0]["command"], plugin_command(exe, agent));
                assert_eq!(handlers[0]["timeout"], client.timeout(event));
            }
        }
        assert_eq!(events.len(), expected_events, "{agent}: extra events");
    }
}

/// A plugin root whose path has a space, holding a copy of run-hook.sh; a home; and a
/// directory for stand-in executables.
struct Launcher {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    bin: PathBuf,
    log: PathBuf,
}

impl Launcher {
    fn new() -> Launcher {
        let tmp = tempfile::tempdir().unwrap();
        // Shell syntax in the plugin root must never run: it reaches the shell only as the
        // value of $CLAUDE_PLUGIN_ROOT.
        let root = tmp.path().join("plugin root $(touch pwned) `touch pwned`");
        let home = tmp.path().join("home");
        let bin = tmp.path().join("my bin");
        for d in [&root, &home, &bin] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::copy(repo().join("plugin/run-hook.sh"), root.join("run-hook.sh")).unwrap();
        let log = tmp.path().join("log");
        Launcher {
            _tmp: tmp,
            root,
            home,
            bin,
            log,
        }
    }

    /// `text` as a snapshot pins it: the launcher's temporary places as `[TMP]`.
    fn pin(&self, text: &str) -> String {
        text.replace(&self._tmp.path().display().to_string(), "[TMP]")
    }

    fn stand_in(&self, dir: &Path, exe: HookExe) {
        std::fs::create_dir_all(dir).unwrap();
        let p = dir.join(exe.file_name());
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\necho \"{} $*\" >> '{}'\necho '{{}}'\n",
                p.display(),
                self.log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Runs the plugin's command for `exe` through `sh -c`, with the plugin root in the
    /// environment as the clients set it.
    fn run(&self, exe: HookExe, path: &str) -> Output {
        let command = plugin_command(exe, "claude");
        Command::new("/bin/sh")
            .args(["-c", &command])
            .env_clear()
            .env("CLAUDE_PLUGIN_ROOT", &self.root)
            .current_dir(self.root.parent().unwrap())
            .env("PATH", path)
            .env("HOME", &self.home)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn logged(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

const SYSTEM_PATH: &str = "/usr/bin:/bin";

#[test]
fn run_hook_prefers_path_then_cargo_bin_and_passes_the_arguments() {
    let l = Launcher::new();
    let cargo_bin = l.home.join(".cargo/bin");
    l.stand_in(&cargo_bin, HookExe::SessionStart);
    let out = l.run(HookExe::SessionStart, SYSTEM_PATH);
    assert!(out.status.success());
    assert!(!l.root.parent().unwrap().join("pwned").exists());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{}\n");
    assert_eq!(
        l.logged(),
        format!(
            "{} --agent claude --via plugin\n",
            cargo_bin.join("handover-session-start").display()
        )
    );

    l.stand_in(&l.bin, HookExe::SessionStart);
    let path = format!("{}:{SYSTEM_PATH}", l.bin.display());
    l.run(HookExe::SessionStart, &path);
    assert!(
        l.logged().lines().last().unwrap().starts_with(&format!(
            "{} ",
            l.bin.join("handover-session-start").display()
        )),
        "{}",
        l.logged()
    );
}

#[test]
fn run_hook_without_executables_fails_open_with_one_hint() {
    let l = Launcher::new();
    // Another hook: nothing at all.
    let out = l.run(HookExe::PreCompact, SYSTEM_PATH);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());

    let first = l.run(HookExe::SessionStart, SYSTEM_PATH);
    assert_eq!(first.status.code(), Some(0));
    assert!(first.stderr.is_empty());
    let hint: Value = serde_json::from_slice(&first.stdout).unwrap();
    let msg = hint["systemMessage"].as_str().unwrap();
    insta::assert_snapshot!("launcher_install_hint", l.pin(msg));

    let second = l.run(HookExe::SessionStart, SYSTEM_PATH);
    assert_eq!(second.status.code(), Some(0));
    assert!(second.stdout.is_empty(), "the hint must be shown once");
}

#[test]
fn run_hook_runs_nothing_but_our_executables() {
    let l = Launcher::new();
    let command = format!("sh '{}/run-hook.sh' sh -c 'echo owned'", l.root.display());
    let out = Command::new("/bin/sh")
        .args(["-c", &command])
        .env("HOME", &l.home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}
