//! Six end-to-end scenarios and a seventh (the Stop block), written once and run for each
//! client (tests/clients/claude.rs, tests/clients/codex.rs, tests/clients/gemini.rs), and the handoff
//! carried from one client to another. Each asserts on what the model was actually
//! sent (the fake server's request log), on the `.handover/` journal, and on the client's record of
//! hook errors.

use super::fake_server::Turn;
use super::*;

/// The first line of the save-progress instruction (first threshold), from handover_core::context.
pub const REMIND: &str = "Save your progress now";
/// The second threshold's wording.
const INSIST: &str = "compaction is near";
/// The Stop block's reason once the instruction was given (handover_core::context).
const STOP_AGAIN: &str = "and the handoff is not saved";
const STARTUP: &str = "handover: a previous session left a handoff for this repository.";
const AFTER_COMPACTION: &str = "handover: the context was just compacted";
const COMPACTION_INSTRUCTIONS: &str =
    "A handover handoff exists for this task. The summary must keep:";

/// Input tokens above the first threshold (60 %) and below the second (75 %) of the window.
/// Claude Code: `claude-opus-5-5` has a 1,000,000-token window (the `-p` JSON result says so, and
/// Claude Code compacts on its own only between 950,000 and 990,000): 650,000 is 65 %. Codex: the
/// rollout states `model_context_window` 258,400 for `gpt-5.5` (95 % of 272,000; a larger
/// configured window is capped to it), but at the first PostToolUse the rollout holds no
/// `token_count` yet (see docs/compatibility.md), so a hook may use a table value (`gpt-5` →
/// 272,000) instead: 170,000 is 62-66 % of either. Gemini CLI: gemini-2.5-pro's window is
/// 1,048,576 and Gemini compresses at 50 %, so the watch reminds at 35 % and insists at 45 %:
/// 400,000 is 38 %. Qwen Code: qwen3-coder-plus's window is 1,000,000 (its Stop input says so)
/// and it compacts from 85 %: 650,000 is 65 %. Copilot CLI: `claude-sonnet-4.5` has a prompt limit of 168,000 tokens in
/// Copilot 1.0.102 and Copilot compacts from 80 % of it (134,400): 110,000 is 65 %.
pub fn above_first_threshold(agent: Agent) -> u64 {
    match agent {
        Agent::Claude | Agent::Qwen => 650_000,
        Agent::Codex => 170_000,
        Agent::Gemini => 400_000,
        // Factory Droid compacts a custom model's context above 250,000 input tokens (its
        // default `compactionTokenLimit`): 160,000 is 64 % of that point.
        Agent::Droid => 160_000,
        Agent::Copilot => 110_000,
    }
}

/// How many requests after the one that follows the first high usage report our instruction may
/// first arrive. Codex writes a response's usage before it runs PostToolUse, Gemini CLI and Qwen
/// Code their reply before the next hook: none. Claude Code
/// writes the response to its transcript 10-50 ms after it starts the PostToolUse and Stop hooks,
/// and the hook never waits for it (docs/hooks.md, "When the measurement is taken"): one.
/// Copilot CLI writes its events.jsonl once no event came for 100 ms (the fake model takes
/// 300 ms per answer for it, as a real model takes longer than that: `answer_delay_ms`), so the
/// hook right after a response may measure the one before: one.
pub fn lateness(agent: Agent) -> usize {
    match agent {
        Agent::Claude | Agent::Copilot => 1,
        Agent::Codex | Agent::Gemini | Agent::Qwen | Agent::Droid => 0,
    }
}

/// The index of the first request carrying `needle` in `counts` (per request), checked to be
/// `due` or at most [`lateness`] requests later.
fn first_arrival(agent: Agent, counts: &[usize], due: usize, what: &str, run: &ClientRun) -> usize {
    let first = counts.iter().position(|c| *c > 0);
    match first {
        Some(i) if i >= due && i <= due + lateness(agent) => i,
        _ => panic!(
            "{what} must first arrive in request {} (at most {} later for {}); counts per request {counts:?}:\n{}",
            due + 1,
            lateness(agent),
            agent.name(),
            run.describe()
        ),
    }
}

/// Codex: the default window of `gpt-5.5`, and an auto-compaction limit above the usages of
/// scenarios 3 and 7.
const CODEX_HIGH_LIMIT: &str = "model_auto_compact_token_limit = 250000";

/// The last `n` characters (on a character boundary).
fn tail(s: &str, n: usize) -> &str {
    let start = s.char_indices().rev().nth(n).map(|(i, _)| i).unwrap_or(0);
    &s[start..]
}

fn assert_no_hook_errors(sb: &Sandbox, runs: &[&ClientRun]) {
    let errors = sb.hook_errors(runs);
    assert!(
        errors.is_empty(),
        "{} recorded hook errors:\n{}",
        sb.agent.name(),
        errors.join("\n")
    );
}

