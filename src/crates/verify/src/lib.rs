//! Verification, not trust: check a handoff against the repository and give a verdict.
//!
//! The rules, their reason codes and messages are documented in docs/verification.md; keep the
//! two in step. A value from the handoff or the repository (a branch, a path, a recorded
//! root or HEAD) sits in a message only inside `sanitize::quote`'s « ». Every check turns a failure into a reason (never a panic, never an error the
//! caller must handle): a hook shows whatever could be established.

use git2::{Oid, Repository, Sort};
use handover_git::head_entries::HeadEntries;
use handover_git::objects::{Objects, Refusal};
use handover_git::uncommitted::{PathState, PathStates};
use handover_git::{self as git, history, HeadInfo, LazyRepo};
use handover_handoff::model::{ChangeKind, GitSnapshot, Handoff, Reason, Verdict, Verification};
use handover_handoff::sanitize::quote;
use std::collections::BTreeSet;
use std::path::Path;

/// Stable reason codes (tests and tools match on them).
pub mod code {
    pub const NO_GIT_SNAPSHOT: &str = "no_git_snapshot";
    pub const NOT_A_REPOSITORY: &str = "not_a_repository";
    pub const GIT_UNREADABLE: &str = "git_unreadable";
    pub const WORKING_TREE_UNREADABLE: &str = "working_tree_unreadable";
    pub const BRANCH_CHANGED: &str = "branch_changed";
    pub const HEAD_UNKNOWN: &str = "head_unknown";
    pub const HEAD_BEHIND: &str = "head_behind";
    pub const HEAD_DIVERGED: &str = "head_diverged";
    pub const HEAD_UNBORN: &str = "head_unborn";
    pub const IMPORTANT_FILE_MISSING: &str = "important_file_missing";
    pub const HEAD_MOVED: &str = "head_moved";
    pub const WORKING_TREE_CHANGED: &str = "working_tree_changed";
    pub const CHANGED_FILE_MISSING: &str = "changed_file_missing";
    pub const INTERNAL_ERROR: &str = "internal_error";
    pub const FOREIGN: &str = "foreign";
    /// Not a fault (severity fresh): files the handoff lists as uncommitted on another machine
    /// (`git.uncommitted_on`) are not in this checkout.
    pub const UNCOMMITTED_ELSEWHERE: &str = "uncommitted_elsewhere";
}

/// Unit tests of the whole verdict over many repository shapes: a file of their own, named as
/// the git crate's `objects_tests.rs` and `scan_tests.rs` are.
#[cfg(test)]
#[path = "paths_agree_tests.rs"]
mod paths_agree;

/// The git command line of the unit tests, shared with the other library crates.
#[cfg(test)]
#[path = "../../../../tests/support/src/test_git.rs"]
pub mod test_git;

/// Commits listed in a reason's details; the rest are counted.
pub const MAX_LISTED_COMMITS: usize = 10;
/// Files listed in a reason's details; the rest are counted.
pub const MAX_LISTED_FILES: usize = 20;
/// Commits walked when counting; beyond this the count is reported as "at least".
const MAX_WALKED_COMMITS: usize = 1_000;

/// The full check `handover boot` runs: branch, HEAD (commits ahead/behind with subjects),
/// the working tree's dirty/untracked sets compared with the recorded ones, referenced files.
pub fn verify(root: &Path, handoff: &Handoff) -> Verification {
    let repo = LazyRepo::new(root);
    guarded(|| check(&repo, handoff, Depth::Full))
}

/// The cheap check the SessionStart hook runs: branch, HEAD and the files the handoff
/// references only; costs the same on a repository of 100,000 files as on one of 10.
pub fn verify_quick(root: &Path, handoff: &Handoff) -> Verification {
    verify_quick_in(&LazyRepo::new(root), handoff)
}

/// [`verify_quick`] with a repository the caller shares with other checks (opened at most once).
pub fn verify_quick_in(repo: &LazyRepo, handoff: &Handoff) -> Verification {
    guarded(|| check(repo, handoff, Depth::Quick))
}

