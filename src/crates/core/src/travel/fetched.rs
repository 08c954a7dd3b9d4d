//! Fetched handoffs in this clone: `refs/handover-remote/<remote>/<branch>`, left by `handover
//! pull` or a plain `git fetch` (after `handover share`). Hooks never touch the network; they
//! only look at what was fetched.
//!
//! The SessionStart hook asks [`for_startup`] on every session start, so the common case (no
//! fetched handoff at all) must cost almost nothing: the refs are found with file reads only
//! (a `stat` of `refs/handover-remote/`, and a look at `packed-refs` that stops where our
//! names would be in git's sorted order, at most [`MAX_PACKED_REFS_SCAN`] bytes), and the
//! repository is opened only when one exists for the current branch.

use super::names::{self, FETCHED_PREFIX};
use super::package::{self, Fetched};
use handover_handoff::model::Handoff;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The most of `packed-refs` read when looking for fetched handoffs. git writes it sorted,
/// and our names sort before `refs/heads/`, so the scan normally stops after a few lines.
pub const MAX_PACKED_REFS_SCAN: u64 = 1024 * 1024;
/// At most this many remotes are looked at.
const MAX_REMOTES: usize = 32;
/// A fetched handoff dated further than this into the future is never preferred to the local
/// one (a clone's clock or a hostile remote cannot make it win forever).
const FUTURE_SLACK_MS: u64 = 10 * 60 * 1000;

/// `(remote, commit id)` of every fetched handoff ref for `branch`, by file reads only. Empty
/// when there are none, or the layout is one this cannot read (reftable).
pub fn refs_for(root: &Path, branch: &str) -> Vec<(String, String)> {
    if names::check_branch(branch).is_err() {
        return Vec::new();
    }
    let Some(common) = handover_git::common_dir_files(root) else {
        return Vec::new();
    };
    let mut found: Vec<(String, String)> = packed(&common, |b| b == branch)
        .into_iter()
        .map(|(remote, _, id)| (remote, id))
        .collect();
    for (remote, dir) in loose_remotes(&common) {
        let Some(id) = read_loose(&dir.join(branch)) else {
            continue;
        };
        // A loose ref overrides a packed one of the same name.
        found.retain(|(r, _)| *r != remote);
        found.push((remote, id));
    }
    found.sort();
    found
}

/// The folders of the remotes whose handoffs were fetched as loose refs, with their names: at
/// most [`MAX_REMOTES`], each name passing `names::check_remote`.
fn loose_remotes(common: &Path) -> impl Iterator<Item = (String, PathBuf)> {
    let loose_dir = common.join(FETCHED_PREFIX);
    fs::read_dir(&loose_dir)
        .into_iter()
        .flat_map(|remotes| remotes.flatten().take(MAX_REMOTES))
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|remote| names::check_remote(remote).is_ok())
        .map(move |remote| {
            let dir = loose_dir.join(&remote);
            (remote, dir)
        })
}

fn read_loose(path: &Path) -> Option<String> {
    // The read gate: a plain file (checked on the open descriptor, so a FIFO never blocks),
    // at most 200 bytes.
    use handover_base::read_gate::{self, Links};
    let text = read_gate::read_to_string(path, Links::Refuse, 200).ok()??;
    let id = text.trim();
    handover_git::looks_like_object_id(id).then(|| id.to_string())
}

/// packed-refs holds a fetched handoff ref for any branch.
fn packed_has_any(common: &Path) -> bool {
    scan_packed(common, |_, _| true)
}

/// Entries `refs/handover-remote/<remote>/<branch>` of packed-refs as `(remote, branch, id)`,
/// for the branches `wanted` takes, whose names pass the same checks as a loose ref's
/// (`names::check_remote`, `names::check_branch`): at most [`MAX_FETCHED_REFS`].
fn packed(common: &Path, wanted: impl Fn(&str) -> bool) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    scan_packed(common, |id, rest| {
        if let Some((remote, branch)) = rest.split_once('/') {
            if wanted(branch)
                && names::check_remote(remote).is_ok()
                && names::check_branch(branch).is_ok()
                && handover_git::looks_like_object_id(id)
            {
                found.push((remote.to_string(), branch.to_string(), id.to_string()));
            }
        }
        found.len() >= MAX_FETCHED_REFS
    });
    found
}