/// Only the texts of ours (they start with "handover:"), for readable messages and logs.
fn ours(agent: Agent, req: &super::fake_server::LoggedRequest) -> String {
    // Claude Code joins the hook texts and its own system text with blank lines; ours have none.
    let texts: Vec<String> = injected_texts(agent, req)
        .iter()
        .flat_map(|t| t.split("\n\n").map(str::to_string).collect::<Vec<_>>())
        .filter(|t| t.contains("handover:"))
        .collect();
    eprintln!(
        "e2e {}: request {} carries from handover:\n{}",
        agent.name(),
        req.n,
        texts.join("\n---\n")
    );
    if texts.is_empty() {
        "(no text of handover's)".to_string()
    } else {
        texts.join("\n---\n")
    }
}

fn assert_startup_context(agent: Agent, text: &str, verdict: &str) {
    for needle in [
        verdict,
        &format!("Goal: {}", HANDOFF.goal),
        "In progress:",
        HANDOFF.in_progress[0],
        HANDOFF.next,
        "Stop and ask the user if:",
        HANDOFF.stop_if[0],
        "handover.md",
    ] {
        assert!(
            text.contains(needle),
            "{}: the startup context lacks {needle:?}; the hooks injected:\n{text}",
            agent.name()
        );
    }
}

/// The data markers reach the model byte for byte: Gemini CLI and Qwen Code escape `<` and `>`
/// of a hook's context (docs/hooks.md), so the markers hold neither; nothing of ours arrives
/// escaped.
fn assert_markers_intact(agent: Agent, text: &str) {
    use handover_core::context::{DATA_END, DATA_START};
    for marker in [DATA_START, DATA_END] {
        assert!(
            text.lines().any(|l| l == marker),
            "{}: the marker line {marker:?} did not arrive as written; the hooks injected:\n{text}",
            agent.name()
        );
    }
    for entity in ["&lt;", "&gt;", "&amp;", "&quot;", "&#"] {
        assert!(
            !text.contains(entity),
            "{}: our text arrived with {entity:?} in it:\n{text}",
            agent.name()
        );
    }
}

/// Scenario 1: session 1's model writes a handoff through the client's shell tool; session 2
/// (a new session, not a resume) receives the startup context in its first model request.
pub fn handoff_reaches_next_session(agent: Agent, trust: Trust) {
    let sb = Sandbox::new(agent, trust);
    let write = sb.write_command(&HANDOFF);
    let s1 = sb.run(
        vec![
            Turn::shell(&write).usage(3_000),
            Turn::text("The handoff is saved.").usage(3_500),
        ],
        RunOpts::prompt("Save the state of the CSV export work for the next session."),
    );
    // Nothing to inject before the first handoff exists.
    assert!(
        !injected(agent, s1.first_request()).contains("handover:"),
        "session 1 got a startup context although no handoff existed"
    );
    // The model's tool call really ran handover: the result came back to the model.
    assert!(
        s1.conversation().len() >= 2,
        "the client did not send the tool result back:\n{}",
        s1.describe()
    );
    assert!(
        sb.project.join(".handover/state.json").is_file(),
        "the shell tool did not run `handover write`:\n{}",
        s1.describe()
    );
    assert_eq!(
        sb.journal_events("write").len(),
        1,
        "journal: {:?}",
        sb.journal()
    );

    // Session 2's model acknowledges the handoff, as the startup context asks it to.
    let ack = format!("{} ack", shell_quote(&sb.bins.handover.to_string_lossy()));
    let s2 = sb.run(
        vec![
            Turn::shell(&ack).usage(3_000),
            Turn::text("I have read the handoff and will continue.").usage(3_500),
        ],
        RunOpts::prompt("Continue the task."),
    );
    assert_ne!(
        s1.session_id(),
        s2.session_id(),
        "session 2 must be a new session"
    );
    let first = ours(agent, s2.first_request());
    assert!(
        first.contains(STARTUP),
        "no startup context in session 2's first request:\n{first}"
    );
    assert_startup_context(agent, &first, "Verdict: fresh");
    assert_markers_intact(agent, &first);
    // Within the default budget of 1,500 characters , whatever the client prefixes.
    let ours_only = &first[first.find("handover:").unwrap_or(0)..];
    assert!(
        ours_only.chars().count() <= 1_500,
        "the startup context is {} characters, over the 1,500 budget:\n{ours_only}",
        ours_only.chars().count()
    );
    // The hook recorded the delivery for session 2 (event name aside: "delivery"/"delivered").
    let journal = sb.journal();
    assert!(
        journal.iter().any(|d| {
            d.get("event")
                .and_then(Value::as_str)
                .is_some_and(|e| e.starts_with("deliver"))
                && d.get("session_id").and_then(Value::as_str) == Some(s2.session_id().as_str())
                && d.get("verdict").and_then(Value::as_str) == Some("fresh")
        }),
        "no delivery journal event for session 2 with verdict fresh: {journal:?}"
    );
    // The acknowledgement ran inside the client, which `handover ack` recognises.
    let acks = sb.journal_events("ack");
    assert_eq!(acks.len(), 1, "journal: {journal:?}");
    // Factory Droid 0.225.2 names itself nowhere in its shell tool's environment: it is
    // recognised by what its shell executor sets (handover_clients::droid).
    assert_eq!(
        acks[0].get("agent").and_then(Value::as_str),
        Some(agent.name()),
        "`handover ack` run by the client's shell tool did not detect the agent: {:?}",
        acks[0]
    );
    // `handover status` sees both halves: delivered, and acknowledged.
    let status = sb.handover(&["status", "--json"]);
    let report: Value = serde_json::from_slice(&status.stdout).unwrap_or_else(|e| {
        panic!(
            "handover status --json printed no JSON ({e}):\n{}",
            String::from_utf8_lossy(&status.stdout)
        )
    });
    let deliveries = report
        .pointer("/handoff/deliveries")
        .and_then(Value::as_u64);
    let acked = report.pointer("/handoff/acks").and_then(Value::as_u64);
    assert!(
        deliveries.is_some_and(|d| d >= 1) && acked == Some(1),
        "handover status does not count session 2's delivery and acknowledgement (deliveries {deliveries:?}, acks {acked:?}); journal events: {:?}",
        journal.iter().filter_map(|e| e.get("event")).collect::<Vec<_>>()
    );
    assert_no_hook_errors(&sb, &[&s1, &s2]);
}