/// The verdict for a set of reasons: the worst severity, `fresh` when there is none.
/// Order, best to worst: fresh, drifted, unverified, stale (a fact proving the handoff wrong
/// outweighs not being able to check something).
pub fn verdict_of(reasons: &[Reason]) -> Verdict {
    reasons
        .iter()
        .map(|r| r.severity)
        .max_by_key(|v| rank(*v))
        .unwrap_or(Verdict::Fresh)
}

fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Fresh => 0,
        Verdict::Drifted => 1,
        Verdict::Unverified => 2,
        Verdict::Stale => 3,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// Branch, HEAD, referenced files: nothing that grows with the size of the tree.
    Quick,
    /// Also the working tree's status.
    Full,
}

/// Library code is written not to panic; this is the last line for what it missed (libgit2
/// surprises), so a hook never takes its host down.
fn guarded(f: impl FnOnce() -> Vec<Reason>) -> Verification {
    let reasons = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        vec![reason(
            code::INTERNAL_ERROR,
            Verdict::Unverified,
            "Verification stopped on an internal error, so nothing could be checked.".to_string(),
            Vec::new(),
        )]
    });
    Verification {
        verdict: verdict_of(&reasons),
        reasons,
    }
}

fn reason(code: &str, severity: Verdict, message: String, details: Vec<String>) -> Reason {
    Reason {
        code: code.to_string(),
        message,
        severity,
        details,
    }
}

fn check(repo: &LazyRepo, handoff: &Handoff, depth: Depth) -> Vec<Reason> {
    let root = repo.root();
    let mut reasons = Vec::new();
    // HEAD's entries, shared by the origin and listed-files checks: the file that remembers
    // them read once, and written once (`git::head_entries`). In a plain layout
    // (`git::plain`) they and HEAD come from our own reads of `.git`, and libgit2 opens the
    // repository only for a question those cannot answer; else the origin check opens it.
    let mut head = HeadEntries::of(repo);
    check_origin(repo, head.as_ref(), handoff, &mut reasons);
    match &handoff.git {
        None => reasons.push(reason(
            code::NO_GIT_SNAPSHOT,
            Verdict::Unverified,
            "The handoff was written outside a git repository, so branch, HEAD and uncommitted changes could not be checked."
                .to_string(),
            Vec::new(),
        )),
        Some(recorded) => check_git(repo, &mut head, recorded, depth, &mut reasons),
    }
    // Unless the listed-files check took them over (and remembered them).
    if let Some(head) = head {
        head.remember();
    }
    check_files(root, handoff, &mut reasons);
    reasons
}

/// Whether this handoff is this working tree's own. It is not when the state.json on disk is
/// the one git has in HEAD (it came with the repository: a clone, a pull, a commit, whoever
/// wrote it; `provenance` asks git, so no line-ending conversion hides it), or when its `git`
/// field does not name this directory (recorded elsewhere, a relative path, or no `git` field
/// in a directory that is in a repository). Such a handoff is shown as foreign and
/// unverified: a checksum proves a file intact, not who wrote it.
fn check_origin(
    repo: &LazyRepo,
    head: Option<&HeadEntries>,
    handoff: &Handoff,
    reasons: &mut Vec<Reason>,
) {
    let root = repo.root();
    let mut why = Vec::new();
    let state = Path::new(".handover").join("state.json");
    let came_with_repository = match (repo.get_unless_plain(), head) {
        (None, Some(head)) => handover_git::provenance::came_with_repository_of(repo, head, &state),
        (None, None) => false,
        (Some(Ok(Some(opened))), Some(head)) => {
            handover_git::provenance::came_with_repository_with(opened, head, root, &state)
        }
        (Some(Ok(Some(opened))), None) => {
            handover_git::provenance::came_with_repository_in(opened, root, &state)
        }
        (Some(Ok(None)), _) => false,
        // libgit2 cannot read it: provenance asks the git command line.
        (Some(Err(_)), _) => handover_git::provenance::came_with_repository(root, &state),
    };
    if came_with_repository {
        why.push(
            "git has this .handover/state.json in the current commit, so it came with the repository (a clone, a pull or a commit) rather than from a session here"
                .to_string(),
        );
    }
    match &handoff.git {
        Some(recorded) => {
            let recorded_root = recorded.root_path();
            if !same_directory(&recorded_root, root) {
                why.push(format!(
                    "it was recorded in {}, not in {}",
                    quote(&recorded.root),
                    root.display()
                ));
            }
        }
        // A write records no snapshot only when git could not read the repository (and says
        // so); a repository git reads now makes a missing one a claim, not a fact.
        None if matches!(git::open(root), Ok(Some(_))) => why.push(format!(
            "it records no git repository, but {} is in one",
            root.display()
        )),
        None => {}
    }
    if !why.is_empty() {
        reasons.push(reason(
            code::FOREIGN,
            Verdict::Unverified,
            format!(
                "This handoff was not written in this working tree: {}. Treat everything in it as an unverified claim.",
                why.join("; and ")
            ),
            Vec::new(),
        ));
    }
}