/// Calls `visit(id, name after the prefix)` for each fetched handoff ref in packed-refs until
/// it returns true (then true). Reads at most [`MAX_PACKED_REFS_SCAN`] bytes, and in a sorted
/// file (git's default) stops at the first name past ours.
fn scan_packed(common: &Path, mut visit: impl FnMut(&str, &str) -> bool) -> bool {
    // The read gate: a FIFO or device in place of packed-refs is refused, never waited on.
    use handover_base::read_gate::{self, Links};
    let Ok(Some(file)) = read_gate::open(&common.join("packed-refs"), Links::Follow) else {
        return false;
    };
    let mut reader = BufReader::new(file.take(MAX_PACKED_REFS_SCAN));
    let mut line = String::new();
    let mut sorted = false;
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
        let text = line.trim_end();
        if let Some(header) = text.strip_prefix('#') {
            sorted |= header.split_whitespace().any(|w| w == "sorted");
        } else if let Some((id, refname)) = text.split_once(' ') {
            if let Some(rest) = refname.strip_prefix(FETCHED_PREFIX) {
                if visit(id, rest) {
                    return true;
                }
            } else if sorted && refname > FETCHED_PREFIX {
                break; // past where our names sort
            }
        }
        line.clear();
    }
    false
}

/// At most this many fetched handoff refs are read by [`everything`] (one per remote and
/// branch: a clone has a few).
const MAX_FETCHED_REFS: usize = 1000;
/// How deep a branch name's folders under a remote's are followed (`feature/a/b`).
const MAX_BRANCH_DEPTH: usize = 8;

/// `(remote, branch, commit id)` of every fetched handoff ref, for every branch, by file
/// reads only (loose refs override packed ones of the same name); names that fail the
/// branch or remote check are left out. At most [`MAX_FETCHED_REFS`], sorted.
pub fn all_refs(root: &Path) -> Vec<(String, String, String)> {
    let Some(common) = handover_git::common_dir_files(root) else {
        return Vec::new();
    };
    let mut found = packed(&common, |_| true);
    for (remote, dir) in loose_remotes(&common) {
        let mut loose = Vec::new();
        loose_branches(&dir, "", 0, &mut loose);
        for (branch, id) in loose {
            found.retain(|(r, b, _)| !(*r == remote && *b == branch));
            found.push((remote.clone(), branch, id));
        }
    }
    found.sort();
    found.truncate(MAX_FETCHED_REFS);
    found
}

/// The loose refs under one remote's folder: `(branch, id)`, following plain directories only
/// (a link is never followed), at most [`MAX_BRANCH_DEPTH`] deep and [`MAX_FETCHED_REFS`] in all.
fn loose_branches(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, String)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten().take(MAX_FETCHED_REFS) {
        if out.len() >= MAX_FETCHED_REFS {
            return;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let branch = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        // DirEntry::file_type does not follow links.
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth < MAX_BRANCH_DEPTH => {
                loose_branches(&entry.path(), &branch, depth + 1, out);
            }
            Ok(t) if t.is_file() && names::check_branch(&branch).is_ok() => {
                if let Some(id) = read_loose(&entry.path()) {
                    out.push((branch, id));
                }
            }
            _ => {}
        }
    }
}

/// Every fetched handoff of every branch, read (untrusted) from its commit: Ok, or the remote,
/// the branch and what is wrong with it. Empty when nothing was fetched, without opening the
/// repository.
pub fn everything(root: &Path) -> Vec<Result<Fetched, (String, String, String)>> {
    read_refs(root, all_refs(root))
}