/// Scenario 2: a commit lands between the sessions (drifted), then the branch changes (stale);
/// each next session's context carries the verdict and its reason. The handoff is written with
/// the CLI here (scenario 1 covers the shell-tool route).
pub fn drift_and_stale_are_reported(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    sb.write_handoff();
    let recorded_head = sb
        .git(&["rev-parse", "--short=7", "HEAD"])
        .trim()
        .to_string();

    sb.commit_file("src/csv.rs", "pub fn csv() {}\n", "Add the CSV writer");
    let drifted = sb.run(vec![Turn::text("Noted.")], RunOpts::prompt("Continue."));
    let text = ours(agent, drifted.first_request());
    assert_startup_context(agent, &text, "Verdict: drifted");
    assert!(
        text.contains("HEAD moved 1 commit ahead") && text.contains(&recorded_head),
        "the drifted verdict does not give its reason (1 commit ahead of {recorded_head}):\n{text}"
    );

    sb.git(&["checkout", "-q", "-b", "experiment"]);
    let stale = sb.run(vec![Turn::text("Noted.")], RunOpts::prompt("Continue."));
    let text = ours(agent, stale.first_request());
    assert_startup_context(agent, &text, "Verdict: stale");
    assert!(
        text.contains("branch «main»") && text.contains("experiment"),
        "the stale verdict does not name the branch change (main → experiment):\n{text}"
    );
    assert_no_hook_errors(&sb, &[&drifted, &stale]);
}