/// Both name the same directory. A relative recorded path names nothing: it would be resolved
/// against whatever directory we run in (`"."` would always match).
fn same_directory(recorded: &Path, here: &Path) -> bool {
    if !recorded.is_absolute() {
        return false;
    }
    // The same text names the same directory (what canonicalizing both would tell, without a
    // `readlink` per component of each: the usual case, a handoff checked where it was written).
    if recorded == here {
        return true;
    }
    match (std::fs::canonicalize(recorded), std::fs::canonicalize(here)) {
        (Ok(a), Ok(b)) => a == b,
        _ => recorded == here,
    }
}

fn check_git<'a>(
    lazy: &'a LazyRepo,
    head: &mut Option<HeadEntries<'a>>,
    recorded: &GitSnapshot,
    depth: Depth,
    reasons: &mut Vec<Reason>,
) {
    let root = lazy.root();
    let cheap = if depth == Depth::Quick {
        lazy.plain()
            .map(|plain| plain.head.clone())
            .or_else(|| git::read_head_files(root))
    } else {
        None
    };
    let current = match cheap {
        Some(info) => info,
        None => match lazy.get() {
            Ok(Some(repo)) => match git::head_info(repo) {
                Ok(info) => info,
                Err(e) => return reasons.push(unreadable(root, &e.to_string())),
            },
            Ok(None) => {
                return reasons.push(reason(
                    code::NOT_A_REPOSITORY,
                    Verdict::Unverified,
                    format!(
                        "{} is not in a git repository, so branch, HEAD and uncommitted changes could not be checked.",
                        root.display()
                    ),
                    Vec::new(),
                ))
            }
            Err(e) => return reasons.push(unreadable(root, &e)),
        },
    };
    // Recorded branch names went through the redactor; compare like with like.
    let current = HeadInfo {
        branch: current
            .branch
            .map(|b| handover_handoff::sanitize::redacted(&b)),
        ..current
    };
    check_branch(recorded, &current, reasons);
    // The object database HEAD's entries read from, shared: opened once per call.
    let objects = head.as_ref().and_then(HeadEntries::objects);
    check_head(lazy, objects, recorded, &current, reasons);
    match depth {
        Depth::Full => check_working_tree(lazy, recorded, reasons),
        Depth::Quick => check_listed_changes(lazy, head.take(), recorded, reasons),
    }
}