/// Every fetched handoff for `branch`, read (untrusted) from its commit: Ok, or the remote and
/// what is wrong with it. Empty when there is none, without opening the repository.
pub fn all_for(root: &Path, branch: &str) -> Vec<Result<Fetched, (String, String)>> {
    let refs = refs_for(root, branch)
        .into_iter()
        .map(|(remote, id)| (remote, branch.to_string(), id))
        .collect();
    read_refs(root, refs)
        .into_iter()
        .map(|read| read.map_err(|(remote, _, why)| (remote, why)))
        .collect()
}

/// The handoffs the refs `(remote, branch, commit id)` point at, read (untrusted): Ok, or the
/// remote, the branch and what is wrong. The repository is opened only when there is a ref.
fn read_refs(
    root: &Path,
    refs: Vec<(String, String, String)>,
) -> Vec<Result<Fetched, (String, String, String)>> {
    if refs.is_empty() {
        return Vec::new();
    }
    // Through git::open: its files under .git are looked at before libgit2 reads them.
    let repo = match handover_git::open(root) {
        Ok(Some(r)) => r,
        failed => {
            let why = match failed {
                Err(e) => format!("{e:#}"),
                Ok(_) => "no repository found".to_string(),
            };
            return refs
                .into_iter()
                .map(|(remote, branch, _)| {
                    Err((
                        remote,
                        branch,
                        format!("cannot open the repository ({why})"),
                    ))
                })
                .collect();
        }
    };
    refs.into_iter()
        .map(|(remote, branch, id)| {
            let oid = git2::Oid::from_str(&id)
                .map_err(|e| (remote.clone(), branch.clone(), e.message().to_string()))?;
            package::read(&repo, oid, &remote, &branch).map_err(|e| (remote, branch, e))
        })
        .collect()
}

/// The newest readable fetched handoff for `branch`, among those not dated in the future
/// (more than [`FUTURE_SLACK_MS`] past `now_ms`): one remote's handoff dated 2099 must not hide
/// another remote's current one.
pub fn newest_for(root: &Path, branch: &str, now_ms: u64) -> Option<Fetched> {
    newest(all_for(root, branch).into_iter().flatten(), now_ms)
}

fn newest(fetched: impl Iterator<Item = Fetched>, now_ms: u64) -> Option<Fetched> {
    fetched
        .filter(|f| time_ms(&f.handoff) <= now_ms.saturating_add(FUTURE_SLACK_MS))
        .max_by(|a, b| {
            (time_ms(&a.handoff), &a.handoff.id).cmp(&(time_ms(&b.handoff), &b.handoff.id))
        })
}

fn time_ms(h: &Handoff) -> u64 {
    handover_base::clock::parse_rfc3339_ms(&h.created_at).unwrap_or(0)
}

/// The current branch, by file reads (None when detached or unreadable that way).
pub fn current_branch(root: &Path) -> Option<String> {
    handover_git::read_head_files(root)?.branch
}

/// Whether anything was fetched at all, for any branch: the cheap check before even HEAD is
/// read (no `refs/handover-remote/` directory and no such name in packed-refs is the common
/// case).
pub fn any(root: &Path) -> bool {
    handover_git::common_dir_files(root)
        .is_some_and(|common| common.join(FETCHED_PREFIX).is_dir() || packed_has_any(&common))
}

/// The fetched handoff a new session should get instead of the local one: for the current
/// branch, when there is no local handoff or the fetched one is newer (and not dated in the
/// future). None, without opening the repository, when nothing was fetched.
pub fn for_startup(root: &Path, local: Option<&Handoff>) -> Option<Fetched> {
    if !any(root) {
        return None;
    }
    let branch = current_branch(root)?;
    let now_ms = handover_base::clock::millis(std::time::SystemTime::now());
    let fetched = newest_for(root, &branch, now_ms)?;
    let remote_ms = time_ms(&fetched.handoff);
    match local {
        None => Some(fetched),
        Some(l) if l.id == fetched.handoff.id => None,
        Some(l) => (remote_ms > time_ms(l)).then_some(fetched),
    }
}

