//! The real-client matrix: every scenario shared by the clients, run for every client of the
//! registry (`handover_clients::ALL`) it applies to, one trial each, named
//! `clients::<client>::<scenario>`. A client added to the registry appears here by itself (unless
//! [`OWN_FILE_ONLY`] names it): in
//! every scenario that is not limited to named clients, and as a failing trial until the
//! harness knows how to run it (`harness_agent`).
//!
//! This binary runs on libtest-mimic (`harness = false`) rather than `#[test]`: a trial that
//! needs the real clients while `HANDOVER_SKIP_E2E=1` is set is reported `ignored`, with the
//! reason, where libtest could only report it `ok`.

use crate::support::{self, record_scenarios, scenarios, Agent, Trust, SKIP_ENV};
use libtest_mimic::{Completion, Trial};

/// A trial that runs the real clients: `ignored`, saying why, when they are skipped; otherwise
/// it runs (and a missing client fails it, as `support::clients` says how to fix).
pub(crate) fn real(name: String, run: impl FnOnce() + Send + 'static) -> Trial {
    let timed = name.clone();
    Trial::ignorable_test(name, move || {
        if support::skipped() {
            return Ok(Completion::ignored_with(format!(
                "{SKIP_ENV}=1: the real clients did not run"
            )));
        }
        timing(&timed, run);
        Ok(Completion::Completed)
    })
}

/// A trial that needs no real client: it runs even when they are skipped.
pub(crate) fn plain(name: String, run: fn()) -> Trial {
    let timed = name.clone();
    Trial::test(name, move || {
        timing(&timed, run);
        Ok(())
    })
}

/// Set to print each trial's wall time to stderr (`trial <name> <seconds>`), to find where the
/// binary's time goes; `sort -k3 -n` over the lines lists the slowest.
const TIMES_ENV: &str = "HANDOVER_TRIAL_TIMES";

/// Runs one trial, printing its wall time when [`TIMES_ENV`] is set (also when it panics, so a
/// timed-out trial shows its time).
fn timing(name: &str, run: impl FnOnce()) {
    struct Printer<'a>(&'a str, std::time::Instant);
    impl Drop for Printer<'_> {
        fn drop(&mut self) {
            eprintln!("trial {} {:.2}", self.0, self.1.elapsed().as_secs_f64());
        }
    }
    let _printer = std::env::var_os(TIMES_ENV).map(|_| Printer(name, std::time::Instant::now()));
    run();
}

/// A real-client trial that runs only when asked for (`--ignored`, `--include-ignored`).
pub(crate) fn ignored(name: String, run: fn()) -> Trial {
    real(name, run).with_ignored_flag(true)
}

/// Which clients of the registry a scenario runs for.
enum Clients {
    Every,
    Except(&'static [&'static str]),
    Only(&'static [&'static str]),
}

struct Scenario {
    name: &'static str,
    clients: Clients,
    run: fn(Agent),
}

/// How a headless session may run the project's hooks: Claude Code and Qwen Code have no trust
/// step; every other client is installed with `handover install --trust` and no bypass (Codex;
/// Gemini CLI: the folder in ~/.gemini/trustedFolders.json; Copilot CLI: `trustedFolders` of
/// ~/.copilot/config.json, without which it loads no repository hooks; Factory Droid: `droid
/// exec` has no trust step, its folder trust gates the terminal UI only, and it installs with
/// `--trust` as every client does).
fn start_trust(agent: Agent) -> Trust {
    match agent {
        Agent::Claude | Agent::Qwen => Trust::BypassFlag,
        _ => Trust::Installed,
    }
}

