//! Re-running one test of the current test binary in a child process: for what must not happen
//! in the shared test process (several writer processes, a writer killed mid-write, a different
//! current directory). The child finds its role in an environment variable the parent sets; without
//! it the test returns at once.

use std::process::Command;

/// The name libtest knows a test by: its module path inside the binary, without the crate name
/// (`store::child_crash_writer` for `child_crash_writer` in tests/boot/store.rs). Call it with
/// `module_path!()` from the test's own module.
pub fn test_name(module_path: &str, test: &str) -> String {
    match module_path.split_once("::") {
        Some((_crate, inner)) => format!("{inner}::{test}"),
        None => test.to_string(),
    }
}

/// This test binary, set to run exactly `test` (of `module_path`), alone, output shown.
pub fn rerun(module_path: &str, test: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().expect("current exe"));
    cmd.args([
        "--exact",
        &test_name(module_path, test),
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd
}