/// The quick check's share of the working-tree comparison, so the hook's verdict agrees with
/// `boot`'s: a repository git refuses to read (owned by another user) is unverified, and a
/// file the handoff listed as uncommitted that has no changes any more (reverted) is drift.
/// Opening scans nothing, and only the listed paths (at most a few hundred) are looked at, each
/// against HEAD's tree (`git::uncommitted`): the index is not read.
fn check_listed_changes<'a>(
    lazy: &'a LazyRepo,
    head: Option<HeadEntries<'a>>,
    recorded: &GitSnapshot,
    reasons: &mut Vec<Reason>,
) {
    let root = lazy.root();
    let states = match lazy.get_unless_plain() {
        // A plain layout: libgit2 opened only if a path needs it.
        None => head.and_then(|head| PathStates::of(lazy, head)),
        Some(Ok(Some(repo))) => match head {
            Some(head) => PathStates::with_head(repo, head),
            None => PathStates::new(repo),
        },
        Some(Ok(None)) => return,
        Some(Err(e)) => {
            if !reasons.iter().any(|r| r.code == code::GIT_UNREADABLE) {
                reasons.push(unreadable(root, &e));
            }
            return;
        }
    };
    let Some(states) = states else {
        return;
    };
    // A path that cannot be told (a directory, an unreadable file) is not claimed gone.
    let gone: Vec<String> = recorded
        .dirty
        .iter()
        .chain(&recorded.untracked)
        .filter(|p| !git::is_handover_file(p))
        .filter(|p| states.state(p) == PathState::Committed)
        .map(|p| format!("- {}", quote(p)))
        .collect();
    states.remember();
    if let Some(machine) = &recorded.uncommitted_on {
        if !gone.is_empty() {
            reasons.push(elsewhere(machine, gone));
        }
        return;
    }
    if !gone.is_empty() {
        let old = plural(gone.len(), "file", "files");
        reasons.push(reason(
            code::WORKING_TREE_CHANGED,
            Verdict::Drifted,
            format!(
                "{old} the handoff listed as uncommitted {} no changes any more (committed or reverted).",
                has(gone.len())
            ),
            cap_files(gone),
        ));
    }
}

/// The files a travelled handoff lists as uncommitted that have no changes here: they are on
/// the machine it came from. Said, at severity fresh: the handoff is not wrong about them.
fn elsewhere(machine: &str, gone: Vec<String>) -> Reason {
    reason(
        code::UNCOMMITTED_ELSEWHERE,
        Verdict::Fresh,
        format!(
            "{} listed as uncommitted on {}; not in this checkout.",
            plural(gone.len(), "file", "files"),
            quote(machine)
        ),
        cap_files(gone),
    )
}

fn unreadable(root: &Path, error: &str) -> Reason {
    reason(
        code::GIT_UNREADABLE,
        Verdict::Unverified,
        format!(
            "The git repository at {} could not be read ({}), so branch, HEAD and uncommitted changes were not checked.",
            root.display(),
            error.trim_end_matches('.')
        ),
        Vec::new(),
    )
}

/// A commit id cut to 7 digits. What a handoff records as its HEAD is anyone's text until
/// it parses as an id: anything but hex digits is quoted instead (`sanitize::quote`).
fn short(id: &str) -> String {
    if id.bytes().all(|b| b.is_ascii_hexdigit()) {
        id.get(..7).unwrap_or(id).to_string()
    } else {
        handover_handoff::sanitize::quote_within(id, 20)
    }
}

/// "branch «main»", "a detached HEAD at a1b2c3d". Branch names, recorded or current, are
/// quoted: a handoff's is anyone's text, and a ref name is the repository's.
fn position(branch: Option<&str>, detached: bool, head: Option<&str>) -> String {
    match (branch, detached) {
        (Some(b), false) => format!("branch {}", quote(b)),
        _ => match head {
            Some(h) => format!("a detached HEAD at {}", short(h)),
            None => "a detached HEAD".to_string(),
        },
    }
}

/// " on main" or " (detached HEAD)", for messages about HEAD.
fn where_now(current: &HeadInfo) -> String {
    match (&current.branch, current.detached) {
        (Some(b), false) => format!(" on {}", quote(b)),
        _ => " (detached HEAD)".to_string(),
    }
}

