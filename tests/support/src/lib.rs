//! The one harness of the integration tests (tests/README.md), a dev-only crate: every test
//! binary names it `support` once (`use handover_testkit as support;`).
//!
//! - [`repo`]: a temporary git repository ([`repo::TestRepo`]), the one way the tests run git,
//!   and the `handover` command run in it;
//! - [`exe`]: where this build's executables are;
//! - [`hook`]: the hook executables fed a payload, with a bounded wait;
//! - [`child`]: one test of the binary re-run in a child process;
//! - [`hostile_git`]: FIFOs, sparse files, compressed bombs and delta loops under `.git`, and a
//!   command's time and peak RSS against them;
//! - [`snapshot`]: placeholders for what changes from run to run in a snapshotted output;
//! - [`shapes`]: the repositories and handoff shapes the hook benchmark and its CI guard run
//!   the hooks against;
//! - the rest: the real clients, a sandboxed project, the fake model server, one client run
//!   inside a loopback-only network namespace, and what the tests read afterwards (the server's
//!   request log, the journal, the client's transcript).
//!
//! Every client run: a fresh `unshare -n` namespace holding only loopback, the fake server and
//! the client; a temporary HOME (and CODEX_HOME); `timeout` around the client and around the
//! whole namespace; a turn limit on the client; a request limit and an idle timeout on the server.
// Test code: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod child;
pub mod droid;
pub mod exe;
pub mod fake_server;
pub mod hook;
pub mod hostile_git;
pub mod interactive;
pub mod interactive_records;
pub mod record_scenarios;
pub mod repo;
pub mod scenarios;
pub mod shapes;
pub mod snapshot;

mod client_run;
mod clients;
mod records;
mod requests;
mod sandbox;
mod wiring;

pub use client_run::*;
pub use clients::*;
pub use requests::*;
pub use sandbox::*;
pub use wiring::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
