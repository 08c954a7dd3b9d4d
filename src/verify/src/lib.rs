//! handover-verify: what git says, and the verdict on a handoff.
//!
//! [`git`] reads the working tree (its top, HEAD, the snapshot a handoff records, the files
//! changed since a commit; through libgit2, or the `git` command line when libgit2 cannot read
//! the repository); [`provenance`] says whether a file came with the repository; [`verify`]
//! checks a handoff against all that and says fresh, drifted or stale. Stands on the handoff
//! crate (the model it reads and fills in), never on records or the texts shown to agents.

pub mod git;
pub mod provenance;
#[cfg(test)]
mod test_git;
pub mod verify;
