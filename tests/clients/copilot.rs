//! End to end with the real GitHub Copilot CLI (pinned in tests/clients/package.json), offline
//! against the fake model server's Messages API (Copilot's `anthropic` provider type): the
//! shared scenarios of tests/support/src/scenarios.rs and record_scenarios.rs wherever Copilot CLI
//! has the mechanism, plus what is Copilot's own — a compaction that starts no session (the
//! handoff comes back with the next tool result), and `.claude/settings.json` hooks that Copilot
//! runs as well (the context still arrives once).
//! Needs node/npm and root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports them ignored.
//! The shared scenarios run for it from tests/clients/matrix.rs; this file holds its own tests.
use crate::support;

use crate::support::fake_server::Turn;
use crate::support::{clients, count_in, injected, Agent, RunOpts, Sandbox, Trust};
use serde_json::Value;

const STARTUP: &str = "handover: a previous session left a handoff for this repository.";
const AFTER_COMPACTION: &str = "handover: the context was just compacted";
/// The heading of the instruction section install writes (installer/src/edit/instructions.rs).
const INSTRUCTIONS: &str = "## Handover between sessions";

/// Copilot CLI compacts in the background from 80 % of the prompt limit, runs preCompact
/// (`trigger: auto`) and then no hook at all: no postCompact, no sessionStart. The handoff is
/// back with the first tool result after the compaction began (postToolUse), the earliest
/// point Copilot allows.
fn copilot_4_compaction_keeps_the_handoff() {
    if clients("copilot_4_compaction_keeps_the_handoff").is_none() {
        return;
    }
    let sb = Sandbox::new(Agent::Copilot, Trust::BypassFlag);
    sb.write_handoff();
    let run = sb.run(
        vec![
            // 33,000 of a 40,000 prompt limit: past 80 %, Copilot compacts before its next
            // request. The second command gives the compaction time to finish.
            Turn::shell("echo a big step").usage(33_000),
            Turn::shell("sleep 1; echo after the compaction").usage(5_000),
            Turn::text("Done after the compaction.").usage(5_200),
        ],
        RunOpts {
            client_env: vec![("COPILOT_PROVIDER_MAX_PROMPT_TOKENS", "40000".into())],
            ..RunOpts::prompt("Take one more big step.")
        },
    );
    assert!(
        injected(Agent::Copilot, run.first_request()).contains(STARTUP),
        "no startup context in the first request:\n{}",
        run.describe()
    );
    let compaction = run
        .requests
        .iter()
        .position(|r| r.compaction)
        .unwrap_or_else(|| panic!("Copilot did not compact:\n{}", run.describe()));
    let after: Vec<_> = run.requests[compaction + 1..]
        .iter()
        .filter(|r| !r.compaction)
        .collect();
    let last = after
        .last()
        .unwrap_or_else(|| panic!("no request after the compaction:\n{}", run.describe()));
    // The summary replaced the history (the first request's startup context is gone from it);
    // the handoff is back, once.
    let text = injected(Agent::Copilot, last);
    assert!(
        last.body_text().contains("summarized to free up context") || !text.contains(STARTUP),
        "the request after the compaction still holds the old history:\n{text}"
    );
    assert_eq!(
        count_in(last, AFTER_COMPACTION),
        1,
        "the handoff is not back exactly once after the compaction:\n{text}"
    );
    let snapshots = sb.journal_events("pre_compact");
    assert!(
        snapshots
            .iter()
            .any(|e| e.get("trigger").and_then(Value::as_str) == Some("auto")),
        "no pre_compact snapshot with trigger auto: {:?}",
        sb.journal()
    );
    assert_eq!(sb.hook_errors(&[&run]), Vec::<String>::new());
}

