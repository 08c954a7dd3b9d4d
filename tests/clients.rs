//! Everything that runs a real client (Claude Code, Codex, Gemini CLI, Qwen Code, GitHub Copilot
//! CLI, Factory Droid, OpenCode, Kilo Code; pinned in tests/clients/package.json, installed by tests/clients/ensure.sh):
//! headless and interactive sessions against the fake model server, inside loopback-only network
//! namespaces. `HANDOVER_SKIP_E2E=1` skips them all, each reported `ignored` with the reason;
//! otherwise a missing prerequisite fails. One test binary; where each kind of test goes:
//! tests/README.md.
//!
//! Its harness is libtest-mimic (`harness = false` in Cargo.toml), not `#[test]`: the scenarios
//! shared by the clients are generated from the client registry (tests/clients/matrix.rs), and a
//! skipped trial must say so. Each file lists its own tests with `trials!`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use handover_testkit as support;

/// The trials of one file of tests/clients/, named `clients::<file>::<function>` as `#[test]`
/// named them: `real` ones need the real clients (`ignored`, with the reason, when they are
/// skipped), `plain` ones always run, `ignored` ones only with `--ignored`. A long test says how
/// long it takes on the 2-core CI machine, `name @ seconds`, so that it starts first (see
/// [`Timed`]); one without takes a few seconds.
macro_rules! trials {
    ($($kind:ident: [$($test:ident $(@ $secs:literal)?),* $(,)?]),* $(,)?) => {
        pub(crate) fn trials() -> Vec<crate::Timed> {
            let module = module_path!()
                .split_once("::")
                .map_or(module_path!(), |(_, module)| module);
            let mut trials = Vec::new();
            $($(trials.push(crate::Timed {
                secs: 0 $(+ $secs)?,
                trial: crate::clients::matrix::$kind(
                    format!("{module}::{}", stringify!($test)),
                    $test,
                ),
            });)*)*
            trials
        }
    };
}

/// A trial and about how many seconds it takes on the 2-core CI machine (a timed run:
/// `HANDOVER_TRIAL_TIMES`, tests/clients/matrix.rs). The trials start longest first: the
/// harness runs them in list order on its threads, and a long test started last would run on
/// while the other threads sit idle. A wrong figure costs time, never a test.
pub(crate) struct Timed {
    secs: u32,
    trial: libtest_mimic::Trial,
}

/// The tests, one file each in tests/clients/.
mod clients {
    pub(crate) mod bench;
    pub(crate) mod claude;
    pub(crate) mod codex;
    pub(crate) mod copilot;
    pub(crate) mod droid;
    pub(crate) mod fake_server_wire;
    pub(crate) mod gemini;
    pub(crate) mod install;
    pub(crate) mod interactive;
    pub(crate) mod kilo;
    pub(crate) mod matrix;
    pub(crate) mod mcp;
    pub(crate) mod opencode;
    pub(crate) mod plugins;
    pub(crate) mod qwen;
    pub(crate) mod shared_install;
    pub(crate) mod travel;
}

fn main() -> std::process::ExitCode {
    let mut args = libtest_mimic::Arguments::from_args();
    // libtest's variable, which libtest-mimic does not read.
    if args.test_threads.is_none() {
        args.test_threads = std::env::var("RUST_TEST_THREADS")
            .ok()
            .and_then(|n| n.parse().ok());
    }
    // Otherwise one thread more than the cores: a test here spends part of its time waiting
    // (a terminal UI settling, the pause before Enter, Codex's daemon unloading a thread, a
    // namespace and fake server starting), and with one thread per core those cores sit idle
    // meanwhile. On the 2-core CI machine the whole binary used about 650 s of CPU in 400 s
    // with two threads.
    if args.test_threads.is_none() {
        args.test_threads = std::thread::available_parallelism()
            .ok()
            .map(|cores| cores.get() + 1);
    }
    let mut timed = clients::matrix::trials();
    for file in [
        clients::bench::trials,
        clients::claude::trials,
        clients::codex::trials,
        clients::copilot::trials,
        clients::droid::trials,
        clients::fake_server_wire::trials,
        clients::gemini::trials,
        clients::install::trials,
        clients::interactive::trials,
        clients::kilo::trials,
        clients::mcp::trials,
        clients::opencode::trials,
        clients::plugins::trials,
        clients::qwen::trials,
        clients::shared_install::trials,
        clients::travel::trials,
    ] {
        timed.extend(file());
    }
    // Longest first; a stable sort, so the short ones keep their files' order.
    timed.sort_by_key(|t| std::cmp::Reverse(t.secs));
    let mut trials: Vec<_> = timed.into_iter().map(|t| t.trial).collect();
    // Not a test: the fake model server mode of this binary (see support::fake_server), which
    // the harness starts as `<this binary> fake_server_entry --exact`. Returns at once unless
    // HANDOVER_FAKE_SERVER is set.
    trials.push(clients::matrix::plain("fake_server_entry".into(), || {
        support::fake_server::serve_from_env();
    }));
    libtest_mimic::run(&args, trials).exit_code()
}
