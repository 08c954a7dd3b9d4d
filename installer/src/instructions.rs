//! The instruction files each client reads (AGENTS.md, CLAUDE.md, Gemini CLI's context file)
//! and the short handover section in them, between sentinel comments.
//!
//! Created if absent, refreshed only when its text changed, removed by uninstall (and the file
//! with it when nothing else is left in it). The rest of the file is never touched.

use crate::error::EditError;
use crate::files::{Homes, Targets};
use crate::report::{Change, ChangeKind};
use crate::wiring;
use handover_base::text::line_column as line_col;
use std::fs;
use std::path::{Path, PathBuf};

pub const BEGIN: &str = "<!-- handover:begin -->";
pub const END: &str = "<!-- handover:end -->";

/// The section body (between the sentinels), LF line endings.
pub const BODY: &str = "\
## Handover between sessions
This repository uses handover to pass unfinished work from one agent session to the next.
- At session start, run `handover boot` if the handover context did not arrive on its own.
- Before your context fills up, save progress with `handover write` (see `handover write --help`).
- `handover.md` is the current handoff; the spec it names wins where the two disagree.
";

fn section(nl: &str) -> String {
    format!("{BEGIN}\n{BODY}{END}\n").replace('\n', nl)
}

/// Refuses a file whose sentinels are not exactly one BEGIN followed by one END (or none):
/// editing between mismatched markers could swallow the user's text.
pub fn check(file: &Path, text: &str) -> Result<(), EditError> {
    let begins: Vec<usize> = text.match_indices(BEGIN).map(|(i, _)| i).collect();
    let ends: Vec<usize> = text.match_indices(END).map(|(i, _)| i).collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(()),
        ([b], [e]) if b < e => Ok(()),
        _ => {
            let at = begins.first().or(ends.first()).copied().unwrap_or(0);
            let (line, col) = line_col(text, at);
            Err(EditError::at(
                file,
                line,
                col,
                format!("the handover section markers are broken (need exactly one `{BEGIN}` then one `{END}`); fix or delete them by hand, then run again"),
            ))
        }
    }
}

/// Byte range of the existing section (from BEGIN to the end of the END line), if well formed.
fn find(text: &str) -> Option<(usize, usize)> {
    let start = text.find(BEGIN)?;
    let end_rel = text[start..].find(END)?;
    let mut end = start + end_rel + END.len();
    if text[end..].starts_with("\r\n") {
        end += 2;
    } else if text[end..].starts_with('\n') {
        end += 1;
    }
    Some((start, end))
}

/// Ensures the section is present and current. `before` None = the file does not exist.
pub fn install(before: Option<&str>, what: &str) -> (String, Change) {
    let text = before.unwrap_or("");
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let want = section(nl);
    if let Some((s, e)) = find(text) {
        if text[s..e].trim_end() == want.trim_end() {
            return (text.to_string(), Change::new(ChangeKind::Unchanged, what));
        }
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..s]);
        out.push_str(&want);
        out.push_str(&text[e..]);
        return (out, Change::new(ChangeKind::Updated, what));
    }
    let mut out = text.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(nl);
    }
    out.push_str(&want);
    (out, Change::new(ChangeKind::Added, what))
}

/// Removes the section and the blank line install put before it. Returns None when the file
/// would be left empty (then the caller deletes it: nothing of the user's is in it).
pub fn uninstall(before: &str, what: &str) -> (Option<String>, Change) {
    let Some((s, e)) = find(before) else {
        return (
            Some(before.to_string()),
            Change::new(ChangeKind::Unchanged, what),
        );
    };
    let mut head = &before[..s];
    let tail = &before[e..];
    // Undo the separating blank line install added (only when the section was last).
    if tail.is_empty() {
        for sep in ["\r\n\r\n", "\n\n"] {
            if let Some(h) = head.strip_suffix(sep) {
                head = &before[..h.len() + sep.len() / 2];
                break;
            }
        }
    }
    let out = format!("{head}{tail}");
    if out.trim().is_empty() {
        return (None, Change::new(ChangeKind::Removed, what));
    }
    (Some(out), Change::new(ChangeKind::Removed, what))
}

pub fn is_present(text: &str) -> bool {
    find(text).is_some()
}

// ---- Which files ----

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The instruction file most clients share: listed first, and a client's own file that is a
/// link to it counts as it.
const SHARED: &str = "AGENTS.md";

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
            None => fixed.push(repo.join(handover_clients::of(agent).instruction_file())),
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
        for name in handover_clients::of(agent).instruction_files_read() {
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
) -> Result<Vec<handover_base::Agent>, EditError> {
    let same = |a: &Path, b: &Path| a == b || same_file(a, b);
    let mut readers = Vec::new();
    for agent in clients.iter() {
        let (own, _) = instruction_targets(repo, homes, Targets::of([agent]))?;
        let also = handover_clients::of(agent).instruction_files_read();
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
        let reads = client.instruction_files_read();
        if reads.is_empty() {
            continue;
        }
        let (others, _) = instruction_targets(repo, homes, targets.without(agent))?;
        drop_if_seen_elsewhere(repo, client.instruction_file(), reads, &others, files);
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
        use handover_base::Agent;
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

    #[test]
    fn creates_appends_refreshes_and_removes() {
        let (created, c) = install(None, "AGENTS.md");
        assert_eq!(c.kind, ChangeKind::Added);
        assert!(created.starts_with(BEGIN) && created.ends_with(&format!("{END}\n")));
        assert_eq!(
            created.lines().count(),
            7,
            "short: sentinels plus five lines"
        );
        assert_eq!(install(Some(&created), "x").1.kind, ChangeKind::Unchanged);
        assert_eq!(uninstall(&created, "x").0, None);

        let user = "# Project\n\nRules.\n";
        let (with, _) = install(Some(user), "x");
        assert_eq!(with, format!("{user}\n{}", section("\n")));
        assert_eq!(install(Some(&with), "x").0, with);
        assert_eq!(uninstall(&with, "x").0.as_deref(), Some(user));

        let no_nl = "# Project";
        let (with, _) = install(Some(no_nl), "x");
        assert_eq!(with, format!("# Project\n\n{}", section("\n")));
        assert_eq!(
            uninstall(&with, "x").0.as_deref(),
            Some("# Project\n"),
            "semantically the original"
        );
    }

    #[test]
    fn broken_markers_are_refused_with_their_position() {
        let p = Path::new("AGENTS.md");
        assert!(check(p, "# x\n").is_ok());
        assert!(check(p, &install(Some("# x\n"), "x").0).is_ok());
        for bad in [
            format!("# x\n{BEGIN}\nno end\n"),
            format!("{END}\n{BEGIN}\n"),
            format!("a\n{BEGIN}\n{END}\n{BEGIN}\n{END}\n"),
        ] {
            let e = check(p, &bad).unwrap_err();
            assert!(
                e.to_string().starts_with("AGENTS.md:")
                    && e.to_string().contains("markers are broken"),
                "{e}"
            );
        }
        assert_eq!(
            check(p, &format!("# x\n{BEGIN}\n")).unwrap_err().position,
            Some((2, 1))
        );
    }

    #[test]
    fn keeps_crlf_and_text_after_the_section() {
        let old = format!("a\r\n{BEGIN}\r\nold text\r\n{END}\r\nz\r\n");
        let (new, c) = install(Some(&old), "x");
        assert_eq!(c.kind, ChangeKind::Updated);
        assert_eq!(new, format!("a\r\n{}z\r\n", section("\r\n")));
        assert_eq!(uninstall(&new, "x").0.as_deref(), Some("a\r\nz\r\n"));
    }
}
