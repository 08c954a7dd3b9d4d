//! The shared install, with the REAL clients: one repository, two HOMEs (two teammates'
//! machines). The project-scope install is committed; a teammate WITHOUT handover runs the
//! client there and sees no hook error (the hooks do nothing; at most the one hint); the
//! teammate WITH handover installed in their cargo bin directory gets the hooks; re-installing
//! from the second machine changes no byte of the shared files.
//!
//! Built on the end-to-end harness in tests/support/ (client lookup, HANDOVER_SKIP_E2E, the
//! loopback-only namespaces, the fake model server). The hooks found at run time are stand-ins
//! that log the event they were given, so the test sees exactly which hooks ran.

use crate::support::fake_server::Turn;
use crate::support::{clients, shell_quote, Agent, RunOpts, Sandbox, Trust};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const HOOKS: [&str; 3] = [
    "handover-session-start",
    "handover-pre-compact",
    "handover-context-watch",
];

/// `dir` with stand-ins for the three hook executables: each appends `<name> <args> <event>`
/// to `log` and answers nothing.
fn stand_in_hooks(dir: &Path, log: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for name in HOOKS {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!(
                "#!/bin/sh\nin=$(cat)\nev=$(printf '%s' \"$in\" | grep -o '\"hook_event_name\":\"[A-Za-z]*\"')\necho \"{name} $* $ev\" >> {}\n",
                shell_quote(&log.to_string_lossy())
            ),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The HOME the client runs with (Codex's harness runs it with `<home>/user`).
fn client_home(agent: Agent, home: &Path) -> PathBuf {
    match agent {
        Agent::Codex => home.join("user"),
        Agent::Claude | Agent::Gemini | Agent::Qwen | Agent::Copilot | Agent::Droid => {
            home.to_path_buf()
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    assert!(Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap()
        .success());
}

fn shared_files(project: &Path) -> Vec<(String, Vec<u8>)> {
    [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
    ]
    .iter()
    .filter_map(|f| Some((f.to_string(), std::fs::read(project.join(f)).ok()?)))
    .collect()
}

fn two_homes_share_one_repository(agent: Agent, test: &str) {
    if clients(test).is_none() {
        return;
    }
    let mut sb = Sandbox::unwired(agent, Trust::BypassFlag, "");
    // The second machine starts as a copy of the first one's home (the clients' own settings),
    // without handover.
    let home_without = sb.root.join("home-without-handover");
    copy_dir(&sb.home, &home_without);
    let home_with = sb.home.clone();
    let log = sb.root.join("stand-in-hooks.log");
    stand_in_hooks(&client_home(agent, &home_with).join(".cargo/bin"), &log);

    // The first teammate installs for the project (the default scope) and commits it.
    let out = sb.handover(&["install", &format!("--{}", agent.name())]);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let shared = shared_files(&sb.project);
    let hooks_file = &shared[0].1;
    let text = String::from_utf8_lossy(hooks_file);
    assert!(text.contains("sh -c '"), "{text}");
    for home in [&home_with, &home_without] {
        assert!(
            !text.contains(&home.display().to_string()),
            "no per-user path in the shared file:\n{text}"
        );
    }
    assert!(
        !text.contains(&sb.bins.handover.parent().unwrap().display().to_string()),
        "{text}"
    );

    // The teammate without handover: the client runs, no hook error, no hook ran.
    sb.home = home_without.clone();
    let run = sb.run(
        vec![Turn::shell("true"), Turn::text("done")],
        RunOpts {
            without_handover_on_path: true,
            ..RunOpts::prompt("run true")
        },
    );
    let errors = sb.hook_errors(&[&run]);
    assert!(errors.is_empty(), "{errors:#?}\n{}", run.describe());
    assert_eq!(
        std::fs::read_to_string(&log).unwrap_or_default(),
        "",
        "{}",
        run.describe()
    );
    // A shell's "sh: 1: handover-…: not found"; the clients' own start-up noise may say "not
    // found" about other things (Gemini CLI 0.61.0: "start mark … not found").
    let missing_command = |s: &str| {
        s.lines()
            .any(|l| l.contains("not found") && l.contains("handover"))
    };
    assert!(
        !missing_command(&run.stderr) && !missing_command(&run.stdout),
        "{}",
        run.describe()
    );
    // The one hint is for the user, never for the model.
    const HINT: &str = "handover is set up in this repository but not installed on this machine";
    assert!(
        run.requests.iter().all(|r| !r.body_text().contains(HINT)),
        "{}",
        run.describe()
    );
    if agent == Agent::Claude {
        // Claude Code shows it as the SessionStart hook's message, not as an error.
        let shown = sb.claude_transcript_lines().iter().any(|l| {
            l.pointer("/attachment/type").and_then(|t| t.as_str()) == Some("hook_system_message")
                && l.pointer("/attachment/content")
                    .and_then(|t| t.as_str())
                    .is_some_and(|t| t.starts_with(HINT))
        });
        assert!(shown, "{}", run.describe());
    }
    eprintln!(
        "{}: the hint in the client's output: {}",
        agent.name(),
        run.stdout.contains(HINT) || run.stderr.contains(HINT)
    );

    // That teammate installs too (say, to try it): the shared files stay byte for byte.
    let out = sb.handover(&["install", &format!("--{}", agent.name())]);
    assert!(out.status.success());
    assert_eq!(
        shared_files(&sb.project),
        shared,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    // The teammate with handover in ~/.cargo/bin: the same committed file runs the hooks.
    sb.home = home_with;
    let run = sb.run(
        vec![Turn::shell("true"), Turn::text("done")],
        RunOpts {
            without_handover_on_path: true,
            ..RunOpts::prompt("run true")
        },
    );
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    let name = agent.name();
    let (prompt_event, stop_event) = match agent {
        Agent::Gemini => ("BeforeAgent", "AfterAgent"),
        Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Droid => ("UserPromptSubmit", "Stop"),
        Agent::Copilot => ("userPromptSubmitted", "agentStop"),
    };
    for want in [
        format!("handover-session-start --agent {name} \"hook_event_name\":\"SessionStart\""),
        format!("handover-context-watch --agent {name} \"hook_event_name\":\"{prompt_event}\""),
        format!("handover-context-watch --agent {name} \"hook_event_name\":\"{stop_event}\""),
    ] {
        assert!(
            logged.contains(&want),
            "missing `{want}` in:\n{logged}\n{}",
            run.describe()
        );
    }
    assert!(sb.hook_errors(&[&run]).is_empty(), "{}", run.describe());
}

fn claude_two_homes_share_one_repository() {
    two_homes_share_one_repository(Agent::Claude, "claude_two_homes_share_one_repository");
}

fn codex_two_homes_share_one_repository() {
    two_homes_share_one_repository(Agent::Codex, "codex_two_homes_share_one_repository");
}

fn gemini_two_homes_share_one_repository() {
    two_homes_share_one_repository(Agent::Gemini, "gemini_two_homes_share_one_repository");
}

trials! {
    real: [
        claude_two_homes_share_one_repository,
        codex_two_homes_share_one_repository,
        gemini_two_homes_share_one_repository,
    ],
}