/// Scenario 3: the server reports usage above the first threshold; the next request carries the
/// save-progress instruction exactly once; once the model has written a handoff, no more (also
/// not in a resumed session that stays above the threshold).
pub fn save_progress_is_asked_once(agent: Agent) {
    let sb = Sandbox::with_codex_config(agent, Trust::BypassFlag, CODEX_HIGH_LIMIT);
    let high = above_first_threshold(agent);
    // The form the instruction itself recommends: `handover write --from -` with JSON on stdin.
    let write = sb.write_json_command(&HANDOFF);
    let s1 = sb.run(
        vec![
            Turn::shell("echo step one").usage(high),
            Turn::shell("echo step two").usage(high + 500),
            Turn::shell(&write).usage(high + 1_000),
            Turn::shell("echo step three").usage(high + 1_500),
            Turn::text("Done for now.").usage(high + 2_000),
        ],
        RunOpts {
            max_turns: 10,
            default_usage: high + 2_500,
            ..RunOpts::prompt("Work on the CSV export.")
        },
    );
    let reqs = s1.conversation();
    let counts: Vec<usize> = reqs.iter().map(|r| count_in(r, REMIND)).collect();
    assert!(
        reqs.len() >= 5,
        "expected 5 model requests, got {counts:?}:\n{}",
        s1.describe()
    );
    // Due in the request after the first high usage report (the second), once; it then stays
    // in the history: every later request carries that one copy.
    let first = first_arrival(agent, &counts, 1, "the save-progress instruction", &s1);
    assert!(
        counts.iter().skip(first).all(|c| *c == 1),
        "the instruction was injected again (counts per request {counts:?})"
    );
    assert!(
        reqs.iter().all(|r| count_in(r, INSIST) == 0),
        "the second-threshold wording appeared below the second threshold"
    );
    // The heredoc reached `handover write` intact through the client's shell tool.
    let state: Value = std::fs::read_to_string(sb.project.join(".handover/state.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| {
            panic!(
                "the model's `handover write --from -` did not run:\n{}",
                s1.describe()
            )
        });
    assert_eq!(
        state.get("goal").and_then(Value::as_str),
        Some(HANDOFF.goal)
    );
    assert_eq!(
        state.get("next_action").and_then(Value::as_str),
        Some(HANDOFF.next)
    );

    // A later session on the same conversation, still above the threshold: the handoff is
    // written, so nothing new is injected (the one copy in the history stays).
    let s2 = sb.run(
        vec![
            Turn::shell("echo step four").usage(high + 3_000),
            Turn::text("Continuing.").usage(high + 3_500),
        ],
        RunOpts {
            default_usage: high + 4_000,
            ..RunOpts::prompt("Go on.").resume(&s1.session_id())
        },
    );
    // Gemini CLI 0.61.0 sends each tool result of a resumed session twice (two
    // `functionResponse` parts with the same id in the request log), so the one copy in the
    // history shows twice there.
    let history_copies = match agent {
        Agent::Gemini => 2,
        Agent::Claude | Agent::Codex | Agent::Qwen | Agent::Copilot | Agent::Droid => 1,
    };
    for r in s2.conversation() {
        assert!(
            count_in(r, REMIND) <= history_copies,
            "the save-progress instruction came back after the handoff was written (request {})",
            r.n
        );
    }
    assert_no_hook_errors(&sb, &[&s1, &s2]);
}

/// A first session whose model saves the handoff through the shell tool and stops: the
/// history the compaction scenarios then resume.
fn handoff_saved_in_a_short_session(sb: &Sandbox) -> ClientRun {
    let write = sb.write_command(&HANDOFF);
    sb.run(
        vec![
            Turn::shell(&write).usage(4_000),
            Turn::text("Saved.").usage(4_500),
        ],
        RunOpts::prompt("Save the state of the work."),
    )
}

/// Scenario 4 (Claude Code): `/compact` on a resumed session. The journal holds the PreCompact
/// snapshot, the compaction request carries our instructions, and the first request after the
/// compaction carries the handoff again.
pub fn compaction_claude() {
    let agent = Agent::Claude;
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = handoff_saved_in_a_short_session(&sb);
    let sid = s1.session_id();
    let compact = sb.run(vec![], RunOpts::prompt("/compact").resume(&sid));
    let creqs = compact.compaction_requests();
    assert!(
        !creqs.is_empty(),
        "no compaction request reached the server:\n{}",
        compact.describe()
    );
    // The summarization prompt is the last user message; PreCompact's stdout is appended to it.
    let prompt = creqs[0]
        .body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .map(|m| m.to_string())
        .unwrap_or_default();
    assert!(
        prompt.contains(COMPACTION_INSTRUCTIONS) && prompt.contains(HANDOFF.goal),
        "the compaction request lacks our instructions (PreCompact stdout); its prompt ends:\n{}",
        tail(&prompt, 1500)
    );
    let snapshots = sb.journal_events("pre_compact");
    assert!(
        snapshots.iter().any(
            |e| e.get("session_id").and_then(Value::as_str) == Some(sid.as_str())
                && e.get("trigger").and_then(Value::as_str) == Some("manual")
        ),
        "no pre_compact snapshot for the session in the journal: {:?}",
        sb.journal()
    );
    let after = sb.run(
        vec![Turn::text("Back to work.")],
        RunOpts::prompt("Continue.").resume(&sid),
    );
    let text = ours(agent, after.first_request());
    assert!(
        text.contains(AFTER_COMPACTION),
        "the first request after the compaction does not carry the handoff again:\n{text}"
    );
    assert_startup_context(agent, &text, "Verdict: fresh");
    assert_no_hook_errors(&sb, &[&s1, &compact, &after]);
}

