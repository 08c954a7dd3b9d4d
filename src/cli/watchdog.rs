//! `boot` and `status` read a repository that may be a stranger's (an unpacked tarball: its
//! `.git` is theirs). `git::preflight` and the object reader refuse what they know to be
//! hostile (a FIFO, an oversized file, a compressed bomb, a delta loop); this bounds the rest
//! in time, as the hooks' watchdog does (hooks/src/call/never_fail.rs): after [`LIMIT`] the command
//! stops with a clear error and exit code 1, instead of hanging.

use std::io::Write;
use std::time::Duration;

/// How long `boot` and `status` may take: far beyond what they take in a 100,000-file
/// repository (well under a second), and short enough that a stalled command is noticed.
pub const LIMIT: Duration = Duration::from_secs(10);
/// `HANDOVER_TIME_LIMIT=<seconds>` sets another limit (0: none), for a repository so large
/// that its scan takes longer.
const LIMIT_VAR: &str = "HANDOVER_TIME_LIMIT";

/// Starts the watchdog of `command` (`boot`, `status`, `log`, `show`): a thread that ends the process with
/// an error once the limit has passed. Nothing happens if no thread can be started.
pub fn start(command: &'static str) {
    let Some(limit) = limit() else {
        return;
    };
    let _ = std::thread::Builder::new().spawn(move || {
        std::thread::sleep(limit);
        let _ = writeln!(std::io::stderr(), "{}", too_long(command, limit));
        #[allow(clippy::exit)] // the one place the CLI ends itself: its time limit
        std::process::exit(1);
    });
}

/// The time limit in force: [`LIMIT`], or `HANDOVER_TIME_LIMIT`'s; None when that is 0 (no
/// limit). The MCP server bounds each tool call by it.
pub fn limit() -> Option<Duration> {
    match std::env::var(LIMIT_VAR)
        .ok()
        .map(|v| v.trim().parse::<u64>())
    {
        Some(Ok(0)) => None,
        Some(Ok(secs)) => Some(Duration::from_secs(secs)),
        _ => Some(LIMIT),
    }
}

/// What to say when `what` took longer than `limit` (the watchdog's words).
pub fn too_long(what: &str, limit: Duration) -> String {
    format!(
        "handover: reading the repository took longer than {} s; {what} stopped. A FIFO or a very large file under .git? Look with `ls -la .git`, or allow longer with {LIMIT_VAR}=<seconds>.",
        limit.as_secs()
    )
}
