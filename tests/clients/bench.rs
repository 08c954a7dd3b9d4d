//! What our hooks cost a user inside the real clients: the same scripted session (a prompt, ten
//! tool calls, a final answer, against the fake model server answering at once) run three ways,
//! interleaved round by round:
//! - **ours**: the hooks wired by `handover install`, as a user has them (debug log off);
//! - **no-op**: the same events wired by the same installer to do-nothing executables (a shell
//!   script that reads its stdin and exits 0), the floor any hook pays;
//! - **none**: no hooks at all.
//!
//! Prints, per client, each way's median session time (the client's own run, timed inside the
//! namespace) and what ours add per hook event beyond the no-op hook. A benchmark, not a test:
//! it asserts nothing about time. Figures and method: docs/benchmarks.md. Run with
//!
//!     cargo test --release --test clients bench:: -- --ignored --nocapture
//!
//! `HANDOVER_CLIENT_BENCH_ROUNDS` sets the rounds (default 9), `HANDOVER_CLIENT_BENCH_CLIENTS`
//! the clients (comma-separated names; default all six: `claude,codex,gemini,qwen,copilot,droid`).
//! Each client's block also says how long its bench took (setup, warm-up and rounds) and how
//! long one round took, to plan a run. `HANDOVER_CLIENT_BENCH_BASELINE`,
//! a directory of other hook executables (an older build, say), adds a fourth way, "baseline",
//! measured in the same rounds: before and after under the same load.
use crate::support;

use crate::support::fake_server::Turn;
use crate::support::{clients, install_hooks, Agent, RunOpts, Sandbox, Trust};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const TOOL_CALLS: usize = 10;
const HOOK_NAMES: [&str; 3] = [
    "handover-session-start",
    "handover-pre-compact",
    "handover-context-watch",
];

/// How a session's project is wired. The first two are always measured first and second.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Way {
    /// Our hooks, from this build.
    Ours,
    /// The same events, do-nothing executables.
    Noop,
    /// No hooks.
    None,
    /// Our hooks from another directory.
    Baseline(PathBuf),
}

impl Way {
    fn name(&self) -> &'static str {
        match self {
            Way::Ours => "ours",
            Way::Noop => "no-op hooks",
            Way::None => "no hooks",
            Way::Baseline(_) => "baseline",
        }
    }
}

fn hooks_in_the_real_clients() {
    if clients("hooks_in_the_real_clients").is_none() {
        return;
    }
    let rounds: usize = std::env::var("HANDOVER_CLIENT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(9)
        .min(101);
    // What users have: no debug log (the harness otherwise writes one per run).
    std::env::set_var("HANDOVER_HOOK_DEBUG", "0");
    let scratch = tempfile::tempdir().expect("temp dir");
    let noop = do_nothing_hooks(&scratch.path().join("noop"), None);
    let counting = do_nothing_hooks(
        &scratch.path().join("counting"),
        Some(&scratch.path().join("calls")),
    );
    let mut ways = vec![Way::Ours, Way::Noop, Way::None];
    if let Some(dir) = std::env::var_os("HANDOVER_CLIENT_BENCH_BASELINE") {
        ways.push(Way::Baseline(PathBuf::from(dir)));
    }
    let mut report = Vec::new();
    for agent in bench_clients() {
        report.push(bench(
            agent,
            rounds,
            &ways,
            &noop,
            &counting,
            &scratch.path().join("calls"),
        ));
    }
    println!();
    println!(
        "hooks inside the real clients: one session = a prompt, {TOOL_CALLS} tool calls, a final answer; \
         {rounds} interleaved rounds; median client time"
    );
    if let Some(Way::Baseline(dir)) = ways.last() {
        println!("(\"baseline\" = the hook executables in {})", dir.display());
    }
    for line in report {
        println!("{line}");
    }
}

/// The clients measured: `HANDOVER_CLIENT_BENCH_CLIENTS` (names, comma-separated: claude,
/// codex, gemini, qwen, copilot, droid), every client by default: "nothing slower inside the
/// real clients" is a promise to each of them.
fn bench_clients() -> Vec<Agent> {
    let all = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Copilot,
        Agent::Droid,
    ];
    match std::env::var("HANDOVER_CLIENT_BENCH_CLIENTS") {
        Ok(list) => list
            .split(',')
            .map(|name| {
                let name = name.trim();
                *all.iter()
                    .find(|a| a.name() == name)
                    .unwrap_or_else(|| panic!("HANDOVER_CLIENT_BENCH_CLIENTS: no client {name}"))
            })
            .collect(),
        Err(_) => all.to_vec(),
    }
}

