//! The commits between the handoff's HEAD and HEAD now, when they form a plain line, read
//! without libgit2 ([`super::objects`]): the common case of a session start after the user
//! committed (or reset) a few times, which then costs a few small positioned reads instead of
//! libgit2's mapping of the whole pack and its index (docs/benchmarks.md). Anything else (a
//! merge, a root, a long way, a commit this reader leaves to libgit2, a shallow or grafted
//! history, whose parents libgit2 rewrites) answers None, and the verdict asks libgit2 as it
//! always did.

use super::objects::{Answer, Objects};
use git2::{Oid, Repository};

/// The longest line followed here; a longer way is libgit2's walk.
const MAX_LINE: usize = 100;

/// Whether libgit2 rewrites the parents it reads (a shallow history, or grafts): then only
/// libgit2 walks the history.
pub fn grafted(repo: &Repository) -> bool {
    repo.is_shallow() || repo.commondir().join("info").join("grafts").exists()
}

/// The commits reachable from `from` and not from `to`, newest first with their summaries,
/// when `to` is reached from `from` through commits of exactly one parent each, in at most
/// [`MAX_LINE`] steps: then they are exactly what libgit2's walk from `from` hiding `to`
/// gives, in the same order (a line has one order). Ok(None) otherwise; a commit on the way
/// that is too big or damaged is the reader's refusal (libgit2 must not walk through it).
pub fn line(objects: &Objects, from: Oid, to: Oid) -> Answer<Vec<(Oid, Vec<u8>)>> {
    let mut line = Vec::new();
    let mut at = from;
    while at != to {
        if line.len() == MAX_LINE {
            return Ok(None);
        }
        let Some(fields) = objects.commit(at)? else {
            return Ok(None);
        };
        let [parent] = fields.parents[..] else {
            return Ok(None);
        };
        line.push((at, fields.summary()));
        at = parent;
    }
    // `to` itself must be a commit read here too, as libgit2 would have read it.
    if objects.commit(to)?.is_none() {
        return Ok(None);
    }
    Ok(Some(line))
}

#[cfg(test)]
mod tests {
    use super::{grafted, line};
    use crate::objects::Objects;
    use crate::test_git::{git, init_at, temp_repo};
    use git2::{Oid, Repository, Sort};

    /// libgit2's answer, as the verdict asks it: whether `from` descends from `to`, and the
    /// walk from `from` hiding `to` with each commit's summary.
    fn libgit2_walk(repo: &Repository, from: Oid, to: Oid) -> (bool, Vec<(Oid, Vec<u8>)>) {
        let descends = repo.graph_descendant_of(from, to).unwrap();
        let mut walk = repo.revwalk().unwrap();
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME).unwrap();
        walk.push(from).unwrap();
        walk.hide(to).unwrap();
        let commits = walk
            .map(|id| {
                let id = id.unwrap();
                let summary = repo
                    .find_commit(id)
                    .unwrap()
                    .summary_bytes()
                    .unwrap()
                    .to_vec();
                (id, summary)
            })
            .collect();
        (descends, commits)
    }

    /// A history with lines, a merge, a side branch and a second root, packed in part: every
    /// pair of its commits gets libgit2's answer or none.
    #[test]
    fn a_line_is_what_libgit2_walks_and_anything_else_is_left_to_it() {
        let dir = temp_repo();
        let root = dir.path();
        // Each branch its own file: the merge has no conflict.
        let commit = |m: &str| {
            let file = if m.contains("side") { "g" } else { "f" };
            std::fs::write(root.join(file), m).unwrap();
            git(root, &["add", file]);
            git(root, &["commit", "-q", "-m", m]);
        };
        for i in 0..5 {
            commit(&format!("main {i}\n\nbody\nlines"));
        }
        git(root, &["repack", "-adq"]);
        git(root, &["checkout", "-qb", "side", "HEAD~2"]);
        for i in 0..3 {
            commit(&format!("  side {i}  \n second line"));
        }
        git(root, &["checkout", "-q", "main"]);
        git(
            root,
            &["merge", "-q", "--no-ff", "-m", "merge side", "side"],
        );
        for i in 0..3 {
            commit(&format!("after {i}"));
        }
        git(root, &["checkout", "-q", "--orphan", "other"]);
        commit("another root");
        let repo = Repository::open(root).unwrap();
        assert!(!grafted(&repo));
        let objects = Objects::of(&repo).unwrap();
        let mut walk = repo.revwalk().unwrap();
        for branch in ["main", "side", "other"] {
            walk.push_ref(&format!("refs/heads/{branch}")).unwrap();
        }
        let all: Vec<Oid> = walk.map(Result::unwrap).collect();
        assert_eq!(all.len(), 13);
        let (mut lines, mut left) = (0, 0);
        for &from in &all {
            for &to in &all {
                if from == to {
                    continue;
                }
                match line(&objects, from, to).unwrap() {
                    Some(ours) => {
                        lines += 1;
                        assert_eq!(libgit2_walk(&repo, from, to), (true, ours));
                    }
                    None => left += 1,
                }
            }
        }
        // Every pair along a line of single parents is answered here (main 0-4, side, after).
        assert!(lines >= 25, "{lines} lines");
        assert!(left > 0);
        // Through the merge: left to libgit2.
        let head = repo.refname_to_id("refs/heads/main").unwrap();
        let first = *all
            .iter()
            .find(|id| repo.find_commit(**id).unwrap().summary() == Some("main 0"))
            .unwrap();
        assert!(line(&objects, head, first).unwrap().is_none());
    }

    /// Pairs of commits of an existing history, read both ways:
    /// `HANDOVER_OBJECTS_REPO=<path> cargo test -p handover-verify pairs_of_a_given -- --ignored`.
    #[test]
    #[ignore = "reads the repository named by HANDOVER_OBJECTS_REPO"]
    fn pairs_of_a_given_history_are_what_libgit2_walks() {
        let root = std::env::var_os("HANDOVER_OBJECTS_REPO").expect("HANDOVER_OBJECTS_REPO");
        let repo = Repository::open(&root).unwrap();
        assert!(!grafted(&repo), "a plain history");
        let objects = Objects::of(&repo).expect("a plain object database");
        let mut walk = repo.revwalk().unwrap();
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME).unwrap();
        walk.push_head().unwrap();
        let recent: Vec<Oid> = walk.take(300).map(Result::unwrap).collect();
        let (mut lines, mut left) = (0, 0);
        for (i, &from) in recent.iter().enumerate() {
            for &to in recent.iter().skip(i + 1).take(12) {
                for (a, b) in [(from, to), (to, from)] {
                    match line(&objects, a, b).unwrap() {
                        Some(ours) => {
                            lines += 1;
                            assert_eq!(libgit2_walk(&repo, a, b), (true, ours));
                        }
                        None => left += 1,
                    }
                }
            }
        }
        eprintln!("{lines} pairs answered as libgit2 walks them, {left} left to it");
        assert!(lines > 0);
    }

    #[test]
    fn a_shallow_history_is_left_to_libgit2() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("source");
        init_at(&source);
        for i in 0..3 {
            std::fs::write(source.join("f"), format!("{i}")).unwrap();
            git(&source, &["add", "f"]);
            git(&source, &["commit", "-q", "-m", &format!("c{i}")]);
        }
        let url = format!("file://{}", source.display());
        git(
            dir.path(),
            &["clone", "-q", "--depth", "2", &url, "shallow"],
        );
        let repo = Repository::open(dir.path().join("shallow")).unwrap();
        assert!(repo.is_shallow());
        assert!(grafted(&repo));
    }
}