/// Copilot CLI also runs the hooks of `.claude/settings.json` (with `COPILOT_CLI=1` in their
/// environment). With `handover install --claude` and `--copilot` both in the repository, the
/// startup context still reaches the model once, one delivery is journaled, and the stop is
/// blocked at most once: the Claude Code entries recognise Copilot and stay silent.
fn copilot_10_context_once_with_claude_wiring_too() {
    if clients("copilot_10_context_once_with_claude_wiring_too").is_none() {
        return;
    }
    let mut sb = Sandbox::new(Agent::Claude, Trust::BypassFlag);
    sb.switch_agent(Agent::Copilot, Trust::Installed);
    assert!(
        sb.project.join(".claude/settings.json").is_file()
            && sb.project.join(".github/hooks/handover.json").is_file(),
        "both wirings should be installed"
    );
    // The user's own rules in CLAUDE.md (Copilot shows only byte-identical files once).
    let claude_md = sb.project.join("CLAUDE.md");
    let ours = std::fs::read_to_string(&claude_md).unwrap();
    std::fs::write(
        &claude_md,
        format!("# Project rules\nRun the linter.\n\n{ours}"),
    )
    .unwrap();
    sb.write_handoff();
    let run = sb.run(
        vec![
            Turn::shell("echo working").usage(2_000),
            Turn::text("Done.").usage(2_500),
        ],
        RunOpts::prompt("Continue the task."),
    );
    for r in run.conversation() {
        assert_eq!(
            count_in(r, STARTUP),
            1,
            "request {} does not carry the startup context exactly once:\n{}",
            r.n,
            injected(Agent::Copilot, r)
        );
    }
    // Copilot also reads CLAUDE.md, which has the section: install --copilot wrote no second
    // one into AGENTS.md, and the agent sees it once.
    let conversation = run.conversation();
    let first = conversation.first().expect("a request");
    assert_eq!(
        count_in(first, INSTRUCTIONS),
        1,
        "the handover instruction section is not in the request exactly once"
    );
    assert!(!sb.project.join("AGENTS.md").exists());
    let delivered = sb.journal_events("delivered");
    assert_eq!(
        delivered.len(),
        1,
        "expected one journaled delivery: {delivered:?}"
    );
    assert_eq!(
        delivered[0].get("agent").and_then(Value::as_str),
        Some("copilot")
    );
    // Both wirings ran: Copilot's calls answered, Claude Code's recognised Copilot.
    let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
    assert!(
        log.contains("agent=copilot event=sessionStart"),
        "our Copilot sessionStart hook did not run:\n{log}"
    );
    assert!(
        log.contains("agent=claude event=SessionStart")
            && log.contains("run by GitHub Copilot CLI"),
        "the Claude Code entry did not run under Copilot, or did not stay silent:\n{log}"
    );
    assert_eq!(sb.hook_errors(&[&run]), Vec::<String>::new());
}

/// Copilot CLI loads no repository hook in a folder the user has not trusted: `install
/// --copilot` alone runs nothing; `install --copilot --trust` records the folder in
/// `trustedFolders` of ~/.copilot/config.json (keeping the file's `//` comments and other
/// keys) and from then on our hooks run, with no bypass.
fn copilot_11_runs_our_hooks_only_in_a_trusted_folder() {
    use support::install_hooks;
    if clients("copilot_11_runs_our_hooks_only_in_a_trusted_folder").is_none() {
        return;
    }
    let sb = Sandbox::unwired(Agent::Copilot, Trust::Installed, "");
    let config = sb.home.join(".copilot/config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let before_text = "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"firstLaunchAt\": \"2026-11-25T15:51:11.822Z\"\n}\n";
    std::fs::write(&config, before_text).unwrap();
    let hooks_dir = sb.bins.session_start.parent().unwrap().to_path_buf();
    install_hooks(&sb, &hooks_dir, false);
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        before_text,
        "install wrote trust without --trust"
    );
    let before = sb.run(vec![Turn::text("Hello.")], RunOpts::prompt("Say hello."));
    let log = std::fs::read_to_string(before.dir.join("hooks.log")).unwrap_or_default();
    assert!(
        log.is_empty(),
        "Copilot CLI ran our hooks in an untrusted folder:\n{log}"
    );
    install_hooks(&sb, &hooks_dir, true);
    let after_text = std::fs::read_to_string(&config).unwrap();
    assert!(
        after_text.starts_with(
            "// User settings belong in settings.json.\n// This file is managed automatically.\n{"
        ) && after_text.contains("\"firstLaunchAt\": \"2026-11-25T15:51:11.822Z\"")
            && after_text.contains(&format!("\"{}\"", sb.project.display())),
        "install --trust did not add the folder byte-exactly:\n{after_text}"
    );
    let after = sb.run(vec![Turn::text("Hello.")], RunOpts::prompt("Say hello."));
    let log = std::fs::read_to_string(after.dir.join("hooks.log")).unwrap_or_default();
    for event in ["sessionStart", "userPromptSubmitted", "agentStop"] {
        assert!(
            log.contains(&format!("agent=copilot event={event}")),
            "after install --trust, no call of our {event} hook:\n{log}"
        );
    }
}

trials! {
    real: [
        copilot_4_compaction_keeps_the_handoff,
        copilot_10_context_once_with_claude_wiring_too,
        copilot_11_runs_our_hooks_only_in_a_trusted_folder,
    ],
}
