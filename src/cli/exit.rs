//! Every exit code the CLI uses, in one place (documented in docs/cli.md; a test checks that
//! the two agree).
//!
//! 0, 1 and 2 mean the same for every command. The `--check` modes add codes from 3 up, so a
//! script or a shell prompt can tell "worked, and found something to act on" from "failed".

use handover_handoff::model::Verdict;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Done; for `--check`: nothing to act on (`boot`: the handoff is fresh).
    Ok = 0,
    /// The command failed (the reason is on stderr), or did not do all it was asked.
    Failed = 1,
    /// Bad usage: an unknown option, a missing value (clap's message on stderr).
    Usage = 2,
    /// `status --check`: something is listed under "To fix". `boot --check`: drifted.
    AttentionOrDrifted = 3,
    /// `boot --check`: the handoff is stale.
    Stale = 4,
    /// `boot --check`: it could not be verified (not in a git repository).
    Unverified = 5,
    /// `boot --check`: there is no handoff.
    NoHandoff = 6,
    /// `boot --check`: the handoff is damaged beyond recovery.
    Damaged = 7,
    /// `boot --check`: handover refuses `.handover/` (a link, another user's, ...). Without
    /// `--check`, `boot` says so and exits 1 (Failed).
    Refused = 8,
}

impl Exit {
    pub fn of_verdict(v: Verdict) -> Exit {
        match v {
            Verdict::Fresh => Exit::Ok,
            Verdict::Drifted => Exit::AttentionOrDrifted,
            Verdict::Stale => Exit::Stale,
            Verdict::Unverified => Exit::Unverified,
        }
    }

    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}
