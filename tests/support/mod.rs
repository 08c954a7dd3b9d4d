//! The one harness of the integration tests (tests/README.md): every test binary declares
//! `mod support;` once.
//!
//! - [`repo`]: a temporary git repository and the `handover` command run in it;
//! - [`hook`]: the hook executables fed a payload, with a bounded wait;
//! - [`child`]: one test of the binary re-run in a child process;
//! - [`hostile_git`]: FIFOs, sparse files, compressed bombs and delta loops under `.git`, and a
//!   command's time and peak RSS against them;
//! - [`snapshot`]: placeholders for what changes from run to run in a snapshotted output;
//! - the rest: the real clients, a sandboxed project, the fake model server, one client run
//!   inside a loopback-only network namespace, and what the tests read afterwards (the server's
//!   request log, the journal, the client's transcript).
//!
//! Every client run: a fresh `unshare -n` namespace holding only loopback, the fake server and
//! the client; a temporary HOME (and CODEX_HOME); `timeout` around the client and around the
//! whole namespace; a turn limit on the client; a request limit and an idle timeout on the server.
#![allow(dead_code)]

pub mod child;
pub mod droid;
pub mod fake_server;
pub mod hook;
pub mod hostile_git;
pub mod interactive;
pub mod interactive_records;
pub mod record_scenarios;
pub mod repo;
pub mod scenarios;
pub mod snapshot;

mod clients;
mod records;
mod requests;
mod run;
mod sandbox;
mod wiring;

pub use clients::*;
pub use requests::*;
pub use run::*;
pub use sandbox::*;
pub use wiring::*;

use serde_json::Value;
use std::path::{Path, PathBuf};