/// Scenario 4 (Codex): auto-compaction forced by a low `model_auto_compact_token_limit`.
pub fn compaction_codex() {
    let agent = Agent::Codex;
    let sb = Sandbox::with_codex_config(
        agent,
        Trust::BypassFlag,
        "model_auto_compact_token_limit = 20000\nmodel_context_window = 100000",
    );
    let write = sb.write_command(&HANDOFF);
    // Reports 30,000 input tokens with the tool call: above the limit, so Codex compacts before
    // its next request. Everything after reports little, or Codex would compact again.
    let run = sb.run(
        vec![
            Turn::shell(&write).usage(30_000),
            Turn::text("Continuing after the compaction.").usage(2_000),
        ],
        RunOpts {
            default_usage: 1_000,
            ..RunOpts::prompt("Save the state of the work, then go on.")
        },
    );
    let compactions = run.compaction_requests();
    assert_eq!(
        compactions.len(),
        1,
        "expected one compaction:\n{}",
        run.describe()
    );
    let snapshots = sb.journal_events("pre_compact");
    assert!(
        snapshots
            .iter()
            .any(|e| e.get("trigger").and_then(Value::as_str) == Some("auto")),
        "no pre_compact snapshot (trigger auto) in the journal: {:?}",
        sb.journal()
    );
    let next = run
        .conversation()
        .into_iter()
        .find(|r| r.n > compactions[0].n)
        .unwrap_or_else(|| panic!("no request after the compaction:\n{}", run.describe()));
    let text = ours(agent, next);
    assert!(
        text.contains(AFTER_COMPACTION),
        "the first request after the compaction does not carry the handoff again:\n{text}"
    );
    assert_startup_context(agent, &text, "Verdict: fresh");
    assert_no_hook_errors(&sb, &[&run]);
}

/// The run of every automatic-compaction scenario: the session `s1` resumed, its first tool
/// call reporting `big` input tokens (past the client's compaction point), then one more tool
/// call at `usage` and a closing text; the client's own requests (its summary) report
/// `default_usage`. `word` is what the client calls it (compaction, compression).
pub fn big_step_resumed(
    sb: &Sandbox,
    s1: &ClientRun,
    (big, usage, default_usage): (u64, u64, u64),
    word: &str,
) -> ClientRun {
    sb.run(
        vec![
            Turn::shell("echo a big step").usage(big),
            Turn::shell(&format!("echo after the {word}")).usage(usage),
            Turn::text(&format!("Continuing after the {word}.")).usage(usage + 500),
        ],
        RunOpts {
            default_usage,
            ..RunOpts::prompt("Go on.").resume(&s1.session_id())
        },
    )
}

/// Scenario 4 (Gemini CLI): an automatic compression, forced by a tool call that reports
/// 600,000 input tokens (57 % of 1,048,576, past Gemini's 50 %). PreCompress, which Gemini fires
/// before every request, journals the snapshot only before that one; Gemini tells hooks nothing
/// after compressing, so the handoff comes back at the next hook that can carry context: the
/// next tool result.
pub fn compaction_gemini() {
    let agent = Agent::Gemini;
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = handoff_saved_in_a_short_session(&sb);
    // Resumed, so that there is history to compress (with a single exchange Gemini CLI finds
    // nothing to compress and skips it).
    let run = big_step_resumed(&sb, &s1, (600_000, 5_000, 5_000), "compression");
    let compactions = run.compaction_requests();
    assert_eq!(
        compactions.len(),
        2,
        "expected one compression (a summary and its verification):\n{}",
        run.describe()
    );
    let snapshots = sb.journal_events("pre_compact");
    assert_eq!(
        snapshots.len(),
        1,
        "PreCompress must journal only the real compression, not every request: {:?}",
        sb.journal()
    );
    assert_eq!(
        snapshots[0].get("trigger").and_then(Value::as_str),
        Some("auto")
    );
    let after = run.conversation_after(compactions[1]);
    assert_eq!(after.len(), 2, "{}", run.describe());
    // The request right after the compression carries nothing new; the one after the next
    // tool call carries the handoff again, once.
    assert!(!ours(agent, after[0]).contains(AFTER_COMPACTION));
    let text = ours(agent, after[1]);
    assert!(
        text.contains(AFTER_COMPACTION),
        "the tool result after the compression does not carry the handoff again:\n{text}"
    );
    assert_eq!(count_in(after[1], AFTER_COMPACTION), 1);
    assert_startup_context(agent, &text, "Verdict: fresh");
    assert_no_hook_errors(&sb, &[&s1, &run]);
}