/// `dir/<each hook name>`: a shell script that reads stdin and exits 0; with `count`, it also
/// appends a line to that file (for counting the hook calls of a session, never timed).
fn do_nothing_hooks(dir: &Path, count: Option<&Path>) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).expect("create hooks dir");
    let body = match count {
        None => "#!/bin/sh\ncat >/dev/null\n".to_string(),
        Some(file) => format!(
            "#!/bin/sh\ncat >/dev/null\necho \"$0\" >>{}\n",
            support::shell_quote(&file.to_string_lossy())
        ),
    };
    for name in HOOK_NAMES {
        let path = dir.join(name);
        std::fs::write(&path, &body).expect("write hook");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("chmod hook");
    }
    dir.to_path_buf()
}

/// A project with a handoff (so SessionStart does its whole job), wired one `way`.
fn sandbox(agent: Agent, way: &Way, noop: &Path) -> Sandbox {
    let sb = Sandbox::unwired(agent, Trust::BypassFlag, "");
    sb.write_handoff();
    match way {
        Way::Ours => {
            let dir = sb
                .bins
                .session_start
                .parent()
                .expect("bin dir")
                .to_path_buf();
            install_hooks(&sb, &dir, false);
        }
        Way::Baseline(dir) => install_hooks(&sb, dir, false),
        Way::Noop => install_hooks(&sb, noop, false),
        Way::None => {}
    }
    sb
}

/// One session; its client time, and the run (for its hooks' debug log).
fn session(sb: &Sandbox) -> Duration {
    let run = session_run(sb);
    run.client_time.unwrap_or(run.elapsed)
}

fn session_run(sb: &Sandbox) -> support::ClientRun {
    let mut turns: Vec<Turn> = (1..=TOOL_CALLS)
        .map(|i| Turn::shell(&format!("echo step {i}")).usage(2_000 + 100 * i as u64))
        .collect();
    turns.push(Turn::text("All steps done.").usage(3_500));
    let run = sb.run(
        turns,
        RunOpts {
            max_turns: TOOL_CALLS as u32 + 5,
            ..RunOpts::prompt("Run the steps.")
        },
    );
    let tool_results = run.conversation().len();
    assert!(
        tool_results > TOOL_CALLS,
        "the session made {tool_results} model requests, expected {}:\n{}",
        TOOL_CALLS + 1,
        run.describe()
    );
    run
}

/// Our hooks' own time per call (from their start to their answer, as their debug log states
/// it: `... -> silent in 3 ms`), by event, from the log of one session. Not timed with the
/// session: it shows where a hook's time goes, with less noise than whole sessions.
fn own_times(run: &support::ClientRun) -> Vec<(String, Vec<f64>)> {
    let log = std::fs::read_to_string(run.dir.join("hooks.log")).unwrap_or_default();
    let mut by_event: Vec<(String, Vec<f64>)> = Vec::new();
    for line in log.lines() {
        let event = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("event="))
            .unwrap_or("?");
        // Copilot CLI's sessionEnd is finished by a detached copy of the hook after the
        // client stopped waiting (hooks/src/call/detach.rs): its time is shown apart.
        let copy;
        let event = if line.contains("record updated after the client's transcript write") {
            copy = format!("{event} (its detached copy)");
            copy.as_str()
        } else {
            event
        };
        let took = line
            .rsplit_once(" in ")
            .and_then(|(_, t)| t.split_whitespace().next()?.parse::<f64>().ok());
        let Some(ms) = took else { continue };
        match by_event.iter_mut().find(|(e, _)| e == event) {
            Some((_, v)) => v.push(ms),
            None => by_event.push((event.to_string(), vec![ms])),
        }
    }
    by_event
}

