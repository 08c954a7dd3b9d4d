//! Tests whose point is time, in a binary of their own so that nothing heavy runs beside them
//! (cargo runs test binaries one after another). `hot_path` is the one that runs by default (a
//! ratio guard); the others are `#[ignore]`d benchmarks that print figures. Each takes
//! [`one_at_a_time`] first, so even `--ignored` runs them one by one. Where each kind of test
//! goes: tests/README.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// The tests, one file each in tests/timing/.
mod timing {
    mod hot_path;
    mod redact_bench;
    mod store_bench;
}

use std::sync::{Mutex, MutexGuard};

/// Held for a timing test's whole run: two measurements at once would measure each other.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    // A test that panicked while holding it leaves nothing to clean up.
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