/// Scenario 4 (Qwen Code): an automatic compaction, forced by a tool call that reports 900,000
/// input tokens (90 % of qwen3-coder-plus's 1,000,000, past Qwen Code's 85 %) in a resumed
/// session. PreCompact's `additionalContext` joins the summarizer's instructions. Qwen Code
/// 0.24.4 restores the session's startup context (the handoff) in the system prompt of the very
/// next request, and fires SessionStart `compact` without waiting for it: that context replaces
/// the startup context from the request after (here: after one more tool call).
pub fn compaction_qwen() {
    let agent = Agent::Qwen;
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let s1 = handoff_saved_in_a_short_session(&sb);
    let run = big_step_resumed(&sb, &s1, (900_000, 5_000, 5_000), "compaction");
    let compactions = run.compaction_requests();
    assert_eq!(
        compactions.len(),
        1,
        "expected one compaction:\n{}",
        run.describe()
    );
    let summarizer = compactions[0].body_text();
    assert!(
        summarizer.contains(COMPACTION_INSTRUCTIONS) && summarizer.contains(HANDOFF.goal),
        "the compaction request lacks our instructions (PreCompact additionalContext):\n{}",
        tail(&summarizer, 1500)
    );
    let snapshots = sb.journal_events("pre_compact");
    assert!(
        snapshots
            .iter()
            .any(|e| e.get("trigger").and_then(Value::as_str) == Some("auto")),
        "no pre_compact snapshot (trigger auto) in the journal: {:?}",
        sb.journal()
    );
    let after = run.conversation_after(compactions[0]);
    assert_eq!(after.len(), 2, "{}", run.describe());
    // The very next request: the handoff as delivered at the session's start, restored by Qwen.
    let first = ours(agent, after[0]);
    assert_startup_context(agent, &first, "Verdict: fresh");
    // From the one after: the compaction's own context, once.
    let text = ours(agent, after[1]);
    assert!(
        text.contains(AFTER_COMPACTION),
        "the second request after the compaction does not carry the handoff again:\n{text}"
    );
    assert_eq!(count_in(after[1], AFTER_COMPACTION), 1);
    assert_startup_context(agent, &text, "Verdict: fresh");
    assert_no_hook_errors(&sb, &[&s1, &run]);
}

/// Scenario 5: no handoff in the repository: nothing is injected, no file appears, and the client
/// records no hook error although every hook ran.
pub fn nothing_without_handoff(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    let run = sb.run(
        vec![
            Turn::shell("echo working").usage(2_000),
            Turn::text("Done.").usage(2_500),
        ],
        RunOpts::prompt("Do a small task."),
    );
    for r in run.conversation() {
        let text = injected(agent, r);
        // Claude Code labels hook context ("SessionStart hook additional context: ...",
        // "PostToolUse:Bash hook ..."); every text of ours starts with "handover:".
        for needle in ["handover:", "hook additional context", "hook success"] {
            assert!(
                !text.contains(needle),
                "request {} got hook context ({needle:?}):\n{text}",
                r.n
            );
        }
    }
    // The hooks' only file is the session record, invisible to git.
    let created: Vec<String> = std::fs::read_dir(sb.project.join(".handover"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        created.iter().all(|n| n == "records"),
        "a hook created more than the session record in .handover/: {created:?}"
    );
    let status = sb.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(
        !status.contains(".handover"),
        "the session record shows in git status: {status}"
    );
    assert_no_hook_errors(&sb, &[&run]);
    // Prove the hooks were wired and ran (silence must not come from hooks never running).
    match agent {
        Agent::Claude => {
            let ran = sb.claude_transcript_lines().iter().any(|l| {
                l.get("subtype").and_then(Value::as_str) == Some("stop_hook_summary")
                    && l.to_string().contains("handover-context-watch")
            });
            assert!(ran, "the transcript shows no run of our Stop hook");
        }
        Agent::Codex => {
            let out = format!("{}\n{}", run.stderr, run.stdout);
            for event in ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"] {
                assert!(
                    out.contains(&format!("hook: {event} Completed")),
                    "codex did not report our {event} hook as completed:\n{out}"
                );
            }
        }
        Agent::Droid => {
            // Droid records every hook run in its transcript; under `exec` it fires no
            // UserPromptSubmit (docs/compatibility.md).
            let ran = droid::hook_events(&sb.home);
            for event in ["SessionStart", "PostToolUse", "Stop", "SessionEnd"] {
                assert!(
                    ran.iter().any(|e| e == event),
                    "Droid's transcript shows no run of our {event} hook: {ran:?}"
                );
            }
        }
        Agent::Copilot => {
            // Copilot CLI records every hook call in events.jsonl (`hook.end`); ours are the
            // ones from `.github/hooks/handover.json`. Our debug log shows each call.
            let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
            for event in [
                "sessionStart",
                "userPromptSubmitted",
                "postToolUse",
                "agentStop",
            ] {
                assert!(
                    log.contains(&format!("agent=copilot event={event}")),
                    "no call of our {event} hook in the debug log:\n{log}"
                );
            }
        }
        Agent::Gemini => {
            // Gemini CLI records nothing about hooks that succeed: our debug log does.
            let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
            for event in [
                "SessionStart",
                "BeforeAgent",
                "PreCompress",
                "AfterTool",
                "AfterAgent",
            ] {
                assert!(
                    log.contains(&format!("agent=gemini event={event}")),
                    "no call of our {event} hook in the debug log:\n{log}"
                );
            }
        }
        Agent::Qwen => {
            // Qwen Code records nothing about hooks that succeed either.
            let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
            for event in ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"] {
                assert!(
                    log.contains(&format!("agent=qwen event={event}")),
                    "no call of our {event} hook in the debug log:\n{log}"
                );
            }
        }
    }
}

