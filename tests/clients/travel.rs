//! End to end with the real Claude Code, Codex and Gemini CLI (pinned in tests/clients/package.json): a
//! handoff pushed from another machine (`handover push` in a second clone with its own HOME)
//! and fetched here (`handover pull`) reaches the client's first model request through the
//! SessionStart hook, verified and labelled as coming from that machine. Harness:
//! tests/support/. Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports them
//! ignored.

use crate::support::fake_server::Turn;
use crate::support::{clients, injected_texts, Agent, RunOpts, Sandbox, Trust, HANDOFF};
use std::path::Path;
use std::process::Command;

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
pub(crate) fn remote_handoff_reaches_session_start(agent: Agent) {
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

/// The work travels with the handoff, with the real Claude Code on the receiving machine. The
/// laptop (a second clone with its own HOME) edits a tracked file and adds an untracked one,
/// writes a handoff and pushes it without its work: the project's first model request says
/// where that work is, and the handoff is not called drifted. Then the laptop pushes with
/// `--with-changes`, the project applies it (`pull --adopt --apply`): the files are byte-identical
/// to the laptop's, and the next session's first request gets the handoff fresh, naming the work.
fn claude_travelled_work_arrives_fresh_and_work_left_behind_is_located() {
    if clients("claude_travelled_work_arrives_fresh_and_work_left_behind_is_located").is_none() {
        return;
    }
    let agent = Agent::Claude;
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let git = Path::new("git");
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
    let remote = sb.root.join("remote.git");
    sb.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    sb.git(&["fetch", "-q", "origin"]);
    run(
        git,
        &sb.root,
        &laptop_home,
        &["clone", "-q", "remote.git", "laptop"],
    );
    let edited =
        "pub fn report() {}\n\npub fn csv_row(cells: &[&str]) -> String {\n    todo!()\n}\n";
    std::fs::write(laptop.join("src/report.rs"), edited).unwrap();
    std::fs::write(laptop.join("src/csv.rs"), "// quoting rules go here\n").unwrap();
    let handover = &sb.bins.handover;
    run(
        handover,
        &laptop,
        &laptop_home,
        &["write", "--goal", HANDOFF.goal, "--next", HANDOFF.next],
    );
    let pushed = run(handover, &laptop, &laptop_home, &["push"]);
    assert!(
        pushed.contains("2 uncommitted files stay on this machine («src/csv.rs», «src/report.rs»)"),
        "{pushed}"
    );
    let pulled = sb.handover(&["pull"]);
    assert!(
        pulled.status.success(),
        "{}",
        String::from_utf8_lossy(&pulled.stderr)
    );

    let first = sb.run(vec![Turn::text("Noted.")], RunOpts::prompt("Continue."));
    let texts = injected_texts(agent, first.first_request()).join("\n");
    for needle in [
        "Verdict: fresh (branch and HEAD match; 2 files listed as uncommitted on «laptop»; not in this checkout)",
        &format!("Goal: {}", HANDOFF.goal),
    ] {
        assert!(
            texts.contains(needle),
            "the first request lacks {needle:?}:\n{texts}\n{}",
            first.describe()
        );
    }
    assert!(!texts.contains("committed or reverted"), "{texts}");

    // Now with the work.
    run(
        handover,
        &laptop,
        &laptop_home,
        &["write", "--goal", HANDOFF.goal, "--next", HANDOFF.next],
    );
    let pushed = run(handover, &laptop, &laptop_home, &["push", "--with-changes"]);
    assert!(pushed.contains("modified «src/report.rs»"), "{pushed}");
    let applied = sb.handover(&["pull", "--adopt", "--apply"]);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    for file in ["src/report.rs", "src/csv.rs"] {
        assert_eq!(
            std::fs::read(sb.project.join(file)).unwrap(),
            std::fs::read(laptop.join(file)).unwrap(),
            "{file} is not the laptop's"
        );
    }
    let second = sb.run(vec![Turn::text("Noted.")], RunOpts::prompt("Continue."));
    let texts = injected_texts(agent, second.first_request()).join("\n");
    for needle in [
        "Verdict: fresh (branch, HEAD and files match)",
        &format!("Goal: {}", HANDOFF.goal),
        HANDOFF.next,
    ] {
        assert!(
            texts.contains(needle),
            "the first request lacks {needle:?}:\n{texts}\n{}",
            second.describe()
        );
    }
    let errors = sb.hook_errors(&[&first, &second]);
    assert!(errors.is_empty(), "{errors:?}");
}

trials! {
    real: [
        claude_travelled_work_arrives_fresh_and_work_left_behind_is_located,
    ],
}