const SCENARIOS: &[Scenario] = &[
    // Headless sessions (tests/support/src/scenarios.rs).
    Scenario {
        name: "handoff_reaches_next_session",
        clients: Clients::Every,
        run: |agent| scenarios::handoff_reaches_next_session(agent, start_trust(agent)),
    },
    Scenario {
        name: "drift_and_stale_are_reported",
        clients: Clients::Every,
        run: scenarios::drift_and_stale_are_reported,
    },
    // Factory Droid: the watch reads the context in use from `lastCallTokenUsage` in the
    // session's `<id>.settings.json` (its transcript has no usage), against Droid's own
    // compaction point.
    Scenario {
        name: "save_progress_is_asked_once",
        clients: Clients::Every,
        run: scenarios::save_progress_is_asked_once,
    },
    Scenario {
        name: "nothing_without_handoff",
        clients: Clients::Every,
        run: scenarios::nothing_without_handoff,
    },
    Scenario {
        name: "corrupted_state_is_recovered",
        clients: Clients::Every,
        run: scenarios::corrupted_state_is_recovered,
    },
    Scenario {
        name: "stop_is_blocked_once_above_second_threshold",
        clients: Clients::Except(&["gemini"]),
        run: scenarios::stop_is_blocked_once_above_second_threshold,
    },
    // Gemini CLI shows any AfterAgent block as "This request failed": its stop is never
    // blocked; the next prompt asks once more (checked in the terminal UI:
    // tests/clients/interactive.rs, `interactive_gemini_context_watch`).
    Scenario {
        name: "stop_is_never_blocked",
        clients: Clients::Only(&["gemini"]),
        run: scenarios::stop_is_never_blocked,
    },
    // The session record (tests/support/src/record_scenarios.rs). Factory Droid under `exec` runs
    // PostToolUse only for commands that succeed: the failing test run reaches the record from
    // the transcript; Qwen Code fires no SessionEnd under `-p`.
    Scenario {
        name: "record_unfinished_work_reaches_next_session",
        clients: Clients::Every,
        run: record_scenarios::unfinished_work_reaches_next_session,
    },
    Scenario {
        name: "record_committed_work_stays_silent",
        clients: Clients::Except(&["qwen", "copilot"]),
        run: record_scenarios::committed_work_stays_silent,
    },
    Scenario {
        name: "record_killed_session_leaves_its_last_turn",
        clients: Clients::Only(&["claude", "codex"]),
        run: record_scenarios::killed_session_leaves_its_last_turn,
    },
    Scenario {
        name: "record_shell_edits_reach_next_session",
        clients: Clients::Every,
        run: record_scenarios::shell_edits_reach_next_session,
    },
    // Gemini CLI resumed and SIGKILLed mid-turn (no AfterAgent, no SessionEnd): the next
    // session still gets the files and the failure of the completed turns.
    Scenario {
        name: "record_shell_edits_survive_a_kill",
        clients: Clients::Only(&["claude", "codex", "gemini"]),
        run: record_scenarios::shell_edits_survive_a_kill,
    },
    Scenario {
        name: "record_write_fills_from_the_writers_own_record",
        clients: Clients::Only(&["claude", "codex"]),
        run: record_scenarios::write_fills_from_the_writers_own_record,
    },
    Scenario {
        name: "record_cleared_session_reaches_next_session",
        clients: Clients::Only(&["claude"]),
        run: record_scenarios::cleared_session_reaches_next_session,
    },
    // The terminal UIs through tmux (tests/clients/interactive.rs). The compaction and clear
    // commands differ: Qwen Code's `/compress` runs SessionStart `compact` before the next
    // prompt (unlike its automatic compaction), `/clear` starts a new session; Gemini CLI drops
    // SessionStart's context after `/clear` and `/compress` has no SessionStart, so the next
    // prompt carries it; Copilot CLI's `/compact` runs preCompact only and the handoff comes
    // back with the next prompt (userPromptSubmitted); Factory Droid's `/compress` runs
    // PreCompact and starts a new session from the summary with SessionStart `compact` (unlike
    // its automatic compaction, which runs no hook), and `/new` starts a fresh session
    // (SessionStart `resume`); Codex's `/new` starts a new thread.
    Scenario {
        name: "interactive_startup_compaction_clear",
        clients: Clients::Every,
        run: super::interactive::startup_compaction_clear,
    },
    Scenario {
        name: "interactive_quit_after_a_shell_edit",
        clients: Clients::Every,
        run: support::interactive_records::quit_after_a_shell_edit,
    },
    Scenario {
        name: "interactive_clear_after_a_shell_edit",
        clients: Clients::Every,
        run: support::interactive_records::clear_after_a_shell_edit,
    },
    Scenario {
        name: "interactive_killed_after_a_turn",
        clients: Clients::Except(&["codex"]),
        run: support::interactive_records::killed_after_a_turn,
    },
    Scenario {
        name: "interactive_save_progress_reminder",
        clients: Clients::Only(&["copilot", "droid"]),
        run: super::interactive::save_progress_reminder,
    },
    // The MCP server registered by `handover install --mcp` (tests/clients/mcp.rs).
    Scenario {
        name: "mcp_save_reaches_next_session",
        clients: Clients::Every,
        run: super::mcp::save_reaches_next_session,
    },
    // A handoff pushed from another machine (tests/clients/travel.rs).
    Scenario {
        name: "travel_remote_handoff_reaches_session_start",
        clients: Clients::Only(&["claude", "codex", "gemini"]),
        run: super::travel::remote_handoff_reaches_session_start,
    },
];