/// Scenario 6: `.handover/state.json` is corrupted: the session starts normally and the context
/// says the handoff was recovered (the journal still holds the written handoff) — never a hook
/// error.
pub fn corrupted_state_is_recovered(agent: Agent) {
    let sb = Sandbox::new(agent, Trust::BypassFlag);
    sb.write_handoff();
    let state = sb.project.join(".handover/state.json");
    let original = std::fs::read_to_string(&state).expect("state.json written");
    // Cut in the middle, as a crash or a bad merge would leave it.
    std::fs::write(&state, &original[..original.len() / 2]).expect("corrupt state.json");

    let run = sb.run(
        vec![Turn::text("Understood.")],
        RunOpts::prompt("Continue the task."),
    );
    let text = ours(agent, run.first_request());
    assert!(
        text.contains("handover:") && text.to_lowercase().contains("recovered"),
        "the context does not say the handoff was recovered:\n{text}"
    );
    assert!(
        text.contains(HANDOFF.goal),
        "the recovered handoff's goal is missing:\n{text}"
    );
    assert!(
        run.conversation().len() == 1 && run.stdout.contains("Understood."),
        "the session did not run normally:\n{}",
        run.describe()
    );
    assert_no_hook_errors(&sb, &[&run]);
}

/// Input tokens above the second threshold (75 %): Claude 800,000 of 1,000,000 (80 %, below
/// where Claude Code compacts by itself); Codex 210,000 of 258,400 or 272,000 (77-81 %, see
/// [`above_first_threshold`]).
fn above_second_threshold(agent: Agent) -> u64 {
    match agent {
        Agent::Claude => 800_000,
        Agent::Codex => 210_000,
        // 46.7 % of 1,048,576: past the 45 % Gemini threshold, below its 50 % compression.
        Agent::Gemini => 490_000,
        // 80 % of Droid's 250,000-token compaction point.
        Agent::Droid => 200_000,
        // 80 % of 1,000,000: below Qwen Code's 85 %.
        Agent::Qwen => 800_000,
        // 76.2 % of Copilot's 168,000 prompt limit, below its compaction from 80 %.
        Agent::Copilot => 128_000,
    }
}

/// The seventh scenario: above the second threshold, the firmer instruction arrives once, and a
/// model that then tries to stop without a handoff is sent back once with it (the Stop hook's
/// block); after it wrote the handoff, it stops normally.
///
/// The usage jumps past both thresholds with the first answer. Two tool calls come before the
/// model's attempt to stop, so that the Stop hook finds a high usage on disk: Claude Code 2.1.330
/// writes a response to its transcript 10-50 ms after it starts that response's hooks, the
/// hook never waits for it (docs/hooks.md), and the fake model answers within milliseconds,
/// where a real one takes seconds.
pub fn stop_is_blocked_once_above_second_threshold(agent: Agent) {
    let sb = Sandbox::with_codex_config(agent, Trust::BypassFlag, CODEX_HIGH_LIMIT);
    let high = above_second_threshold(agent);
    let write = sb.write_command(&HANDOFF);
    let run = sb.run(
        vec![
            Turn::shell("echo step one").usage(high),
            Turn::shell("echo step two").usage(high + 250),
            Turn::text("I am done for now.").usage(high + 500),
            Turn::shell(&write).usage(high + 1_000),
            Turn::text("The handoff is saved; stopping.").usage(high + 1_500),
        ],
        RunOpts {
            max_turns: 8,
            default_usage: high + 2_000,
            ..RunOpts::prompt("Work on the CSV export.")
        },
    );
    let reqs = run.conversation();
    let counts: Vec<usize> = reqs.iter().map(|r| count_in(r, INSIST)).collect();
    // Claude Code puts one Stop block's reason twice into the next request ("Stop hook
    // feedback:" as a user message and "Stop hook blocking error ..." as a system message);
    // Codex once; Gemini CLI once (AfterAgent's reason becomes the next prompt); Qwen Code once
    // (a user text).
    let per_block = match agent {
        Agent::Claude => 2,
        Agent::Codex | Agent::Gemini | Agent::Qwen | Agent::Copilot | Agent::Droid => 1,
    };
    assert_eq!(
        reqs.len(),
        5,
        "expected 5 requests: two tool calls, the attempt to stop, the handoff, the stop \
         (counts of the second-threshold text per request {counts:?}):\n{}",
        run.describe()
    );
    // The instruction is due in the request after the first tool call; then one Stop block;
    // then a normal stop.
    let first = first_arrival(agent, &counts, 1, "the firmer instruction", &run);
    // The block points back to the instruction instead of repeating it (no second full copy).
    let again: Vec<usize> = reqs.iter().map(|r| count_in(r, STOP_AGAIN)).collect();
    assert!(
        counts[first..].iter().all(|c| *c == 1)
            && again[..3].iter().all(|c| *c == 0)
            && again[3..] == [per_block; 2],
        "expected: nothing, the instruction once, one short Stop block, then a normal stop \
         (per request: second-threshold text {counts:?}, Stop block {again:?}):\n{}",
        run.describe()
    );
    assert!(
        sb.project.join(".handover/state.json").is_file(),
        "the model's handover write did not run"
    );
    assert_no_hook_errors(&sb, &[&run]);
}

