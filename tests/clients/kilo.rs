//! End to end with the real Kilo Code CLI (pinned in tests/clients/package.json), offline against
//! the fake model server's chat-completions wire: OpenCode's plugin as `handover install --kilo`
//! writes it into `.kilo/plugin/`, run by OpenCode's harness (tests/clients/opencode.rs) with
//! Kilo Code's places. Each moment is counted in the fake model's request log.
//!
//! A Kilo Code run costs about 10 s of CPU (against about 4 s for OpenCode's), so the moments
//! share sessions: startup fresh, drifted and stale; the record of a shell edit and the end of a
//! `run`, then the terminal UI told of it and SIGKILLed, and the next `run` told of that; the
//! automatic compaction, headless and in the terminal UI; the terminal UI's startup, `/compact`,
//! `/new` and `/exit`. docs/compatibility.md
//! says what the offline setup switches off and what is not covered. Needs node/npm, tmux and
//! root (`unshare -n`); HANDOVER_SKIP_E2E=1 reports them ignored.

use crate::clients::opencode::{
    assert_ran, compaction_moments_each_once, exit_ends_both_sessions,
    killed_after_the_quit_session_is_told, plugin_cost, quit_session_recorded, startup_compact_new,
    tui_compacts_by_itself, Host, OpenCodeBox, STARTUP,
};
use crate::support::clients;
use crate::support::fake_server::Turn;
use std::path::Path;