fn check_branch(recorded: &GitSnapshot, current: &HeadInfo, reasons: &mut Vec<Reason>) {
    let same = if recorded.detached || current.detached {
        recorded.detached && current.detached
    } else {
        recorded.branch == current.branch
    };
    if same {
        return;
    }
    let then = position(
        recorded.branch.as_deref(),
        recorded.detached,
        recorded.head.as_deref(),
    );
    let now = position(
        current.branch.as_deref(),
        current.detached,
        current.head.as_deref(),
    );
    reasons.push(reason(
        code::BRANCH_CHANGED,
        Verdict::Stale,
        format!("The handoff was written on {then}, but HEAD is now on {now}."),
        Vec::new(),
    ));
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn check_head(
    lazy: &LazyRepo,
    objects: Option<&Objects>,
    recorded: &GitSnapshot,
    current: &HeadInfo,
    reasons: &mut Vec<Reason>,
) {
    let where_ = where_now(current);
    let (rec, cur) = match (recorded.head.as_deref(), current.head.as_deref()) {
        (None, None) => return,
        (Some(r), Some(c)) if r == c => return,
        (Some(r), None) => {
            return reasons.push(reason(
                code::HEAD_UNBORN,
                Verdict::Stale,
                format!(
                    "HEAD has no commits now{where_}, but the handoff was written at {}.",
                    short(r)
                ),
                Vec::new(),
            ))
        }
        (r, Some(c)) => (r, c),
    };
    let repo = match lazy.get() {
        Ok(Some(repo)) => repo,
        Ok(None) => return reasons.push(unreadable(lazy.root(), "no repository found")),
        Err(e) => return reasons.push(unreadable(lazy.root(), &e)),
    };
    // Both ends are read by the object reader first, grafts or not (they change parents, not
    // what a commit is): one too big or damaged is said so, and libgit2 never reads it. The
    // commits read here need no second look from libgit2.
    let mut read_here = Vec::new();
    for (id, which) in [(Some(cur), "current HEAD"), (rec, "recorded HEAD")] {
        let Some(id) = id.and_then(|id| Oid::from_str(id).ok()) else {
            continue;
        };
        match objects.map(|o| o.commit(id)) {
            Some(Err(refused)) => {
                return reasons.push(unreadable(
                    lazy.root(),
                    &format!("the {which}'s commit cannot be read: {refused}"),
                ))
            }
            Some(Ok(Some(_))) => read_here.push(id),
            Some(Ok(None)) | None => {}
        }
    }
    // Commits read without libgit2's mappings where the history allows (git::history).
    let objects = objects.filter(|_| !history::grafted(repo));
    let is_commit = |id: &Oid| read_here.contains(id) || repo.find_commit(*id).is_ok();
    let Some(cur_oid) = Oid::from_str(cur).ok().filter(is_commit) else {
        return reasons.push(unreadable(
            lazy.root(),
            &format!("the current HEAD {} cannot be read", short(cur)),
        ));
    };
    let Some(rec) = rec else {
        // Written before the first commit: everything on HEAD is new.
        let (count, details) = walk(repo, cur_oid, None, "");
        return reasons.push(reason(
            code::HEAD_MOVED,
            Verdict::Drifted,
            format!(
                "HEAD moved {} ahead{where_}; the handoff was written before the first commit.",
                count.describe("commit", "commits")
            ),
            details,
        ));
    };
    let Some(rec_oid) = Oid::from_str(rec).ok().filter(is_commit) else {
        return reasons.push(reason(
            code::HEAD_UNKNOWN,
            Verdict::Stale,
            format!(
                "The recorded HEAD {} does not exist in this repository (history rewritten and pruned, or a different clone).",
                short(rec)
            ),
            Vec::new(),
        ));
    };
    // A line of commits either way, read here; else libgit2's graph and walk decide. A
    // commit on the way the reader refuses ends the check: libgit2 must not walk through it.
    let line = |from, to| match objects.map(|o| history::line(o, from, to)) {
        Some(Err(refused)) => Err(refused),
        Some(Ok(found)) => Ok(found),
        None => Ok(None),
    };
    let refused = |refused: Refusal| {
        unreadable(
            lazy.root(),
            &format!(
                "the history between the recorded and the current HEAD cannot be read: {refused}"
            ),
        )
    };
    let ahead = match line(cur_oid, rec_oid) {
        Ok(ahead) => ahead.map(listed),
        Err(e) => return reasons.push(refused(e)),
    };
    // Walked only when HEAD is not ahead (as before): usually it is.
    let behind = match ahead {
        Some(_) => None,
        None => match line(rec_oid, cur_oid) {
            Ok(behind) => behind.map(listed),
            Err(e) => return reasons.push(refused(e)),
        },
    };
    let behind = || behind;
    // Where no line was read here: libgit2's graph decides, and its walk lists the commits.
    let descends = |from, to| {
        repo.graph_descendant_of(from, to)
            .unwrap_or(false)
            .then(|| walk(repo, from, Some(to), ""))
    };
    if let Some((count, details)) = ahead.or_else(|| descends(cur_oid, rec_oid)) {
        reasons.push(reason(
            code::HEAD_MOVED,
            Verdict::Drifted,
            format!(
                "HEAD moved {} ahead of the recorded {}{where_}.",
                count.describe("commit", "commits"),
                short(rec)
            ),
            details,
        ));
    } else if let Some((count, details)) = behind().or_else(|| descends(rec_oid, cur_oid)) {
        reasons.push(reason(
            code::HEAD_BEHIND,
            Verdict::Stale,
            format!(
                "HEAD is {} behind the recorded {}{where_}: the branch was reset or an older commit checked out, and the listed commits are no longer on it.",
                count.describe("commit", "commits"),
                short(rec)
            ),
            details,
        ));
    } else {
        let (ahead, mut details) = walk(repo, cur_oid, Some(rec_oid), "+ ");
        let (lost, lost_details) = walk(repo, rec_oid, Some(cur_oid), "- ");
        details.extend(lost_details);
        reasons.push(reason(
            code::HEAD_DIVERGED,
            Verdict::Stale,
            format!(
                "History was rewritten{where_}: the recorded {} is not an ancestor of HEAD {} ({} no longer on the branch, {} instead).",
                short(rec),
                short(cur),
                lost.describe("recorded commit", "recorded commits"),
                ahead.describe("new commit", "new commits"),
            ),
            details,
        ));
    }
}

/// How many commits a walk found, possibly cut short.
struct Count {
    n: usize,
    capped: bool,
}

impl Count {
    fn describe(&self, one: &str, many: &str) -> String {
        if self.capped {
            format!("at least {} {many}", self.n)
        } else {
            plural(self.n, one, many)
        }
    }
}

/// Commits reachable from `from` but not from `hide`, newest first: the count and up to
/// MAX_LISTED_COMMITS detail lines `<prefix><short id> «<subject>»` (plus "… and N more").
fn walk(repo: &Repository, from: Oid, hide: Option<Oid>, prefix: &str) -> (Count, Vec<String>) {
    let mut listed = Vec::new();
    let mut n = 0usize;
    let mut capped = false;
    let walker = repo.revwalk().and_then(|mut w| {
        w.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
        w.push(from)?;
        if let Some(h) = hide {
            w.hide(h)?;
        }
        Ok(w)
    });
    if let Ok(walker) = walker {
        for oid in walker {
            let Ok(oid) = oid else { break };
            if n >= MAX_WALKED_COMMITS {
                capped = true;
                break;
            }
            n += 1;
            if listed.len() < MAX_LISTED_COMMITS {
                let subject = repo
                    .find_commit(oid)
                    .ok()
                    .map(|c| c.summary_bytes().unwrap_or_default().to_vec())
                    .unwrap_or_default();
                listed.push((oid, subject));
            }
        }
    }
    details(Count { n, capped }, listed, prefix)
}

/// [`walk`]'s answer for a line of commits read by `git::history` (all of them, none capped).
fn listed(line: Vec<(Oid, Vec<u8>)>) -> (Count, Vec<String>) {
    let count = Count {
        n: line.len(),
        capped: false,
    };
    details(
        count,
        line.into_iter().take(MAX_LISTED_COMMITS).collect(),
        "",
    )
}

/// The count with its detail lines: `<prefix><short id> «<subject>»` for each listed commit
/// (a subject is the repository's text, quoted like every other), then "… and N more" for the
/// rest.
fn details(count: Count, listed: Vec<(Oid, Vec<u8>)>, prefix: &str) -> (Count, Vec<String>) {
    let mut details: Vec<String> = listed
        .into_iter()
        .map(|(oid, subject)| {
            let id = oid.to_string();
            let subject = String::from_utf8_lossy(&subject);
            if subject.trim().is_empty() {
                format!("{prefix}{}", short(&id))
            } else {
                format!("{prefix}{} {}", short(&id), quote(&subject))
            }
        })
        .collect();
    if count.n > MAX_LISTED_COMMITS {
        let more = count.n - MAX_LISTED_COMMITS;
        details.push(format!(
            "… and {}{more} more",
            if count.capped { "at least " } else { "" }
        ));
    }
    (count, details)
}

fn check_working_tree(lazy: &LazyRepo, recorded: &GitSnapshot, reasons: &mut Vec<Reason>) {
    let root = lazy.root();
    let repo = match lazy.get() {
        Ok(Some(repo)) => repo,
        // Already reported by the HEAD checks.
        _ => return,
    };
    let (dirty, untracked) = match git::working_tree_status(repo) {
        Ok(sets) => sets,
        Err(e) => {
            return reasons.push(reason(
                code::WORKING_TREE_UNREADABLE,
                Verdict::Unverified,
                format!(
                    "The working tree at {} could not be read ({}), so uncommitted changes were not compared.",
                    root.display(),
                    e.to_string().trim_end_matches('.')
                ),
                Vec::new(),
            ))
        }
    };
    // A capped list names its paths up to the last one listed and counts the rest: paths
    // sorting after that are compared by number on both sides, the others one by one.
    let unlisted = |p: &str| {
        let after = |list: &[String], omitted: usize| {
            omitted > 0 && list.last().is_some_and(|last| p > last.as_str())
        };
        after(&recorded.dirty, recorded.dirty_omitted)
            || after(&recorded.untracked, recorded.untracked_omitted)
    };
    let (then_unlisted, then): (Vec<&str>, Vec<&str>) = recorded
        .dirty
        .iter()
        .chain(&recorded.untracked)
        .map(String::as_str)
        .filter(|p| !git::is_handover_file(p))
        .partition(|p| unlisted(p));
    let then: BTreeSet<&str> = then.into_iter().collect();
    let then_beyond = then_unlisted.len() + recorded.dirty_omitted + recorded.untracked_omitted;
    let (now_unlisted, now): (Vec<&str>, Vec<&str>) = dirty
        .iter()
        .chain(&untracked)
        .map(String::as_str)
        .partition(|p| unlisted(p));
    let now: BTreeSet<&str> = now.into_iter().collect();
    let now_beyond = BTreeSet::from_iter(now_unlisted).len();
    let elsewhere_machine = recorded.uncommitted_on.as_deref();
    // On another machine, fewer of them here is expected; more is not.
    let expected = elsewhere_machine.is_some() && now_beyond < then_beyond;
    if now_beyond != then_beyond && !expected {
        reasons.push(reason(
            code::WORKING_TREE_CHANGED,
            Verdict::Drifted,
            format!(
                "{now_beyond} files beyond the ones the handoff lists have uncommitted changes; it recorded {then_beyond}."
            ),
            Vec::new(),
        ));
    }
    let appeared: Vec<&str> = now.difference(&then).copied().collect();
    let mut gone: Vec<&str> = then.difference(&now).copied().collect();
    if let Some(machine) = elsewhere_machine {
        if !gone.is_empty() {
            let listed = gone.iter().map(|p| format!("- {}", quote(p))).collect();
            reasons.push(elsewhere(machine, listed));
        }
        gone.clear();
    }
    if appeared.is_empty() && gone.is_empty() {
        return;
    }
    let new = plural(appeared.len(), "file has", "files have");
    let old = plural(gone.len(), "file", "files");
    let message = match (appeared.is_empty(), gone.is_empty()) {
        (false, true) => format!("{new} uncommitted changes that the handoff does not list."),
        (true, false) => format!("{old} the handoff listed as uncommitted {} no changes any more (committed or reverted).", has(gone.len())),
        _ => format!("{new} uncommitted changes that the handoff does not list, and {old} it listed {} none any more.", has(gone.len())),
    };
    let mut lines: Vec<String> = appeared.iter().map(|p| format!("+ {}", quote(p))).collect();
    lines.extend(gone.iter().map(|p| format!("- {}", quote(p))));
    reasons.push(reason(
        code::WORKING_TREE_CHANGED,
        Verdict::Drifted,
        message,
        cap_files(lines),
    ));
}

fn has(n: usize) -> &'static str {
    if n == 1 {
        "has"
    } else {
        "have"
    }
}