/// The seventh scenario for a client whose Stop is never blocked (Gemini CLI shows any
/// AfterAgent block as "This request failed"): above the second threshold the firmer
/// instruction arrives once and the model's stop goes through, with no block and no second
/// copy. The ask that follows with the next prompt is checked in the terminal UI
/// (`interactive_gemini_context_watch`): a headless `--resume` rewrites the history the way a
/// compression does, and the watch then says nothing until the next usage figure.
pub fn stop_is_never_blocked(agent: Agent) {
    let sb = Sandbox::with_codex_config(agent, Trust::BypassFlag, CODEX_HIGH_LIMIT);
    let high = above_second_threshold(agent);
    let run = sb.run(
        vec![
            Turn::shell("echo step one").usage(high),
            Turn::shell("echo step two").usage(high + 250),
            Turn::text("I am done for now.").usage(high + 500),
        ],
        RunOpts {
            max_turns: 8,
            default_usage: high + 600,
            ..RunOpts::prompt("Work on the CSV export.")
        },
    );
    let reqs = run.conversation();
    let insist: Vec<usize> = reqs.iter().map(|r| count_in(r, INSIST)).collect();
    let again: Vec<usize> = reqs.iter().map(|r| count_in(r, STOP_AGAIN)).collect();
    assert_eq!(
        reqs.len(),
        3,
        "expected 3 requests (two tool calls, the stop, no block after it); second-threshold \
         text per request {insist:?}, ask again {again:?}:\n{}",
        run.describe()
    );
    let first = first_arrival(agent, &insist, 1, "the firmer instruction", &run);
    assert!(
        insist[first..].iter().all(|c| *c == 1) && again.iter().all(|c| *c == 0),
        "expected the firmer instruction once and no block (per request: {insist:?}, \
         ask again {again:?}):\n{}",
        run.describe()
    );
    let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
    assert!(
        log.contains("stop not blocked: this client shows a block as a failed request"),
        "the watch did not decide against the block:\n{log}"
    );
    assert_no_hook_errors(&sb, &[&run]);
}

/// Cross-agent: session 1 in `from` writes the handoff through its shell tool; the repository
/// is then wired for `to` as well, and `to`'s first session receives the startup context
/// (verdict fresh: same repository, same `.handover/`).
pub fn handoff_crosses_agents(from: Agent, to: Agent) {
    let mut sb = Sandbox::new(from, Trust::BypassFlag);
    let write = sb.write_command(&HANDOFF);
    let s1 = sb.run(
        vec![
            Turn::shell(&write).usage(3_000),
            Turn::text("The handoff is saved.").usage(3_500),
        ],
        RunOpts::prompt("Save the state of the CSV export work for the next session."),
    );
    let written = sb.journal_events("write");
    assert_eq!(written.len(), 1, "journal: {:?}", sb.journal());
    assert_eq!(
        written[0].pointer("/handoff/agent").and_then(Value::as_str),
        Some(from.name()),
        "the handoff was not written from {}: {:?}",
        from.name(),
        written[0]
    );
    assert_no_hook_errors(&sb, &[&s1]);

    sb.switch_agent(to, Trust::Installed);
    let s2 = sb.run(
        vec![Turn::text("I have read the handoff and will continue.").usage(3_000)],
        RunOpts::prompt("Continue the task."),
    );
    let first = ours(to, s2.first_request());
    assert!(
        first.contains(STARTUP),
        "{} did not receive the handoff {} wrote:\n{first}",
        to.name(),
        from.name()
    );
    assert_startup_context(to, &first, "Verdict: fresh");
    let journal = sb.journal();
    assert!(
        journal.iter().any(|d| {
            d.get("event").and_then(Value::as_str) == Some("delivered")
                && d.get("agent").and_then(Value::as_str) == Some(to.name())
        }),
        "no delivery to {} in the journal: {journal:?}",
        to.name()
    );
    assert_no_hook_errors(&sb, &[&s2]);
}
