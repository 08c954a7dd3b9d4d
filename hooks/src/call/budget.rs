//! One time budget per hook call. The watchdog ends a hook at `never_fail::HARD_LIMIT` after
//! it started, answer or not; steps that can be slow (a working-tree scan, a diff, reading a
//! long transcript) each have their own limit, but those limits add up past the watchdog. So
//! every bounded step also stops at the call's deadline ([`crate::call::Call::deadline`]),
//! which leaves time to write the answer.

use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The work of a hook call ends this long after its process started; the rest of
/// `HARD_LIMIT` is for writing the journal and the answer.
pub const WORK_BUDGET: Duration = Duration::from_millis(1900);

/// Time left before `deadline` (zero once it passed).
pub fn remaining(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

/// Why a bounded step gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Late {
    /// It took longer than it was allowed (the limit in ms); it is abandoned, not waited for.
    After(u128),
    /// No thread could be started, or it panicked.
    Failed,
}

/// Runs `step` on its own thread and waits for it at most `limit`, and never past `deadline`.
/// A step still running then is abandoned (it ends with the process); steps only replace files
/// atomically, so an abandoned one leaves the old file or the new one.
pub fn within<T: Send + 'static>(
    deadline: Instant,
    limit: Duration,
    step: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Late> {
    let wait = limit.min(remaining(deadline));
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(step));
            let _ = tx.send(result);
        })
        .map_err(|_| Late::Failed)?;
    match rx.recv_timeout(wait) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) => Err(Late::Failed),
        Err(_) => Err(Late::After(wait.as_millis())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_caps_every_limit() {
        let deadline = Instant::now() + Duration::from_millis(50);
        let started = Instant::now();
        let r = within(deadline, Duration::from_secs(5), || {
            std::thread::sleep(Duration::from_secs(2));
        });
        assert!(matches!(r, Err(Late::After(ms)) if ms <= 50), "{r:?}");
        assert!(started.elapsed() < Duration::from_millis(500));
        // Past the deadline nothing is waited for at all.
        let r = within(deadline, Duration::from_secs(5), || 1);
        assert!(r.is_ok() || r == Err(Late::After(0)));
        assert_eq!(
            within(
                Instant::now() + Duration::from_secs(5),
                Duration::from_secs(5),
                || 7
            ),
            Ok(7)
        );
    }
}