fn cap_files(mut lines: Vec<String>) -> Vec<String> {
    if lines.len() > MAX_LISTED_FILES {
        let more = lines.len() - MAX_LISTED_FILES;
        lines.truncate(MAX_LISTED_FILES);
        lines.push(format!("… and {more} more"));
    }
    lines
}

/// Whether a path the handoff names exists. Writers sometimes point at a line
/// (`src/lib.rs:42`, `src/lib.rs:10-20`); the file is what must exist.
fn exists(root: &Path, path: &str) -> bool {
    let present = |p: &str| std::fs::symlink_metadata(root.join(p)).is_ok();
    if present(path) {
        return true;
    }
    match path.rsplit_once(':') {
        Some((file, line))
            if !file.is_empty()
                && !line.is_empty()
                && line.bytes().all(|b| b.is_ascii_digit() || b == b'-') =>
        {
            present(file)
        }
        _ => false,
    }
}

/// `path` is listed as uncommitted work on the machine the handoff came from.
fn uncommitted_elsewhere(handoff: &Handoff, path: &str) -> bool {
    handoff.git.as_ref().is_some_and(|g| {
        g.uncommitted_on.is_some()
            && g.dirty.iter().chain(&g.untracked).any(|p| {
                p == path
                    || p.strip_suffix('/')
                        .is_some_and(|dir| path.starts_with(&format!("{dir}/")))
            })
    })
}