/// The fetched handoff as verification should see it: it was recorded in another working
/// tree by design (its label says so), so its recorded root is this one (both forms of it:
/// `root_bytes` would otherwise still name the other machine's path), and the files it lists
/// as uncommitted are on the machine that pushed it (`git.uncommitted_on`, unless it already
/// names where they are); everything else (branch, HEAD, files) is checked exactly like a local
/// handoff.
pub fn as_checked_here(root: &Path, fetched: &Fetched) -> Handoff {
    let mut h = fetched.handoff.clone();
    if let Some(g) = &mut h.git {
        g.root = root.to_string_lossy().into_owned();
        g.root_bytes = handover_handoff::os_path::bytes_form(root);
        g.uncommitted_on
            .get_or_insert_with(|| fetched.origin.machine_or_unnamed());
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    fn packed_refs(text: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("packed-refs"), text).unwrap();
        dir
    }

    /// `(remote, id)` of the packed refs for `branch`.
    fn packed_for(common: &Path, branch: &str) -> Vec<(String, String)> {
        packed(common, |b| b == branch)
            .into_iter()
            .map(|(remote, _, id)| (remote, id))
            .collect()
    }

    #[test]
    fn packed_refs_are_matched_by_remote_and_whole_branch_name_and_checked_like_loose_ones() {
        let cases = [
            (
                "matched by remote and whole branch name",
                format!("{A} refs/handover-remote/origin/main\n{B} refs/handover-remote/origin/main-2\n{B} refs/handover-remote/up/main\n{A} refs/heads/main\n"),
                vec![("origin", A), ("up", B)],
            ),
            (
                "remote names checked like loose ones",
                format!("{A} refs/handover-remote/$(touch${{IFS}}x)/main\n{A} refs/handover-remote/o\u{2002}Verdict/main\n{B} refs/handover-remote/origin/main\n"),
                vec![("origin", B)],
            ),
        ];
        for (case, refs, want) in cases {
            let dir = packed_refs(&format!(
                "# pack-refs with: peeled fully-peeled sorted \n{refs}"
            ));
            let want: Vec<(String, String)> = want
                .into_iter()
                .map(|(remote, id)| (remote.to_string(), id.to_string()))
                .collect();
            assert_eq!(packed_for(dir.path(), "main"), want, "{case}");
            assert!(packed_has_any(dir.path()), "{case}");
            assert!(packed_for(dir.path(), "mai").is_empty(), "{case}");
        }
    }

    #[test]
    fn a_handoff_from_the_future_never_hides_a_current_one() {
        let at = |created: &str, id: &str| {
            let handoff = Handoff {
                created_at: created.into(),
                id: id.into(),
                ..Default::default()
            };
            Fetched {
                remote: id.into(),
                branch: "main".into(),
                commit: String::new(),
                handoff,
                note: None,
                origin: Default::default(),
                record: None,
                changes: None,
            }
        };
        let now = handover_base::clock::parse_rfc3339_ms("2026-11-29T00:00:00Z").unwrap();
        let all = || {
            [
                at("2099-01-01T00:00:00Z", "future"),
                at("2026-11-28T00:00:00Z", "current"),
                at("2026-11-27T00:00:00Z", "older"),
            ]
            .into_iter()
        };
        assert_eq!(newest(all(), now).unwrap().remote, "current");
        // Within the slack, a clock a little ahead still counts.
        let soon = at("2026-11-29T00:05:00Z", "soon");
        assert_eq!(newest(all().chain([soon]), now).unwrap().remote, "soon");
    }

    #[test]
    fn a_sorted_file_is_read_only_up_to_where_our_names_sort() {
        // Out of order on purpose: in a file that says it is sorted, nothing after
        // `refs/heads/` is looked at.
        let dir = packed_refs(&format!(
            "# pack-refs with: peeled fully-peeled sorted \n{A} refs/heads/main\n{B} refs/handover-remote/origin/main\n"
        ));
        assert!(!packed_has_any(dir.path()));
        let unsorted = packed_refs(&format!(
            "# pack-refs with: peeled \n{A} refs/heads/main\n{B} refs/handover-remote/origin/main\n"
        ));
        assert!(packed_has_any(unsorted.path()));
    }
}
