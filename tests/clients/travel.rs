//! End to end with the real Claude Code, Codex and Gemini CLI (pinned in tests/clients/package.json): a
//! handoff pushed from another machine (`handover push` in a second clone with its own HOME)
//! and fetched here (`handover pull`) reaches the client's first model request through the
//! SessionStart hook, verified and labelled as coming from that machine. Harness:
//! tests/support/. Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1 skips loudly.

use crate::support::fake_server::Turn;
use crate::support::{clients, injected_texts, Agent, RunOpts, Sandbox, Trust, HANDOFF};
use std::path::Path;
use std::process::Command;

#[test]
fn claude_remote_handoff_reaches_session_start() {
    if clients("claude_remote_handoff_reaches_session_start").is_some() {
        remote_handoff_reaches_session_start(Agent::Claude);
    }
}

#[test]
fn codex_remote_handoff_reaches_session_start() {
    if clients("codex_remote_handoff_reaches_session_start").is_some() {
        remote_handoff_reaches_session_start(Agent::Codex);
    }
}

#[test]
fn gemini_remote_handoff_reaches_session_start() {
    if clients("gemini_remote_handoff_reaches_session_start").is_some() {
        remote_handoff_reaches_session_start(Agent::Gemini);
    }
}

fn run(program: &Path, dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HANDOVER_MACHINE", "laptop")
        .env("GIT_AUTHOR_NAME", "E2E Test")
        .env("GIT_AUTHOR_EMAIL", "e2e@example.invalid")
        .env("GIT_COMMITTER_NAME", "E2E Test")
        .env("GIT_COMMITTER_EMAIL", "e2e@example.invalid")
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The project gets a bare remote; a second clone ("laptop", its own HOME) writes and pushes a
/// handoff; the project pulls it and starts a new session: the first model request carries
/// the goal with a verdict, labelled as coming from the laptop.
fn remote_handoff_reaches_session_start(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let git = Path::new("git");
    let remote = sb.root.join("remote.git");
    let laptop = sb.root.join("laptop");
    let laptop_home = sb.root.join("home-laptop");
    std::fs::create_dir_all(&laptop_home).unwrap();
    let project = sb.project.to_str().unwrap();
    run(
        git,
        &sb.root,
        &laptop_home,
        &["clone", "-q", "--bare", project, "remote.git"],
    );
    sb.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    sb.git(&["fetch", "-q", "origin"]);
    run(
        git,
        &sb.root,
        &laptop_home,
        &["clone", "-q", "remote.git", "laptop"],
    );
    let handover = &sb.bins.handover;
    run(
        handover,
        &laptop,
        &laptop_home,
        &["write", "--goal", HANDOFF.goal, "--next", HANDOFF.next],
    );
    let pushed = run(handover, &laptop, &laptop_home, &["push"]);
    assert!(pushed.contains("refs/handover/main"), "{pushed}");

    let pulled = sb.handover(&["pull"]);
    assert!(
        pulled.status.success(),
        "{}",
        String::from_utf8_lossy(&pulled.stderr)
    );
    assert!(!sb.project.join(".handover/state.json").exists());

    let session = sb.run(vec![Turn::text("Noted.")], RunOpts::prompt("Continue."));
    let texts = injected_texts(agent, session.first_request()).join("\n");
    for needle in [
        "handover: a session on another machine left a handoff for this branch (machine «laptop», pushed at ",
        "fetched from remote «origin»",
        "Verdict: ",
        &format!("Goal: {}", HANDOFF.goal),
        HANDOFF.next,
        "pull --adopt",
    ] {
        assert!(
            texts.contains(needle),
            "{}: the first request lacks {needle:?}:\n{texts}\n{}",
            agent.name(),
            session.describe()
        );
    }
    let errors = sb.hook_errors(&[&session]);
    assert!(errors.is_empty(), "{errors:?}");
}