fn check_files(root: &Path, handoff: &Handoff, reasons: &mut Vec<Reason>) {
    let missing: Vec<&str> = handoff
        .content
        .important_files
        .iter()
        .map(|f| f.path.trim())
        .filter(|p| !p.is_empty() && !exists(root, p))
        .collect();
    reasons.extend(files_reason(
        code::IMPORTANT_FILE_MISSING,
        Verdict::Stale,
        &missing,
        |one| format!("The important file {one} named in the handoff is missing."),
        |n| format!("{n} important files named in the handoff are missing."),
    ));
    let gone: Vec<&str> = handoff
        .files_changed
        .iter()
        .filter(|c| {
            c.change != ChangeKind::Deleted && !c.path.is_empty() && !git::is_handover_file(&c.path)
        })
        .filter(|c| match c.path_bytes {
            // Not UTF-8: the exact name, never its U+FFFD rendering.
            Some(_) => std::fs::symlink_metadata(root.join(c.path_exact())).is_err(),
            None => !exists(root, &c.path),
        })
        .map(|c| c.path.as_str())
        // New files that exist only as uncommitted work on another machine: said by the
        // `uncommitted_elsewhere` reason, not missing from here.
        .filter(|p| !uncommitted_elsewhere(handoff, p))
        .collect();
    reasons.extend(files_reason(
        code::CHANGED_FILE_MISSING,
        Verdict::Drifted,
        &gone,
        |one| format!("The file {one}, changed before the handoff, no longer exists."),
        |n| format!("{n} files changed before the handoff no longer exist."),
    ));
}

/// The reason `code` about `paths` (None when there are none): its message from `one` (the
/// path, quoted) or `many` (how many), its details the quoted paths (capped).
fn files_reason(
    code: &str,
    severity: Verdict,
    paths: &[&str],
    one: fn(String) -> String,
    many: fn(usize) -> String,
) -> Option<Reason> {
    let message = match paths {
        [] => return None,
        [path] => one(quote(path)),
        all => many(all.len()),
    };
    let details = cap_files(paths.iter().map(|p| quote(p)).collect());
    Some(reason(code, severity, message, details))
}
