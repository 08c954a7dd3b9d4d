//! Which instruction files an install or uninstall edits for its targets: each client's fixed
//! file, the files the clients' own settings name (Gemini CLI's context file), and which other
//! clients still read a file. The section inside them is edited by [`crate::edit::instructions`].

use crate::edit::instructions::is_present;
use crate::error::EditError;
use crate::files::{Homes, Targets};
use crate::wiring;
use std::fs;
use std::path::{Path, PathBuf};

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The instruction file most clients share: listed first, and a client's own file that is a
/// link to it counts as it.
const SHARED: &str = "AGENTS.md";

/// The instruction files the clients read by default, the shared one first, each once.
pub fn default_names() -> Vec<&'static str> {
    let mut names = vec![SHARED];
    for client in handover_clients::ALL {
        if !names.contains(&client.instruction_file) {
            names.push(client.instruction_file);
        }
    }
    names
}

/// The instructions files to edit for these targets: each client's fixed file
/// (`Client::instruction_file`), AGENTS.md first and a file linked to another listed one only
/// once (only AGENTS.md when CLAUDE.md is a link to it); then the files the clients' own
/// settings name (Gemini CLI's context file) when not listed already; plus a note when a
/// configured name was not usable.
pub fn instruction_targets(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
) -> Result<(Vec<PathBuf>, Option<String>), EditError> {
    let mut fixed = Vec::new();
    let mut configured = Vec::new();
    for agent in targets.iter() {
        match wiring::of(agent).configured_instruction_file(repo, homes) {
            Some(file) => configured.push(file?),
            None => fixed.push(repo.join(handover_clients::of(agent).instruction_file)),
        }
    }
    let shared = repo.join(SHARED);
    let listed = |files: &[PathBuf], f: &PathBuf| files.iter().any(|x| x == f || same_file(x, f));
    let mut files = Vec::new();
    if listed(&fixed, &shared) {
        files.push(shared);
    }
    for f in fixed {
        if !listed(&files, &f) {
            files.push(f);
        }
    }
    let mut note = None;
    for (f, problem) in configured {
        note = note.or(problem);
        if !listed(&files, &f) {
            files.push(f);
        }
    }
    Ok((files, note))
}

/// The instruction files an uninstall of `targets` takes the section out of (before keeping
/// those that clients staying installed read, see [`readers`]): the ones install would edit,
/// then the other files these clients read that have the section (GitHub Copilot CLI's came
/// from CLAUDE.md when Claude Code was installed with it).
pub fn uninstall_targets(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
) -> Result<Vec<PathBuf>, EditError> {
    let (mut files, _) = instruction_targets(repo, homes, targets)?;
    for agent in targets.iter() {
        for name in handover_clients::of(agent).instruction_files_read {
            let f = repo.join(name);
            let listed = files.iter().any(|x| *x == f || same_file(x, &f));
            if !listed && fs::read_to_string(&f).is_ok_and(|text| is_present(&text)) {
                files.push(f);
            }
        }
    }
    Ok(files)
}

/// Which of `clients` read `file`: the file install would give one of them
/// ([`instruction_targets`], a configured name included), or one more it shows its agent
/// whole ([`handover_clients::Client::instruction_files_read`]). Uninstall keeps the section
/// of such a file.
pub fn readers(
    repo: &Path,
    homes: &Homes,
    clients: Targets,
    file: &Path,
) -> Result<Vec<handover_clients::Agent>, EditError> {
    let same = |a: &Path, b: &Path| a == b || same_file(a, b);
    let mut readers = Vec::new();
    for agent in clients.iter() {
        let (own, _) = instruction_targets(repo, homes, Targets::of([agent]))?;
        let also = handover_clients::of(agent).instruction_files_read;
        if own.iter().any(|f| same(f, file)) || also.iter().any(|n| same(&repo.join(n), file)) {
            readers.push(agent);
        }
    }
    Ok(readers)
}

/// Takes a client's own instruction file out of an install's instruction `files` when only
/// that client wanted it there and the client already sees the section in another file it
/// reads ([`handover_clients::Client::instruction_files_read`]; GitHub Copilot CLI's AGENTS.md
/// when CLAUDE.md or GEMINI.md has it): one written in this run for another client, or one
/// that has it already. Such a client shows each file's text, so the section would reach its
/// agent twice.
pub fn drop_files_seen_elsewhere(
    repo: &Path,
    homes: &Homes,
    targets: Targets,
    files: &mut Vec<PathBuf>,
) -> Result<(), EditError> {
    for agent in targets.iter() {
        let client = handover_clients::of(agent);
        let reads = client.instruction_files_read;
        if reads.is_empty() {
            continue;
        }
        let (others, _) = instruction_targets(repo, homes, targets.without(agent))?;
        drop_if_seen_elsewhere(repo, client.instruction_file, reads, &others, files);
    }
    Ok(())
}

/// `own` out of `files` unless `others` (the files the run writes for the other clients) need
/// it, when another of `reads` is written here or has the section already.
fn drop_if_seen_elsewhere(
    repo: &Path,
    own: &str,
    reads: &[&str],
    others: &[PathBuf],
    files: &mut Vec<PathBuf>,
) {
    let elsewhere = reads.iter().filter(|name| **name != own);
    let own = repo.join(own);
    let same = |a: &Path, b: &Path| a == b || same_file(a, b);
    if others.iter().any(|f| same(f, &own)) {
        // Another client reads that file itself.
        return;
    }
    let written_here = others
        .iter()
        .any(|f| elsewhere.clone().any(|name| same(f, &repo.join(name))));
    let already_there = elsewhere
        .clone()
        .any(|name| fs::read_to_string(repo.join(name)).is_ok_and(|text| is_present(&text)));
    if written_here || already_there {
        files.retain(|f| !same(f, &own));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_files_shared_first_each_once_configured_last() {
        use handover_clients::Agent;
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        let homes = Homes::under(&repo.join("home"));
        let names = |targets: Targets| -> Vec<String> {
            let (files, _) = instruction_targets(repo, &homes, targets).unwrap();
            files
                .iter()
                .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            names(Targets::all()),
            ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]
        );
        assert_eq!(names(Targets::of([Agent::Claude])), ["CLAUDE.md"]);
        assert_eq!(
            names(Targets::of([Agent::Gemini, Agent::Droid])),
            ["AGENTS.md", "GEMINI.md"]
        );
        // CLAUDE.md a link to AGENTS.md: one file, by the shared name.
        fs::write(repo.join("AGENTS.md"), "# x\n").unwrap();
        std::os::unix::fs::symlink("AGENTS.md", repo.join("CLAUDE.md")).unwrap();
        assert_eq!(names(Targets::of([Agent::Claude])), ["AGENTS.md"]);
        assert_eq!(names(Targets::all()), ["AGENTS.md", "GEMINI.md"]);
    }
}
