//! SessionEnd of a client that buffers its transcript (`Client::transcript_flush_delay`: GitHub
//! Copilot CLI) and waits for the hook before it exits: the hook hands the record's update to a
//! copy of itself that outlives it, and answers at once. The copy waits for the client's flush,
//! then updates the record as the hook would have (session_record, `Call::finishing_since_ms`).
//!
//! The copy is the running executable (`/proc/self/exe` through `current_exe`, never a PATH
//! lookup) with the hook's own arguments and [`FLAG`], in a process group of its own (the
//! client's signals to its group do not reach it), the hook's payload on a pipe as its stdin,
//! and stdout and stderr on /dev/null: it holds none of the client's pipes, so the client sees
//! the hook end when the hook ends. Its life is bounded like every hook's (never_fail's
//! watchdog); it is never waited for.

use crate::call::Call;

/// `--finish-session-end=<ms>`: this process is the copy, finishing the SessionEnd of a hook
/// that began at `<ms>` (its `Call::now_ms`, so the record says what the hook would have).
pub const FLAG: &str = "--finish-session-end";

/// The most payload handed on; a pipe holds at least 4 KiB and usually 64 KiB, so a write of
/// this much waits at most for the copy to start reading. A client's SessionEnd payload is a
/// few hundred bytes; a larger one is finished inline, as when the copy cannot start.
const MAX_HANDED_ON: usize = 64 * 1024;

/// The copy's start time from the arguments, when this process is one; never later than `now`
/// (a hand-written flag cannot date the record in the future).
pub fn finishing_since(args: impl IntoIterator<Item = String>, now_ms: u64) -> Option<u64> {
    crate::call::agent::flag_values(args, FLAG)
        .pop()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|ms| ms.min(now_ms))
}

/// Starts the copy that finishes this SessionEnd; Ok with its process id, or why not (then the
/// caller does the work itself).
#[cfg(unix)]
pub fn finish_later(call: &Call) -> Result<u32, String> {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    if call.payload.is_empty() {
        return Err("no whole payload to hand on".into());
    }
    if call.payload.len() > MAX_HANDED_ON {
        return Err(format!("payload over {MAX_HANDED_ON} bytes"));
    }
    let exe = std::env::current_exe().map_err(|e| format!("no executable: {e}"))?;
    let mut child = Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .arg(format!("{FLAG}={}", call.now_ms))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start a copy: {e}"))?;
    let pid = child.id();
    let Some(mut stdin) = child.stdin.take() else {
        return Err("no pipe to the copy".into());
    };
    // A copy that got less than the whole payload parses nothing and records nothing (no
    // session id), so doing the work here then does it once.
    stdin
        .write_all(&call.payload)
        .map_err(|e| format!("payload not handed on: {e}"))?;
    // Dropped: the copy reads to the end. `child` is not waited for (it outlives this process
    // and is reparented; dropping a Child neither kills nor waits).
    drop(stdin);
    Ok(pid)
}

/// No process groups to detach into: the work is done inline.
#[cfg(not(unix))]
pub fn finish_later(_call: &Call) -> Result<u32, String> {
    Err("not on this system".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::agent::args_of;

    #[test]
    fn only_the_copy_has_a_start_time_and_never_a_future_one() {
        assert_eq!(finishing_since(args_of(&["--agent", "copilot"]), 10), None);
        assert_eq!(
            finishing_since(
                args_of(&["--agent", "copilot", "--finish-session-end=7"]),
                10
            ),
            Some(7)
        );
        assert_eq!(
            finishing_since(args_of(&["--finish-session-end=99"]), 10),
            Some(10)
        );
        assert_eq!(
            finishing_since(args_of(&["--finish-session-end=x"]), 10),
            None
        );
    }
}