fn bench(
    agent: Agent,
    rounds: usize,
    ways: &[Way],
    noop: &Path,
    counting: &Path,
    calls: &Path,
) -> String {
    let started = Instant::now();
    // Hook calls per session, counted once with hooks that only count.
    let _ = std::fs::remove_file(calls);
    session(&sandbox(agent, &Way::Noop, counting));
    let events = std::fs::read_to_string(calls)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    assert!(events > TOOL_CALLS, "only {events} hook calls counted");

    let sandboxes: Vec<Sandbox> = ways.iter().map(|w| sandbox(agent, w, noop)).collect();
    // One untimed round: the client's first start in a fresh HOME does extra work. Our hooks
    // keep their debug log in it (written to the run's directory), for their own times.
    std::env::remove_var("HANDOVER_HOOK_DEBUG");
    let warm_up: Vec<support::ClientRun> = sandboxes.iter().map(session_run).collect();
    std::env::set_var("HANDOVER_HOOK_DEBUG", "0");
    let n = ways.len();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); n];
    let rounds_started = Instant::now();
    for round in 0..rounds {
        // Each round starts with the next way, so none always runs right after another.
        for k in 0..n {
            let i = (round + k) % n;
            times[i].push(ms(session(&sandboxes[i])));
        }
    }
    let med: Vec<f64> = times.iter().map(|t| median(t)).collect();
    // Per round, a way minus the no-op: the load changes less within a round than across.
    let beyond_noop = |i: usize| {
        let paired: Vec<f64> = (0..rounds).map(|r| times[i][r] - times[1][r]).collect();
        format!(
            "{:+.1} ms per hook call (medians), {:+.1} ms (median of per-round differences)",
            (med[i] - med[1]) / events as f64,
            median(&paired) / events as f64
        )
    };
    let per_round = rounds_started.elapsed().as_secs_f64() / rounds as f64;
    let mut out = format!(
        "\n{} ({events} hook calls per session; bench {:.0} s in all, {per_round:.1} s per round of {n} sessions):\n",
        agent.name(),
        started.elapsed().as_secs_f64()
    );
    for (i, way) in ways.iter().enumerate() {
        out.push_str(&format!(
            "  {:<12} median {:>7.0} ms   (min {:>5.0}, max {:>5.0})\n",
            way.name(),
            med[i],
            min(&times[i]),
            max(&times[i])
        ));
    }
    for (i, way) in ways.iter().enumerate() {
        if matches!(way, Way::Ours | Way::Baseline(_)) {
            out.push_str(&format!(
                "  {} beyond no-op hooks: {}\n",
                way.name(),
                beyond_noop(i)
            ));
            let own: Vec<String> = own_times(&warm_up[i])
                .iter()
                .map(|(event, t)| format!("{event} {:.0} ms (x{})", median(t), t.len()))
                .collect();
            out.push_str(&format!(
                "    {}'s own time per call, median by event (warm-up session, debug log on): {}\n",
                way.name(),
                own.join(", ")
            ));
        }
    }
    out.push_str(&format!(
        "  no-op hooks beyond none: {:+.1} ms per hook call\n",
        (med[1] - med[2]) / events as f64
    ));
    for (i, way) in ways.iter().enumerate() {
        let waited = client_recorded_hook_times(&sandboxes[i]);
        if !waited.is_empty() {
            let by_event: Vec<String> = waited
                .iter()
                .map(|(event, t)| format!("{event} {:.0} ms (x{})", median(t), t.len()))
                .collect();
            out.push_str(&format!(
                "  {}: the client's wait per hook call as it records it, median by event (all sessions): {}\n",
                way.name(),
                by_event.join(", ")
            ));
        }
    }
    out
}

/// How long the client waited for each hook call, as it records it itself: Copilot CLI writes a
/// `hook.start` and a `hook.end` event (millisecond timestamps) per call in its events.jsonl.
/// By hook type, over every session of the sandbox (warm-up and rounds); empty for the other
/// clients. Less noisy than whole sessions: only the hook's own start, work and exit are in it.
fn client_recorded_hook_times(sb: &Sandbox) -> Vec<(String, Vec<f64>)> {
    let mut started: std::collections::HashMap<String, (String, u64)> = Default::default();
    let mut by_event: Vec<(String, Vec<f64>)> = Vec::new();
    for line in sb.copilot_event_lines() {
        let text = |p: &str| line.pointer(p).and_then(|v| v.as_str()).map(String::from);
        let (Some(kind), Some(id), Some(at)) = (
            text("/type"),
            text("/data/hookInvocationId"),
            text("/timestamp").and_then(|t| handover_base::clock::parse_rfc3339_ms(&t)),
        ) else {
            continue;
        };
        match kind.as_str() {
            "hook.start" => {
                let hook = text("/data/hookType").unwrap_or_default();
                started.insert(id, (hook, at));
            }
            "hook.end" => {
                if let Some((hook, from)) = started.remove(&id) {
                    let ms = at.saturating_sub(from) as f64;
                    match by_event.iter_mut().find(|(e, _)| *e == hook) {
                        Some((_, v)) => v.push(ms),
                        None => by_event.push((hook, vec![ms])),
                    }
                }
            }
            _ => {}
        }
    }
    by_event
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

// A benchmark of the real clients: run it with `--ignored --nocapture` (docs/benchmarks.md).
trials! {
    ignored: [hooks_in_the_real_clients],
}
