//! The session record bench's measuring: interleaved medians, and running a hook executable
//! once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs the cases round-robin, `runs` rounds after one warm-up round, so that the machine's
/// load changes affect every case alike; returns each case's median. Each case times itself
/// (and leaves its setup out).
pub fn medians_interleaved(runs: usize, cases: &[Box<dyn Fn() -> Duration + '_>]) -> Vec<Duration> {
    for case in cases {
        case(); // warm-up: page cache, dynamic loader
    }
    let mut times = vec![Vec::with_capacity(runs); cases.len()];
    // Each round starts one case later, so every case follows every other equally often: a
    // case never pays alone for what its neighbour leaves behind (dirty pages, caches).
    for round in 0..runs {
        for k in 0..cases.len() {
            let i = (round + k) % cases.len();
            times[i].push(cases[i]());
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect()
}

pub fn run(bin: &str, args: &[&str], stdin: &[u8]) -> String {
    let out = output(Command::new(bin).args(args), stdin);
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `cmd` once with `stdin` as its input, its stderr dropped and the hooks' debug log off;
/// its exit status and stdout.
pub fn output(cmd: &mut Command, stdin: &[u8]) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_remove("HANDOVER_HOOK_DEBUG")
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().expect("stdin");
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("wait")
}