/// Kilo Code 7.7.9's places and offline switches.
static KILO: Host = Host {
    name: "kilo",
    display_name: "Kilo Code",
    binary: |c| &c.kilo,
    executable: "kilo",
    project_dir: ".kilo",
    user_dir: ".config/kilo",
    config_file: "kilo.json",
    // No permission prompt headless.
    run_args: &["--auto"],
    env: &[
        ("KILO_DISABLE_AUTOUPDATE", "1"),
        ("KILO_DISABLE_MODELS_FETCH", "1"),
        ("KILO_TELEMETRY_LEVEL", "off"),
        // What its own end-to-end harness sets: no background daemon, none of its bundled
        // plugins (provider logins).
        ("KILO_NO_DAEMON", "1"),
        ("KILO_DISABLE_DEFAULT_PLUGINS", "1"),
        // The terminal UI has no `--auto`: its runtime permission overlay lets the shell run
        // without asking (OpenCode's default).
        ("KILO_PERMISSION", r#"{"bash":"allow"}"#),
    ],
    plugin_sdk: no_sdk_install,
    ignored: KILO_GITIGNORE,
    tui_ready: TUI_READY,
};

/// The `.gitignore` Kilo Code 7.7.9 writes into a config folder.
const KILO_GITIGNORE: &str = "node_modules\npackage.json\npackage-lock.json\npnpm-lock.yaml\nbun.lock\nyarn.lock\n.gitignore\nagent-manager.json";

/// What Kilo Code's terminal UI shows once it waits for input.
const TUI_READY: &str = "ctrl+p";

/// `@kilocode/plugin` on the registry stops below the binary's version, so it cannot be put in
/// beforehand as OpenCode's is; an empty `node_modules/` beside a lock file that lists it is
/// taken for an install (the version is not compared), and Kilo Code skips its own.
fn no_sdk_install(_: &crate::support::Clients, dir: &Path) {
    std::fs::create_dir_all(dir.join("node_modules")).unwrap();
    let lock = serde_json::json!({
        "name": "kilo", "lockfileVersion": 3, "requires": true,
        "packages": {
            "": {"dependencies": {"@kilocode/plugin": "*"}},
            "node_modules/@kilocode/plugin": {"version": "7.7.9"}
        }
    });
    std::fs::write(dir.join("package-lock.json"), lock.to_string()).unwrap();
}

/// The startup context in every agent request of a session, once, its verdict following the
/// repository: fresh, drifted after a commit, stale on another branch.
fn kilo_startup_fresh_drifted_stale() {
    let Some(c) = clients("kilo_startup_fresh_drifted_stale") else {
        return;
    };
    let b = OpenCodeBox::of(&KILO, c, 200_000, 32_000);
    b.write_handoff();
    let fresh = b.run(
        c,
        vec![Turn::shell("true"), Turn::text("Noted.")],
        "Continue.",
    );
    assert_ran(&fresh);
    eprintln!("e2e kilo: a run took {:?}", fresh.time);
    assert_eq!(fresh.counts(STARTUP), [1, 1], "{}", fresh.describe());
    let first = fresh.agent_requests()[0].body_text();
    assert!(first.contains("Verdict: fresh"), "{}", fresh.describe());
    // It reads AGENTS.md, where install put the handover section.
    assert!(first.contains("<!-- handover:begin -->"), "{first}");
    assert!(fresh
        .hooks_log()
        .contains("event=SessionStart source=startup"));

    b.commit_file("src/csv.rs", "pub fn csv() {}\n", "Add the CSV writer");
    let drifted = b.run(c, vec![Turn::text("Noted.")], "Continue.");
    assert_ran(&drifted);
    assert_eq!(drifted.counts(STARTUP), [1], "{}", drifted.describe());
    let text = drifted.agent_requests()[0].body_text();
    assert!(
        text.contains("Verdict: drifted") && text.contains("HEAD moved"),
        "{}",
        drifted.describe()
    );

    b.git(&["checkout", "-q", "-b", "experiment"]);
    let stale = b.run(c, vec![Turn::text("Noted.")], "Continue.");
    assert_ran(&stale);
    assert_eq!(stale.counts(STARTUP), [1], "{}", stale.describe());
    let text = stale.agent_requests()[0].body_text();
    assert!(
        text.contains("Verdict: stale") && text.contains("experiment"),
        "{}",
        stale.describe()
    );
}

/// No handoff; three sessions, each after a shell edit and a failing command. `kilo run` quits:
/// its record holds the file, the failing command, the agent's last words and the end (Kilo
/// Code's `run` ends the session when it disposes the plugin), under Kilo Code's name, and the
/// shell got the session's id. The next session, in the terminal UI, is told that file, failure
/// and end in its first agent request; its turn ends (Stop writes the record) and Kilo Code is
/// SIGKILLed (no SessionEnd): the session after it is told its file, its failure, and that no
/// end was recorded.
fn kilo_record_quit_and_kill_after_a_shell_edit() {
    let Some(c) = clients("kilo_record_quit_and_kill_after_a_shell_edit") else {
        return;
    };
    let b = OpenCodeBox::of(&KILO, c, 200_000, 32_000);
    quit_session_recorded(&b, c, "HANDOVER_KILO_SESSION_ID");

    killed_after_the_quit_session_is_told(&b, c);
}

/// Automatic compaction at Kilo Code's point (OpenCode's rule: the context less the output
/// limit, 7,000 of 8,000 here), after a step that calls a tool: the reminder once before it, our
/// instructions in the summarizer's request once, the handoff back once in the first request
/// after it.
fn kilo_compaction_reminder_and_handoff_back() {
    let Some(c) = clients("kilo_compaction_reminder_and_handoff_back") else {
        return;
    };
    let b = OpenCodeBox::of(&KILO, c, 8_000, 1_000);
    b.write_handoff();
    let run = b.run(
        c,
        vec![
            Turn::shell("true").usage(3_000),
            Turn::shell("true").usage(5_000),
            // Unlike OpenCode, Kilo Code checks the point only before another step of the
            // same prompt: the step that reaches it calls a tool.
            Turn::shell("true").usage(7_500),
            Turn::text("Resumed."),
        ],
        "Run the tests.",
    );
    assert_ran(&run);
    eprintln!("e2e kilo: a run took {:?}", run.time);
    compaction_moments_each_once(&run);
}

/// The terminal UI: the startup context in the first agent request, once; `/compact` puts our
/// instructions into the summarizer's request and the next prompt's request carries the handoff
/// back once, without the startup context; `/new` starts a session whose first request has the
/// startup context again, once; `/exit` ends both sessions (SessionEnd once each, both records
/// say `session_end`).
fn kilo_tui_startup_compact_new_exit() {
    let Some(c) = clients("kilo_tui_startup_compact_new_exit") else {
        return;
    };
    let b = OpenCodeBox::of(&KILO, c, 200_000, 32_000);
    let tui = startup_compact_new(&b, c);
    exit_ends_both_sessions(&b, tui);
}

/// Automatic compaction in the terminal UI at Kilo Code's point (OpenCode's rule, 7,000 of
/// 8,000 here), the step that reaches it calling a tool (Kilo Code checks the point only before
/// another step of the same prompt): the reminder once before it, our instructions in the
/// summarizer's request once, the handoff back once in the first request after it.
fn kilo_tui_automatic_compaction() {
    let Some(c) = clients("kilo_tui_automatic_compaction") else {
        return;
    };
    let b = OpenCodeBox::of(&KILO, c, 8_000, 1_000);
    tui_compacts_by_itself(&b, c, Turn::shell("true"));
}

/// The plugin's cost in Kilo Code against no plugin: opencode_plugin_cost's method
/// (tests/clients/opencode.rs), with Kilo Code's places. A benchmark; figures in
/// docs/benchmarks.md.
///
///     HANDOVER_OPENCODE_BENCH_HOOKS=<release build dir> cargo test --test clients \
///         kilo_plugin_cost -- --ignored --nocapture
fn kilo_plugin_cost() {
    if let Some(c) = clients("kilo_plugin_cost") {
        plugin_cost(&KILO, c);
    }
}

trials! {
    real: [
        kilo_startup_fresh_drifted_stale @ 52,
        kilo_record_quit_and_kill_after_a_shell_edit @ 60,
        kilo_compaction_reminder_and_handoff_back @ 16,
        kilo_tui_startup_compact_new_exit @ 24,
        kilo_tui_automatic_compaction @ 22,
    ],
    ignored: [kilo_plugin_cost],
}