/// The harness's handle on a client of the registry, by its name: `None` for a client the
/// harness cannot run yet (tests/support/src/sandbox.rs `Agent`, tests/clients/ensure.sh).
fn harness_agent(name: &str) -> Option<Agent> {
    [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Copilot,
        Agent::Droid,
    ]
    .into_iter()
    .find(|agent| agent.name() == name)
}

/// Clients whose scenarios run from their own file instead of this matrix, with why: they
/// reach handover through a plugin rather than hook files, which the shared sandbox
/// (tests/support/src/sandbox.rs) does not set up yet.
const OWN_FILE_ONLY: &[(&str, &str)] = &[
    (
        "opencode",
        "tests/clients/opencode.rs: startup, compaction, record and a stuck handover, headless",
    ),
    (
        "kilo",
        "tests/clients/kilo.rs: OpenCode's plugin in Kilo Code, headless and in the terminal UI",
    ),
];

/// About how many seconds a scenario takes for `agent` on the 2-core CI machine, headless or in
/// the terminal UI (a timed run, `HANDOVER_TRIAL_TIMES`): only the order the trials start in
/// (`crate::Timed`), longest first.
fn expected_secs(agent: Agent, scenario: &Scenario) -> u32 {
    let (headless, interactive) = match agent {
        Agent::Codex => (1, 5),
        Agent::Claude | Agent::Copilot | Agent::Droid => (2, 5),
        Agent::Gemini => (5, 7),
        Agent::Qwen => (7, 11),
    };
    if scenario.name.starts_with("interactive_") {
        interactive
    } else {
        headless
    }
}

/// Every (client × scenario) trial, clients in the registry's order.
pub(crate) fn trials() -> Vec<crate::Timed> {
    let mut trials = Vec::new();
    for client in handover_clients::ALL {
        let name = client.agent.as_str();
        if OWN_FILE_ONLY.iter().any(|(own, _)| *own == name) {
            continue;
        }
        for scenario in SCENARIOS {
            let runs = match scenario.clients {
                Clients::Every => true,
                Clients::Except(names) => !names.contains(&name),
                Clients::Only(names) => names.contains(&name),
            };
            if !runs {
                continue;
            }
            let trial = format!("clients::{name}::{}", scenario.name);
            let run = scenario.run;
            trials.push(match harness_agent(name) {
                Some(agent) => crate::Timed {
                    secs: expected_secs(agent, scenario),
                    trial: real(trial, move || run(agent)),
                },
                None => crate::Timed {
                    secs: 0,
                    trial: Trial::test(trial, move || {
                        Err(format!(
                            "the registry's client `{name}` has no harness yet: add it to \
                             tests/support/src/sandbox.rs `Agent` and tests/clients/ensure.sh"
                        )
                        .into())
                    }),
                },
            });
        }
    }
    trials
}
